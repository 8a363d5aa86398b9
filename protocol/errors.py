"""The one exception type of the protocol layer, and how input is quoted back in messages.

A `ProtocolError` means "this input line cannot be understood"; the session turns it into a
single `error message="..."` line and keeps serving, so it must never escape as a crash.
"""

from __future__ import annotations

import re

WORD_LIMIT = 40
"""Characters of one echoed word (a move, a value) kept in a message."""

MESSAGE_LIMIT = 200
"""Characters of a whole `error` message kept: a message quoting many words stays one short line."""

_LONG_WORD = re.compile(r"\S{%d,}" % (WORD_LIMIT + 1))


class ProtocolError(Exception):
    """A malformed or unknown input line; `message` is what the GUI is told."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def shorten(text: str, limit: int = WORD_LIMIT) -> str:
    """Quote input in a message without echoing a 100 kB line back to the GUI."""
    return text if len(text) <= limit else text[:limit] + "..."


def clip_echoes(message: str) -> str:
    """A message fit for the GUI whoever wrote it: every word longer than WORD_LIMIT (an echoed
    move or value, as engines' own messages quote them in full) is shortened, then the whole."""
    return shorten(_LONG_WORD.sub(lambda m: shorten(m.group()), message), MESSAGE_LIMIT)
