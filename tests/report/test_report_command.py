"""`hub-engine report` as a user runs it: output file, messages, exit status, same bytes."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from launchers import engine_command
from report_samples import game_records, write_jsonl

from hub_engine.report.command import default_output

ENGINE = engine_command()
PDN = '[White "Ann"]\n[Black "Bob"]\n[GameType "25"]\n[Result "1-0"]\n1. c3-d4 f6-g5 1-0\n'


def report(*args: str, cwd: Path, seed: str = "0") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run([*ENGINE, "report", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture
def analysis(tmp_path) -> Path:
    """games/club.pdn and its analysis records in games/club.analysis.jsonl."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "club.pdn").write_text(PDN)
    recs = game_records("russian", ["10-14", "23-20"], game="club.pdn#1", losses=[0, 1.3])
    return write_jsonl(games / "club.analysis.jsonl", recs)


def test_writes_the_report_next_to_the_analysis(analysis):
    r = report(str(analysis), cwd=analysis.parent.parent)
    assert (r.returncode, r.stderr) == (0, "")
    page = analysis.with_suffix(".html")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<td class="name">Ann</td>' in text
    assert "<title>club.analysis.jsonl</title>" in text


def test_output_title_and_pdn_options(analysis, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / "renamed.jsonl"
    analysis.rename(moved)
    r = report(str(moved), "-o", "out.html", "--title", "Club night", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("hub-engine report: club.pdn: not found, so its games are shown without "
                        "players and result (give it with --pdn)\n")
    assert "(no name)" in (tmp_path / "out.html").read_text()
    r = report(str(moved), "-o", "out.html", "--title", "Club night", "--pdn",
               str(tmp_path / "games" / "club.pdn"), cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    text = (tmp_path / "out.html").read_text()
    assert "<title>Club night</title>" in text and '<td class="name">Bob</td>' in text


def test_same_input_same_bytes_whatever_the_hash_seed(analysis, tmp_path):
    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"r{seed}.html"
        r = report(str(analysis), "-o", str(out), cwd=tmp_path, seed=seed)
        assert r.returncode == 0, r.stderr
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def test_bad_lines_are_reported_and_skipped(analysis, tmp_path):
    good = analysis.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([good[0], "{cut", json.dumps({"game": "x#1"}), *good[1:]]) + "\n")
    r = report(str(bad), "-o", str(tmp_path / "bad.html"), "--pdn",
               str(analysis.parent / "club.pdn"), cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"hub-engine report: {bad} line 2: not JSON (Expecting property name enclosed in double "
        "quotes) (line skipped)",
        f"hub-engine report: {bad} line 3: no variant (string) in the record (line skipped)"]
    assert (tmp_path / "bad.html").exists()


@pytest.mark.parametrize("content,message", [
    (None, "hub-engine report: error: cannot read missing.jsonl: No such file or directory"),
    ("", "hub-engine report: error: no analysis records in missing.jsonl"),
    ("{oops\n", "hub-engine report: error: no analysis records in missing.jsonl"),
])
def test_no_report_without_records(tmp_path, content, message):
    if content is not None:
        (tmp_path / "missing.jsonl").write_text(content)
    r = report("missing.jsonl", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == message
    assert "Traceback" not in r.stderr and not (tmp_path / "missing.html").exists()


def test_an_output_that_cannot_be_written(analysis, tmp_path):
    r = report(str(analysis), "-o", str(tmp_path / "no" / "such" / "dir.html"), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith("hub-engine report: error: cannot write ")
    assert "Traceback" not in r.stderr


def test_default_output_names():
    assert default_output("a/games.analysis.jsonl") == "a/games.analysis.html"
    assert default_output("x.JSONL") == "x.html"
    assert default_output("records.txt") == "records.txt.html"


def test_the_readme_command_makes_a_report_from_a_pdn_file(tmp_path):
    """The README's one line (analyse, then report), run as written in a shell."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = readme.split("## Game report", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    command = line.split("#", 1)[0].strip()
    assert command == "hub-engine analyse games.pdn && hub-engine report games.analysis.jsonl"
    (tmp_path / "games.pdn").write_text(PDN)
    env = dict(os.environ, PATH=str(Path(ENGINE[0]).parent) + os.pathsep + os.environ["PATH"])
    r = subprocess.run(["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "games.analysis.html").read_text(encoding="utf-8")
    assert '<td class="name">Ann</td>' in text and '<td class="name">Bob</td>' in text


def test_analyse_writes_the_report_in_one_go(tmp_path):
    (tmp_path / "club.pdn").write_text(PDN)
    r = subprocess.run([*ENGINE, "analyse", "club.pdn", "--depth", "2", "--workers", "1",
                        "--report", "club.html"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    text = (tmp_path / "club.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<td class="name">Ann</td>' in text
    # the same page as the two-step way
    again = report("club.analysis.jsonl", "-o", "again.html", cwd=tmp_path)
    assert again.returncode == 0
    assert (tmp_path / "again.html").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("args,message", [
    (["--report", "nowhere/x.html"], "no directory"),
    (["--report", "x.html", "--output", "-"], "--report needs the records in a file"),
])
def test_analyse_report_errors_come_first(tmp_path, args, message):
    (tmp_path / "club.pdn").write_text(PDN)
    r = subprocess.run([*ENGINE, "analyse", "club.pdn", "--depth", "2", *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp_path / "club.analysis.jsonl").exists()
