"""Every rule option played: a move a config's knob opens is one every agent level considers.

The one Kamakura knob that opens a move is R-8's `voluntary_pass`: a pass while a gain is still reachable,
which puts the player out for the rest of the game. With it on, `random` draws the pass like any legal
action; the expert, the search and both MCTS trees are offered it where it could win, the mover's score
being at least every other's (the planner's turn_candidates after its gaining turns, the micro-action
tree's children), and take it where their own look says it is best; the expert otherwise plays its
knob-off turn; `greedy` never passes while a gain is reachable (docs/reference/agents.md says why) and so
plays the base rules' game. The test
position: two players, seat 0 to move and 10 points ahead; the only gain it can reach (1 point) needs both
its swaps (its red power), and they bring a 20-point chit within the next player's one swap, while a pass
leaves seat 1 nothing within reach, so the game ends at once with seat 0 the winner. With the knob off
nothing changes: the knob-off plans, draws and games are the base rules' (the behaviour hashes hold them).

Other knobs were checked for moves the agents never consider (docs/reference/agents.md, "Rule options"):
Kamakura's green_min_requirement changes which gains are legal, and the planner, gain_reachable and the
expert's distances read it; its other knobs (layout, chits, order-chit moves, tie-break) open no new kind of
move. Sakura's only move-opening knob, the two-player `tactical` variant's court card, is chosen by every
level (tests/test_sakura_agents.py and friends play it); its other knobs change no legal move.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.agent_spec import AgentSpec, agent_arrays, agent_row
from sim.core.rng import game_seeds, new_rng
from sim.kamakura import kernels as K
from sim.kamakura.agents import AGENT_RANDOM, MAX_PLAN, agent_plan, random_action, random_step
from sim.kamakura.batch import run_batch
from sim.kamakura.expert import expert_plan
from sim.kamakura.game import action_to_string, kernel_rules
from sim.kamakura.mcts import mcts_action, tree_capacity
from sim.kamakura.planner import greedy_plan, pass_can_win, turn_candidates
from sim.kamakura.policies import RandomPolicy
from sim.kamakura.puct import search_plan
from sim.kamakura.search import search_row, search_turn
from sim.kamakura.spec import SPEC
from sim.kamakura.turn_mcts import PLAN_WIDTH, turn_mcts_plan, turn_tree_capacity
from sim.kamakura.uct import new_tree
from tests.kamakura_helpers import chit, load, make_state, off_board, play
from tests.test_kamakura_turn_mcts import turn_start_after

# The test position (found by a search over boards: every way to make the red line-4 chit eligible within
# two swaps leaves the blue line-5 chit one swap away, and neither is within one swap of the board now).
BOARD = "BYGBRYYRRRGYBBGG"
A, B, RED = 4, 35, 0  # A: red, line 4, 3 icons, 1 point; B: blue, line 5, 3 icons, 20 points; RED: seat 0's
GAIN_A = ["use 0", "swap 8 12", "swap 8 9", "gain 4", "end"]  # red chit of power 1 (a second swap)


def moves(codes) -> str:
    """What a whole turn does: "pass", or the chits it gains (the swaps leading there vary with the draw)."""
    words = strings(codes)
    return "pass" if words == ["pass"] else " ".join(w for w in words if w.startswith("gain"))


def strings(codes) -> list[str]:
    return [action_to_string(int(code)) for code in codes]


def lead_to_keep(voluntary: bool = True, ahead: bool = True) -> dict:
    """Seat 0 (24 points; ahead=False: 14) to move against seat 1 (14; 24); on the board only A and B."""
    owners = off_board([A, B], 1)
    for cid in [c for c in owners if c != RED][:23 if ahead else 13]:
        owners[cid] = 0
    owners[RED] = 0
    return make_state(board=BOARD, chits={A: chit(3, 1), B: chit(3, 20), RED: chit(1, 1, 1)}, owners=owners,
                      players=2, order_spent=[True, True], rules={"voluntary_pass": voluntary})


def position(voluntary: bool = True, ahead: bool = True) -> np.ndarray:
    return load(lead_to_keep(voluntary, ahead))[1].vector.copy()


def candidates(s: np.ndarray, width: int, seed: int = 0) -> list[list[str]]:
    plans = np.empty((width + 1, MAX_PLAN), dtype=np.int64)
    n, lengths = turn_candidates(s.copy(), new_rng(seed, 1), width, plans)
    return [strings(plans[i, :lengths[i]]) for i in range(n)]


def expert_row(name: str, players: int = 2, **params) -> np.ndarray:
    return np.array(agent_row(AgentSpec(name, params), SPEC, players), dtype=np.float64)


def test_the_position_is_what_the_tests_say():
    """A pass wins the game at once (seat 1 reaches nothing and must pass); the only gain loses it (seat 1
    then gains the 20-point chit with its one swap, the last on the board)."""
    g, s = load(lead_to_keep())
    assert "pass" in g.legal_actions(s)
    after_pass = play(g, s, "pass")
    assert g.legal_actions(after_pass) == ["pass"]
    over = play(g, after_pass, "pass")
    assert g.is_over(over) and g.returns(over)[0] == 1.0
    after_gain = play(g, s, *GAIN_A)
    replies = [a for a in g.legal_actions(after_gain) if a.startswith("swap")
               and "gain 35" in g.legal_actions(play(g, after_gain, a))]
    assert replies
    lost = play(g, after_gain, replies[0], "gain 35", "end")
    assert g.is_over(lost) and g.returns(lost)[0] == 0.0
    _, s_off = load(lead_to_keep(False))
    assert "pass" not in g.legal_actions(s_off)


# --------------------------------------------------------------------------------------------------------
# 1. The move is offered at every level (greedy: by its documented rule, never)


def test_random_draws_the_voluntary_pass_with_the_knob_and_never_without():
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    for voluntary, expect in ((True, True), (False, False)):
        s = position(voluntary)
        draws = [int(random_action(s.copy(), new_rng(seed, 1), buf)) for seed in range(200)]
        assert (K.A_PASS in draws) == expect
        if voluntary:  # uniform over what it allows: the pass is one of a handful
            assert 10 <= draws.count(K.A_PASS) <= 100
    # the readable API's random policy draws the same actions
    g, s = load(lead_to_keep())
    for seed in range(20):
        policy = RandomPolicy(new_rng(seed, 1))
        drawn = random_action(s.vector.copy(), new_rng(seed, 1), buf)
        assert policy.choose(g, s) == action_to_string(int(drawn))


def test_the_planner_offers_the_pass_after_the_gains_where_it_could_win():
    """turn_candidates (the moves of expert, search and mcts tree=turns): with the knob, the gaining turns
    of the knob-off list and then a lone pass, at any width; not from behind (a pass cannot win there)."""
    for width in (1, 2, 16):
        on, off = candidates(position(), width), candidates(position(False), width)
        assert on == off + [["pass"]] and [c[-2:] for c in off] == [["gain 4", "end"]]
        behind = candidates(position(ahead=False), width)
        assert behind == candidates(position(False, ahead=False), width) and ["pass"] not in behind
    s = position()
    assert pass_can_win(s) and not pass_can_win(position(ahead=False))


def test_both_mcts_trees_hold_the_pass_among_the_roots_children():
    for voluntary, ahead in ((True, True), (False, True), (True, False)):
        s = position(voluntary, ahead)
        tree = new_tree(turn_tree_capacity(50, 8, voluntary), PLAN_WIDTH)
        row = search_row({"iters": 50})
        turn_mcts_plan(s.copy(), new_rng(0, 1), row, tree, np.zeros(1, dtype=np.int64), 0,
                       np.empty(MAX_PLAN, dtype=np.int64))
        children = range(tree.first[0], tree.first[0] + tree.count[0])
        plans = [strings(tree.plans[c, :tree.edge[c]]) for c in children]
        assert (["pass"] in plans) == (voluntary and ahead)
        tree = new_tree(tree_capacity(50))
        mcts_action(s.copy(), new_rng(0, 1), search_row({"iters": 50, "tree": 1}), tree,
                    np.zeros(1, dtype=np.int64), 0)
        edges = [int(tree.edge[c]) for c in range(tree.first[0], tree.first[0] + tree.count[0])]
        assert (K.A_PASS in edges) == (voluntary and ahead)


# --------------------------------------------------------------------------------------------------------
# 2. Where passing is clearly best, the searching levels take it; greedy does not; random now and then


@pytest.mark.parametrize("seed", range(3))
def test_the_searching_levels_pass_from_the_lead_and_gain_without_the_knob(seed):
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    for voluntary in (True, False):
        s = position(voluntary)
        expect = "pass" if voluntary else "gain 4"
        n = expert_plan(s.copy(), new_rng(seed, 1), expert_row("expert"), plan)
        assert moves(plan[:n]) == expect, "expert"
        # the quick evaluation prefers the gain by far (its gap beats any settle): the deep look decides
        n = expert_plan(s.copy(), new_rng(seed, 1), expert_row("expert", settle=1000.0), plan)
        assert moves(plan[:n]) == expect, "expert, settle 1000"
        n = search_plan(s.copy(), new_rng(seed, 1), expert_row("search"), plan)
        assert moves(plan[:n]) == expect, "search"
        assert moves(search_turn(s, new_rng(seed, 1))) == expect, "mcts"
        # the micro-action tree decides one action at a time: the first is the pass, or a step towards A
        first = strings(search_turn(s, new_rng(seed, 1), tree=1, iters=2000))
        assert (first == ["pass"]) == voluntary, "mcts tree=actions"
    # from behind the pass is not offered (it cannot win): every level plays the gain
    s = position(ahead=False)
    n = expert_plan(s.copy(), new_rng(seed, 1), expert_row("expert"), plan)
    assert moves(plan[:n]) == "gain 4"
    n = search_plan(s.copy(), new_rng(seed, 1), expert_row("search"), plan)
    assert moves(plan[:n]) == "gain 4"
    assert moves(search_turn(s, new_rng(seed, 1))) == "gain 4"


def test_greedy_never_passes_while_a_gain_is_reachable():
    """Its documented rule: a pass scores nothing, now or later; greedy's one-turn view plays the gain."""
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    for seed in range(5):
        n = greedy_plan(position().copy(), new_rng(seed, 1), plan)
        assert moves(plan[:n]) == "gain 4"


def test_random_passes_voluntarily_in_self_play():
    """Random self-play under the knob ends with voluntary passes: seats out while a gain was reachable."""
    rules = kernel_rules(dataclasses.replace(SPEC.default_rules(3), voluntary_pass=True))
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    voluntary = 0
    for seed in game_seeds(62, 0, 10):
        s = K.new_game(rules, seed)
        rng = new_rng(int(seed), 1)
        while not s[K.OVER]:
            n = agent_plan(AGENT_RANDOM, s, rng, plan, buf)
            for i in range(n):
                if plan[i] == K.A_PASS and K.legal_actions(s, buf) > 1:
                    voluntary += 1
                K.apply_action(s, plan[i])
    assert voluntary > 0


# --------------------------------------------------------------------------------------------------------
# 3. Invariants over positions reached by play


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), turns=st.integers(0, 30),
       width=st.integers(1, 12))
def test_the_pass_follows_the_knob_off_plans_where_it_could_win(players, seed, turns, width):
    """With the knob on, turn_candidates gives the knob-off plans (same draws) and then the pass, where a
    gain is reachable and the mover's score is at least every other's; every plan is a legal whole turn."""
    off = turn_start_after(players, seed, turns)
    if off[K.OVER]:
        return
    on = off.copy()
    on[K.VOLUNTARY] = 1
    off_list, on_list = candidates(off, width, seed), candidates(on, width, seed)
    assert ["pass"] not in off_list or off_list == [["pass"]]
    if K.gain_reachable(off) and pass_can_win(off):
        assert on_list == off_list + [["pass"]]
    else:
        assert on_list == off_list
    plans = np.empty((width + 1, MAX_PLAN), dtype=np.int64)
    n, lengths = turn_candidates(on.copy(), new_rng(seed, 1), width, plans)
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    for codes in (plans[i, :lengths[i]] for i in range(n)):
        t = on.copy()
        for code in codes:
            k = K.legal_actions(t, buf)
            assert code in buf[:k].tolist()
            K.apply_action(t, code)
        assert t[K.TURN] == on[K.TURN] + 1


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), turns=st.integers(0, 36))
def test_the_expert_plays_its_knob_off_turn_or_the_pass(players, seed, turns):
    """The knob changes the expert's turn only to a pass: it chooses among the gaining turns as without
    the knob, and plays the pass instead only where its deep look values the pass higher."""
    off = turn_start_after(players, seed, turns)
    if off[K.OVER]:
        return
    on = off.copy()
    on[K.VOLUNTARY] = 1
    row = expert_row("expert", players)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    n_off = expert_plan(off.copy(), new_rng(seed, 1), row, plan)
    was = strings(plan[:n_off])
    n_on = expert_plan(on.copy(), new_rng(seed, 1), row, plan)
    now = strings(plan[:n_on])
    assert now == was or (now == ["pass"] and K.gain_reachable(off) and pass_can_win(off))


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), turns=st.integers(0, 30))
def test_random_draws_a_pass_only_where_it_is_legal(players, seed, turns):
    """The random agent's draw (and the batch loop's quick step) holds a pass only where the rules allow
    it: alone when no gain is reachable, or among the others under the knob."""
    s = turn_start_after(players, seed, turns)
    if s[K.OVER]:
        return
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    for voluntary in (0, 1):
        t = s.copy()
        t[K.VOLUNTARY] = voluntary
        reachable = K.gain_reachable(t)
        for k in range(20):
            action = int(random_action(t.copy(), new_rng(seed + k, 5), buf))
            step, _ = random_step(t.copy(), new_rng(seed + k, 5), buf, False)
            assert int(step) == action
            if action == K.A_PASS:
                assert voluntary == 1 or not reachable


# --------------------------------------------------------------------------------------------------------
# 4. A designer's compare of the base against the variant sees a change


def test_a_variant_with_the_voluntary_pass_plays_other_games_at_expert():
    """`balance compare base.toml v.toml --players 3 --agents expert --games 600 --seed 7` plays both on
    the same deals: with the knob the expert passes where its look says a pass from the lead does better,
    so a paired game differs (before the pass was offered every game was the same). That is rare at expert
    level: one game of these 600 (a pass from the lead very seldom beats a gain: in 200 games played on
    both ways from every offered pass, never; docs/reference/agents.md, Rule options)."""
    base = SPEC.default_rules(3)
    variant = dataclasses.replace(base, voluntary_pass=True)
    kinds, params = agent_arrays([["expert"] * 3], SPEC)
    seeds = game_seeds(7, 0, 600)
    a = run_batch(base, seeds, kinds[0], params[0])
    b = run_batch(variant, seeds, kinds[0], params[0])
    differ = (a["scores"] != b["scores"]).any(axis=1) | (a["turns"] != b["turns"])
    assert differ.sum() >= 1
    # a differing game is one where a seat left the game earlier under the knob: by its pass
    g = int(np.flatnonzero(differ)[0])
    assert (b["out_turn"][g] >= 0).any() and (b["out_turn"][g] != a["out_turn"][g]).any()
