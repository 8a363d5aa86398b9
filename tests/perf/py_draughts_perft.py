"""Perft speed of py-draughts, for the speed comparison in the rules issue.

Run it with the interpreter of a virtual environment that has py-draughts (never the one with
pydraughts: both import as `draughts`):

    python tests/perf/py_draughts_perft.py russian 7

It prints `variant=<v> depth=<d> nodes=<n> time=<s> nps=<n/s>` with bulk counting at the last ply,
the same counting as `hub-engine perft`.
"""
import sys
import time

import draughts

BOARDS = {"russian": "RussianBoard", "brazilian": "BrazilianBoard"}


def perft(board, depth: int) -> int:
    moves = board.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        board.push(m)
        total += perft(board, depth - 1)
        board.pop()
    return total


def main() -> None:
    variant, depth = sys.argv[1], int(sys.argv[2])
    board = getattr(draughts, BOARDS[variant])()
    t0 = time.perf_counter()
    n = perft(board, depth)
    dt = time.perf_counter() - t0
    print(f"variant={variant} depth={depth} nodes={n} time={dt:.3f} nps={n / dt:.0f}")


if __name__ == "__main__":
    main()
