"""The engine's side of the books: Hub parameters, loading, probing and the choice of a move.

Parameters (Scan's names where Scan has one):
    book         bool   play from the book (default true)
    book-ply     int    use the book up to this ply of the game (default 40; 0 disables it)
    book-margin  int    moves within this many centi-men of the best book move may be chosen
                        (default 4); among them a softmax picks one, the best the most often
    book-min-height int the move picked is played only when the book's line goes on at least
                        this many plies after it (default 1); else the engine searches. A move
                        of height 0 leads out of the book: it was chosen by the fixed-node
                        searches of its position's children alone, which a search at the
                        clock's pace beats (hub-engine book-check, docs/book.md)
    book-path    string directory of <rule-set>.book files (default: $HUB_ENGINE_BOOKS or the
                        user data directory, then the books shipped in the package)

A position is played from the book when it is expanded there (every legal move leads to a
scored position). A move's book value is the negated value of the position it leads to (a
minimax over the book's tree, leaves scored by fixed-node searches). The choice among the moves
within book-margin of the best: weight exp((value - best) / T) with T = book-margin / 2 (at
least 1), so the move book-margin behind the best is picked about e^-2 = 0.14 times as often.

Spanish plays by the portuguese rules: it reads the portuguese book (the rule-set is found by
the rules' fingerprint, as the endgame tables do; book keys do not depend on the notation).
A damaged, truncated or foreign book file is refused with a message (BookFileError), and the
next candidate (the packaged book) is tried; the engine plays on without a book if none loads.
"""
from __future__ import annotations

import math
import random
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from hub_engine.book import store
from hub_engine.book.fileformat import EXPANDED, BookData, BookFileError, read_book, rules_fingerprint
from hub_engine.book.keys import board_key, negate
from hub_engine.datafiles import existing
from protocol import ParamSpec

DEFAULT_PLY = 40
MAX_PLY = 1000
DEFAULT_MARGIN = 4
DEFAULT_MIN_HEIGHT = 1
MAX_MARGIN = 10000
DEFAULT_PATH = "default"


@dataclass(frozen=True)
class BookMove:
    move: object          # hub_engine.rules.position.Move
    value: int            # the mover's view, core units (a man = 100)
    height: int           # plies the book's best line goes on after this move


class Book:
    """A loaded book file: sorted keys and their values, flags and heights."""

    def __init__(self, data: BookData, source: Path) -> None:
        self.data = data
        self.source = source

    @property
    def header(self):
        return self.data.header

    def __len__(self) -> int:
        return len(self.data.keys)

    def entry(self, key: int) -> tuple[int, bool, int] | None:
        """(value, expanded, height) of a key, or None."""
        keys = self.data.keys
        i = bisect_left(keys, key)
        if i == len(keys) or keys[i] != key:
            return None
        return self.data.values[i], bool(self.data.flags[i] & EXPANDED), self.data.heights[i]

    def moves(self, position) -> list[BookMove] | None:
        """The book's moves at an expanded position, best first; None when it is not one."""
        e = self.entry(board_key(position.board))
        if e is None or not e[1]:
            return None
        out = []
        for m in position.legal_moves():
            child = self.entry(board_key(position.board.play(m.frm, m.to, m.captured, m.promote)))
            if child is None:
                return None                # not a book made by this program's move generator
            out.append(BookMove(m, negate(child[0]), child[2]))
        out.sort(key=lambda b: -b.value)
        return out


def choose(moves: list[BookMove], margin: int, rng: random.Random) -> BookMove:
    """A move within `margin` centi-men of the best, by a softmax on the values."""
    best = moves[0].value
    near = [m for m in moves if m.value >= best - margin]
    t = max(1.0, margin / 2)
    weights = [math.exp((m.value - best) / t) for m in near]
    return rng.choices(near, weights)[0]


def load_book(variant, path: str = DEFAULT_PATH) -> tuple[Book | None, list[str]]:
    """The book for a variant's rules, and the messages of the files refused on the way.

    Candidates: <dir>/<rule-set>.book (dir = book-path, or $HUB_ENGINE_BOOKS or the user data
    directory), then the packaged book. A missing file is no error."""
    from hub_engine.tables.slices import ruleset_of

    try:
        ruleset = ruleset_of(variant)
    except ValueError:
        return None, []
    fp = rules_fingerprint(variant.core_rules)
    directory = store.books_dir(None if path == DEFAULT_PATH else path)
    candidates = [store.book_path(directory, ruleset), store.packaged_path(ruleset)]
    errors = []
    for candidate in candidates:
        found = existing(candidate)
        if found is None:
            continue
        try:
            return Book(read_book(found, ruleset=ruleset, fingerprint=fp), found), errors
        except BookFileError as exc:
            errors.append(f"book refused: {exc}")
    return None, errors


class EngineBook:
    """book, book-ply, book-margin and book-path for one engine; books cached per variant."""

    def __init__(self) -> None:
        self.enabled = True
        self.max_ply = DEFAULT_PLY
        self.margin = DEFAULT_MARGIN
        self.min_height = DEFAULT_MIN_HEIGHT
        self.path = DEFAULT_PATH
        self.rng = random.Random()
        self._cache: dict[tuple, Book | None] = {}

    def params(self) -> list[ParamSpec]:
        return [ParamSpec("book", "bool", self.enabled),
                ParamSpec("book-ply", "int", self.max_ply, min=0, max=MAX_PLY),
                ParamSpec("book-margin", "int", self.margin, min=0, max=MAX_MARGIN),
                ParamSpec("book-min-height", "int", self.min_height, min=0, max=MAX_PLY),
                ParamSpec("book-path", "string", self.path)]

    def set_param(self, name: str, value: str, parse_bool, parse_int) -> bool:
        """Handle the book parameters (False for other names); ValueError on a bad value."""
        if name == "book":
            self.enabled = parse_bool(value)
        elif name == "book-ply":
            self.max_ply = parse_int(name, value, 0, MAX_PLY)
        elif name == "book-margin":
            self.margin = parse_int(name, value, 0, MAX_MARGIN)
        elif name == "book-min-height":
            self.min_height = parse_int(name, value, 0, MAX_PLY)
        elif name == "book-path":
            path = value.strip() or DEFAULT_PATH
            if path != DEFAULT_PATH and not Path(path).expanduser().is_dir():
                raise ValueError(f"bad value for book-path: {path} is not a directory")
            if path != self.path:
                self.path = path
                self._cache.clear()
        else:
            return False
        return True

    def load(self, variant) -> list[str]:
        """Load (once) the book of a variant's rules; the messages of refused files."""
        key = (variant.name, self.path)
        if key in self._cache:
            return []
        book, errors = load_book(variant, self.path)
        self._cache[key] = book
        return errors

    def book(self, variant) -> Book | None:
        for message in self.load(variant):        # (init reports these to the client)
            logger.warning(message)
        return self._cache[(variant.name, self.path)]

    def probe(self, game) -> list[BookMove] | None:
        """The book moves at the game's position when the book is to be used there."""
        if not self.enabled or len(game.moves) >= self.max_ply:
            return None
        book = self.book(game.variant)
        return None if book is None else book.moves(game.position)

    def pick(self, moves: list[BookMove], margin: int | None = None) -> BookMove:
        return choose(moves, self.margin if margin is None else margin, self.rng)

    def reply(self, game, move) -> object | None:
        """The book's best reply to `move` (a ponder move), or None."""
        book = self.book(game.variant)
        moves = None if book is None else book.moves(game.position.play(move))
        return moves[0].move if moves else None

    def decide(self, game, mode: str, multipv: int, skill: int, max_skill: int
               ) -> BookMove | None:
        """The book's answer to a `go`, or None to search: only `go think` with one line, and
        only a move whose book line goes on for book-min-height plies; below full skill the
        margin widens by 10 centi-men a level (at least book-margin)."""
        if mode != "think" or multipv > 1:
            return None
        moves = self.probe(game)
        if not moves:
            return None
        margin = self.margin if skill >= max_skill else max(self.margin, (max_skill - skill) * 10)
        picked = self.pick(moves, margin)
        return picked if picked.height >= self.min_height else None

