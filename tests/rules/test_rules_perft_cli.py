"""The `hub-engine perft` command line (python -m hub_engine perft ...)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from rules_helpers import ROOT, mvs

LINE = re.compile(r"depth=(\d+) nodes=(\d+) time=(\d+\.\d{3}) nps=(\d+)")


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "hub_engine", "perft", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_depth_lines():
    r = run("--variant", "russian", "--depth", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    parsed = [LINE.fullmatch(line) for line in lines]
    assert all(parsed), lines
    assert [(int(m[1]), int(m[2])) for m in parsed] == [(1, 7), (2, 49), (3, 302)]
    assert r.stderr == ""


def test_divide_lines_sum_to_the_total():
    r = run("--variant", "brazilian", "--depth", "5", "--divide")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    moves = [line for line in lines if re.fullmatch(r"\d+-\d+ \d+", line)]
    assert {line.split()[0] for line in moves} == {"9-13", "10-13", "10-14", "11-14", "11-15",
                                                   "12-15", "12-16"}
    total = sum(int(line.split()[1]) for line in moves)
    assert total == 7473                                   # rules.md section 5, brazilian d5
    assert f"total {total}" in lines
    depth_lines = [LINE.fullmatch(line) for line in lines if line.startswith("depth=")]
    assert int(depth_lines[-1][1]) == 5 and int(depth_lines[-1][2]) == total
    # every line is one of the three kinds
    assert len(moves) + 1 + len(depth_lines) == len(lines)


def test_divide_of_a_capture_position_prints_capture_strings():
    r = run("--variant", "russian", "--depth", "2", "--divide", "--fen", "W:Wc3,h2:Bd4,f6,g3")
    assert r.returncode == 0, r.stderr
    moves = dict(line.split() for line in r.stdout.splitlines() if re.fullmatch(r"\S+ \d+", line)
                 and not line.startswith("total"))
    # russian numbers (a1 = 1): c3 = 10, d4 = 14, f6 = 23, g7 = 28; h2 = 8, g3 = 12, f4 = 15
    assert set(moves) == {"10x28x14x23", "8x15x12"}
    assert set(moves) == mvs("russian", "c3xg7 d4 f6", "h2xf4 g3")


def test_fen_and_pos_options():
    r = run("--variant", "italian", "--depth", "4", "--only",
            "--fen", "B:W30,21,22,17,20,K6:B25,28,9,5,1,3")
    assert r.returncode == 0, r.stderr
    assert [LINE.fullmatch(x)[2] for x in r.stdout.splitlines()] == ["1916"]
    r = run("--variant", "english", "--depth", "2", "--pos", "W" + "b" * 12 + "e" * 8 + "w" * 12)
    assert [LINE.fullmatch(x)[2] for x in r.stdout.splitlines()] == ["7", "49"]


@pytest.mark.parametrize("args,message", [
    (("--fen", "W:Wz9:B1"), "bad square 'z9'"),
    (("--fen", "W:W33:B1"), "square 33"),
    (("--pos", "Wxx"), "3 characters"),
])
def test_bad_position_exits_2_with_an_error(args, message):
    r = run("--variant", "russian", "--depth", "2", *args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "error" in r.stderr and message in r.stderr
    assert "Traceback" not in r.stderr
