import sys
from hub_engine.cli import main
sys.exit(main())
