"""Tokenizer and writer for Hub lines: quoting, round trips, malformed input, long lines."""

import time

import pytest

from protocol.errors import ProtocolError
from protocol.tokens import Line, format_line, format_value, parse_line, tokenize


def test_command_flags_and_values_in_input_order():
    line = parse_line('pos start moves="32-28 19-23" pos=Wbbb wolf="a b"')
    assert line == Line("pos", [("start", None), ("moves", "32-28 19-23"), ("pos", "Wbbb"),
                               ("wolf", "a b")])
    assert line.value("moves") == "32-28 19-23"
    assert line.has_flag("start") and not line.has_flag("moves")
    assert line.flags() == ["start"]
    assert line.value("absent") is None


def test_last_value_wins():
    assert parse_line("level depth=3 depth=7").value("depth") == "7"


def test_quoted_values_keep_equals_and_blanks():
    assert tokenize('x a="k=v" b="  two  words " c=""') == [
        ("x", None), ("a", "k=v"), ("b", "  two  words "), ("c", "")]


def test_bare_value_may_hold_equals_and_empty_value_is_empty():
    assert tokenize("x a=b=c d=") == [("x", None), ("a", "b=c"), ("d", "")]


@pytest.mark.parametrize("text", ["", "   ", "\t", "\r\n", " \t \r\n"])
def test_blank_lines_are_none(text):
    assert parse_line(text) is None


def test_whitespace_tabs_and_crlf_are_tolerated():
    line = parse_line('  \tlevel\tdepth=5   time=9.5 \r\n')
    assert line == Line("level", [("depth", "5"), ("time", "9.5")])


def test_crlf_does_not_stick_to_a_quoted_value():
    assert parse_line('pos moves="1-5 2-6"\r\n').value("moves") == "1-5 2-6"


@pytest.mark.parametrize("text, fragment", [
    ('pos moves="32-28 19-23', "unclosed quote"),
    ('pos moves="', "unclosed quote"),
    ("level =5", "'=' with no name"),
    ("= x", "'=' with no name"),
    ('pos "32-28"', "unexpected quote"),
    ('go th"ink', "unexpected quote"),
    ('pos moves="32-28"x', "after the closing quote"),
    ("depth=5 level", "not a command"),
])
def test_malformed_lines_raise_protocol_error(text, fragment):
    with pytest.raises(ProtocolError) as info:
        parse_line(text)
    assert fragment in info.value.message
    assert str(info.value) == info.value.message


def test_valued_argument_written_as_flag_is_an_error():
    with pytest.raises(ProtocolError, match="depth needs a value"):
        parse_line("level depth").value("depth")


def test_long_line_is_linear():
    moves = " ".join(["32-28", "19-23"] * 9000)  # about 100 kB
    text = f'pos pos=W{"e" * 32} moves="{moves}" ' + "junk=1 " * 2000
    assert len(text) > 100_000
    started = time.perf_counter()
    line = parse_line(text)
    elapsed = time.perf_counter() - started
    assert len(line.value("moves").split()) == 18000
    assert elapsed < 2.0  # generous: quadratic scanning would take far longer


def test_long_garbage_error_message_is_short():
    with pytest.raises(ProtocolError) as info:
        parse_line("x" * 100_000 + '="')
    assert len(info.value.message) < 200


def test_format_value_quotes_only_when_needed():
    assert format_value("brazilian") == "brazilian"
    assert format_value("Fake Engine") == '"Fake Engine"'
    assert format_value("") == '""'
    assert format_value("a=b") == '"a=b"'
    assert format_value("tab\there") == '"tab\there"'


def test_format_value_cannot_escape_so_it_replaces():
    assert format_value('say "hi"') == "\"say 'hi'\""
    assert format_value("two\nlines") == '"two lines"'


def test_format_line_writes_every_field_with_equals():
    assert format_line("done", [("move", "32-28"), ("ponder", "19-23")]) == \
        "done move=32-28 ponder=19-23"
    assert format_line("wait") == "wait"
    assert format_line("done", [("move", "")]) == 'done move=""'


def test_format_line_forced_quotes():
    assert format_line("info", [("pv", "32-28")], quoted={"pv"}) == 'info pv="32-28"'
    assert format_line("info", [("pv", "")], quoted={"pv"}) == 'info pv=""'


@pytest.mark.parametrize("command, name", [("", "a"), ("two words", "a"), ("x", ""),
                                          ("x", "a=b"), ("x", 'a"')])
def test_format_line_rejects_bad_words(command, name):
    with pytest.raises(ValueError):
        format_line(command, [(name, "v")])


@pytest.mark.parametrize("fields", [
    [("name", "Fake Engine"), ("version", "1.0")],
    [("a", ""), ("b", "x=y"), ("c", "  spaced  "), ("d", "plain")],
    [("moves", " ".join(["32-28"] * 1000))],
])
def test_round_trip(fields):
    line = parse_line(format_line("cmd", fields))
    assert line == Line("cmd", fields)


def test_format_value_never_writes_control_characters():
    assert format_value("bad\x00word\x1b[2J") == "bad?word?[2J"
    assert format_value("a\r\nb") == '"a b"'


def test_numbers_of_a_line_read_by_a_client():
    line = parse_line('info depth=12 score=-0.35 nodes=2748945 time=x pv="32-28 score=9" wide')
    assert line.number("depth", int) == 12 and line.number("score") == -0.35
    assert line.number("nodes", int) == 2748945
    assert line.number("time") is None            # not a number
    assert line.number("nps") is None             # absent
    assert line.number("wide") is None            # a bare flag
    assert line.number("pv") is None              # a quoted value is not split
    assert line.has_value("score") and line.has_value("time")
    assert not line.has_value("wide") and not line.has_value("nps")
    assert not parse_line('info depth=3 pv="32-28 score=9"').has_value("score")
