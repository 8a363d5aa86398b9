"""lidraughts-bot's set-up, copied from the README, plays russian and brazilian as both colours.

The client runs in its own environment with pydraughts 0.5.7 (what lidraughts-bot pins), which
numbers russian and brazilian moves in the Hub layout order; see lidraughts_bot_game.py for what
is reproduced of lidraughts-bot. The `engine:` section is read from the README itself, so that
the documented set-up and the tested one cannot drift apart; only `dir` and `name` are pointed
at the engine under test.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from client_envs import SETUP_HINT, python_of
from launchers import engine_command

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CLIENT = Path(os.environ.get("LIDRAUGHTS_BOT_PYTHON") or python_of(".venv-lidraughts-bot"))

pytestmark = pytest.mark.skipif(
    not CLIENT.exists(), reason=f"no lidraughts-bot client environment at {CLIENT}: run "
                                f"`{SETUP_HINT}` (or set LIDRAUGHTS_BOT_PYTHON)")


def readme_config() -> str:
    """The YAML block of the README's lidraughts-bot section."""
    text = (ROOT / "README.md").read_text()
    section = text.split("**lidraughts-bot**", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "the README's lidraughts-bot section has no yaml block"
    return block.group(1)


def config_for_engine(tmp_path: Path) -> Path:
    engine = Path(engine_command()[0])
    text = readme_config()
    text, n_dir = re.subn(r'(?m)^(\s*dir:\s*)"[^"]*"', rf'\g<1>"{engine.parent}/"', text)
    text, n_name = re.subn(r'(?m)^(\s*name:\s*)"[^"]*"', rf'\g<1>"{engine.name}"', text)
    assert n_dir == 1 and n_name == 1, text
    path = tmp_path / "config.yml"
    path.write_text(text)
    return path


def test_readme_config_uses_lidraughts_bot_keys():
    import yaml  # lidraughts-bot reads its config with PyYAML

    config = yaml.safe_load(readme_config())
    engine = config["engine"]
    assert engine["protocol"] == "hub"
    assert engine["engine_argument"] == "hub"       # lidraughts-bot's create_engine reads it
    assert engine["name"] and engine["dir"]
    assert set(config["challenge"]["variants"]) <= {"russian", "brazilian", "standard"}


@pytest.mark.parametrize("variant", ["russian", "brazilian"])
@pytest.mark.parametrize("colour", ["white", "black"])
def test_lidraughts_bot_plays_with_the_readme_config(tmp_path, variant, colour):
    config = config_for_engine(tmp_path)
    seed = 7 if colour == "white" else 11
    # a plain environment: the bot runs the engine by the path in its config, nothing else
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "HUB_ENGINE_LOG_LEVEL")}
    r = subprocess.run([str(CLIENT), str(HERE / "lidraughts_bot_game.py"), str(config), variant,
                        colour, str(seed)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=240, env=env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert "error" not in report, f"{report.get('error')} after moves {report['moves']}"
    assert report["warnings"] == [], report["warnings"]     # every engine line was protocol
    assert report["engine_name"] == "hub-engine"
    assert len(report["bot_moves"]) >= 8 or len(report["moves"]) >= 10, report
    assert report["ponder_hits"] >= 1 and report["ponder_stops"] >= 1, report
    assert report["exit_code"] == 0
