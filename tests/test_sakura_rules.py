"""Sakura rule tests: each scenario holds the engine to a rule of docs/rules.md (Sakura, R-10..R-19 and the
unnumbered rules) and to the state and action semantics of the readable API (sim/sakura/game.py), through
the public readable API only.

Board (R-10, 2-4 players): gate 0, path 1..30, torii 4, sakura 12 / 20 / 28. With 5-6 players the bridges
are three spaces each: path 1..38, sakura 14 / 24 / 36.

Cards used below (configs/sakura/base.toml; order: garden, painter):
    1 E+1 P+2      2 E+1 P+3      5 E-1 P+1      9 E+1 count   10 E+1 P+1    13 E-1 leapfrog
   14 E+-1 P+1    19 E+1 P+1     20 E+2 P+2     22 E-1 P+-3   26 E+1 P+-2   27 E+1 leapfrog
   28 E+1 P+1     31 E+-1 P+-2   33 closest-2 P+1              35 E+1 P+-1   37 E+1 P+1
   40 E+-1 P+-2   42 furthest+2 P+1              45 E+1 P+-3   48 E+-1 P+3   49 E+-1 P+-1
   57 E+-1 P+2    60 E+1 P+1
Cards 40, 48, 49 and 57 ("stoppers") have an E+-1 garden: resolution waits for their owner before their
garden half, so a scenario in which the other seats hold stoppers shows the effect of the lower-numbered
card played last on its own (the engine stops in phase choose at the first stopper).

Scenarios are built with `make_state` (tests/sakura_helpers.py): a full dict, every one of the 60 cards
placed once, the deck's top given explicitly where draws matter.
"""

from __future__ import annotations

import copy
import json

import pytest

from sim import games
from tests.sakura_helpers import (
    CONFIG,
    DECK_SIZE,
    TACTICAL_CONFIG,
    all_cards,
    board,
    cards_list,
    check_cards,
    game,
    garden,
    legal,
    load,
    make_state,
    painter,
    play,
    run,
)

STOPPERS = (48, 49, 57, 40, 31)  # E+-1 gardens (the fifth only in 6-player scenarios)


def stoppers(players: int) -> dict[int, int]:
    """Stopper cards selected by every seat but the last."""
    return {seat: STOPPERS[seat] for seat in range(players - 1)}


def test_cards_used_here_are_what_the_docstring_says():
    table = {
        1: ("E+1", "P+2"), 2: ("E+1", "P+3"), 5: ("E-1", "P+1"), 9: ("E+1", "count"), 10: ("E+1", "P+1"),
        13: ("E-1", "leapfrog"), 14: ("E+-1", "P+1"), 19: ("E+1", "P+1"), 20: ("E+2", "P+2"),
        22: ("E-1", "P+-3"), 26: ("E+1", "P+-2"), 27: ("E+1", "leapfrog"), 28: ("E+1", "P+1"),
        31: ("E+-1", "P+-2"), 33: ("closest-2", "P+1"), 35: ("E+1", "P+-1"), 37: ("E+1", "P+1"),
        40: ("E+-1", "P+-2"), 42: ("furthest+2", "P+1"), 45: ("E+1", "P+-3"), 48: ("E+-1", "P+3"),
        49: ("E+-1", "P+-1"), 57: ("E+-1", "P+2"), 60: ("E+1", "P+1"),
    }
    for card, (g, p) in table.items():
        assert (garden(card), painter(card)) == (g, p), card
    assert all(garden(c) == "E+-1" for c in STOPPERS) and min(STOPPERS[:4]) == 40


def stopped_at_first_stopper(d: dict, players: int = 4) -> None:
    """After the played card resolved, the engine waits for the lowest stopper's garden choice."""
    want = sorted([STOPPERS[seat], seat] for seat in range(players - 1))
    assert d["phase"] == "choose" and d["choosing"] == "garden", d
    assert d["pending"] == want and d["to_move"] == want[0][1], (d["pending"], d["to_move"])


# --------------------------------------------------------------------------------------------------------
# Setup, R-10 geometry, the state dict


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_new_state(players):
    """Setup: Emperor on the torii, painters on the gate, 5 tokens and 5 cards each (sorted), 60 cards;
    R-10 path as played (5-6 players: bridges of three spaces, length 38, sakura 14/24/36)."""
    g = game(players)
    d = g.to_dict(g.new_state(seed=11))
    length, torii, sakura = board(players)
    assert d["game"] == "sakura" and d["players"] == players
    assert d["path_length"] == length and d["sakura"] == list(sakura) and d["emperor"] == torii
    assert d["scored"] == [False] * len(sakura)
    assert d["painters"] == [0] * players and d["tokens"] == [5] * players
    assert d["round"] == 1 and d["phase"] == "select" and d["to_move"] == 0
    assert d["selected"] == [None] * players and d["pending"] == [] and d["discard"] == []
    assert all(len(h) == 5 and h == sorted(h) for h in d["hands"])
    assert len(d["deck"]) == DECK_SIZE - 5 * players
    assert d["cards"] == cards_list()
    check_cards(d)
    if players == 2:
        assert d["court"] == {"painter": 0, "tokens": 5, "card": None}
    else:
        assert d["court"] is None
    assert legal(g, g.new_state(seed=11)) == {f"play {c}" for c in d["hands"][0]}
    assert json.loads(json.dumps(d)) == d


def test_setup_shuffle_is_seeded():
    g = game(4)
    assert g.to_dict(g.new_state(seed=5)) == g.to_dict(g.new_state(seed=5))
    deals = {json.dumps(g.to_dict(g.new_state(seed=s))["hands"]) for s in range(6)}
    assert len(deals) > 1, "different seeds never changed the deal"


def test_r10_bridges_five_players_sakura_is_further():
    """R-10: with 5 players the first sakura is at 14, so the Emperor entering 12 scores nothing."""
    d = make_state(5, emperor=11, painters=[9, 8, 7, 6, 3], selected=stoppers(5), hands={4: [10]})
    out = run(d, "play 10")
    assert out["emperor"] == 12 and out["scored"] == [False, False, False]
    assert out["tokens"] == [5] * 5
    assert out["painters"] == [9, 8, 7, 6, 4]
    stopped_at_first_stopper(out, 5)


def test_r10_move_across_a_bridge_counts_each_bridge_space():
    """R-10: with 5 players the bridge at printed 8 is spaces 8, 9, 10; P+3 from 7 lands on 10, and the
    Emperor entering 14 (the first sakura as played) scores."""
    d = make_state(5, emperor=13, painters=[7, 0, 0, 0, 0], selected={0: 45, 1: 1, 2: 2, 3: 5, 4: 9},
                   pending=[[45, 0]], phase="choose", choosing="painter")
    out = run(d, "forward")
    assert out["painters"][0] == 10
    assert out["phase"] == "select" and out["round"] == 2

    d = make_state(5, emperor=13, painters=[12, 11, 9, 7, 3], selected=stoppers(5), hands={4: [10]})
    out = run(d, "play 10")
    assert out["emperor"] == 14 and out["scored"] == [True, False, False]


# --------------------------------------------------------------------------------------------------------
# Movement: painters count only empty spaces; back beyond the path; the Emperor never below 1


def choose_painter_state(card: int, seat: int, painters: list[int], emperor: int = 16, **kw) -> dict:
    """Phase choose: `card` (seat's) waits for its painter half; every other card already resolved."""
    others = [c for c in (1, 2, 5, 9, 10) if c < card and c != card]
    sel = {}
    for s in range(len(painters)):
        sel[s] = card if s == seat else others.pop(0)
    return make_state(len(painters), emperor=emperor, painters=painters, selected=sel,
                      pending=[[card, seat]], phase="choose", choosing="painter", **kw)


def test_movement_forward_counts_only_empty_spaces():
    """Movement: a painter moving forward skips occupied spaces without counting them (P+-3 forward from
    5 over 6 and 8: 7, 9, 10)."""
    d = choose_painter_state(45, 0, [5, 6, 8, 3])
    assert legal(*load(d)) == {"forward", "back"}
    out = run(d, "forward")
    assert out["painters"] == [10, 6, 8, 3]
    assert out["emperor"] == 16 and out["tokens"] == [5, 5, 5, 5]
    assert out["phase"] == "select" and out["round"] == 2 and out["to_move"] == 0


def test_movement_back_counts_only_empty_spaces():
    """Movement: back 3 from 5 over the painter on 3: 4, 2, 1."""
    out = run(choose_painter_state(45, 0, [5, 6, 8, 3]), "back")
    assert out["painters"] == [1, 6, 8, 3]


@pytest.mark.parametrize("painters", [[2, 0, 0, 1], [1, 0, 0, 0], [2, 0, 3, 0]])
def test_movement_back_beyond_the_path_stops_at_the_gate(painters):
    """Movement: a painter moving back beyond the path stops at the gate (index 0); occupied spaces on the
    way are skipped, the gate is never 'occupied'."""
    out = run(choose_painter_state(45, 0, painters), "back")
    assert out["painters"][0] == 0
    assert out["painters"][1:] == painters[1:]


def test_movement_emperor_never_below_index_1_choice():
    """Movement: the Emperor moving back stops at index 1 (E+-1 back from 1 keeps him on 1)."""
    d = make_state(4, emperor=1, selected={0: 31, 1: 1, 2: 2, 3: 10}, pending=[[31, 0]], phase="choose",
                   choosing="garden")
    out = run(d, "back")
    assert out["emperor"] == 1
    assert out["phase"] == "choose" and out["choosing"] == "painter" and out["to_move"] == 0
    out = run(d, "back", "back")
    assert out["emperor"] == 1 and out["painters"] == [0, 0, 0, 0]


def test_movement_emperor_never_below_index_1_then_bump_from_the_gate():
    """Movement + bump: E-1 from 1 leaves him on 1; the card's P+1 from the gate would enter his space:
    the painter loses a token and goes back to the gate."""
    d = make_state(4, emperor=1, selected=stoppers(4), hands={3: [5]})
    out = run(d, "play 5")
    assert out["emperor"] == 1
    assert out["painters"] == [0, 0, 0, 0]
    assert out["tokens"] == [5, 5, 5, 4]
    stopped_at_first_stopper(out)


def test_movement_emperor_counts_every_space():
    """Movement: the Emperor counts every space, painters or not (E+2 from 5 with painters on 1..4)."""
    d = make_state(4, emperor=5, painters=[1, 2, 3, 4], selected={0: 48, 1: 49, 2: 57}, hands={3: [20]})
    out = run(d, "play 20")
    assert out["emperor"] == 7
    # seat 3's P+2 from 4: 5, 6 (both empty) -> 6
    assert out["painters"] == [1, 2, 3, 6]


# --------------------------------------------------------------------------------------------------------
# Bumps


@pytest.mark.parametrize("tokens, after", [(5, 4), (1, 0), (0, 0)])
def test_r15_bump_by_a_painter(tokens, after):
    """Bump: P+-3 forward from 14 over 15 reaches the Emperor on 16: lose one token if any, then back three
    empty spaces counted from 16: 15 occupied, 14 (own former space, empty) 1, 13 2, 12 and 11 occupied,
    10 3 -> 10."""
    d = choose_painter_state(45, 0, [14, 15, 12, 11], tokens=[tokens, 5, 5, 5])
    out = run(d, "forward")
    assert out["painters"] == [10, 15, 12, 11]
    assert out["tokens"] == [after, 5, 5, 5]
    assert out["emperor"] == 16


def test_r15_bump_reaching_the_gate_ends_the_move():
    """R-15: counted back from the Emperor on 4: 3 (own) 1, 2 and 1 occupied, the gate ends the move."""
    d = choose_painter_state(35, 0, [3, 2, 1, 0], emperor=4)
    out = run(d, "forward")
    assert out["painters"] == [0, 2, 1, 0]
    assert out["tokens"] == [4, 5, 5, 5]


def test_r15_bump_by_the_emperor_moving_back_choice():
    """Bump: E+-1 back moves the Emperor from 16 onto seat 1's painter on 15: it loses a token and goes
    back 3 empty spaces from 15: 14 1, 13 12 occupied, 11 2, 10 occupied, 9 3 -> 9. Then card 31 waits
    for its painter half."""
    d = make_state(4, emperor=16, painters=[13, 15, 12, 10], selected={0: 31, 1: 1, 2: 2, 3: 10},
                   pending=[[31, 0]], phase="choose", choosing="garden")
    out = run(d, "back")
    assert out["emperor"] == 15
    assert out["painters"] == [13, 9, 12, 10]
    assert out["tokens"] == [5, 4, 5, 5]
    assert out["phase"] == "choose" and out["choosing"] == "painter" and out["to_move"] == 0


def test_r15_bump_by_the_emperor_e_minus_1_then_painter_skips():
    """Bump: card 5 (E-1, P+1) by seat 3. The Emperor 16 -> 15 bumps seat 1 (15 -> 14 1, 13 occupied,
    12 2, 11 occupied, 10 3 -> 10); then seat 3's P+1 from 9 skips 10 and 11 (occupied) -> 12."""
    d = make_state(4, emperor=16, painters=[13, 15, 11, 9], selected=stoppers(4), hands={3: [5]})
    out = run(d, "play 5")
    assert out["emperor"] == 15
    assert out["painters"] == [13, 10, 11, 12]
    assert out["tokens"] == [5, 4, 5, 5]
    stopped_at_first_stopper(out)


# --------------------------------------------------------------------------------------------------------
# Leapfrog and count


def test_r17_leapfrog_into_the_emperor_bumps():
    """R-17: card 13 (E-1, leapfrog): Emperor 17 -> 16. Seat 3 on 13: next painter ahead is on 15, the first
    free space above it is 16, the Emperor's: bump, back 3 empty from 16: 15 occupied, 14, 13 (own), 12."""
    d = make_state(4, emperor=17, painters=[5, 15, 0, 13], selected=stoppers(4), hands={3: [13]})
    out = run(d, "play 13")
    assert out["emperor"] == 16
    assert out["painters"] == [5, 15, 0, 12]
    assert out["tokens"] == [5, 5, 5, 4]
    stopped_at_first_stopper(out)


def test_r17_leapfrog_lands_in_front_of_the_next_painter_ahead():
    """R-17: the next painter ahead is the one on the lowest index above yours (7, not 10); the first space
    above it no painter occupies (8 is taken) is 9."""
    d = make_state(4, emperor=16, painters=[7, 8, 10, 3], selected=stoppers(4), hands={3: [27]})
    out = run(d, "play 27")
    assert out["emperor"] == 17
    assert out["painters"] == [7, 8, 10, 9]
    stopped_at_first_stopper(out)


def test_r17_leapfrog_with_no_one_ahead_does_not_move():
    """R-17: the closest painter does not move on leapfrog."""
    d = make_state(4, emperor=16, painters=[5, 10, 0, 15], selected=stoppers(4), hands={3: [27]})
    out = run(d, "play 27")
    assert out["emperor"] == 17
    assert out["painters"] == [5, 10, 0, 15]
    assert out["tokens"] == [5, 5, 5, 5]


def test_r17_leapfrog_from_the_gate():
    """R-17: from the gate, a painter sharing the gate is not ahead; the next ahead is on 3, 4 is taken,
    so 5."""
    d = make_state(4, emperor=16, painters=[3, 4, 0, 0], selected=stoppers(4), hands={3: [27]})
    out = run(d, "play 27")
    assert out["painters"] == [3, 4, 0, 5]


def test_r17_count_moves_one_empty_space_per_painter_between():
    """R-17 count: card 9 (E+1, count), Emperor 16 -> 17; seat 3 on 5 has 3 painters between (7, 9, 10):
    forward 3 empty spaces: 6, 8, 11."""
    d = make_state(4, emperor=16, painters=[7, 9, 10, 5], selected=stoppers(4), hands={3: [9]})
    out = run(d, "play 9")
    assert out["emperor"] == 17
    assert out["painters"] == [7, 9, 10, 11]


def test_r17_count_from_the_gate_ignores_painters_sharing_the_gate():
    """R-17 count: from the gate, n = 2 (painters on 1 and 6; the one sharing the gate is not between):
    1 occupied, 2, 3 -> 3."""
    d = make_state(4, emperor=16, painters=[1, 6, 0, 0], selected=stoppers(4), hands={3: [9]})
    out = run(d, "play 9")
    assert out["painters"] == [1, 6, 0, 3]


def test_r17_count_when_closest_does_not_move():
    d = make_state(4, emperor=16, painters=[1, 6, 0, 15], selected=stoppers(4), hands={3: [9]})
    out = run(d, "play 9")
    assert out["painters"] == [1, 6, 0, 15] and out["emperor"] == 17


# --------------------------------------------------------------------------------------------------------
# closest-2 and furthest+2 (gate ties)


def test_closest_minus_2_when_all_on_the_gate_nobody_moves():
    """Garden closest-2: all painters on the gate -> nobody is closest; then card 33's P+1 for seat 3."""
    d = make_state(4, emperor=4, painters=[0, 0, 0, 0], selected=stoppers(4), hands={3: [33]})
    out = run(d, "play 33")
    assert out["emperor"] == 4
    assert out["painters"] == [0, 0, 0, 1]
    stopped_at_first_stopper(out)


def test_closest_minus_2_moves_the_highest_index_back_two_empty_spaces():
    """Garden closest-2: seat 0 on 10 is closest: back 2 empty spaces: 9 occupied, 8, 7 -> 7."""
    d = make_state(4, emperor=16, painters=[10, 9, 3, 0], selected=stoppers(4), hands={3: [33]})
    out = run(d, "play 33")
    assert out["painters"] == [7, 9, 3, 1]


def test_furthest_plus_2_with_two_on_the_gate_nobody_moves():
    """Garden furthest+2: two painters on the gate -> nobody is furthest; card 42's P+1 moves seat 3."""
    d = make_state(4, emperor=16, painters=[0, 0, 5, 7], selected=stoppers(4), hands={3: [42]})
    out = run(d, "play 42")
    assert out["painters"] == [0, 0, 5, 8]


def test_furthest_plus_2_with_one_on_the_gate_moves_it():
    """Garden furthest+2: a painter alone on the gate is furthest: forward 2 empty spaces: 1 taken, 2, 3."""
    d = make_state(4, emperor=16, painters=[0, 1, 5, 7], selected=stoppers(4), hands={3: [42]})
    out = run(d, "play 42")
    assert out["painters"] == [3, 1, 5, 8]


def test_furthest_plus_2_lowest_index():
    """Garden furthest+2: the painter on the lowest index (2): 3, 4 and 5 occupied, 6 -> 6."""
    d = make_state(4, emperor=16, painters=[4, 2, 5, 7], selected=stoppers(4), hands={3: [42]})
    out = run(d, "play 42")
    assert out["painters"] == [4, 6, 5, 8]


def test_furthest_plus_2_bumps_into_the_emperor():
    """Garden furthest+2 moves with the normal rule, bump included: seat 1 on 14, only painter not on 15,
    Emperor on 16: forward 1 reaches 16 -> bump: back from 16: 15 occupied, 14 (own), 13, 12 -> 12."""
    d = make_state(3, emperor=16, painters=[15, 13, 14], selected={0: 48, 1: 49}, hands={2: [42]})
    out = run(d, "play 42")
    # furthest = seat 1 on 13: 14 occupied, 15 occupied, 16 Emperor -> bump: 15, 14 occupied, 13 (own) 1,
    # 12 2, 11 3 -> 11; then seat 2's P+1 from 14: 15 occupied, 16 Emperor -> bump: 15 occupied, 14 (own)
    # 1, 13 2, 12 3 -> 12.
    assert out["painters"] == [15, 11, 12]
    assert out["tokens"] == [5, 4, 4]


# --------------------------------------------------------------------------------------------------------
# Resolution order; garden before painter; choices


def test_resolution_order_by_order_number_and_pending():
    """A round: cards resolve in ascending order number whatever the seat; pending lists them as
    [order, seat]; each E+-1 / P+-n waits for its owner (card 31 asks twice)."""
    d = make_state(4, emperor=16, selected={0: 57, 1: 48, 2: 14}, hands={3: [31]}, deck=[50, 51, 52, 53])
    g, s = load(d)
    s = g.apply(s, "play 31")
    out = g.to_dict(s)
    assert out["pending"] == [[14, 2], [31, 3], [48, 1], [57, 0]]
    assert out["phase"] == "choose" and out["choosing"] == "garden" and out["to_move"] == 2
    assert out["selected"] == [57, 48, 14, 31]
    assert legal(g, s) == {"forward", "back"}

    s = g.apply(s, "forward")  # 14: Emperor 17, seat 2 P+1 -> 1
    out = g.to_dict(s)
    assert out["emperor"] == 17 and out["painters"] == [0, 0, 1, 0]
    assert out["pending"] == [[31, 3], [48, 1], [57, 0]]
    assert out["choosing"] == "garden" and out["to_move"] == 3

    s = g.apply(s, "back")  # 31 garden: Emperor 16
    out = g.to_dict(s)
    assert out["emperor"] == 16 and out["choosing"] == "painter" and out["to_move"] == 3
    assert out["pending"][0] == [31, 3]

    s = g.apply(s, "forward")  # 31 painter P+2 for seat 3: 1 occupied, 2, 3 -> 3
    out = g.to_dict(s)
    assert out["painters"] == [0, 0, 1, 3]
    assert out["choosing"] == "garden" and out["to_move"] == 1 and out["pending"] == [[48, 1], [57, 0]]

    s = g.apply(s, "forward")  # 48: Emperor 17, seat 1 P+3: 1 taken, 2, 3 taken, 4, 5 -> 5
    out = g.to_dict(s)
    assert out["emperor"] == 17 and out["painters"] == [0, 5, 1, 3] and out["to_move"] == 0

    s = g.apply(s, "back")  # 57: Emperor 16, seat 0 P+2: 1 taken, 2, 3 taken, 4 -> 4
    out = g.to_dict(s)
    assert out["emperor"] == 16 and out["painters"] == [4, 5, 1, 3]
    assert out["phase"] == "select" and out["round"] == 2 and out["to_move"] == 0
    assert out["pending"] == [] and out["selected"] == [None] * 4
    assert sorted(out["discard"]) == [14, 31, 48, 57]
    assert [sorted(set(out["hands"][i]) - set(d["hands"][i])) for i in range(4)] == [[50], [51], [52], [53]]
    check_cards(out)


def test_resolution_order_plain_cards_across_seats():
    """Cards resolve by order number, not by seat: 10 (seat 1), 19 (seat 3), 37 (seat 2), 60 (seat 0), each
    E+1 P+1 from the gate: seats take 1, 2, 3, 4 in that order."""
    d = make_state(4, emperor=13, selected={0: 60, 1: 10, 2: 37}, hands={3: [19]})
    out = run(d, "play 19")
    assert out["emperor"] == 17
    assert out["painters"] == [4, 1, 3, 2]
    assert out["phase"] == "select" and out["round"] == 2


def test_garden_half_resolves_before_painter_half():
    """Each card: garden action first. Card 1 (E+1, P+2), Emperor 5, seat 3 on 3: Emperor 6, then 4, 5 -> 5
    with no bump (painter first would have bumped into the Emperor on 5)."""
    d = make_state(4, emperor=5, painters=[0, 0, 0, 3], selected=stoppers(4), hands={3: [1]})
    out = run(d, "play 1")
    assert out["emperor"] == 6
    assert out["painters"] == [0, 0, 0, 5]
    assert out["tokens"] == [5, 5, 5, 5]


@pytest.mark.parametrize("answer, emperor", [("forward", 17), ("back", 15)])
def test_choice_e_plus_minus_1(answer, emperor):
    """E+-1: the owner chooses when the card resolves; card 14's P+1 does not ask."""
    d = make_state(4, emperor=16, selected={0: 48, 1: 49, 2: 57}, hands={3: [14]})
    g, s = load(d)
    s = g.apply(s, "play 14")
    out = g.to_dict(s)
    assert out["phase"] == "choose" and out["choosing"] == "garden" and out["to_move"] == 3
    assert out["pending"][0] == [14, 3] and out["emperor"] == 16
    assert legal(g, s) == {"forward", "back"}
    out = g.to_dict(g.apply(s, answer))
    assert out["emperor"] == emperor and out["painters"] == [0, 0, 0, 1]
    stopped_at_first_stopper(out)


@pytest.mark.parametrize("answer, pos", [("forward", 8), ("back", 2)])
def test_choice_p_plus_minus_n_after_the_garden_half(answer, pos):
    """P+-3 (card 45): the garden half (E+1) resolves, then the owner chooses the painter direction."""
    d = make_state(4, emperor=16, painters=[0, 0, 0, 5], selected=stoppers(4), hands={3: [45]})
    g, s = load(d)
    s = g.apply(s, "play 45")
    out = g.to_dict(s)
    assert out["emperor"] == 17
    assert out["phase"] == "choose" and out["choosing"] == "painter" and out["to_move"] == 3
    assert out["pending"][0] == [45, 3] and out["painters"] == [0, 0, 0, 5]
    out = g.to_dict(g.apply(s, answer))
    assert out["painters"] == [0, 0, 0, pos]
    stopped_at_first_stopper(out)


def test_choice_card_with_both_asks_twice():
    """Card 31 (E+-1, P+-2) asks before its garden half and again before its painter half."""
    d = make_state(4, emperor=16, painters=[0, 0, 0, 5], selected=stoppers(4), hands={3: [31]})
    g, s = load(d)
    s = g.apply(s, "play 31")
    assert g.to_dict(s)["choosing"] == "garden"
    s = g.apply(s, "back")
    out = g.to_dict(s)
    assert out["emperor"] == 15 and out["choosing"] == "painter" and out["to_move"] == 3
    out = g.to_dict(g.apply(s, "back"))
    assert out["painters"] == [0, 0, 0, 3]
    stopped_at_first_stopper(out)


def test_illegal_actions_raise_and_leave_the_state_alone():
    """API: an illegal action raises ValueError and the state is unchanged."""
    d = make_state(4, emperor=16, selected={0: 48, 1: 49, 2: 57}, hands={3: [14]})
    g, s = load(d)
    before = g.to_dict(s)
    not_in_hand = next(c for c in range(1, 61) if c not in d["hands"][3])
    for bad in (f"play {not_in_hand}", "forward", "back", "court 14", "play", "pass", "play 14 14"):
        with pytest.raises(ValueError):
            g.apply(s, bad)
        assert g.to_dict(s) == before
    s2 = g.apply(s, "play 14")
    before2 = g.to_dict(s2)
    for bad in ("play 14", f"play {d['hands'][3][0]}", "left"):
        with pytest.raises(ValueError):
            g.apply(s2, bad)
        assert g.to_dict(s2) == before2
    assert g.to_dict(s) == before  # apply returns a new state


def test_select_phase_legal_actions_and_hidden_selection():
    """Phase select: each seat in order plays one card from its own hand; it leaves the hand at once."""
    d = make_state(4, emperor=16)
    g, s = load(d)
    for seat in range(4):
        out = g.to_dict(s)
        assert out["to_move"] == seat
        assert legal(g, s) == {f"play {c}" for c in out["hands"][seat]}
        c = out["hands"][seat][0]
        s = g.apply(s, f"play {c}")
        if seat < 3:
            out2 = g.to_dict(s)
            assert out2["selected"][seat] == c and c not in out2["hands"][seat]
            assert len(out2["hands"][seat]) == 4


# --------------------------------------------------------------------------------------------------------
# Sakura: stop, painter action, scoring, discard the rest of the round


def test_sakura_mid_round_discards_later_cards_and_scores():
    """Scoring: card 10 (seat 3) brings the Emperor from 11 onto the first sakura (12); its P+1 still
    happens (10 -> 11); then 3/2/1 to 11, 9, 8; the later cards 19, 28, 37 are discarded unresolved
    (the Emperor stays on 12); line-up R-18: 11 stays, then 10, 9, 8; draws as usual, in seat order."""
    d = make_state(4, emperor=11, painters=[9, 8, 5, 10], selected={0: 28, 1: 19, 2: 37}, hands={3: [10]},
                   deck=[50, 51, 52, 53])
    out = run(d, "play 10")
    assert out["emperor"] == 12
    assert out["scored"] == [True, False, False]
    assert out["tokens"] == [7, 6, 5, 8]
    assert out["painters"] == [10, 9, 8, 11]
    assert out["phase"] == "select" and out["round"] == 2 and out["to_move"] == 0
    assert out["pending"] == [] and out["selected"] == [None] * 4
    assert {10, 19, 28, 37} <= set(out["discard"])
    assert [sorted(set(out["hands"][i]) - set(d["hands"][i])) for i in range(4)] == [[50], [51], [52], [53]]
    assert all(len(h) == 5 for h in out["hands"])
    check_cards(out)


def test_r12_e_plus_2_stops_on_a_sakura_entered_for_the_first_time():
    """R-12: E+2 from 11 stops on 12 (first sakura); card 20's P+2 for seat 3: 4, 5 taken, 6 -> 6; scoring
    9 / 8 / 6; line-up 9, 8, 7, 6."""
    d = make_state(4, emperor=11, painters=[9, 8, 5, 3], selected=stoppers(4), hands={3: [20]})
    out = run(d, "play 20")
    assert out["emperor"] == 12 and out["scored"] == [True, False, False]
    assert out["tokens"] == [8, 7, 5, 6]
    assert out["painters"] == [9, 8, 6, 7]
    assert out["round"] == 2 and out["phase"] == "select"


def test_r12_emperor_passes_a_scored_sakura():
    """R-12: a sakura scores once; E+2 from 11 with 12 already scored goes on to 13."""
    d = make_state(4, emperor=11, painters=[9, 8, 5, 3], scored=[True, False, False], selected=stoppers(4),
                   hands={3: [20]})
    out = run(d, "play 20")
    assert out["emperor"] == 13 and out["tokens"] == [5, 5, 5, 5]
    stopped_at_first_stopper(out)


@pytest.mark.parametrize(
    "answer, painters, tokens",
    [
        # back: 10 -> 9, 8 occupied, 7, 6 -> 6; ranks 9, 8, 6 -> +3 +2 +1; line-up 9, 8, 7, 6
        ("back", [9, 8, 6, 7], [8, 7, 5, 6]),
        # forward: 11, 12 = Emperor -> bump (token 5 -> 4): 11, 10 (own), 9 8 occupied, 7 -> 7;
        # ranks 9, 8, 7 -> +3 +2 +1 -> 5; line-up 9, 8, 7, 6 (seat 2 on 5 last)
        ("forward", [9, 8, 6, 7], [8, 7, 5, 5]),
    ],
)
def test_sakura_painter_action_with_choice_happens_before_scoring(answer, painters, tokens):
    """Scoring: card 26 (E+1, P+-2) brings the Emperor onto 12; the owner still chooses the painter
    direction, the move (or bump) happens, and only then the sakura scores; the stoppers are discarded."""
    d = make_state(4, emperor=11, painters=[9, 8, 5, 10], selected=stoppers(4), hands={3: [26]})
    g, s = load(d)
    s = g.apply(s, "play 26")
    mid = g.to_dict(s)
    assert mid["emperor"] == 12 and mid["phase"] == "choose" and mid["choosing"] == "painter"
    assert mid["to_move"] == 3 and mid["scored"] == [False, False, False] and mid["tokens"] == [5] * 4
    out = g.to_dict(g.apply(s, answer))
    assert out["scored"] == [True, False, False]
    assert out["tokens"] == tokens
    assert out["painters"] == painters
    assert out["emperor"] == 12
    assert out["round"] == 2 and out["phase"] == "select" and out["pending"] == []
    assert {26, 48, 49, 57} <= set(out["discard"])


def test_scoring_4_at_the_last_sakura_and_the_game_ends():
    """Scoring: at the last sakura the closest gets 4, then 2 and 1; the game ends at once (phase over, no
    line-up, no legal action)."""
    d = make_state(4, emperor=27, painters=[26, 23, 21, 24], selected={0: 28, 1: 19, 2: 37}, hands={3: [10]})
    g, s = load(d)
    s = g.apply(s, "play 10")
    out = g.to_dict(s)
    assert out["emperor"] == 28 and out["scored"] == [True, True, True]
    assert out["painters"] == [26, 23, 21, 25]
    assert out["tokens"] == [9, 6, 5, 7]
    assert out["phase"] == "over" and out["to_move"] is None
    assert g.legal_actions(s) == []
    with pytest.raises(ValueError):
        g.apply(s, "play 1")
    r = g.result(s)
    assert r["over"] is True
    assert r["scores"] == [9, 6, 5, 7]
    assert r["winners"] == [0]
    assert r["tie"] is False and r["decided_by_tiebreak"] is False
    assert r["rounds"] == d["round"]
    assert r["end_reason"] != "round_limit"
    check_cards(out)
    assert g.to_dict(g.from_dict(out)) == out


@pytest.mark.parametrize("players", [5, 6])
def test_fourth_place_scores_with_five_and_six_players(players):
    """Scoring: with 5-6 players the fourth also gets 1 token. Emperor 13 -> 14 (first sakura as played);
    the last seat's P+1: 3 -> 4; ranks 12, 11, 9, 7 -> 3, 2, 1, 1; line-up 12, 11, 10, 9, 8(, 7)."""
    painters = [12, 11, 9, 7, 3] if players == 5 else [12, 11, 9, 7, 5, 3]
    d = make_state(players, emperor=13, painters=painters, selected=stoppers(players),
                   hands={players - 1: [10]})
    out = run(d, "play 10")
    assert out["emperor"] == 14 and out["scored"] == [True, False, False]
    want = [8, 7, 6, 6, 5] + ([5] if players == 6 else [])
    assert out["tokens"] == want
    assert out["painters"] == [12, 11, 10, 9, 8] + ([7] if players == 6 else [])


def test_four_players_no_fourth_place():
    d = make_state(4, emperor=11, painters=[9, 8, 7, 6], selected=stoppers(4), hands={3: [10]})
    out = run(d, "play 10")
    # seat 3: 6 -> P+1 -> 10; ranks 10, 9, 8 -> 3 2 1; seat 2 on 7 gets nothing
    assert out["tokens"] == [7, 6, 5, 8]
    assert out["painters"] == [9, 8, 7, 10]


def test_r13_gate_painters_sharing_the_gate_get_no_rank():
    """R-13: two painters share the gate: neither is ranked, the third place is not awarded. Card 27 (seat 0,
    closest, leapfrog does not move) brings the Emperor onto 12. Line-up: 5 stays, 3 -> 4, gate stays."""
    d = make_state(4, emperor=11, painters=[5, 3, 0, 0], selected={0: 27, 1: 48, 2: 49}, hands={3: [57]})
    out = run(d, "play 57")
    assert out["scored"] == [True, False, False]
    assert out["tokens"] == [8, 7, 5, 5]
    assert out["painters"] == [5, 4, 0, 0]


def test_r13_gate_painter_alone_is_ranked():
    """R-13: a painter alone on the gate is ranked (third here, 1 token) and stays on the gate (R-18)."""
    d = make_state(3, emperor=11, painters=[5, 3, 0], selected={0: 27, 1: 48}, hands={2: [49]})
    out = run(d, "play 49")
    assert out["tokens"] == [8, 7, 6]
    assert out["painters"] == [5, 4, 0]


def test_r18_line_up_in_ranking_order():
    """R-18: the closest (9) stays; then 6 -> 8, 2 -> 7; the painter alone on the gate stays."""
    d = make_state(4, emperor=11, painters=[9, 2, 6, 0], selected={0: 27, 1: 48, 2: 49}, hands={3: [57]})
    out = run(d, "play 57")
    assert out["tokens"] == [8, 6, 7, 5]
    assert out["painters"] == [9, 7, 8, 0]
    assert out["emperor"] == 12


# --------------------------------------------------------------------------------------------------------
# Draws


def test_r19_draws_in_seat_order_from_the_top():
    d = make_state(4, emperor=13, selected={0: 60, 1: 10, 2: 37}, hands={3: [19]}, deck=[3, 4, 6, 7, 8])
    out = run(d, "play 19")
    assert [sorted(set(out["hands"][i]) - set(d["hands"][i])) for i in range(4)] == [[3], [4], [6], [7]]
    assert out["deck"][0] == 8
    assert all(h == sorted(h) and len(h) == 5 for h in out["hands"])


def reshuffle_state(rng: int | None = None) -> dict:
    """Deck of one card (60); every other card not in a hand or selected lies on the discard pile. The round
    (5, 10, 19, 28: Emperor 16 -> 15 -> 16 -> 17 -> 18, painters 1, 2, 3, 4) ends without a sakura."""
    return make_state(4, emperor=16, selected={0: 5, 1: 10, 2: 19}, hands={3: [28]}, deck=[60],
                      rest="discard", rng=rng)


@pytest.mark.parametrize("rng", [None, 12345])
def test_r19_reshuffle_when_the_deck_runs_out(rng):
    """R-19: seat 0 draws the last card; seat 1 finds the deck empty: the discard pile (with this round's 4
    cards) is shuffled into a new deck, then seats 1, 2, 3 draw from it. Seeded: same dict, same result."""
    d = reshuffle_state(rng)
    assert len(d["deck"]) == 1 and len(d["discard"]) == 39
    out = run(d, "play 28")
    assert out["emperor"] == 18 and out["painters"] == [1, 2, 3, 4]
    assert sorted(set(out["hands"][0]) - set(d["hands"][0])) == [60]
    new_cards = []
    for seat in (1, 2, 3):
        new = sorted(set(out["hands"][seat]) - set(d["hands"][seat]))
        assert len(new) == 1 and len(out["hands"][seat]) == 5
        new_cards += new
    assert out["discard"] == []
    assert len(out["deck"]) == 40
    assert sorted(out["deck"] + new_cards) == sorted(d["discard"] + [5, 10, 19, 28])
    assert out["deck"] != sorted(out["deck"]) and out["deck"] != sorted(out["deck"], reverse=True)
    check_cards(out)
    assert run(copy.deepcopy(d), "play 28") == out, "same state dict must give the same shuffle"


def test_r19_reshuffle_differs_with_the_generator_state():
    """R-19 seeded: the shuffle comes from the state's generator (different generator states give
    different decks for at least one of a few tries)."""
    decks = {json.dumps(run(reshuffle_state(rng), "play 28")["deck"]) for rng in (1, 2, 3, 4)}
    assert len(decks) > 1


# --------------------------------------------------------------------------------------------------------
# R-14 tie-break


def tie_state(painters: list[int], tokens: list[int], tie_break: str | None) -> dict:
    """Card 27 (seat 1, E+1, leapfrog) brings the Emperor from 27 onto the last sakura; the other cards are
    stoppers (discarded unresolved)."""
    rules = None if tie_break is None else {"tie_break": tie_break}
    return make_state(4, emperor=27, painters=painters, tokens=tokens, selected={0: 48, 1: 27, 2: 49},
                      hands={3: [57]}, rules=rules)


@pytest.mark.parametrize("tie_break", [None, "closest_to_emperor"])
def test_r14_tie_goes_to_the_tied_painter_closest_to_the_emperor(tie_break):
    """R-14: seats 0, 1, 2 end on 9 tokens (seat 1 on 26: +4, seat 0 on 25: +2, seat 2 on 21: +1); seat 1 is
    closest and wins."""
    d = tie_state([25, 26, 21, 0], [7, 5, 8, 4], tie_break)
    g, s = load(d)
    s = g.apply(s, "play 57")
    out = g.to_dict(s)
    assert out["phase"] == "over"
    assert out["tokens"] == [9, 9, 9, 4]
    r = g.result(s)
    assert r["winners"] == [1]
    assert r["tie"] is True and r["decided_by_tiebreak"] is True


def test_r14_shared_tie_break():
    """R-14 knob `shared`: all tied players win."""
    d = tie_state([25, 26, 21, 0], [7, 5, 8, 4], "shared")
    g, s = load(d)
    s = g.apply(s, "play 57")
    r = g.result(s)
    assert r["scores"] == [9, 9, 9, 4]
    assert r["winners"] == [0, 1, 2]
    assert r["tie"] is True and r["decided_by_tiebreak"] is False


def test_r14_tied_players_all_on_the_gate_share():
    """R-14: the tied players (seats 0 and 1, 9 tokens) both stand on the gate: neither is closer, they
    share. Seat 3 (on 26, closest: leapfrog does not move) plays the trigger card 27."""
    d = make_state(4, emperor=27, painters=[0, 0, 21, 26], tokens=[9, 9, 2, 2],
                   selected={0: 48, 1: 49, 2: 57}, hands={3: [27]})
    g, s = load(d)
    s = g.apply(s, "play 27")
    out = g.to_dict(s)
    assert out["phase"] == "over"
    assert out["tokens"] == [9, 9, 4, 6]
    r = g.result(s)
    assert r["winners"] == [0, 1] and r["tie"] is True


def test_r14_tied_player_off_the_gate_beats_one_on_the_gate():
    """R-14: tied seats 0 (gate, alone: fourth, nothing) and 1 (on 5: third, +1) -> seat 1."""
    d = make_state(4, emperor=27, painters=[0, 5, 21, 26], tokens=[9, 8, 2, 2],
                   selected={0: 48, 1: 49, 2: 57}, hands={3: [27]})
    g, s = load(d)
    s = g.apply(s, "play 27")
    assert g.to_dict(s)["tokens"] == [9, 9, 4, 6]
    r = g.result(s)
    assert r["winners"] == [1] and r["tie"] is True and r["decided_by_tiebreak"] is True


# --------------------------------------------------------------------------------------------------------
# Two players: the court painter


def test_two_players_court_card_is_the_deck_top_and_always_forward():
    """Two players: after both plays the deck's top card (31, E+-1 P+-2) is the court painter's; it never
    asks: Emperor forward, court painter forward 2. Order: 10 (seat 0), 19 (seat 1), 31 (court)."""
    d = make_state(2, emperor=16, painters=[3, 5], court={"painter": 7}, selected={0: 10}, hands={1: [19]},
                   deck=[31, 50, 51, 52])
    g, s = load(d)
    assert g.to_dict(s)["court"]["card"] is None
    s = g.apply(s, "play 19")
    out = g.to_dict(s)
    assert out["phase"] == "select" and out["round"] == 2 and out["to_move"] == 0
    assert out["emperor"] == 19
    assert out["painters"] == [4, 6]
    assert out["court"] == {"painter": 9, "tokens": 5, "card": None}
    assert {10, 19, 31} <= set(out["discard"])
    assert [sorted(set(out["hands"][i]) - set(d["hands"][i])) for i in range(2)] == [[50], [51]]
    assert out["deck"][0] == 52
    check_cards(out)


def test_two_players_court_card_revealed_after_both_plays():
    """Two players: before the second play the court card is not revealed; after it the deck top is
    court.card while the round waits on a player's choice."""
    d = make_state(2, emperor=16, painters=[3, 5], court={"painter": 7}, hands={0: [14], 1: [60]},
                   deck=[19, 50, 51])
    g, s = load(d)
    s = g.apply(s, "play 14")
    out = g.to_dict(s)
    assert out["court"]["card"] is None and out["deck"][0] == 19 and out["to_move"] == 1
    s = g.apply(s, "play 60")
    out = g.to_dict(s)
    assert out["court"]["card"] == 19
    assert out["pending"] == [[14, 0], [19, 2], [60, 1]]
    assert out["phase"] == "choose" and out["to_move"] == 0 and out["choosing"] == "garden"
    check_cards(out)


def test_two_players_court_painter_bumps_and_loses_a_token():
    """Two players: the court painter loses tokens when it bumps. Court card 2 (E+1, P+3) resolves first:
    Emperor 17, court 15 -> 16, 17 = Emperor: bump, 5 -> 4 tokens, back from 17: 16, 15 (own), 14."""
    d = make_state(2, emperor=16, painters=[3, 5], court={"painter": 15}, selected={0: 10}, hands={1: [19]},
                   deck=[2, 50, 51])
    out = run(d, "play 19")
    assert out["court"]["painter"] == 14 and out["court"]["tokens"] == 4
    assert out["emperor"] == 19 and out["painters"] == [4, 6]


def test_two_players_court_painter_is_scored_but_never_wins():
    """Two players: the court painter is ranked and scored like a player (closest at the last sakura: +4)
    but never wins; result scores and winners cover seats 0 and 1 only."""
    d = make_state(2, emperor=27, painters=[20, 22], court={"painter": 26, "tokens": 20},
                   selected={0: 10}, hands={1: [19]}, deck=[60, 50])
    g, s = load(d)
    s = g.apply(s, "play 19")
    out = g.to_dict(s)
    # 10 (seat 0): Emperor 28 = last sakura; seat 0 P+1: 21; ranks: court 26 (+4), seat 1 22 (+2),
    # seat 0 21 (+1); cards 19 and 60 are discarded unresolved.
    assert out["phase"] == "over" and out["emperor"] == 28
    assert out["court"]["tokens"] == 24 and out["court"]["painter"] == 26
    assert out["tokens"] == [6, 7]
    r = g.result(s)
    assert r["over"] is True and r["scores"] == [6, 7] and r["winners"] == [1]


def test_two_players_court_painter_counts_in_closest():
    """Two players: the court painter is a painter for closest-2: on 15 it is closest and moves back 2."""
    d = make_state(2, emperor=16, painters=[3, 5], court={"painter": 15}, selected={0: 48}, hands={1: [33]},
                   deck=[49, 50, 51])
    out = run(d, "play 33")
    # 33 (seat 1): closest-2 -> court 15 -> 14, 13; seat 1 P+1: 5 -> 6; then 48 (seat 0) waits.
    assert out["court"]["painter"] == 13 and out["painters"] == [3, 6]
    assert out["phase"] == "choose" and out["to_move"] == 0 and out["pending"][0] == [48, 0]


# --------------------------------------------------------------------------------------------------------
# Two players, tactical variant


TACTICAL = {"two_player_variant": "tactical"}


@pytest.mark.parametrize("court_card, court_pos", [(37, 2), (31, 3)])
def test_tactical_further_player_plays_the_court_card_and_draws_two(court_card, court_pos):
    """Tactical: after both plays the player further from the Emperor (seat 0 on 3) plays `court C` from
    hand; it never asks (31: E+-1 P+-2 forward). Seat 0 draws two at the end of the round, then seat 1 one.
    Order 10 (seat 0: 3 -> 4), 19 (seat 1: 6 -> 7), court card (court 1 -> 2, or P+2 -> 3)."""
    d = make_state(2, emperor=16, painters=[3, 6], court={"painter": 1}, selected={0: 10},
                   hands={0: [court_card], 1: [19]}, deck=[50, 51, 52, 53], rules=TACTICAL)
    g, s = load(d)
    s = g.apply(s, "play 19")
    out = g.to_dict(s)
    assert out["phase"] == "select" and out["to_move"] == 0
    assert out["court"]["card"] is None and out["deck"][0] == 50
    assert legal(g, s) == {f"court {c}" for c in out["hands"][0]}
    assert len(out["hands"][0]) == 4
    with pytest.raises(ValueError):
        g.apply(s, f"play {court_card}")
    s = g.apply(s, f"court {court_card}")
    out = g.to_dict(s)
    assert out["phase"] == "select" and out["round"] == 2 and out["to_move"] == 0
    assert out["emperor"] == 19
    assert out["painters"] == [4, 7]
    assert out["court"]["painter"] == court_pos and out["court"]["card"] is None
    assert {10, 19, court_card} <= set(out["discard"])
    assert sorted(set(out["hands"][0]) - set(d["hands"][0])) == [50, 51]
    assert sorted(set(out["hands"][1]) - set(d["hands"][1])) == [52]
    assert all(len(h) == 5 for h in out["hands"])
    assert out["deck"][0] == 53
    check_cards(out)


def test_tactical_further_player_is_seat_1():
    d = make_state(2, emperor=16, painters=[6, 3], court={"painter": 1}, selected={0: 10},
                   hands={1: [19, 37]}, deck=[50, 51, 52, 53], rules=TACTICAL)
    g, s = load(d)
    s = g.apply(s, "play 19")
    assert g.to_dict(s)["to_move"] == 1
    assert legal(g, s) == {f"court {c}" for c in g.to_dict(s)["hands"][1]}
    out = g.to_dict(g.apply(s, "court 37"))
    assert sorted(set(out["hands"][0]) - set(d["hands"][0])) == [50]
    assert sorted(set(out["hands"][1]) - set(d["hands"][1]) - {19, 37}) == [51, 52]


def test_tactical_both_on_the_gate_uses_the_deck_top():
    """Tactical: both players on the gate: the deck's top card is the court card, as in the basic game.
    Order 10 (seat 0 -> 1), 19 (seat 1: 1 taken -> 2), 60 (court: 1, 2 taken -> 3)."""
    d = make_state(2, emperor=16, painters=[0, 0], court={"painter": 0}, selected={0: 10}, hands={1: [19]},
                   deck=[60, 50, 51, 52], rules=TACTICAL)
    out = run(d, "play 19")
    assert out["phase"] == "select" and out["round"] == 2
    assert out["painters"] == [1, 2] and out["court"]["painter"] == 3 and out["emperor"] == 19
    assert [sorted(set(out["hands"][i]) - set(d["hands"][i])) for i in range(2)] == [[50], [51]]


def test_tactical_config_file_sets_the_variant():
    g = games.load("sakura", config=str(TACTICAL_CONFIG), players=2)
    d = g.to_dict(g.new_state(seed=3))
    assert d.get("rules", {}).get("two_player_variant", "tactical") == "tactical"
    d["painters"] = [1, 2]  # seat 0 further from the Emperor (torii 4)
    s = g.from_dict(d)
    s = play(g, s, f"play {d['hands'][0][0]}", f"play {d['hands'][1][0]}")
    out = g.to_dict(s)
    assert out["to_move"] == 0 and all(a.startswith("court ") for a in g.legal_actions(s))


# --------------------------------------------------------------------------------------------------------
# Round limit, round trip, observation


def test_round_limit_safety_valve():
    """Not a rule: a game still running after 2000 rounds ends with end_reason "round_limit"."""
    d = make_state(4, emperor=13, selected={0: 60, 1: 10, 2: 37}, hands={3: [19]}, round=2000)
    g, s = load(d)
    s = g.apply(s, "play 19")
    r = g.result(s)
    assert r["over"] is True and r["end_reason"] == "round_limit"
    assert g.legal_actions(s) == []


@pytest.mark.parametrize("players", [2, 4, 6])
def test_round_trip_at_every_decision_point(players):
    """API: from_dict(to_dict(s)) reproduces s exactly, at any decision point; the dict is JSON-safe."""
    g = game(players)
    s = g.new_state(seed=21)
    for _ in range(60):
        d = g.to_dict(s)
        assert json.loads(json.dumps(d)) == d
        s2 = g.from_dict(d)
        assert g.to_dict(s2) == d and g.legal_actions(s2) == g.legal_actions(s)
        acts = g.legal_actions(s)
        if not acts:
            break
        s = g.apply(s, acts[len(acts) // 2])


def hidden_pair() -> tuple[dict, dict]:
    """Two states that differ only in what seat 1 may not see: seat 0's selection and hand, seat 2's hand,
    the deck order, the generator state behind future reshuffles."""
    a = make_state(4, emperor=16, painters=[3, 5, 0, 7], hands={0: [1, 2, 3, 4], 1: [5, 6, 7, 8, 9],
                   2: [11, 12, 13, 14, 15], 3: [16, 17, 18, 19, 20]}, selected={0: 10},
                   deck=list(range(21, 61)), rng=7)
    b = make_state(4, emperor=16, painters=[3, 5, 0, 7], hands={0: [1, 2, 3, 10], 1: [5, 6, 7, 8, 9],
                   2: [21, 22, 23, 24, 25], 3: [16, 17, 18, 19, 20]}, selected={0: 4},
                   deck=list(range(60, 25, -1)) + [15, 14, 13, 12, 11], rng=8)
    return a, b


def test_observe_hides_other_hands_deck_order_and_selections():
    """observe(s, seat): two states differing only in other hands, other players' selections (phase select)
    and the deck order give the same observation; the seat's own hand changes it."""
    a, b = hidden_pair()
    g, sa = load(a)
    _, sb = load(b)
    assert g.observe(sa, 1) == g.observe(sb, 1)
    assert g.observe(sa, 3) == g.observe(sb, 3)
    assert g.observe(sa, 0) != g.observe(sb, 0)  # seat 0 knows its own hand and selection
    assert g.observe(sa, 2) != g.observe(sb, 2)  # seat 2 knows its own hand
    c = copy.deepcopy(a)
    c["hands"][1], c["hands"][3] = c["hands"][3], c["hands"][1]
    _, sc = load(c)
    assert g.observe(sa, 1) != g.observe(sc, 1)


def test_observe_two_players_deck_order_hidden():
    """Two players: the deck order (which decides the court card) is hidden until the card is revealed."""
    a = make_state(2, emperor=16, painters=[3, 5], court={"painter": 7}, hands={0: [1, 2, 3, 4, 5],
                   1: [6, 7, 8, 9, 10]}, deck=list(range(11, 61)), rng=3)
    b = make_state(2, emperor=16, painters=[3, 5], court={"painter": 7}, hands={0: [1, 2, 3, 4, 5],
                   1: [6, 7, 8, 9, 10]}, deck=list(range(60, 10, -1)), rng=3)
    g, sa = load(a)
    _, sb = load(b)
    for seat in (0, 1):
        assert g.observe(sa, seat) == g.observe(sb, seat)
    sa, sb = g.apply(sa, "play 1"), g.apply(sb, "play 1")
    assert g.observe(sa, 1) == g.observe(sb, 1)


def test_builder_states_account_for_every_card():
    """Self-check of the builder: every dict used here holds all 60 cards once."""
    for d in (reshuffle_state(), *hidden_pair(), tie_state([25, 26, 21, 0], [7, 5, 8, 4], None)):
        check_cards(d)
        assert sorted(all_cards(d)) == list(range(1, 61))
    assert CONFIG.exists()


@pytest.mark.parametrize("players", [2, 4, 5])
def test_from_dict_accepts_the_minimal_form_without_extra_keys(players):
    """from_dict accepts, at any decision point, a dict without the engine's extra keys (torii, rules, rng):
    they are optional, and the rest comes back unchanged."""
    d = make_state(players, emperor=11, painters=[3, 5] + [0] * (players - 2),
                   selected={0: 31}, hands={1: [10]})
    api = {k: v for k, v in d.items() if k not in ("torii", "rules", "rng")}
    g, s = load(api)
    out = g.to_dict(s)
    for key, value in api.items():
        assert out[key] == value, key
    out2 = g.to_dict(g.from_dict(copy.deepcopy(out)))
    assert out2 == out


@pytest.mark.parametrize("players", [2, 4, 5])
def test_from_dict_without_torii_reports_the_boards_torii(players):
    """R-10: the torii is the board's (index 4 with every player count as played); a dict without the
    engine's "torii" key must not change it: to_dict reports the config's torii, not one guessed from the
    sakura."""
    d = make_state(players, emperor=11, painters=[3, 5] + [0] * (players - 2))
    del d["torii"]
    g, s = load(d)
    assert g.to_dict(s)["torii"] == board(players)[1] == g.to_dict(g.new_state(seed=1))["torii"]
