"""Play one game as lidraughts-bot would, with its pinned pydraughts (0.5.7); print a JSON report.

Run with the interpreter of the lidraughts-bot client environment (tests/client_envs.py):

    .venv-lidraughts-bot/bin/python tests/e2e/lidraughts_bot_game.py CONFIG.yml VARIANT COLOUR SEED

CONFIG.yml is a lidraughts-bot `config.yml` (the `engine:` section is read). What follows
lidraughts-bot (AttackingOrDefending/lidraughts-bot, engine_wrapper.py and lidraughts-bot.py):
- the engine command is `[os.path.join(dir, name), engine_argument]`, started by pydraughts'
  HubEngine with `cwd=working_dir` (or the current directory);
- the options are `hub_options` plus `variant` and `initial-time`, sent by `configure`, then
  `init`;
- the bot's first move (fewer than two moves played) is a `Limit(movetime=...)` search; later
  ones are clock searches `Limit(time=, inc=)` from the remaining time;
- with `ponder: true`, after each bot move it ponders on the expected reply in a thread
  (`play(..., ponder=True)` on the board with both moves); when the opponent plays that move
  it sends `ponderhit` and takes the pondering result, otherwise `stop` and a new search.
The opponent plays seeded random legal moves, the expected reply half the time, once the bot's
`go ponder` has gone out (as over a network). Timings are
scaled down (first move 0.3 s instead of lidraughts' 10 s; a 3 s clock) to keep the test short.
"""
from __future__ import annotations

import json
import logging
import os
import random
import sys
import threading
import time

import yaml

import draughts
import draughts.engine

FIRST_MOVE_SECONDS = 0.3
CLOCK_MS, INC_MS = 3000, 100
MAX_BOT_MOVES = 12


class Warnings(logging.Handler):
    """pydraughts logs 'Unexpected engine response ...' for any line it cannot place."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def wait_for_go_ponder(engine) -> None:
    """The opponent's move comes over the network, well after the bot's `go ponder`; a `stop`
    sent before it would be dropped by the engine (no search yet) and the ponder search would
    never end. lidraughts-bot has this race too; real network delays hide it."""
    deadline = time.monotonic() + 10
    while engine._last_sent != "go ponder" and time.monotonic() < deadline:
        time.sleep(0.001)


def start_engine(config: dict, variant: str):
    cfg = config["engine"]
    commands = [os.path.join(cfg["dir"], cfg["name"]), cfg["engine_argument"]]
    options = dict(cfg.get(f"{cfg['protocol']}_options") or {})
    options["variant"] = variant
    options["initial-time"] = CLOCK_MS // 1000
    engine = draughts.engine.HubEngine(commands, cwd=cfg.get("working_dir") or os.getcwd())
    engine.configure(options)
    engine.init()
    return engine, bool(cfg.get("ponder"))


def play(config_path: str, variant: str, colour: str, seed: int) -> dict:
    with open(config_path) as f:
        config = yaml.safe_load(f)
    warnings = Warnings()
    logging.getLogger("pydraughts").addHandler(warnings)
    rng = random.Random(seed)
    engine, can_ponder = start_engine(config, variant)
    bot_side = draughts.WHITE if colour == "white" else draughts.BLACK
    board = draughts.Game(variant)
    report = {"bot_moves": [], "ponder_hits": 0, "ponder_stops": 0, "warnings": warnings.messages,
              "engine_name": engine.id.get("name")}
    clock = {"time": CLOCK_MS, "inc": INC_MS}
    ponder_thread, ponder_move, ponder_result = None, None, {}

    def ponder(ponder_board) -> None:
        ponder_result["result"] = engine.play(
            ponder_board, draughts.engine.Limit(time=clock["time"] / 1000, inc=clock["inc"] / 1000),
            ponder=True)

    try:
        while not board.is_over() and len(report["bot_moves"]) < MAX_BOT_MOVES:
            if board.whose_turn() != bot_side:
                if ponder_thread is not None:
                    wait_for_go_ponder(engine)
                    time.sleep(rng.uniform(0.0, 0.1))
                legal = [draughts.Move(board, board_move=m) for m in board.legal_moves()[0]]
                expected = [m for m in legal if ponder_move and m.hub_move == ponder_move]
                move = expected[0] if expected and rng.random() < 0.5 else rng.choice(legal)
                board.push(move.board_move)
                continue
            result = None
            if ponder_thread is not None:
                if board.move_stack[-1].hub_move == ponder_move:
                    engine.ponderhit()
                    ponder_thread.join()
                    result = ponder_result["result"]
                    report["ponder_hits"] += 1
                else:
                    engine.stop()
                    ponder_thread.join()
                    report["ponder_stops"] += 1
                ponder_thread = None
            if result is None:
                if len(board.move_stack) < 2:
                    limit = draughts.engine.Limit(movetime=FIRST_MOVE_SECONDS)
                else:
                    limit = draughts.engine.Limit(time=clock["time"] / 1000,
                                                  inc=clock["inc"] / 1000)
                result = engine.play(board, limit, ponder=False)
            # pydraughts has already resolved the engine's move string against the legal moves
            # (a KeyError there is the failure this test exists for)
            report["bot_moves"].append(result.move.hub_move)
            board.push(result.move.board_move)
            ponder_move = None
            if can_ponder and result.ponder is not None and not board.is_over():
                ponder_board = board.copy()
                ponder_board.push(result.ponder.board_move)
                ponder_move = result.ponder.hub_move
                ponder_thread = threading.Thread(target=ponder, args=(ponder_board,))
                ponder_thread.start()
        if ponder_thread is not None:
            wait_for_go_ponder(engine)
            engine.stop()
            ponder_thread.join()
            report["ponder_stops"] += 1
        engine.quit()
        report["exit_code"] = engine.p.wait(10)
    except Exception as exc:  # noqa: BLE001 - reported to the test, which fails with it
        report["error"] = f"{type(exc).__name__}: {exc}"
        try:
            engine.kill_process()
        except Exception:  # noqa: BLE001
            pass
    report["moves"] = [m.hub_move for m in board.move_stack]
    return report


if __name__ == "__main__":
    print(json.dumps(play(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))))
