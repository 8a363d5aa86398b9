"""Loading a rule-set's tables and probing positions from Python.

    >>> from hub_engine import Position
    >>> from hub_engine.tables import open_tables
    >>> t = open_tables("english")
    >>> t.probe(Position.from_hub("english", "W" + "e" * 21 + "W" + "e" * 9 + "B"))
    ProbeResult(value='win', distance=..., ruled='win')

`value` ignores the move-count rules (what training labels want); `ruled` is the value under them
with the counters given (a fresh start by default), known where a distance table exists and None
elsewhere (or where the quiet rule, which a man move restarts, may end it first); `distance` is the
number of plies to the next capture or crowning in a slice with a distance table (None otherwise,
or when the rules make it a draw).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from hub_engine.core import CoreTables
from hub_engine.datafiles import existing
from hub_engine.rules.position import Position
from hub_engine.tables import fileformat as ff
from hub_engine.tables.store import read_slice
from hub_engine.tables.slices import MAX_PIECES, Material, ruleset_of, slices
from hub_engine.tables.store import packaged_dir, slice_path, tables_dir

VALUES = ("draw", "win", "loss")
_NEGATE = {"win": "loss", "loss": "win", "draw": "draw"}


@dataclass(frozen=True)
class ProbeResult:
    value: str                 # win / draw / loss for the side to move, move-count rules ignored
    distance: int | None       # plies to the next capture or crowning (distance tables)
    ruled: str | None          # the value under the move-count rules, where it is known exactly


def plies_of(byte: int) -> int:
    """The plies to the next conversion a distance byte holds: its low 7 bits (the top bit marks
    a loss for the side to move)."""
    return byte & 127


class Tables:
    """The tables of one rule-set found under the given roots (the first valid file wins)."""

    def __init__(self, ruleset: str, roots: list[Path], max_pieces: int = MAX_PIECES):
        self.ruleset = ruleset
        self.core = CoreTables()
        self.files: dict[tuple[str, Material], Path] = {}
        self.errors: list[str] = []
        self.bytes = 0
        for n in range(2, max_pieces + 1):
            for m in slices(n):
                self._load(roots, ff.KIND_WLD, m)
                self._load(roots, ff.KIND_DTC, m)

    def _load(self, roots: list[Path], kind: int, m: Material) -> None:
        folder = "wld" if kind == ff.KIND_WLD else "dtc"
        for root in roots:
            path = existing(slice_path(root, self.ruleset, folder, m))
            if path is None:
                continue
            try:
                tf = read_slice(root, self.ruleset, kind, m)
            except ff.TableFileError as exc:
                self.errors.append(str(exc))
                logger.warning("ignoring endgame table: {}", exc)
                continue
            if kind == ff.KIND_WLD:
                self.core.add_rle(tuple(m), tf.blocks, tf.data)
            else:
                self.core.add_dtc(tuple(m), tf.data)
            self.files[(folder, m)] = path
            self.bytes += len(tf.blocks) + len(tf.data)
            return

    def complete_pieces(self) -> int:
        """The largest n such that every slice of at most n pieces is loaded (0: none)."""
        best = 0
        for n in range(2, MAX_PIECES + 1):
            if all(("wld", m) in self.files for m in slices(n)):
                best = n
            else:
                break
        return best

    def probe(self, position: Position, counters: tuple | None = None) -> ProbeResult | None:
        """The table value of position (captures resolved by trying them), None if not stored."""
        if counters is None:
            counters = position.board.initial_counters()
        return self._probe(position, counters)

    def _probe(self, pos: Position, counters: tuple) -> ProbeResult | None:
        moves = pos.legal_moves()
        if not moves:
            return ProbeResult("loss", 0 if self._has_dtc(pos) else None, "loss")
        if moves[0].is_capture:
            results = []
            for m in moves:
                child = pos.play(m)
                if not child.legal_moves() and not any(child.board.pieces()[2 * child.side:2 * child.side + 2]):
                    results.append(ProbeResult("loss", 0, "loss"))
                    continue
                r = self._probe(child, child.board.initial_counters())
                if r is None:
                    return None
                results.append(r)
            value = _best(VALUES.index(_NEGATE[r.value]) for r in results)
            ruled = None
            if all(r.ruled is not None for r in results):
                ruled = _best(VALUES.index(_NEGATE[r.ruled]) for r in results)
            distance = 1 if ruled in ("win", "loss") and self._has_dtc(pos) else None
            return ProbeResult(value, distance, ruled if self._has_dtc(pos) or ruled == "draw" else None)
        v = self.core.probe(pos.board)
        if v < 0:
            return None
        d = self.core.probe_dtc(pos.board)
        score = self.core.score(pos.board, tuple(counters))
        if d < 0:
            ruled = "draw" if v == 0 else None
            return ProbeResult(VALUES[v], None, ruled)
        dist = plies_of(d)
        if score is None:                     # the quiet rule may come first: the search decides
            return ProbeResult(VALUES[v], dist, None)
        if score == 0:
            return ProbeResult(VALUES[v], None, "draw")
        return ProbeResult(VALUES[v], dist, "win" if score > 0 else "loss")

    def has_distances(self, pos: Position) -> bool:
        """Whether every slice pos's moves and conversions lead to has distances (kings lead
        only to kings)."""
        _, _, m = _material(pos)
        return all(("dtc", s) in self.files for n in range(2, m.pieces + 1)
                   for s in slices(n) if s.kings_only or not m.kings_only)

    def _has_dtc(self, pos: Position) -> bool:
        _, _, m = _material(pos)
        return ("dtc", m) in self.files


def _best(indices) -> str:
    """The best of values given as VALUES indices, for the side choosing: win > draw > loss."""
    order = {1: 2, 0: 1, 2: 0}
    return VALUES[max(indices, key=lambda i: order[i])]


def _material(pos: Position) -> tuple:
    men0, kings0, men1, kings1 = pos.board.pieces()
    own, other = ((men0, kings0), (men1, kings1)) if pos.side == 0 else ((men1, kings1), (men0, kings0))
    return own, other, Material(len(own[0]), len(own[1]), len(other[0]), len(other[1]))


def pieces_on_disk(ruleset: str, roots: list[Path]) -> int:
    """complete_pieces() from file names alone (no reading): what `hub` announces as bb-size."""
    best = 0
    for n in range(2, MAX_PIECES + 1):
        if all(any(existing(slice_path(r, ruleset, "wld", m)) for r in roots) for m in slices(n)):
            best = n
        else:
            break
    return best


def search_roots(path: str | Path | None = None) -> list[Path]:
    """Where tables are looked for: the data directory, then the tables shipped with the package."""
    return [tables_dir(path), packaged_dir()]


def open_tables(variant, path: str | Path | None = None, max_pieces: int = MAX_PIECES) -> Tables:
    """The tables of variant's rule-set (found in the data directory or shipped)."""
    return Tables(ruleset_of(variant), search_roots(path), max_pieces)
