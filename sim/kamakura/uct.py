"""What both Kamakura MCTS trees share (compiled): node storage, UCT selection, rollouts, rewards, backup and
the compaction that keeps a subtree between decisions.

Two trees use it: mcts.py, whose edges are single micro-actions (`tree=actions`), and turn_mcts.py, whose
edges are whole turns (`tree=turns`, the `mcts` agent's default); search.py is the Python face over both.
The `search` agent's PUCT (puct.py) keeps its tree in a `Tree` too, with `backup` and `most_visited`.
A tree lives in preallocated numpy arrays, one `Tree`; a node holds its visit count and a reward sum per
player, and its children are one contiguous block. Selection at a node maximises UCT from the point of view
of the player to move there (max^n for 2-4 players), plus a progressive bias towards the child the greedy
planner would play.

Parameters (one float64 row per searching seat, indices P_*, in the order of the `mcts` agent's
parameters in the game registry): iters (iterations per decision), c (exploration constant), rollout
(random | greedy: the compiled agents play on; uniform: any legal action, even one that voids the turn,
as OpenSpiel's random rollouts do; quick: see quick_plan), reward (win: 1 to the leader under R-9, split
on a shared win; score: the lead over the best other player, SCORE_SCALE points spanning [0, 1]), horizon
(rounds a rollout plays after the searcher's turn: it stops when the searcher's turn `horizon` rounds on
is over, and the scores then stand for the result; 0: to the end), prior (weight of the progressive bias),
tree (TREE_TURNS or TREE_ACTIONS), width (the turn tree's plans per node).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.mcts_rewards import lead_rewards, win_rewards
from sim.core.rng import rng_below
from sim.kamakura.agent_kinds import AGENTS, REWARDS, ROLLOUTS, TREES
from sim.kamakura.agents import AGENT_GREEDY, AGENT_RANDOM, agent_plan
from sim.kamakura.board import CELL_LINE_MASK, LINE_MASK, SWAPS, popcount
from sim.kamakura.kernels import (
    A_END,
    A_GAIN,
    A_PASS,
    A_SWAP,
    BOARD,
    GAINS_DONE,
    ICONS,
    MASKS,
    MAX_PLAYERS,
    N_CHITS,
    OVER,
    OWNER,
    PLAYERS,
    POINTS,
    SWAPS_LEFT,
    TURN,
    apply_action,
    gain_reachable,
    legal_actions,
    scores,
    winners,
)

# ---- parameters ----------------------------------------------------------------------------------------
# A parameter row per seat (float64), in the order of the `mcts` agent's parameters in the registry entry
# (spec.py, declared there once); choices by index.
_ORDER = list(AGENTS["mcts"].params)
P_ITERS, P_C, P_ROLLOUT, P_REWARD, P_HORIZON, P_PRIOR, P_TREE, P_WIDTH = (
    _ORDER.index(key) for key in ("iters", "c", "rollout", "reward", "horizon", "prior", "tree", "width"))
N_PARAMS = len(_ORDER)
# Choice codes: the index of each name in the registry entry's tuples (spec.py), as plain ints for numba.
ROLLOUT_RANDOM, ROLLOUT_GREEDY, ROLLOUT_UNIFORM, ROLLOUT_QUICK = (ROLLOUTS.index(name) for name in
                                                                  ("random", "greedy", "uniform", "quick"))
REWARD_WIN, REWARD_SCORE = REWARDS.index("win"), REWARDS.index("score")
# edges: whole turns (turn_mcts.py) or micro-actions (mcts.py)
TREE_TURNS, TREE_ACTIONS = TREES.index("turns"), TREES.index("actions")
SCORE_SCALE = 20.0

# ---- node storage --------------------------------------------------------------------------------------
PRIOR = MAX_PLAYERS  # value column flagging the child the greedy planner would play (progressive bias)
VALUE_COLUMNS = MAX_PLAYERS + 1
M_NODES, M_ROOT_HIST, M_VALID, M_TURN = 0, 1, 2, 3  # meta fields: nodes in use, history length at the
#                                                      root, 1 if the tree may be reused, root turn (mcts.py)
N_META = 4
# The root node, and the empty history a game starts from, as int64 rather than the literal 0: a literal
# argument makes numba compile a callee once more for it (a loop variable set to 0 and later to a call's
# result is typed literal first, then int64), and every kernel below the call once more with it.
ROOT = np.int64(0)

# The arrays of one tree. Node 0 is the root; a node's children are first[node] .. + count[node] - 1
# (first -1: not expanded). edge: what leads into the node, its action code (mcts.py) or the length of its
# plan (turn_mcts.py), whose actions are plans[node, :edge[node]] (the micro-action tree stores no plans:
# one unused row). value[node, p]: reward sum of player p, and the PRIOR flag. queue: scratch for
# `compact`, as long as the tree (a batch shares one between its seats' trees).
Tree = namedtuple("Tree", ["first", "count", "edge", "visits", "value", "meta", "plans", "queue"])


def new_tree(capacity: int, plan_width: int = 0) -> Tree:
    """An empty tree with room for `capacity` nodes, marked invalid (its first search starts afresh).
    plan_width: actions stored per node (turn_mcts.PLAN_WIDTH for the turn tree; 0 for the micro-action
    tree, whose plans array is then one unused row)."""
    return Tree(first=np.full(capacity, -1, dtype=np.int64),
                count=np.zeros(capacity, dtype=np.int64),
                edge=np.zeros(capacity, dtype=np.int64),
                visits=np.zeros(capacity, dtype=np.int64),
                value=np.zeros((capacity, VALUE_COLUMNS), dtype=np.float64),
                meta=np.zeros(N_META, dtype=np.int64),
                plans=np.zeros((capacity, plan_width) if plan_width > 0 else (1, 1), dtype=np.int16),
                queue=np.empty(capacity, dtype=np.int64))


@njit(cache=True)
def reset(tree):
    """Make the tree a lone unexpanded root, valid for reuse."""
    tree.first[0] = -1
    tree.count[0] = 0
    tree.visits[0] = 0
    tree.value[0, :] = 0.0
    tree.meta[M_NODES] = 1
    tree.meta[M_VALID] = 1


@njit(cache=True)
def compact(tree, node, with_plans):
    """Move the subtree under `node` to the front of the arrays (breadth first, so every child block
    stays contiguous) and make it the root; with_plans: move each node's plan too (the turn tree)."""
    if node == 0:
        return
    first = tree.first
    count = tree.count
    edge = tree.edge
    visits = tree.visits
    value = tree.value
    queue_old = tree.queue
    # Breadth first, so each node's children are the next block in queue order.
    queue_old[0] = node
    head = 0
    tail = 1
    while head < tail:
        old = queue_old[head]
        head += 1
        if first[old] >= 0:
            for k in range(count[old]):
                queue_old[tail] = first[old] + k
                tail += 1
    # Read every kept node before writing any: a kept node's new slot may still hold another kept node.
    kept_edge = edge[queue_old[:tail]]
    kept_visits = visits[queue_old[:tail]]
    kept_value = value[queue_old[:tail]]
    kept_count = count[queue_old[:tail]]
    kept_first = first[queue_old[:tail]]
    if with_plans:
        kept_plans = tree.plans[queue_old[:tail]]
        tree.plans[:tail] = kept_plans
    next_block = 1
    for i in range(tail):
        edge[i] = kept_edge[i]
        visits[i] = kept_visits[i]
        value[i, :] = kept_value[i]
        count[i] = kept_count[i]
        if kept_first[i] >= 0:
            first[i] = next_block
            next_block += kept_count[i]
        else:
            first[i] = -1
    tree.meta[M_NODES] = tail


# ---- selection -----------------------------------------------------------------------------------------
@njit(cache=True)
def select(tree, node, mover, c, prior, rng):
    """UCT child of an expanded node for the player to move, plus a progressive bias prior / (n + 1)
    towards the greedy agent's choice; unvisited children first (the greedy choice, then at random)."""
    visits = tree.visits
    value = tree.value
    f = tree.first[node]
    n = tree.count[node]
    for k in range(n):
        if visits[f + k] == 0 and value[f + k, PRIOR] > 0.0 and prior > 0.0:
            return f + k
    unvisited = 0
    for k in range(n):
        if visits[f + k] == 0:
            unvisited += 1
    if unvisited > 0:
        pick = rng_below(rng, unvisited)
        for k in range(n):
            if visits[f + k] == 0:
                if pick == 0:
                    return f + k
                pick -= 1
    log_n = np.log(float(visits[node]))
    best = f
    best_score = -1e300
    for k in range(n):
        child = f + k
        v = float(visits[child])
        score = value[child, mover] / v + c * np.sqrt(log_n / v) + prior * value[child, PRIOR] / (v + 1.0)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True)
def most_visited(tree, mover):
    """The root child to play: most visits, then the higher reward sum for the mover."""
    first = tree.first
    visits = tree.visits
    value = tree.value
    best = first[0]
    for k in range(1, tree.count[0]):
        child = first[0] + k
        if visits[child] > visits[best] or (visits[child] == visits[best]
                                            and value[child, mover] > value[best, mover]):
            best = child
    return best


# ---- rollouts ------------------------------------------------------------------------------------------
@njit(cache=True)
def gain_or_end(st, buf):
    """After a gain: the most valuable further gain open now, else `end`."""
    n = legal_actions(st, buf)
    best = A_END
    best_points = -1
    for i in range(n):
        a = buf[i]
        if A_GAIN <= a < A_GAIN + N_CHITS and st[POINTS + a - A_GAIN] > best_points:
            best = a
            best_points = st[POINTS + a - A_GAIN]
    return best


@njit(cache=True)
def _consider(points, swap, chit, best, rng):
    """Keep (points, swap, chit) in best = [points, swap, chit, ties] if better; equal ones by a draw."""
    if points < best[0]:
        return
    if points > best[0]:
        best[3] = 0
    best[3] += 1
    if best[3] == 1 or rng_below(rng, best[3]) == 0:
        best[0] = points
        best[1] = swap
        best[2] = chit


@njit(cache=True)
def quick_plan(st, rng, plan, buf):
    """The `quick` rollout policy, a cheap stand-in for greedy: claim the most valuable single chit that
    is eligible as the board stands or after one swap, without powers; a turn that needs powers to gain
    anything is planned by the greedy agent. Returns the plan's length."""
    if st[GAINS_DONE] > 0:
        plan[0] = gain_or_end(st, buf)
        return 1
    if not gain_reachable(st):
        plan[0] = A_PASS
        return 1
    best = np.zeros(4, dtype=np.int64)  # points, swap (-1 none), chit, ties
    best[2] = -1
    for chit in range(N_CHITS):
        if st[OWNER + chit] == -1:
            colour = chit // 10
            if popcount(st[MASKS + colour] & LINE_MASK[chit - 10 * colour]) == st[ICONS + chit]:
                _consider(st[POINTS + chit], -1, chit, best, rng)
    if st[SWAPS_LEFT] >= 1:
        for k in range(SWAPS.shape[0]):
            a = SWAPS[k, 0]
            b = SWAPS[k, 1]
            ca = st[BOARD + a]
            cb = st[BOARD + b]
            if ca == cb:
                continue
            flip = (1 << a) | (1 << b)  # only these two colours' lines through a or b change
            lines = CELL_LINE_MASK[a] | CELL_LINE_MASK[b]
            for line in range(10):
                if not (lines >> line) & 1:
                    continue
                for colour in (ca, cb):
                    chit = 10 * colour + line
                    if st[OWNER + chit] != -1:
                        continue
                    if popcount((st[MASKS + colour] ^ flip) & LINE_MASK[line]) == st[ICONS + chit]:
                        _consider(st[POINTS + chit], k, chit, best, rng)
    if best[2] < 0:
        return agent_plan(AGENT_GREEDY, st, rng, plan, buf)
    n = 0
    if best[1] >= 0:
        plan[0] = A_SWAP + best[1]
        n = 1
    plan[n] = A_GAIN + best[2]
    plan[n + 1] = A_END
    return n + 2


@njit(cache=True)
def rollout(st, rng, kind, stop, plan, buf):
    """Play on with rollout policy `kind` (ROLLOUT_*) until the game ends or `stop` turns are finished."""
    while st[OVER] == 0 and st[TURN] < stop:
        if kind == ROLLOUT_GREEDY:
            # The greedy planner plans whole turns from before the first gain; after one, finish simply.
            if st[GAINS_DONE] > 0:
                apply_action(st, gain_or_end(st, buf))
                continue
            n = agent_plan(AGENT_GREEDY, st, rng, plan, buf)
        elif kind == ROLLOUT_QUICK:
            n = quick_plan(st, rng, plan, buf)
        elif kind == ROLLOUT_UNIFORM:  # uniform over every legal action, as OpenSpiel's rollouts
            n = legal_actions(st, buf)
            apply_action(st, buf[rng_below(rng, n)])
            continue
        else:
            n = agent_plan(AGENT_RANDOM, st, rng, plan, buf)
        for i in range(n):
            apply_action(st, plan[i])


@njit(cache=True)
def rollout_stop(s, horizon):
    """The turn count at which rollouts from s stop: the end of the searcher's turn `horizon` rounds on, so
    every leaf is judged right after the searcher moved (horizon 0: never, play to the end of the game)."""
    return s[TURN] + 1 + horizon * s[PLAYERS] if horizon > 0 else 1 << 40


# ---- rewards and backup --------------------------------------------------------------------------------
@njit(cache=True)
def terminal_rewards(st, reward, score, win, out):
    """Rewards in [0, 1] per seat at a finished game (or where a rollout stopped: the scores stand)."""
    players = st[PLAYERS]
    scores(st, score)
    winners(st, score, win)
    for p in range(MAX_PLAYERS):
        out[p] = 0.0
    if reward == REWARD_SCORE:
        lead_rewards(score, players, SCORE_SCALE, out)
    else:
        win_rewards(win, players, out)


@njit(cache=True)
def leaf_rewards(st, reward):
    """terminal_rewards at st, as a new array (REWARD_* `reward`)."""
    rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
    terminal_rewards(st, reward, np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.int64),
                     rewards)
    return rewards


@njit(cache=True)
def backup(tree, path, depth, rewards):
    """Add a visit and the rewards to every node on path[:depth + 1]."""
    for d in range(depth + 1):
        tree.visits[path[d]] += 1
        for p in range(MAX_PLAYERS):
            tree.value[path[d], p] += rewards[p]
