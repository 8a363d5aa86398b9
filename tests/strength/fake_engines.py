"""Misbehaving Hub engines for the match runner's tests: `python fake_engines.py MODE [SECONDS [SCORE]]`.

Modes: `hang` (never answers `go`), `crash` (exits on `go`, code 3, after a line on stderr),
`die-at-start` (prints an import error on stderr and exits with code 5 before reading anything), `illegal` (answers `done move=1-2`),
`slow` (plays the first legal move after sleeping SECONDS), `silent` (never sends `wait`),
`first` (plays the first legal move at once), `flaky` (plays the first legal move, but at its
third move of a game crashes, code 3, when it plays the first mover's side and answers an
illegal move when it plays the second mover's side). With SCORE, each move that it plays comes
after `info depth=1 score=SCORE nodes=1000 time=0.010`.
"""
from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hub_engine.rules.position import Game  # noqa: E402


def main() -> int:
    mode = sys.argv[1]
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    score = sys.argv[3] if len(sys.argv) > 3 else None
    variant, game, made = "brazilian", None, 0
    if mode == "die-at-start":
        print("ModuleNotFoundError: no module named 'x'", file=sys.stderr)
        return 5

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = shlex.split(line)
        if not words:
            continue
        args = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        cmd = words[0]
        if cmd == "hub":
            out(f"id name=fake-{mode} version=0 author=test country=none")
            out('param name=variant value=brazilian type=enum values="brazilian russian"')
            if mode != "silent":
                out("wait")
        elif cmd == "set-param" and args.get("name") == "variant":
            variant = args.get("value", variant)
        elif cmd == "init":
            out("ready")
        elif cmd == "new-game":
            made = 0
        elif cmd == "pos":
            game = Game(variant, args.get("pos"), args.get("moves", "").split())
        elif cmd == "go":
            if mode == "hang":
                continue
            if mode == "crash":
                print("fake engine crashing", file=sys.stderr, flush=True)
                return 3
            if mode == "illegal":
                out("done move=1-2")
                continue
            made += 1
            if mode == "flaky" and made == 3:
                if len(game.moves) % 2 == 0:
                    print("fake engine crashing", file=sys.stderr, flush=True)
                    return 3
                out("done move=1-2")
                continue
            time.sleep(delay)
            if score is not None:
                out(f"info depth=1 score={score} nodes=1000 time=0.010")
            out(f"done move={game.legal_moves()[0]}")
        elif cmd == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
