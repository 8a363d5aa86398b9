"""How to start this very program again (the default engine of `match` and `latency`)."""
from __future__ import annotations

import os
import sys


def self_command() -> list[str]:
    """The command line that runs the program now running: the one-file executable, the
    `hub-engine` console script, or this interpreter with `-m hub_engine`.

    Never a bare `python3` from PATH: outside an activated environment that is another
    interpreter, which may lack the engine's dependencies.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "hub-engine" and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    return [sys.executable, "-m", "hub_engine"]
