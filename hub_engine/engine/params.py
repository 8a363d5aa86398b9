"""The engine's Hub parameters: their names, ranges, parsing and validation.

`Settings` holds one value per parameter; `specs()` is what the engine announces in its `param`
lines and `set()` what a `set-param` does. A bad value raises ValueError (the session answers it
with `error message="..."`) and leaves the setting as it was; an unknown name is ignored, as the
protocol asks. The endgame tables' two parameters (bb-size, tables-path) are the tables' own
(hub_engine/tables/play.py), the opening book's five (book, book-ply, book-margin,
book-min-height, book-path) the book's (hub_engine/book/play.py).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from loguru import logger

from hub_engine.engine import skill
from hub_engine.learn.weights import EVAL_KINDS
from hub_engine.rules.variants import VARIANTS, Variant, get_variant
from hub_engine.book.play import EngineBook
from hub_engine.tables.play import EngineTables
from protocol import ParamSpec
from protocol.errors import shorten

TT_LOG2_DEFAULT, TT_LOG2_MIN, TT_LOG2_MAX = 22, 12, 28   # 28: 4 GiB
MAX_THREADS = max(1, os.cpu_count() or 1)
NOTATIONS = ("variant", "layout")
MAX_MULTIPV = 64          # the core can leave out at most this many root moves
CONTEMPT_DEFAULT, CONTEMPT_MAX = 0, 100   # centi-men; docs/search.md "Contempt"


def parse_bool(value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"bad bool value {value!r} (true or false)")


def parse_int(name: str, value: str, lo: int, hi: int) -> int:
    """An integer parameter in lo..hi, in ASCII digits (int() also takes other scripts')."""
    text = value.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f"bad value {value!r} for {name}: an integer is expected")
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > len(str(hi)) + 1:         # int() refuses over 4,300 digits
        raise ValueError(f"bad value {shorten(text)} for {name}: must be between {lo} and {hi}")
    n = int(text[0] + digits if text[0] in "+-" else digits)
    if not lo <= n <= hi:
        raise ValueError(f"bad value {n} for {name}: must be between {lo} and {hi}")
    return n


@dataclass
class Settings:
    """The value of every Hub parameter of one engine."""

    variant: Variant = field(default_factory=lambda: get_variant("brazilian"))
    notation: str = "variant"          # move numbers: the variant's own, or the layout order
    tt_log2: int = TT_LOG2_DEFAULT     # tt-size: log2 of the table's entries
    threads: int = 1
    ponder: bool = False
    multipv: int = 1
    skill: int = skill.MAX_SKILL
    eval: str = EVAL_KINDS[0]          # learned (shipped weights) or hand (eval.json)
    contempt: int = CONTEMPT_DEFAULT   # what a draw costs the engine's side, in centi-men
    tables: EngineTables = field(default_factory=EngineTables)   # bb-size, tables-path
    book: EngineBook = field(default_factory=EngineBook)   # book, book-ply, ... (book/play.py)

    def specs(self) -> list[ParamSpec]:
        """The `param` lines, with the current values as defaults."""
        return [
            ParamSpec("variant", "enum", self.variant.name, values=list(VARIANTS)),
            ParamSpec("notation", "enum", self.notation, values=list(NOTATIONS)),
            ParamSpec("tt-size", "int", self.tt_log2, min=TT_LOG2_MIN, max=TT_LOG2_MAX),
            ParamSpec("threads", "int", self.threads, min=1, max=MAX_THREADS),
            ParamSpec("ponder", "bool", self.ponder),
            ParamSpec("multipv", "int", self.multipv, min=1, max=MAX_MULTIPV),
            ParamSpec("skill", "int", self.skill, min=1, max=skill.MAX_SKILL),
            ParamSpec("eval", "enum", self.eval, values=list(EVAL_KINDS)),
            ParamSpec("contempt", "int", self.contempt, min=-CONTEMPT_MAX, max=CONTEMPT_MAX),
            *self.tables.params(self.variant),
            *self.book.params(),
        ]

    def set(self, name: str, value: str) -> None:
        """One `set-param`; ValueError on a bad value, unknown names ignored."""
        name = name.strip().lower()
        if name == "variant":
            self.variant = get_variant(value)
        elif name == "notation":
            if value.strip().lower() not in NOTATIONS:
                raise ValueError(f"bad value {value!r} for notation (variant or layout)")
            self.notation = value.strip().lower()
        elif name == "tt-size":
            self.tt_log2 = parse_int(name, value, TT_LOG2_MIN, TT_LOG2_MAX)
        elif name == "threads":
            self.threads = parse_int(name, value, 1, MAX_THREADS)
        elif name == "ponder":
            self.ponder = parse_bool(value)
        elif name == "multipv":
            self.multipv = parse_int(name, value, 1, MAX_MULTIPV)
        elif name == "skill":
            self.skill = parse_int(name, value, 1, skill.MAX_SKILL)
        elif name == "eval":
            if value.strip().lower() not in EVAL_KINDS:
                raise ValueError(f"bad value {value!r} for eval ({' or '.join(EVAL_KINDS)})")
            self.eval = value.strip().lower()
        elif name == "contempt":
            self.contempt = parse_int(name, value, -CONTEMPT_MAX, CONTEMPT_MAX)
        elif self.tables.set_param(name, value):
            pass
        elif self.book.set_param(name, value, parse_bool, parse_int):
            pass
        else:
            logger.debug("ignoring unknown parameter {}={}", name, value)

    def other_notation(self) -> str:
        """The notation that is not the current one (an old client's moves may need it)."""
        return NOTATIONS[1 - NOTATIONS.index(self.notation)]
