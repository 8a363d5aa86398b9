"""How the tests start programs: as a user's client would, never through the base interpreter.

pydraughts (and so lidraughts-bot) resolves the first word of an engine command with
`os.path.realpath()`. A virtual environment's `python` is a symlink to the base interpreter, so
`[sys.executable, "-m", "hub_engine"]` given to pydraughts runs the base Python, which lacks the
project's dependencies. The tests therefore start the engine through the environment's own
console script (or HUB_ENGINE_EXE, the one-file executable), and other Python programs through a
small launcher file that is not a symlink.
"""
from __future__ import annotations

import os
import stat
import sys
import sysconfig
from pathlib import Path


def engine_command() -> list[str]:
    """The engine as a client starts it: HUB_ENGINE_EXE if set, else this environment's
    `hub-engine` console script (installed by `pip install -e .`)."""
    exe = os.environ.get("HUB_ENGINE_EXE")
    if exe:
        return [exe]
    script = Path(sysconfig.get_path("scripts")) / "hub-engine"
    if not script.exists():
        raise RuntimeError(f"{script} is missing: install the project into this environment "
                           "with `pip install -e '.[test]'`")
    return [str(script)]


def python_launcher(directory: Path) -> Path:
    """A shell script in `directory` that runs this environment's interpreter with its
    arguments; unlike the interpreter's own path it survives `realpath()`."""
    path = directory / "python-launcher"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def default_sigint() -> None:
    """preexec_fn for a child a test will stop with Ctrl-C (SIGINT), as a terminal does: a
    runner started in the background (`cmd &`, as CI may be) passes SIGINT on as ignored, and
    a program then rightly leaves it ignored, so restore the default in the child first."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
