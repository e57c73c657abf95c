"""Kamakura MCTS over whole turns (`tree=turns`, the `mcts` agent's default), compiled.

The micro-action tree of mcts.py spends most of its iterations rediscovering, swap by swap, the turn the
greedy planner finds by exhaustive search; what greedy cannot see is what its turn leaves to the others
and to its own next turn. Here an edge of the tree is a whole turn, a sequence of the readable API's
micro-actions: a node's children are the `width` best distinct plans of planner.py (the greedy planner's
search, keeping the best few), best first, and under the R-8 knob voluntary_pass the pass as the last.
Node storage, selection, statistics, rollouts and backup are
uct.py's, as for the micro-action tree: UCT with a reward sum per player, each node choosing for the player to
move there (max^n), a progressive bias `prior` towards the best-ranked plan (the one greedy would play), the
same rollouts, horizon and rewards. A node's plan is its row of the tree's plans, its edge the plan's length.
An iteration descends by UCT, expands the leaf it reaches with its plans, plays one of them, rolls out to
the horizon (rounds after the searcher's turn; 0: to the end of the game) and backs up the rewards. Tree
nodes at or past the horizon are not expanded: the scores there are the result.

Reuse: before each decision the tree is walked along the turns played since its root (matched plan by
plan) and the subtree reached is compacted to the front and kept with its expansions; its statistics are
cleared, because they were judged at the old root's horizon, one round earlier.
"""

import numpy as np
from numba import njit

from sim.kamakura.agents import MAX_PLAN, greedy_plan
from sim.kamakura.kernels import (
    A_END,
    A_PASS,
    ACTIVE_NOW,
    BOARD,
    GAINS_DONE,
    MAX_PLAYERS,
    N_ACTIONS,
    N_CHITS,
    ORDER_ACTIVE,
    OVER,
    START_BOARD,
    TO_MOVE,
    TURN,
    VOLUNTARY,
    apply_action,
)
from sim.kamakura.planner import turn_candidates
from sim.kamakura.uct import (
    M_NODES,
    M_ROOT_HIST,
    M_VALID,
    P_C,
    P_HORIZON,
    P_ITERS,
    P_PRIOR,
    P_REWARD,
    P_ROLLOUT,
    P_WIDTH,
    PRIOR,
    ROOT,
    backup,
    compact,
    leaf_rewards,
    most_visited,
    reset,
    rollout,
    rollout_stop,
    select,
)

PLAN_WIDTH = 32  # actions stored per edge; a longer plan (a dozen powers at once) is not offered


def turn_tree_capacity(iters: int, width: int, voluntary: int = 0) -> int:
    """Nodes a turn tree needs for `iters` iterations of `width` plans (uct.new_tree's capacity), one more
    a node under the R-8 knob voluntary_pass (`voluntary` 1: the pass after the plans)."""
    return (max(int(width), 1) + int(voluntary)) * (max(int(iters), 1) + 1)


@njit(cache=True)
def at_turn_start(s):
    """Has the player to move done nothing yet this turn (no swap, activation or gain)?"""
    if s[GAINS_DONE] > 0 or s[ORDER_ACTIVE + s[TO_MOVE]] == 1:
        return False
    for cell in range(16):
        if s[BOARD + cell] != s[START_BOARD + cell]:
            return False
    for chit in range(N_CHITS):
        if s[ACTIVE_NOW + chit] == 1:
            return False
    return True


@njit(cache=True)
def _expand(st, rng, node, width, tree, capacity, cand):
    """Give `node` (position st, at a turn start) its plans as children, the best-ranked one flagged in
    the PRIOR column; False when the tree is full or no plan fits an edge."""
    n, lengths = turn_candidates(st, rng, width, cand)
    start = tree.meta[M_NODES]
    if start + n > capacity:
        return False
    kept = 0
    for i in range(n):
        if lengths[i] > PLAN_WIDTH:
            continue
        child = start + kept
        tree.first[child] = -1
        tree.count[child] = 0
        tree.edge[child] = lengths[i]
        tree.visits[child] = 0
        tree.value[child, :] = 0.0
        tree.value[child, PRIOR] = 1.0 if i == 0 else 0.0
        for j in range(lengths[i]):
            tree.plans[child, j] = cand[i, j]
        kept += 1
    if kept == 0:
        return False
    tree.first[node] = start
    tree.count[node] = kept
    tree.meta[M_NODES] = start + kept
    return True


@njit(cache=True)
def _walk(tree, history, n_history):
    """The node reached from the root by the turns played since the root was set (each matched to a
    child's plan), or -1."""
    first = tree.first
    length = tree.edge
    plans = tree.plans
    node = ROOT
    h = tree.meta[M_ROOT_HIST]
    if n_history < h:
        return -1
    while h < n_history:
        end = h
        while end < n_history and history[end] != A_END and history[end] != A_PASS:
            end += 1
        if end == n_history or first[node] < 0:
            return -1  # a turn still under way, or a position the tree never expanded
        found = -1
        for k in range(tree.count[node]):
            child = first[node] + k
            if length[child] != end + 1 - h:
                continue
            same = True
            for j in range(length[child]):
                if plans[child, j] != history[h + j]:
                    same = False
                    break
            if same:
                found = child
                break
        if found < 0:
            return -1
        node = found
        h = end + 1
    return node


@njit(cache=True)
def _play(st, tree, node):
    """Play the plan of the edge into `node`."""
    for j in range(tree.edge[node]):
        apply_action(st, tree.plans[node, j])


@njit(cache=True)
def turn_mcts_plan(s, rng, params, tree, history, n_history, out_plan):
    """The whole turn the turn-level search plays at s (a turn start) with the parameter row `params`
    (uct.P_*), written into out_plan; returns its length. The tree kept in `tree` (a uct.Tree with plans
    of PLAN_WIDTH actions) is reused when it holds s (history[:n_history]: every action of the game so
    far; an invalid tree searches afresh)."""
    iters = int(params[P_ITERS])
    c = params[P_C]
    rollout_kind = int(params[P_ROLLOUT])
    reward = int(params[P_REWARD])
    horizon = int(params[P_HORIZON])
    prior = params[P_PRIOR]
    width = int(params[P_WIDTH])
    first = tree.first
    capacity = min(first.shape[0], (width + s[VOLUNTARY]) * (iters + 1))  # the pass: one child more
    node = _walk(tree, history, n_history) if tree.meta[M_VALID] == 1 else -1
    if node < 0:
        reset(tree)
    else:
        compact(tree, node, True)
        # the statistics were judged at the old root's horizon, one round earlier
        tree.visits[:tree.meta[M_NODES]] = 0
        tree.value[:tree.meta[M_NODES], :MAX_PLAYERS] = 0.0
    tree.meta[M_ROOT_HIST] = n_history
    stop = rollout_stop(s, horizon)
    cand = np.empty((width + 1, MAX_PLAN), dtype=np.int64)
    if first[0] < 0:
        _expand(s, rng, ROOT, width, tree, capacity, cand)
    if first[0] < 0:  # no plan fits an edge (or none fits the tree): greedy's turn
        return greedy_plan(s.copy(), rng, out_plan)
    if tree.count[0] > 1:
        buf = np.empty(N_ACTIONS, dtype=np.int64)
        plan = np.empty(MAX_PLAN, dtype=np.int64)
        st = np.empty_like(s)
        path = np.empty(256, dtype=np.int64)
        for _ in range(iters):
            st[:] = s
            node = ROOT
            depth = 0
            path[0] = 0
            while first[node] >= 0 and st[OVER] == 0 and st[TURN] < stop and depth < 255:
                node = select(tree, node, st[TO_MOVE], c, prior, rng)
                _play(st, tree, node)
                depth += 1
                path[depth] = node
            if (st[OVER] == 0 and st[TURN] < stop and depth < 255
                    and _expand(st, rng, node, width, tree, capacity, cand)):
                node = select(tree, node, st[TO_MOVE], c, prior, rng)
                _play(st, tree, node)
                depth += 1
                path[depth] = node
            rollout(st, rng, rollout_kind, stop, plan, buf)
            backup(tree, path, depth, leaf_rewards(st, reward))
    best = most_visited(tree, s[TO_MOVE])
    for j in range(tree.edge[best]):
        out_plan[j] = tree.plans[best, j]
    return tree.edge[best]
