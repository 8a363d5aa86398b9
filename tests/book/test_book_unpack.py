"""`hub-engine book unpack`: a book file turned back into a build log loads into the tree of the
log it was built from, and a build grows it as it would have grown the original."""
from __future__ import annotations

import shutil

import pytest

from book_helpers import fake_analyser
from hub_engine.book import store
from hub_engine.book.build import Settings, book_data, build, load_tree
from hub_engine.book.fileformat import BookData, read_book, rules_fingerprint
from hub_engine.book.unpack import unpack
from hub_engine.book.worklog import read_log
from hub_engine.cli import main
from hub_engine.rules.variants import get_variant

SETTINGS = Settings("portuguese", nodes=1000, eval="hand")
FP = rules_fingerprint(get_variant("portuguese").core_rules)


def _build(directory, **kw) -> dict:
    return build(SETTINGS, directory, analyser=fake_analyser, progress=False, **kw)


def _book(directory) -> BookData:
    return read_book(store.book_path(directory, "portuguese"), ruleset="portuguese",
                     fingerprint=FP)


def _loaded(directory) -> BookData:
    """The book of the tree a resumed build would start from (its log, loaded)."""
    tree, _roots, _new = load_tree(SETTINGS, directory, 0.25, 10.0)
    return book_data(tree, "portuguese", FP, SETTINGS.nodes)


def _same(a: BookData, b: BookData) -> bool:
    return (a.header == b.header and a.keys == b.keys and a.values == b.values
            and a.flags == b.flags and a.heights == b.heights)


def test_an_unpacked_book_loads_into_the_tree_of_its_log(tmp_path):
    built, copy = tmp_path / "built", tmp_path / "copy"
    _build(built, positions=150, w=0.1)
    s = unpack(_book(built), copy, eval_name="hand")
    assert s["written"] == s["entries"] == _book(built).header.entries and s["unreached"] == 0
    assert _same(_loaded(copy), _loaded(built))
    log, original = read_log(store.log_path(copy, "portuguese")), read_log(
        store.log_path(built, "portuguese"))
    assert log.settings == original.settings and log.roots == original.roots
    assert set(log.scored) == set(original.scored)
    assert {d for _s, d, _n in log.scored.values()} == {0}      # not in the book file


def test_an_unpacked_book_grows_as_the_original_build_would(tmp_path):
    built, copy = tmp_path / "built", tmp_path / "copy"
    _build(built, positions=80)
    unpack(_book(built), copy, eval_name="hand")
    grown = _build(built, positions=60)
    again = _build(copy, positions=60)
    assert grown["scored"] == again["scored"] >= 60
    assert _same(_book(copy), _book(built))


def test_unpack_refuses_an_existing_log_a_damaged_book_and_other_settings(tmp_path):
    _build(tmp_path, positions=40)
    data = _book(tmp_path)
    with pytest.raises(ValueError, match="never overwritten"):
        unpack(data, tmp_path, eval_name="hand")
    child = next(i for i in range(len(data.keys)) if not data.flags[i])   # a leaf: a move's
    keys = list(data.keys)
    del keys[child]                 # position below an expanded one, gone from the book
    shorter = BookData(data.header, type(data.keys)("Q", keys),
                       type(data.values)("h", [v for i, v in enumerate(data.values) if i != child]),
                       bytes(f for i, f in enumerate(data.flags) if i != child),
                       bytes(h for i, h in enumerate(data.heights) if i != child))
    with pytest.raises(ValueError, match="damaged book"):
        unpack(shorter, tmp_path / "other", eval_name="hand")
    shutil.rmtree(tmp_path / "other", ignore_errors=True)
    # the log written says which settings it is for: a build with others is refused
    unpack(data, tmp_path / "other", eval_name="hand")
    with pytest.raises(ValueError, match="other settings"):
        build(Settings("portuguese", nodes=2000, eval="hand"), tmp_path / "other", positions=1,
              analyser=fake_analyser, progress=False)


def test_the_packaged_book_unpacks_whole(tmp_path, capsys):
    """The shipped portuguese book: every position hangs from the start; the book the log
    loads into holds the same positions (a resumed build's tree: see the module's docstring)."""
    d = str(tmp_path)
    assert main(["book", "unpack", "--variant", "spanish", "--dir", d]) == 0
    out = capsys.readouterr().out
    assert "unreached=0" in out
    shipped = read_book(store.packaged_path("portuguese"), ruleset="portuguese", fingerprint=FP)
    assert f"written={shipped.header.entries}" in out
    assert main(["book", "build", "--variant", "portuguese", "--dir", d, "--positions", "0",
                 "--nodes", str(shipped.header.nodes), "--no-progress"]) == 0
    assert "starting a new" not in capsys.readouterr().err      # it grows the unpacked log
    rebuilt = _book(tmp_path)
    assert rebuilt.keys == shipped.keys and rebuilt.header.nodes == shipped.header.nodes
    assert rebuilt.header.expanded >= shipped.header.expanded
    assert main(["book", "unpack", "--variant", "portuguese", "--dir", d]) == 2
    assert "never overwritten" in capsys.readouterr().err
