"""The one exception type of the protocol layer.

A `ProtocolError` means "this input line cannot be understood"; the session turns it into a
single `error message="..."` line and keeps serving, so it must never escape as a crash.
"""


class ProtocolError(Exception):
    """A malformed or unknown input line; `message` is what the GUI is told."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def shorten(text: str, limit: int = 40) -> str:
    """Quote input in a message without echoing a 100 kB line back to the GUI."""
    return text if len(text) <= limit else text[:limit] + "..."
