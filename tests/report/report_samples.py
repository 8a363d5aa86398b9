"""Analysis records for the report tests: real ones (the engine at depth 2 over the analysis
tests' PDN games of every variant and their position lists) and hand-made ones whose scores,
losses and classes are chosen."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from hub_engine.rules import notation
from hub_engine.analysis import analyse
from hub_engine.analysis.records import make_record
from hub_engine.quality import classify
from hub_engine.rules.position import Position
from hub_engine.rules.variants import Variant

DATA = Path(__file__).resolve().parents[1] / "analysis" / "data"


def analysed(directory: Path) -> list[dict]:
    """The engine's records (depth 2) for copies of games.pdn, positions.fen and italian.hub (its
    3 best moves) in `directory`; the game ids name the files by their paths there."""
    for name in ("games.pdn", "positions.fen", "italian.hub"):
        shutil.copy(DATA / name, directory / name)
    records = []
    runs = ((["games.pdn", "positions.fen"], "brazilian", 1), (["italian.hub"], "italian", 3))
    for files, variant, multipv in runs:
        out = io.StringIO()
        analyse([str(directory / f) for f in files], variant=variant, depth=2, multipv=multipv,
                workers=1, output=out, errors_to=None)
        records += [json.loads(line) for line in out.getvalue().splitlines()]
    return records


def game_records(variant: str, moves: list[str], game: str = "g.pdn#1",
                 scores: list[float] | None = None, losses: list[float] | None = None,
                 start: Position | None = None, extra: dict | None = None) -> list[dict]:
    """Records of one game as `analyse` writes them, with chosen scores (side to move's view) and
    losses; the best move is the first legal move that is not the played one when there is a loss."""
    pos = start or Position.start(variant)
    out = []
    for ply, played in enumerate(moves + [None]):
        if not pos.legal_moves():
            break
        legal = [str(m) for m in pos.legal_moves()]
        played = str(pos.parse_move(played)) if played else None
        loss = (losses[ply] if losses and ply < len(losses) else 0.0) if played else None
        best = played if played and not loss else next((m for m in legal if m != played), legal[0])
        score = scores[ply] if scores and ply < len(scores) else round(0.1 * ply, 2)
        number, second = ply // 2 + 1, ply % 2 == 1
        label = f"{number}{'...' if second else '.'}" if played else None
        task = {"game": game, "ply": ply, "label": label, "variant": variant,
                "position": pos.hub(), "fen": pos.fen(), "side": pos.side_name, "played": played}
        res = {"best": best, "score": score, "pv": [best], "depth": 2, "nodes": 10 + ply,
               "played_score": None if played is None else round(score - (loss or 0), 2),
               "time": 0.01}
        rec = make_record(task, res, {"depth": 2, "nodes": None, "move_time": None},
                          "hub-engine test")
        assert rec["class"] == classify(rec["loss"])
        if extra:
            rec.update(extra)
        out.append(rec)
        if played:
            pos = pos.play(played)
    return out


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def seen_from_white(variant: Variant, k: int) -> tuple[int, int]:
    """(column, row) of layout square k from White's side, worked out through the internal
    squares (a1 = 0 at the first mover's lower left), mirrored boards flipped left-right and
    english turned round: the way rules.md section 6 says the variants are drawn."""
    s = notation.layout_to_internal(variant, k)
    row, col = s // 4, 2 * (s % 4) + (s // 4) % 2
    if variant.mirrored:
        col = 7 - col
    if variant.first_mover == "white":
        return col, 7 - row
    return 7 - col, row
