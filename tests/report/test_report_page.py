"""The report generator without a browser: grouping, figures, tags, escaping, determinism."""
from __future__ import annotations

import html
import io
import json
import random
import re

import pytest
from report_samples import analysed, game_records

from hub_engine.report import build_report, write_report
from hub_engine.report import records as rec_mod
from hub_engine.report.page import NODE_FIELDS, multipv_lines
from hub_engine.report.records import RecordError, check_record, collections, read_jsonl
from hub_engine.report.stats import LOSS_CAP, players


def page_data(text: str) -> tuple[dict, list[dict]]:
    """The page's meta block and every collection's nodes (as dicts), parsed back."""
    meta = json.loads(re.search(r'<script type="application/json" id="report-meta">(.*?)</script>',
                                text, re.S).group(1))
    blocks = re.findall(r'<script type="application/json" id="c(\d+)">(.*?)</script>', text, re.S)
    nodes = [[dict(zip(NODE_FIELDS, n)) for n in json.loads(b)["nodes"]] for _i, b in blocks]
    return meta, nodes


@pytest.fixture(scope="module")
def engine_records(tmp_path_factory):
    return analysed(tmp_path_factory.mktemp("analysed"))


# --- determinism and self-containment ----------------------------------------------------------

def test_same_records_give_the_same_bytes_in_any_order(engine_records):
    first, _w = build_report(engine_records)
    shuffled = list(engine_records)
    random.Random(7).shuffle(shuffled)
    again, _w = build_report(shuffled)
    assert again == first
    out = io.StringIO()
    write_report(shuffled, out)
    assert out.getvalue() == first


def test_the_page_needs_nothing_from_outside(engine_records):
    text, _w = build_report(engine_records)
    assert "<link" not in text and "@import" not in text and " src=" not in text
    assert "url(http" not in text and "fetch(" not in text and "XMLHttpRequest" not in text
    # the only address is the SVG namespace name, which is never loaded
    assert set(re.findall(r"https?://[^\s\"'`<>]+", text)) == {"http://www.w3.org/2000/svg"}


def test_every_record_is_in_the_page_data(engine_records):
    text, _w = build_report(engine_records)
    meta, nodes = page_data(text)
    shown = {(c["id"], n["position"], n["played"], n["score"], n["loss"], n["class"], n["pv"])
             for c, ns in zip(meta["collections"], nodes) for n in ns if n["score"] is not None}
    for r in engine_records:
        cid = r["game"] if "#" in r["game"] else None
        found = [s for s in shown if s[1] == r["position"] and s[2] == r["played"]
                 and s[3] == r["score"] and s[4] == r["loss"] and s[5] == r["class"]
                 and s[6] == " ".join(r["pv"]) and (cid is None or s[0] == cid)]
        assert found, r


# --- grouping ----------------------------------------------------------------------------------

def test_games_in_number_order():
    recs = []
    for n in (10, 2, 1):
        recs += game_records("brazilian", ["9-13", "22-18"], game=f"x.pdn#{n}")
    cols = collections(reversed(recs))
    assert [c.id for c in cols] == ["x.pdn#1", "x.pdn#2", "x.pdn#10"]
    assert all([r["ply"] for r in c.records] == [0, 1, 2] for c in cols)
    assert not any(r.get("computed") for c in cols for r in c.records)


def test_the_position_after_an_unanalysed_last_move_is_worked_out():
    recs = game_records("italian", ["21-17", "9-13"], game="i.pdn#1")[:2]
    full = game_records("italian", ["21-17", "9-13"], game="i.pdn#1")
    c = collections(recs)[0]
    assert c.records[-1]["computed"] and c.records[-1]["position"] == full[2]["position"]
    assert c.records[-1]["side"] == full[2]["side"]


def test_a_later_record_of_the_same_position_wins():
    a = game_records("russian", ["9-13"], game="r.pdn#1")
    b = [dict(r, score=1.5) for r in a]
    assert [r["score"] for r in collections(a + b)[0].records] == [1.5, 1.5]


def test_position_lists_are_cut_into_pages(monkeypatch):
    monkeypatch.setattr(rec_mod, "LINES_PER_PAGE", 2)
    base = game_records("brazilian", [], game="x")[0]
    recs = [dict(base, game=f"p.fen:{line}") for line in (9, 3, 5, 7, 11)]
    cols = collections(recs)
    assert [(c.id, [r["line"] for r in c.records]) for c in cols] == [
        ("p.fen:3", [3, 5]), ("p.fen:7", [7, 9]), ("p.fen:11", [11])]


@pytest.mark.parametrize("line,message", [
    ("{not json", "not JSON"),
    ('["a list"]', "not a JSON object"),
    ('{"game": "g#1", "ply": 0, "variant": "russian"}', "no position"),
    ('{"game": "g#1", "ply": 0, "variant": "checkers10", "position": "W' + "e" * 32 + '"}',
     "unknown variant"),
    ('{"game": "g#1", "ply": 0, "variant": "russian", "position": "Wxx"}', "bad position"),
    ('{"game": "g#1", "ply": -1, "variant": "russian", "position": "W' + "e" * 32 + '"}', "ply"),
    ('{"game": "g#1", "ply": 0, "variant": "russian", "position": "W' + "e" * 32 + '", '
     '"score": "high"}', "score"),
    ('{"game": "g#1", "ply": 0, "variant": "russian", "position": "W' + "e" * 32 + '", '
     '"class": "oops"}', "class"),
])
def test_bad_lines_are_named_with_their_number(line, message):
    good = json.dumps(game_records("russian", [], game="g#1")[0])
    recs, errors = read_jsonl(io.StringIO(f"{good}\n\n{line}\n"), "a.jsonl")
    assert len(recs) == 1
    assert len(errors) == 1 and errors[0].startswith("a.jsonl line 3: ") and message in errors[0]


def test_build_report_rejects_a_bad_record():
    with pytest.raises(RecordError, match="no game"):
        build_report([{"ply": 0}])
    assert check_record(game_records("russian", [], game="g#1")[0])


# --- figures -----------------------------------------------------------------------------------

def test_player_figures_cap_each_loss():
    g1 = game_records("brazilian", ["9-13", "24-20", "5-9", "28-24"], game="a.pdn#1",
                      losses=[0.4, 0, 1.2, 60.0])
    g2 = game_records("brazilian", ["9-13", "22-18"], game="a.pdn#2", losses=[3.0, 0.1])
    tags = {"a.pdn#1": {"White": "Ann", "Black": "Bob"}, "a.pdn#2": {"White": "Bob", "Black": "?"}}
    table = dict(players([(c, tags[c.id]) for c in collections(g1 + g2)]))
    ann, bob, nobody = table["Ann"], table["Bob"], table["(no name)"]
    assert (ann.games, ann.moves, ann.average) == (1, 2, round((0.4 + 1.2) / 2, 2))
    assert ann.counts == {"inaccuracy": 1, "mistake": 1, "blunder": 0}
    # Bob: 0 and a lost win (60 men, counted as LOSS_CAP) as Black, then 3.0 as White
    assert (bob.games, bob.moves, bob.average) == (2, 3, round((0 + LOSS_CAP + 3.0) / 3, 2))
    assert bob.counts == {"inaccuracy": 0, "mistake": 0, "blunder": 2}
    assert (nobody.moves, nobody.average) == (1, 0.1)


def test_summary_shows_players_from_the_pdn_the_records_name(tmp_path, monkeypatch):
    (tmp_path / "club.pdn").write_text(
        '[White "Ann"]\n[Black "Bob"]\n[Result "2-0"]\n[GameType "26"]\n1. 21-17 10-14 2-0\n\n'
        '[White "Cid"]\n[Black "Dee"]\n[GameType "26"]\n1. 22-18 *\n')
    recs = (game_records("brazilian", ["9-13", "22-18"], game="club.pdn#1")
            + game_records("brazilian", ["10-14"], game="club.pdn#2"))
    monkeypatch.chdir(tmp_path)
    text, warnings = build_report(recs)
    assert warnings == []
    meta, _nodes = page_data(text)
    assert [c["tags"] for c in meta["collections"]] == [
        {"Black": "Bob", "Result": "2-0", "White": "Ann"}, {"Black": "Dee", "Result": "*",
                                                             "White": "Cid"}]
    summary = text.split('<section id="summary">')[1].split("</section>")[0]
    assert all(f'<td class="name">{n}</td>' in summary for n in ("Ann", "Bob", "Cid", "Dee"))
    # looked for next to the analysis when not found as named
    monkeypatch.chdir("/")
    _t, warnings = build_report(recs)
    assert len(warnings) == 1 and "club.pdn: not found" in warnings[0]
    text, warnings = build_report(recs, search_dirs=[str(tmp_path)])
    assert warnings == [] and '<td class="name">Ann</td>' in text
    text, warnings = build_report(recs, pdn_files=[str(tmp_path / "club.pdn")])
    assert warnings == [] and '<td class="name">Ann</td>' in text


ENDED = ('[White "Ann"]\n[Black "Bob"]\n[Result "2-0"]\n[GameType "26"]\n[SetUp "1"]\n'
         '[FEN "W:W22:B18"]\n1. 22x15 2-0\n')


def _ended_game_report(tmp_path, records: list[dict]) -> tuple[str, dict, list[dict]]:
    text, warnings = build_report(records, pdn_files=[str(tmp_path / "ended.pdn")])
    assert warnings == []
    meta, nodes = page_data(text)
    return text, meta["collections"][0]["tags"], nodes[0]


def test_a_game_ended_without_a_legal_move_keeps_its_result(tmp_path):
    """The last position's outcome (the side to move has no move: lost) is not the game's
    result: the games table shows the PDN's `2-0`, and the board still says the position is
    lost, also for records written before the field was named `outcome`."""
    from hub_engine.analysis import analyse

    (tmp_path / "ended.pdn").write_text(ENDED)
    out = io.StringIO()
    analyse([str(tmp_path / "ended.pdn")], depth=2, workers=1, output=out, errors_to=None)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    final = max(records, key=lambda r: r["ply"])
    assert (final["ply"], final["outcome"], final["best"]) == (1, "loss", None)
    assert "result" not in final
    old = [dict(r) for r in records]                 # as written before the rename
    for r in old:
        r["result"] = r.pop("outcome")
    for recs in (records, old):
        text, tags, nodes = _ended_game_report(tmp_path, recs)
        assert tags == {"White": "Ann", "Black": "Bob", "Result": "2-0"}
        games = text.split("<h3>Games</h3>")[1].split("</table>")[0]
        assert "<td>2-0</td>" in games and "<td>loss</td>" not in games
        assert [n["result"] for n in nodes] == [None, "loss"]   # the board's last position


def test_tags_given_or_carried_by_records_win():
    recs = game_records("russian", ["9-13"], game="z.pdn#1", extra={"white": "Rec"})
    text, warnings = build_report(recs, tags={"z.pdn#1": {"White": "Tag", "Black": "Given"}})
    assert warnings == []
    meta, _n = page_data(text)
    assert meta["collections"][0]["tags"] == {"Black": "Given", "White": "Rec"}


def test_names_that_look_like_markup_stay_text():
    evil = '</script><script>alert(1)</script> & "x"'
    recs = game_records("english", ["12-16"], game="e.pdn#1", extra={"white": evil})
    text, _w = build_report(recs, title="<b>t</b>")
    assert "<script>alert(1)" not in text and "<b>t</b>" not in text
    assert html.escape(evil) in text
    meta, _n = page_data(text)
    assert meta["collections"][0]["tags"]["White"] == evil


# --- several best lines ------------------------------------------------------------------------

def test_multipv_is_read_in_every_form_it_may_take():
    rec = {"multipv": [{"move": "9-13", "score": 0.3, "pv": ["9-13", "22-18"]},
                       {"best": "10-14", "score": 0.1, "pv": "10-14 23-19"},
                       {"score": -0.2, "pv": ["11-15"]},
                       ["12-16", -0.5, ["12-16", "21-17"]],
                       ["10-13", None],
                       {"score": 1},              # no move at all: left out
                       "junk"]}
    assert multipv_lines(rec) == [["9-13", 0.3, "9-13 22-18"], ["10-14", 0.1, "10-14 23-19"],
                                  ["11-15", -0.2, "11-15"], ["12-16", -0.5, "12-16 21-17"],
                                  ["10-13", None, ""]]
    assert multipv_lines({}) is None and multipv_lines({"multipv": []}) is None


def test_multipv_reaches_the_page():
    recs = game_records("russian", ["9-13"], game="m.pdn#1")
    recs[0]["multipv"] = [{"move": "9-13", "score": 0.2, "pv": ["9-13"]},
                          {"move": "11-15", "score": 0.1, "pv": ["11-15", "22-18"]}]
    _meta, nodes = page_data(build_report(recs, tags={})[0])
    assert nodes[0][0]["multipv"] == [["9-13", 0.2, "9-13"], ["11-15", 0.1, "11-15 22-18"]]
    assert nodes[0][1]["multipv"] is None


def test_the_summary_says_which_engine_and_limits_made_the_records():
    recs = game_records("russian", ["9-13"], game="e.pdn#1")
    recs[0]["limits"] = {"depth": None, "nodes": None, "move_time": 0.5, "multipv": 3}
    text, _w = build_report(recs, tags={})
    assert ('<p class="engines">Analysed by hub-engine test at 0.5 s a position, 3 best moves; '
            'hub-engine test at depth 2.</p>') in text
