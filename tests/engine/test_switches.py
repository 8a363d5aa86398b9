"""HUB_ENGINE_SEARCH: the search switches an experiment sets from the environment."""
import pytest

from hub_engine.engine import Engine, switches
from hub_engine.engine.bench import run_bench


def test_parse_reads_switches_and_names_every_problem():
    wanted, problems = switches.parse("root_order=0, lmr=1,,probcut = 0")
    assert wanted == {"root_order": 0, "lmr": 1, "probcut": 0} and problems == []
    wanted, problems = switches.parse("nullmove=1,lmr=x,probcut,single_ext=9")
    assert wanted == {}
    assert len(problems) == 4
    assert "unknown switch 'nullmove'" in problems[0] and "root_order" in problems[0]
    assert "lmr needs an integer 0..8, got 'x'" in problems[1]
    assert "probcut needs an integer" in problems[2] and "single_ext" in problems[3]


def test_the_engine_applies_them_and_reports_bad_ones_at_init(monkeypatch):
    monkeypatch.setenv(switches.ENV, "root_order=1,probcut=0")
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.init()
    assert e.searchers.main.root_order == 1 and e.searchers.main.probcut == 0
    monkeypatch.setenv(switches.ENV, "root_order=1,bogus=1")
    e.set_param("threads", "2")
    with pytest.raises(ValueError, match="unknown switch 'bogus'"):
        e.init()
    # the good part is applied to every thread's searcher and the engine still plays
    assert [s.root_order for s in e.searchers.threads] == [1, 1]
    monkeypatch.delenv(switches.ENV)
    e.init()
    assert e.searchers.main.root_order == 0 and e.searchers.main.probcut == 1


def test_bench_follows_the_switches(monkeypatch):
    base = run_bench(depth=8)["nodes"]
    monkeypatch.setenv(switches.ENV, "probcut=0")
    assert run_bench(depth=8)["nodes"] != base, "the shallow-search cut changes the tree"
    monkeypatch.setenv(switches.ENV, "probcut=zero")
    with pytest.raises(ValueError, match="probcut needs an integer"):
        run_bench(depth=8)
