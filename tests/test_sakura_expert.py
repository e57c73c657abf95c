"""The Sakura `expert` agent (sim/sakura/expert.py): it never peeks at hidden information, its features
read positions, ranks and card actions from one seat's observation (not card ids), its training positions
add up to the final tokens, it takes an obviously best forward/back choice, and its race for guesses
changes how many guesses a card gets, never what they are.

The generic expert tests (tests/test_expert.py: shipped models, determinism, replay through the readable
API with legality, `balance train`) run on Sakura too.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import games
from sim.core.agent_spec import AgentSpec, agent_row
from sim.core.rng import game_seeds, new_rng
from sim.sakura import kernels as K
from sim.sakura.expert import FEATURES, MIX, expert_action, features, hand_mix, pool_mix, race, unseen_cards
from sim.sakura.game import SakuraGame, action_to_string
from sim.sakura.spec import SPEC
from sim.sakura.training import positions
from tests.sakura_helpers import cards_with, load, make_state
from tests.test_sakura_agents import reshuffle_hidden
from tests.test_sakura_mcts import forward_reaches_the_sakura, hidden_cards


def expert_row(players: int, **params) -> np.ndarray:
    """The parameter row of an expert seat with the shipped model (as the batch loop gets it)."""
    return np.array(agent_row(AgentSpec("expert", params), games.spec("sakura"), players), dtype=np.float64)


def named_features(state, mixes) -> list[dict[str, float]]:
    feats = np.zeros((K.MAX_PAINTERS, len(FEATURES)))
    features(state.vector, mixes, np.empty(K.MAX_PAINTERS, dtype=np.int64), feats)
    return [dict(zip(FEATURES, row.tolist(), strict=True)) for row in feats]


# --------------------------------------------------------------------------------------------------------
# 1. No peeking


@pytest.mark.parametrize(("players", "config"), [(4, None), (5, None), (2, None),
                                                 (2, "configs/sakura/two-player-tactical.toml")])
@pytest.mark.parametrize("params", [{}, {"samples": 8, "temp": 0.0}, {"samples": 8, "most": 40, "z": 1.0}],
                         ids=["defaults", "lead", "race"])
def test_expert_decides_from_the_observation_only(players: int, config: str | None, params: dict) -> None:
    """At every decision of several games (moves chosen at random to reach varied positions), the expert
    returns the same action on the true state and on a twin whose hidden information (other hands, deck
    order, reshuffle generator, unrevealed selections) is redealt from the same cards, with the same
    generator seed; the twin really differs where a peeking agent would look."""
    rules = SPEC.load_rules(config, players) if config else SPEC.default_rules(players)
    game = SakuraGame(rules)
    row = expert_row(players, **params)
    rng = random.Random(10 + players)
    checked = redealt = 0
    for seed in range(6):
        state = game.new_state(seed)
        while not game.is_over(state):
            d = game.to_dict(state)
            seat = d["to_move"]
            want = expert_action(state.vector.copy(), new_rng(seed, 1), row)
            twin = reshuffle_hidden(d, seat, rng)
            t = game.from_dict(twin)
            assert game.observe(t, seat) == game.observe(state, seat)
            assert sorted(hidden_cards(twin, seat)) == sorted(hidden_cards(d, seat)) and t != state
            redealt += twin["hands"] != d["hands"]
            again = expert_action(t.vector.copy(), new_rng(seed, 1), row)
            assert again == want, (seed, d["round"], d["phase"])
            checked += 1
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert checked > 100 and redealt > 0.8 * checked


def test_the_unseen_cards_are_what_the_seat_cannot_place() -> None:
    """The pool of guesses: every card but the seat's hand, the discard pile and the cards it can see on
    the table (its own choice in phase select; every card of the round once revealed)."""
    d = make_state(4, emperor=9, painters=[3, 0, 5, 7], selected={0: 30, 1: 31}, discard=[40, 41, 42],
                   hands={2: [1, 2, 3, 4, 5]})
    g, s = load(d)
    pool = np.empty(60, dtype=np.int64)
    n = unseen_cards(s.vector, 2, pool)
    assert sorted(pool[:n].tolist()) == sorted(hidden_cards(d, 2))
    assert 31 in pool[:n] and 30 in pool[:n] and not {1, 2, 3, 4, 5, 40, 41, 42} & set(pool[:n].tolist())
    n0 = unseen_cards(s.vector, 0, pool)
    assert 30 not in pool[:n0] and 31 in pool[:n0] and n0 == 60 - 4 - 3 - 1


# --------------------------------------------------------------------------------------------------------
# 2. Features


def test_features_read_ranks_distances_and_the_hand_by_action() -> None:
    """4 players, Emperor on 10, the first sakura on 12: seat 3 on 9 is closest (3 tokens if the tree
    scored now) and right behind him, seat 2 on 7 second, seat 0 on 4 third, seat 1 alone on the gate
    fourth (ranked, R-13, but no award with 4 players)."""
    hand = [10, 19, 16, 30, 2]  # P+1 with E+1 twice; P+3 with furthest+2, with E-1, with E+1
    renumbered = [28, 37, 25, 39, 53]  # the same actions under other card numbers
    for cards in (hand, renumbered):
        assert set(cards[:2]) <= set(cards_with("E+1", "P+1")) and cards[2] in cards_with("furthest+2", "P+3")
        assert cards[3] in cards_with("E-1", "P+3") and cards[4] in cards_with("E+1", "P+3")
    rows = []
    for cards in (hand, renumbered):
        _, s = load(make_state(4, emperor=10, painters=[4, 0, 7, 9], hands={2: cards}))
        mixes = np.zeros((K.MAX_PAINTERS, MIX))
        for seat in range(4):
            hand_mix(s.vector, seat, -1, mixes[seat])
        rows.append(named_features(s, mixes))
    f = rows[0]
    assert [row["award"] for row in f[:4]] == [1, 0, 2, 3]
    assert f[3]["first"] == 1 and f[3]["adjacent"] == 1 and f[3]["gap"] == 1 and f[3]["painters_ahead"] == 0
    assert f[1]["on_gate"] == 1 and f[1]["painters_ahead"] == 3 and f[1]["gap"] == 10
    assert f[0]["emperor_to_tree"] == 2 and f[0]["award_near"] == 1 and f[0]["trees_left"] == 3
    assert f[0]["last_tree"] == 0 and f[0]["first"] == 0
    # seat 2 on 7: P+1 to 8 (seat 3 on 9 stays closest); P+3 counts the empty 8, skips seat 3's 9 and
    # reaches the Emperor on 10: a bump. Its garden actions move the Emperor 1 + 1 + 0 - 1 + 1.
    assert f[2]["hand_bump"] == pytest.approx(3 / 5) and f[2]["hand_lead"] == 0
    assert f[2]["hand_advance"] == pytest.approx(2 / 5) and f[2]["hand_emperor"] == pytest.approx(2 / 5)
    assert f[2]["hand_order"] == pytest.approx(sum(hand) / 5 / 60)
    # the same actions under other card numbers: only the order numbers (when they resolve) differ
    assert {k for k in FEATURES if rows[1][2][k] != f[2][k]} == {"hand_order"}


def test_other_hands_enter_as_the_mix_of_the_unseen_cards() -> None:
    """The expert's view of another player's hand is the mix of the cards it cannot place: a mean over
    them, so it does not change when the hidden cards are redealt."""
    game = SakuraGame(SPEC.default_rules(4))
    state = game.new_state(3)
    twin = game.from_dict(reshuffle_hidden(game.to_dict(state), 0, random.Random(1)))
    mixes = []
    for s in (state, twin):
        pool = np.empty(60, dtype=np.int64)
        n = unseen_cards(s.vector, 0, pool)
        mix = np.zeros(MIX)
        pool_mix(s.vector, pool, n, mix)
        mixes.append(mix)
    assert np.allclose(mixes[0], mixes[1]) and mixes[0][:6].sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------------------
# 3. Training positions


@pytest.mark.parametrize("players", [2, 4, 6])
def test_training_positions_add_up_to_the_final_tokens(players: int) -> None:
    """One row per player at every round start; tokens then plus what it gained = its final tokens, as
    the batch loop plays the same games."""
    rules = SPEC.default_rules(players)
    seeds = game_seeds(4, 0, 6)
    seating = np.array([0 if seat % 2 else 1 for seat in range(players)])  # random and greedy seats
    data = positions(rules, seeds, seating, None)
    batch = SPEC.run_batch(rules, seeds, seating)
    assert data["features"].shape[1] == len(FEATURES)
    for g in range(len(seeds)):
        rows = data["game"] == g
        assert rows.sum() == players * batch["rounds"][g] or rows.sum() == players * (batch["rounds"][g] - 1)
        first = rows & (data["features"][:, FEATURES.index("trees_left")] == 3)
        start = np.flatnonzero(rows)[:players]
        assert (data["seat"][start] == np.arange(players)).all()
        assert np.allclose(data["gained"][start] + 5, batch["tokens"][g, data["seat"][start]])
        assert first.sum() >= players


# --------------------------------------------------------------------------------------------------------
# 4. An obviously best choice


@pytest.mark.parametrize("params", [{}, {"temp": 0.0}], ids=["win-chance", "lead"])
def test_expert_moves_the_emperor_forward_onto_the_sakura(params: dict) -> None:
    """forward scores the first tree with seat 0 closest (+3); back bumps it (tests/test_sakura_mcts.py)."""
    _, s = load(forward_reaches_the_sakura())
    row = expert_row(3, **params)
    for seed in range(3):
        assert action_to_string(int(expert_action(s.vector.copy(), new_rng(seed, 1), row))) == "forward"


# --------------------------------------------------------------------------------------------------------
# 5. The race: more guesses where the choice is close


@pytest.mark.parametrize(("players", "config"), [(4, None), (2, "configs/sakura/two-player-tactical.toml")])
def test_a_race_that_drops_nobody_plays_as_all_its_guesses(players: int, config: str | None) -> None:
    """With z so large that no card ever leaves the race, `samples=16,most=64` and `samples=64,first=16`
    (the race's first look after 16 guesses) draw the same 64 guesses in the same order as
    `samples=64,most=0,first=0` (no race) and sum the same values: the same action at every decision (the
    race changes only how many guesses a card gets, never what a guess is)."""
    rules = SPEC.load_rules(config, players) if config else SPEC.default_rules(players)
    game = SakuraGame(rules)
    racing = expert_row(players, samples=16, most=64, z=1e9)
    early = expert_row(players, samples=64, most=64, first=16, z=1e9)
    plain = expert_row(players, samples=64, most=0, first=0)
    rng = random.Random(3)
    checked = 0
    for seed in range(4):
        state = game.new_state(seed)
        while not game.is_over(state):
            want = expert_action(state.vector.copy(), new_rng(seed, 1), plain)
            assert expert_action(state.vector.copy(), new_rng(seed, 1), racing) == want
            assert expert_action(state.vector.copy(), new_rng(seed, 1), early) == want
            checked += 1
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert checked > 80


@settings(deadline=None, max_examples=200)
@given(st.integers(2, 5), st.integers(2, 40), st.floats(0.0, 4.0), st.integers(0, 2**32 - 1))
def test_the_race_drops_exactly_the_cards_z_standard_errors_behind(n: int, done: int, z: float,
                                                                  seed: int) -> None:
    """race() keeps the leader (the best total alive), drops a card alive before iff its mean paired
    deficit to the leader exceeds z standard errors (numpy's ddof=1 deviation over root done), never
    revives a dropped one, and returns how many others stay."""
    gen = np.random.default_rng(seed)
    per = np.zeros((n, 50))
    per[:, :done] = gen.normal(gen.normal(0, 0.3, (n, 1)), 0.2, (n, done)).round(2)
    totals = per[:, :done].sum(axis=1)
    before = gen.random(n) < 0.8
    before[gen.integers(n)] = True
    alive = before.copy()
    left = race(per, totals, alive, n, done, z)
    lead = max((i for i in range(n) if before[i]), key=lambda i: (totals[i], -i))
    assert alive[lead] and not (alive & ~before).any()
    for i in range(n):
        if before[i] and i != lead:
            d = per[lead, :done] - per[i, :done]
            se = d.std(ddof=1) / np.sqrt(done)
            if abs(d.mean() - z * se) > 1e-9:  # away from the boundary, where rounding may go either way
                assert alive[i] == (d.mean() <= z * se), (i, d.mean(), se)
    assert left == alive.sum() - 1
