"""The builder end to end with a stand-in scorer: the log, resuming, settings, the book file."""
from __future__ import annotations

import json

import pytest

from book_helpers import fake_analyser, fake_score
from hub_engine.book import store
from hub_engine.book.build import Settings, build, read_roots
from hub_engine.book.fileformat import read_book, rules_fingerprint
from hub_engine.book.keys import negate, position_key
from hub_engine.book.play import Book
from hub_engine.book.worklog import LogError, read_log
from hub_engine.rules.position import Position
from hub_engine.rules.variants import get_variant

SETTINGS = Settings("portuguese", nodes=1000, eval="hand")


def _build(tmp_path, **kw):
    kw.setdefault("analyser", fake_analyser)
    kw.setdefault("progress", False)
    return build(SETTINGS, tmp_path, **kw)


def _book(tmp_path, ruleset="portuguese") -> Book:
    data = read_book(store.book_path(tmp_path, ruleset), ruleset=ruleset,
                     fingerprint=rules_fingerprint(get_variant(ruleset).core_rules))
    return Book(data, store.book_path(tmp_path, ruleset))


def test_a_build_scores_logs_and_writes_a_book(tmp_path):
    s = _build(tmp_path, positions=60, w=0.1)
    assert s["scored"] >= 60 and s["total"] == s["scored"]
    log = read_log(store.log_path(tmp_path, "portuguese"))
    assert len(log.scored) == s["total"]
    assert log.roots == [(Position.start("portuguese").hub(), "start")]
    for hub, (score, depth, nodes) in log.scored.items():
        assert (score, depth, nodes) == (fake_score(hub), 7, 1234)
    book = _book(tmp_path)
    assert len(book) == s["total"] and book.header.expanded == s["expanded"] > 1
    start = Position.start("portuguese")
    moves = book.moves(start)
    assert moves is not None and len(moves) == len(start.legal_moves())
    for m in moves:          # a move's value is the negated value of the position it leads to
        child = book.entry(position_key(start.play(m.move)))
        assert m.value == negate(child[0])
    assert [m.value for m in moves] == sorted((m.value for m in moves), reverse=True)
    runs = (tmp_path / "work" / "portuguese.runs.jsonl").read_text().splitlines()
    assert json.loads(runs[-1])["scored"] == s["scored"]


def test_a_resumed_build_scores_only_new_positions(tmp_path):
    first = _build(tmp_path, positions=40)
    seen = []

    def counting(task, limits):
        seen.append(task["position"])
        return fake_analyser(task, limits)

    second = _build(tmp_path, positions=40, analyser=counting)
    log = read_log(store.log_path(tmp_path, "portuguese"))
    assert second["total"] == first["total"] + second["scored"] == len(log.scored)
    assert len(seen) == second["scored"] and len(set(seen)) == len(seen)
    first_hubs = set(list(log.scored)[:first["total"]])
    assert not first_hubs & set(seen)
    third = _build(tmp_path, total=10)            # already more than 10: nothing to do
    assert third["scored"] == 0


def test_a_cut_last_line_is_dropped_and_the_build_goes_on(tmp_path):
    _build(tmp_path, positions=30)
    path = store.log_path(tmp_path, "portuguese")
    text = path.read_text()
    path.write_text(text + "S Wbbbbbbbbbbbbeeee")          # a kill in the middle of a line
    before = len(read_log(path).scored)
    s = _build(tmp_path, positions=10)
    assert s["total"] == before + s["scored"]
    assert all(line.count(" ") >= 2 for line in path.read_text().splitlines()[1:])


def test_other_settings_are_refused(tmp_path):
    _build(tmp_path, positions=10)
    with pytest.raises(LogError, match="nodes"):
        build(Settings("portuguese", nodes=999, eval="hand"), tmp_path, positions=5,
              analyser=fake_analyser, progress=False)


def test_a_failed_search_stops_the_build_with_its_message(tmp_path):
    def broken(task, limits):
        raise RuntimeError("no such thing")

    with pytest.raises(RuntimeError, match="no such thing"):
        _build(tmp_path, positions=5, analyser=broken)


def test_ballot_roots_are_expanded_first(tmp_path):
    roots_file = tmp_path / "mine.txt"
    start = Position.start("portuguese")
    a = start.play(start.legal_moves()[0])
    b = a.play(a.legal_moves()[0])
    roots_file.write_text(f"# two roots\n{b.hub()} deep one\n{b.fen()}\n")
    roots = read_roots(roots_file, "portuguese")
    assert roots == [(b.hub(), "mine.txt/deep one"), (b.hub(), "mine.txt/3")]
    _build(tmp_path, positions=20, extra_roots=roots, ballot_priority=50)
    book = _book(tmp_path)
    assert book.moves(start) is not None and book.moves(b) is not None
    bad = tmp_path / "bad.txt"
    bad.write_text("Wxyz\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        read_roots(bad, "portuguese")


def test_the_pool_gives_the_same_book_as_one_process(tmp_path):
    one = _build(tmp_path / "one", positions=30)
    two = _build(tmp_path / "two", positions=30, workers=2)
    assert two["workers"] == 2
    a = read_log(store.log_path(tmp_path / "one", "portuguese")).scored
    b = read_log(store.log_path(tmp_path / "two", "portuguese")).scored
    common = set(a) & set(b)
    assert len(common) >= 20                 # the roots' children at least
    assert all(a[h] == b[h] for h in common)
    assert one["total"] >= 30 and two["total"] >= 30


def test_a_dask_cluster_builds_the_same_book(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        s = _build(tmp_path / "dask", positions=30, scheduler=client)
    assert s["scheduler"] is None and s["workers"] is None and s["total"] >= 30
    local = _build(tmp_path / "one", positions=30)
    a = read_log(store.log_path(tmp_path / "one", "portuguese")).scored
    b = read_log(store.log_path(tmp_path / "dask", "portuguese")).scored
    assert all(a[h] == b[h] for h in set(a) & set(b)) and len(set(a) & set(b)) >= 20
    assert local["total"] >= 30


def test_main_lines_build_stops_when_every_line_is_deep(tmp_path):
    start = Position.start("portuguese")
    b = start.play(start.legal_moves()[1])
    roots_file = tmp_path / "mine.txt"
    roots_file.write_text(f"{b.hub()} second\n")
    s = _build(tmp_path, positions=100_000, line_plies=6,
               extra_roots=read_roots(roots_file, "portuguese"))
    assert s["main_line"] == 6 and s["short_lines"] == 0
    assert s["scored"] < 1000                   # stopped when the lines were done, not at 100,000
    book = _book(tmp_path)
    for root in (start, b):
        assert book.entry(position_key(root))[2] >= 6   # the book's main line below the root
    again = _build(tmp_path, positions=100_000, line_plies=6)
    assert again["scored"] == 0                 # resumed: nothing left to do
