"""Kamakura MCTS over whole turns (`tree=turns`, the `mcts` agent's default), compiled.

The micro-action tree of mcts.py spends most of its iterations rediscovering, swap by swap, the turn the
greedy planner finds by exhaustive search; what greedy cannot see is what its turn leaves to the others
and to its own next turn. Here an edge of the tree is a whole turn, a sequence of API.md micro-actions: a
node's children are the `width` best distinct plans of planner.py (the greedy planner's search, keeping
the best few), best first. Selection, statistics and backup are those of mcts.py: UCT with a reward sum
per player, each node choosing for the player to move there (max^n), a progressive bias `prior` towards
the best-ranked plan (the one greedy would play), the same rollouts, horizon and rewards. An iteration
descends by UCT, expands the leaf it reaches with its plans, plays one of them, rolls out to the horizon
(rounds after the searcher's turn; 0: to the end of the game) and backs up the rewards. Tree nodes at or
past the horizon are not expanded: the scores there are the result.

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
    PLAYERS,
    START_BOARD,
    TO_MOVE,
    TURN,
    apply_action,
)
from sim.kamakura.mcts import (
    M_NODES,
    M_ROOT_HIST,
    M_VALID,
    PRIOR,
    _compact,
    _finish_iteration,
    _most_visited,
    _reset,
    _select,
)
from sim.kamakura.planner import turn_candidates

PLAN_WIDTH = 32  # actions stored per edge; a longer plan (a dozen powers at once) is not offered


def turn_tree_capacity(iters: int, width: int) -> int:
    return max(int(width), 1) * (max(int(iters), 1) + 1)


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
def _expand(st, rng, node, width, first, count, length, visits, value, plans, meta, capacity, cand):
    """Give `node` (position st, at a turn start) its plans as children, the best-ranked one flagged in
    the PRIOR column; False when the tree is full or no plan fits an edge."""
    n, lengths = turn_candidates(st, rng, width, cand)
    start = meta[M_NODES]
    if start + n > capacity:
        return False
    kept = 0
    for i in range(n):
        if lengths[i] > PLAN_WIDTH:
            continue
        child = start + kept
        first[child] = -1
        count[child] = 0
        length[child] = lengths[i]
        visits[child] = 0
        value[child, :] = 0.0
        value[child, PRIOR] = 1.0 if i == 0 else 0.0
        for j in range(lengths[i]):
            plans[child, j] = cand[i, j]
        kept += 1
    if kept == 0:
        return False
    first[node] = start
    count[node] = kept
    meta[M_NODES] = start + kept
    return True


@njit(cache=True)
def _walk(history, n_history, first, count, length, plans, meta):
    """The node reached from the root by the turns played since the root was set (each matched to a
    child's plan), or -1."""
    node = 0
    h = meta[M_ROOT_HIST]
    if n_history < h:
        return -1
    while h < n_history:
        end = h
        while end < n_history and history[end] != A_END and history[end] != A_PASS:
            end += 1
        if end == n_history or first[node] < 0:
            return -1  # a turn still under way, or a position the tree never expanded
        found = -1
        for k in range(count[node]):
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
def _play(st, node, length, plans):
    for j in range(length[node]):
        apply_action(st, plans[node, j])


@njit(cache=True)
def turn_mcts_plan(s, rng, iters, c, rollout, reward, horizon, prior, width, first, count, length, visits,
                   value, meta, plans, queue, history, n_history, out_plan):
    """The whole turn the turn-level search plays at s (a turn start), written into out_plan; returns its
    length. The tree kept in the arrays is reused when it holds s (history[:n_history]: every action of
    the game so far; an invalid tree searches afresh). `length` holds each node's plan length."""
    capacity = min(first.shape[0], width * (iters + 1))
    node = _walk(history, n_history, first, count, length, plans, meta) if meta[M_VALID] == 1 else -1
    if node < 0:
        _reset(first, count, visits, value, meta)
    else:
        _compact(node, first, count, length, visits, value, meta, queue, plans)
        visits[:meta[M_NODES]] = 0
        value[:meta[M_NODES], :MAX_PLAYERS] = 0.0
    meta[M_ROOT_HIST] = n_history
    stop = s[TURN] + 1 + horizon * s[PLAYERS] if horizon > 0 else 1 << 40
    cand = np.empty((width, MAX_PLAN), dtype=np.int64)
    if first[0] < 0:
        _expand(s, rng, 0, width, first, count, length, visits, value, plans, meta, capacity, cand)
    if first[0] < 0:  # no plan fits an edge (or none fits the tree): greedy's turn
        return greedy_plan(s.copy(), rng, out_plan)
    if count[0] > 1:
        buf = np.empty(N_ACTIONS, dtype=np.int64)
        plan = np.empty(MAX_PLAN, dtype=np.int64)
        st = np.empty_like(s)
        path = np.empty(256, dtype=np.int64)
        for _ in range(iters):
            st[:] = s
            node = 0
            depth = 0
            path[0] = 0
            while first[node] >= 0 and st[OVER] == 0 and st[TURN] < stop and depth < 255:
                node = _select(node, st[TO_MOVE], c, prior, first, count, visits, value, rng)
                _play(st, node, length, plans)
                depth += 1
                path[depth] = node
            if (st[OVER] == 0 and st[TURN] < stop and depth < 255
                    and _expand(st, rng, node, width, first, count, length, visits, value, plans, meta,
                                capacity, cand)):
                node = _select(node, st[TO_MOVE], c, prior, first, count, visits, value, rng)
                _play(st, node, length, plans)
                depth += 1
                path[depth] = node
            _finish_iteration(st, rng, rollout, stop, reward, path, depth, visits, value, plan, buf)
    best = _most_visited(first, count, visits, value, s[TO_MOVE])
    for j in range(length[best]):
        out_plan[j] = plans[best, j]
    return length[best]
