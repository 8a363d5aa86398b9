"""The `pos` command's game, replayed incrementally.

Clients resend the whole game before every move, and replaying 200 plies would cost the clock a
few milliseconds each time: when the new moves extend (or share a start with) the last `pos`
from the same position in the same notation, only the difference is undone and played.
"""
from __future__ import annotations

from hub_engine.rules.position import Game, Position
from hub_engine.rules.variants import Variant


class Replayer:
    """Remembers the last game it built, to build the next one from it."""

    def __init__(self) -> None:
        self._last: tuple | None = None    # (start key, notation, moves, game) of the last pos

    def replay(self, variant: Variant, current: Game, key: str, start: Position,
               moves: list[str], notation: str) -> Game:
        """The game from `start` (Hub string `key`) through `moves`. The `current` game is
        reused when it is the last one built here; it is left as it was, whatever happens (a
        ValueError for an illegal or malformed move)."""
        last = self._last
        if last is None or last[:2] != (key, notation) or last[3] is not current:
            game = Game(variant, start)
            for text in moves:
                game.play(text, notation)
        else:
            game = current
            same = 0
            for old, new in zip(last[2], moves):
                if old != new:
                    break
                same += 1
            undone = [game.undo() for _ in range(len(last[2]) - same)]
            played = 0
            try:
                for text in moves[same:]:
                    game.play(text, notation)
                    played += 1
            except Exception:
                for _ in range(played):
                    game.undo()
                for move in reversed(undone):
                    game.play(move)
                raise
        self._last = (key, notation, list(moves), game)
        return game
