"""Engine -> GUI lines: field order, number formats, quoting, and pydraughts' own parsing."""

import re

import pytest

from protocol.commands import Level
from protocol.engine import Info, Limits, ParamSpec, SearchResult
from protocol.errors import MESSAGE_LIMIT, WORD_LIMIT, clip_echoes
from protocol.replies import format_done, format_error, format_id, format_info, format_param

# pydraughts 0.6.7 (draughts/engines/hub.py) splits id/param/info arguments with this regex,
# then splits every item on "=" and unpacks exactly two parts.
PYDRAUGHTS_SPLIT = re.compile(r' +(?![^"]*"(?:(?:[^"]*"){2})*[^"]*$)')


def pydraughts_fields(line: str) -> dict[str, str]:
    """Parse like pydraughts does; raises ValueError where pydraughts would crash."""
    _, arg = line.split(None, 1)
    fields = {}
    for item in PYDRAUGHTS_SPLIT.split(arg):
        key, value = item.split("=")
        fields[key] = value
    return fields


def test_id_line_order_and_quoting():
    line = format_id({"country": "Netherlands", "author": "Jane Doe", "extra": "x",
                      "name": "Hub Engine", "version": "0.1.0"})
    assert line == ('id name="Hub Engine" version=0.1.0 author="Jane Doe" '
                    'country=Netherlands extra=x')
    assert pydraughts_fields(line)["version"] == "0.1.0"


def test_id_never_carries_equals_in_a_value():
    assert pydraughts_fields(format_id({"name": "a=b"}))["name"] == "a-b"


@pytest.mark.parametrize("spec, expected", [
    (ParamSpec("variant", "enum", "brazilian", values=["brazilian", "russian"]),
     'param name=variant value=brazilian type=enum values="brazilian russian"'),
    (ParamSpec("variant", "enum", "brazilian", values=["brazilian"]),
     'param name=variant value=brazilian type=enum values="brazilian"'),
    (ParamSpec("tt-size", "int", 22, min=16, max=30),
     "param name=tt-size value=22 type=int min=16 max=30"),
    (ParamSpec("ponder", "bool", True), "param name=ponder value=true type=bool"),
    (ParamSpec("margin", "real", 0.5, min=0.0, max=2.5),
     "param name=margin value=0.5 type=real min=0.0 max=2.5"),
    (ParamSpec("book-file", "string", ""), 'param name=book-file value="" type=string'),
    (ParamSpec("book-file", "string", "my book"),
     'param name=book-file value="my book" type=string'),
])
def test_param_lines(spec, expected):
    line = format_param(spec)
    assert line == expected
    fields = pydraughts_fields(line)
    assert fields["name"] == spec.name and fields["type"] == spec.type


def test_pydraughts_reads_enum_values():
    line = format_param(ParamSpec("variant", "enum", "russian",
                                  values=["russian", "brazilian", "english", "italian"]))
    value = pydraughts_fields(line)["values"]
    assert value.startswith('"') and value.endswith('"')
    assert value[1:-1].split() == ["russian", "brazilian", "english", "italian"]


@pytest.mark.parametrize("kwargs", [
    dict(name="x", type="colour", value="red"),
    dict(name="x", type="enum", value="a"),
    dict(name="x", type="enum", value="a", values=["a b"]),
    dict(name="two words", type="int", value=1),
    dict(name="x", type="string", value="a=b"),
    dict(name="x", type="string", value='say "hi"'),
])
def test_param_spec_rejects_what_clients_cannot_read(kwargs):
    with pytest.raises(ValueError):
        ParamSpec(**kwargs)


def test_info_full_line_in_exact_order():
    info = Info(depth=12, mean_depth=13.456, score=0.354, nodes=123456, time=1.23456,
                nps=2_345_678.0, pv=["32-28", "19-23", "28x19x23"])
    line = format_info(info)
    assert line == ('info depth=12 mean-depth=13.46 score=0.35 nodes=123456 time=1.235 '
                    'nps=2.3 pv="32-28 19-23 28x19x23"')
    fields = pydraughts_fields(line)
    assert list(fields) == ["depth", "mean-depth", "score", "nodes", "time", "nps", "pv"]
    assert int(fields["depth"]) == 12 and float(fields["nps"]) == 2.3


def test_info_omits_none_fields_and_empty_pv():
    assert format_info(Info(depth=3, nodes=50)) == "info depth=3 nodes=50"
    assert format_info(Info(score=-1.5, pv=[])) == "info score=-1.50"
    assert format_info(Info()) == "info"


def test_info_pv_is_always_quoted():
    assert format_info(Info(pv=["32-28"])) == 'info pv="32-28"'


@pytest.mark.parametrize("score, text", [(99.93, "99.93"), (-89.5, "-89.50"), (0.0, "0.00"),
                                         (-0.001, "0.00"), (0.005, "0.01"), (-3, "-3.00")])
def test_info_scores(score, text):
    assert format_info(Info(score=score)) == f"info score={text}"


def test_info_refuses_nan():
    with pytest.raises(ValueError):
        format_info(Info(score=float("nan")))


def test_done_lines():
    assert format_done(SearchResult("32-28", "19-23")) == "done move=32-28 ponder=19-23"
    assert format_done(SearchResult("26x17x22")) == "done move=26x17x22"
    assert format_done(SearchResult("26x17x22", "")) == "done move=26x17x22"
    assert format_done(SearchResult(None, "19-23")) == 'done move=""'


def test_error_line_is_quoted_and_has_no_inner_double_quote():
    assert format_error("bad position") == 'error message="bad position"'
    assert format_error("x") == 'error message="x"'
    assert format_error('value "abc"\nnext') == "error message=\"value 'abc' next\""


def test_error_line_shortens_echoed_input_whoever_wrote_the_message():
    """Engines quote moves and values in full ("illegal move <m>", "unknown variant '<v>'"):
    the error line keeps the message's own words and cuts each echoed one."""
    move = "9-13" * 25_000
    line = format_error(f"illegal move {move}")
    assert line == f'error message="illegal move {move[:WORD_LIMIT]}..."'
    variant = "x" * 100_000
    line = format_error(f"unknown variant '{variant}' (supported: brazilian russian)")
    assert line == (f'error message="unknown variant \'{variant[:WORD_LIMIT - 1]}... '
                    '(supported: brazilian russian)"')
    many = " ".join(["a"] * 50_000)            # many short words: the whole is cut
    assert len(format_error(f"bad value {many}")) < MESSAGE_LIMIT + 30
    assert clip_echoes("short and sweet") == "short and sweet"


def test_limits_carry_the_go_arrival_time_outside_comparisons():
    assert Limits(depth=3, issued=12.5) == Limits(depth=3)
    assert Limits(depth=3, issued=12.5).with_level(Level(nodes=9)).issued == 12.5


def test_limits_accumulate_levels():
    limits = Limits().with_level(Level(time=60.0, inc=1.0)).with_level(Level(moves=40))
    assert limits == Limits(time=60.0, inc=1.0, moves=40)
    limits = limits.with_level(Level(time=30.0, infinite=True)).with_level(Level(depth=3))
    assert limits == Limits(depth=3, time=30.0, inc=1.0, moves=40, infinite=True)


def test_limits_unlimited():
    assert Limits().is_unlimited()
    assert Limits(inc=1.0, moves=40).is_unlimited()
    assert Limits(depth=5, infinite=True).is_unlimited()
    assert not Limits(move_time=1.0).is_unlimited()
    assert not Limits(nodes=10).is_unlimited()
