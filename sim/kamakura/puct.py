"""The Kamakura `search` agent (compiled): PUCT over whole turns, the expert's evaluation at the leaves.

A node is a turn start; its children are the planner's `width` best distinct turns there
(planner.turn_candidates, as the expert and the turn-level MCTS take them; under the R-8 knob
voluntary_pass the pass is one of them), each played on a copy of the
position when the node is expanded and valued at once by the expert's evaluation (expert.py): each seat's
chance of winning, a softmax of the predicted final scores over `spread` points (at a finished game the
result, a shared win split). That value counts as the child's first visit, and its prior is a softmax of
the mover's predicted lead over `temp` points (the expert's quick ranking). An iteration descends by PUCT
(value + c * prior * sqrt(parent visits) / (1 + visits), for the seat to move: max^n), expands the first
unexpanded node it reaches and backs up the value of its best child for the seat to move there (the
evaluation one turn deeper); there is no rollout. `iters` expansions a turn; it plays the most visited
root child (ties: the higher value). Each decision searches afresh, so the readable API's policy plays
the batch's games. Node storage, backup and the choice are uct.py's, a turn's plan as turn_mcts.py keeps it.
"""

import numpy as np
from numba import njit

from sim.core.mcts_rewards import win_rewards
from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.expert import N_FEATURES, new_eval_space, predicted_finals_in
from sim.kamakura.kernels import (
    MAX_PLAYERS,
    OVER,
    PLAYERS,
    TO_MOVE,
    VOLUNTARY,
    apply_action,
    gain_reachable,
    scores,
    winners,
)
from sim.kamakura.planner import greedy_plan, turn_candidates
from sim.kamakura.turn_mcts import PLAN_WIDTH
from sim.kamakura.uct import M_NODES, N_META, PRIOR, ROOT, VALUE_COLUMNS, Tree, backup, most_visited, reset

# The parameter row of a search seat: its numeric parameters in the registry's order, then the model's
# weights (sim/core/agent_spec.py agent_row appends them).
_NUMERIC = [key for key, (kind, _default) in AGENTS["search"].params.items() if kind is not str]
S_ITERS, S_C, S_WIDTH, S_TEMP, S_SPREAD = (_NUMERIC.index(key) for key in ("iters", "c", "width", "temp",
                                                                         "spread"))
S_WEIGHTS = len(_NUMERIC)
MAX_DEPTH = 255


@njit(cache=True)
def new_search_tree(iters, width):
    """A tree (uct.Tree) with room for a search of `iters` expansions of `width` turns."""
    capacity = max(width, 1) * (max(iters, 1) + 1)
    return Tree(np.full(capacity, -1, dtype=np.int64), np.zeros(capacity, dtype=np.int64),
                np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int64),
                np.zeros((capacity, VALUE_COLUMNS), dtype=np.float64), np.zeros(N_META, dtype=np.int64),
                np.zeros((capacity, PLAN_WIDTH), dtype=np.int16), np.empty(1, dtype=np.int64))


@njit(cache=True)
def position_values(st, me, weights, spread, space, out):
    """Each seat's value of position st into out[:MAX_PLAYERS] (summing to 1): the result of a finished
    game, else a softmax of the predicted finals over `spread` points. Returns `me`'s predicted lead over
    the best other seat. space: (floats, ints) of expert.new_eval_space, then two int64[MAX_PLAYERS]."""
    floats, ints, score, win = space
    players = st[PLAYERS]
    finals = floats[:MAX_PLAYERS]
    finals[:] = 0.0
    predicted_finals_in(st, weights, finals, ints, floats[MAX_PLAYERS:])
    top = -1e18
    best_other = -1e18
    for p in range(players):
        top = max(top, finals[p])
        if p != me:
            best_other = max(best_other, finals[p])
    out[:] = 0.0
    if st[OVER] == 1:
        scores(st, score)
        winners(st, score, win)
        win_rewards(win, players, out)
    else:
        total = 0.0
        for p in range(players):
            out[p] = np.exp((finals[p] - top) / spread)
            total += out[p]
        for p in range(players):
            out[p] /= total
    return finals[me] - best_other


@njit(cache=True)
def _expand(st, rng, node, tree, params, work):
    """Give `node` (position st, a turn start) its turns as children, each valued (its first visit) and
    given its prior; False when the tree is full or no turn fits an edge. The best child's value for the
    seat to move goes into work's `best`."""
    cand, child_st, space, best_value = work
    width = int(params[S_WIDTH])
    weights = params[S_WEIGHTS:S_WEIGHTS + N_FEATURES]
    me = st[TO_MOVE]
    n, lengths = turn_candidates(st, rng, width, cand)
    start = tree.meta[M_NODES]
    if start + n > tree.first.shape[0]:
        return False
    kept = 0
    best = -1
    for i in range(n):
        if lengths[i] > PLAN_WIDTH:
            continue
        child = start + kept
        tree.first[child] = -1
        tree.count[child] = 0
        tree.edge[child] = lengths[i]
        tree.visits[child] = 1
        child_st[:] = st
        for j in range(lengths[i]):
            tree.plans[child, j] = cand[i, j]
            apply_action(child_st, cand[i, j])
        tree.value[child, PRIOR] = position_values(child_st, me, weights, params[S_SPREAD], space,
                                                   tree.value[child, :MAX_PLAYERS]) / params[S_TEMP]
        if best < 0 or tree.value[child, me] > tree.value[best, me]:
            best = child
        kept += 1
    if kept == 0:
        return False
    # the priors: a softmax of the mover's leads / temp
    top = tree.value[start:start + kept, PRIOR].max()
    total = 0.0
    for child in range(start, start + kept):
        tree.value[child, PRIOR] = np.exp(tree.value[child, PRIOR] - top)
        total += tree.value[child, PRIOR]
    for child in range(start, start + kept):
        tree.value[child, PRIOR] /= total
    tree.first[node] = start
    tree.count[node] = kept
    tree.meta[M_NODES] = start + kept
    best_value[:] = tree.value[best, :MAX_PLAYERS]
    return True


@njit(cache=True)
def _select(tree, node, mover, c):
    """The PUCT child of an expanded node for the seat to move (ties: the planner's order)."""
    f = tree.first[node]
    root_n = np.sqrt(float(tree.visits[node]))
    best = f
    best_score = -1e300
    for child in range(f, f + tree.count[node]):
        v = float(tree.visits[child])
        score = tree.value[child, mover] / v + c * tree.value[child, PRIOR] * root_n / (1.0 + v)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True)
def search_plan(s, rng, params, plan):
    """The search's whole turn at s (a turn start) into `plan`; returns its length. `params` is the seat's
    parameter row (S_*, then the model's weights from S_WEIGHTS)."""
    if not gain_reachable(s):
        return greedy_plan(s, rng, plan)  # the forced pass, as the expert plays it
    iters = int(params[S_ITERS])
    c = params[S_C]
    tree = new_search_tree(iters, int(params[S_WIDTH]) + s[VOLUNTARY])  # the pass: one child more
    reset(tree)
    floats, ints = new_eval_space()
    value = np.zeros(MAX_PLAYERS, dtype=np.float64)
    space = (floats, ints, np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.int64))
    cand = np.empty((max(int(params[S_WIDTH]), 1) + 1, MAX_PLAN), dtype=np.int64)
    work = (cand, np.empty_like(s), space, value)
    if not _expand(s, rng, ROOT, tree, params, work):
        return greedy_plan(s, rng, plan)  # no turn fits an edge
    st = np.empty_like(s)
    path = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    if tree.count[0] > 1:
        for _ in range(iters - 1):  # the root's expansion was the first
            st[:] = s
            node = ROOT
            depth = 0
            path[0] = 0
            while tree.first[node] >= 0 and depth < MAX_DEPTH:
                node = _select(tree, node, st[TO_MOVE], c)
                for j in range(tree.edge[node]):
                    apply_action(st, tree.plans[node, j])
                depth += 1
                path[depth] = node
            if st[OVER] == 1 or depth == MAX_DEPTH or not _expand(st, rng, node, tree, params, work):
                value[:] = tree.value[node, :MAX_PLAYERS] / tree.visits[node]  # a finished game: its result
            backup(tree, path, depth, value)
    best = most_visited(tree, s[TO_MOVE])
    for j in range(tree.edge[best]):
        plan[j] = tree.plans[best, j]
    return tree.edge[best]
