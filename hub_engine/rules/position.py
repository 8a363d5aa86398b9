"""The Python API that reads like the game: Position, Move and Game.

    >>> from hub_engine import Game
    >>> g = Game("russian")
    >>> g.play("9-13")            # Hub move string in the variant's numbers
    >>> [str(m) for m in g.legal_moves()][:3]

Position is immutable (a thin wrapper over the compiled board); Game adds the history that
repetition and the draw counters of rules.md section 4 need.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from hub_engine.rules import notation
from hub_engine.core import CoreBoard
from hub_engine.rules.notation import Setup
from hub_engine.rules.variants import Variant, get_variant


class IllegalMoveError(ValueError):
    """A well-formed move that is not legal here, or a move string that matches several moves."""


@dataclass(frozen=True)
class Move:
    """A legal move in internal squares; str() gives the Hub string in the variant's numbers."""

    variant: Variant
    frm: int
    to: int
    captured: tuple[int, ...]
    promote: bool
    kings_taken: int = 0

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def hub(self, notation_name: str = "variant") -> str:
        return notation.format_move(self.variant, self.frm, self.to, self.captured, notation_name)

    def __str__(self) -> str:
        return self.hub()

    def key(self) -> tuple:
        return (self.frm, self.to, frozenset(self.captured), self.promote)


def _as_variant(variant: Variant | str) -> Variant:
    return variant if isinstance(variant, Variant) else get_variant(variant)


START_SETUP = Setup(0, tuple(range(12)), (), tuple(range(20, 32)), ())


class Position:
    """A position of one variant: pieces and the side to move."""

    __slots__ = ("variant", "board", "_moves")

    def __init__(self, variant: Variant | str, board: CoreBoard):
        self.variant = _as_variant(variant)
        self.board = board
        self._moves: list[Move] | None = None

    # construction ---------------------------------------------------------------------------
    @classmethod
    def from_setup(cls, variant: Variant | str, setup: Setup) -> "Position":
        v = _as_variant(variant)
        return cls(v, CoreBoard(v.core_rules, *setup))

    @classmethod
    def start(cls, variant: Variant | str) -> "Position":
        return cls.from_setup(variant, START_SETUP)

    @classmethod
    def from_hub(cls, variant: Variant | str, text: str) -> "Position":
        v = _as_variant(variant)
        return cls.from_setup(v, notation.parse_hub_position(v, text))

    @classmethod
    def from_fen(cls, variant: Variant | str, text: str) -> "Position":
        v = _as_variant(variant)
        return cls.from_setup(v, notation.parse_fen(v, text))

    @classmethod
    def parse(cls, variant: Variant | str, text: str) -> "Position":
        """A Hub position string, a PDN FEN, or `start`."""
        text = text.strip()
        if text.lower() in ("", "start"):
            return cls.start(variant)
        if ":" in text:
            return cls.from_fen(variant, text)
        return cls.from_hub(variant, text)

    # reading --------------------------------------------------------------------------------
    @property
    def side(self) -> int:
        """0 when the variant's first mover is to move."""
        return self.board.side

    @property
    def side_name(self) -> str:
        first = self.variant.first_mover
        return first if self.side == 0 else ("black" if first == "white" else "white")

    def setup(self) -> Setup:
        return Setup(self.board.side, *self.board.pieces())

    def hub(self) -> str:
        return notation.format_hub_position(self.variant, self.setup())

    def fen(self) -> str:
        return notation.format_fen(self.variant, self.setup())

    def __str__(self) -> str:
        return self.hub()

    def __repr__(self) -> str:
        return f"Position({self.variant.name!r}, {self.hub()!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Position) and other.variant.name == self.variant.name
                and other.board == self.board)

    def __hash__(self) -> int:
        return hash(self.board)

    # moves ----------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self._moves is None:
            self._moves = [Move(self.variant, f, t, c, p, k)
                           for f, t, c, p, k in self.board.legal_moves()]
        return list(self._moves)

    def is_legal(self, move: Move) -> bool:
        return any(m.key() == move.key() for m in self.legal_moves())

    def parse_move(self, text: str, notation_name: str = "variant") -> Move:
        """The legal move a Hub move string names (rules.md section 2 for crowning twins)."""
        mt = notation.parse_move_text(self.variant, text, notation_name)
        found = [m for m in self.legal_moves()
                 if m.frm == mt.frm and m.to == mt.to and m.is_capture == mt.capture
                 and (mt.captured is None or frozenset(m.captured) == mt.captured)]
        if len(found) > 1 and len({m.captured for m in found}) == 1:
            found = [m for m in found if m.promote] or found
        if not found:
            raise IllegalMoveError(f"illegal move {text.strip()}")
        if len(found) > 1:
            raise IllegalMoveError(f"ambiguous move {text.strip()}: give the captured squares")
        return found[0]

    def play(self, move: Move | str) -> "Position":
        """The position after a legal move (a Move or a Hub move string)."""
        m = self.parse_move(move) if isinstance(move, str) else move
        if isinstance(move, Move) and not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {move}")
        return Position(self.variant, self.board.play(m.frm, m.to, m.captured, m.promote))

    def perft(self, depth: int) -> int:
        return self.board.perft(depth)

    def divide(self, depth: int) -> list[tuple[Move, int]]:
        """Per legal root move, the leaf count at depth."""
        return [(m, self.play(m).perft(depth - 1)) for m in self.legal_moves()]


@dataclass(frozen=True)
class _Ply:
    position: Position
    counters: tuple
    move: Move | None
    reversible: bool     # a king move without capture: repetitions may reach back past it


class Game:
    """A game from a start position: moves played, undo, repetitions and the draw counters."""

    def __init__(self, variant: Variant | str, start: Position | str | None = None,
                 moves: Iterable[Move | str] = ()):
        self.variant = _as_variant(variant)
        if start is None or isinstance(start, str):
            start = Position.parse(self.variant, start or "start")
        self._plies = [_Ply(start, start.board.initial_counters(), None, False)]
        for m in moves:
            self.play(m)

    @property
    def position(self) -> Position:
        return self._plies[-1].position

    @property
    def start(self) -> Position:
        """The position the game started from (the start position, a ballot, a set-up)."""
        return self._plies[0].position

    @property
    def moves(self) -> list[Move]:
        return [p.move for p in self._plies[1:] if p.move is not None]

    def legal_moves(self) -> list[Move]:
        return self.position.legal_moves()

    def play(self, move: Move | str, notation_name: str = "variant") -> Move:
        pos = self.position
        m = pos.parse_move(move, notation_name) if isinstance(move, str) else move
        nxt = pos.play(m)
        counters = pos.board.counters_after(nxt.board, m.frm, m.captured, m.promote,
                                            self._plies[-1].counters)
        reversible = not m.is_capture and m.frm in pos.board.pieces()[1 + 2 * pos.side]
        self._plies.append(_Ply(nxt, counters, m, reversible))
        return m

    def undo(self) -> Move:
        if len(self._plies) == 1:
            raise IndexError("no move to undo")
        return self._plies.pop().move

    def _reversible_tail(self) -> list[_Ply]:
        """The plies since the last man move or capture, oldest first (repetition window)."""
        i = len(self._plies) - 1
        while i > 0 and self._plies[i].reversible:
            i -= 1
        return self._plies[i:]

    def repetitions(self) -> int:
        """How often the current position (same side to move) has occurred."""
        cur = self.position
        return sum(1 for ply in self._reversible_tail() if ply.position == cur)

    def history_hashes(self) -> list[int]:
        """Zobrist keys of the positions since the last irreversible move, oldest first."""
        return [ply.position.board.zobrist for ply in self._reversible_tail()]

    @property
    def counters(self) -> tuple:
        return self._plies[-1].counters

    def draw_reason(self) -> str | None:
        """Why the game is drawn now by rule, or None."""
        if self.repetitions() >= self.variant.draws.repetitions:
            return "repetition"
        code = self.position.board.counters_draw(self.counters)
        return {0: None, 1: "no man move and no capture", 2: "no capture and no crowning",
                3: "endgame not won in time"}[code]

    def result(self) -> str | None:
        """'1-0' / '0-1' (white / black won), '1/2-1/2', or None while the game goes on."""
        if not self.legal_moves():
            loser = self.position.side_name
            return "0-1" if loser == "white" else "1-0"
        if self.draw_reason():
            return "1/2-1/2"
        return None
