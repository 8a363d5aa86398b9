"""`hub-engine analyse` reads the tables through the engine and marks table-exact results."""
from __future__ import annotations

import json

from hub_engine.analysis import analyse

KINGS_2V1 = "W" + "e" * 10 + "W" + "e" * 10 + "W" + "e" * 9 + "B"    # english: a table win
KINGS_1V1 = "W" + "e" * 21 + "W" + "e" * 9 + "B"                     # english: a table draw


def test_analyse_marks_table_results(tmp_path):
    src = tmp_path / "positions.hub"
    start = "W" + "b" * 12 + "e" * 8 + "w" * 12
    src.write_text("\n".join([KINGS_2V1, KINGS_1V1, start]) + "\n")
    out = tmp_path / "out.jsonl"
    pdn_out = tmp_path / "out.pdn"
    analyse([src], variant="english", depth=4, workers=1, output=out, pdn_output=pdn_out,
            fmt="hub", errors_to=None)
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    by_pos = {r["position"]: r for r in recs}
    assert by_pos[KINGS_2V1]["table"] == "win" and 89.0 < by_pos[KINGS_2V1]["score"] < 90.0
    assert by_pos[KINGS_1V1]["table"] == "draw" and by_pos[KINGS_1V1]["score"] == 0.0
    assert by_pos[start]["table"] is None
    assert "endgame table: win" in pdn_out.read_text()
