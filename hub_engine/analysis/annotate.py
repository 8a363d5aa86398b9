"""The annotated PDN: each game (or position line) written back with the engine's verdicts.

See `write_game` for what a game holds; `source_pdn` writes one input game or position line
from its records (by ply).
"""
from __future__ import annotations

from hub_engine.analysis.tasks import Source
from hub_engine.quality import NAGS
from hub_engine.rules import pdn
from hub_engine.rules.pdn import LinePosition, Style
from hub_engine.rules.position import Position


def _line_pieces(pos: Position, pv: list[str], number: int, second: bool, style: Style
                 ) -> list[tuple[str, str]]:
    """A pv (Hub strings) as PDN movetext pieces from pos, numbered from the given move: a
    number before each first-mover move, `N...` only when the line starts with the other side."""
    pieces = []
    for i, text in enumerate(pv):
        try:
            mv = pos.parse_move(text)
        except ValueError:
            break
        label = f"{number}." if not second else (f"{number}..." if i == 0 else "")
        pieces.append((label, pdn.write_move(pos, mv, style)))
        pos = pos.play(mv)
        if second:
            number += 1
        second = not second
    return pieces


def _pv_text(pos: Position, pv: list[str], number: int, second: bool, style: Style) -> str:
    return " ".join(f"{label} {text}".strip() for label, text in
                    _line_pieces(pos, pv, number, second, style))


def _verdict(rec: dict, pos: Position, style: Style) -> str:
    """The engine's word on a position: on the played move if there is one, else on the position."""
    def move_text(hub: str | None) -> str | None:
        try:
            return pdn.write_move(pos, pos.parse_move(hub), style) if hub else None
        except ValueError:
            return hub

    if rec.get("outcome") == "loss":
        return f"{rec.get('side')} has no legal move and has lost"
    best = move_text(rec.get("best"))
    score = rec.get("score")
    parts = []
    if rec.get("played") is not None and rec.get("played_score") is not None:
        if rec["played"] == rec.get("best"):
            parts.append(f"{score:+.2f}, the engine's choice")
        else:
            parts.append(f"{rec['played_score']:+.2f}; best {best} {score:+.2f}")
            if rec.get("class"):
                parts.append(f"{rec['class']}, loss {rec['loss']:.2f}")
    elif score is not None:
        parts.append(f"{score:+.2f} for {rec.get('side')} to move, best {best}")
    if rec.get("table"):
        parts.append(f"endgame table: {rec['table']}")
    parts.append(f"depth {rec.get('depth')}")
    return "; ".join(parts)


def _comment(words: list[str]) -> str:
    return "{" + pdn.comment_text(" / ".join(w for w in words if w)) + "}"


def write_game(tags: dict[str, str], start: Position, moves: list[pdn.RecordMove],
               records: dict[int, dict], style: Style, first_number: int,
               notes: list[str], result: str) -> str:
    """One game as annotated PDN (records by ply), written for every reader met in practice:

    - move numbers only before the first mover's moves (and `N...` for a game that starts with
      the other side), so that no number repeats (pydraughts 0.6.7 misreads repeated numbers);
    - one comment per move, after its variation: the record's own comment and the engine's
      verdict, since CheckerBoard keeps only a move's last comment; a move classified as an
      inaccuracy or worse also gets `?!` / `?` / `??` and the engine's line as a variation; the
      last move's comment also says what the engine thinks of the final position, and notes;
    - a game without moves (a position) gets the engine's line as its moves, the comment after
      the first of them (CheckerBoard drops a comment before the first move; pydraughts stops
      reading a file at a game without moves);
    - moves in the record's notation (see `pdn.Style`).
    """
    if not moves:
        pieces = _position_pieces(start, records.get(0), style, first_number, notes)
    else:
        pieces = _move_pieces(start, moves, records, style, notes)
    pieces.append(("", result))
    return pdn.write_pdn_tags(tags) + "\n" + pdn.movetext(pieces) + "\n\n"


def _position_pieces(pos: Position, rec: dict | None, style: Style, number: int,
                     notes: list[str]) -> list[tuple[str, str]]:
    line = _line_pieces(pos, (rec or {}).get("pv") or [], number, pos.side == 1, style)
    words = list(notes)
    if rec:
        words.append(f"hub-engine: {_verdict(rec, pos, style)}"
                     + ("; the moves are the engine's line" if line else ""))
    return line[:1] + ([("", _comment(words))] if words else []) + line[1:]


def _move_pieces(start: Position, moves: list[pdn.RecordMove], records: dict[int, dict],
                 style: Style, notes: list[str]) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    pos = start
    for ply, rm in enumerate(moves):
        first_mover = not rm.label.endswith("...")
        number = int(rm.label.rstrip("."))
        rec = records.get(ply)
        nag = NAGS.get(rec.get("class")) if rec else None
        label = f"{number}." if first_mover else (f"{number}..." if ply == 0 else "")
        pieces.append((label, pdn.record_text(rm, style) + (nag or "")))
        if rec and rec.get("class") and rec.get("pv"):
            var = _pv_text(pos, rec["pv"], number, not first_mover, style)
            if var:
                pieces.append(("", f"({var})"))
        words = [rm.comment or "", f"hub-engine: {_verdict(rec, pos, style)}" if rec else ""]
        pos = pos.play(rm.move)
        if ply == len(moves) - 1:
            final = records.get(ply + 1)
            if final:
                then = f"then {_verdict(final, pos, style)}"
                if final.get("pv"):
                    n, second = (number, True) if first_mover else (number + 1, False)
                    then += f"; line {_pv_text(pos, final['pv'], n, second, style)}"
                words.append(then)
            words += notes
        if any(words):
            pieces.append(("", _comment(words)))
    return pieces


def source_pdn(src: Source, records: dict[int, dict]) -> str | None:
    """The annotated PDN of a game or position line (None when it has no position)."""
    if isinstance(src, LinePosition):
        if src.position is None:
            return None
        pos = src.position
        tags = {"Event": f"{src.file} line {src.line}", "GameType": str(pos.variant.gametype),
                "SetUp": "1", "FEN": pos.fen(), "Annotator": "hub-engine"}
        return write_game(tags, pos, [], records, Style.default(pos.variant), 1, [], "*")
    if src.start is None:
        return None
    tags = dict(src.tags)
    if "GameType" not in tags:
        tags["GameType"] = str(src.variant.gametype)
    tags["Annotator"] = "hub-engine"
    notes = [f"hub-engine: the record stops being readable here: {e.message}" for e in src.errors]
    return write_game(tags, src.start, src.moves, records, src.style, src.first_number, notes,
                      "*" if not src.moves else (src.result or "*"))
