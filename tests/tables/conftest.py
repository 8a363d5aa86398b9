"""Fixtures of the tables tests: freshly built small tables, and the tables shipped in the package."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hub_engine.tables.build import build  # noqa: E402
from hub_engine.tables.probe import Tables  # noqa: E402
from hub_engine.tables.slices import RULESETS  # noqa: E402
from hub_engine.tables.store import packaged_dir  # noqa: E402


@pytest.fixture(scope="session")
def small_dir(tmp_path_factory) -> Path:
    """Every rule-set built up to 3 pieces by the generator under test."""
    root = tmp_path_factory.mktemp("tables3")
    for rs in RULESETS:
        build(rs, 3, root, progress=False, workers=1)
    return root


@pytest.fixture(scope="session")
def shipped() -> dict[str, Tables]:
    """The tables of up to 4 pieces that ship with the package."""
    return {rs: Tables(rs, [packaged_dir()]) for rs in RULESETS}
