"""Command parsing: every command, every level field, numbers, junk and unknown input."""

import pytest

from protocol.commands import (NUMBER_LIMIT, Go, Hub, Init, Level, NewGame, Ping, PonderHit, Pos,
                               Quit, SetParam, Stop, parse_command)
from protocol.errors import ProtocolError


@pytest.mark.parametrize("text, command", [
    ("hub", Hub()),
    ("init", Init()),
    ("new-game", NewGame()),
    ("ping", Ping()),
    ("ponder-hit", PonderHit()),
    ("stop", Stop()),
    ("quit", Quit()),
    ("go", Go("think")),
    ("go think", Go("think")),
    ("go ponder", Go("ponder")),
    ("go analyze", Go("analyze")),
    ("go whatever", Go("think")),
    ("set-param name=variant value=brazilian", SetParam("variant", "brazilian")),
    ("set-param value=8 name=threads", SetParam("threads", "8")),
    ('set-param name=book-file value=""', SetParam("book-file", "")),
    ('set-param name=book-file value="my book.txt"', SetParam("book-file", "my book.txt")),
    ("set-param name=initial-time value=300", SetParam("initial-time", "300")),
])
def test_simple_commands(text, command):
    assert parse_command(text) == command


def test_blank_line_is_none():
    assert parse_command("  \r\n") is None


def test_commands_ignore_unknown_arguments():
    assert parse_command("ping extra=1 flag") == Ping()
    assert parse_command("stop now") == Stop()


@pytest.mark.parametrize("text, fragment", [
    ("set-param value=3", "needs name"),
    ("set-param name=threads", "needs value"),
    ("set-param name= value=3", "needs name"),
])
def test_set_param_needs_name_and_value(text, fragment):
    with pytest.raises(ProtocolError, match=fragment):
        parse_command(text)


def test_pos_forms():
    assert parse_command("pos") == Pos(None, [], False)
    assert parse_command("pos start") == Pos(None, [], True)
    assert parse_command('pos start moves="9-13 22-18"') == Pos(None, ["9-13", "22-18"], True)
    pos = "W" + "b" * 12 + "e" * 8 + "w" * 12
    assert parse_command(f'pos pos={pos} moves="32-28  19-23 "') == Pos(pos, ["32-28", "19-23"])
    assert parse_command(f"pos moves=32-28 pos={pos}") == Pos(pos, ["32-28"])
    assert parse_command('pos moves=""') == Pos(None, [])


def test_pos_ignores_scan_extras():
    assert parse_command('pos pos=Wxyz wolf="1 2 3" moves="1-5"') == Pos("Wxyz", ["1-5"])


def test_pos_keeps_a_pdn_fen_for_the_engine_to_judge():
    assert parse_command("pos pos=W:W31,32:B1,2").pos == "W:W31,32:B1,2"


@pytest.mark.parametrize("text, level", [
    ("level", Level()),
    ("level depth=12", Level(depth=12)),
    ("level nodes=1000000", Level(nodes=1_000_000)),
    ("level move-time=10.0", Level(move_time=10.0)),
    ("level move-time=2", Level(move_time=2.0)),
    ("level time=29", Level(time=29.0)),
    ("level time=9.5 inc=1", Level(time=9.5, inc=1.0)),
    ("level time=-0.25 inc=2", Level(time=-0.25, inc=2.0)),
    ("level moves=40 time=300 inc=0", Level(moves=40, time=300.0, inc=0.0)),
    ("level infinite", Level(infinite=True)),
    ("level time=.5", Level(time=0.5)),
    ("level time=1e2", Level(time=100.0)),
    ("level depth=12.0", Level(depth=12)),
    ("level depth=+3", Level(depth=3)),
    ("level handicap=2 ply=40 depth=4", Level(depth=4)),
])
def test_level_fields(text, level):
    assert parse_command(text) == level


def test_level_types():
    level = parse_command("level depth=5 nodes=7 moves=9 time=3 inc=1 move-time=2")
    assert all(isinstance(v, int) for v in (level.depth, level.nodes, level.moves))
    assert all(isinstance(v, float) for v in (level.time, level.inc, level.move_time))


@pytest.mark.parametrize("text, field", [
    ("level depth=abc", "depth"),
    ("level depth=12.5", "depth"),
    ("level nodes=1k", "nodes"),
    ("level moves=x", "moves"),
    ("level time=fast", "time"),
    ("level time=nan", "time"),
    ("level time=inf", "time"),
    ("level time=1_000", "time"),
    ("level inc=", "inc"),
    ("level move-time=1.2.3", "move-time"),
    ("level depth", "depth"),
])
def test_level_rejects_non_numbers_naming_the_field(text, field):
    with pytest.raises(ProtocolError) as info:
        parse_command(text)
    assert field in info.value.message


HUGE = "9" * 4301     # one digit more than int() converts (Python's 4,300-digit limit)


@pytest.mark.parametrize("field", ["depth", "nodes", "moves"])
@pytest.mark.parametrize("text, value", [
    (HUGE, NUMBER_LIMIT),
    ("-" + HUGE, -NUMBER_LIMIT),
    ("0" * 5000 + "7", 7),                      # leading zeros are not digits that count
    ("9223372036854775808", NUMBER_LIMIT),      # 2**63: beyond a C long
    ("1000000000000000001", NUMBER_LIMIT),
    (str(NUMBER_LIMIT), NUMBER_LIMIT),
    ("1e30", NUMBER_LIMIT),
    ("1e400", NUMBER_LIMIT),                    # beyond a float, still a number
    ("-1e400", -NUMBER_LIMIT),
    ("1e-400", 0),
])
def test_huge_integers_are_clamped_not_fatal(field, text, value):
    level = parse_command(f"level {field}={text}")
    assert getattr(level, field) == value and isinstance(getattr(level, field), int)


@pytest.mark.parametrize("field", ["time", "inc", "move-time"])
@pytest.mark.parametrize("text, value", [
    ("1e300", float(NUMBER_LIMIT)),
    ("1e400", float(NUMBER_LIMIT)),
    ("-1e400", -float(NUMBER_LIMIT)),
    (HUGE, float(NUMBER_LIMIT)),
    ("1e10", 1e10),
])
def test_huge_times_are_clamped(field, text, value):
    level = parse_command(f"level {field}={text}")
    assert getattr(level, field.replace("-", "_")) == value


@pytest.mark.parametrize("text", [
    "level depth=\u0663",               # ARABIC-INDIC DIGIT THREE: int() takes it
    "level nodes=\u0661\u0662",
    "level moves=\uff13",               # FULLWIDTH DIGIT THREE
    "level depth=\u00b2",               # SUPERSCRIPT TWO
    "level time=\u0663.5",
    "level move-time=1e\u0663",
    "level inc=\u09e9",                 # BENGALI DIGIT THREE
])
def test_only_ascii_digits_are_numbers(text):
    with pytest.raises(ProtocolError, match="expected"):
        parse_command(text)


def test_set_param_message_shortens_a_huge_name():
    with pytest.raises(ProtocolError) as info:
        parse_command("set-param name=" + "n" * 100_000)
    assert len(info.value.message) < 100


@pytest.mark.parametrize("text", ["hello", "HUB", "go-think", "info depth=3", "xyzzy a=1"])
def test_unknown_commands(text):
    with pytest.raises(ProtocolError, match="unknown command"):
        parse_command(text)


def test_unknown_command_message_is_short_for_huge_words():
    with pytest.raises(ProtocolError) as info:
        parse_command("z" * 100_000)
    assert len(info.value.message) < 100


@pytest.mark.parametrize("text", ['pos moves="1-5', "level =3", '"quoted"'])
def test_syntax_errors_surface_as_protocol_errors(text):
    with pytest.raises(ProtocolError):
        parse_command(text)
