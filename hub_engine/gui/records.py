"""Game records in and out of the page: uploaded PDN collections, PDN written from the page's game
tree (variations kept), and `hub-engine analyse` files (JSON Lines) with their verdicts.

Uploads are checked here (size, encoding, does anything parse) and every failure is a
RecordsError whose message the page shows as it is.
"""
from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass

from hub_engine import __version__
from hub_engine.gui.rules import RequestError, game_request, move_json, move_label
from hub_engine.report.records import Collection, collections, read_jsonl
from hub_engine.report.tags import record_tags
from hub_engine.rules import pdn
from hub_engine.rules.pdn import PdnGame, Style
from hub_engine.rules.position import Position
from hub_engine.rules.variants import Variant

MAX_UPLOAD = 10 * 1024 * 1024          # bytes of one uploaded file
LIST_TAGS = ("White", "Black", "Event", "Date", "Result")
MAX_DEPTH = 40                         # variation nesting written to PDN


class RecordsError(ValueError):
    """An upload that cannot be used; the message says why, for the user."""


def decode(data: bytes, name: str) -> str:
    """The text of an upload: UTF-8 (a BOM is dropped), else Windows-1252, as PDN files from
    Windows programs are; a binary file is refused."""
    if len(data) > MAX_UPLOAD:
        raise RecordsError(f"{name} is {len(data) / 1e6:.1f} MB: files up to "
                           f"{MAX_UPLOAD // (1024 * 1024)} MB can be opened")
    if b"\x00" in data[:65536]:
        raise RecordsError(f"{name} is not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


# --- PDN in ----------------------------------------------------------------------------------

@dataclass
class Upload:
    """A PDN collection read from an upload, kept while the page chooses games from it."""

    name: str
    games: list[PdnGame]

    def listing(self) -> list[dict]:
        """One row per game for the page's chooser."""
        rows = []
        for g in self.games:
            tags = {k: g.tags[k] for k in LIST_TAGS if k in g.tags}
            if "Result" not in tags and g.result:
                tags["Result"] = g.result
            rows.append({"number": g.number, "tags": tags, "moves": len(g.moves),
                         "variant": g.variant.name if g.variant else None,
                         "assumed": g.assumed,
                         "error": page_message(g.errors[0]) if g.errors else None})
        return rows

    def game(self, number: int) -> dict:
        """The game with this number (1-based), as the page loads it into its tree."""
        if not isinstance(number, int) or not 1 <= number <= len(self.games):
            raise RequestError(f"no game {number!r} in {self.name} "
                               f"(it has {len(self.games)})")
        g = self.games[number - 1]
        if g.start is None:
            raise RequestError(f"game {number} of {self.name} cannot be shown: "
                               f"{g.errors[0].message if g.errors else 'no position'}")
        moves = []
        half = g.start.side
        for _ply, pos, move in g.positions():
            if move is None:
                break
            item = move_json(pos, move)
            item["label"] = move_label(half)
            moves.append(item)
            half += 1
        return {"number": g.number, "variant": g.variant.name, "start": g.start.hub(),
                "fen": g.start.fen(), "tags": dict(g.tags), "moves": moves,
                "result": g.result, "errors": [page_message(e) for e in g.errors]}


_ASSUMED = re.compile(r" \(the game has no GameType tag and was read as (\w+), the --variant "
                      r"setting; choose another with --variant\)")


def page_message(error) -> str:
    """A reader's error as the page says it (the board's variant, not a command-line option)."""
    return _ASSUMED.sub(r" (the game has no GameType tag and was read as \1, the board's "
                        r"variant: choose another variant before opening it)", str(error))


def read_upload(data: bytes, name: str, default_variant: Variant) -> Upload:
    """The games of an uploaded PDN file; RecordsError when none can be read."""
    text = decode(data, name)
    games = pdn.read_pdn(text, name, default_variant)
    if not games:
        raise RecordsError(f"{name}: no game found (a PDN file has tag pairs such as "
                           f"[Event \"...\"] and moves such as 1. 11-15 23-18)")
    if not any(g.moves or (g.start is not None and not g.errors) for g in games):
        raise RecordsError(f"{name}: no game could be read: {page_message(games[0].errors[0])}"
                           if games[0].errors else f"{name}: no game could be read")
    return Upload(name, games)


# --- PDN out ---------------------------------------------------------------------------------

def write_pdn(msg: dict) -> str:
    """The PDN text of the page's game: tags, main line, variations in parentheses.

    msg: `variant`, `start`, `tags` (name -> value), `line`: the main line as a list of
    {"hub": move, "variations": [line, ...]} where each variation replaces the move it is
    attached to.
    """
    req = game_request({"variant": msg.get("variant"), "start": msg.get("start"), "moves": []})
    v, start = req.variant, req.start
    line = msg.get("line") or []
    tags = _tags(msg.get("tags"), v, start)
    style = Style.default(v)
    words: list[str] = []
    _write_line(start, line, start.side, style, words, 0)
    words.append(tags["Result"])
    return pdn.write_pdn_tags(tags) + "\n" + pdn.movetext(
        ("", w) for w in _glue(words)) + "\n"


def _tags(given, v: Variant, start: Position) -> dict[str, str]:
    tags = {"Event": "hub-engine gui", "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "White": "?", "Black": "?", "Result": "*"}
    if isinstance(given, dict):
        for k, val in given.items():
            if isinstance(k, str) and k.isalnum() and isinstance(val, str) and len(val) < 200:
                tags[k] = val.replace("\n", " ")
    if tags["Result"] not in pdn.RESULTS:
        tags["Result"] = "*"
    tags["GameType"] = str(v.gametype)
    if start != Position.start(v):
        tags["FEN"] = start.fen()
    else:
        tags.pop("FEN", None)
    tags["Generator"] = f"hub-engine {__version__}"
    return tags


def _write_line(pos: Position, line, half: int, style: Style, words: list[str],
                depth: int) -> None:
    if not isinstance(line, list) or depth > MAX_DEPTH:
        raise RequestError("bad game tree")
    numbered = False
    for item in line:
        if not isinstance(item, dict) or not isinstance(item.get("hub"), str):
            raise RequestError("bad game tree: a move without its Hub string")
        try:
            move = pos.parse_move(item["hub"])
        except ValueError as exc:
            raise RequestError(f"bad game tree: {exc}") from None
        if half % 2 == 0 or not numbered:
            words.append(move_label(half))
        words.append(pdn.write_move(pos, move, style))
        numbered = True
        variations = item.get("variations") or []
        for var in variations:
            words.append("(")
            _write_line(pos, var, half, style, words, depth + 1)
            words.append(")")
        if variations:
            numbered = False          # the move after a variation gets its number again
        pos = pos.play(move)
        half += 1


def _glue(words: list[str]) -> list[str]:
    """Words with `(` glued to the word after it and `)` to the word before it."""
    out: list[str] = []
    opening = False
    for w in words:
        if w == ")" and out:
            out[-1] += ")"
        elif opening:
            out.append("(" + w)
            opening = False
        elif w == "(":
            opening = True
        else:
            out.append(w)
    return out


# --- analysis files in -----------------------------------------------------------------------

def read_analysis(data: bytes, name: str) -> dict:
    """The games and position lists of an `analyse` JSON Lines file, with the moves, scores
    and verdicts the page shows; RecordsError when nothing in it is a record."""
    text = decode(data, name)
    records, errors = read_jsonl(text.splitlines(), name)
    if not records:
        first = f": {errors[0]}" if errors else ""
        raise RecordsError(f"{name}: no analysis record found (one JSON object a line, as "
                           f"`hub-engine analyse` writes){first}")
    out = []
    for c in collections(records):
        out.append(_collection(c))
    return {"name": name, "collections": out, "errors": errors[:20],
            "skipped": len(errors)}


def _node(rec: dict) -> dict:
    """What the page shows of one analysed position."""
    keep = ("ply", "label", "side", "played", "best", "score", "pv", "played_score", "loss",
            "class", "depth", "nodes", "result")
    node = {k: rec.get(k) for k in keep}
    node["position"] = rec["position"]
    if isinstance(rec.get("multipv"), list):
        node["multipv"] = rec["multipv"][:5]
    return node


def _collection(c: Collection) -> dict:
    tags: dict[str, str] = {}
    for rec in c.records:
        tags.update(record_tags(rec))
    entry = {"id": c.id, "kind": c.kind, "variant": c.variant, "tags": tags,
             "nodes": [_node(r) for r in c.records]}
    if c.kind == "game":
        entry.update(_moves_of(c))
    return entry


def _moves_of(c: Collection) -> dict:
    """The start position and the played moves (page moves) of a game's records, as far as
    they follow each other."""
    first = c.records[0]
    try:
        pos = Position.from_hub(c.variant, first["position"])
    except ValueError as exc:
        return {"start": None, "moves": [], "error": str(exc)}
    start = pos
    moves = []
    half = first["ply"] + (pos.side - first["ply"]) % 2     # move_label's count
    for rec in c.records:
        if rec.get("computed") or not rec.get("played"):
            break
        if rec["position"] != pos.hub():
            break
        try:
            m = pos.parse_move(rec["played"])
        except ValueError:
            break
        item = move_json(pos, m)
        item["label"] = move_label(half)
        moves.append(item)
        pos = pos.play(m)
        half += 1
    return {"start": start.hub(), "moves": moves}


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
