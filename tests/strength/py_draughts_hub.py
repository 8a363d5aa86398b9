"""py-draughts' strongest 8x8 engine as a Hub engine (russian and brazilian), for strength tests.

Run it with the interpreter of py-draughts' OWN virtual environment, never the main one (where
pydraughts, a different package, also imports as `draughts`):

    python3 -m venv .venv-pydraughts && .venv-pydraughts/bin/pip install py-draughts
    .venv-pydraughts/bin/python tests/strength/py_draughts_hub.py

Engine: py-draughts 1.10 has SimpleEngine (negamax, alpha-beta, iterative deepening, TT,
quiescence, PVS/LMR; works on every board) and TurboEngine (much stronger, but it raises
"TurboEngine supports only 10x10 international boards"). So on 8x8 the strongest is SimpleEngine,
used here with depth_limit=64 and its time_limit (checked every 2048 nodes, so it overshoots by a
fraction of a second: the wrapper asks for 80% of the move time, minus a margin on a clock).

Squares: py-draughts' 8x8 boards index squares 0..31 as b8 d8 f8 h8 / a7 c7 e7 g7 / ... / a1 c1
e1 g1, i.e. seen from White (the first mover), top row first, left to right: index i is exactly
Hub layout square k = i + 1, so a Hub position string maps character by character. Hub move
strings for russian and brazilian use N(k) = (7 - (k-1)//4)*4 + (k-1)%4 + 1 (a1 = 1), which is its
own inverse. py-draughts' men: -1 white man, -2 white king, 1 black man, 2 black king.

Hub subset: hub -> id / param variant (enum) / wait; set-param name=variant; init -> ready;
new-game; pos [pos=P] [moves="..."] [start]; level move-time= / time= inc= / depth=; go [think]
-> done move=M; ping -> pong; stop (no-op: the search is synchronous); quit. Every move it
returns is one of py-draughts' legal moves, printed in Hub form with the captured squares in
ascending order.
"""
from __future__ import annotations

import shlex
import sys
import time

from loguru import logger

import draughts
from draughts.engines.simple import SimpleEngine
from draughts.models import Color

BOARDS = {"russian": draughts.RussianBoard, "brazilian": draughts.BrazilianBoard}
START = "W" + "b" * 12 + "e" * 8 + "w" * 12
PIECE = {"w": -1, "W": -2, "b": 1, "B": 2, "e": 0, ".": 0}


def number(index: int) -> int:
    """Hub move number (a1 = 1) of py-draughts square index 0..31; also the inverse."""
    return (7 - index // 4) * 4 + index % 4 + 1


def index_of(n: int) -> int:
    return number(n - 1) - 1


def hub_move(move) -> str:
    """Hub string of a py-draughts Move: from-to, or fromxto then every captured square, sorted."""
    a, b = number(move.square_list[0]), number(move.square_list[-1])
    if not move.captured_list:
        return f"{a}-{b}"
    caps = sorted(number(c) for c in move.captured_list)
    return "x".join(str(x) for x in [a, b, *caps])


def move_key(text: str) -> tuple:
    """(from, to, frozenset(captured) or None, is_capture) in py-draughts indices."""
    t = text.strip().lower().replace(":", "x")
    capture = "x" in t
    nums = [index_of(int(x)) for x in t.replace("-", "x").split("x")]
    caps = frozenset(nums[2:]) if len(nums) > 2 else None
    return nums[0], nums[1], caps, capture


def find_move(board, text: str):
    frm, to, caps, capture = move_key(text)
    found = []
    for m in board.legal_moves:
        if m.square_list[0] != frm or m.square_list[-1] != to:
            continue
        if bool(m.captured_list) != capture:
            continue
        if caps is not None and frozenset(m.captured_list) != caps:
            continue
        found.append(m)
    if not found:
        raise ValueError(f"illegal move {text}")
    return found[0]


def board_from_hub(variant: str, text: str):
    text = text.strip()
    if len(text) != 33 or text[0] not in "WB":
        raise ValueError("bad position")
    import numpy as np

    arr = np.array([PIECE[c] for c in text[1:]], dtype=np.int8)
    turn = Color.WHITE if text[0] == "W" else Color.BLACK
    return BOARDS[variant](starting_position=arr, turn=turn)


class Wrapper:
    def __init__(self) -> None:
        self.variant = "russian"
        self.engine = SimpleEngine(depth_limit=64)
        self.board = BOARDS[self.variant]()
        self.level: dict[str, float] = {}

    def out(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def budget(self) -> tuple[float | None, int]:
        lv = self.level
        if "move-time" in lv:
            return max(0.01, 0.8 * lv["move-time"]), 64
        if "time" in lv:
            t, inc = lv["time"], lv.get("inc", 0.0)
            return max(0.01, min(t / 25 + 0.8 * inc, 0.5 * (t + inc)) - 0.05), 64
        if "depth" in lv:
            return None, int(lv["depth"])
        return 1.0, 64

    def command(self, line: str) -> bool:
        try:
            words = shlex.split(line)
        except ValueError:
            self.out('error message="bad quotes"')
            return True
        if not words:
            return True
        cmd, args = words[0], {}
        flags = set()
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                args[k] = v
            else:
                flags.add(w)
        if cmd == "hub":
            self.out(f"id name=py-draughts-simple version={draughts.__version__} "
                     "author=wrapper country=none")
            self.out('param name=variant value=russian type=enum values="russian brazilian"')
            self.out("wait")
        elif cmd == "set-param":
            if args.get("name") == "variant":
                v = args.get("value", "").lower()
                if v in BOARDS:
                    self.variant = v
                    self.board = BOARDS[v]()
                else:
                    self.out(f'error message="unsupported variant {v}"')
        elif cmd == "init":
            self.out("ready")
        elif cmd == "new-game":
            self.engine = SimpleEngine(depth_limit=64)
        elif cmd == "pos":
            self.level = {}
            try:
                pos = args.get("pos", START)
                board = board_from_hub(self.variant, pos)
                for m in args.get("moves", "").split():
                    board.push(find_move(board, m))
                self.board = board
            except (ValueError, KeyError) as exc:
                self.out(f'error message="{exc}"')
        elif cmd == "level":
            for k, v in args.items():
                try:
                    self.level[k] = float(v)
                except ValueError:
                    pass
        elif cmd == "go":
            legal = self.board.legal_moves
            if not legal:
                self.out('error message="no legal move"')
                self.out('done move=""')
            else:
                limit, depth = self.budget()
                self.engine.depth_limit = depth
                self.engine.time_limit = limit
                t0 = time.time()
                move = legal[0] if len(legal) == 1 else self.engine.get_best_move(self.board)
                self.out(f"info depth={depth} time={time.time() - t0:.3f} nodes={self.engine.nodes}")
                self.out(f"done move={hub_move(move)}")
            self.level = {}
        elif cmd == "ping":
            self.out("pong")
        elif cmd == "quit":
            return False
        return True


def main() -> int:
    logger.remove()
    w = Wrapper()
    for line in sys.stdin:
        if not w.command(line.strip()):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
