"""The compiled core: board, move generation, draw counters, search, transposition table,
evaluations and endgame-table generation and probing.

The `.pxi` files beside `_core.pyx` are compiled into that one extension so that the C compiler
can inline across them; each holds one concern. Python sees only what this package exports.
"""
from hub_engine.core._core import (ENDING_SHAPE, INF, LEARNED_SCALARS, LEARNED_SHAPE, MATE,
                                   CoreBoard, CoreRules, CoreTables, EndingValues, can_capture,
                                   PatternWeights, Searcher, TransTable, eval_weights,
                                   has_capture_either, score_to_hub, tb_plies_left, tb_slice_size,
                                   tb_solve)

__all__ = ["ENDING_SHAPE", "INF", "LEARNED_SCALARS", "LEARNED_SHAPE", "MATE", "CoreBoard",
           "CoreRules", "CoreTables", "EndingValues", "PatternWeights", "Searcher", "TransTable",
           "can_capture", "eval_weights", "has_capture_either", "score_to_hub", "tb_plies_left", "tb_slice_size",
           "tb_solve"]
