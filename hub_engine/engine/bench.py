"""Search benchmark: fixed positions searched to a fixed depth; the node count is a signature.

    >>> from hub_engine.engine.bench import run_bench
    >>> run_bench(depth=12)["nodes"]

With threads=1 the node count is deterministic: it changes only when the search or evaluation
behaves differently (as Stockfish's `bench`). Each position gets a fresh transposition table and
fresh searchers; iterative deepening runs from depth 1 with a full window. With threads > 1,
lazy-SMP helpers search the same root on the shared table while the main searcher deepens, and the
total nodes of all threads are reported (not deterministic).
"""
from __future__ import annotations

import functools
import threading
import time

from hub_engine.core import INF, Searcher, TransTable
from hub_engine.engine import switches
from hub_engine.learn.weights import EVAL_KINDS, evaluation
from hub_engine.rules.position import Position
from hub_engine.rules.variants import get_variant

DEFAULT_DEPTH = 14
TT_LOG2 = 20

# (variant, Hub position string or "start"): start positions, positions after random openings
# (12 and 30 plies) and a king ending per family.
POSITIONS: list[tuple[str, str]] = [
    ("brazilian", "start"),
    ("brazilian", "Webbbbebbbebbbweeweeweweewwewwwww"),
    ("brazilian", "Wbebbbebebebeeeebeeeeewewweewewee"),
    ("russian", "start"),
    ("russian", "Wbbbbebebbbewbebbweewewwwwweewwww"),
    ("russian", "Webebebeebbbeweeeeeeeeeewwweweewe"),
    ("russian", "WeeeeeeeeeeeeeBeeeeWeeeeeeeeWeeee"),
    ("portuguese", "start"),
    ("portuguese", "Wbbbbbbbebeeeebbeweeewwwwewewweww"),
    ("spanish", "WbbbbbbbbebeeeeeeeeeeewwewweewwBw"),
    ("spanish", "WeebbeeebWebeeeeeeewewbwwweeeeewe"),
    ("italian", "start"),
    ("italian", "Wbbbbbebbebbebeeewbeewwwweewwewww"),
    ("italian", "Wbebeebweweebeeeeeeeweeeeweweewew"),
    ("english", "start"),
    ("english", "Wbbbbbebbeeebeeweebeeeweewewwwwww"),
    ("english", "WbebbeebeeeebwbeeeebeweeewweeweBe"),
    ("english", "WeeeeeeBeeeeeeeeeeeeeWeeeeeeWeeee"),
]


def _position(variant: str, text: str) -> Position:
    return Position.start(variant) if text == "start" else Position.from_hub(variant, text)


def _helper_loop(searcher: Searcher, board, depth: int, counters: tuple, done: threading.Event,
                 totals: list, slot: int) -> None:
    d = 1
    while not done.is_set():
        r = searcher.iterate(board, min(d, depth + 2), -INF, INF, [], counters, 0.0, 0, True)
        totals[slot] += r[2]
        if not r[3]:
            return
        d += 1


@functools.lru_cache(maxsize=None)
def _tables(variant: str, tables_path: str | None, bb_size: int):
    """The compiled tables of a variant, opened once per bench run, not once per position."""
    from hub_engine.tables import open_tables

    return open_tables(variant, tables_path, max_pieces=bb_size).core


def search_position(variant: str, text: str, depth: int, threads: int = 1,
                    tt_log2: int = TT_LOG2, eval: str = EVAL_KINDS[0], bb_size: int = 0,
                    tables_path: str | None = None) -> dict:
    """Iterative deepening to `depth` on one position; nodes of all threads, seconds, best move.

    bb_size > 0 probes the endgame tables (tables_path or the default places) up to that many
    pieces; the default 0 keeps the node signature of a search without tables."""
    v = get_variant(variant)
    board = _position(v, text).board
    counters = board.initial_counters()
    tt = TransTable(tt_log2)
    weights = evaluation(v.name, eval)
    main = Searcher(v.core_rules, tt, weights)
    helpers = [Searcher(v.core_rules, tt, weights) for _ in range(threads - 1)]
    problems = switches.apply([main, *helpers])
    if problems:
        raise ValueError("; ".join(problems))
    if bb_size:
        core = _tables(v.name, tables_path, bb_size)
        for s in [main, *helpers]:
            s.set_tables(core, bb_size)
    totals = [0] * len(helpers)
    done = threading.Event()
    workers = [threading.Thread(target=_helper_loop, args=(h, board, depth, counters, done, totals, i),
                                daemon=True) for i, h in enumerate(helpers)]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    nodes = 0
    result = None
    for d in range(1, depth + 1):
        result = main.iterate(board, d, -INF, INF, [], counters, 0.0, 0)
        nodes += result[2]
    done.set()
    for h in helpers:
        h.stop()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - t0
    score, pv = result[0], result[1]
    return {"variant": variant, "position": text, "nodes": nodes + sum(totals),
            "main_nodes": nodes, "seconds": seconds, "score": score,
            "best": pv[0] if pv else None}


def game_positions(path: str, variant: str, every: int = 1, limit: int = 0) -> list[tuple[str, str]]:
    """(variant, Hub position) of every `every`-th position of the games of a PDN file at which a
    move was played (the end of a game has nothing to search), at most `limit` (0: all).

    Game positions search more slowly than the fixed ones (kings, table probes): this is how
    the nodes per second of real games are measured on their own positions. ValueError for a
    file with no game position."""
    from hub_engine.rules.pdn import read_pdn_file

    games = read_pdn_file(path, variant)
    found = [(game.variant.name if game.variant else variant, pos.hub())
             for game in games for _ply, pos, move in game.positions() if move is not None]
    found = found[::every][:limit or None]
    if not found:
        raise ValueError(f"{path}: no game position to search (a PDN file of {variant} games)")
    return found


def run_bench(depth: int = DEFAULT_DEPTH, threads: int = 1, eval: str = EVAL_KINDS[0],
              bb_size: int = 0, tables_path: str | None = None,
              positions: list[tuple[str, str]] | None = None) -> dict:
    """Search every bench position (or `positions`) to `depth`; total nodes, seconds, nps and
    per-position rows. eval: the evaluation (learned or hand), as the engine's `eval`
    parameter; bb_size and tables_path: endgame tables (0: off)."""
    rows = [search_position(var, text, depth, threads, eval=eval, bb_size=bb_size,
                            tables_path=tables_path) for var, text in positions or POSITIONS]
    nodes = sum(r["nodes"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    return {"depth": depth, "threads": threads, "nodes": nodes, "seconds": seconds,
            "nps": nodes / seconds if seconds > 0 else 0.0, "positions": rows}


def main(depth: int = DEFAULT_DEPTH, threads: int = 1, eval: str = EVAL_KINDS[0],
         bb_size: int = 0, tables_path: str | None = None,
         positions: list[tuple[str, str]] | None = None) -> dict:
    """Print one line per position, then `nodes=<N> time=<s> nps=<n>`."""
    res = run_bench(depth, threads, eval, bb_size, tables_path, positions)
    for r in res["positions"]:
        nps = r["nodes"] / r["seconds"] if r["seconds"] > 0 else 0
        print(f"{r['variant']:<10} {r['position']:<33} nodes={r['nodes']} "
              f"time={r['seconds']:.3f} nps={nps:.0f} score={r['score']}")
    print(f"nodes={res['nodes']} time={res['seconds']:.3f} nps={res['nps']:.0f}")
    return res


if __name__ == "__main__":
    import sys
    main(*(int(a) for a in sys.argv[1:3]))
