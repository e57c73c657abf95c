"""The Sakura `search` agent (compiled): the rung above `expert`, an information-set search from the seat's
observation with the expert as its policy and its evaluation at the leaves (docs/design/notes.md).

Why this shape: the expert (expert.py) guesses the other players' cards of the round as random cards of
those it cannot place. Its opponents are not random: they choose. Here each card in hand is played in
determinizations drawn from the seat's observation exactly as mcts.py draws them (mcts.determinize: the
unseen cards dealt back into the other hands, the deck and the unrevealed selections, by card number, so a
redeal of what the seat cannot see changes nothing), and in each the other seats choose their cards by the
expert's own policy on the hands dealt to them (a cheaper expert: `inner` guesses a card, no race; a seat
that chose before this one chooses again from its dealt hand and the dealt card). The round resolves
(every later decision by that policy), `depth` more rounds are played by every seat as that expert (0 by
default: a policy rollout one round deeper was measured weaker at the same cost), and the position is
scored by the expert's evaluation, every hand as dealt (the model was fitted at round starts on each
player's own hand). A race over the cards (expert.race) spends determinizations where the choice is
close: `samples` for every card, then SEARCH_BATCH more for each card still within `z` standard errors of
the best, up to `most`. All cards share each determinization and each generator stream of the policy
(common random numbers). A forward/back choice reveals nothing: the expert's own exact comparison.

The measurements behind the defaults, and the designs tried, are in docs/design/notes.md ("The Sakura
`search` agent").
"""

import numpy as np
from numba import njit

from sim.core.rng import rng_next
from sim.sakura.agent_kinds import AGENTS
from sim.sakura.expert import (
    E_FIRST,
    E_MOST,
    E_SAMPLES,
    E_TEMP,
    E_WEIGHTS,
    E_Z,
    MIX,
    N_FEATURES,
    emperor_move,
    evaluate,
    expert_decide,
    hand_mix,
    new_expert_work,
    new_work,
    pool_mix,
    race,
    unseen_cards,
)
from sim.sakura.kernels import (
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
    legal_actions,
    remove_from_hand,
)
from sim.sakura.mcts import determinize_into

# A search seat's parameter row: its numeric parameters in the registry's order, then the model's weights.
_NUMERIC = [key for key, (kind, _default) in AGENTS["search"].params.items() if kind is not str]
S_SAMPLES, S_MOST, S_Z, S_DEPTH, S_INNER, S_TEMP = (_NUMERIC.index(key) for key in (
    "samples", "most", "z", "depth", "inner", "temp"))
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
def rechoose(d, me, rng, row, xw):
    """In a determinization d, every other seat whose card of the round is still hidden from `me` (dealt
    at random by determinize) chooses it again by the policy `row` from its dealt hand and that card, as
    it would have at its turn (it saw none of the round's cards). xw: the policy's scratch
    (expert.new_expert_work)."""
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
        chosen = expert_decide(d, rng, row, xw) - A_PLAY
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
    xw = new_expert_work(s, int(row[E_MOST]))  # the policy's scratch, for all its decisions here
    if s[PHASE] == PH_CHOOSE:
        return expert_decide(s, rng, row, xw)  # nothing hidden decides it: the expert's exact comparison
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
    unseen = np.empty(DECK_SIZE + 1, dtype=np.int64)
    per = np.zeros((n, most), dtype=np.float64)
    values = np.zeros(n, dtype=np.float64)
    alive = np.ones(n, dtype=np.bool_)
    done = 0
    while done < most:
        upto = min(done + (samples if done == 0 else SEARCH_BATCH), most)
        for k in range(done, upto):
            determinize_into(s, me, rng, d, unseen, pool)  # (pool: leaf_value's scratch too)
            rechoose(d, me, rng, row, xw)
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
                        a = expert_decide(t, stream, row, xw)
                        apply_action(t, a)
                        replay[n_replay] = a
                        n_replay += 1
                    after = stream[0]
                else:
                    for j in range(n_replay):
                        apply_action(t, replay[j])
                    stream[0] = after
                while t[PHASE] != PH_OVER and t[ROUND] <= last_round:
                    apply_action(t, expert_decide(t, stream, row, xw))
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
