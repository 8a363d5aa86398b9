"""Make the client environments the tests drive the engine with; safe to run again.

    python tests/client_envs.py            # from the repository root, in the project's venv

Each client lives in its own virtual environment at the repository root, because two of them
import as `draughts`:
- `.venv-lidraughts-bot`: pydraughts 0.5.7 and PyYAML, what lidraughts-bot pins (its
  requirements.txt), to play games through the README's lidraughts-bot set-up;
- `.venv-py-draughts`: py-draughts, an independent engine and rules library for russian and
  brazilian, the strength tests' opponent.
The tests find them there (or where LIDRAUGHTS_BOT_PYTHON / PY_DRAUGHTS_PYTHON point) and say,
when one is missing, that this script makes it.
"""
from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVS: dict[str, list[str]] = {
    ".venv-lidraughts-bot": ["pydraughts==0.5.7", "PyYAML>=5.4.1"],
    ".venv-py-draughts": ["py-draughts"],
}
SETUP_HINT = "python tests/client_envs.py"


def python_of(name: str) -> Path:
    """The interpreter of client environment `name` (not resolved: it is a venv's symlink)."""
    return ROOT / name / "bin" / "python"


def make(name: str, packages: list[str]) -> None:
    python = python_of(name)
    if not python.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(ROOT / name)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)


def main() -> int:
    for name, packages in ENVS.items():
        print(f"{name}: {' '.join(packages)}", flush=True)
        make(name, packages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
