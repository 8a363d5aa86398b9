"""The command line as a user meets it: version, help, argument checks, Ctrl-C, a quiet stderr in
Hub mode, and tools that run outside an activated virtual environment."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from launchers import default_sigint, engine_command
from protocol.client import HubClient

ROOT = Path(__file__).resolve().parents[2]
ENGINE = engine_command()
SUBCOMMANDS = ("learn selfplay", "learn train", "tables build", "tables probe", "tables info")
COMMANDS = ("hub", "perft", "bench", "analyse", "match", "report", "learn", "tables", "tournament")


def bare_env() -> dict[str, str]:
    """A user's shell without the virtual environment activated: its bin directory is not on
    PATH, so a bare `python3` there is another interpreter."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "HUB_ENGINE_LOG_LEVEL", "HUB_ENGINE_LOG_FILE")}
    bindir = str(Path(ENGINE[0]).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != bindir)
    return env


def run(*args: str, timeout: float = 120, env: dict[str, str] | None = None,
        stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*ENGINE, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env or bare_env(), input=stdin)


def test_version():
    r = run("--version")
    assert r.returncode == 0
    assert re.fullmatch(r"hub-engine \d+\.\d+\.\d+\n", r.stdout), r.stdout


def test_top_level_help_lists_every_command():
    r = run("--help")
    assert r.returncode == 0
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s+\S", r.stdout, re.M), (command, r.stdout)
    assert "--version" in r.stdout and "--log-file" in r.stdout


@pytest.mark.parametrize("command", [*COMMANDS[1:6], "tournament", *SUBCOMMANDS])
def test_every_option_has_a_help_text_with_its_default(command):
    r = run(*command.split(), "--help")
    assert r.returncode == 0, r.stderr
    options = r.stdout.split("options:", 1)[1]
    # each option line (two-space indent, a dash) is followed by words of help
    entries = re.split(r"\n  (?=-)", options)
    for entry in entries[1:]:
        words = entry.split(None, 1)
        assert len(words) == 2 and len(words[1].split()) >= 2, (command, entry)
    if command in ("bench", "match", "tournament"):
        assert "(default" in options or "default:" in options


@pytest.mark.parametrize("args,message", [
    (("bench", "--depth", "0"), "--depth: must be from 1 to"),
    (("bench", "--depth", "-3"), "--depth: must be from 1 to"),
    (("bench", "--threads", "0"), "--threads: must be from 1 to"),
    (("bench", "--threads", str((os.cpu_count() or 1) + 1)), "--threads: must be from 1 to"),
    (("bench", "--depth", "x"), "--depth: expected an integer, got 'x'"),
    (("bench", "--every", "0"), "--every: must be from 1 to"),
    (("bench", "--limit", "-1"), "--limit: must be from 0 to"),
    (("perft", "--depth", "0"), "--depth: must be from 1 to"),
    (("perft", "--depth", "-1"), "--depth: must be from 1 to"),
    (("perft", "--depth", "2", "--pos", "Wbad"), "hub-engine: error: "),
    (("--log-level", "LOUD"), "invalid choice: 'LOUD'"),
])
def test_bad_arguments_are_clear_errors(args, message):
    r = run(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_bench_searches_the_positions_of_a_game_file(tmp_path):
    """`bench --pdn`: one line per game position (the public Tinsley games, english), every
    --every-th of them up to --limit, then the total; a file without games is a clear error."""
    games = ROOT / "tests" / "data" / "checkerboard" / "tinsley.pdn"
    r = run("bench", "--pdn", str(games), "--variant", "english", "--every", "97", "--limit", "9",
            "--depth", "4")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("nodes="), r.stdout
    positions = [line.split()[1] for line in lines[:-1]]
    assert all(line.startswith("english ") for line in lines[:-1])
    from hub_engine.rules.position import Position

    assert len(set(positions)) == 9 and positions[0] == Position.start("english").hub()
    assert sum(int(re.search(r"nodes=(\d+)", line).group(1)) for line in lines[:-1]) == int(
        re.match(r"nodes=(\d+)", lines[-1]).group(1))
    empty = tmp_path / "none.pdn"
    empty.write_text("no games here\n")
    for path, message in ((empty, "no game position to search"),
                          (tmp_path / "missing.pdn", "No such file")):
        r = run("bench", "--pdn", str(path))
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_hub_mode_writes_nothing_on_stderr_by_default(tmp_path):
    # rejected input and an illegal move are logged as warnings: in Hub mode they go only
    # to the log file (pydraughts would read a stderr line as a protocol line)
    log = tmp_path / "engine.log"
    session = "\n".join(["hub", "bogus-command", "set-param name=variant value=klingon",
                         "pos moves=\"1-2\"", "level depth=x", "init", "quit"]) + "\n"
    r = run(stdin=session, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.count("error message=") == 4 and r.stdout.endswith("ready\n"), r.stdout
    r = run("--log-file", str(log), stdin=session, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = log.read_text()
    assert "unknown command bogus-command" in text and "in:  hub" in text
    # asked for, stderr gets the log
    r = run("--log-level", "warning", stdin=session, timeout=60)
    assert "unknown command bogus-command" in r.stderr


def _ctrl_c(args, settle) -> tuple[int, str, str]:
    """Start the engine with ARGS, send it `hub`, wait for settle() to return, then press
    Ctrl-C: its status, stdout and stderr."""
    proc = subprocess.Popen([*ENGINE, *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=bare_env(), preexec_fn=default_sigint)
    try:
        proc.stdin.write("hub\n")
        proc.stdin.flush()
        settle()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, out, err


@pytest.mark.parametrize("args", [(), ("perft", "--depth", "13"), ("bench", "--depth", "40")])
def test_ctrl_c_exits_quietly(args):
    status, out, err = _ctrl_c(args, lambda: time.sleep(1.5))
    assert status == 130, (status, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Traceback" not in out


def test_ctrl_c_in_a_resumable_build_says_how_to_go_on(tmp_path):
    """`tables build` stopped by Ctrl-C: status 130, no traceback, a line saying that the same
    command resumes, and the slices built so far kept for it."""
    first = tmp_path / "english" / "wld" / "0101.tb"      # the first slice a build writes

    def settle() -> None:
        deadline = time.monotonic() + 60
        while not first.is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(0.5)

    status, out, err = _ctrl_c(("tables", "build", "--variant", "english", "--workers", "1",
                                "--no-progress", "--dir", str(tmp_path)), settle)
    assert status == 130, (status, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().endswith("interrupted; the slices built are kept; the same command resumes")
    assert first.is_file() and not (tmp_path / "english" / "wld" / "3030.tb").exists()


def test_a_file_the_tools_cannot_write_is_a_clear_error(tmp_path):
    """An OSError from a tool (here a tables directory under a plain file) is reported as
    `hub-engine: error:` with status 2, like a bad argument, not as a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory\n")
    r = run("tables", "build", "--variant", "english", "--pieces", "2", "--no-progress",
            "--dir", str(blocker / "tables"))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "hub-engine: error:" in r.stderr and "Traceback" not in r.stderr, r.stderr


def _into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """Run a command whose stdout is a pipe nobody reads any more (`... | head` after head has
    gone)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run([*ENGINE, *args], cwd=ROOT, stdout=writer, stderr=subprocess.PIPE,
                              text=True, timeout=120, env=bare_env())
    finally:
        os.close(writer)


@pytest.mark.parametrize("args", [
    ("perft", "--depth", "3"),
    ("analyse", str(ROOT / "tests" / "analysis" / "data" / "italian.hub"), "--variant",
     "italian", "--depth", "2", "--output", "-"),
])
def test_a_closed_pipe_on_stdout_ends_a_tool_quietly(args):
    """`hub-engine perft ... | head -1`: the pipe's reader has gone, so the tool stops with the
    status a shell shows for SIGPIPE and writes nothing on stderr (no error line, no
    traceback, no complaint from the interpreter's last flush)."""
    r = _into_a_closed_pipe(*args)
    assert (r.returncode, r.stderr) == (141, "")


def test_match_with_default_engines_outside_an_activated_environment():
    r = run("match", "--games", "2", "--move-time", "0.02", "--max-plies", "16",
            "--opening-depth", "0", timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "wins=" in r.stdout.splitlines()[-1]
    assert "PROBLEM" not in r.stdout


def test_match_with_an_engine_that_dies_at_start_fails_and_shows_why(tmp_path):
    broken = tmp_path / "broken-engine"
    broken.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named loguru' >&2\n"
                      "exit 1\n")
    broken.chmod(0o755)
    r = run("match", "--games", "4", "--move-time", "0.02", "--opening-depth", "0",
            "--engine2", str(broken), timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "engine2 could not start" in r.stderr
    assert "No module named loguru" in r.stderr
    assert "score=" not in r.stdout


def test_the_readme_paste_session_shows_what_the_readme_says():
    text = (ROOT / "README.md").read_text()
    session = text.split("### A Hub session to paste", 1)[1].split("```")[1].strip()
    with HubClient(ENGINE, cwd=ROOT, env=bare_env()).start() as engine:
        engine.send(*session.splitlines())
        lines = [line.text for line in engine.until("done", 60)]
    words = [line.split()[0] for line in lines]
    assert words[0] == "id" and "param" in words and "wait" in words and "ready" in words
    assert words.index("ready") < words.index("info") and words.count("info") >= 2, words
    assert re.fullmatch(r"done move=\S+ ponder=\S+", lines[-1]), lines[-1]


def test_the_readme_pydraughts_snippet_runs(tmp_path):
    text = (ROOT / "README.md").read_text()
    section = text.split("**A pydraughts script**", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code += "\nprint('played', result.move.hub_move)\n"
    env = bare_env()
    env["PATH"] = sysconfig.get_path("scripts") + os.pathsep + env["PATH"]    # an activated venv
    # run from elsewhere: pydraughts must not depend on the working directory
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"played \d+-\d+\n", r.stdout), r.stdout
