"""`python fake_hub_engine.py`: the Hub session on stdin/stdout with the fake engine.

Used by the pydraughts test, which starts it as a real child process. Logging is set up the
way a CLI would: stderr, warnings and up (pydraughts reads stderr together with stdout).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from loguru import logger  # noqa: E402
from protocol_fakes import FakeEngine  # noqa: E402

from protocol import run  # noqa: E402

if __name__ == "__main__":
    logger.remove()
    logger.add(sys.stderr, level="WARNING", format="{level}: {message}")
    sys.exit(run(FakeEngine()))
