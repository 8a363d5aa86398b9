"""The rules as the page asks for them: games rebuilt from their moves, legal moves with their
capture paths, game ends with their reasons, engine lines in the variant's notation.

The page knows no rules: it sends (variant, start, moves) and draws what comes back. Squares go
to the page as Hub layout numbers 1-32, the numbers of the board geometry it draws
(hub_engine.report.boards); moves keep their Hub string as their identity, and carry their
game-record text. Every request is checked here before anything reaches an engine, so a page
can never put a line of its own into the Hub session.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from hub_engine.rules import notation, pdn
from hub_engine.rules.notation import NotationError
from hub_engine.rules.position import Game, IllegalMoveError, Move, Position
from hub_engine.rules.variants import VARIANTS, Variant, get_variant

MAX_PLIES = 2000                   # moves a request may carry (a game is far shorter)
MAX_TEXT = 200                     # characters of a position or FEN in a request
_HUB_MOVE = re.compile(r"\d{1,2}(?:[-x]\d{1,2}){1,13}")
DRAW_MIN_PLIES = 40                # a draw offer is considered from this many plies on ...
DRAW_MAX_SCORE = 0.25              # ... when the engine's score (men) is no better than this


class RequestError(ValueError):
    """A request the page should not have sent; the message is shown to the user."""


@dataclass(frozen=True)
class GameRequest:
    """A game as the page sends it: the variant, its start position and the moves played."""

    variant: Variant
    start: Position
    moves: tuple[str, ...]

    @property
    def half(self) -> int:
        """The half-move number (move_label) of the position after the moves."""
        return self.start.side + len(self.moves)

    def game(self) -> Game:
        g = Game(self.variant, self.start)
        for i, text in enumerate(self.moves):
            try:
                g.play(text)
            except (IllegalMoveError, NotationError) as exc:
                raise RequestError(f"move {i + 1} ({text}): {exc}") from None
        return g


def variant_of(name) -> Variant:
    if not isinstance(name, str) or name not in VARIANTS:
        raise RequestError(f"unknown variant {name!r} (one of {', '.join(VARIANTS)})")
    return VARIANTS[name]


def position_of(variant: Variant, text) -> Position:
    """A start position: `start`, a Hub position string or a FEN in the variant's squares."""
    if text is None:
        return Position.start(variant)
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise RequestError("bad position: a Hub position string or a FEN is expected")
    try:
        pos = Position.parse(variant, text)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    check_position(pos)
    return pos


def check_position(pos: Position) -> None:
    """A position a game can start from: no man on the row where it would be crowned."""
    setup = pos.setup()
    for men, row, who in ((setup.men0, 7, pos.variant.first_mover), (setup.men1, 0, None)):
        bad = [s for s in men if s // 4 == row]
        if bad:
            name = notation.pdn_square(pos.variant, bad[0])
            side = who or ("black" if pos.variant.first_mover == "white" else "white")
            raise RequestError(f"a {side} man on {name}, its crowning row: make it a king")


def game_request(msg: dict) -> GameRequest:
    """The (variant, start, moves) of a page message, checked."""
    variant = variant_of(msg.get("variant"))
    start = position_of(variant, msg.get("start"))
    moves = msg.get("moves") or []
    if not isinstance(moves, list) or len(moves) > MAX_PLIES:
        raise RequestError(f"moves: a list of at most {MAX_PLIES} Hub move strings is expected")
    for m in moves:
        if not isinstance(m, str) or not _HUB_MOVE.fullmatch(m):
            raise RequestError(f"bad move {str(m)[:20]!r}: a Hub move string is expected")
    return GameRequest(variant, start, tuple(moves))


# --- what the page draws -----------------------------------------------------------------------

def layout(variant: Variant, s: int) -> int:
    return notation.internal_to_layout(variant, s)


def move_json(pos: Position, m: Move) -> dict:
    """A legal move for the page: Hub string, squares (layout numbers), capture path, record text.

    `ambiguous` says that origin and destination name more than one legal move, so the page must
    show (and the user choose) the path or the captured pieces.
    """
    v = pos.variant
    path = pdn.capture_path(pos, m) if m.captured else [m.frm, m.to]
    twins = sum(1 for o in pos.legal_moves() if o.frm == m.frm and o.to == m.to)
    return {"hub": m.hub(), "from": layout(v, m.frm), "to": layout(v, m.to),
            "captured": [layout(v, s) for s in m.captured],
            "path": [layout(v, s) for s in path], "capture": bool(m.captured),
            "ambiguous": twins > 1, "text": pdn.write_move(pos, m)}


def end_reason(game: Game) -> tuple[str | None, str | None]:
    """(result, why) of a game that is over by the rules, (None, None) while it goes on."""
    pos = game.position
    v = game.variant
    if not pos.legal_moves():
        loser = pos.side_name
        winner = "black" if loser == "white" else "white"
        return ("0-1" if loser == "white" else "1-0",
                f"{loser.capitalize()} has no legal move: {winner.capitalize()} wins")
    why = game.draw_reason()
    if why is None:
        return None, None
    d = v.draws
    text = {
        "repetition": f"the same position for the {_nth(d.repetitions)} time",
        "no man move and no capture":
            f"{d.quiet_moves} moves by each side without a man move or a capture",
        "no capture and no crowning":
            f"{d.nocapcrown_moves} moves by each side without a capture or a crowning",
        "endgame not won in time": "the stronger side did not win the endgame within the moves "
                                   "the rules allow",
    }.get(why, why)
    return "1/2-1/2", f"Draw: {text}"


def _nth(n: int) -> str:
    return {2: "second", 3: "third", 4: "fourth"}.get(n, f"{n}th")


def state_json(game: Game) -> dict:
    """Everything the page shows about the current position of a game."""
    pos = game.position
    result, why = end_reason(game)
    return {"position": pos.hub(), "fen": pos.fen(), "side": pos.side_name,
            "ply": len(game.moves), "legal": [move_json(pos, m) for m in pos.legal_moves()],
            "result": result, "reason": why}


def line_json(pos: Position, pv: list[str], half: int) -> list[dict]:
    """An engine line (Hub strings) from pos, the game's `half`-th half-move (see move_label),
    as page moves with move numbers; it ends at the first move that is not legal (another
    engine's line may be wrong, never the board)."""
    out = []
    for text in pv:
        try:
            m = pos.parse_move(text)
        except ValueError:
            break
        item = move_json(pos, m)
        item["label"] = move_label(half)
        out.append(item)
        pos = pos.play(m)
        half += 1
    return out


def move_label(half: int) -> str:
    """`12.` before the first mover's move, `12...` before the other's; `half` counts half-moves
    from the first mover's first move (a game that starts with the other side to move starts
    at 1)."""
    number = half // 2 + 1
    return f"{number}." if half % 2 == 0 else f"{number}..."


def accepts_draw(engine_score: float | None, plies: int) -> bool:
    """The engine takes a draw offer when the game is long and it sees no more than a level
    game for itself (score in men from the engine's side)."""
    return (engine_score is not None and plies >= DRAW_MIN_PLIES
            and engine_score <= DRAW_MAX_SCORE)


def start_fen(variant: str) -> str:
    return Position.start(get_variant(variant)).fen()
