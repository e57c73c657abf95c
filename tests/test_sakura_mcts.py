"""The Sakura `mcts` agent (sim/sakura/mcts.py, SO-ISMCTS): it never peeks at hidden information, its
determinizations keep everything the searching seat can see, it plays legal, deterministic games through
the readable API and the batch loop, and it finds an obviously best forward/back choice.

Hidden from a seat (`observe`, docs/reference/python-api.md): the other hands, the deck order, the generator
that will reshuffle the discard pile (R-19) and, in phase select, the other seats' choices of the round.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, new_rng, rng_below
from sim.sakura import kernels as K
from sim.sakura.agents import AGENT_MCTS
from sim.sakura.batch import run_batch
from sim.sakura.game import SakuraState, action_to_string, state_to_dict
from sim.sakura.mcts import determinize, search
from sim.sakura.policies import POLICIES
from tests.sakura_helpers import CONFIG, TACTICAL_CONFIG, cards_with, check_cards, game, load, make_state, run
from tests.test_sakura_agents import reshuffle_hidden

CASES = [(3, CONFIG), (4, CONFIG), (5, CONFIG), (2, TACTICAL_CONFIG)]


def hidden_cards(d: dict, seat: int) -> list[int]:
    """The cards `seat` cannot place: deck, other hands, other seats' selections still hidden."""
    cards = list(d["deck"])
    for other in range(d["players"]):
        if other != seat:
            cards += d["hands"][other]
            if d["phase"] == "select" and d["selected"][other] is not None:
                cards.append(d["selected"][other])
    return cards


# --------------------------------------------------------------------------------------------------------
# 1. No peeking


def peeking_choice(v: np.ndarray, seed: int) -> int:
    """A deliberately cheating flat Monte Carlo: random play-outs from the true position, hidden cards
    and reshuffle generator included; the action with the most tokens for the seat to move."""
    buf = np.empty(K.N_ACTIONS_MAX, dtype=np.int64)
    inner = np.empty(K.N_ACTIONS_MAX, dtype=np.int64)
    me = v[K.TO_MOVE]
    n = K.legal_actions(v, buf)
    best, best_total = -1, -1
    for action in buf[:n].tolist():
        rng = new_rng(seed, 1)
        total = 0
        for _ in range(3):
            st_ = v.copy()
            K.apply_action(st_, action)
            while st_[K.PHASE] != K.PH_OVER:
                m = K.legal_actions(st_, inner)
                K.apply_action(st_, inner[rng_below(rng, m)])
            total += st_[K.TOKENS + me]
        if total > best_total:
            best, best_total = action, total
    return best


@pytest.mark.parametrize("players, config", CASES)
def test_mcts_decides_from_the_observation_only(players, config):
    """At every decision of several games (moves chosen at random to reach varied positions), the search
    returns the same action on the true state and on copies whose hidden information is redealt from the
    same cards (tests/test_sakura_agents.reshuffle_hidden), with the same generator seed."""
    g = game(players, str(config))
    rng = random.Random(7 * players)
    checked = hands_redealt = 0
    for seed in range(3):
        s = g.new_state(seed)
        while not g.is_over(s):
            d = g.to_dict(s)
            seat = d["to_move"]
            key = 1000 * seed + checked
            params = {"iters": 60, "reward": checked % 2}
            want = search(s.vector, new_rng(key, 1), **params)
            for _ in range(2):
                twin = reshuffle_hidden(d, seat, rng)
                t = g.from_dict(twin)
                assert g.observe(t, seat) == g.observe(s, seat)
                # control: the twin really differs where only a peeking search could look
                assert twin["rng"] != d["rng"] and t != s
                assert sorted(hidden_cards(twin, seat)) == sorted(hidden_cards(d, seat))
                hands_redealt += twin["hands"] != d["hands"]
                assert search(t.vector, new_rng(key, 1), **params) == want, (seed, d["round"], d["phase"])
            checked += 1
            s = g.apply(s, rng.choice(g.legal_actions(s)))
    assert checked > 60
    assert hands_redealt > 1.5 * checked, "the redeal moves other players' cards at most decision points"


def test_a_peeking_search_would_be_caught():
    """Control for the test above: a search that reads the hidden cards changes its decision when they are
    redealt at some of the same decision points, so the redeal does expose peeking."""
    g = game(4, str(CONFIG))
    rng = random.Random(3)
    changed = positions = 0
    s = g.new_state(5)
    while not g.is_over(s) and positions < 25:
        d = g.to_dict(s)
        if len(g.legal_actions(s)) > 1:
            twin = g.from_dict(reshuffle_hidden(d, d["to_move"], rng))
            changed += peeking_choice(twin.vector, positions) != peeking_choice(s.vector, positions)
            positions += 1
        s = g.apply(s, rng.choice(g.legal_actions(s)))
    assert positions == 25 and changed >= 5  # 20 of 25 when written


# --------------------------------------------------------------------------------------------------------
# 2. determinize


def random_position(players: int, tactical: bool, seed: int, steps: int):
    g = game(players, str(TACTICAL_CONFIG if tactical and players == 2 else CONFIG))
    s = g.new_state(seed)
    r = random.Random(seed)
    for _ in range(steps):
        nxt = g.apply(s, r.choice(g.legal_actions(s)))
        if g.is_over(nxt):
            break
        s = nxt
    return g, s


@settings(deadline=None, max_examples=150)
@given(players=st.integers(2, 6), tactical=st.booleans(), seed=st.integers(0, 2**32),
       steps=st.integers(0, 120), det_seed=st.integers(0, 2**32), data=st.data())
def test_determinize_redeals_only_what_the_seat_cannot_see(players, tactical, seed, steps, det_seed, data):
    g, s = random_position(players, tactical, seed, steps)
    assume(not g.is_over(s))
    me = data.draw(st.sampled_from([int(s.vector[K.TO_MOVE])] + list(range(players))), label="me")
    out = np.empty_like(s.vector)
    determinize(s.vector, me, new_rng(det_seed, 5), out)
    d, e = g.to_dict(s), state_to_dict(out)
    check_cards(e)  # every card exactly once across hands, deck, discard, selected and the court card
    assert [p for p, _ in e["pending"]] == [p for p, _ in d["pending"]]  # pending: revealed, kept
    table = e["selected"] + [e["court"]["card"] if e["court"] else None]
    assert all(card in table for card, _ in e["pending"])
    assert e["hands"][me] == d["hands"][me]
    assert [len(h) for h in e["hands"]] == [len(h) for h in d["hands"]]
    assert all(h == sorted(h) for h in e["hands"])
    assert len(e["deck"]) == len(d["deck"]) and e["discard"] == d["discard"]
    assert e["court"] == d["court"]
    if d["phase"] == "select":
        assert e["selected"][me] == d["selected"][me]
        assert [c is None for c in e["selected"]] == [c is None for c in d["selected"]]
    else:
        assert e["selected"] == d["selected"]
    assert sorted(hidden_cards(e, me)) == sorted(hidden_cards(d, me))
    assert e["rng"] != d["rng"]  # the reshuffles to come are redrawn too
    assert g.observe(SakuraState(out), me) == g.observe(s, me)
    rest = ("hands", "deck", "selected", "rng")
    assert {k: v for k, v in e.items() if k not in rest} == {k: v for k, v in d.items() if k not in rest}
    assert np.array_equal(g.from_dict(e).vector[:K.LOG_START], out[:K.LOG_START])  # a valid position
    assert np.array_equal(out[K.LOG_START:], s.vector[K.LOG_START:])


def test_determinize_depends_on_the_observation_only():
    """Two positions that differ only in hidden information give the same determinizations for the same
    generator (the pool is gathered by card number), and different generators deal differently."""
    g = game(4, str(CONFIG))
    rng = random.Random(1)
    s = g.new_state(9)
    for _ in range(6):
        s = g.apply(s, rng.choice(g.legal_actions(s)))
    d = g.to_dict(s)
    me = d["to_move"]
    twin = g.from_dict(reshuffle_hidden(d, me, rng))
    a, b, c = (np.empty_like(s.vector) for _ in range(3))
    determinize(s.vector, me, new_rng(4, 5), a)
    determinize(twin.vector, me, new_rng(4, 5), b)
    determinize(s.vector, me, new_rng(5, 5), c)
    assert np.array_equal(a[:K.LOG_START], b[:K.LOG_START])  # behind LOG_START: the last round's log
    assert not np.array_equal(a[:K.LOG_START], c[:K.LOG_START])


# --------------------------------------------------------------------------------------------------------
# 3. Legality and determinism


@pytest.mark.parametrize("players, config", [(2, CONFIG), (2, TACTICAL_CONFIG), (3, CONFIG), (4, CONFIG),
                                             (5, CONFIG), (6, CONFIG)])
def test_mcts_plays_legal_complete_games_through_the_readable_api(players, config):
    g = game(players, str(config))
    names = ["mcts", "greedy", "random"]
    for seed in range(2):
        s = g.new_state(seed)
        agents = []
        for seat in range(players):
            name = names[(seat + seed) % 3] if seat else "mcts"
            rng = new_rng(seed, 10 + seat)
            agents.append(POLICIES[name](rng, iters=30) if name == "mcts" else POLICIES[name](rng))
        steps = 0
        while not g.is_over(s):
            seat = g.to_dict(s)["to_move"]
            action = agents[seat].choose(g, s)
            assert action in g.legal_actions(s), action
            s = g.apply(s, action)
            steps += 1
            assert steps < 5000
        result = g.result(s)
        assert result["over"] and result["winners"] and result["end_reason"] == "last_sakura"


SEATINGS = {
    2: [["mcts:iters=30", "greedy"], ["random", "mcts:iters=30,reward=score"]],
    4: [["mcts:iters=30", "greedy", "random", "mcts:iters=30,reward=score,c=0.3"]],
    5: [["random", "mcts:iters=30", "greedy", "random", "mcts:iters=30"]],
}


def batch(players: int, config, seeds, rows):
    rules = game(players, str(config)).rules
    seating = [rows[i % len(rows)] for i in range(len(seeds))]
    kinds, params = agent_arrays(seating, games.spec("sakura"))
    assert (kinds == AGENT_MCTS).any()
    return rules, kinds, params, run_batch(rules, seeds, kinds, params)


def assert_same(a: dict, b: dict, rows_a=slice(None), rows_b=slice(None)) -> None:
    for key in ("tokens", "winners", "tie", "decided_by_tiebreak", "rounds", "end_reason", "bumps",
                "positions"):
        assert np.array_equal(a[key][rows_a], b[key][rows_b]), key


def card_rows(out: dict, g: int) -> np.ndarray:
    log = out["cards_played"]
    return log[log[:, 0] == g][:, 1:]


@pytest.mark.parametrize("players, config", [(2, CONFIG), (2, TACTICAL_CONFIG), (4, CONFIG), (5, CONFIG)])
def test_run_batch_with_mcts_is_deterministic_and_independent_of_batching(players, config):
    seeds = game_seeds(21, 0, 4)
    rules, kinds, params, first = batch(players, config, seeds, SEATINGS[players])
    _, _, _, again = batch(players, config, seeds, SEATINGS[players])
    assert_same(first, again)
    assert np.array_equal(first["cards_played"], again["cards_played"])
    assert np.array_equal(first["sakura_scored"], again["sakura_scored"])
    head = run_batch(rules, seeds[:1], kinds[:1], params[:1])
    tail = run_batch(rules, seeds[1:], kinds[1:], params[1:])
    assert_same(first, head, slice(0, 1))
    assert_same(first, tail, slice(1, None))
    assert np.array_equal(card_rows(first, 0), card_rows(head, 0))
    for g in range(1, 4):
        assert np.array_equal(card_rows(first, g), card_rows(tail, g - 1))
    # basic invariants
    assert (first["tokens"] >= 0).all() and (first["winners"].sum(axis=1) >= 1).all()
    assert (first["end_reason"] == K.END_LAST_SAKURA).all()
    for g in range(4):
        top = first["tokens"][g, :players].max()
        assert (first["tokens"][g, :players][first["winners"][g] == 1] == top).all()


# --------------------------------------------------------------------------------------------------------
# 4. An obviously best choice


def forward_reaches_the_sakura() -> dict:
    """3 players, phase choose: seat 0's card 14 (E+-1, P+1) waits for forward/back before its garden half;
    cards 1 and 2 of this round have resolved. Emperor on 11, the first sakura on 12, painters 10, 9, 8.
    forward: the Emperor stops on the sakura (R-12), seat 0 moves to 11 (P+1) and scores 3 as closest, then
    2 and 1 for the others. back: the Emperor steps onto seat 0's space and bumps it (R-15: -1 token, back
    to 5), then P+1 to 6, and nothing scores."""
    card = 14
    assert card in cards_with("E+-1", "P+1")
    return make_state(3, emperor=11, painters=[10, 9, 8], selected={0: card, 1: 1, 2: 2},
                      pending=[[card, 0]], phase="choose", choosing="garden")


def test_position_is_what_the_docstring_says():
    d = forward_reaches_the_sakura()
    fwd, back = run(d, "forward"), run(d, "back")
    assert fwd["scored"] == [True, False, False] and fwd["tokens"] == [8, 7, 6]
    assert back["scored"] == [False, False, False] and back["tokens"] == [4, 5, 5]
    assert back["painters"][0] == 6 and back["emperor"] == 10


@pytest.mark.parametrize("params", [{"iters": 400, "reward": 0}, {"iters": 400, "reward": 1}, {}],
                         ids=["win", "score", "defaults"])
def test_mcts_moves_the_emperor_forward_onto_the_sakura(params):
    """Checked with 300 search seeds (iters 400, both rewards) and 100 (defaults)."""
    g, s = load(forward_reaches_the_sakura())
    for seed in range(8 if params else 3):
        assert action_to_string(search(s.vector, new_rng(seed, 1), **params)) == "forward", seed
