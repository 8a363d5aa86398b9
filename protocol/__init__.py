"""The Hub protocol (Scan's text protocol) for a draughts engine, with no draughts in it.

`run(engine)` serves stdin/stdout for any object that implements `EngineInterface`; the rest is
exported for engines (the data they exchange) and for tests (parsing and formatting).
"""

from protocol.commands import (GO_MODES, Command, Go, GoMode, Hub, Init, Level, NewGame, Ping,
                               PonderHit, Pos, Quit, SetParam, Stop, parse_command)
from protocol.engine import (PARAM_TYPES, EngineInterface, Info, Limits, ParamSpec, ParamType,
                             SearchResult)
from protocol.errors import ProtocolError
from protocol.replies import format_done, format_error, format_id, format_info, format_param
from protocol.session import Session, run
from protocol.tokens import Line, format_line, format_value, parse_line, tokenize

__all__ = [
    "Command", "EngineInterface", "GO_MODES", "Go", "GoMode", "Hub", "Info", "Init", "Level",
    "Limits", "Line", "NewGame", "PARAM_TYPES", "ParamSpec", "ParamType", "Ping", "PonderHit",
    "Pos", "ProtocolError", "Quit", "SearchResult", "Session", "SetParam", "Stop",
    "format_done", "format_error", "format_id", "format_info", "format_line", "format_param",
    "format_value", "parse_command", "parse_line", "run", "tokenize",
]
