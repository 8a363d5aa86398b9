"""The analysis at the edges: resume only with the same settings, output files checked before
the input is read, positions with no legal move, bad position lines, a stream of games, and pool
workers that die with their parent."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from analysis_fakes import stub_analyser
from launchers import engine_command

from hub_engine import analysis as an
from hub_engine.analysis.records import engine_id
from hub_engine.analysis.tasks import Reader

HERE = Path(__file__).parent
DATA = HERE / "data"
GAMES = str(DATA / "games.pdn")
ROOT = HERE.parent.parent
TINSLEY = ROOT / "tests" / "data" / "checkerboard" / "tinsley.pdn"


def lines(path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f]


def run_stub(inputs, out, **kw) -> dict:
    kw.setdefault("workers", 1)
    kw.setdefault("errors_to", None)
    return an.analyse(inputs, output=out, analyser=stub_analyser, **kw)


# --- resume ------------------------------------------------------------------------------------

def test_records_carry_their_settings(tmp_path):
    out = tmp_path / "o.jsonl"
    run_stub(GAMES, out, depth=4)
    recs = lines(out)
    assert {json.dumps(r["limits"], sort_keys=True) for r in recs} == {
        '{"depth": 4, "move_time": null, "nodes": null}'}
    assert {r["engine"] for r in recs} == {engine_id()}
    assert engine_id().startswith("hub-engine ") and " eval " in engine_id()


def test_the_engine_id_changes_with_the_learned_weights(tmp_path, monkeypatch):
    shipped = engine_id()
    data = Path(__file__).resolve().parents[2] / "hub_engine" / "data"
    for f in data.glob("learned-*.bin"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    monkeypatch.setenv("HUB_ENGINE_WEIGHTS_DIR", str(tmp_path))
    assert engine_id() == shipped                     # the same weights from elsewhere
    w = tmp_path / "learned-russian.bin"
    w.write_bytes(w.read_bytes()[:-2] + b"\x01\x00")  # one weight changed
    assert engine_id() != shipped


@pytest.mark.parametrize("other", [{"depth": 5}, {"nodes": 1000}, {"move_time": 0.1}])
def test_resume_with_other_limits_refuses_before_reading_the_input(tmp_path, other, monkeypatch):
    out = tmp_path / "o.jsonl"
    run_stub(GAMES, out, depth=4)
    before = out.read_text()
    monkeypatch.setattr(Reader, "sources", lambda self: pytest.fail("the input was read"))
    with pytest.raises(an.ResumeError) as exc:
        run_stub(GAMES, out, **other)
    msg = str(exc.value)
    assert str(out) in msg and "depth 4" in msg and "--no-resume" in msg and "--output" in msg
    assert out.read_text() == before            # nothing lost
    monkeypatch.undo()
    summary = run_stub(GAMES, out, resume=False, **other)      # --no-resume replaces the file
    assert summary["skipped"] == 0 and {r["limits"][next(iter(other))] for r in lines(out)} == {
        next(iter(other.values()))}


def test_resume_refuses_records_of_another_engine_version(tmp_path):
    out = tmp_path / "o.jsonl"
    run_stub(GAMES, out, depth=4)
    recs = lines(out)
    out.write_text("".join(json.dumps(dict(r, engine="hub-engine 0.0.9 eval 00000000")) + "\n"
                           for r in recs))
    with pytest.raises(an.ResumeError, match="hub-engine 0.0.9"):
        run_stub(GAMES, out, depth=4)
    # records of an older hub-engine (no settings at all) are not trusted either
    out.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ("limits", "engine")})
                           + "\n" for r in recs))
    with pytest.raises(an.ResumeError, match="older hub-engine"):
        run_stub(GAMES, out, depth=4)


def test_resume_redoes_positions_whose_input_changed(tmp_path):
    """A game read as another variant (no GameType, another --variant) or edited is searched
    again, and its old lines leave the file."""
    src = tmp_path / "g.pdn"
    src.write_text("1. 22-18 11-15 *\n\n1. 11-15 23-19 *\n")       # brazilian, then english
    out = tmp_path / "o.jsonl"
    first = run_stub(str(src), out, depth=3, variant="brazilian")
    assert first["analysed"] == 3 + 1 and len(first["errors"]) == 1
    again = run_stub(str(src), out, depth=3, variant="english")
    # game 1 now fails at its first move (ply 0 is english: redone), game 2 reads: 3 positions
    assert again["skipped"] == 0 and again["analysed"] == 1 + 3
    recs = lines(out)
    keys = [(r["game"], r["ply"]) for r in recs]
    assert len(keys) == len(set(keys)) == 4                    # the stale lines are gone
    assert {r["variant"] for r in recs} == {"english"}
    # edited games: only their changed positions are redone (a position, or its played move)
    src.write_text("1. 11-15 23-19 *\n\n1. 11-15 23-18 *\n")
    edited = run_stub(str(src), out, depth=3, variant="english")
    assert edited["skipped"] == 1 and edited["analysed"] == 3 + 2
    recs = lines(out)
    assert len(recs) == len({(r["game"], r["ply"]) for r in recs}) == 6
    assert {r["played"] for r in recs if r["ply"] == 1} == {"23-19", "23-18"}


# --- output files ------------------------------------------------------------------------------

def _no_input_read(monkeypatch):
    monkeypatch.setattr(Reader, "sources", lambda self: pytest.fail("the input was read"))


def test_output_errors_name_the_path_before_the_input_is_read(tmp_path, monkeypatch):
    _no_input_read(monkeypatch)
    missing = tmp_path / "no" / "such" / "o.jsonl"
    with pytest.raises(an.OutputError, match=rf"cannot write the output {missing}: the directory "
                                             rf"{missing.parent} does not exist"):
        run_stub(GAMES, missing)
    with pytest.raises(an.OutputError, match=rf"cannot write the output {tmp_path}: "):
        run_stub(GAMES, tmp_path)                                   # a directory
    ann = tmp_path / "missing" / "a.pdn"
    with pytest.raises(an.OutputError, match=rf"cannot write the annotated PDN {ann}"):
        run_stub(GAMES, tmp_path / "o.jsonl", pdn_output=ann)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_found_before_the_input_is_read(tmp_path, monkeypatch):
    _no_input_read(monkeypatch)
    with pytest.raises(an.OutputError, match="cannot write the output /dev/full: No space left"):
        run_stub(GAMES, "/dev/full")
    with pytest.raises(an.OutputError, match="cannot write the annotated PDN /dev/full: No space"):
        run_stub(GAMES, tmp_path / "o.jsonl", pdn_output="/dev/full")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs a user whom file permissions stop (not root)")
def test_an_unwritable_output_is_named(tmp_path, monkeypatch):
    _no_input_read(monkeypatch)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    with pytest.raises(an.OutputError, match=rf"cannot write the output {locked}/o.jsonl: "
                                             "Permission denied"):
        run_stub(GAMES, locked / "o.jsonl")


def test_output_errors_on_the_command_line(tmp_path):
    missing = tmp_path / "nowhere" / "o.jsonl"
    proc = subprocess.run([*engine_command(), "analyse", GAMES, "--depth", "1", "--workers", "1",
                           "--output", str(missing)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"hub-engine analyse: error: cannot write the output {missing}: the "
                           f"directory {missing.parent} does not exist\n")


# --- positions -----------------------------------------------------------------------------

def test_a_position_with_no_legal_move_gets_a_record_without_search(tmp_path):
    fen = tmp_path / "p.fen"
    fen.write_text("W:W:B1,2\nW:W21:B1\n")          # white has nothing left; then a position
    called = []

    def analyser(task, limits):
        called.append(task["game"])
        return stub_analyser(task, limits)

    out = tmp_path / "o.jsonl"
    summary = an.analyse(str(fen), depth=3, workers=1, output=out, analyser=analyser,
                         errors_to=None, pdn_output=tmp_path / "a.pdn")
    recs = {r["game"]: r for r in lines(out)}
    lost = recs[f"{fen}:1"]
    assert (lost["outcome"], lost["best"], lost["score"], lost["pv"], lost["nodes"]) == (
        "loss", None, -100.0, [], 0)
    assert recs[f"{fen}:2"]["outcome"] is None
    assert called == [f"{fen}:2"] and summary["analysed"] == 2 and not summary["errors"]
    assert "{hub-engine: white has no legal move and has lost}" in (tmp_path / "a.pdn").read_text()


def test_records_that_call_the_outcome_result_are_resumed_as_before(tmp_path):
    """Records written before `outcome` had its name said `result: "loss"`: a resumed run
    reuses them and its annotated PDN still says the position is lost."""
    fen = tmp_path / "p.fen"
    fen.write_text("W:W:B1,2\nW:W21:B1\n")
    out = tmp_path / "o.jsonl"
    run_stub(str(fen), out, depth=3)
    old = []
    for rec in lines(out):
        rec["result"] = rec.pop("outcome")
        old.append(json.dumps(rec) + "\n")
    out.write_text("".join(old))
    summary = run_stub(str(fen), out, depth=3, pdn_output=tmp_path / "a.pdn")
    assert (summary["skipped"], summary["analysed"]) == (2, 0)
    assert "{hub-engine: white has no legal move and has lost}" in (tmp_path / "a.pdn").read_text()


def test_a_game_that_ends_without_legal_moves_records_its_end(tmp_path):
    src = tmp_path / "g.pdn"            # brazilian: black takes white's last man
    src.write_text('[GameType "26"]\n[FEN "B:W23:B10"]\n1... 10-14 2. 23-18 14x23 0-2\n')
    out = tmp_path / "o.jsonl"
    run_stub(str(src), out, depth=3)
    recs = sorted(lines(out), key=lambda r: r["ply"])
    assert [r["ply"] for r in recs] == [0, 1, 2, 3]
    assert [r["outcome"] for r in recs] == [None, None, None, "loss"]
    assert recs[-1]["side"] == "white" and recs[-1]["played"] is None


@pytest.mark.parametrize("suffix, good, bad", [
    (".fen", "W:W21,22:B1", "W:W21,21:B1"),
    (".hub", "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "Wbbb"),
])
def test_a_bad_position_line_exits_1_on_the_command_line(tmp_path, suffix, good, bad):
    src = tmp_path / f"p{suffix}"
    src.write_text(f"{good}\n{bad}\n")
    out = tmp_path / "o.jsonl"
    proc = subprocess.run([*engine_command(), "analyse", str(src), "--variant", "italian",
                           "--depth", "1", "--workers", "1", "--output", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert f"{src}: line 2: bad" in proc.stderr and len(lines(out)) == 1


# --- streaming ---------------------------------------------------------------------------------

def test_games_become_tasks_as_they_are_read(tmp_path):
    """The first record comes before the input is read: tinsley.pdn (724 games, 37,000
    positions) is stopped at its first record with most of the file unread."""
    seen = []

    def first(done, total):
        seen.append(total)
        raise KeyboardInterrupt

    with pytest.raises(an.AnalysisInterrupted) as exc:
        an.analyse(str(TINSLEY), variant="english", depth=1, workers=2,
                   output=tmp_path / "o.jsonl", analyser=stub_analyser, errors_to=None,
                   progress=first)
    assert exc.value.summary["analysed"] == 1
    assert seen[0] < 200 and exc.value.summary["games"] < 5


# --- pool workers --------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_dead(pids: list[int], timeout: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


POOL_SCRIPT = """
import sys
sys.path[:0] = [{here!r}, {root!r}]
from analysis_fakes import stub_analyser
from hub_engine.analysis import analyse
analyse([{games!r}], depth=4, workers=2, output={out!r}, analyser=stub_analyser, errors_to=None)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
def test_pool_workers_exit_when_the_main_process_is_killed(tmp_path):
    out = tmp_path / "o.jsonl"
    script = POOL_SCRIPT.format(here=str(HERE), root=str(ROOT), games=GAMES, out=str(out))
    env = dict(os.environ, HUB_ENGINE_STUB_DELAY="0.2")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n") >= 2):
        time.sleep(0.02)
    workers = [p for p in _children(proc.pid) if _alive(p)]
    assert len(workers) >= 2, workers
    os.kill(proc.pid, signal.SIGKILL)          # the main process only, as a crash would
    proc.wait()
    left = _wait_dead(workers)
    for pid in left:                           # leave no process behind, even on failure
        os.kill(pid, signal.SIGKILL)
    assert left == []


WATCH_SCRIPT = """
import sys, time
sys.path[:0] = [{root!r}]
from hub_engine.lifetime import exit_with_parent
exit_with_parent(use_prctl=False, poll=0.05)      # the fallback of systems without prctl
print("watching", flush=True)
time.sleep(60)
"""

MIDDLE_SCRIPT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {watch!r}], stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print(child.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
def test_the_parent_watch_ends_an_orphan_without_prctl():
    watch = WATCH_SCRIPT.format(root=str(ROOT))
    middle = subprocess.Popen([sys.executable, "-c", MIDDLE_SCRIPT.format(watch=watch)],
                              stdout=subprocess.PIPE, text=True)
    child = int(middle.stdout.readline())
    assert _alive(child)
    os.kill(middle.pid, signal.SIGKILL)
    middle.wait()
    left = _wait_dead([child], timeout=10)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
