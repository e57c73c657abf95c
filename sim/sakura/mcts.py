"""Sakura information-set MCTS (single observer), compiled: the `mcts` agent.

Sakura hides the other hands, the deck order (and the generator that will reshuffle it) and the cards
other players chose this round until they are revealed. Each iteration therefore starts from a
determinization: the cards the searching seat cannot place are pooled, shuffled with the agent's own
generator and dealt back into the unseen slots (the deck, the other hands, the unrevealed selections),
and the reshuffle generator is replaced by a fresh draw. The pool is gathered by card number and the
slots by their observable counts, so two positions that differ only in what the seat cannot see give the
same determinizations, and so the same decision.

One tree per decision spans the sequential decisions of the readable API (every seat's card choice in turn,
forward/back choices, the tactical court pick). Children are keyed by action and linked as siblings;
an iteration descends through the actions legal in its determinization, counting for each child how
often it was available (SO-ISMCTS, Cowling, Powley and Whitehouse 2012), expands one untried action,
then plays the game out at random. Rewards per player: win (1 to the R-14 winner, split on a shared win)
or score (the token lead over the best other player, scaled into [0, 1]).
"""

import numpy as np
from numba import njit

from sim.core.mcts_rewards import lead_rewards, win_rewards
from sim.core.rng import rng_below, rng_next
from sim.sakura.agent_kinds import AGENTS, REWARDS
from sim.sakura.kernels import (
    DECK,
    DECK_N,
    DECK_SIZE,
    HAND,
    HAND_N,
    HAND_SIZE,
    MAX_PLAYERS,
    N_ACTIONS_MAX,
    PH_OVER,
    PH_SELECT,
    PHASE,
    PLAYERS,
    RNG,
    SELECTED,
    TO_MOVE,
    TOKENS,
    apply_action,
    legal_actions,
    rivals,
    winners,
)

REWARD_WIN, REWARD_SCORE = REWARDS.index("win"), REWARDS.index("score")  # the registry entry's codes
# A seat's parameter row: the mcts agent's parameters in their declared order (agent_spec.agent_row).
_ORDER = list(AGENTS["mcts"].params)  # the registry entry's parameter order (spec.py, declared once)
P_ITERS, P_C, P_REWARD = (_ORDER.index(key) for key in ("iters", "c", "reward"))
N_PARAMS = len(_ORDER)
SCORE_SCALE = 10.0  # tokens of lead that span the whole reward range


@njit(cache=True)
def determinize(s, me, rng, out):
    """Write into `out` a copy of s whose hidden cards, as `me` sees them, are dealt at random."""
    unseen = np.empty(DECK_SIZE + 1, dtype=np.int64)
    determinize_into(s, me, rng, out, unseen, np.empty(DECK_SIZE, dtype=np.int64))


@njit(cache=True)
def determinize_into(s, me, rng, out, unseen, pool):
    """determinize with its scratch given (unseen: DECK_SIZE + 1 entries, pool: DECK_SIZE; any values),
    for a caller that deals many times."""
    out[:] = s
    players = s[PLAYERS]
    hidden_selection = s[PHASE] == PH_SELECT
    for card in range(DECK_SIZE + 1):
        unseen[card] = 0
    for i in range(s[DECK_N]):
        unseen[s[DECK + i]] = 1
    for seat in range(players):
        if seat == me:
            continue
        for i in range(s[HAND_N + seat]):
            unseen[s[HAND + seat * HAND_SIZE + i]] = 1
        if hidden_selection and s[SELECTED + seat] >= 0:
            unseen[s[SELECTED + seat]] = 1
    n = 0
    for card in range(1, DECK_SIZE + 1):  # by card number: nothing of the hidden arrangement leaks
        pool[n] = card  # (every card written, the count moved past the unseen ones: no jump to mispredict)
        n += unseen[card]
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    k = 0
    for i in range(s[DECK_N]):
        out[DECK + i] = pool[k]
        k += 1
    for seat in range(players):
        if seat == me:
            continue
        base = HAND + seat * HAND_SIZE
        m = s[HAND_N + seat]
        for i in range(m):  # hands are kept sorted: each card dealt goes in its place (a short insertion
            card = pool[k]  # sort: the slice's sort() cost a call to a general quicksort per hand)
            k += 1
            j = base + i
            while j > base and out[j - 1] > card:
                out[j] = out[j - 1]
                j -= 1
            out[j] = card
        if hidden_selection and s[SELECTED + seat] >= 0:
            out[SELECTED + seat] = pool[k]
            k += 1
    out[RNG] = np.int64(rng_next(rng) >> np.uint64(1))  # the reshuffles to come are unknown too
    # the discard pile and `me`'s own cards are known and stay


@njit(cache=True)
def rewards_at(st, reward, win, out):
    """Each player's reward at a finished game (entry `players` is the court painter's with two
    players, never a mover's). The painters competing are `rivals`: under court_can_win (R-23) the
    court painter's tokens are a lead to beat and its win counts in a shared win's 1/k."""
    n = rivals(st)
    for p in range(MAX_PLAYERS):
        out[p] = 0.0
    if reward == REWARD_SCORE:
        lead_rewards(st[TOKENS:TOKENS + MAX_PLAYERS], n, SCORE_SCALE, out)
    else:
        winners(st, win)
        win_rewards(win, n, out)


@njit(cache=True)
def _child(node, a, first, sibling, action):
    child = first[node]
    while child >= 0:
        if action[child] == a:
            return child
        child = sibling[child]
    return -1


@njit(cache=True)
def mcts_action(s, rng, params):
    """The action SO-ISMCTS picks for the seat to move at s; params is the seat's float parameter row
    (P_ITERS iterations, P_C exploration constant, P_REWARD reward code)."""
    iters = int(params[P_ITERS])
    c = params[P_C]
    reward = int(params[P_REWARD])
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    n_root = legal_actions(s, buf)
    if n_root == 1:
        return buf[0]
    root_actions = buf[:n_root].copy()
    me = s[TO_MOVE]
    capacity = iters + 2
    first = np.full(capacity, -1, dtype=np.int64)
    sibling = np.full(capacity, -1, dtype=np.int64)
    action = np.zeros(capacity, dtype=np.int64)
    visits = np.zeros(capacity, dtype=np.int64)
    avail = np.zeros(capacity, dtype=np.int64)
    value = np.zeros((capacity, MAX_PLAYERS), dtype=np.float64)
    n_nodes = 1
    st = np.empty_like(s)
    path = np.empty(capacity, dtype=np.int64)
    untried = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    children = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    out = np.zeros(MAX_PLAYERS, dtype=np.float64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    unseen = np.empty(DECK_SIZE + 1, dtype=np.int64)
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    for _ in range(iters):
        determinize_into(s, me, rng, st, unseen, pool)
        node = 0
        depth = 0
        path[0] = 0
        while st[PHASE] != PH_OVER:
            n = legal_actions(st, buf)
            n_untried = 0
            for i in range(n):
                child = _child(node, buf[i], first, sibling, action)
                children[i] = child
                if child < 0:
                    untried[n_untried] = buf[i]
                    n_untried += 1
            if n_untried > 0:
                # expand one untried action, then play out from it
                a = untried[rng_below(rng, n_untried)]
                child = n_nodes
                n_nodes += 1
                action[child] = a
                sibling[child] = first[node]
                first[node] = child
                apply_action(st, a)
                for i in range(n):
                    if children[i] >= 0:
                        avail[children[i]] += 1
                avail[child] += 1
                depth += 1
                path[depth] = child
                break
            mover = st[TO_MOVE]
            best = -1
            best_score = -1e300
            for i in range(n):
                child = children[i]
                avail[child] += 1
                v = float(visits[child])
                score = value[child, mover] / v + c * np.sqrt(np.log(float(avail[child])) / v)
                if score > best_score:
                    best_score = score
                    best = child
            apply_action(st, action[best])
            node = best
            depth += 1
            path[depth] = node
        while st[PHASE] != PH_OVER:  # random play-out
            n = legal_actions(st, buf)
            apply_action(st, buf[rng_below(rng, n)])
        rewards_at(st, reward, win, out)
        for d in range(depth + 1):
            visits[path[d]] += 1
            for p in range(MAX_PLAYERS):
                value[path[d], p] += out[p]
    best = -1
    for i in range(n_root):
        child = _child(0, root_actions[i], first, sibling, action)
        if child >= 0 and (best < 0 or visits[child] > visits[best]
                           or (visits[child] == visits[best] and value[child, me] > value[best, me])):
            best = child
    return action[best] if best >= 0 else root_actions[0]


def search(state_vector: np.ndarray, rng: np.ndarray, **params: float) -> int:
    """The action code MCTS plays at a position; `params` (iters, c, reward as its index) default to the
    `mcts` agent's (its parameter schema in the game's registry entry, spec.py)."""
    known = AGENTS["mcts"].params
    unknown = set(params) - set(known)
    if unknown:
        raise ValueError(f"unknown MCTS parameters: {sorted(unknown)}")
    p = {key: params.get(key, default) for key, (_, default) in known.items()}
    row = np.zeros(N_PARAMS, dtype=np.float64)
    row[P_ITERS], row[P_C], row[P_REWARD] = int(p["iters"]), float(p["c"]), int(p["reward"])
    return int(mcts_action(state_vector.copy(), rng, row))
