"""`python -m hub_engine.analysis FILE ...`: the same as `hub-engine analyse FILE ...`."""
import sys

from hub_engine.analysis.cli import main

sys.exit(main())
