"""The engine's side of the tables: Hub parameters `bb-size` and `tables-path`, loading, and the
root rule (at a root inside the tables only value-keeping moves are searched).

Scan's way: the tables are probed at interior nodes and in quiescence once the piece count is at
most bb-size. At a root whose every move leads to a known table value, the moves that keep the
root's value are the only ones searched, and win/draw/loss slices are then probed only below the
root's piece count, so the search still has to make progress (a capture, or an exact distance
where a distance table exists) instead of resting on "it is a win".
"""
from __future__ import annotations

from pathlib import Path

from hub_engine.rules.position import Game, Position
from hub_engine.tables.probe import Tables, pieces_on_disk, plies_of, search_roots
from hub_engine.tables.slices import MAX_PIECES, ruleset_of
from protocol import ParamSpec

DEFAULT_PATH = "default"        # tables-path value meaning: $HUB_ENGINE_TABLES or the user data dir


class EngineTables:
    """bb-size and tables-path for one engine; loaded tables cached per rule-set and path."""

    def __init__(self) -> None:
        self.bb_size: int | None = None        # None: the largest complete set found
        self.path = DEFAULT_PATH
        self._cache: dict[tuple, Tables] = {}
        self.version = 0                        # changes when the searchers must be re-armed

    def _roots(self) -> list[Path]:
        return search_roots(None if self.path == DEFAULT_PATH else self.path)

    def tables(self, variant) -> Tables | None:
        try:
            ruleset = ruleset_of(variant)
        except ValueError:
            return None
        key = (ruleset, self.path)
        if key not in self._cache:
            self._cache[key] = Tables(ruleset, self._roots())
        return self._cache[key]

    def size(self, variant) -> int:
        """The effective bb-size for variant (loads its tables unless bb-size is 0)."""
        if self.bb_size == 0:
            return 0
        t = self.tables(variant)
        if t is None:
            return 0
        return t.complete_pieces() if self.bb_size is None else self.bb_size

    def params(self, variant) -> list[ParamSpec]:
        if self.bb_size is not None:
            size = self.bb_size
        else:
            try:
                size = pieces_on_disk(ruleset_of(variant), self._roots())
            except ValueError:
                size = 0
        return [ParamSpec("bb-size", "int", size, min=0, max=MAX_PIECES),
                ParamSpec("tables-path", "string", self.path)]

    def set_param(self, name: str, value: str) -> bool:
        """Handle bb-size / tables-path; False for other names. ValueError on a bad value."""
        if name == "bb-size":
            try:
                n = int(value.strip())
            except ValueError:
                raise ValueError(f"bad value {value!r} for bb-size: an integer is expected") from None
            if not 0 <= n <= MAX_PIECES:
                raise ValueError(f"bad value {n} for bb-size: must be between 0 and {MAX_PIECES}")
            self.bb_size = n
        elif name == "tables-path":
            path = value.strip() or DEFAULT_PATH
            if path != DEFAULT_PATH and not Path(path).expanduser().is_dir():
                raise ValueError(f"bad value for tables-path: {path} is not a directory")
            self.path = path
        else:
            return False
        self.version += 1
        return True

    def attach(self, searchers: list, variant) -> None:
        """Give every searcher the tables (or none when bb-size is 0 or nothing is built)."""
        size = self.size(variant)
        t = self.tables(variant) if size else None
        for s in searchers:
            s.set_tables(t.core if t is not None else None, size)
            s.set_root_moves(None)

    def table_result(self, game: Game) -> str | None:
        """win / draw / loss of the game's position for the side to move as the tables (with
        the game's counters) know it exactly, None when they do not hold it (`analyse`)."""
        size = self.size(game.variant)
        t = self.tables(game.variant) if size else None
        if t is None or sum(len(p) for p in game.position.board.pieces()) > size:
            return None
        v = child_value(t, game.position, game.counters)
        return None if v is None else ("loss", "draw", "win")[v + 1]

    def prepare_root(self, searchers: list, game: Game) -> bool:
        """Restrict the root to value-keeping moves when every move's value is known. True when
        a search of depth 1 is exact: a root whose children all have distances."""
        size = self.size(game.variant)
        t = self.tables(game.variant) if size else None
        allowed, plain_max, exact = None, size, False
        if t is not None:
            pos = game.position
            n = sum(len(p) for p in pos.board.pieces())
            if n <= size:
                allowed = root_moves(t, game)
                if allowed is not None:
                    plain_max = n - 1
                    exact = t.has_distances(pos)
        for s in searchers:
            s.set_tables(t.core if t is not None else None, size, plain_max)
            s.set_root_moves(None if allowed is None else
                             [(m.frm, m.to, m.captured, m.promote) for m in allowed])
        return exact


def child_value(t: Tables, pos: Position, counters: tuple) -> int | None:
    """+1 / 0 / -1 for pos's side to move as the search's probe sees it (captures tried)."""
    if pos.board.counters_draw(counters):
        return 0
    moves = pos.legal_moves()
    if not moves:
        return -1
    if moves[0].is_capture:
        best = -2
        for m in moves:
            child = pos.play(m)
            v = child_value(t, child, pos.board.counters_after(child.board, m.frm, m.captured,
                                                               m.promote, counters))
            if v is None:
                return None
            best = max(best, -v)
        return best
    score = t.core.score(pos.board, tuple(counters))
    if score is None:
        return None
    return (score > 0) - (score < 0)


def root_moves(t: Tables, game: Game) -> list | None:
    """The legal moves that keep the root's table value, or None when some move's is unknown.

    At a root with distances, only the moves of the best distance are kept: the fastest
    conversion when winning, the longest resistance when losing. The distance tables count plies
    to the next capture or crowning (a crowning at the root is distance 0), while a search that
    plays the conversion adds what comes after it, so the search alone would shun the conversion
    and wander."""
    pos, counters = game.position, game.counters
    distances = t.has_distances(pos)
    values = []
    for m in pos.legal_moves():
        child = pos.play(m)
        v = child_value(t, child, pos.board.counters_after(child.board, m.frm, m.captured,
                                                           m.promote, counters))
        if v is None:
            return None
        key = (-v, 0)
        if distances and v != 0:
            d = 0 if m.promote and not m.captured else t.core.probe_dtc(child.board)
            d = 0 if d <= 0 else plies_of(d)
            key = (-v, -d if v < 0 else d)     # win: the shortest loss for the child
        values.append((key, m))
    if not values:
        return None
    best = max(k for k, _ in values)
    return [m for k, m in values if k == best]
