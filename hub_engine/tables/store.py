"""Where tables live: --dir, the Hub parameter tables-path, $HUB_ENGINE_TABLES, or the per-user data
directory that platformdirs chooses (e.g. ~/.local/share/hub-engine/tables on Linux).

Inside it, one folder per rule-set: wld/<slice>.tb (win/draw/loss), dtc/<slice>.tb (distances of
kings-only slices), work/<slice>.tb (full 2-bit tables the build reads; kept up to 5 pieces) and
build.json (what each build did and how long it took).
"""
from __future__ import annotations

import os
from pathlib import Path

from hub_engine.datafiles import chosen_dir, user_dir
from hub_engine.tables import fileformat as ff
from hub_engine.tables.slices import Material, ruleset_variant

ENV_VAR = "HUB_ENGINE_TABLES"


def default_dir() -> Path:
    return user_dir("tables")


def tables_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The tables directory: explicit (--dir, tables-path), else $HUB_ENGINE_TABLES, else default."""
    return chosen_dir(explicit, ENV_VAR, "tables")


def packaged_dir() -> Path:
    """Tables shipped inside the package (small slices), read when the data directory lacks them."""
    return Path(__file__).resolve().parent / "data"


def slice_path(root: Path, ruleset: str, kind: str, m: Material) -> Path:
    return Path(root) / ruleset / kind / f"{m.name}.tb"


def fingerprints(ruleset: str) -> dict[int, int]:
    rules = ruleset_variant(ruleset).core_rules.as_dict()
    return {k: ff.rules_fingerprint(rules, k) for k in (ff.KIND_WLD, ff.KIND_RAW, ff.KIND_DTC)}


def _kind_dir(kind: int) -> str:
    return {ff.KIND_WLD: "wld", ff.KIND_RAW: "work", ff.KIND_DTC: "dtc"}[kind]


def read_slice(root: Path, ruleset: str, kind: int, m: Material) -> ff.TableFile:
    """A checked table file of slice m (TableFileError when absent or damaged)."""
    return ff.read_table(slice_path(root, ruleset, _kind_dir(kind), m), kind=kind, ruleset=ruleset,
                         material=m, fingerprint=fingerprints(ruleset)[kind], size=m.size)
