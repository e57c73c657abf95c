"""Kamakura Monte Carlo tree search (UCT) over micro-actions, compiled: `mcts` with `tree=actions`.

(The agent's default, `tree=turns`, searches whole turns instead: turn_mcts.py, which shares this module's
selection, rollouts and rewards.) The tree spans the micro-actions of API.md (swap, use, gain, end, pass),
so one turn is several levels deep. Each node holds its visit count and a reward sum per player; selection
at a node maximises UCT from the point of view of the player to move there (max^n for 2-4 players). A
node's children are created all at once, in one contiguous block, when an iteration first reaches it; the
actions offered are those the `random` agent allows (no swap that makes the turn void, no voluntary pass
while a gain is reachable), which prunes moves that can only throw a turn away.

Kamakura is deterministic with open information after the seeded deal, so a position is the path of
actions from the root. The tree lives in preallocated numpy arrays (one `Tree` per seat in the batch
loop). Before each decision the tree is walked along the actions played since its root, and the subtree
under the current position is compacted to the front of the arrays and kept (reuse); a position outside
the tree starts a fresh one.

Parameters: iters (iterations per decision), c (exploration constant), rollout (random | greedy: the
compiled agents play on; uniform: any legal action, even one that voids the turn, as OpenSpiel's
random rollouts do), horizon (rounds a rollout plays after the searcher's turn: it stops when the
searcher's turn `horizon` rounds on is over, and the scores then stand for the result; 0: to the end),
prior (weight of a progressive bias towards the move the greedy agent would make), reward (win: 1 to
the leader under R-9, split on a shared win; score: the lead over the best other player, SCORE_SCALE
points spanning [0, 1]).
"""

import numpy as np
from numba import njit

from sim.kamakura.agents import AGENT_GREEDY, AGENT_RANDOM, MAX_PLAN, agent_plan, swap_keeps_gain
from sim.kamakura.board import CELL_LINE_MASK, LINE_MASK, SWAPS, popcount
from sim.kamakura.kernels import (
    A_END,
    A_GAIN,
    A_PASS,
    A_SWAP,
    A_USE,
    BOARD,
    GAINS_DONE,
    ICONS,
    MASKS,
    MAX_PLAYERS,
    N_ACTIONS,
    N_CHITS,
    OVER,
    OWNER,
    PLAYERS,
    POINTS,
    SWAPS_LEFT,
    TO_MOVE,
    TURN,
    apply_action,
    gain_reachable,
    legal_actions,
    scores,
    winners,
)
from sim.mcts_rewards import lead_rewards, win_rewards
from sim.rng import rng_below

ROLLOUT_RANDOM, ROLLOUT_GREEDY, ROLLOUT_UNIFORM, ROLLOUT_QUICK = 0, 1, 2, 3
REWARD_WIN, REWARD_SCORE = 0, 1
# A parameter row per seat (float64), in sim/agent_spec.py MCTS_PARAMS order.
P_ITERS, P_C, P_ROLLOUT, P_REWARD, P_HORIZON, P_PRIOR, P_TREE, P_WIDTH = 0, 1, 2, 3, 4, 5, 6, 7
N_PARAMS = 8
TREE_TURNS, TREE_ACTIONS = 0, 1  # edges: whole turns (turn_mcts.py) or micro-actions (this module)
NODES_PER_ITER = 48  # children made per expansion, on average well below this; 107 at most
SCORE_SCALE = 20.0
PRIOR = MAX_PLAYERS  # value column flagging the child the greedy planner would play (progressive bias)
VALUE_COLUMNS = MAX_PLAYERS + 1
# META fields of a tree
M_NODES, M_ROOT_HIST, M_VALID, M_TURN = 0, 1, 2, 3


def tree_capacity(iters: int) -> int:
    return NODES_PER_ITER * max(int(iters), 1) + 4 * N_ACTIONS


@njit(cache=True)
def new_tree(capacity):
    """(first child, child count, action, visits, reward sums[capacity, 4], meta) of an empty tree."""
    first = np.full(capacity, -1, dtype=np.int64)
    count = np.zeros(capacity, dtype=np.int64)
    action = np.zeros(capacity, dtype=np.int64)
    visits = np.zeros(capacity, dtype=np.int64)
    value = np.zeros((capacity, VALUE_COLUMNS), dtype=np.float64)
    meta = np.zeros(4, dtype=np.int64)
    return first, count, action, visits, value, meta


@njit(cache=True)
def _reset(first, count, visits, value, meta):
    first[0] = -1
    count[0] = 0
    visits[0] = 0
    value[0, :] = 0.0
    meta[M_NODES] = 1
    meta[M_VALID] = 1


@njit(cache=True)
def _compact(node, first, count, action, visits, value, meta, queue_old, plans):
    """Move the subtree under `node` to the front of the arrays (breadth first, so every child block
    stays contiguous) and make it the root. plans: the turn-level tree's plan per node (turn_mcts.py), or
    an array of one row when there are none."""
    if node == 0:
        return
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
    kept_action = action[queue_old[:tail]]
    kept_visits = visits[queue_old[:tail]]
    kept_value = value[queue_old[:tail]]
    kept_count = count[queue_old[:tail]]
    kept_first = first[queue_old[:tail]]
    if plans.shape[0] > 1:
        kept_plans = plans[queue_old[:tail]]
        plans[:tail] = kept_plans
    next_block = 1
    for i in range(tail):
        action[i] = kept_action[i]
        visits[i] = kept_visits[i]
        value[i, :] = kept_value[i]
        count[i] = kept_count[i]
        if kept_first[i] >= 0:
            first[i] = next_block
            next_block += kept_count[i]
        else:
            first[i] = -1
    meta[M_NODES] = tail


@njit(cache=True)
def _guide(s, rng, plan, buf):
    """The action the greedy agent would play at s (mid-turn after a gain: the best further gain, or end)."""
    if s[GAINS_DONE] > 0:
        return _finish_turn(s, buf)
    agent_plan(AGENT_GREEDY, s.copy(), rng, plan, buf)
    return plan[0]


@njit(cache=True)
def _expand(s, node, first, count, action, visits, value, meta, buf, capacity, guide):
    """Create the children of `node` at position s, flagging the one playing `guide` (-1: none) in the
    PRIOR column; returns False when the tree is full."""
    n = legal_actions(s, buf)
    kept = 0
    for i in range(n):
        a = buf[i]
        if a < A_USE:
            if not swap_keeps_gain(s, a):
                continue
        elif a == A_PASS and n > 1:
            continue
        buf[kept] = a
        kept += 1
    if kept == 0:  # every swap makes the turn void: offer them all (the random agent never gets here)
        kept = n
    start = meta[M_NODES]
    if start + kept > capacity:
        return False
    for i in range(kept):
        child = start + i
        first[child] = -1
        count[child] = 0
        action[child] = buf[i]
        visits[child] = 0
        value[child, :] = 0.0
        if buf[i] == guide:
            value[child, PRIOR] = 1.0
    first[node] = start
    count[node] = kept
    meta[M_NODES] = start + kept
    return True


@njit(cache=True)
def _select(node, mover, c, prior, first, count, visits, value, rng):
    """UCT child of an expanded node for the player to move, plus a progressive bias prior / (n + 1)
    towards the greedy agent's choice; unvisited children first (the greedy choice, then at random)."""
    f = first[node]
    n = count[node]
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
def _finish_turn(st, buf):
    """After a gain: take the most valuable further gain open now, else end the turn."""
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
        plan[0] = _finish_turn(st, buf)
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
def _rollout(st, rng, rollout, stop, plan, buf):
    """Play on until the game ends or `stop` turns are finished."""
    while st[OVER] == 0 and st[TURN] < stop:
        if rollout == ROLLOUT_GREEDY:
            # The greedy planner plans whole turns from before the first gain; after one, finish simply.
            if st[GAINS_DONE] > 0:
                apply_action(st, _finish_turn(st, buf))
                continue
            n = agent_plan(AGENT_GREEDY, st, rng, plan, buf)
        elif rollout == ROLLOUT_QUICK:
            n = quick_plan(st, rng, plan, buf)
        elif rollout == ROLLOUT_UNIFORM:  # uniform over every legal action, as OpenSpiel's rollouts
            n = legal_actions(st, buf)
            apply_action(st, buf[rng_below(rng, n)])
            continue
        else:
            n = agent_plan(AGENT_RANDOM, st, rng, plan, buf)
        for i in range(n):
            apply_action(st, plan[i])


@njit(cache=True)
def terminal_rewards(st, reward, score, win, out):
    """Rewards in [0, 1] per seat at a finished game."""
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
def _finish_iteration(st, rng, rollout, stop, reward, path, depth, visits, value, plan, buf):
    """Roll out from st to `stop` and add the rewards to every node on path[:depth + 1]."""
    _rollout(st, rng, rollout, stop, plan, buf)
    rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
    terminal_rewards(st, reward, np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.int64),
                     rewards)
    for d in range(depth + 1):
        visits[path[d]] += 1
        for p in range(MAX_PLAYERS):
            value[path[d], p] += rewards[p]


@njit(cache=True)
def _most_visited(first, count, visits, value, mover):
    """The root child to play: most visits, then the higher reward sum for the mover."""
    best = first[0]
    for k in range(1, count[0]):
        child = first[0] + k
        if visits[child] > visits[best] or (visits[child] == visits[best]
                                            and value[child, mover] > value[best, mover]):
            best = child
    return best


@njit(cache=True)
def _walk(history, n_history, first, count, action, meta):
    """The node reached from the root by the actions played since the root was set, or -1."""
    node = 0
    for h in range(meta[M_ROOT_HIST], n_history):
        if first[node] < 0:
            return -1
        found = -1
        for k in range(count[node]):
            if action[first[node] + k] == history[h]:
                found = first[node] + k
                break
        if found < 0:
            return -1
        node = found
    return node


@njit(cache=True)
def mcts_action(s, rng, iters, c, rollout, reward, horizon, prior, first, count, action, visits, value, meta,
                queue, history, n_history):
    """The action UCT picks at position s after `iters` iterations, reusing the tree kept in the arrays
    when it holds s (history[:n_history] is every action of the game so far; pass n_history 0 and an
    invalid tree to search afresh)."""
    # Its own budget's capacity, not the arrays' (sized for the largest budget at the table): a full tree
    # stops expanding, so the size must not depend on who else plays in the batch.
    capacity = min(first.shape[0], NODES_PER_ITER * iters + 4 * N_ACTIONS)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    n_legal = legal_actions(s, buf)
    if n_legal == 1:
        return buf[0]
    # A tree is kept within the searching player's turn: its rollouts were cut off at that turn's horizon.
    valid = meta[M_VALID] == 1 and meta[M_TURN] == s[TURN]
    node = _walk(history, n_history, first, count, action, meta) if valid else -1
    if node < 0:
        _reset(first, count, visits, value, meta)
    else:
        _compact(node, first, count, action, visits, value, meta, queue, np.zeros((1, 1), dtype=np.int16))
    meta[M_ROOT_HIST] = n_history
    meta[M_TURN] = s[TURN]
    # Rollouts stop at the end of the searcher's turn `horizon` rounds on, so every leaf is judged right
    # after the searcher moved (0: play to the end of the game).
    stop = s[TURN] + 1 + horizon * s[PLAYERS] if horizon > 0 else 1 << 40
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    if first[0] < 0:
        _expand(s, 0, first, count, action, visits, value, meta, buf, capacity,
                _guide(s, rng, plan, buf) if prior > 0.0 else -1)
    if count[0] == 1:
        return action[first[0]]
    st = np.empty_like(s)
    path = np.empty(4096, dtype=np.int64)
    for _ in range(iters):
        st[:] = s
        node = 0
        depth = 0
        path[0] = 0
        while first[node] >= 0 and st[OVER] == 0:
            node = _select(node, st[TO_MOVE], c, prior, first, count, visits, value, rng)
            apply_action(st, action[node])
            depth += 1
            path[depth] = node
        if st[OVER] == 0 and _expand(st, node, first, count, action, visits, value, meta, buf, capacity,
                                     _guide(st, rng, plan, buf) if prior > 0.0 else -1):
            node = first[node] + rng_below(rng, count[node])
            apply_action(st, action[node])
            depth += 1
            path[depth] = node
        _finish_iteration(st, rng, rollout, stop, reward, path, depth, visits, value, plan, buf)
    return action[_most_visited(first, count, visits, value, s[TO_MOVE])]


def _search_params(params: dict) -> dict:
    from sim.agent_spec import MCTS_PARAMS

    known = MCTS_PARAMS["kamakura"]
    unknown = set(params) - set(known)
    if unknown:
        raise ValueError(f"unknown MCTS parameters: {sorted(unknown)}")
    return {key: params.get(key, default) for key, (_, default) in known.items()}


def search_turn(state_vector: np.ndarray, rng: np.ndarray, **params: float) -> list[int]:
    """One fresh search from a position (no tree kept): the action codes MCTS plays from there to the end
    of the turn. With tree=turns at the start of a turn that is the whole planned turn; otherwise (the
    micro-action tree, or a turn already under way) one action. `params` are the agent's (iters, c,
    rollout, reward, horizon, prior, tree, width; choices by index), defaults as the `mcts` agent's in
    sim/agent_spec.py."""
    from sim.kamakura.turn_mcts import PLAN_WIDTH, at_turn_start, turn_mcts_plan, turn_tree_capacity

    p = _search_params(params)
    vector = state_vector.copy()
    history = np.zeros(1, dtype=np.int64)
    args = (int(p["iters"]), float(p["c"]), int(p["rollout"]), int(p["reward"]), int(p["horizon"]),
            float(p["prior"]))
    if int(p["tree"]) == TREE_TURNS and at_turn_start(vector):
        tree = new_tree(turn_tree_capacity(p["iters"], p["width"]))
        first, count, length, visits, value, meta = tree
        plans = np.zeros((first.shape[0], PLAN_WIDTH), dtype=np.int16)
        queue = np.empty(first.shape[0], dtype=np.int64)
        plan = np.empty(MAX_PLAN, dtype=np.int64)
        n = turn_mcts_plan(vector, rng, *args, int(p["width"]), first, count, length, visits, value, meta,
                           plans, queue, history, 0, plan)
        return [int(code) for code in plan[:n]]
    tree = new_tree(tree_capacity(p["iters"]))
    queue = np.empty(tree[0].shape[0], dtype=np.int64)
    return [int(mcts_action(vector, rng, *args, *tree, queue, history, 0))]


def search(state_vector: np.ndarray, rng: np.ndarray, **params: float) -> int:
    """The next action code MCTS plays at a position, from a fresh search (see search_turn)."""
    return search_turn(state_vector, rng, **params)[0]
