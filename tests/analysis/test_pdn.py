"""The PDN reader: tags, GameType, FEN starts, move numbers, comments, variations, NAGs, both
capture notations, path checks, ambiguity and error reports; FEN and Hub line files."""

from pathlib import Path

import pytest

from hub_engine.rules.notation import Setup
from hub_engine.rules.pdn import (PdnError, Style, capture_path, comment_text, detect_format,
                            gametype_number, iter_pdn, path_fits, read_pdn, read_pdn_file,
                            read_position_lines, record_text, resolve_move, write_move)
from hub_engine.rules.position import IllegalMoveError, Position

DATA = Path(__file__).parent / "data"

# English (men capture forward only): a black man on 10 can take 14+22 or 15+23, both ending on 26.
ENGLISH_TWO_PATHS = "B:W14,15,22,23:B10"


def one(text: str, variant: str = "brazilian"):
    games = read_pdn(text, "t.pdn", variant)
    assert len(games) == 1, games
    return games[0]


def hub_moves(game) -> list[str]:
    return [str(r.move) for r in game.moves]


def test_tags_and_gametype_pick_the_variant():
    g = one('[Event "Club \\"final\\""]\n[GameType "25"]\n[Round "3"]\n1. c3-d4 f6-g5 *')
    assert g.tags == {"Event": 'Club "final"', "GameType": "25", "Round": "3"}
    assert g.variant.name == "russian"
    assert hub_moves(g) == ["10-14", "23-20"]      # Hub strings in russian numbers (a1 = 1)
    assert g.result == "*" and g.ok


@pytest.mark.parametrize("value, number", [("25", 25), ("20,W,10,10,N2,0", 20),
                                           (" 21,B,8,8,N1,0", 21), ("x", None)])
def test_gametype_number_comes_first(value, number):
    assert gametype_number(value) == number


def test_gametype_with_extra_fields():
    g = one('[GameType "21,B,8,8,N1,0"]\n1. 11-15 23-19 *')
    assert g.variant.name == "english" and hub_moves(g) == ["11-15", "23-19"]


def test_default_variant_without_gametype():
    assert one("1. 22-18 11-15 *", "brazilian").variant.name == "brazilian"
    assert one("1. 23-19 10-13 *", "italian").variant.name == "italian"
    # a Variant tag naming a supported variant counts when there is no GameType
    assert one('[Variant "Russian"]\n1. c3-d4 *').variant.name == "russian"


def test_unknown_gametype_is_an_error_and_reading_goes_on():
    games = read_pdn('[GameType "20"]\n1. 32-28 19-23 *\n\n[GameType "26"]\n1. 22-18 *\n',
                     "t.pdn")
    assert len(games) == 2
    bad, good = games
    assert bad.start is None and bad.moves == []
    assert bad.errors == [PdnError("t.pdn", 1, None, bad.errors[0].message)]
    assert "unknown GameType 20" in bad.errors[0].message
    assert good.ok and hub_moves(good) == ["10-14"]


def test_fen_start_and_second_mover_numbering():
    g = one('[FEN "B:W21,22,K30:B1,2,K9"]\n1... 9-13 2. 22-18 *')
    assert g.start.side == 1 and g.start.side_name == "black"
    assert [r.label for r in g.moves] == ["1...", "2."]
    # lidraughts' FEN with a move number field: numbering starts there
    g = one('[GameType "26"]\n[FEN "W:W21,22,K30:B1,2,K9:H0:F12"]\n12. 22-18 *')
    assert g.first_number == 12 and g.moves[0].label == "12."


def test_broken_fen_is_an_error():
    g = one('[GameType "26"]\n[FEN "W:W21,21:B1"]\n1. 21-17 *')
    assert g.start is None and "bad FEN" in g.errors[0].message


def test_move_numbers_glued_spaced_and_repeated():
    a = one("1.22-18 11-15 2.18x11 8x15 *")
    b = one("1. 22-18 1... 11-15 2. 18x11 2... 8x15 *")
    c = one("22-18 11-15 18x11 8x15 *")          # numbers are optional
    assert hub_moves(a) == hub_moves(b) == hub_moves(c)
    assert [r.label for r in a.moves] == ["1.", "1...", "2.", "2..."]


def test_comments_variations_nags_and_escapes():
    text = """[GameType "26"]
% an escape line, skipped
1. 22-18 {main line comment} 11-15 (1... 9-13 (1... 10-14 2. 18x9) 2. 18-14) 2. 18x11!
$3 8x15?! ; to the end of the line
3. 21-17 {two} {comments} 1-0"""
    g = one(text)
    assert hub_moves(g) == ["10-14", "23-19", "14x23x19", "28x19x23", "9-13"]
    assert g.moves[0].comment == "main line comment"
    assert g.moves[3].comment == "to the end of the line"
    assert g.moves[4].comment == "two comments"
    assert g.result == "1-0"


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*"])
def test_results_end_a_game(result):
    games = read_pdn(f"1. 22-18 11-15 {result} 1. 21-17 *", "t.pdn")
    assert [g.result for g in games] == [result, "*"]
    assert [len(g.moves) for g in games] == [2, 1]


def test_games_separated_by_tags_without_result():
    games = read_pdn('[GameType "26"]\n1. 22-18\n[GameType "22"]\n1. 23-19\n', "t.pdn")
    assert [g.variant.name for g in games] == ["brazilian", "italian"]
    assert [g.number for g in games] == [1, 2]


def test_both_capture_notations_and_full_paths():
    # brazilian: a man takes two pieces; short form with x or ':' and the full path agree
    moves = "1. 21-17 9-13 2. 23-18 10-14 3. 18x9 {}"
    for capture in ("5x21", "5:21", "5:14:21", "5x14x21"):
        g = one(moves.format(capture).replace("{}", capture) + " *")
        assert g.ok, g.errors
        assert str(g.moves[-1].move) == "25x9x13x21"
    # a path that is not the move's path is illegal
    g = one(moves.replace("{}", "5:12:21") + " *")
    assert not g.ok and "illegal move 5:12:21" in g.errors[0].message


def test_russian_algebraic_and_numeric_squares():
    alg = one('[GameType "25"]\n1. c3-d4 f6-g5 2. d4-e5 d6:f4 3. g3:e5 *')
    num = one('[GameType "25"]\n1. 22-18 11-16 2. 18-15 10:19 3. 24:15 *')   # brazilian-style numbers
    assert alg.ok and num.ok, (alg.errors, num.errors)
    assert hub_moves(alg) == hub_moves(num)
    assert hub_moves(alg)[:1] == ["10-14"]


def test_ambiguous_short_capture_is_reported_and_the_path_resolves_it():
    pos = Position.from_fen("english", ENGLISH_TWO_PATHS)
    assert sorted(str(m) for m in pos.legal_moves()) == ["10x26x14x22", "10x26x15x23"]
    with pytest.raises(IllegalMoveError, match="ambiguous move 10x26"):
        resolve_move(pos, "10x26")
    assert str(resolve_move(pos, "10x19x26")) == "10x26x15x23"
    assert str(resolve_move(pos, "10:17:26")) == "10x26x14x22"
    g = one(f'[GameType "21"]\n[FEN "{ENGLISH_TWO_PATHS}"]\n1. 10x26 *')
    assert g.errors and g.errors[0].move == "1." and "ambiguous" in g.errors[0].message
    assert str(g.errors[0]).startswith("t.pdn, game 1, move 1: ambiguous move 10x26")


def test_circular_capture_origin_equals_destination():
    # russian: a man on e3 takes d4, d6, f6, f4 and comes back to e3
    pos = Position.from_setup("russian", Setup(0, (10,), (), (13, 14, 21, 22), ()))
    assert str(resolve_move(pos, "e3:e3")) == str(pos.legal_moves()[0])
    assert str(resolve_move(pos, "e3:c5:e7:g5:e3")) == str(pos.legal_moves()[0])


def test_quiet_notation_for_a_capture_is_accepted_when_unique():
    g = one("1. 22-18 11-15 2. 18-11 *")     # some records write captures with '-'
    assert g.ok and str(g.moves[-1].move) == "14x23x19"


def test_capture_notation_for_a_quiet_move_is_accepted():
    # CheckerBoard writes some quiet moves with x (tinsley.pdn, game 1: `4. 10x14`)
    g = one("1. 11-15 23-18 2. 8-11 27-23 3. 4-8 23-19 4. 10x14 19x10 *", "english")
    assert g.ok, g.errors
    assert not g.moves[6].move.is_capture and str(g.moves[6].move) == "10-14"
    assert g.moves[7].move.is_capture
    assert one("1. 22x18 11:15 *").ok                 # and with ':'
    # a path of landing squares still has to be a capture's
    assert not one("1. 22x18x14 *").ok


def test_a_move_with_text_glued_after_it_is_the_move_and_a_comment():
    # CheckerBoard reads `26-22White...` as the move 26-22 and a comment (tinsley.pdn, game 693)
    g = one("1. 22-18Whiteoversteppedthetimecontrol. 1-0")
    assert g.ok and hub_moves(g) == ["10-14"] and g.result == "1-0"
    assert g.moves[0].comment == "Whiteoversteppedthetimecontrol."
    assert one("1. 22-18* ").result == "*"
    assert not one("1. 22-18x5z *").ok          # a broken capture is not a glued comment


def test_numbering_written_by_checkerboard_for_a_second_mover_start():
    g = one('[FEN "B:W21,22,K30:B1,2,K9"]\n1. ... 9-13 2. 22-18 *')
    assert g.ok and [r.label for r in g.moves] == ["1...", "2."]


def test_a_game_without_gametype_says_which_variant_was_assumed():
    g = one("1. 11-15 23-19 *")                     # english, read as the default brazilian
    assert str(g.errors[0]) == (
        "t.pdn, game 1, move 1: illegal move 11-15 (the game has no GameType tag and was "
        "read as brazilian, the --variant setting; choose another with --variant)")
    assert g.assumed
    tagged = one('[GameType "26"]\n1. 11-15 *')     # a tagged game says nothing of the kind
    assert str(tagged.errors[0]) == "t.pdn, game 1, move 1: illegal move 11-15"
    assert "read as brazilian" in one('[FEN "W:W33:B1"]\n*').errors[0].message


def test_games_are_yielded_as_they_are_read():
    """The reader takes only the lines it needs: the first game comes before the rest is read."""
    consumed = []

    def lines():
        for i, line in enumerate(["[GameType \"26\"]\n", "1. 22-18 {a comment\n",
                                  "over two lines} 11-15 *\n", "[GameType \"26\"]\n",
                                  "1. 21-17 *\n"]):
            consumed.append(i)
            yield line

    games = iter_pdn(lines(), "t.pdn")
    first = next(games)
    assert hub_moves(first) == ["10-14", "23-19"] and first.moves[0].comment == "a comment over two lines"
    assert max(consumed) <= 3
    assert hub_moves(next(games)) == ["9-13"]


def test_full_path_written_only_when_the_short_form_is_ambiguous():
    pos = Position.from_fen("english", ENGLISH_TWO_PATHS)
    paths = {}
    for mv in pos.legal_moves():
        path = capture_path(pos, mv)
        assert path_fits(mv, path)
        text = write_move(pos, mv)
        assert str(resolve_move(pos, text)) == str(mv)     # reads back as the same move
        paths[str(mv)] = text
    assert paths == {"10x26x14x22": "10x17x26", "10x26x15x23": "10x19x26"}
    start = Position.start("english")
    assert sorted(write_move(start, m) for m in start.legal_moves()) == sorted(
        str(m) for m in start.legal_moves())           # english record squares = its numbers


def test_capture_path_of_a_flying_king():
    # russian: the white king on e1 can end on a1 over two different sets of pieces
    pos = Position.from_fen("russian", "W:WKe1:Bb2,Kf2,a3,f4,g5,c7")
    texts = {}
    for mv in pos.legal_moves():
        path = capture_path(pos, mv)
        assert path_fits(mv, path) and path[0] == mv.frm and path[-1] == mv.to
        texts[str(mv)] = write_move(pos, mv)
        assert str(resolve_move(pos, texts[str(mv)])) == str(mv)
    assert texts["3x1x5x7x15"] != texts["3x1x5x7x20"]
    assert texts["3x29x7x15x26"] == "e1:b8"              # unique: the short form


def test_a_one_leg_path_names_the_single_capture():
    # russian: c3:a5 takes b4 alone; a five-piece capture also goes from c3 to a5
    pos = Position.from_fen("russian", "W:WKc3:Bd2,g3,b4,c5,Ke5,g5")
    assert str(resolve_move(pos, "c3:a5")) == "10x17x13"
    long = next(m for m in pos.legal_moves() if str(m) == "10x17x6x12x13x19x20")
    assert write_move(pos, long) == "c3:f6:h4:e1:c3:a5"
    assert str(resolve_move(pos, "c3:f6:h4:e1:c3:a5")) == str(long)


def test_style_of_a_record_and_record_text():
    russian = one('[GameType "25"]\n1. c3-d4 f6-g5 2. d4-e5 d6:f4 3. g3:e5 *')
    assert russian.style == Style(True, ":")
    assert [record_text(r, russian.style) for r in russian.moves][-1] == "g3:e5"
    numeric = one('[GameType "25"]\n1. 22-18 11-16 2. 18-15 10x19 3. 24x15 *')
    assert numeric.style == Style(False, "x")
    english = one("1. 11-15 23-18 2. 8-11 27-23 3. 4-8 23-19 4. 10x14 19x10 *", "english")
    assert [record_text(r, english.style) for r in english.moves][6:] == ["10-14", "19x10"]
    assert Style.default(Position.start("russian").variant) == Style(True, ":")


def test_comment_text_is_safe_for_other_readers():
    assert comment_text("a {b} (c)\n  d") == "a [b] [c] d"
    assert comment_text("agreed 1-0 here * and 1/2-1/2") == "agreed '1-0' here '*' and '1/2-1/2'"
    assert comment_text("+0.35, best 21-17") == "+0.35, best 21-17"


def test_illegal_move_keeps_the_prefix_and_names_the_move():
    games = read_pdn('[GameType "26"]\n1. 22-18 11-15 2. 18-14 9-13 *\n\n'
                     '[GameType "26"]\n1. 22-17 *', "f.pdn")
    bad, good = games
    assert hub_moves(bad) == ["10-14", "23-19"]
    assert bad.errors == [PdnError("f.pdn", 1, "2.", "illegal move 18-14")]
    assert str(bad.errors[0]) == "f.pdn, game 1, move 2: illegal move 18-14"
    assert good.ok and len(good.moves) == 1


def test_unreadable_token_is_an_error():
    g = one("1. 22-18 zz9 11-15 *")
    assert g.errors and g.errors[0].move == "1..." and len(g.moves) == 1


def test_positions_of_a_game():
    g = one("1. 22-18 11-15 2. 18x11 *")
    plies = list(g.positions())
    assert [p for p, _pos, _m in plies] == [0, 1, 2, 3]
    assert plies[0][1] == Position.start("brazilian")
    assert [str(m) if m else None for _p, _pos, m in plies] == ["10-14", "23-19", "14x23x19", None]


def test_the_data_file_reads_with_two_errors():
    games = read_pdn_file(DATA / "games.pdn", "brazilian")
    names = [g.variant.name if g.variant else None for g in games]
    assert names == ["russian", "brazilian", "italian", "english", "portuguese", "brazilian",
                     None, "brazilian"]
    assert [len(g.moves) for g in games] == [14, 14, 14, 14, 14, 2, 0, 2]
    errors = [e for g in games for e in g.errors]
    assert [(e.game, e.move) for e in errors] == [(6, "2."), (7, None)]
    assert games[3].moves[5].text == "22:15:8" and str(games[3].moves[5].move) == "22x8x11x18"


def test_fen_and_hub_line_files():
    text = "# a comment\nW:W21,22,K30:B1,2,K9\n\n\"B:W21:B1\"\nW:W21,21:B1\n"
    lines = read_position_lines(text, "p.fen", "brazilian", "fen")
    assert [(lp.line, lp.position is not None) for lp in lines] == [(2, True), (4, True), (5, False)]
    assert "line 5" in lines[2].error.message
    start = Position.start("italian").hub()
    lines = read_position_lines(f"{start}\nWbbb\n", "p.txt", "italian", "hub")
    assert lines[0].position == Position.start("italian") and lines[1].error is not None


def test_detect_format(tmp_path):
    assert detect_format("a.pdn", "") == "pdn"
    assert detect_format("a.txt", '[Event "x"]\n1. 22-18') == "pdn"
    assert detect_format("a.txt", "# c\nW:W21:B1\n") == "fen"
    assert detect_format("a.txt", Position.start("brazilian").hub()) == "hub"
