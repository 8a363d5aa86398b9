"""Search switches for experiments, from the environment variable HUB_ENGINE_SEARCH.

The compiled Searcher has public switches that turn parts of the search on or off (docs/search.md,
"Switches for experiments"). No Hub parameter reaches them: they are for measuring one build
against itself, e.g. `hub-engine match --engine1 "env HUB_ENGINE_SEARCH=root_order=0 hub-engine"`,
so a measurement needs no second build. The value is `name=int[,name=int...]`.
"""
from __future__ import annotations

import os

from hub_engine.core import Searcher

ENV = "HUB_ENGINE_SEARCH"
SWITCHES = ("lmr", "qs_threat", "single_ext", "probcut", "eval_cache", "root_order", "age",
            "counter_key", "tb_draw")


def parse(text: str) -> tuple[dict[str, int], list[str]]:
    """The switches a HUB_ENGINE_SEARCH value sets, and a message for each part it cannot use."""
    wanted: dict[str, int] = {}
    problems: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, eq, value = part.partition("=")
        name = name.strip()
        if name not in SWITCHES:
            problems.append(f"{ENV}: unknown switch {name!r} (known: {', '.join(SWITCHES)})")
            continue
        try:
            number = int(value.strip()) if eq else None
        except ValueError:
            number = None
        if number is None or not 0 <= number <= 8:
            problems.append(f"{ENV}: {name} needs an integer 0..8, got {value.strip()!r}")
            continue
        wanted[name] = number
    return wanted, problems


def apply(searchers: list[Searcher], environ: dict[str, str] | None = None) -> list[str]:
    """Set the environment's switches on every searcher; the problems found (parts ignored)."""
    text = (os.environ if environ is None else environ).get(ENV, "")
    wanted, problems = parse(text)
    for s in searchers:
        for name, value in wanted.items():
            setattr(s, name, value)
    return problems
