"""The engine behind the Hub session: parameters, root decisions, search threads and the clock."""
from hub_engine.engine.engine import Engine

__all__ = ["Engine"]
