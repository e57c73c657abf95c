"""Kamakura Monte Carlo tree search (UCT) over micro-actions, compiled: `mcts` with `tree=actions`.

(The agent's default, `tree=turns`, searches whole turns instead: turn_mcts.py. Both trees take their
node storage, selection, rollouts, rewards and backup from uct.py; search.py is the Python face.) The
tree spans the readable API's micro-actions (swap, use, gain, end, pass), so one turn is several levels deep.
Each node holds its visit count and a reward sum per player; selection at a node maximises UCT from the
point of view of the player to move there (max^n for 2-4 players). A node's children are created all at
once, in one contiguous block, when an iteration first reaches it; the actions offered are those the
`random` agent allows (no swap that makes the turn void, which prunes moves that can only throw a turn
away); under the R-8 knob voluntary_pass that includes the pass before the turn's first gain, which the
search then weighs like any move, where it could still win (planner.pass_can_win: not from behind).

Kamakura is deterministic with open information after the seeded deal, so a position is the path of
actions from the root. The tree lives in preallocated numpy arrays (a uct.Tree; one per seat in the batch
loop), the edge of a node being its action code. Before each decision the tree is walked along the
actions played since its root, and the subtree under the current position is compacted to the front of
the arrays and kept (reuse); a position outside the tree starts a fresh one.

Parameters: the seat's float row (uct.P_*; see uct.py for their meaning).
"""

import numpy as np
from numba import njit

from sim.core.rng import rng_below
from sim.kamakura.agents import AGENT_GREEDY, MAX_PLAN, agent_plan, swap_keeps_gain
from sim.kamakura.kernels import (
    A_PASS,
    A_USE,
    GAINS_DONE,
    N_ACTIONS,
    OVER,
    TO_MOVE,
    TURN,
    apply_action,
    legal_actions,
)
from sim.kamakura.planner import pass_can_win
from sim.kamakura.uct import (
    M_NODES,
    M_ROOT_HIST,
    M_TURN,
    M_VALID,
    P_C,
    P_HORIZON,
    P_ITERS,
    P_PRIOR,
    P_REWARD,
    P_ROLLOUT,
    PRIOR,
    ROOT,
    backup,
    compact,
    gain_or_end,
    leaf_rewards,
    most_visited,
    reset,
    rollout,
    rollout_stop,
    select,
)

NODES_PER_ITER = 48  # children made per expansion, on average well below this; 107 at most


def tree_capacity(iters: int) -> int:
    """Nodes a micro-action tree needs for `iters` iterations per decision (uct.new_tree's capacity)."""
    return NODES_PER_ITER * max(int(iters), 1) + 4 * N_ACTIONS


@njit(cache=True)
def _guide(s, rng, plan, buf):
    """The action the greedy agent would play at s (mid-turn after a gain: the best further gain, or end)."""
    if s[GAINS_DONE] > 0:
        return gain_or_end(s, buf)
    agent_plan(AGENT_GREEDY, s.copy(), rng, plan, buf)
    return plan[0]


@njit(cache=True)
def _expand(s, node, tree, buf, capacity, guide):
    """Create the children of `node` at position s, flagging the one playing `guide` (-1: none) in the
    PRIOR column; returns False when the tree is full."""
    n = legal_actions(s, buf)
    kept = 0
    for i in range(n):
        a = buf[i]
        if a < A_USE and not swap_keeps_gain(s, a):
            continue
        if a == A_PASS and n > 1 and not pass_can_win(s):
            continue  # a voluntary pass (R-8 knob) from behind cannot win
        buf[kept] = a
        kept += 1
    if kept == 0:  # every swap makes the turn void: offer them all (the random agent never gets here)
        kept = n
    start = tree.meta[M_NODES]
    if start + kept > capacity:
        return False
    for i in range(kept):
        child = start + i
        tree.first[child] = -1
        tree.count[child] = 0
        tree.edge[child] = buf[i]
        tree.visits[child] = 0
        tree.value[child, :] = 0.0
        if buf[i] == guide:
            tree.value[child, PRIOR] = 1.0
    tree.first[node] = start
    tree.count[node] = kept
    tree.meta[M_NODES] = start + kept
    return True


@njit(cache=True)
def _walk(tree, history, n_history):
    """The node reached from the root by the actions played since the root was set, or -1."""
    first = tree.first
    node = ROOT
    for h in range(tree.meta[M_ROOT_HIST], n_history):
        if first[node] < 0:
            return -1
        found = -1
        for k in range(tree.count[node]):
            if tree.edge[first[node] + k] == history[h]:
                found = first[node] + k
                break
        if found < 0:
            return -1
        node = found
    return node


@njit(cache=True)
def mcts_action(s, rng, params, tree, history, n_history):
    """The action UCT picks at position s with the parameter row `params` (uct.P_*), reusing the tree kept
    in `tree` (a uct.Tree) when it holds s (history[:n_history] is every action of the game so far; pass
    n_history 0 and an invalid tree to search afresh)."""
    iters = int(params[P_ITERS])
    c = params[P_C]
    rollout_kind = int(params[P_ROLLOUT])
    reward = int(params[P_REWARD])
    horizon = int(params[P_HORIZON])
    prior = params[P_PRIOR]
    first = tree.first
    # Its own budget's capacity, not the arrays' (sized for the largest budget at the table): a full tree
    # stops expanding, so the size must not depend on who else plays in the batch.
    capacity = min(first.shape[0], NODES_PER_ITER * iters + 4 * N_ACTIONS)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    n_legal = legal_actions(s, buf)
    if n_legal == 1:
        return buf[0]
    # A tree is kept within the searching player's turn: its rollouts were cut off at that turn's horizon.
    valid = tree.meta[M_VALID] == 1 and tree.meta[M_TURN] == s[TURN]
    node = _walk(tree, history, n_history) if valid else -1
    if node < 0:
        reset(tree)
    else:
        compact(tree, node, False)
    tree.meta[M_ROOT_HIST] = n_history
    tree.meta[M_TURN] = s[TURN]
    stop = rollout_stop(s, horizon)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    if first[0] < 0:
        _expand(s, ROOT, tree, buf, capacity, _guide(s, rng, plan, buf) if prior > 0.0 else -1)
    if tree.count[0] == 1:
        return tree.edge[first[0]]
    st = np.empty_like(s)
    path = np.empty(4096, dtype=np.int64)
    for _ in range(iters):
        st[:] = s
        node = ROOT
        depth = 0
        path[0] = 0
        while first[node] >= 0 and st[OVER] == 0:
            node = select(tree, node, st[TO_MOVE], c, prior, rng)
            apply_action(st, tree.edge[node])
            depth += 1
            path[depth] = node
        if st[OVER] == 0 and _expand(st, node, tree, buf, capacity,
                                     _guide(st, rng, plan, buf) if prior > 0.0 else -1):
            node = first[node] + rng_below(rng, tree.count[node])
            apply_action(st, tree.edge[node])
            depth += 1
            path[depth] = node
        rollout(st, rng, rollout_kind, stop, plan, buf)
        backup(tree, path, depth, leaf_rewards(st, reward))
    return tree.edge[most_visited(tree, s[TO_MOVE])]
