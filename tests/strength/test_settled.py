"""hub_engine.matches.settled on the PDN the match runner writes (fake engines that report a
fixed score at depth 1, so which moves count as settled is known)."""
from __future__ import annotations

import pytest

from hub_engine.matches import settled
from test_match import FAKE, run


@pytest.fixture(scope="module")
def drawn_pdn(tmp_path_factory):
    pdn = tmp_path_factory.mktemp("settled") / "games.pdn"
    results, out = run("--variant", "russian", "--engine1", f"{FAKE} first 0 -0.05",
                       "--engine2", f"{FAKE} first 0 +0.50", "--games", "4", "--move-time", "0.05",
                       "--max-plies", "12", "--tolerance", "5", "--seed", "7",
                       "--pdn-output", str(pdn))
    assert results == [0.5] * 4, out        # every game stops at the ply limit: drawn
    return pdn


def test_a_player_is_settled_from_its_first_search_within_the_margin(drawn_pdn):
    players = settled.scan(str(drawn_pdn), "russian", depth=1, within=0.2)
    one, two = players["engine1"], players["engine2"]
    assert one.games == two.games == 4
    # the opening's 4 plies are bare; engine 1 then moves at ply 4 as White, at ply 5 as Black
    assert sorted(one.settled) == [4, 4, 5, 5] and one.unsettled == 0
    assert two.settled == [] and two.unsettled == 4          # +0.50 is not within 0.2 of level
    assert "draws=4 settled=4 unsettled=0 ply: median=4.5" in one.summary()


def test_the_margin_and_the_depth_decide(drawn_pdn):
    wide = settled.scan(str(drawn_pdn), "russian", depth=1, within=0.5)
    assert sorted(wide["engine2"].settled) == [4, 4, 5, 5]
    deep = settled.scan(str(drawn_pdn), "russian", depth=2, within=1.0)
    assert deep["engine1"].unsettled == deep["engine2"].unsettled == 4


def test_command_line(drawn_pdn, capsys, tmp_path):
    assert settled.main([str(drawn_pdn), "--depth", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines)[0].startswith("engine1: draws=4 settled=4")
    for bad in (["--depth", "0"], ["--within", "-1"]):
        with pytest.raises(SystemExit) as e:
            settled.main([str(drawn_pdn), *bad])
        assert e.value.code == 2
    with pytest.raises(SystemExit):
        settled.main([str(tmp_path / "missing.pdn")])
    empty = tmp_path / "empty.pdn"
    empty.write_text("")
    assert settled.main([str(empty)]) == 0
    assert capsys.readouterr().out.strip().endswith("no drawn games")


def test_comment_score_reads_what_reply_comment_writes():
    from hub_engine.matches.engines import Reply, comment_score

    assert comment_score(Reply("11-15", 0.472, 0.35, depth=14).comment()) == (0.35, 14)
    assert comment_score(Reply("11-15", 0.1, -1.5, depth=3).comment()) == (-1.5, 3)
    assert comment_score(Reply("11-15", 0.004, None).comment()) is None     # book or forced
    assert comment_score(Reply("11-15", 0.1, 0.2).comment()) is None        # no depth said
    assert comment_score(None) is None
