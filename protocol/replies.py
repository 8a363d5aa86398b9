"""Engine -> GUI lines: `id`, `param`, `info`, `done`, `error`.

Field order and number formats are fixed by the clients: lidraughts reads `info` fields by
position, pydraughts reads `done` by position and splits `id`/`param`/`info` fields on `=`, so
those lines never carry a field without `=` nor an `=` inside a value.
"""

from __future__ import annotations

import math

from protocol.engine import Info, ParamSpec, SearchResult, value_text
from protocol.errors import clip_echoes
from protocol.tokens import format_line

IDENTITY_KEYS = ("name", "version", "author", "country")


def _plain(value: str) -> str:
    """A value for a line that pydraughts splits on `=`: any `=` becomes `-`."""
    return value.replace("=", "-")


def format_id(identity: dict[str, str]) -> str:
    """`id name=... version=... author=... country=...`, then any other keys in dict order."""
    keys = [key for key in IDENTITY_KEYS if key in identity]
    keys += [key for key in identity if key not in IDENTITY_KEYS]
    return format_line("id", [(key, _plain(str(identity[key]))) for key in keys])


def format_param(spec: ParamSpec) -> str:
    """`param name=N value=V type=T [min=A] [max=B] [values="a b c"]`."""
    fields = [("name", spec.name), ("value", _plain(value_text(spec.value))), ("type", spec.type)]
    if spec.min is not None:
        fields.append(("min", value_text(spec.min)))
    if spec.max is not None:
        fields.append(("max", value_text(spec.max)))
    if spec.values is not None:
        fields.append(("values", " ".join(spec.values)))
    return format_line("param", fields, quoted={"values"})


def _number(value: float, decimals: int) -> str:
    """Fixed decimals, never `-0.00`, never `nan`/`inf` (which no client can read)."""
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {value}")
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_info(info: Info) -> str:
    """`info depth= mean-depth= score= nodes= time= nps= pv="..." [multipv=]` in this order.

    score 2 decimals, mean-depth 2 decimals, time 3 decimals, nps in millions with 1 decimal;
    a None field (or an empty pv) is left out.
    """
    fields: list[tuple[str, str]] = []
    if info.depth is not None:
        fields.append(("depth", str(int(info.depth))))
    if info.mean_depth is not None:
        fields.append(("mean-depth", _number(info.mean_depth, 2)))
    if info.score is not None:
        fields.append(("score", _number(info.score, 2)))
    if info.nodes is not None:
        fields.append(("nodes", str(int(info.nodes))))
    if info.time is not None:
        fields.append(("time", _number(info.time, 3)))
    if info.nps is not None:
        fields.append(("nps", _number(info.nps / 1e6, 1)))
    if info.pv:
        fields.append(("pv", _plain(" ".join(info.pv))))
    if info.multipv is not None:
        fields.append(("multipv", str(int(info.multipv))))    # after pv: lidraughts reads by place
    return format_line("info", fields, quoted={"pv"})


def format_done(result: SearchResult) -> str:
    """`done move=M [ponder=P]`, move first; `move=""` when there is no move."""
    fields = [("move", result.move or "")]
    if result.move and result.ponder:
        fields.append(("ponder", result.ponder))
    return format_line("done", fields)


def format_error(message: str) -> str:
    """`error message="..."`, always quoted; a `"` in the message becomes `'`; long echoes of
    the input are shortened (errors.clip_echoes), whichever layer wrote the message."""
    return format_line("error", [("message", clip_echoes(message))], quoted={"message"})
