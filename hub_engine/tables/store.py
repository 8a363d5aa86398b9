"""Where tables live: --dir, the Hub parameter tables-path, $HUB_ENGINE_TABLES, or the per-user data
directory that platformdirs chooses (e.g. ~/.local/share/hub-engine/tables on Linux).

Inside it, one folder per rule-set: wld/<slice>.tb (win/draw/loss), dtc/<slice>.tb (distances of
kings-only slices), work/<slice>.tb (full 2-bit tables the build reads; kept up to 5 pieces) and
build.json (what each build did and how long it took).
"""
from __future__ import annotations

import os
from pathlib import Path

from hub_engine.tables.slices import Material

ENV_VAR = "HUB_ENGINE_TABLES"


def default_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("hub-engine", appauthor=False)) / "tables"


def tables_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The tables directory: explicit (--dir, tables-path), else $HUB_ENGINE_TABLES, else default."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return default_dir()


def packaged_dir() -> Path:
    """Tables shipped inside the package (small slices), read when the data directory lacks them."""
    return Path(__file__).resolve().parent / "data"


def slice_path(root: Path, ruleset: str, kind: str, m: Material) -> Path:
    return Path(root) / ruleset / kind / f"{m.name}.tb"
