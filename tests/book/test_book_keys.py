"""The book key: pinned, independent of move order, notation and the search's Zobrist keys."""
from hub_engine.book.keys import TB_BOUND, board_key, negate, position_key
from hub_engine.rules.position import Game, Position

# The key is part of the book file format: these values must never change.
PINNED = {
    "russian": 0x301700ea30514282,
    "english": 0x301700ea30514282,
}


def test_start_keys_are_pinned():
    for variant, key in PINNED.items():
        assert position_key(Position.start(variant)) == key


def test_side_to_move_and_pieces_change_the_key():
    start = Position.start("russian")
    moved = start.play(start.legal_moves()[0])
    assert position_key(moved) != position_key(start)
    flipped = Position.from_hub("russian", "B" + start.hub()[1:])
    assert position_key(flipped) != position_key(start)


def test_transpositions_share_a_key():
    a = Game("russian")
    for m in ("9-13", "21-17", "12-16", "24-20"):
        a.play(m)
    b = Game("russian")
    for m in ("12-16", "24-20", "9-13", "21-17"):
        b.play(m)
    assert a.position.hub() == b.position.hub()
    assert position_key(a.position) == position_key(b.position)


def test_spanish_and_portuguese_share_keys():
    for moves in ((), ("9-13",), ("9-13", "24-20")):
        ps, pp = Game("spanish"), Game("portuguese")
        for m in moves:
            ps.play(m)
            pp.play(m)
        assert position_key(ps.position) == position_key(pp.position)


def test_key_is_not_the_zobrist_key():
    board = Position.start("italian").board
    assert board_key(board) != board.zobrist


def test_negate_moves_mates_one_ply_away():
    assert negate(37) == -37
    assert negate(-37) == 37
    assert negate(0) == 0
    win_in_3 = 30000 - 3
    assert negate(win_in_3) == -(30000 - 4)     # the parent loses in 4
    assert negate(-(30000 - 4)) == 30000 - 5    # the parent wins in 5
    assert negate(TB_BOUND) == -TB_BOUND        # at the bound: a plain score
