"""Reading game records: PDN games, files of PDN FEN lines, files of Hub position strings.

PDN (rules.md section 6) as it is met in the wild, for the 8x8 variants:

- tag pairs `[Name "value"]`; `GameType` picks the variant by its PDN number (25 russian,
  26 brazilian, ...); extra fields after the number (`"20,W,10,10,N2,0"`) are ignored. A game
  without GameType (nor a `Variant` tag naming a supported variant) uses the reader's default.
  `FEN` gives the start position in the variant's game-record squares;
- movetext: move numbers (`1.`, `1...`, also glued to the move: `1.c3-d4`), quiet moves `a-b`,
  captures with `x` or `:` giving the landing squares of the path (`11:18:27`) or only origin
  and destination (`11x27`); comments `{...}` and `;` to the end of the line, `%` escape lines,
  variations `( ... )` (skipped, also nested), NAGs (`$3`) and `!` `?` suffixes, and the result
  (`1-0 0-1 1/2-1/2 2-0 0-2 1-1 *`), which ends the game.

Squares are in the variant's game-record names (numbers, or algebraic a1-h8 for russian; both are
read). Every record move is resolved against the legal moves of the position: origin and
destination must match; when the intermediate landing squares are written, the path must be
consistent with the move (one captured piece on each leg, as many legs as captures); a short
capture that still matches several legal moves is reported as ambiguous.

Errors never stop the reader: each one is recorded (`PdnError`: file, game number, move label,
message) on its game. An unknown GameType or a broken FEN leaves the game without positions; an
illegal, unreadable or ambiguous move ends the game there, keeping the moves before it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from hub_engine import notation
from hub_engine.notation import NotationError
from hub_engine.position import IllegalMoveError, Move, Position
from hub_engine.variants import GAMETYPES, VARIANTS, Variant, get_variant

RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*")

_SQUARE = r"(?:[a-h][1-8]|\d{1,2})"
_MOVE_RE = re.compile(rf"({_SQUARE})((?:[-x:]{_SQUARE})+)", re.IGNORECASE)
_NUMBER_RE = re.compile(r"(\d+)(\.+)")
_TOKEN_RE = re.compile(
    r"""
      (?P<tag>\[\s*(?P<tname>[A-Za-z0-9_]+)\s+"(?P<tvalue>(?:[^"\\]|\\.)*)"\s*\])
    | (?P<comment>\{[^}]*\}?)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d+)
    | (?P<word>[^\s{}()\[\];]+)
    | (?P<bad>\[)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class PdnError:
    """Something wrong in an input file, located by file, game (1-based) and move label."""

    file: str
    game: int | None
    move: str | None
    message: str

    def __str__(self) -> str:
        where = [self.file]
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.move is not None:
            where.append(f"move {self.move[:-1] if self.move.endswith('.') and not self.move.endswith('..') else self.move}")
        return f"{', '.join(where)}: {self.message}"

    def as_dict(self) -> dict:
        return {"file": self.file, "game": self.game, "move": self.move, "message": self.message}


@dataclass
class RecordMove:
    """One resolved move of a game record."""

    label: str            # `12.` or `12...` (move number, then which of the two moves)
    text: str             # as written in the record
    move: Move
    comment: str | None = None


@dataclass
class PdnGame:
    """A game read from a PDN file; `moves` holds the legal prefix when `errors` is not empty."""

    file: str
    number: int                                   # 1-based position in the file
    tags: dict[str, str] = field(default_factory=dict)
    variant: Variant | None = None
    start: Position | None = None
    moves: list[RecordMove] = field(default_factory=list)
    result: str | None = None
    errors: list[PdnError] = field(default_factory=list)
    first_number: int = 1                         # move number of the first move

    @property
    def ok(self) -> bool:
        return not self.errors

    def positions(self) -> Iterator[tuple[int, Position, Move | None]]:
        """(ply, position, move played there or None) for the start and every move's result."""
        if self.start is None:
            return
        pos = self.start
        for ply, rec in enumerate(self.moves):
            yield ply, pos, rec.move
            pos = pos.play(rec.move)
        yield len(self.moves), pos, None


def gametype_number(value: str) -> int | None:
    """The GameType number of a tag value (`"25"`, `"20,W,10,10,N2,0"`); None if there is none."""
    m = re.match(r"\s*(\d+)", value)
    return int(m.group(1)) if m else None


def variant_of_tags(tags: dict[str, str], default: Variant) -> Variant:
    """The variant a game's tags name; ValueError for a GameType this engine does not play."""
    gt = tags.get("GameType")
    if gt is not None and gt.strip():
        number = gametype_number(gt)
        if number is None:
            raise ValueError(f"bad GameType {gt!r}")
        if number not in GAMETYPES:
            known = ", ".join(f"{n} {name}" for n, name in sorted(GAMETYPES.items()))
            raise ValueError(f"unknown GameType {number} (supported: {known})")
        return VARIANTS[GAMETYPES[number]]
    name = tags.get("Variant", "").strip().lower()
    if name:
        try:
            return get_variant(name)
        except ValueError:
            pass      # lidraughts names like "Standard" say nothing about 8x8 rules
    return default


# --- record moves ------------------------------------------------------------------------------

def _xy(s: int) -> tuple[int, int]:
    """Column and row (0..7) of internal square s on the normal (unmirrored) board."""
    row = s // 4
    return 2 * (s % 4) + row % 2, row


def _between(a: int, b: int) -> list[int] | None:
    """Internal squares strictly between a and b on one diagonal; None if not on a diagonal."""
    (xa, ya), (xb, yb) = _xy(a), _xy(b)
    dx, dy = xb - xa, yb - ya
    if dx == 0 or abs(dx) != abs(dy):
        return None
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    return [(ya + i * sy) * 4 + (xa + i * sx) // 2 for i in range(1, abs(dx))]


def path_fits(move: Move, path: list[int]) -> bool:
    """Whether landing squares path (origin first) can be the path of capture move."""
    if len(path) - 1 != len(move.captured):
        return False
    captured = set(move.captured)
    for a, b in zip(path, path[1:]):
        between = _between(a, b)
        if between is None:
            return False
        hit = [s for s in between if s in captured]
        if len(hit) != 1:
            return False
        captured.discard(hit[0])
    return not captured


def pdn_move_text(move: Move) -> str:
    """A move in the variant's game-record squares (short form for captures: origin x destination)."""
    v = move.variant
    sep = (":" if v.pdn_squares == "algebraic" else "x") if move.captured else "-"
    return f"{notation.pdn_square(v, move.frm)}{sep}{notation.pdn_square(v, move.to)}"


def resolve_move(pos: Position, text: str) -> Move:
    """The legal move a record move names; IllegalMoveError / NotationError say why not."""
    m = _MOVE_RE.fullmatch(text.strip())
    if not m:
        raise NotationError(f"unreadable move {text!r}")
    names = re.split(r"[-x:]", text.strip(), flags=re.IGNORECASE)
    path = [notation.from_pdn_square(pos.variant, n) for n in names]
    capture = "x" in text.lower() or ":" in text
    frm, to = path[0], path[-1]
    legal = [mv for mv in pos.legal_moves() if mv.frm == frm and mv.to == to]
    if not capture:
        if len(path) != 2:
            raise NotationError(f"bad move {text!r}: a quiet move is origin-destination")
        found = [mv for mv in legal if not mv.is_capture]
        if not found:       # some records write a capture with '-': accept it when it is unique
            found = [mv for mv in legal if mv.is_capture]
            if len(found) > 1:
                raise IllegalMoveError(f"illegal move {text}: no quiet move {text}, and "
                                       f"{len(found)} captures match it")
    else:
        found = [mv for mv in legal if mv.is_capture]
        if len(path) > 2:
            found = [mv for mv in found if path_fits(mv, path)]
    if len(found) > 1 and len({frozenset(mv.captured) for mv in found}) == 1:
        found = [mv for mv in found if mv.promote] or found      # rules.md section 2
    if not found:
        raise IllegalMoveError(f"illegal move {text}")
    if len(found) > 1:
        options = ", ".join(str(mv) for mv in found)
        raise IllegalMoveError(f"ambiguous move {text}: it matches {len(found)} legal moves "
                               f"(Hub strings {options}); write the landing squares of the path")
    return found[0]


# --- the PDN reader ----------------------------------------------------------------------------

def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _tokens(text: str) -> Iterator[tuple[str, str, re.Match]]:
    # `%` escape lines are skipped as a whole
    text = re.sub(r"(?m)^%[^\n]*$", "", text)
    for m in _TOKEN_RE.finditer(text):
        yield m.lastgroup, m.group(0), m


class _GameBuilder:
    """Plays one game's movetext as it is read."""

    def __init__(self, file: str, number: int, default: Variant):
        self.game = PdnGame(file, number)
        self.default = default
        self.started = False       # the position is set up (after the tags)
        self.dead = False          # an error ended the game: ignore the rest of its movetext
        self.pos: Position | None = None
        self.number = 1
        self.second = False        # the next move is the second mover's

    def error(self, message: str, label: str | None = None) -> None:
        g = self.game
        g.errors.append(PdnError(g.file, g.number, label, message))
        self.dead = True

    def tag(self, name: str, value: str) -> None:
        self.game.tags[name] = value

    def start(self) -> None:
        if self.started:
            return
        self.started = True
        g = self.game
        try:
            g.variant = variant_of_tags(g.tags, self.default)
        except ValueError as exc:
            self.error(str(exc))
            return
        fen = g.tags.get("FEN", "").strip()
        try:
            g.start = Position.from_fen(g.variant, fen) if fen else Position.start(g.variant)
        except (NotationError, ValueError) as exc:
            self.error(f"bad FEN {fen!r}: {exc}")
            return
        self.pos = g.start
        self.second = g.start.side == 1
        m = re.search(r":F(\d+)", fen, re.IGNORECASE)     # lidraughts' move number field
        if m and int(m.group(1)) > 0:
            self.number = int(m.group(1))
        g.first_number = self.number

    def label(self) -> str:
        return f"{self.number}{'...' if self.second else '.'}"

    def move_number(self, number: int, dots: str) -> None:
        if self.dead or not self.started or self.pos is None:
            return
        self.number = number
        if not self.game.moves:
            self.game.first_number = number

    def move(self, text: str) -> None:
        if self.dead or self.pos is None:
            return
        label = self.label()
        try:
            mv = resolve_move(self.pos, text)
        except (IllegalMoveError, NotationError, ValueError) as exc:
            self.error(str(exc), label)
            return
        self.game.moves.append(RecordMove(label, text, mv))
        self.pos = self.pos.play(mv)
        if self.second:
            self.number += 1
        self.second = not self.second

    def comment(self, text: str) -> None:
        if self.game.moves and not self.dead:
            rec = self.game.moves[-1]
            rec.comment = f"{rec.comment} {text}" if rec.comment else text


def read_pdn(text: str, file: str = "<pdn>", variant: Variant | str = "brazilian") -> list[PdnGame]:
    """All games of a PDN text; errors are recorded on each game (see the module docstring)."""
    default = variant if isinstance(variant, Variant) else get_variant(variant)
    games: list[PdnGame] = []
    builder: _GameBuilder | None = None
    in_movetext = False
    depth = 0                      # variation nesting

    def finish() -> None:
        nonlocal builder, in_movetext
        if builder is not None:
            builder.start()
            if builder.game.start is not None or builder.game.errors or builder.game.tags:
                games.append(builder.game)
        builder, in_movetext = None, False

    def current() -> _GameBuilder:
        nonlocal builder
        if builder is None:
            builder = _GameBuilder(file, len(games) + 1, default)
        return builder

    for kind, tok, m in _tokens(text):
        if kind == "tag":
            if depth:
                continue
            if in_movetext:
                finish()
            current().tag(m.group("tname"), _unescape(m.group("tvalue")))
            continue
        if kind == "bad":
            current().error("broken tag pair (expected [Name \"value\"])")
            continue
        if kind in ("comment", "line_comment"):
            if not depth and builder is not None and in_movetext:
                body = tok[1:-1] if kind == "comment" and tok.endswith("}") else tok[1:]
                if body.strip():
                    builder.comment(body.strip())
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            depth = max(0, depth - 1)
            continue
        if depth or kind == "nag":
            continue
        # a word of the main line
        b = current()
        b.start()
        in_movetext = True
        word = tok
        if word in RESULTS:
            b.game.result = word
            finish()
            continue
        num = _NUMBER_RE.match(word)
        if num:
            b.move_number(int(num.group(1)), num.group(2))
            word = word[num.end():]
            if not word:
                continue
        word = word.rstrip("!?")
        if not word:
            continue
        if word in RESULTS:
            b.game.result = word
            finish()
            continue
        b.move(word)
    finish()
    return games


def read_pdn_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[PdnGame]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return read_pdn(f.read(), os.fspath(path), variant)


# --- line files --------------------------------------------------------------------------------

@dataclass
class LinePosition:
    """One position of a FEN or Hub line file (line is 1-based); position None when it is bad."""

    file: str
    line: int
    text: str
    position: Position | None
    error: PdnError | None = None
    kind: str = "fen"         # "fen" or "hub"


def _content_lines(text: str) -> Iterator[tuple[int, str]]:
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield i, line


def read_position_lines(text: str, file: str, variant: Variant | str, kind: str) -> list[LinePosition]:
    """Positions one per line; kind 'fen' (PDN FEN, may be quoted) or 'hub' (33-character strings).

    Blank lines and lines starting with `#` are skipped. A bad line is recorded with its error and
    reading goes on.
    """
    v = variant if isinstance(variant, Variant) else get_variant(variant)
    out = []
    for i, line in _content_lines(text):
        body = line.strip().strip('"')
        try:
            pos = Position.from_fen(v, body) if kind == "fen" else Position.from_hub(v, body)
            out.append(LinePosition(file, i, body, pos, None, kind))
        except (NotationError, ValueError) as exc:
            err = PdnError(file, None, None, f"line {i}: bad {'FEN' if kind == 'fen' else 'position'}"
                                             f" {body!r}: {exc}")
            out.append(LinePosition(file, i, body, None, err, kind))
    return out


def read_fen_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[LinePosition]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return read_position_lines(f.read(), os.fspath(path), variant, "fen")


def read_hub_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[LinePosition]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return read_position_lines(f.read(), os.fspath(path), variant, "hub")


_HUB_LINE = re.compile(r"[WB][wbWBe.]{32}")


def detect_format(path: str | os.PathLike, text: str | None = None) -> str:
    """'pdn', 'fen' or 'hub' from the file name, else from the first line that says something."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext == ".pdn":
        return "pdn"
    if ext == ".fen":
        return "fen"
    if ext == ".hub":
        return "hub"
    if text is None:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(65536)
    for _i, line in _content_lines(text):
        body = line.strip('"')
        if _HUB_LINE.fullmatch(body):
            return "hub"
        if re.match(r"[WB]\s*:", body, re.IGNORECASE):
            return "fen"
        return "pdn"
    return "pdn"


def write_pdn_tags(tags: dict[str, str]) -> str:
    return "".join(f'[{k} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]\n'
                   for k, v in tags.items())


def movetext(moves: Iterable[tuple[str, str]], width: int = 79) -> str:
    """Wrap (label-or-empty, text) pieces into lines of at most width characters."""
    lines, cur = [], ""
    for label, piece in moves:
        word = f"{label} {piece}" if label else piece
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    if cur:
        lines.append(cur)
    return "\n".join(lines)
