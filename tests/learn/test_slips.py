"""Won games that ended drawn: the table scan of hub_engine.learn.slips."""
from __future__ import annotations

from hub_engine.learn.slips import main, scan
from hub_engine.rules.pdn import movetext, pdn_move_text, write_pdn_tags
from hub_engine.rules.position import Game, Position
from hub_engine.tables import open_tables

# italian: two kings beat one king from every quiet position (the shipped 3-piece table)
FEN = "W:WK5,K9:BK30"


def _game_text(number: int, result: str, plies: int) -> str:
    start = Position.from_fen("italian", FEN)
    game = Game("italian", start)
    pieces = []
    for i in range(plies):
        move = game.legal_moves()[0]
        pieces.append((f"{i // 2 + 1}." if i % 2 == 0 else "", pdn_move_text(move, game.position)))
        game.play(move)
    pieces.append(("", result))
    tags = {"Round": str(number), "White": "strong", "Black": "weak", "Result": result,
            "GameType": "22", "FEN": start.fen()}
    return write_pdn_tags(tags) + "\n" + movetext(pieces) + "\n\n"


def test_a_drawn_game_through_a_table_win_is_a_slip(tmp_path, capsys):
    pdn = tmp_path / "games.pdn"
    pdn.write_text(_game_text(1, "1/2-1/2", 4) + _game_text(2, "1-0", 4))
    tables = open_tables("italian", tmp_path / "none")
    games, draws, slips = scan("italian", str(pdn), tables)
    assert (games, draws) == (2, 1)
    assert len(slips) == 1 and slips[0].game == 1
    assert slips[0].table_win[:2] == (0, "strong")
    assert main([str(pdn), "--variant", "italian", "--tables", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert "table_wins_drawn={'strong': 1}" in out


def test_a_deeper_search_sees_the_won_draw(tmp_path):
    from hub_engine.learn.slips import DeepSearch

    pdn = tmp_path / "games.pdn"
    pdn.write_text(_game_text(1, "1/2-1/2", 4))
    games, draws, slips = scan("italian", str(pdn), None, None, 1.0, DeepSearch("italian", 6, 12))
    assert (games, draws, len(slips)) == (1, 1, 1)
    assert slips[0].table_win is None and slips[0].search[1] == "strong"
