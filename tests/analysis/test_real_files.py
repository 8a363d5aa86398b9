"""Real game files (CheckerBoard's own, tests/data/SOURCES.md) read as CheckerBoard and pydraughts
read them: every game pydraughts accepts is accepted, game by game; and the annotated PDN of real
games is read back by pydraughts' PDNReader, every game and every move.

pydraughts replays a game slowly (about 0.1 s), so by default a sample of the games is replayed
with it (every 48th, and the two it rejects); HUB_ENGINE_FULL_PDN=1 replays them all and reads
back the annotated PDN of the whole files (several minutes: pydraughts' PDNReader takes time
quadratic in a file's games). Our own reader always reads the whole files.
"""
import json
import os
from pathlib import Path

import pytest
from analysis_fakes import stub_analyser

from hub_engine import analysis as an
from hub_engine.analysis.tasks import game_id
from hub_engine.rules.pdn import read_pdn, read_pdn_file, write_move

pdn_mod = pytest.importorskip("draughts.PDN", reason="pydraughts (the test extra) is not installed")
from draughts import Board, Move  # noqa: E402

DATA = Path(__file__).parent.parent / "data" / "checkerboard"
TINSLEY = DATA / "tinsley.pdn"
BALLOTS = {"english": DATA / "11_man_english.pdn", "italian": DATA / "11_man_italian.pdn"}
FULL = os.environ.get("HUB_ENGINE_FULL_PDN") == "1"
PYDRAUGHTS_REJECTS = {541, 693}       # found by the full replay (HUB_ENGINE_FULL_PDN=1)


@pytest.fixture(scope="module")
def tinsley():
    return read_pdn_file(TINSLEY, "english")


def test_tinsley_is_read_whole(tinsley):
    assert len(tinsley) == 724
    rejected = [g for g in tinsley if not g.ok]
    # game 541 plays `62. 32-28` with its king already on 28: the record itself is wrong
    assert [(g.number, g.errors[0].move) for g in rejected] == [(541, "62.")]
    assert "illegal move 32-28" in rejected[0].errors[0].message
    assert len(rejected[0].moves) == 122
    assert sum(len(g.moves) for g in tinsley) == 36108
    # quiet moves written with x (CheckerBoard's habit) are quiet moves
    assert tinsley[0].moves[6].text == "10x14" and not tinsley[0].moves[6].move.is_capture
    # a comment glued to the last move, as CheckerBoard reads it
    g693 = tinsley[692]
    assert g693.ok and g693.moves[-1].text == "26-22" and g693.result == "1-0"
    assert g693.moves[-1].comment == "Whiteoversteppedthetimecontrolonthismove."


def test_tinsley_without_variant_names_the_assumed_one():
    games = read_pdn_file(TINSLEY)                    # no GameType: the default, brazilian
    assert len(games) == 724 and not any(g.ok for g in games)
    err = str(games[0].errors[0])
    assert err.endswith("game 1, move 1: illegal move 11-15 (the game has no GameType tag and "
                        "was read as brazilian, the --variant setting; choose another with "
                        "--variant)")


def _pydraughts_replay(game) -> str | None:
    """The final position (FEN) of a PDNReader game replayed on a pydraughts Board, None when
    pydraughts rejects one of its moves."""
    board = Board(game.variant or "english", game.tags.get("FEN", "startpos"))
    try:
        for text in game.moves:
            board.push(Move(board, pdn_move=text))
    except (KeyError, ValueError, IndexError):
        return None
    return board.fen


def _pieces(fen: str) -> tuple:
    """A FEN's side to move and pieces, whatever their order."""
    side, *parts = fen.split(":")
    return side, frozenset(frozenset(p[1:].split(",")) | {p[0]} for p in parts)


def test_every_tinsley_game_pydraughts_accepts_is_accepted(tinsley):
    theirs = pdn_mod.PDNReader(filename=str(TINSLEY)).games
    assert len(theirs) == len(tinsley) == 724
    sample = range(1, 725) if FULL else sorted(set(range(1, 725, 48)) | PYDRAUGHTS_REJECTS)
    accepted = rejected = short = 0
    for number in sample:
        end = _pydraughts_replay(theirs[number - 1])
        ours = tinsley[number - 1]
        if end is None:
            rejected += 1
            assert number in PYDRAUGHTS_REJECTS
            continue
        accepted += 1
        assert ours.ok, (number, ours.errors)
        # the same moves, to the same position; pydraughts reads only two moves after each
        # move number, so it drops a last move written without one (game 73: `27x18 7-10`)
        n = len(theirs[number - 1].moves)
        positions = [pos for _ply, pos, _move in ours.positions()]
        if n < len(ours.moves):
            short += 1
            assert n == len(ours.moves) - 1 and not ours.moves[-1].label.endswith("..."), number
        assert _pieces(end) == _pieces(positions[n].fen()), number
    assert rejected == 2 and accepted == len(sample) - 2 and short > 0


@pytest.mark.parametrize("variant", ["english", "italian"])
def test_ballots_are_read_and_agree_with_pydraughts(variant):
    games = read_pdn_file(BALLOTS[variant], variant)
    assert len(games) == 2400 and all(g.ok and not g.moves for g in games)
    # pydraughts' PDNReader takes the whole file for one game (`[FEN "..."] *` on one line
    # reads as a tag); given each FEN, its Board agrees with ours on every legal move
    assert len(pdn_mod.PDNReader(filename=str(BALLOTS[variant])).games) == 1
    for g in games if FULL else games[::40]:
        theirs = sorted(m.pdn_move for m in Board(variant, g.tags["FEN"]).legal_moves())
        assert theirs == sorted(write_move(g.start, m) for m in g.start.legal_moves()), g.number


def _sample(path: Path, marker: str, tmp_path: Path, first: int, extra=()) -> Path:
    """A file of the first games of path (each starts with a line starting with marker) and
    the extra ones (1-based); the whole file with HUB_ENGINE_FULL_PDN=1. PDNReader takes time
    quadratic in the number of games (each game re-splits the rest of the text)."""
    if FULL:
        return path
    chunks, cur = [], []
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith(marker) and cur:
            chunks.append("".join(cur))
            cur = []
        cur.append(line)
    chunks.append("".join(cur))
    sample = tmp_path / path.name
    sample.write_text("".join(chunks[:first] + [chunks[n - 1] for n in extra]))
    return sample


@pytest.mark.parametrize("variant", ["tinsley", "italian", "english"])
def test_annotated_real_games_read_back_with_pdnreader(tmp_path, variant):
    if variant == "tinsley":
        source = _sample(TINSLEY, "[Event", tmp_path, 40, sorted(PYDRAUGHTS_REJECTS))
    else:
        source = _sample(BALLOTS[variant], "[FEN", tmp_path, 300)
    rules = "english" if variant == "tinsley" else variant
    ann = tmp_path / "annotated.pdn"
    summary = an.analyse([str(source)], variant=rules, depth=1, workers=1,
                         output=tmp_path / "o.jsonl", pdn_output=ann, analyser=stub_analyser,
                         errors_to=None)
    original = read_pdn_file(source, rules)
    again = read_pdn(ann.read_text(), str(ann), rules)
    theirs = pdn_mod.PDNReader(filename=str(ann)).games
    assert len(again) == len(theirs) == len(original) == summary["games"]
    pvs = {r["game"]: r["pv"] for r in map(json.loads, (tmp_path / "o.jsonl").open())
           if r["ply"] == 0}
    for orig, ours, pd in zip(original, again, theirs):
        assert ours.ok and ours.start == orig.start
        if orig.moves:
            assert [str(r.move) for r in ours.moves] == [str(r.move) for r in orig.moves]
        else:        # a position: its moves are the engine's line
            assert [str(r.move) for r in ours.moves] == pvs[game_id(orig.file, orig.number)]
        mine = [r.text for r in ours.moves]
        if ours.start.side == 1 or (rules == "english" and "FEN" in ours.tags):
            # pydraughts 0.6.7 repeats the first move of a game whose FEN starts with B (its
            # own PDNWriter's output too): everything but that is read as written
            assert pd.moves[0] == mine[0] and pd.moves[2:] == mine[2:]
        else:
            assert pd.moves == mine

