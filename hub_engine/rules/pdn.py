"""Reading game records: PDN games, files of PDN FEN lines, files of Hub position strings.

PDN (rules.md section 6) as it is met in the wild, for the 8x8 variants:

- tag pairs `[Name "value"]`; `GameType` picks the variant by its PDN number (25 russian,
  26 brazilian, ...); extra fields after the number (`"20,W,10,10,N2,0"`) are ignored. A game
  without GameType (nor a `Variant` tag naming a supported variant) uses the reader's default,
  and an error in such a game says which variant was assumed. `FEN` gives the start position in
  the variant's game-record squares;
- movetext: move numbers (`1.`, `1...`, `1. ...`, also glued to the move: `1.c3-d4`), moves
  (`a-b`, `axb`, `a:b`, or the landing squares of a capture's path: `11:18:27`), comments `{...}`
  and `;` to the end of the line, `%` escape lines, variations `( ... )` (skipped, also nested),
  NAGs (`$3`) and `!` `?` suffixes, and the result (`1-0 0-1 1/2-1/2 2-0 0-2 1-1 *`), which ends
  the game. Text glued after a move's last square (`26-22White...`, as CheckerBoard reads it)
  is the move's comment.

Squares are in the variant's game-record names (numbers, or algebraic a1-h8 for russian; both are
read). Every record move is resolved against the legal moves of the position, as CheckerBoard
and pydraughts do: the separator is no promise (CheckerBoard writes quiet moves as `10x15`, other
programs captures as `18-11`); origin and destination must match, and when intermediate landing
squares are written the path must be consistent with the move (one captured piece on each leg,
as many legs as captures); a short capture that still matches several legal moves is reported as
ambiguous.

Files are read as a stream (`iter_pdn_file`): one game at a time, whatever the file's size.
Errors never stop the reader: each one is recorded (`PdnError`: file, game number, move label,
message) on its game. An unknown GameType or a broken FEN leaves the game without positions; an
illegal, unreadable or ambiguous move ends the game there, keeping the moves before it.

Writing (`Style`, `write_move`, `movetext`): moves in the notation a game's record used (numbers
or algebraic squares, `x` or `:` for captures), the full path of a capture only when origin and
destination do not name it alone.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from hub_engine.rules import notation
from hub_engine.rules.notation import NotationError
from hub_engine.rules.position import IllegalMoveError, Move, Position
from hub_engine.rules.variants import GAMETYPES, VARIANTS, Variant, get_variant

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


@dataclass(frozen=True)
class Style:
    """How a record writes moves: algebraic squares or numbers, and the capture separator."""

    algebraic: bool
    capture: str          # "x" or ":"

    @classmethod
    def default(cls, variant: Variant) -> "Style":
        """The variant's own convention (rules.md section 6: algebraic and `:` for russian)."""
        algebraic = variant.pdn_squares == "algebraic"
        return cls(algebraic, ":" if algebraic else "x")

    @classmethod
    def of_texts(cls, variant: Variant, texts: Iterable[str]) -> "Style":
        """The style of a record's move texts; what they do not show comes from the variant."""
        base = cls.default(variant)
        algebraic = capture = None
        for t in texts:
            if algebraic is None:
                algebraic = t[:1].isalpha()
            if capture is None:
                sep = next((c for c in t.lower() if c in "x:"), None)
                capture = sep
            if algebraic is not None and capture is not None:
                break
        return cls(base.algebraic if algebraic is None else algebraic,
                   capture or base.capture)


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
    assumed: bool = False                         # the variant is the reader's default (no tag)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def style(self) -> Style:
        return Style.of_texts(self.variant, (r.text for r in self.moves))

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


def tagged_variant(tags: dict[str, str]) -> Variant | None:
    """The variant a game's tags name, None if they name none; ValueError for a GameType this
    engine does not play."""
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
    return None


def variant_of_tags(tags: dict[str, str], default: Variant) -> Variant:
    """The variant a game's tags name, else default; ValueError for an unknown GameType."""
    return tagged_variant(tags) or default


# --- record moves ------------------------------------------------------------------------------

def _xy(s: int) -> tuple[int, int]:
    """Column and row (0..7) of internal square s on the normal (unmirrored) board."""
    row = s // 4
    return 2 * (s % 4) + row % 2, row


def _square_at(x: int, y: int) -> int | None:
    return y * 4 + x // 2 if 0 <= x < 8 and 0 <= y < 8 else None


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


def capture_path(pos: Position, move: Move) -> list[int]:
    """Landing squares (origin first) of a capture move, found by following its captured pieces;
    for a flying king the nearest landing square that lets the capture go on."""
    setup = pos.setup()
    side = setup.side
    occupied = set(setup.men0 + setup.kings0 + setup.men1 + setup.kings1) - {move.frm}
    v = pos.variant
    last_row = 7 if side == 0 else 0
    forward = 1 if side == 0 else -1

    def search(sq: int, king: bool, left: frozenset[int]) -> list[int] | None:
        if not left:
            return [sq] if sq == move.to else None
        x, y = _xy(sq)
        flying = king and v.flying_kings
        for sx in (1, -1):
            for sy in (1, -1):
                if not king and not v.men_capture_backward and sy != forward:
                    continue
                i = 1
                while True:                      # the first piece on this diagonal
                    c = _square_at(x + i * sx, y + i * sy)
                    if c is None or c in occupied or not flying:
                        break
                    i += 1
                if c is None or c not in left:
                    continue
                j = i + 1
                while True:                      # landing squares beyond it
                    land = _square_at(x + j * sx, y + j * sy)
                    if land is None or land in occupied:
                        break
                    crowned = king or (v.crowning == "king" and land // 4 == last_row)
                    rest = search(land, crowned, left - {c})
                    if rest is not None:
                        return [sq] + rest
                    if not flying:
                        break
                    j += 1
        return None

    king = move.frm in (setup.kings0 if side == 0 else setup.kings1)
    path = search(move.frm, king, frozenset(move.captured))
    return path if path is not None else [move.frm, move.to]


def square_name(variant: Variant, s: int, algebraic: bool) -> str:
    """Internal square s in game-record squares: algebraic, or the variant's record numbers
    (layout numbers where the variant's own names are algebraic)."""
    if algebraic and not variant.mirrored:
        return notation.algebraic(s)
    if variant.pdn_squares == "algebraic":
        return str(notation.internal_to_layout(variant, s))
    return notation.pdn_square(variant, s)


def write_move(pos: Position, move: Move, style: Style | None = None) -> str:
    """A legal move of pos in a record's style; a capture gets its full path when origin and
    destination match another legal move."""
    v = move.variant
    style = style or Style.default(v)
    if not move.captured:
        squares = [move.frm, move.to]
    elif sum(m.frm == move.frm and m.to == move.to for m in pos.legal_moves()) > 1:
        squares = capture_path(pos, move)
    else:
        squares = [move.frm, move.to]
    sep = style.capture if move.captured else "-"
    return sep.join(square_name(v, s, style.algebraic) for s in squares)


def pdn_move_text(move: Move, pos: Position | None = None, style: Style | None = None) -> str:
    """A move in the variant's game-record squares (origin and destination; with pos, the full
    path when they are ambiguous)."""
    if pos is not None:
        return write_move(pos, move, style)
    style = style or Style.default(move.variant)
    sep = style.capture if move.captured else "-"
    return f"{square_name(move.variant, move.frm, style.algebraic)}{sep}" \
           f"{square_name(move.variant, move.to, style.algebraic)}"


def record_text(rec: RecordMove, style: Style) -> str:
    """A record move as its record wrote it, with the separators made right: `-` for a quiet
    move, the record's capture separator for a capture (CheckerBoard writes `10x15` for quiet
    moves, and pydraughts' reader needs the separator to match)."""
    names = [n.lower().lstrip("0") or "0" if n.isdigit() else n.lower()
             for n in re.split(r"[-x:]", rec.text, flags=re.IGNORECASE)]
    return (style.capture if rec.move.captured else "-").join(names)


def resolve_move(pos: Position, text: str) -> Move:
    """The legal move a record move names; IllegalMoveError / NotationError say why not."""
    t = text.strip()
    if not _MOVE_RE.fullmatch(t):
        raise NotationError(f"unreadable move {text!r}")
    names = re.split(r"[-x:]", t, flags=re.IGNORECASE)
    path = [notation.from_pdn_square(pos.variant, n) for n in names]
    frm, to = path[0], path[-1]
    found = [mv for mv in pos.legal_moves() if mv.frm == frm and mv.to == to]
    if len(path) > 2:
        found = [mv for mv in found if mv.captured and path_fits(mv, path)]
    if len(found) > 1 and len(path) == 2:
        # `f6:a1` names the one-leg capture when a longer capture also goes from f6 to a1
        found = [mv for mv in found if mv.captured and path_fits(mv, path)] or found
    if len(found) > 1 and len({frozenset(mv.captured) for mv in found}) == 1:
        found = [mv for mv in found if mv.promote] or found      # rules.md section 2
    if not found:
        raise IllegalMoveError(f"illegal move {text}")
    if len(found) > 1:
        options = ", ".join(str(mv) for mv in found)
        raise IllegalMoveError(f"ambiguous move {text}: it matches {len(found)} legal moves "
                               f"(Hub strings {options}); write the landing squares of the path")
    return found[0]


def split_glued(word: str) -> tuple[str, str | None]:
    """A move and the text glued after its last square (`26-22White...`: CheckerBoard reads the
    move and takes the rest as a comment); the word unchanged when it is no such thing."""
    m = _MOVE_RE.match(word)
    if not m or m.end() == len(word):
        return word, None
    rest = word[m.end():]
    if rest[0] in "-x:X" or any(ch.isdigit() for ch in rest):
        return word, None
    return word[:m.end()], rest


# --- the PDN reader ----------------------------------------------------------------------------

def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _tokens(lines: Iterable[str]) -> Iterator[tuple[str, str, re.Match]]:
    """Tokens of PDN text given line by line; a comment spanning lines is read as one token.
    `%` escape lines are skipped as a whole."""
    pending = ""
    for line in lines:
        if line.startswith("%"):
            continue
        if pending:
            pending += line
            if "}" not in line:
                continue            # still inside the open comment
        else:
            pending = line
        cut = None
        for m in _TOKEN_RE.finditer(pending):
            if m.lastgroup == "comment" and not m.group(0).endswith("}"):
                cut = m.start()     # an open comment: wait for the line that closes it
                break
            yield m.lastgroup, m.group(0), m
        pending = pending[cut:] if cut is not None else ""
    if pending:
        for m in _TOKEN_RE.finditer(pending):
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
        if g.assumed:
            message += (f" (the game has no GameType tag and was read as {g.variant.name}, "
                        f"the --variant setting; choose another with --variant)")
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
            g.variant = tagged_variant(g.tags)
        except ValueError as exc:
            self.error(str(exc))
            return
        if g.variant is None:
            g.variant, g.assumed = self.default, True
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

    def move_number(self, number: int) -> None:
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


def iter_pdn(lines: Iterable[str], file: str = "<pdn>", variant: Variant | str = "brazilian"
             ) -> Iterator[PdnGame]:
    """The games of PDN text given line by line, each as soon as it is read; errors are
    recorded on each game (see the module docstring)."""
    default = variant if isinstance(variant, Variant) else get_variant(variant)
    builder: _GameBuilder | None = None
    in_movetext = False
    depth = 0                      # variation nesting
    count = 0

    def finish() -> PdnGame | None:
        nonlocal builder, in_movetext, count
        b, builder, in_movetext = builder, None, False
        if b is None:
            return None
        b.start()
        g = b.game
        return g if g.start is not None or g.errors or g.tags else None

    def current() -> _GameBuilder:
        nonlocal builder, count
        if builder is None:
            count += 1
            builder = _GameBuilder(file, count, default)
        return builder

    for kind, tok, m in _tokens(lines):
        done = None
        if kind == "tag":
            if depth:
                continue
            if in_movetext:
                done = finish()
            current().tag(m.group("tname"), _unescape(m.group("tvalue")))
        elif kind == "bad":
            current().error("broken tag pair (expected [Name \"value\"])")
        elif kind in ("comment", "line_comment"):
            if not depth and builder is not None and in_movetext:
                body = tok[1:-1] if kind == "comment" and tok.endswith("}") else tok[1:]
                if body.strip():
                    builder.comment(" ".join(body.split()))
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif not depth and kind != "nag":
            b = current()
            in_movetext = True
            done = _word(b, tok, finish)
        if done is not None:
            yield done
    done = finish()
    if done is not None:
        yield done


def _word(b: _GameBuilder, word: str, finish) -> PdnGame | None:
    """One word of a game's main line: a move number, a move, or the result (which ends it)."""
    b.start()
    num = _NUMBER_RE.match(word)
    if num:
        b.move_number(int(num.group(1)))
        word = word[num.end():]
    word = word.rstrip("!?").lstrip(".")           # `1. ...`: the dots stand for White's move
    if not word:
        return None
    if word in RESULTS:
        b.game.result = word
        return finish()
    move, glued = split_glued(word)
    b.move(move)
    if glued == "*" or glued in RESULTS:
        b.game.result = glued
        return finish()
    if glued:
        b.comment(glued)
    return None


def read_pdn(text: str, file: str = "<pdn>", variant: Variant | str = "brazilian") -> list[PdnGame]:
    """All games of a PDN text; errors are recorded on each game (see the module docstring)."""
    return list(iter_pdn(text.splitlines(keepends=True), file, variant))


class ByteCount:
    """How many bytes of a file its line reader has consumed (for progress)."""

    def __init__(self) -> None:
        self.n = 0


def file_lines(path: str | os.PathLike, count: ByteCount | None = None) -> Iterator[str]:
    """A text file's lines (UTF-8, bad bytes replaced), read as they are needed."""
    with open(path, "rb") as f:
        for raw in f:
            if count is not None:
                count.n += len(raw)
            yield raw.decode("utf-8", errors="replace")


def iter_pdn_file(path: str | os.PathLike, variant: Variant | str = "brazilian",
                  count: ByteCount | None = None) -> Iterator[PdnGame]:
    """The games of a PDN file, read one at a time."""
    return iter_pdn(file_lines(path, count), os.fspath(path), variant)


def read_pdn_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[PdnGame]:
    return list(iter_pdn_file(path, variant))


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


def _content_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for i, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield i, line


def iter_position_lines(lines: Iterable[str], file: str, variant: Variant | str, kind: str
                        ) -> Iterator[LinePosition]:
    """Positions one per line; kind 'fen' (PDN FEN, may be quoted) or 'hub' (33-character strings).

    Blank lines and lines starting with `#` are skipped. A bad line is recorded with its error and
    reading goes on.
    """
    v = variant if isinstance(variant, Variant) else get_variant(variant)
    for i, line in _content_lines(lines):
        body = line.strip().strip('"')
        try:
            pos = Position.from_fen(v, body) if kind == "fen" else Position.from_hub(v, body)
            yield LinePosition(file, i, body, pos, None, kind)
        except (NotationError, ValueError) as exc:
            err = PdnError(file, None, None, f"line {i}: bad {'FEN' if kind == 'fen' else 'position'}"
                                             f" {body!r}: {exc}")
            yield LinePosition(file, i, body, None, err, kind)


def read_position_lines(text: str, file: str, variant: Variant | str, kind: str) -> list[LinePosition]:
    return list(iter_position_lines(text.splitlines(), file, variant, kind))


def read_fen_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[LinePosition]:
    return list(iter_position_lines(file_lines(path), os.fspath(path), variant, "fen"))


def read_hub_file(path: str | os.PathLike, variant: Variant | str = "brazilian") -> list[LinePosition]:
    return list(iter_position_lines(file_lines(path), os.fspath(path), variant, "hub"))


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
    for _i, line in _content_lines(text.splitlines()):
        body = line.strip('"')
        if _HUB_LINE.fullmatch(body):
            return "hub"
        if re.match(r"[WB]\s*:", body, re.IGNORECASE):
            return "fen"
        return "pdn"
    return "pdn"


# --- writing -----------------------------------------------------------------------------------

def write_pdn_tags(tags: dict[str, str]) -> str:
    return "".join(f'[{k} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]\n'
                   for k, v in tags.items())


_RESULT_WORD = re.compile(r"(?<!\S)(1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0|\*)(?!\S)")


def comment_text(text: str) -> str:
    """A comment's body safe for every reader: one line, no braces or parentheses (pydraughts
    strips `(...)` before `{...}`, CheckerBoard ends a comment at the first `}` or `)`), and no
    free-standing result (pydraughts ends a game at ` 1-0 ` or ` * ` even inside a comment)."""
    text = " ".join(text.split()).translate(str.maketrans("{}()", "[][]"))
    return _RESULT_WORD.sub(r"'\1'", text)


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
