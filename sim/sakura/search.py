"""The Sakura `search` agent (compiled): the rung above `expert`, an information-set search from the seat's
observation with the expert as its policy and its evaluation at the leaves.

Why this shape: the expert (expert.py) guesses the other players' cards of the round as random cards of
those it cannot place, and scores the position when the round ends. Here each card in hand is played in
determinizations drawn from the seat's observation exactly as mcts.py draws them (mcts.determinize: the
unseen cards dealt back into the other hands, the deck and the unrevealed selections, by card number, so a
redeal of what the seat cannot see changes nothing). In each determinization the other seats choose their
cards by the expert's own policy on the hands dealt to them (a cheap expert, `inner` guesses a card and no
race; the seats that chose before this one choose again from their dealt hand plus the dealt card), then
with `depth` 1 every seat plays one more round as that expert (a policy rollout: the expert as the default
policy) before the position is scored by the expert's evaluation (evaluate, every painter's own hand as
dealt, as the model was fitted at round starts). A race over the cards (expert.race) spends the
determinizations where the choice is close: `samples` for every card, then SEARCH_BATCH more for each card
still within `z` standard errors of the best, up to `most`. All candidates share each determinization and
each generator stream of the policy (common random numbers). A forward/back choice reveals nothing: the
expert's own exact comparison.

The measurements behind the defaults, and the designs tried, are in docs/design/notes.md ("The Sakura
`search` agent").
"""

import numpy as np
from numba import njit

from sim.rng import rng_below, rng_next
from sim.sakura.agent_kinds import AGENTS
from sim.sakura.agents import simulate_round
from sim.sakura.expert import (
    E_FIRST,
    E_MOST,
    E_SAMPLES,
    E_TEMP,
    E_WEIGHTS,
    E_Z,
    F_TREES,
    MIX,
    N_FEATURES,
    emperor_move,
    evaluate,
    expert_action,
    final_value,
    hand_mix,
    new_work,
    pool_mix,
    race,
    select_values,
    unseen_cards,
)
from sim.sakura.kernels import (
    A_COURT,
    A_PLAY,
    COURT_PICKER,
    DECK_SIZE,
    HAND,
    HAND_N,
    HAND_SIZE,
    MAX_PAINTERS,
    N_ACTIONS_MAX,
    N_PAINTERS,
    PH_CHOOSE,
    PH_OVER,
    PH_SELECT,
    PHASE,
    PLAYERS,
    ROUND,
    SELECTED,
    TO_MOVE,
    apply_action,
    copy_round_fields,
    legal_actions,
    order_pending,
    remove_from_hand,
    rivals,
)
from sim.sakura.mcts import determinize

# A search seat's parameter row: its numeric parameters in the registry's order, then the model's weights.
_NUMERIC = [key for key, (kind, _default) in AGENTS["search"].params.items() if kind is not str]
S_SAMPLES, S_MOST, S_Z, S_DEPTH, S_INNER, S_TEMP, S_TREE, S_ITERS, S_C = (_NUMERIC.index(key) for key in (
    "samples", "most", "z", "depth", "inner", "temp", "tree", "iters", "c"))
S_WEIGHTS = len(_NUMERIC)
SEARCH_BATCH = 8  # determinizations added per card still in the race, between two looks


@njit(cache=True)
def inner_row(params):
    """The expert's parameter row of the policy the search plays the other seats and the rollout with:
    `inner` guesses a card, no race, the search's temp and model weights."""
    row = np.zeros(E_WEIGHTS + N_FEATURES, dtype=np.float64)
    inner = max(int(params[S_INNER]), 1)
    row[E_SAMPLES] = inner
    row[E_MOST] = inner
    row[E_TEMP] = params[S_TEMP]
    row[E_Z] = 0.0
    row[E_FIRST] = 0
    row[E_WEIGHTS:] = params[S_WEIGHTS:S_WEIGHTS + N_FEATURES]
    return row


@njit(cache=True)
def _insert(d, seat, card):
    """Put card back into seat's sorted hand."""
    base = HAND + seat * HAND_SIZE
    i = d[HAND_N + seat]
    while i > 0 and d[base + i - 1] > card:
        d[base + i] = d[base + i - 1]
        i -= 1
    d[base + i] = card
    d[HAND_N + seat] += 1


@njit(cache=True)
def rechoose(d, me, rng, row):
    """In a determinization d, every other seat whose card of the round is still hidden from `me` (dealt
    at random by determinize) chooses it again by the policy `row` from its dealt hand and that card, as
    it would have at its turn (it saw none of the round's cards)."""
    if d[PHASE] != PH_SELECT:
        return
    to_move = d[TO_MOVE]
    picker = d[COURT_PICKER]
    for q in range(d[PLAYERS]):
        card = d[SELECTED + q]
        if q == me or card < 0:
            continue
        _insert(d, q, card)
        d[SELECTED + q] = -1
        d[TO_MOVE] = q
        d[COURT_PICKER] = -1
        chosen = expert_action(d, rng, row) - A_PLAY
        remove_from_hand(d, q, chosen)
        d[SELECTED + q] = chosen
    d[TO_MOVE] = to_move
    d[COURT_PICKER] = picker


@njit(cache=True)
def leaf_value(t, me, mixes, pool, weights, temp, w):
    """The expert's evaluation of t for `me`, every player's hand as it stands in t (the determinization's),
    the court painter's the mix of the cards `me` cannot place."""
    for p in range(t[PLAYERS]):
        hand_mix(t, p, -1, mixes[p])
        w.emoves[p] = emperor_move(mixes[p])
    if t[N_PAINTERS] > t[PLAYERS]:
        n_pool = unseen_cards(t, me, pool)
        pool_mix(t, pool, n_pool, mixes[t[PLAYERS]])
        w.emoves[t[PLAYERS]] = emperor_move(mixes[t[PLAYERS]])
    return evaluate(t, me, mixes, weights, temp, w)


@njit(cache=True)
def search_action(s, rng, params):
    """The search's action at s for the seat to move; params: the seat's row (S_*, then the weights)."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    n = legal_actions(s, buf)
    if n == 1:
        return buf[0]
    row = inner_row(params)
    if s[PHASE] == PH_CHOOSE:
        return expert_action(s, rng, row)  # nothing hidden decides it: the expert's exact comparison
    if params[S_TREE] == 1:
        return duct_action(s, rng, params, buf, n, row)
    me = s[TO_MOVE]
    samples = max(int(params[S_SAMPLES]), 1)
    most = max(int(params[S_MOST]), samples)
    last_round = s[ROUND] + int(params[S_DEPTH])
    weights = params[S_WEIGHTS:S_WEIGHTS + N_FEATURES]
    temp = params[S_TEMP]
    mixes = np.zeros((MAX_PAINTERS, MIX), dtype=np.float64)
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    w = new_work(s)
    d = np.empty_like(s)
    t = np.empty_like(s)
    stream = np.empty(1, dtype=np.uint64)
    replay = np.empty(MAX_PAINTERS, dtype=np.int64)
    per = np.zeros((n, most), dtype=np.float64)
    values = np.zeros(n, dtype=np.float64)
    alive = np.ones(n, dtype=np.bool_)
    done = 0
    while done < most:
        upto = min(done + (samples if done == 0 else SEARCH_BATCH), most)
        for k in range(done, upto):
            determinize(s, me, rng, d)
            rechoose(d, me, rng, row)
            seed = rng_next(rng)
            n_replay = -1
            after = np.uint64(0)
            for i in range(n):
                if not alive[i]:
                    continue
                t[:] = d
                stream[0] = seed
                apply_action(t, buf[i])
                if n_replay < 0:
                    # the seats after this one choose without seeing its card: the same for every card
                    n_replay = 0
                    while (t[PHASE] == PH_SELECT and t[ROUND] == s[ROUND] and t[TO_MOVE] != me
                           and t[COURT_PICKER] < 0):
                        a = expert_action(t, stream, row)
                        apply_action(t, a)
                        replay[n_replay] = a
                        n_replay += 1
                    after = stream[0]
                else:
                    for j in range(n_replay):
                        apply_action(t, replay[j])
                    stream[0] = after
                while t[PHASE] != PH_OVER and t[ROUND] <= last_round:
                    apply_action(t, expert_action(t, stream, row))
                per[i, k] = leaf_value(t, me, mixes, pool, weights, temp, w)
                values[i] += per[i, k]
        done = upto
        if done < most and race(per, values, alive, n, done, params[S_Z]) == 0:
            break
    best = -1
    for i in range(n):
        if alive[i] and (best < 0 or values[i] > values[best] + 1e-12):
            best = i  # ties: the lowest action code
    return buf[best]


PRIOR_SPREAD = 0.02  # win chance per e-fold of the prior: the softmax of the expert's card values
PRIOR_GUESSES = 32  # the expert's guesses a card for the prior


@njit(cache=True)
def _chance(finals, q, players, spread):
    """q's win chance from predicted finals (as evaluate: each other painter beaten as if independently)."""
    chance = 1.0
    for r in range(players):
        if r != q:
            chance *= 1.0 / (1.0 + np.exp(-(finals[q] - finals[r]) / spread))
    return chance


@njit(cache=True)
def duct_action(s, rng, params, buf, n, row):
    """Design (b), tree=1: a decoupled PUCT over the round's simultaneous choices. `iters` times: the other
    hands dealt from the cards `me` cannot place (as the expert's guesses), each other seat picks a card
    of its dealt hand by UCB on its own statistics (keyed by card, shared across deals: it cannot see the
    card `me` plays), `me` picks by PUCT with a softmax of the expert's card values as the prior, the
    round resolves as in the expert's look-ahead and each painter's win chance by the
    expert's evaluation is backed up to its own choice. Plays the card tried most."""
    me = s[TO_MOVE]
    players = s[PLAYERS]
    painters = s[N_PAINTERS]
    iters = max(int(params[S_ITERS]), 1)
    c = params[S_C]
    temp = params[S_TEMP]
    weights = params[S_WEIGHTS:S_WEIGHTS + N_FEATURES]
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    n_pool = unseen_cards(s, me, pool)
    mixes = np.zeros((MAX_PAINTERS, MIX), dtype=np.float64)
    pool_mix(s, pool, n_pool, mixes[0])
    w = new_work(s)
    w.emoves[0] = emperor_move(mixes[0])
    for p in range(1, painters):
        mixes[p] = mixes[0]
        w.emoves[p] = w.emoves[0]
    # the prior: the expert's card values over PRIOR_GUESSES common guesses (no race), a softmax of them
    expert = row.copy()
    expert[E_SAMPLES], expert[E_MOST], expert[E_FIRST] = PRIOR_GUESSES, PRIOR_GUESSES, 0
    means = np.zeros(n, dtype=np.float64)
    select_values(s, rng, expert, buf, n, pool, n_pool, mixes, w, means)
    best = -np.inf
    for i in range(n):
        means[i] /= PRIOR_GUESSES
        best = max(best, means[i])
    prior = np.zeros(n, dtype=np.float64)
    total = 0.0
    for i in range(n):
        prior[i] = np.exp((means[i] - best) / PRIOR_SPREAD)
        total += prior[i]
    for i in range(n):
        prior[i] /= total
    court_pick = s[COURT_PICKER] >= 0
    base = A_COURT if court_pick else A_PLAY
    mine = np.zeros((N_ACTIONS_MAX, MIX), dtype=np.float64)
    mine_moves = np.zeros(N_ACTIONS_MAX, dtype=np.float64)
    for i in range(n):
        hand_mix(s, me, buf[i] - base, mine[i])
        mine_moves[i] = emperor_move(mine[i])
    visits = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.float64)
    o_visits = np.zeros((MAX_PAINTERS, DECK_SIZE + 1), dtype=np.float64)
    o_wins = np.zeros((MAX_PAINTERS, DECK_SIZE + 1), dtype=np.float64)
    o_avail = np.zeros((MAX_PAINTERS, DECK_SIZE + 1), dtype=np.float64)
    chosen = np.full(MAX_PAINTERS, -1, dtype=np.int64)
    t = s.copy()
    scratch = s.copy()
    gained = np.zeros(MAX_PAINTERS, dtype=np.int64)
    for it in range(iters):
        taken = 0
        for p in range(painters):
            chosen[p] = -1
            if p == me or (p == players and court_pick):
                continue
            k = 1 if p == players else s[HAND_N + p] + (1 if s[SELECTED + p] >= 0 else 0)
            pick = -1
            pick_score = -np.inf
            for _ in range(k):  # deal its hand (its card of the round among them), without replacement
                if taken == n_pool:
                    break
                j = rng_below(rng, n_pool - taken)
                card = pool[j]
                pool[j] = pool[n_pool - taken - 1]
                pool[n_pool - taken - 1] = card
                taken += 1
                if p == players:  # the court painter's card: the deck's top, no choice
                    pick = card
                    break
                o_avail[p, card] += 1.0
                if o_visits[p, card] == 0.0:
                    score = 1e9 - taken  # untried first, in the order dealt
                else:
                    score = (o_wins[p, card] / o_visits[p, card]
                             + c * np.sqrt(np.log(o_avail[p, card]) / o_visits[p, card]))
                if score > pick_score:
                    pick_score = score
                    pick = card
            chosen[p] = pick
        sq = np.sqrt(it + 1.0)
        pick_i = -1
        pick_score = -np.inf
        for i in range(n):
            q = wins[i] / visits[i] if visits[i] > 0 else means[i]
            score = q + c * prior[i] * sq / (1.0 + visits[i])
            if score > pick_score:
                pick_score = score
                pick_i = i
        copy_round_fields(t, s)
        for p in range(painters):
            if chosen[p] >= 0:
                t[SELECTED + p] = chosen[p]
        t[SELECTED + (players if court_pick else me)] = buf[pick_i] - base
        order_pending(t)
        simulate_round(t, me, -1, scratch, w.order, gained)
        for j in range(MIX):
            mixes[me, j] = mine[pick_i, j]
        w.emoves[me] = mine_moves[pick_i]
        v = evaluate(t, me, mixes, weights, temp, w)
        visits[pick_i] += 1.0
        wins[pick_i] += v
        over = t[PHASE] == PH_OVER
        spread = temp * np.sqrt(w.feats[me, F_TREES])
        for p in range(painters):
            if chosen[p] < 0 or p == players:
                continue
            if over:
                vp = final_value(t, p, temp, w.win)
            elif temp > 0.0:
                vp = _chance(w.finals, p, rivals(t), spread)
            else:
                vp = w.finals[p]
            o_visits[p, chosen[p]] += 1.0
            o_wins[p, chosen[p]] += vp
    best_i = -1
    for i in range(n):
        if best_i < 0 or visits[i] > visits[best_i]:
            best_i = i
    return buf[best_i]
