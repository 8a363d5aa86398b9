"""`hub-engine book-check` (hub_engine.matches.bookcheck): positions drawn from the book as games
reach them, the search's move against the book's, the summary's arithmetic, its errors."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hub_engine.book.play import load_book
from hub_engine.matches import bookcheck
from hub_engine.rules.position import Game
from hub_engine.rules.variants import get_variant

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FAKE = f"{sys.executable} {HERE / 'fake_engines.py'}"
LINE = re.compile(r"^position +(\d+)/(\d+) '([^']*)' ply=(\d+) book=(\S+) height=(\d+) "
                  r"search=(\S+) S-B=(\S+) pos=(\S+)$")


def book_of(variant: str):
    book, errors = load_book(get_variant(variant))
    assert book is not None, errors
    return book


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_positions_are_reached_by_book_moves_and_leave_a_choice(variant):
    book = book_of(variant)
    roots = bookcheck.roots_of(variant, None)
    if variant == "portuguese":                       # no ballot set: the start position
        assert [name for name, _p in roots] == ["start"]
    got = bookcheck.sample_positions(variant, book, roots, 12, seed=4)
    assert got == bookcheck.sample_positions(variant, book, roots, 12, seed=4)
    assert got != bookcheck.sample_positions(variant, book, roots, 12, seed=5)
    assert len({pos for _r, pos, _k, _m in got}) == len(got) >= 6
    by_name = dict(roots)
    for root, pos, ply, picked in got:
        moves = book.moves(Game(variant, pos).position)
        assert moves is not None and len(moves) > 1            # in the book, with a choice
        assert picked.value >= moves[0].value - 4              # within book-margin of the best
        assert str(picked.move) in [str(m.move) for m in moves]
        assert ply >= 0 and root in by_name


def test_the_search_move_is_compared_and_the_summary_adds_up():
    args = bookcheck.argparse.Namespace(
        variant="brazilian", ballots=None, positions=6, move_time=0.05, ref_time=0.05,
        margin=4, seed=2, engine=f"{FAKE} first 0 0.25", param=None, book_path=None)
    out = io.StringIO()
    results = bookcheck.check(args, out)
    lines = [LINE.match(x) for x in out.getvalue().splitlines()]
    assert len(results) == 6 and all(lines)
    for m, c in zip(lines, results):
        game = Game("brazilian", m.group(9))
        assert m.group(7) == str(game.legal_moves()[0])     # the fake plays the first move
        same = m.group(5) == m.group(7)
        assert (m.group(8) == "+0") if same else re.fullmatch(r"[+-]\d+", m.group(8))
        assert c.difference is not None
    summary = bookcheck.summary(results)
    total = re.search(r"positions=(\d+) same=(\d+)", summary[-1])
    assert summary[-1].startswith("height  all:")
    assert int(total.group(1)) == 6
    assert int(total.group(2)) == sum(c.search == c.book for c in results)
    assert sum(int(re.search(r"positions=(\d+)", x).group(1)) for x in summary[:-1]) == 6


def test_a_run_with_this_engine():
    r = subprocess.run([sys.executable, "-m", "hub_engine", "book-check", "--variant", "russian",
                        "--positions", "2", "--move-time", "0.05", "--ref-time", "0.1"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum(bool(LINE.match(x)) for x in lines) == 2
    assert re.match(r"height  all: positions=2 same=\d ", lines[-1])


@pytest.mark.parametrize("argv,code,message", [
    (["--positions", "0"], 2, "book-check: error: --positions must be 1 to 100000"),
    (["--ref-time", "0"], 2, "book-check: error: --move-time and --ref-time must be above 0"),
    (["--variant", "italian", "--ballots", "russian"], 1,
     "book-check: error: italian has no ballot set 'russian' (its sets: italian-11man)"),
    (["--engine", "/nonexistent/engine"], 1, "book-check: error: cannot start"),
])
def test_errors_are_clear(argv, code, message):
    r = subprocess.run([sys.executable, "-m", "hub_engine", "book-check", *argv],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == code and message in r.stderr, r.stderr
