"""Kamakura rule tests: each scenario holds the engine to a decision of docs/rules.md (Kamakura, R-1..R-9)
and to the state and action semantics of sim/kamakura/game.py, through the public readable API only.

Boards used below (cells 0..15 row-major; line cells in LINES of kamakura_helpers):

LATIN "RYGBGBRYBGYRYRBG"      every one of the 10 lines holds one tile of each colour.
    R Y G B / G B R Y / B G Y R / Y R B G    all 24 adjacent pairs differ -> 24 swaps.

LATIN_0_4 "GYGBRBRYBGYRYRBG"  LATIN after `swap 0 4`.
    G Y G B / R B R Y / B G Y R / Y R B G
    row0 (0,1,2,3)  G Y G B: G2 Y1 B1 R0       row1 (4,5,6,7)  R B R Y: R2 B1 Y1 G0
    row2 (8..11)    B G Y R: one each          row3 (12..15)   Y R B G: one each
    col0 (0,4,8,12) G R B Y, col1 (1,5,9,13) Y B G R, col2 (2,6,10,14) G R Y B, col3 (3,7,11,15) B Y R G:
    one each;  diag (0,5,10,15) G B Y G: G2 B1 Y1 R0;  anti (3,6,9,12) B R G Y: one each.
    Largest count anywhere: 2. All 24 adjacent pairs differ.

ROWS "RRRRYYYYGGGGBBBB"   rows uniform: row0 R4, row1 Y4, row2 G4, row3 B4; every column, both diagonals one
    of each colour (diag 0,5,10,15 = R Y G B; anti 3,6,9,12 = R Y G B). Horizontal neighbours share a colour
    (no horizontal swap), all 12 vertical swaps allowed.

FAR_RED "YGBYGBYGRRBYGBRR"  the reds sit in the bottom two rows:
    Y G B Y      0  1  2  3
    G B Y G      4  5  6  7
    R R B Y      8  9 10 11
    G B R R     12 13 14 15
    row0 (0,1,2,3) Y G B Y: R0, B1. Two reds in row 0 need >= 2 + 2 = 4 swaps (each swap lifts one red one
    row; the nearest reds are cells 8, 9 in row 2), e.g. swap 4 8, swap 0 4, swap 5 9, swap 1 5.
    Four blues in row 0 need the blues at 5, 10, 13 lifted 1 + 2 + 3 = 6 rows -> >= 6 swaps.
    Same-colour neighbours: (8,9) R R and (14,15) R R -> 22 swaps.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections import Counter

import pytest

from sim import games
from tests.kamakura_helpers import (
    ADJACENT,
    COLOURS,
    CONFIG,
    LATIN,
    LINES,
    chit,
    count,
    game,
    legal,
    load,
    make_state,
    off_board,
    owned_points,
    play,
    swap_actions,
    swapped,
)

LATIN_0_4 = "GYGBRBRYBGYRYRBG"
ROWS = "RRRRYYYYGGGGBBBB"
FAR_RED = "YGBYGBYGRRBYGBRR"
LATIN_SWAPS = {f"swap {a} {b}" for a, b in ADJACENT}  # all 24

COLOUR_NAMES = ("red", "yellow", "green", "blue")


def config_data() -> dict:
    with open(CONFIG, "rb") as f:
        return tomllib.load(f)


# --------------------------------------------------------------------------------------------------------
# Self-checks of the boards this file relies on (so a wrong hand count shows up as a test-side failure).


def test_boards_used_here_are_what_the_comments_say():
    assert swapped(LATIN, 0, 4) == LATIN_0_4
    for line in range(10):
        assert sorted(LATIN[c] for c in LINES[line]) == sorted(COLOURS)
    assert swap_actions(LATIN) == LATIN_SWAPS and len(LATIN_SWAPS) == 24
    assert max(count(LATIN_0_4, col, line) for col in COLOURS for line in range(10)) == 2
    assert count(LATIN_0_4, "R", 1) == 2 and count(LATIN_0_4, "R", 0) == 0 and count(LATIN_0_4, "R", 2) == 1
    assert count(FAR_RED, "R", 0) == 0 and count(FAR_RED, "B", 0) == 1
    assert len(swap_actions(FAR_RED)) == 22
    # FAR_RED: no 3 swaps give two reds in row 0 (brute force), the 4 listed swaps do.
    frontier = {FAR_RED}
    for _ in range(3):
        frontier = {swapped(b, x, y) for b in frontier for x, y in ADJACENT if b[x] != b[y]} | frontier
    assert max(count(b, "R", 0) for b in frontier) < 2
    b = FAR_RED
    for x, y in ((4, 8), (0, 4), (5, 9), (1, 5)):
        assert b[x] != b[y]
        b = swapped(b, x, y)
    assert count(b, "R", 0) == 2 and b == "RRBYYGYGGBBYGBRR"


# --------------------------------------------------------------------------------------------------------
# R-1 initial layout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r1_default_layout_is_the_latin_square(players):
    """R-1: the default layout is the printed diagonal Latin square; every line holds one tile of each
    colour."""
    assert config_data()["rules"]["layout"] == LATIN
    g = game(players)
    for seed in (0, 1, 7, 12345):
        board = g.to_dict(g.new_state(seed=seed))["board"]
        assert board == LATIN
        for line in range(10):
            assert Counter(board[c] for c in LINES[line]) == Counter(COLOURS), (line, board)


@pytest.fixture(scope="module")
def random_layout_game(tmp_path_factory):
    text = CONFIG.read_text()
    new, n = re.subn(r"""(?m)^(\s*)layout\s*=\s*["'][^"']*["']""", r'\1layout = "random"', text)
    assert n == 1, "could not find the layout key in base.toml"
    path = tmp_path_factory.mktemp("kamakura") / "random_layout.toml"
    path.write_text(new)
    return games.load("kamakura", config=str(path), players=3)


def test_r1_random_layout_is_seeded_with_four_tiles_of_each_colour(random_layout_game):
    """R-1 knob layout = "random": uniform seeded shuffle of the 16 tiles."""
    g = random_layout_game
    boards = {}
    for seed in range(12):
        b1 = g.to_dict(g.new_state(seed=seed))["board"]
        b2 = g.to_dict(g.new_state(seed=seed))["board"]
        assert b1 == b2, "same seed must give the same board"
        assert Counter(b1) == Counter({c: 4 for c in COLOURS})
        boards[seed] = b1
    assert len(set(boards.values())) > 1, "different seeds never changed the layout"
    assert any(b != LATIN for b in boards.values())


# --------------------------------------------------------------------------------------------------------
# R-2 chit placement


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r2_each_line_offers_one_chit_per_colour_from_the_config_set(players):
    """R-2: each colour's 10 chits are dealt one to each line (ids 10*colour+line); the multiset per colour is
    the config's."""
    data = config_data()
    g = game(players)
    for seed in (0, 3, 99):
        chits = g.to_dict(g.new_state(seed=seed))["chits"]
        assert [c["id"] for c in chits] == list(range(40))
        assert all(c["owner"] is None and c["spent"] is False for c in chits)
        for colour, name in enumerate(COLOUR_NAMES):
            dealt = sorted(
                (c["icons"], c["points"], c["power"]) for c in chits[10 * colour : 10 * colour + 10]
            )
            want = sorted((c["icons"], c["points"], c["power"]) for c in data["chits"][name])
            assert dealt == want, (name, seed)


def test_r2_chit_shuffle_is_seeded():
    """R-2: the shuffle is seeded - same seed same chits (whole state), different seeds differ somewhere."""
    g = game(3)
    arrangements = set()
    for seed in range(10):
        d1 = g.to_dict(g.new_state(seed=seed))
        d2 = g.to_dict(g.new_state(seed=seed))
        assert d1 == d2
        arrangements.add(tuple((c["icons"], c["points"], c["power"]) for c in d1["chits"]))
    assert len(arrangements) > 1, "chits were not shuffled"


# --------------------------------------------------------------------------------------------------------
# R-3 default chit set


def test_r3_default_chit_set_totals_100_points():
    """R-3: per colour icons 1x4, 2x3, 3x2, 4x1; points = icons (blue doubled); power = icons (blue none);
    total 100."""
    g = game(3)
    chits = g.to_dict(g.new_state(seed=5))["chits"]
    assert sum(c["points"] for c in chits) == 100
    for colour in range(4):
        mine = chits[10 * colour : 10 * colour + 10]
        assert sorted(c["icons"] for c in mine) == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4]
        for c in mine:
            assert c["points"] == c["icons"] * (2 if colour == 3 else 1)
            assert c["power"] == (0 if colour == 3 else c["icons"])


# --------------------------------------------------------------------------------------------------------
# R-4 order chits


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_new_state_order_chits(players):
    """R-4: seat k (from 1) has k extra moves for k >= 2, seat 1 none; the start player's is face up
    (spent)."""
    g = game(players)
    s = g.new_state(seed=11)
    d = g.to_dict(s)
    assert d["players"] == players and d["to_move"] == 0
    assert d["order_moves"] == [0, 2, 3, 4][:players]
    assert d["order_spent"] == [True] + [False] * (players - 1)
    assert d["passed"] == [False] * players
    assert "use order" not in legal(g, s)


def test_r4_order_chit_usable_from_the_first_turn_but_never_by_seat_0():
    """R-4: seat 1 may use its order chit on its very first turn; seat 0 is never offered `use order`."""
    g = game(3)
    s = g.new_state(seed=2)
    acts = legal(g, s)
    assert "use order" not in acts
    # default layout: every 1-icon chit is eligible
    gain = sorted(a for a in acts if a.startswith("gain "))[0]
    s = play(g, s, gain, "end")
    assert g.to_dict(s)["to_move"] == 1
    assert "use order" in legal(g, s)
    # Seat 0 with an order chit that still says unspent but has 0 moves: not offered either.
    g, s = load(make_state(chits={0: chit(1)}, order_moves=[0, 2, 3], order_spent=[False, False, False]))
    assert "use order" not in legal(g, s)


@pytest.mark.parametrize(
    "seat,order_moves",
    [(1, [0, 2, 3]), (2, [0, 2, 3]), (1, [0, 4, 1]), (2, [0, 4, 1])],
)
def test_r4_order_chit_grants_its_moves_as_extra_swaps(seat, order_moves):
    """R-4 (+knob order_chit_moves): after `use order` seat k has its chit's moves as extra swaps, on top of
    the free one; the chit stays spent on the next turn."""
    # LATIN; chit 0 (red, row 0) and chit 10 (yellow, row 0) need 1 tile: eligible. Swapping 12<->13 moves
    # tiles inside row 3 only, so row 0 is never touched; after either parity all 24 pairs still differ.
    others_passed = [p != seat for p in range(3)]
    d = make_state(
        chits={0: chit(1), 10: chit(1)},
        to_move=seat,
        order_moves=order_moves,
        order_spent=[True, False, False],
        passed=others_passed,
    )
    g, s = load(d)
    board = LATIN
    assert legal(g, s) == LATIN_SWAPS | {"use order", "gain 0", "gain 10"}
    s = play(g, s, "swap 12 13")
    board = swapped(board, 12, 13)
    assert legal(g, s) == {"use order", "gain 0", "gain 10"}  # free swap used, no more swaps
    s = play(g, s, "use order")
    for _ in range(order_moves[seat]):
        assert legal(g, s) == swap_actions(board) | {"gain 0", "gain 10"}  # `use order` is one-time
        s = play(g, s, "swap 12 13")
        board = swapped(board, 12, 13)
    assert legal(g, s) == {"gain 0", "gain 10"}  # 1 + moves swaps made, none left
    s = play(g, s, "gain 0", "end")
    d = g.to_dict(s)
    assert d["board"] == board  # swaps of a completed turn stay
    want_spent = [True, False, False]
    want_spent[seat] = True
    assert d["order_spent"] == want_spent
    assert d["to_move"] == seat  # everybody else has passed
    assert legal(g, s) == swap_actions(board) | {"gain 10"}  # no `use order` any more


# --------------------------------------------------------------------------------------------------------
# R-5 activation


def test_r5_chit_gained_this_turn_cannot_be_used_until_next_turn():
    """R-5: a chit gained this turn cannot be activated this turn; on the owner's next turn it can."""
    # LATIN, 2 players, seat 1 already out so seat 0 moves again. Chit 0 (red row 0) and chit 10 (yellow row
    # 0, power 1) need 1 tile: both eligible. Every other chit needs 4.
    d = make_state(chits={0: chit(1), 10: chit(1, power=1)}, players=2, passed=[False, True])
    g, s = load(d)
    assert legal(g, s) == LATIN_SWAPS | {"gain 0", "gain 10"}
    s = play(g, s, "gain 10")
    assert legal(g, s) == {"end"}  # no `use 10` (gained this turn), 1 gain allowed
    s = play(g, s, "end")
    d = g.to_dict(s)
    assert d["to_move"] == 0
    assert d["chits"][10]["owner"] == 0 and d["chits"][10]["spent"] is False
    assert legal(g, s) == LATIN_SWAPS | {"gain 0", "use 10"}


def test_r5_activation_is_one_time_and_unused_swaps_are_lost():
    """R-5: an activated chit stays spent on later turns; unused applications of a red are lost at the end of
    the turn."""
    # LATIN, 2 players (seat 1 out). Chits 0 and 10 (row 0) eligible. Seat 0 owns red chit 1 with power 2.
    d = make_state(
        chits={0: chit(1), 10: chit(1), 1: chit(2, 2, 2)}, owners={1: 0}, players=2, passed=[False, True]
    )
    g, s = load(d)
    assert legal(g, s) == LATIN_SWAPS | {"use 1", "gain 0", "gain 10"}
    s = play(g, s, "use 1")
    assert legal(g, s) == LATIN_SWAPS | {"gain 0", "gain 10"}
    s = play(g, s, "gain 0", "end")  # the 3 swaps of this turn are never made
    d = g.to_dict(s)
    assert d["chits"][1]["spent"] is True and d["chits"][1]["owner"] == 0
    assert d["to_move"] == 0 and d["board"] == LATIN
    assert legal(g, s) == LATIN_SWAPS | {"gain 10"}  # no `use 1`: spent
    s = play(g, s, "swap 12 13")
    assert legal(g, s) == {"gain 10"}  # only the free swap this turn


def test_r5_several_activations_in_one_turn_add_up():
    """R-5 + red power: two reds of power 1 in one turn give 1 + 1 + 1 swaps."""
    d = make_state(chits={0: chit(1), 1: chit(1, 1, 1), 2: chit(1, 1, 1)}, owners={1: 0, 2: 0})
    g, s = load(d)
    s = play(g, s, "use 1", "use 2")
    board = LATIN
    for _ in range(3):
        assert legal(g, s) == swap_actions(board) | {"gain 0"}
        s = play(g, s, "swap 12 13")
        board = swapped(board, 12, 13)
    assert legal(g, s) == {"gain 0"}


def test_r5_after_first_gain_red_is_not_offered_but_yellow_and_green_are():
    """R-5 / API `use C`: before the first gain red, yellow and green may be used; after it yellow/green
    only."""
    # LATIN; chit 0 (red row 0) eligible. Seat 0 owns red 1, yellow 11, green 21 (power 1 each), a spent red
    # 2, a blue 31 (power 0); seat 1 owns red 5 (power 1). Only seat 0's unspent powered chits are offered.
    d = make_state(
        chits={
            0: chit(1),
            1: chit(1, 1, 1),
            11: chit(1, 1, 1),
            21: chit(1, 1, 1),
            2: chit(2, 2, 2),
            31: chit(1, 2, 0),
            5: chit(1, 1, 1),
        },
        owners={1: 0, 11: 0, 21: 0, 2: 0, 31: 0, 5: 1},
        spent={2},
    )
    g, s = load(d)
    assert legal(g, s) == LATIN_SWAPS | {"use 1", "use 11", "use 21", "gain 0"}
    s = play(g, s, "gain 0")
    # No swaps (R-7), no red, 1 gain allowed and made; row 0's other chits need 4 tiles, green power 1 -> 3.
    assert legal(g, s) == {"end", "use 11", "use 21"}
    s = play(g, s, "use 11")
    assert legal(g, s) == {"end", "use 21"}


def test_api_spent_flag_is_set_when_activated():
    """A state dict's `spent` is true once a chit's power has been activated (also mid-turn); the order chit
    too."""
    d = make_state(
        chits={0: chit(1), 11: chit(1, 1, 1)}, owners={11: 1}, to_move=1, order_spent=[True, False, False]
    )
    g, s = load(d)
    s = play(g, s, "use 11", "use order")
    d = g.to_dict(s)
    assert d["chits"][11]["spent"] is True
    assert d["order_spent"][1] is True


# --------------------------------------------------------------------------------------------------------
# R-6 green and yellow powers


@pytest.mark.parametrize("gmin", [1, 2])
def test_r6_green_lowers_by_at_most_its_power_never_below_the_minimum(gmin):
    """R-6 (knob green_min_requirement via "rules"): a green of power p lowers one chit's requirement by 1..p;
    the lowered requirement is never below green_min_requirement; an unlowered chit is unaffected by it."""
    # LATIN_0_4 (see module doc). Seat 0 owns green 23 (power 1).
    #   chit 0  red row0, R0, icons 1: lowering to 0 is never allowed            -> never
    #   chit 1  red row1, R2, icons 3: lowered to 2                              -> with green, any gmin <= 2
    #   chit 2  red row2, R1, icons 2: lowered to 1                              -> with green iff gmin == 1
    #   chit 3  red row3, R1, icons 3: needs d = 2 > power 1                     -> never
    #   chit 11 yellow row1, Y1, icons 1: plain                                  -> always
    # every other chit needs 4 (largest count 2, lowered at most to 3)          -> never
    d = make_state(
        board=LATIN_0_4,
        chits={0: chit(1), 1: chit(3), 2: chit(2), 3: chit(3), 11: chit(1), 23: chit(1, 1, 1)},
        owners={23: 0},
        rules={"green_min_requirement": gmin},
    )
    g, s = load(d)
    swaps = swap_actions(LATIN_0_4)
    assert len(swaps) == 24
    assert legal(g, s) == swaps | {"use 23", "gain 11"}
    s = play(g, s, "use 23")
    want = {"gain 11", "gain 1"} | ({"gain 2"} if gmin == 1 else set())
    assert legal(g, s) == swaps | want
    s2 = play(g, s, "gain 1")
    assert legal(g, s2) == {"end"}
    if gmin == 2:
        with pytest.raises(ValueError):
            g.apply(s, "gain 2")


def test_r6_default_green_min_requirement_comes_from_config():
    """R-6 default green_min_requirement = 1 when the state carries no "rules" override."""
    assert config_data()["rules"]["green_min_requirement"] == 1
    d = make_state(board=LATIN_0_4, chits={2: chit(2), 23: chit(1, 1, 1)}, owners={23: 0})
    g, s = load(d)
    s = play(g, s, "use 23")
    assert "gain 2" in legal(g, s)


def test_r6_one_green_helps_one_chit_two_greens_two_chits_with_a_yellow():
    """R-6 green: one green helps exactly one gained chit; two greens in one turn help two different chits
    (with a yellow); two greens never combine on one chit."""
    # LATIN (every count 1). Row 0: chit 0 icons 2 (d=1), chit 10 icons 2 (d=1), chit 20 icons 3 (d=2),
    # chit 30 icons 4. Seat 0 owns yellow 15 (power 1) and greens 24, 26 (power 1 each).
    d = make_state(
        chits={0: chit(2), 10: chit(2), 20: chit(3), 15: chit(1, 1, 1), 24: chit(1, 1, 1), 26: chit(1, 1, 1)},
        owners={15: 0, 24: 0, 26: 0},
    )
    g, s = load(d)
    assert legal(g, s) == LATIN_SWAPS | {"use 15", "use 24", "use 26"}  # a gain is reachable: no pass
    s = play(g, s, "use 15", "use 24")
    assert legal(g, s) == LATIN_SWAPS | {"use 26", "gain 0", "gain 10"}
    s = play(g, s, "gain 0")  # green 24 helps chit 0
    assert legal(g, s) == {"end", "use 26"}  # chit 10 would need a second green
    s = play(g, s, "use 26")
    assert legal(g, s) == {"end", "gain 10"}
    s = play(g, s, "gain 10")
    assert legal(g, s) == {"end"}

    # Both greens active before any gain: still never both on chit 20 (needs 2, each gives 1).
    g, s = load(d)
    s = play(g, s, "use 24", "use 26")
    assert legal(g, s) == LATIN_SWAPS | {"use 15", "gain 0", "gain 10"}
    s = play(g, s, "gain 10")
    assert legal(g, s) == {"end", "use 15"}  # no yellow yet: one gain only
    s = play(g, s, "use 15")
    assert legal(g, s) == {"end", "gain 0"}


def test_r6_eligibility_is_an_exact_count_and_green_only_lowers():
    """Eligible means tile count == icons (docs/rules.md gain phase); a green lowers the requirement,
    never raises it, so a line holding more tiles than the chit's icons never qualifies."""
    # ROWS: row0 has 4 reds; chit 0 (red row 0) icons 3 -> not eligible, with or without green 21 (power 1).
    # Chits 11, 22, 33 (icons 4 on the uniform rows 1-3) are eligible; every other line has 1 of each colour
    # and its icons-4 chit would need d = 3 > 1.
    d = make_state(board=ROWS, chits={0: chit(3), 21: chit(1, 1, 1)}, owners={21: 0})
    g, s = load(d)
    vertical = swap_actions(ROWS)
    assert len(vertical) == 12
    assert legal(g, s) == vertical | {"use 21", "gain 11", "gain 22", "gain 33"}
    s = play(g, s, "use 21")
    assert legal(g, s) == vertical | {"gain 11", "gain 22", "gain 33"}


@pytest.mark.parametrize("first", ["gain 0", "gain 10"])
def test_r6_engine_assigns_the_smallest_sufficient_green(first):
    """API `gain C`: the engine assigns the smallest sufficient activated green, so the bigger one is left."""
    # LATIN. Row 0: chit 0 icons 2 (needs d=1), chit 10 icons 3 (needs d=2). Seat 0 owns yellow 15 (power 1),
    # green 24 (power 1) and green 26 (power 2). Activated biggest first.
    d = make_state(
        chits={0: chit(2), 10: chit(3), 15: chit(1, 1, 1), 24: chit(1, 1, 1), 26: chit(2, 2, 2)},
        owners={15: 0, 24: 0, 26: 0},
    )
    g, s = load(d)
    s = play(g, s, "use 15", "use 26", "use 24")
    assert legal(g, s) == LATIN_SWAPS | {"gain 0", "gain 10"}
    s = play(g, s, first)
    other = "gain 10" if first == "gain 0" else "gain 0"
    assert legal(g, s) == {"end", other}
    s = play(g, s, other)
    assert legal(g, s) == {"end"}


def test_r6_yellow_extra_gains_only_in_the_same_line_each_eligible():
    """R-6 yellow: extra chits must come from the line of the first gain and each must be eligible on its
    own."""
    # LATIN. Eligible (icons 1): 0 and 10 (row 0), 1 (red row 1), 4 (red column 0). Chit 30 (blue row 0)
    # icons 2: not eligible. Seat 0 owns yellow 19 (power 2).
    d = make_state(
        chits={0: chit(1), 10: chit(1), 1: chit(1), 4: chit(1), 30: chit(2), 19: chit(2, 2, 2)},
        owners={19: 0},
    )
    g, s = load(d)
    gains = {"gain 0", "gain 10", "gain 1", "gain 4"}
    assert legal(g, s) == LATIN_SWAPS | gains | {"use 19"}
    s = play(g, s, "use 19")
    assert legal(g, s) == LATIN_SWAPS | gains
    s = play(g, s, "gain 0")
    assert legal(g, s) == {"end", "gain 10"}  # not 1 or 4 (other lines), not 30 (not eligible)
    s = play(g, s, "gain 10")
    assert legal(g, s) == {"end"}


def test_r6_yellow_count_limited_by_one_plus_powers_and_usable_after_first_gain():
    """R-6 yellow: at most 1 + activated yellow powers gains; a yellow may be activated after the first
    gain."""
    # LATIN. Row 0: chits 0, 10, 20 icons 1 (eligible), 30 icons 4. Seat 0 owns yellows 19 and 18 (power 1).
    d = make_state(
        chits={0: chit(1), 10: chit(1), 20: chit(1), 19: chit(1, 1, 1), 18: chit(1, 1, 1)},
        owners={19: 0, 18: 0},
    )
    g, s = load(d)
    s = play(g, s, "gain 0")
    assert legal(g, s) == {"end", "use 19", "use 18"}
    s = play(g, s, "use 19")
    assert legal(g, s) == {"end", "use 18", "gain 10", "gain 20"}
    s = play(g, s, "gain 20")
    assert legal(g, s) == {"end", "use 18"}  # 2 gains = 1 + 1
    with pytest.raises(ValueError):
        g.apply(s, "gain 10")
    s = play(g, s, "use 18", "gain 10")
    assert legal(g, s) == {"end"}
    s = play(g, s, "end")
    d = g.to_dict(s)
    assert [c["owner"] for c in d["chits"] if c["id"] in (0, 10, 20)] == [0, 0, 0]


# --------------------------------------------------------------------------------------------------------
# R-7 moves before gains


def test_r7_no_swap_after_the_first_gain():
    """R-7: once a chit is gained no more swaps, even with red swaps left."""
    d = make_state(chits={0: chit(1), 1: chit(2, 2, 2)}, owners={1: 0})
    g, s = load(d)
    s = play(g, s, "use 1", "swap 12 13")
    assert legal(g, s) == swap_actions(swapped(LATIN, 12, 13)) | {"gain 0"}
    s = play(g, s, "gain 0")
    assert legal(g, s) == {"end"}
    before = g.to_dict(s)
    with pytest.raises(ValueError):
        g.apply(s, "swap 12 13")
    assert g.to_dict(s) == before


# --------------------------------------------------------------------------------------------------------
# R-8 passing


def test_r8_pass_is_the_only_action_when_nothing_is_reachable():
    """R-8: LATIN with every chit needing 4 tiles; seat 0 has 1 free swap, no powers: must pass."""
    g, s = load(make_state())
    assert legal(g, s) == {"pass"}
    for a in ("swap 0 1", "gain 0", "end", "use order"):
        with pytest.raises(ValueError):
            g.apply(s, a)


@pytest.mark.parametrize("power,reachable", [(3, True), (2, False)])
def test_r8_reachability_counts_every_swap_a_red_can_buy(power, reachable):
    """R-8: the only gain (chit 0, two reds in row 0 of FAR_RED) needs 4 swaps: with a red of power 3 pass
    is not offered; with power 2 pass is the only action."""
    d = make_state(
        board=FAR_RED,
        chits={0: chit(2, 1, 0), 1: chit(3, 3, power)},
        owners={**off_board({0}, 1), 1: 0},
    )
    g, s = load(d)
    far_swaps = {
        "swap 0 1",
        "swap 1 2",
        "swap 2 3",
        "swap 4 5",
        "swap 5 6",
        "swap 6 7",
        "swap 9 10",
        "swap 10 11",
        "swap 12 13",
        "swap 13 14",
        "swap 0 4",
        "swap 1 5",
        "swap 2 6",
        "swap 3 7",
        "swap 4 8",
        "swap 5 9",
        "swap 6 10",
        "swap 7 11",
        "swap 8 12",
        "swap 9 13",
        "swap 10 14",
        "swap 11 15",
    }  # no "swap 8 9" (R R) or "swap 14 15" (R R)
    if not reachable:
        assert legal(g, s) == {"pass"}
        return
    assert legal(g, s) == far_swaps | {"use 1"}
    s = play(g, s, "use 1", "swap 4 8", "swap 0 4", "swap 5 9", "swap 1 5")
    assert legal(g, s) == {"gain 0"}
    s = play(g, s, "gain 0", "end")
    assert g.result(s)["over"] is True  # no chit left on the board
    assert legal(g, s) == set()


def test_r8_a_wasted_swap_voids_the_turn_and_nothing_is_spent():
    """R-8: after a swap that leaves the needed 4 swaps out of reach (red of power 3 not yet used), pass is
    the only action; it restores the board, leaves the red unspent and puts the player out."""
    d = make_state(
        board=FAR_RED,
        chits={0: chit(2, 1, 0), 1: chit(3, 3, 3)},
        owners={**off_board({0}, 1), 1: 0},
    )
    g, s = load(d)
    s = play(g, s, "swap 12 13")
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    d = g.to_dict(s)
    assert d["board"] == FAR_RED
    assert d["chits"][1]["spent"] is False
    assert d["passed"] == [True, False, False]
    assert d["to_move"] == 1


def test_r8_void_turn_restores_board_and_unspends_activations():
    """R-8: activate a yellow, swap away the only eligible tile with the last swap -> pass only; the pass
    restores the board, un-spends the yellow, marks the player out, hands the move on."""
    # LATIN, chit 0 (red row 0) icons 1 is the only chit not needing 4 tiles. `swap 0 4` gives LATIN_0_4 with
    # no red in row 0 and no count above 2. Seat 0 owns yellow 11 (power 1).
    d = make_state(chits={0: chit(1), 11: chit(1, 1, 1)}, owners={11: 0})
    g, s = load(d)
    s = play(g, s, "use 11", "swap 0 4")
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    d = g.to_dict(s)
    assert d["board"] == LATIN
    assert d["chits"][11]["spent"] is False and d["chits"][11]["owner"] == 0
    assert d["chits"][0]["owner"] is None
    assert d["passed"] == [True, False, False]
    assert d["to_move"] == 1
    assert d["order_spent"] == [True, False, False]


def test_r8_void_turn_unspends_the_order_chit():
    """R-8: seat 1 uses its order chit, makes all 3 swaps and breaks the only eligible line: pass only; the
    order chit is unspent again afterwards."""
    d = make_state(chits={0: chit(1)}, to_move=1, order_moves=[0, 2, 3], order_spent=[True, False, False])
    g, s = load(d)
    s = play(g, s, "use order", "swap 0 4", "swap 0 1")
    # board YGGBRBRYBGYRYRBG: one swap left and `swap 0 4` would bring a red back into row 0
    assert "pass" not in legal(g, s)
    s = play(g, s, "swap 0 1")  # back to LATIN_0_4, no swaps left
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    d = g.to_dict(s)
    assert d["board"] == LATIN
    assert d["order_spent"] == [True, False, False]
    assert d["passed"] == [False, True, False]
    assert d["to_move"] == 2


def test_r8_passed_players_never_move_again_and_order_moves_count_for_reachability():
    """R-8: FAR_RED with chit 0 (needs 4 swaps) and chit 30 (needs 6) on the board. Seat 0 (1 swap) and seat 1
    (1 + 2) must pass; seat 2 (1 + 3) may not; it gains, then moves again as the only one left, must pass,
    and the game ends (every player passed)."""
    d = make_state(
        board=FAR_RED,
        chits={0: chit(2, 3, 0), 30: chit(4, 8, 0)},
        owners=off_board({0, 30}, 0),
        order_moves=[0, 2, 3],
        order_spent=[True, False, False],
    )
    g, s = load(d)
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    assert g.to_dict(s)["to_move"] == 1
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    d = g.to_dict(s)
    assert d["to_move"] == 2 and d["passed"] == [True, True, False]
    assert "pass" not in legal(g, s) and "use order" in legal(g, s)
    s = play(g, s, "use order", "swap 4 8", "swap 0 4", "swap 5 9", "swap 1 5", "gain 0", "end")
    d = g.to_dict(s)
    after = "RRBYYGYGGBBYGBRR"
    assert d["board"] == after
    assert d["to_move"] == 2 and d["chits"][0]["owner"] == 2
    assert d["order_spent"] == [True, False, True]  # seat 1's pass left its order chit unused
    assert g.result(s)["over"] is False
    assert legal(g, s) == {"pass"}  # chit 30 needs 4 blues in row 0, one swap adds at most one
    s = play(g, s, "pass")
    d = g.to_dict(s)
    assert d["passed"] == [True, True, True]
    assert d["board"] == after
    r = g.result(s)
    assert r["over"] is True
    assert legal(g, s) == set()
    assert r["scores"] == [38, 0, 3]


def test_r8_turn_order_skips_passed_players():
    """R-8: a passed player never gets to_move again; turns go clockwise among the others."""
    d = make_state(chits={0: chit(1), 1: chit(1), 2: chit(1)}, passed=[False, True, False])
    g, s = load(d)
    s = play(g, s, "gain 0", "end")
    assert g.to_dict(s)["to_move"] == 2
    s = play(g, s, "gain 1", "end")
    assert g.to_dict(s)["to_move"] == 0
    s = play(g, s, "gain 2", "end")
    assert g.to_dict(s)["to_move"] == 2


def test_r8_voluntary_pass_knob():
    """R-8 knob voluntary_pass: with it, pass is also legal before the first gain (never after); default
    off."""
    base = {"chits": {0: chit(1)}}
    g, s = load(make_state(**base))
    assert "pass" not in legal(g, s)
    with pytest.raises(ValueError):
        g.apply(s, "pass")
    g, s = load(make_state(**base, rules={"voluntary_pass": True}))
    assert legal(g, s) == LATIN_SWAPS | {"gain 0", "pass"}
    s1 = play(g, s, "swap 12 13")
    assert legal(g, s1) == {"gain 0", "pass"}
    s2 = play(g, s1, "gain 0")
    assert legal(g, s2) == {"end"}
    s3 = play(g, s1, "pass")
    d = g.to_dict(s3)
    assert d["board"] == LATIN and d["passed"] == [True, False, False] and d["to_move"] == 1
    assert d["chits"][0]["owner"] is None


# --------------------------------------------------------------------------------------------------------
# R-9 end of game and tie-break


def _last_chit_state(seat_chits: list[range], last_points: int, extra_points: dict | None = None, rules=None):
    """LATIN, only chit 0 (icons 1, eligible) on the board; every other chit owned as given (1 point each)."""
    owners = {cid: seat for seat, ids in enumerate(seat_chits) for cid in ids}
    assert sorted(owners) == list(range(1, 40))
    chits = {0: chit(1, last_points)}
    for cid, p in (extra_points or {}).items():
        chits[cid] = chit(4, p)
    return make_state(chits=chits, owners=owners, rules=rules)


TWO_WAY = [range(1, 14), range(14, 28), range(28, 40)]  # 13, 14, 12 points; seat 0 gains 1 -> 14, 14, 12


@pytest.mark.parametrize(
    "tie_break,winners,decided",
    [("last_in_order", [1], True), ("first_in_order", [0], True), ("shared", [0, 1], False)],
)
def test_r9_tie_break_two_way(tie_break, winners, decided):
    """R-9: the last gain empties the board and ties seats 0 and 1 on 14; the knob decides the winners."""
    g, s = load(_last_chit_state(TWO_WAY, 1, rules={"tie_break": tie_break}))
    assert g.result(s)["over"] is False
    s = play(g, s, "gain 0", "end")
    r = g.result(s)
    assert r["over"] is True
    assert r["scores"] == [14, 14, 12]
    assert r["winners"] == winners
    assert r["tie"] is True
    assert r["decided_by_tiebreak"] is decided
    assert legal(g, s) == set()
    with pytest.raises(ValueError):
        g.apply(s, "end")


def test_r9_default_tie_break_is_last_in_order():
    """R-9 default: the tied player latest in turn order wins (not the one who moved last)."""
    assert config_data()["rules"]["tie_break"] == "last_in_order"
    g, s = load(_last_chit_state(TWO_WAY, 1))
    s = play(g, s, "gain 0", "end")
    assert g.result(s)["winners"] == [1]


@pytest.mark.parametrize(
    "tie_break,winners", [("last_in_order", [2]), ("first_in_order", [0]), ("shared", [0, 1, 2])]
)
def test_r9_tie_break_three_way(tie_break, winners):
    """R-9: 15/15/15 after the last gain."""
    seats = [range(1, 14), range(14, 27), range(27, 40)]  # 13 chits each
    g, s = load(_last_chit_state(seats, 2, extra_points={14: 3, 27: 3}, rules={"tie_break": tie_break}))
    s = play(g, s, "gain 0", "end")
    r = g.result(s)
    assert r["over"] is True and r["scores"] == [15, 15, 15]
    assert r["winners"] == winners and r["tie"] is True


def test_r9_no_tie():
    g, s = load(_last_chit_state(TWO_WAY, 5))
    s = play(g, s, "gain 0", "end")
    r = g.result(s)
    assert r["over"] is True and r["scores"] == [18, 14, 12]
    assert r["winners"] == [0] and r["tie"] is False and r["decided_by_tiebreak"] is False


def test_r9_game_ends_when_every_player_has_passed():
    """End condition (R-9 section): every player passed; chits may remain; scores count owned chits."""
    # LATIN, every chit on the board needs 4 tiles; seats 1, 2 already out; seat 0 must pass.
    owners = {1: 0, 2: 1, 3: 2, 31: 2}
    d = make_state(
        chits={1: chit(4, 4), 2: chit(4, 4), 3: chit(2, 2), 31: chit(1, 2)},
        owners=owners,
        passed=[False, True, True],
        rules={"tie_break": "first_in_order"},
    )
    g, s = load(d)
    assert legal(g, s) == {"pass"}
    s = play(g, s, "pass")
    r = g.result(s)
    assert r["over"] is True and legal(g, s) == set()
    assert r["scores"] == [4, 4, 4]
    assert r["winners"] == [0] and r["tie"] is True and r["decided_by_tiebreak"] is True


# --------------------------------------------------------------------------------------------------------
# R-20 the other reading of "the last player to go breaks the tie": the tied player whose own last turn
# (its final `end` or `pass`) came latest


def _with_turns(d: dict, turn: int, last_turn: list, out_turn: list | None = None) -> dict:
    return {**d, "turn": turn, "last_turn": last_turn, **({"out_turn": out_turn} if out_turn else {})}


@pytest.mark.parametrize("tie_break,winners", [("last_in_order", [1]), ("last_to_play", [0]),
                                               ("first_in_order", [0]), ("shared", [0, 1])])
def test_r20_last_to_play_the_last_gain_ties(tie_break, winners):
    """R-20: seat 0's last gain ties seat 1 on 14; seat 0 went last, so under `last_to_play` it wins,
    while `last_in_order` picks seat 1 (higher in turn order): the readings pick different winners."""
    d = _with_turns(_last_chit_state(TWO_WAY, 1, rules={"tie_break": tie_break}), 30, [27, 28, 29])
    g, s = load(d)
    s = play(g, s, "gain 0", "end")
    r = g.result(s)
    assert r["over"] is True and r["scores"] == [14, 14, 12]
    assert r["winners"] == winners
    assert r["decided_by_tiebreak"] is (tie_break != "shared")
    assert g.to_dict(s)["last_turn"] == [30, 28, 29]


def test_r20_last_to_play_passed_players_drop_out_early():
    """R-20: every player has passed; seats 1 and 2 tie on 5 and passed at turns 5 and 2, so under
    `last_to_play` seat 1 (out later) wins, where `last_in_order` gives seat 2."""
    owners = {1: 0, 2: 1, 3: 2, 31: 2}
    chits = {1: chit(4, 4), 2: chit(4, 5), 3: chit(2, 2), 31: chit(1, 3)}
    for tie_break, winner in (("last_to_play", 1), ("last_in_order", 2), ("first_in_order", 1)):
        d = make_state(chits=chits, owners=owners, passed=[False, True, True], rules={"tie_break": tie_break})
        g, s = load(_with_turns(d, 9, [8, 5, 2], [None, 5, 2]))
        assert legal(g, s) == {"pass"}
        s = play(g, s, "pass")
        r = g.result(s)
        assert r["over"] is True and r["scores"] == [4, 5, 5] and r["tie"] is True
        assert r["winners"] == [winner], tie_break
        assert g.to_dict(s)["last_turn"] == [9, 5, 2]


def test_r20_last_turn_in_the_state_dict():
    """R-20: `last_turn` round-trips; a passed seat's defaults to its out_turn; bad values are refused."""
    d = _with_turns(_last_chit_state(TWO_WAY, 1), 30, [27, 28, 29])
    g, s = load(d)
    assert g.to_dict(s)["last_turn"] == [27, 28, 29]
    g, s = load({**make_state(passed=[False, True, False]), "turn": 6, "out_turn": [None, 4, None]})
    assert g.to_dict(s)["last_turn"] == [None, 4, None]
    for bad, words in (([27, 28, 30], "last_turn[2] must be a finished turn"),
                       ([27, "x", 29], "last_turn must list one int per seat"),
                       ([27, 28], "last_turn must list one int per seat")):
        with pytest.raises(ValueError, match=re.escape(words)):
            g.from_dict(_with_turns(_last_chit_state(TWO_WAY, 1), 30, bad))
    with pytest.raises(ValueError, match="must be its out_turn 4"):
        g.from_dict({**make_state(passed=[False, True, False]), "turn": 6, "out_turn": [None, 4, None],
                     "last_turn": [None, 5, None]})


def test_scores_are_sums_of_owned_points():
    d = make_state(
        chits={0: chit(1), 5: chit(4, 7), 38: chit(4, 8), 12: chit(4, 3)}, owners={5: 0, 38: 2, 12: 2}
    )
    g, s = load(d)
    assert g.result(s)["scores"] == [7, 0, 11]
    assert g.result(s)["over"] is False
    s = play(g, s, "gain 0")
    dd = g.to_dict(s)
    assert g.result(s)["scores"] == [owned_points(dd, p) for p in range(3)]


# --------------------------------------------------------------------------------------------------------
# API: legal action sets, illegal actions, immutability, round trip


def test_legal_actions_rows_board_no_same_colour_swaps():
    """API `swap A B`: only different-colour neighbours; ROWS board offers the 12 vertical swaps and the four
    uniform rows' chits (icons 4)."""
    g, s = load(make_state(board=ROWS))
    want = {
        "swap 0 4",
        "swap 1 5",
        "swap 2 6",
        "swap 3 7",
        "swap 4 8",
        "swap 5 9",
        "swap 6 10",
        "swap 7 11",
        "swap 8 12",
        "swap 9 13",
        "swap 10 14",
        "swap 11 15",
        "gain 0",
        "gain 11",
        "gain 22",
        "gain 33",
    }
    assert legal(g, s) == want
    with pytest.raises(ValueError):
        g.apply(s, "swap 0 1")  # R R
    s = play(g, s, "swap 0 4")  # row0 Y R R R, row1 R Y Y Y
    assert legal(g, s) == {"gain 22", "gain 33"}


def test_legal_actions_latin_start():
    g, s = load(make_state(chits={0: chit(1)}))
    assert legal(g, s) == LATIN_SWAPS | {"gain 0"}
    acts = g.legal_actions(s)
    assert acts == g.legal_actions(g.from_dict(g.to_dict(s))), "order must be stable"


@pytest.mark.parametrize(
    "action",
    [
        "swap 0 2",
        "swap 3 4",
        "swap 1 0",
        "swap 0 16",
        "swap 0",
        "gain 1",
        "gain 40",
        "use 5",
        "use 1",
        "use order",
        "end",
        "pass",
        "",
        "jump",
        "gain zero",
    ],
)
def test_illegal_action_raises_value_error_and_leaves_state(action):
    # LATIN, chit 0 eligible; seat 0 owns red 1 but it is spent; seat 1 owns red 5.
    d = make_state(chits={0: chit(1), 1: chit(1, 1, 1), 5: chit(1, 1, 1)}, owners={1: 0, 5: 1}, spent={1})
    g, s = load(d)
    before = g.to_dict(s)
    acts = legal(g, s)
    assert action not in acts
    with pytest.raises(ValueError):
        g.apply(s, action)
    assert g.to_dict(s) == before
    assert legal(g, s) == acts


def test_apply_does_not_mutate_its_input():
    d = make_state(chits={0: chit(1), 10: chit(1), 19: chit(1, 1, 1)}, owners={19: 0})
    d_copy = copy.deepcopy(d)
    g, s = load(d)
    assert d == d_copy, "from_dict changed its argument"
    before = g.to_dict(s)
    for a in ("swap 0 4", "use 19", "gain 0"):
        s2 = g.apply(s, a)
        assert g.to_dict(s) == before
        assert g.to_dict(s2) != before or a.startswith("use")
    s2 = play(g, s, "use 19", "gain 0")
    mid = g.to_dict(s2)
    s3 = play(g, s2, "gain 10", "end")
    assert g.to_dict(s2) == mid
    assert g.to_dict(s3)["to_move"] == 1


def test_round_trip_mid_turn_keeps_swaps_and_powers():
    """API: from_dict(to_dict(s)) reproduces s exactly, also mid-turn (swaps left, greens assigned)."""
    d = make_state(
        chits={
            0: chit(2),
            10: chit(3),
            15: chit(1, 1, 1),
            24: chit(1, 1, 1),
            26: chit(2, 2, 2),
            1: chit(2, 2, 2),
        },
        owners={15: 0, 24: 0, 26: 0, 1: 0},
    )
    g, s = load(d)
    s = play(g, s, "use 1", "swap 12 13", "use 15", "use 24", "use 26")
    s_rt = g.from_dict(g.to_dict(s))
    assert g.to_dict(s_rt) == g.to_dict(s)
    assert legal(g, s_rt) == legal(g, s)
    for st in (s, s_rt):
        x = play(g, st, "swap 12 13")  # back to LATIN, 1 of 3 swaps (free + red 2) left
        assert legal(g, x) == LATIN_SWAPS | {"gain 0", "gain 10"}
        x = play(g, x, "swap 12 13")
        # RYGBGBRYBGYRRYBG: col0 (0,4,8,12) R G B R and anti (3,6,9,12) B R G R hold 2 reds, so red chits 4
        # and 9 (icons 4) become eligible with green 26 (power 2); col1 has 2 yellows but chit 15 is owned.
        assert legal(g, x) == {"gain 0", "gain 10", "gain 4", "gain 9"}
    s = play(g, s, "gain 0")
    s_rt = g.from_dict(g.to_dict(s))
    assert g.to_dict(s_rt) == g.to_dict(s)
    assert legal(g, s_rt) == legal(g, s) == {"end", "gain 10"}  # green 26 still unassigned after round trip


def test_observe_is_to_dict():
    g = game(3)
    s = g.new_state(seed=4)
    for seat in range(3):
        assert g.observe(s, seat) == g.to_dict(s)
