"""Tokenizer and writer for Hub lines: `command name=value name="value with spaces" flag`.

Hub has no escapes: a value is either a run of non-blank characters or everything between two
double quotes. Reading is lenient where the meaning is still clear (any whitespace, `\\r\\n`,
arguments in any order, `=` inside an unquoted value) and strict where it is not (unclosed quote,
`=` with no name), raising `ProtocolError`. Scanning is a single left-to-right pass, so a 100 kB
line costs no more than reading it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol.errors import ProtocolError, shorten

_BLANKS = re.compile(r"\s*")
_NAME = re.compile(r'[^\s="]*')
_BARE_VALUE = re.compile(r"\S*")
_NEEDS_QUOTES = re.compile(r'[\s="]')
_LINE_BREAKS = re.compile(r"[\r\n]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

Arg = tuple[str, "str | None"]
"""One argument: (name, value); value is None for a bare flag such as `start`."""


@dataclass(frozen=True)
class Line:
    """A tokenized line: the command word and its arguments in input order."""

    command: str
    args: list[Arg] = field(default_factory=list)

    def value(self, name: str) -> str | None:
        """The value of `name=...` (the last one wins), or None when absent.

        A known valued argument written as a bare flag (`level depth`) is an error rather than
        silently ignored, because the sender clearly meant to say something.
        """
        found: str | None = None
        for arg_name, arg_value in self.args:
            if arg_name != name:
                continue
            if arg_value is None:
                raise ProtocolError(f"{self.command}: {shorten(name)} needs a value")
            found = arg_value
        return found

    def number(self, name: str, kind: type = float) -> float | int | None:
        """The value of `name=...` as a `kind` number; None when it is absent, a bare flag or not
        a number (a reader of another program's lines takes what it can)."""
        try:
            value = self.value(name)
            return None if value is None else kind(value)
        except (ValueError, ProtocolError):
            return None

    def has_value(self, name: str) -> bool:
        """True when `name=...` is among the arguments (a quoted value holding the same text does
        not count)."""
        return any(arg_name == name and arg_value is not None for arg_name, arg_value in self.args)

    def has_flag(self, name: str) -> bool:
        """True when the bare word `name` is among the arguments."""
        return any(arg_name == name and arg_value is None for arg_name, arg_value in self.args)

    def flags(self) -> list[str]:
        """The bare words among the arguments, in input order."""
        return [arg_name for arg_name, arg_value in self.args if arg_value is None]


def tokenize(text: str) -> list[Arg]:
    """Split a line into (name, value) tokens; flags and the command word have value None."""
    tokens: list[Arg] = []
    pos = 0
    end = len(text)
    while True:
        pos = _BLANKS.match(text, pos).end()
        if pos >= end:
            return tokens
        match = _NAME.match(text, pos)
        name = match.group()
        pos = match.end()
        next_char = text[pos] if pos < end else ""
        if next_char == '"':
            raise ProtocolError(f"unexpected quote at column {pos + 1}")
        if next_char != "=":
            tokens.append((name, None))
            continue
        if not name:
            raise ProtocolError(f"'=' with no name at column {pos + 1}")
        pos += 1
        if pos < end and text[pos] == '"':
            close = text.find('"', pos + 1)
            if close < 0:
                raise ProtocolError(f"unclosed quote in the value of {shorten(name)}")
            value = text[pos + 1 : close]
            pos = close + 1
            if pos < end and not text[pos].isspace():
                raise ProtocolError(f"junk after the closing quote of {shorten(name)}")
        else:
            match = _BARE_VALUE.match(text, pos)
            value = match.group()
            pos = match.end()
        tokens.append((name, value))


def parse_line(text: str) -> Line | None:
    """Tokenize a whole input line; None for a blank line (which the protocol ignores)."""
    tokens = tokenize(text)
    if not tokens:
        return None
    command, value = tokens[0]
    if value is not None:
        raise ProtocolError(f"the line starts with {shorten(command)}=..., not a command")
    return Line(command, tokens[1:])


def clean_value(value: str) -> str:
    """Make `value` writable: Hub has no escapes, so `"` becomes `'`, line breaks a space and
    other control characters (NUL, ESC... echoed from bad input) `?`."""
    return _CONTROLS.sub("?", _LINE_BREAKS.sub(" ", value)).replace('"', "'")


def format_value(value: str) -> str:
    """One value as written on a line: quoted when empty or holding a blank, `=` or quote."""
    value = clean_value(value)
    if value == "" or _NEEDS_QUOTES.search(value):
        return f'"{value}"'
    return value


def _check_word(word: str, what: str) -> None:
    if not word or _NEEDS_QUOTES.search(word):
        raise ValueError(f"bad {what} for a Hub line: {word!r}")


def format_line(command: str, fields: list[tuple[str, str]] | None = None, *,
                quoted: frozenset[str] | set[str] = frozenset()) -> str:
    """Write `command name=value ...`; every field gets an `=`, values are quoted when needed.

    Names in `quoted` are always quoted (`pv="..."`, `values="..."`), which readers that split
    on blanks expect even for a single word. Names and the command must be plain words: a bad
    one is a programming error, so it raises ValueError instead of being repaired.
    """
    _check_word(command, "command")
    parts = [command]
    for name, value in fields or []:
        _check_word(name, "field name")
        text = format_value(value)
        if name in quoted and not text.startswith('"'):
            text = f'"{text}"'
        parts.append(f"{name}={text}")
    return " ".join(parts)
