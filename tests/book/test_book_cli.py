"""`hub-engine book build|probe|info` with real (tiny) searches."""
from __future__ import annotations

import re

from hub_engine.cli import main


def test_build_probe_info(tmp_path, capsys):
    d = str(tmp_path)
    assert main(["book", "build", "--variant", "spanish", "--dir", d, "--positions", "25",
                 "--nodes", "2000", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "ruleset=portuguese" in out and "scored=" in out
    assert "starting a new portuguese book" in err and "book unpack --variant portuguese" in err
    assert (tmp_path / "portuguese.book").exists()
    assert (tmp_path / "work" / "portuguese.log").exists()
    assert main(["book", "probe", "--variant", "portuguese", "--dir", d]) == 0
    out = capsys.readouterr().out
    assert "expanded yes" in out and out.count("height") == 1 + 7      # the 7 first moves
    assert main(["book", "probe", "--variant", "portuguese", "--dir", d, "--moves",
                 "9-13 24-20 13-17"]) == 1
    assert "not in the book" in capsys.readouterr().out
    assert main(["book", "info", "--variant", "spanish", "--dir", d]) == 0
    out = capsys.readouterr().out
    entries, expanded = map(int, re.search(r"entries (\d+) expanded (\d+)", out).groups())
    assert "ruleset portuguese" in out and entries >= 25 and expanded >= 2
    height, plies = map(int, re.search(r"start: height (\d+), main line (\d+) plies", out).groups())
    assert height == plies >= 1
    assert main(["book", "info", "--variant", "portuguese", "--file",
                 str(tmp_path / "portuguese.book")]) == 0


def test_errors_are_reported(tmp_path, capsys):
    d = str(tmp_path)
    assert main(["book", "info", "--variant", "russian", "--dir", d]) == 2
    assert "no book for russian" in capsys.readouterr().err
    (tmp_path / "russian.book").write_bytes(b"garbage")
    assert main(["book", "info", "--variant", "russian", "--dir", d]) == 2
    err = capsys.readouterr().err
    assert "truncated" in err
    assert main(["book", "build", "--variant", "russian", "--dir", d, "--positions", "-1"]) == 2
    assert "must be" in capsys.readouterr().err
    assert main(["book", "build", "--variant", "russian", "--dir", d, "--positions", "1",
                 "--eval", str(tmp_path / "nope.bin")]) == 2
    assert "nope.bin" in capsys.readouterr().err


def test_info_counts_the_ballots_main_lines(capsys):
    """The packaged russian book: every ballot expanded, and the count of lines at least
    --main-line plies deep agrees with the median and the least depth printed beside it."""
    assert main(["book", "info", "--variant", "russian", "--lines", "0"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"ballots russian: (\d+)/745 expanded, main line median (\d+) plies, "
                      r"min (\d+), (\d+)/745 at 12 plies or more", out)
    assert found, out
    expanded, median, least, deep = map(int, found.groups())
    assert expanded == 745 and least >= 1
    assert (deep >= 373) == (median >= 12)
    assert main(["book", "info", "--variant", "russian", "--lines", "0",
                 "--main-line", str(least)]) == 0
    assert f"745/745 at {least} plies or more" in capsys.readouterr().out


def test_build_main_lines_then_stop(tmp_path, capsys):
    d = str(tmp_path)
    assert main(["book", "build", "--variant", "portuguese", "--dir", d, "--total", "100000",
                 "--main-line", "4", "--nodes", "2000", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "main_line=4 short_lines=0" in out
    scored = int(re.search(r"scored=(\d+)", out).group(1))
    assert 4 <= scored < 400                     # the lines' expansions, not the --total
    assert main(["book", "info", "--variant", "portuguese", "--dir", d, "--lines", "10"]) == 0
    height = int(re.search(r"start: height (\d+)", capsys.readouterr().out).group(1))
    assert height >= 4
    assert main(["book", "build", "--variant", "portuguese", "--dir", d, "--total", "10",
                 "--main-line", "-1"]) == 2
    assert "--main-line" in capsys.readouterr().err
