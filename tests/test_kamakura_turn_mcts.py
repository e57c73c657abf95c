"""The Kamakura `mcts` agent over whole turns (`tree=turns`, its default; sim/kamakura/turn_mcts.py) and
the plans it chooses among (sim/kamakura/planner.py).

The plans: legal whole turns, distinct, best first, the first worth what greedy's turn is worth (property
tests over positions reached by play). The search: it finds the forced best claims of the micro-action
tests, and it sees what greedy cannot, a claim that leaves the opponent a 10-point chit; its batch games
replay exactly in Python with a legality check at every action; tree reuse keeps the subtree reached.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, new_rng
from sim.kamakura import kernels as K
from sim.kamakura.agents import AGENT_RANDOM, MAX_PLAN, agent_plan
from sim.kamakura.batch import run_batch
from sim.kamakura.game import action_to_string
from sim.kamakura.planner import greedy_plan, turn_candidates
from sim.kamakura.search import search_turn
from sim.kamakura.turn_mcts import PLAN_WIDTH, at_turn_start, turn_mcts_plan, turn_tree_capacity
from sim.kamakura.uct import M_NODES, TREE_TURNS, new_tree
from tests.kamakura_helpers import CONFIG, LATIN, chit, game, load, make_state, play, swapped
from tests.test_kamakura_mcts import (
    check_batch_records,
    gained_by,
    one_swap_claim,
    replay_batch_game,
    yellow_double_claim,
)

SEEDS = range(6)


def strings(codes) -> list[str]:
    return [action_to_string(int(code)) for code in codes]


def turn_start_after(players: int, seed: int, turns: int) -> np.ndarray:
    """The state vector at the start of a turn, after `turns` turns of random play from a seeded deal."""
    g = game(players)
    s = g.new_state(seed=seed).vector.copy()
    rng = new_rng(seed, 7)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    while not s[K.OVER] and s[K.TURN] < turns:
        n = agent_plan(AGENT_RANDOM, s, rng, plan, buf)
        for i in range(n):
            K.apply_action(s, plan[i])
    return s


def turn_points(s: np.ndarray, codes) -> int:
    """Points the player to move gains by playing `codes` (each checked legal), a whole turn."""
    seat, turn = s[K.TO_MOVE], s[K.TURN]
    st_ = s.copy()
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    before = sum(st_[K.POINTS + c] for c in range(40) if st_[K.OWNER + c] == seat)
    for code in codes:
        assert st_[K.TURN] == turn, "the plan goes on after its turn ended"
        n = K.legal_actions(st_, buf)
        assert code in buf[:n].tolist(), (action_to_string(int(code)), strings(codes))
        K.apply_action(st_, code)
    assert st_[K.TURN] == turn + 1 or st_[K.OVER], "the plan does not finish its turn"
    return sum(st_[K.POINTS + c] for c in range(40) if st_[K.OWNER + c] == seat) - before


# --------------------------------------------------------------------------------------------------------
# 1. The plans


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), turns=st.integers(0, 30),
       width=st.integers(1, 12))
def test_turn_candidates_are_distinct_legal_turns_best_first(players, seed, turns, width):
    s = turn_start_after(players, seed, turns)
    if s[K.OVER]:
        return
    assert at_turn_start(s)
    plans = np.empty((width, MAX_PLAN), dtype=np.int64)
    n, lengths = turn_candidates(s.copy(), new_rng(seed, 3), width, plans)
    assert 1 <= n <= width
    if not K.gain_reachable(s):  # the turn is void, pass is the only plan
        assert n == 1 and strings(plans[0, :lengths[0]]) == ["pass"]
        return
    points = [turn_points(s, plans[i, :lengths[i]]) for i in range(n)]
    assert all(strings(plans[i, :lengths[i]])[-1] == "end" for i in range(n))
    assert points == sorted(points, reverse=True) and min(points) > 0
    greedy = np.empty(MAX_PLAN, dtype=np.int64)
    assert points[0] == turn_points(s, greedy[:greedy_plan(s.copy(), new_rng(seed, 4), greedy)])
    # distinct: no two plans leave the same board with the same chits gained
    outcomes = set()
    for i in range(n):
        after = s.copy()
        for code in plans[i, :lengths[i]]:
            K.apply_action(after, code)
        outcomes.add((after[K.BOARD:K.BOARD + 16].tobytes(), after[K.OWNER:K.OWNER + 40].tobytes()))
    assert len(outcomes) == n


def test_more_width_keeps_the_narrower_plans_best_first():
    """The best plans are the same whatever the width (same draw order), the wider list adding below."""
    s = turn_start_after(3, 12, 6)
    narrow = np.empty((3, MAX_PLAN), dtype=np.int64)
    wide = np.empty((10, MAX_PLAN), dtype=np.int64)
    n3, l3 = turn_candidates(s.copy(), new_rng(1, 1), 3, narrow)
    n10, l10 = turn_candidates(s.copy(), new_rng(1, 1), 10, wide)
    assert n10 > n3 == 3
    p3 = [turn_points(s, narrow[i, :l3[i]]) for i in range(n3)]
    p10 = [turn_points(s, wide[i, :l10[i]]) for i in range(n10)]
    assert p10[:3] == p3


# --------------------------------------------------------------------------------------------------------
# 2. What the search finds


@pytest.mark.parametrize("params", [{}, {"prior": 0.0, "iters": 300}], ids=["defaults", "no-prior"])
def test_turn_search_finds_the_yellow_double_claim(params):
    """R-5 / R-6 yellow: the whole turn chosen activates yellow 19 and gains green 20 and blue 30."""
    before = yellow_double_claim()
    g, s = load(before)
    for seed in SEEDS:
        codes = search_turn(s.vector, new_rng(seed, 1), **params)
        after = g.to_dict(play_codes(g, s, codes))
        assert gained_by(after, 0, before) == {20, 30}, strings(codes)
        assert "use 19" in strings(codes) and strings(codes)[-1] == "end"


@pytest.mark.parametrize("params", [{}, {"prior": 0.0, "iters": 300}], ids=["defaults", "no-prior"])
def test_turn_search_finds_the_claim_behind_one_swap(params):
    """R-7: swap 1 5 first, then gain blue 30 (10 points)."""
    g, s = load(one_swap_claim())
    for seed in SEEDS:
        assert strings(search_turn(s.vector, new_rng(seed, 1), **params)) == ["swap 1 5", "gain 30", "end"]


def play_codes(g, s, codes):
    for code in codes:
        action = action_to_string(int(code))
        assert action in g.legal_actions(s)
        s = g.apply(s, action)
    return s


def leave_no_blue_pair() -> dict:
    """Two players, no order moves. Seat 0 can gain red 0 (1 icon, 3 points) in row 0 as the board stands;
    the free swap may come first (R-7). Blue 30 (row 0, 3 icons, 10 points) is out of seat 0's reach, but
    seat 1 owns green 29 (power 1, R-6): two blues in row 0 are enough for it, and `swap 1 5` brings the
    second one (row 0 of LATIN is R Y G B, the blue below cell 1). Greedy weighs every 3-point turn alike
    and picks one at random; only `swap 3 7` before the gain takes row 0's blue away, so that no single
    swap can make two. The lead after a round: +3 or so that way, -7 any other way."""
    chits = {0: chit(1, 3, 0), 30: chit(3, 10, 0), 29: chit(4, 1, 1), 21: chit(2, 2, 0)}
    return make_state(chits=chits, owners={29: 1}, players=2, order_moves=[0, 0])


def test_constructed_trap_is_what_its_docstring_says():
    d = leave_no_blue_pair()
    g, s = load(d)
    assert "gain 0" in g.legal_actions(s) and "gain 30" not in g.legal_actions(s)
    # the opponent's reply after a plain claim: swap 1 5, then 30 with the green's help
    after = play(g, s, "gain 0", "end")
    assert "gain 30" in g.legal_actions(play(g, after, "use 29", "swap 1 5"))
    # after `swap 3 7` no single swap brings two blues into row 0
    blocked = g.to_dict(play(g, s, "swap 3 7", "gain 0", "end"))
    assert blocked["board"] == swapped(LATIN, 3, 7)
    for a, b in [(a, a + 1) for a in range(16) if a % 4 != 3] + [(a, a + 4) for a in range(12)]:
        assert swapped(blocked["board"], a, b)[:4].count("B") < 2
    # greedy does not see it: over ten seeds its 3-point turns differ, and some leave the pair
    greedy_turns = {tuple(strings(search_greedy(s, seed))) for seed in range(10)}
    assert len(greedy_turns) > 1 and any("swap 3 7" not in t for t in greedy_turns)


def search_greedy(s, seed):
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    return plan[:greedy_plan(s.vector.copy(), new_rng(seed, 1), plan)]


def test_turn_search_takes_the_blue_away_before_claiming():
    g, s = load(leave_no_blue_pair())
    for seed in SEEDS:
        assert strings(search_turn(s.vector, new_rng(seed, 1))) == ["swap 3 7", "gain 0", "end"]


def test_mid_turn_positions_are_searched_over_micro_actions():
    """A turn already under way is not a turn start: search_turn answers one micro-action there."""
    g, s = load(one_swap_claim())
    s = g.apply(s, "swap 1 5")
    assert not at_turn_start(s.vector)
    assert strings(search_turn(s.vector, new_rng(0, 1), iters=200)) == ["gain 30"]


# --------------------------------------------------------------------------------------------------------
# 3. The batch loop: legality, reproduction, determinism


SEATINGS = {
    2: [["mcts:iters=40", "greedy"], ["random", "mcts:iters=40,width=3,rollout=quick"]],
    3: [["mcts:iters=40", "greedy", "random"],
        ["greedy", "mcts:iters=40,reward=win,horizon=0", "mcts:iters=40"]],
    4: [["random", "mcts:iters=40,prior=0", "greedy", "mcts:iters=40,rollout=random,horizon=2"]],
}


def batch(players: int, seeds, rows):
    rules = games.load("kamakura", config=str(CONFIG), players=players).rules
    rows = [rows[i % len(rows)] for i in range(len(seeds))]
    kinds, params = agent_arrays(rows, games.spec("kamakura"))
    return rules, kinds, params, run_batch(rules, seeds, kinds, params)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_games_replay_exactly_with_every_action_legal(players):
    seeds = game_seeds(5, 0, 2)
    rules, kinds, params, out = batch(players, seeds, SEATINGS[players])
    check_batch_records(rules, seeds, out)
    score = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
    for g, seed in enumerate(seeds):
        s = replay_batch_game(rules, seed, kinds[g], params[g])
        K.scores(s, score)
        assert score[:players].tolist() == out["scores"][g].tolist()
        assert s[K.TURN] == out["turns"][g]


def test_batch_games_do_not_depend_on_batching():
    seeds = game_seeds(3, 0, 4)
    rules, kinds, params, whole = batch(3, seeds, SEATINGS[3])
    head = run_batch(rules, seeds[:1], kinds[:1], params[:1])
    tail = run_batch(rules, seeds[1:], kinds[1:], params[1:])
    for key in ("scores", "winners", "turns", "n_events"):
        assert np.array_equal(whole[key], np.concatenate([head[key], tail[key]])), key


# --------------------------------------------------------------------------------------------------------
# 4. Tree reuse


def subtree(tree, node: int) -> tuple:
    """(plan, child count, children...) of the subtree under `node`: its shape, statistics left out."""
    first, count, length = tree.first, tree.count, tree.edge
    kids = tuple(subtree(tree, first[node] + k) for k in range(count[node])) if first[node] >= 0 else ()
    return tuple(tree.plans[node, :length[node]].tolist()), int(count[node]), kids


def size(node: tuple) -> int:
    return 1 + sum(size(kid) for kid in node[2])


def search_into(s, tree, iters, history, n_history, seed=1, width=4):
    out = np.empty(MAX_PLAN, dtype=np.int64)
    # iters, c, rollout (greedy), reward (score), horizon, prior, tree, width: the uct.P_* row
    row = np.array([iters, 0.1, 1, 1, 1, 2.0, TREE_TURNS, width], dtype=np.float64)
    return turn_mcts_plan(s, new_rng(seed, 1), row, tree, history, n_history, out)


def test_reuse_keeps_the_subtree_of_the_turns_played_with_cleared_statistics():
    s0 = game(3).new_state(seed=4).vector.copy()
    capacity = turn_tree_capacity(300, 4)
    tree = new_tree(capacity, PLAN_WIDTH)
    history = np.zeros(256, dtype=np.int64)
    search_into(s0.copy(), tree, 300, history, 0)
    first, count, length, visits, plans = tree.first, tree.count, tree.edge, tree.visits, tree.plans
    # three turns down the tree (seat 0, 1, 2) to an expanded node: the searcher's next turn
    node, s1, n = 0, s0.copy(), 0
    for _ in range(3):
        node = max(range(first[node], first[node] + count[node]), key=lambda c: visits[c])
        for code in plans[node, :length[node]]:
            K.apply_action(s1, code)
            history[n] = code
            n += 1
    assert first[node] >= 0 and s1[K.TO_MOVE] == 0
    old = subtree(tree, node)
    total = tree.meta[M_NODES]
    search_into(s1, tree, 0, history, n)  # no iterations: the walk and the compaction alone
    assert tree.meta[M_NODES] == size(old) < total
    assert subtree(tree, 0) == old
    assert not tree.visits[:size(old)].any() and not tree.value[:size(old), :K.MAX_PLAYERS].any()
    # a turn the tree does not hold (a void turn, never offered while a gain is reachable) starts afresh
    s2 = s1.copy()
    K.apply_action(s2, K.A_PASS)
    history[n] = K.A_PASS
    search_into(s2, tree, 0, history, n + 1)
    assert tree.meta[M_NODES] == 1 + tree.count[0] and not tree.visits[:tree.meta[M_NODES]].any()
