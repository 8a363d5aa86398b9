"""The report page: a summary written as HTML, and each game's data for the page's script.

The page is one file that needs nothing else: styles, script and drawings are inline. The summary
(players, games, position lists) is plain HTML, there as soon as the file is read. Each game's
records sit in their own `<script type="application/json">` block that the script parses only
when the game is opened, so a report of thousands of games opens as fast as its summary table;
boards and graphs are drawn for the one game on screen.
"""
from __future__ import annotations

import html
import json
import re
from importlib import resources

from hub_engine import __version__
from hub_engine.quality import CLASSES, NAGS, THRESHOLDS
from hub_engine.report import boards, stats
from hub_engine.report.records import Collection

# the order of a node's fields in the page data (the script reads them by these positions);
# "result" there is the record's `outcome`: the position's, never the game's result
NODE_FIELDS = ("ply", "label", "side", "position", "played", "best", "score", "pv",
               "played_score", "loss", "class", "depth", "nodes", "multipv", "result")
TEMPLATE_FIELD = re.compile(r"@([A-Z]+)@")


def thresholds() -> dict[str, float]:
    """The analysis' class thresholds, as the page's script colours the moves."""
    return dict(THRESHOLDS)


def template(name: str) -> str:
    return resources.files("hub_engine.report").joinpath("templates", name).read_text("utf-8")


def script_json(data) -> str:
    """JSON that is safe inside a <script> element (no `</script>` or `<!--` can appear)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _number_or_none(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def multipv_lines(rec: dict) -> list | None:
    """A record's several best moves as [move, score, line] lists, or None when it has none.

    Read leniently, since the field is new: a list of objects with `move` (or `best`), `score`
    and `pv` (a list of moves or a string), or of [move, score, pv] lists; the move defaults to
    the line's first move.
    """
    items = rec.get("multipv")
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, dict):
            move, score, pv = item.get("move") or item.get("best"), item.get("score"), item.get("pv")
        elif isinstance(item, (list, tuple)) and item:
            move, score, pv = (list(item) + [None, None])[:3]
        else:
            continue
        pv = pv.split() if isinstance(pv, str) else [str(m) for m in pv or [] if m]
        if not isinstance(move, str):
            move = pv[0] if pv else None
        if move is None:
            continue
        out.append([move, _number_or_none(score), " ".join(pv)])
    return out or None


def node(rec: dict) -> list:
    """One position of a collection as the page's script reads it (fields in NODE_FIELDS order)."""
    label = rec.get("label")
    if rec.get("line") is not None:
        label = f"line {rec['line']}"
    return [rec["ply"], label, rec.get("side"), rec["position"], rec.get("played"),
            rec.get("best"), _number_or_none(rec.get("score")), " ".join(rec.get("pv") or []),
            _number_or_none(rec.get("played_score")), _number_or_none(rec.get("loss")),
            rec.get("class"), _number_or_none(rec.get("depth")),
            _number_or_none(rec.get("nodes")), multipv_lines(rec),
            rec["outcome"] if isinstance(rec.get("outcome"), str) else None]


def title_of(c: Collection, tags: dict[str, str]) -> str:
    if c.kind == "positions":
        last = c.records[-1].get("line", c.number)
        return f"{c.file}, lines {c.number}-{last}"
    white = stats.player_name(tags, "white")
    black = stats.player_name(tags, "black")
    if white == stats.UNNAMED and black == stats.UNNAMED:
        return f"{c.file} game {c.number}"
    return f"{white} - {black}"


def meta_entry(c: Collection, tags: dict[str, str]) -> dict:
    entry = {"id": c.id, "kind": c.kind, "variant": c.variant, "title": title_of(c, tags),
             "tags": {k: v for k, v in sorted(tags.items())}}
    if c.kind == "game":
        entry["quality"] = {side: q.row() for side, q in stats.sides(c).items()}
    return entry


# --- the summary as HTML -----------------------------------------------------------------------

def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _loss(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _counts(q: stats.Quality) -> str:
    return "".join(f'<td class="n {c}">{q.counts[c] or ""}</td>' for c in CLASSES)


def _plural(word: str, n: int) -> str:
    return word if n == 1 else (word[:-1] + "ies" if word.endswith("y") else word + "s")


def _table(head: str, rows: list[str], cls: str) -> str:
    return f'<table class="{cls}"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


CLASS_HEADS = "".join(f'<th class="n {c}" title="{c}s">{NAGS[c]}</th>' for c in CLASSES)


def limits_text(limits) -> str:
    """`depth 12`, `100000 nodes`, `0.5 s a position` from a record's `limits`."""
    if not isinstance(limits, dict):
        return ""
    parts = []
    if limits.get("depth"):
        parts.append(f"depth {limits['depth']}")
    if limits.get("nodes"):
        parts.append(f"{limits['nodes']} nodes")
    if limits.get("move_time"):
        parts.append(f"{limits['move_time']} s a position")
    if isinstance(limits.get("multipv"), int) and limits["multipv"] > 1:
        parts.append(f"{limits['multipv']} best moves")
    return ", ".join(parts)


def engines_html(cols: list[Collection]) -> str:
    """Which engine and limits computed the records (each pair once, sorted)."""
    pairs = sorted({(str(r.get("engine") or ""), limits_text(r.get("limits")))
                    for c in cols for r in c.records if not r.get("computed")})
    said = [" at ".join(_e(x) for x in pair if x) for pair in pairs if any(pair)]
    return f'<p class="engines">Analysed by {"; ".join(said)}.</p>' if said else ""


def summary_html(cols: list[Collection], tags: dict[str, dict[str, str]]) -> str:
    games = [(i, c) for i, c in enumerate(cols) if c.kind == "game"]
    parts = [f'<section id="summary"><h2>Summary</h2>']
    total = stats.totals(cols)
    positions = sum(len([r for r in c.records if not r.get("computed")]) for c in cols)
    parts.append(
        f'<p class="totals">{len(games)} {_plural("game", len(games))}, {positions} '
        f'{_plural("position", positions)} analysed; {total.moves} played moves scored: '
        + ", ".join(f'<span class="{c}">{total.counts[c]} {_plural(c, total.counts[c])}</span>'
                    for c in CLASSES)
        + f'. Average loss per move {_loss(total.average) or "-"} men.</p>' + engines_html(cols))
    if games:
        rows = []
        for name, q in stats.players([(c, tags.get(c.id, {})) for _i, c in games]):
            rows.append(f'<tr><td class="name">{_e(name)}</td><td class="n">{q.games}</td>'
                        f'<td class="n">{q.moves}</td><td class="n">{_loss(q.average)}</td>'
                        f'{_counts(q)}</tr>')
        parts.append('<h3>Players</h3>' + _table(
            '<tr><th>player</th><th class="n">games</th><th class="n">moves</th>'
            f'<th class="n">average loss</th>{CLASS_HEADS}</tr>', rows, "players"))
        rows = []
        for i, c in games:
            t = tags.get(c.id, {})
            q = stats.sides(c)
            moves = sum(1 for r in c.records if r.get("played"))
            event = " ".join(x for x in (t.get("Event", ""), t.get("Date", "")) if x and x != "?")
            rows.append(
                f'<tr data-c="{i}"><td class="n"><a href="#game={i}">{c.number}</a></td>'
                f'<td class="name">{_e(stats.player_name(t, "white"))}</td>'
                f'<td class="name">{_e(stats.player_name(t, "black"))}</td>'
                f'<td>{_e(t.get("Result", ""))}</td><td>{_e(event)}</td><td>{_e(c.variant)}</td>'
                f'<td class="n">{moves}</td>'
                f'<td class="n">{_loss(q["white"].average)}</td>{_counts(q["white"])}'
                f'<td class="n">{_loss(q["black"].average)}</td>{_counts(q["black"])}'
                f'<td class="file">{_e(c.file)}</td></tr>')
        parts.append('<h3>Games</h3>' + _table(
            '<tr><th rowspan="2" class="n">game</th><th rowspan="2">White</th>'
            '<th rowspan="2">Black</th><th rowspan="2">result</th><th rowspan="2">event</th>'
            '<th rowspan="2">variant</th><th rowspan="2" class="n">moves</th>'
            '<th colspan="4">White: loss</th><th colspan="4">Black: loss</th>'
            '<th rowspan="2">file</th></tr>'
            f'<tr><th class="n">avg</th>{CLASS_HEADS}<th class="n">avg</th>{CLASS_HEADS}</tr>',
            rows, "games"))
    lists = [(i, c) for i, c in enumerate(cols) if c.kind == "positions"]
    if lists:
        rows = [f'<tr data-c="{i}"><td><a href="#game={i}">{_e(c.file)}</a></td>'
                f'<td class="n">{c.number}-{c.records[-1]["line"]}</td>'
                f'<td class="n">{len(c.records)}</td><td>{_e(c.variant)}</td></tr>'
                for i, c in lists]
        parts.append('<h3>Position lists</h3>' + _table(
            '<tr><th>file</th><th class="n">lines</th><th class="n">positions</th>'
            '<th>variant</th></tr>', rows, "lists"))
    limit = thresholds()
    parts.append(
        f'<p class="legend">Loss: men lost by the played move against the engine\'s best move. '
        f'<span class="inaccuracy">?! inaccuracy</span> from {limit["inaccuracy"]}, '
        f'<span class="mistake">? mistake</span> from {limit["mistake"]}, '
        f'<span class="blunder">?? blunder</span> from {limit["blunder"]} men. Averages count each '
        f'move\'s loss at most {stats.LOSS_CAP:g} men.</p></section>')
    return "".join(parts)


# --- the page ----------------------------------------------------------------------------------

def render(cols: list[Collection], tags: dict[str, dict[str, str]], title: str) -> str:
    """The whole report page as text (the same collections and tags give the same text)."""
    meta = {"version": __version__, "fields": list(NODE_FIELDS),
            "variants": boards.geometries({c.variant for c in cols}),
            "collections": [meta_entry(c, tags.get(c.id, {})) for c in cols],
            "thresholds": thresholds()}
    data = "".join(
        f'<script type="application/json" id="c{i}">'
        f'{script_json({"nodes": [node(r) for r in c.records]})}</script>\n'
        for i, c in enumerate(cols))
    values = {"TITLE": _e(title), "CSS": template("report.css"), "SUMMARY": summary_html(cols, tags),
              "META": script_json(meta), "DATA": data, "JS": template("report.js"),
              "VERSION": _e(__version__)}
    return TEMPLATE_FIELD.sub(lambda m: values[m.group(1)], template("page.html"))
