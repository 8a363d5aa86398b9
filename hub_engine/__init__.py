"""hub-engine: a draughts engine for the 8x8 variants that speaks the Hub protocol."""
from hub_engine.rules.notation import NotationError
from hub_engine.rules.position import Game, IllegalMoveError, Move, Position
from hub_engine.rules.variants import VARIANTS, Variant, get_variant

__version__ = "0.1.0"
__all__ = ["Game", "IllegalMoveError", "Move", "NotationError", "Position", "VARIANTS", "Variant",
           "get_variant", "__version__"]
