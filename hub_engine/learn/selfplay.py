"""Self-play for training data: `hub-engine learn selfplay --variant V --games N --out DIR`.

Games are played in-process by the compiled Searcher (no Hub pipes) at a small node budget:
a random opening of a few plies (re-drawn when a search finds it unbalanced), then now and then in
the early plies a random move among those that a shallow search scores near the best, then the
search's best move. Our rules (hub_engine.Game) end the game: no legal move loses, the draw rules
draw, a game longer than max_plies is drawn, and a proven win (a mate score) or an endgame table's
value ends it early.

Every quiet position (neither side can capture) from the end of the opening on is written with
the game's result (hub_engine.learn.records). Work is cut into shards of `shard_games` games:
DIR/<variant>-<shard>.bin holds the records, DIR/<variant>-<shard>.json (written last) says the
shard is complete, so a restarted run skips finished shards. Each game's randomness comes from
(seed, variant, game number) alone, so a shard is the same whichever worker plays it.

Workers: a local process pool (both cores by default) or a Dask cluster (`scheduler`): a worker
returns the shard's bytes and the caller writes them, so workers need no shared disk.
"""
from __future__ import annotations

import json
import os
import random
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator

from hub_engine.datafiles import write_atomically
from hub_engine.learn.records import SOURCE_GAME, SOURCE_TABLE, Record, squares_mask
from hub_engine.learn.tables_hook import TableProbe, table_probe
from hub_engine.lifetime import exit_with_parent

SETTINGS_FILE = "selfplay.json"
TABLE_SCORE = 2000            # the score recorded for a table win (side to move's view)
FORMAT = 1
CLUSTER_HINT = "pip install 'hub-engine[cluster]'"


@dataclass(frozen=True)
class SelfPlayConfig:
    """Everything that decides the games (stored in DIR/selfplay.json; a run must match it)."""

    variant: str
    nodes: int = 10000             # node budget per move (jittered by +-25% per move)
    opening_min: int = 4           # random plies at the start
    opening_max: int = 8
    opening_max_score: int = 60    # re-draw an opening a search scores beyond this (man = 100)
    random_plies: int = 20         # up to this ply, a move is sometimes a random near-best one
    epsilon: float = 0.1           # ... with this probability
    margin: int = 30               # ... among moves a shallow search scores this close to the best
    max_plies: int = 300
    eval: str = "hand"             # the evaluation playing: hand, learned or a weight file
    seed: int = 1
    shard_games: int = 200

    def tag(self) -> dict:
        return {"format": FORMAT, **asdict(self)}


# --- one game ------------------------------------------------------------------------------------

class Player:
    """A searcher and table for one variant and evaluation, reused across games of a worker."""

    def __init__(self, cfg: SelfPlayConfig, tt_log2: int = 18):
        from hub_engine.core import Searcher, TransTable
        from hub_engine.learn.weights import evaluation
        from hub_engine.rules.variants import get_variant

        self.variant = get_variant(cfg.variant)
        self.tt = TransTable(tt_log2)
        self.searcher = Searcher(self.variant.core_rules, self.tt, evaluation(cfg.variant, cfg.eval))

    def new_game(self) -> None:
        self.tt.clear()
        self.searcher.clear_heuristics()

    def think(self, game, nodes: int, max_depth: int = 99) -> tuple[int, tuple | None, bool]:
        """(score, best move as a pv tuple, proven) after iterative deepening to a node budget."""
        from hub_engine.core import INF, MATE

        board = game.position.board
        history = game.history_hashes()[:-1]
        counters = game.counters
        self.tt.new_search()
        used, score, best = 0, 0, None
        for depth in range(1, max_depth + 1):
            s, pv, n, completed, _mean, _sel = self.searcher.iterate(
                board, depth, -INF, INF, history, counters, 0.0, max(1, nodes - used))
            used += n
            if pv:
                score, best = s, pv[0]
            if not completed or used >= nodes:
                break
            if abs(s) >= MATE - 1000:
                return score, best, True
        return score, best, False


def _legal(game, pv_move: tuple):
    frm, to, captured, promote = pv_move
    for m in game.legal_moves():
        if m.frm == frm and m.to == to and m.captured == tuple(sorted(captured)) \
                and m.promote == bool(promote):
            return m
    raise RuntimeError(f"the search returned an illegal move {pv_move}")


def is_quiet(board) -> bool:
    """Neither side can capture (the side to move, nor the other if it were to move)."""
    from hub_engine.core import has_capture_either

    return not has_capture_either(board)


def _near_best(player: Player, game, rng: random.Random, margin: int, depth: int = 4):
    """A random move among those a shallow search scores within margin of the best."""
    from hub_engine.core import INF

    scored = []
    for m in game.legal_moves():
        game.play(m)
        s, _pv, _n, _c, _m, _sel = player.searcher.iterate(
            game.position.board, depth, -INF, INF, game.history_hashes()[:-1], game.counters,
            0.0, 0)
        game.undo()
        scored.append((-s, m))
    best = max(s for s, _m in scored)
    return rng.choice([m for s, m in scored if s >= best - margin])


def _opening(player: Player, cfg: SelfPlayConfig, rng: random.Random):
    """A Game after a random opening that a search finds balanced (the last try if none is)."""
    from hub_engine.rules.position import Game

    game = None
    for _try in range(20):
        game = Game(player.variant)
        for _ in range(rng.randint(cfg.opening_min, cfg.opening_max)):
            moves = game.legal_moves()
            if not moves or game.draw_reason():
                break
            game.play(rng.choice(moves))
        if not game.legal_moves():
            continue
        player.new_game()
        score, _best, _proven = player.think(game, cfg.nodes)
        if abs(score) <= cfg.opening_max_score:
            return game
    return game


def play_game(player: Player, cfg: SelfPlayConfig, game_no: int,
              probe: TableProbe | None = None) -> tuple[list[Record], int, int]:
    """One game: (records, result for side 0 in {1, 0, -1}, plies)."""
    rng = random.Random(f"{cfg.seed}:{cfg.variant}:{game_no}")
    game = _opening(player, cfg, rng)
    player.new_game()
    rows: list[tuple] = []        # (board, score, ply, source)
    result = None
    while result is None:
        pos = game.position
        ply = len(game.moves)
        stm = pos.side
        if not game.legal_moves():
            result = -1 if stm == 0 else 1
            break
        if game.draw_reason() or ply >= cfg.max_plies:
            result = 0
            break
        exact = probe(pos.board) if probe is not None else None
        if exact is not None:
            result = exact if stm == 0 else -exact
            if is_quiet(pos.board):
                rows.append((pos.board, TABLE_SCORE * exact, ply, SOURCE_TABLE))
            break
        nodes = max(200, int(cfg.nodes * rng.uniform(0.75, 1.25)))
        score, best, proven = player.think(game, nodes)
        if is_quiet(pos.board):
            rows.append((pos.board, score, ply, SOURCE_GAME))
        if proven:
            result = (1 if score > 0 else -1) * (1 if stm == 0 else -1)
            break
        if ply < cfg.random_plies and rng.random() < cfg.epsilon:
            move = _near_best(player, game, rng, cfg.margin)
        else:
            move = _legal(game, best)
        game.play(move)
    records = []
    for board, score, ply, source in rows:
        m0, k0, m1, k1 = board.pieces()
        records.append(Record(squares_mask(m0 + k0), squares_mask(m1 + k1), squares_mask(k0 + k1),
                              game_no, score, ply, board.side, result, source))
    return records, result, len(game.moves)


# --- shards ----------------------------------------------------------------------------------------

_PLAYERS: dict[tuple, Player] = {}


def play_shard(cfg: SelfPlayConfig, shard: int) -> tuple[bytes, dict]:
    """Play one shard's games in this process: (record bytes, metadata)."""
    key = (cfg.variant, cfg.eval)
    if key not in _PLAYERS:
        _PLAYERS[key] = Player(cfg)
    player = _PLAYERS[key]
    probe = table_probe(cfg.variant)
    t0 = time.perf_counter()
    out = bytearray()
    results = {"1": 0, "0": 0, "-1": 0}
    positions = plies = 0
    for g in range(shard * cfg.shard_games, (shard + 1) * cfg.shard_games):
        records, result, n = play_game(player, cfg, g, probe)
        for r in records:
            out += r.pack()
        positions += len(records)
        plies += n
        results[str(result)] += 1
    meta = {"shard": shard, "games": cfg.shard_games, "positions": positions, "plies": plies,
            "results": results, "seconds": round(time.perf_counter() - t0, 2),
            "settings": cfg.tag()}
    return bytes(out), meta


def shard_paths(out: Path, variant: str, shard: int) -> tuple[Path, Path]:
    stem = out / f"{variant}-{shard:05d}"
    return stem.with_suffix(".bin"), stem.with_suffix(".json")


def _check_settings(out: Path, cfg: SelfPlayConfig) -> None:
    """DIR/selfplay.json records the settings; a run with other settings is refused."""
    path = out / SETTINGS_FILE
    tags = json.loads(path.read_text()) if path.exists() else {}
    mine, old = cfg.tag(), tags.get(cfg.variant)
    if old is not None and old != mine:
        diff = sorted(k for k in set(old) | set(mine) if old.get(k) != mine.get(k))
        raise ValueError(f"{out} holds {cfg.variant} self-play made with other settings "
                         f"({', '.join(diff)}); use another --out directory")
    tags[cfg.variant] = cfg.tag()
    write_atomically(path, json.dumps(tags, indent=1, sort_keys=True).encode())


def save_shard(out: Path, variant: str, data: bytes, meta: dict) -> None:
    """Write the records, then the metadata that marks the shard complete (both atomically)."""
    bin_path, meta_path = shard_paths(out, variant, meta["shard"])
    for path, payload in ((bin_path, data), (meta_path, json.dumps(meta).encode())):
        write_atomically(path, payload)


def done_shards(out: Path, variant: str) -> set[int]:
    found = set()
    for p in out.glob(f"{variant}-*.json"):
        try:
            found.add(int(p.stem.rsplit("-", 1)[1]))
        except ValueError:
            continue
    return {s for s in found if shard_paths(out, variant, s)[0].exists()}


def _run_pool(cfg: SelfPlayConfig, shards: list[int], workers: int) -> Iterator[tuple[bytes, dict]]:
    if workers <= 1:
        for s in shards:
            yield play_shard(cfg, s)
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=exit_with_parent)
    pending = iter(shards)
    inflight: set = set()
    try:
        def fill() -> None:
            while len(inflight) < workers:
                s = next(pending, None)
                if s is None:
                    return
                inflight.add(pool.submit(play_shard, cfg, s))

        fill()
        while inflight:
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            for f in done:
                inflight.discard(f)
                yield f.result()
            fill()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(cfg: SelfPlayConfig, shards: list[int], scheduler) -> Iterator[tuple[bytes, dict]]:
    try:
        import distributed
    except ImportError:
        raise RuntimeError(f"a Dask scheduler needs dask.distributed: {CLUSTER_HINT}") from None
    if isinstance(scheduler, str):
        try:
            client = distributed.Client(scheduler)
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    else:
        client = scheduler
    futures = [client.submit(play_shard, cfg, s, pure=False) for s in shards]
    for f in distributed.as_completed(futures):
        yield f.result()
        f.release()


def selfplay(cfg: SelfPlayConfig, games: int, out, workers: int | None = None, scheduler=None,
             progress: Callable[[str], None] | None = None) -> dict:
    """Play until DIR holds `games` games (rounded up to whole shards); returns a summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_settings(out, cfg)
    wanted = list(range(-(-games // cfg.shard_games)))
    done = done_shards(out, cfg.variant)
    todo = [s for s in wanted if s not in done]
    workers = workers or os.cpu_count() or 1
    t0 = time.perf_counter()
    stream = (_run_dask(cfg, todo, scheduler) if scheduler is not None
              else _run_pool(cfg, todo, workers))
    played = positions = 0
    for data, meta in stream:
        save_shard(out, cfg.variant, data, meta)
        played += meta["games"]
        positions += meta["positions"]
        if progress:
            elapsed = time.perf_counter() - t0
            progress(f"{cfg.variant} shard {meta['shard']}: {meta['games']} games, "
                     f"{meta['positions']} positions, {meta['seconds']:.0f} s "
                     f"({played} games this run, {played / elapsed * 3600:.0f} games/h)")
    return {"variant": cfg.variant, "shards": len(wanted), "skipped": len(wanted) - len(todo),
            "played": played, "positions": positions, "seconds": time.perf_counter() - t0}


def stderr_progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
