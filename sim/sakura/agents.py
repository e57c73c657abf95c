"""Compiled Sakura agents. They decide from what their seat may observe (own hand, positions, tokens,
the discard pile, cards already revealed) and from their own generator, never from other hands, the deck
order or other players' unrevealed selections.

random: uniform over the legal actions (cards in hand; forward or back).
greedy: for each card it could play, resolves the round against K guesses of the cards it cannot see,
    drawn from the cards unaccounted for in its observation (common draws for every candidate), and
    plays the card with the best mean value: its tokens after the round plus half the tokens it would get
    if the next sakura scored now. Its own forward/back choices in that look-ahead, and in play, compare
    the two outcomes the same way; other players are assumed to go forward. Ties: a seeded draw.
"""

import numpy as np
from numba import njit

from sim.core.rng import rng_below
from sim.sakura.agent_kinds import AGENTS
from sim.sakura.kernels import (
    A_COURT,
    A_FORWARD,
    A_PLAY,
    COURT_PICKER,
    DECK_SIZE,
    DISCARD,
    DISCARD_N,
    G_EPM1,
    GARDEN,
    HALF,
    HAND,
    HAND_N,
    HAND_SIZE,
    MAX_PAINTERS,
    N_ACTIONS_MAX,
    N_PAINTERS,
    N_SAKURA,
    P_PM1,
    P_PM3,
    PACT,
    PEND_N,
    PEND_OWNER,
    PEND_POS,
    PENDING,
    PH_CHOOSE,
    PHASE,
    PLAYERS,
    SCORED,
    SELECTED,
    TO_MOVE,
    TOKENS,
    copy_round_fields,
    do_garden,
    do_painter,
    legal_actions,
    order_pending,
    ranking,
    score_sakura,
    unscored_sakura_here,
)

# The codes are declared once, in the game's registry entry (spec.py); plain ints here for numba.
AGENT_CODES = {name: kind.code for name, kind in AGENTS.items()}
AGENT_RANDOM = AGENT_CODES["random"]
AGENT_GREEDY = AGENT_CODES["greedy"]
AGENT_MCTS = AGENT_CODES["mcts"]  # searched in mcts.py, called by the batch loop
AGENT_EXPERT = AGENT_CODES["expert"]  # expert.py (it builds on the greedy's look-ahead), batch.next_action
AGENT_SEARCH = AGENT_CODES["search"]  # search.py (the expert as its policy and evaluation), batch.next_action
GREEDY_SAMPLES = 8


@njit(cache=True)
def random_action(s, rng, buf):
    n = legal_actions(s, buf)
    return buf[rng_below(rng, n)]


# ---- greedy --------------------------------------------------------------------------------------------
@njit(cache=True)
def value(t, me, order):
    """Tokens now plus half of what the next sakura would give `me` if it scored now."""
    v = float(t[TOKENS + me])
    n = ranking(t, order)
    awards = 4 if t[PLAYERS] >= 5 else 3
    last = True
    for k in range(t[N_SAKURA] - 1):
        if t[SCORED + k] == 0:
            last = False
    for r in range(min(n, awards)):
        if order[r] == me:
            if r == 0:
                v += 0.5 * (4.0 if last else 3.0)
            elif r == 1:
                v += 1.0
            else:
                v += 0.5
    return v


@njit(cache=True)
def _better_direction(t, card, owner, garden_half, me, scratch, order):
    """Forward (True) or back, whichever leaves `me` better off right after this half-card. scratch agrees
    with t outside the round's fields (kernels.ROUND_RUNS), so copying those makes it t."""
    best_forward = True
    best = -1e9
    for fwd in (True, False):
        copy_round_fields(scratch, t)
        if garden_half:
            do_garden(scratch, card, fwd)
        else:
            do_painter(scratch, card, owner, fwd)
        val = value(scratch, me, order)
        if val > best:
            best = val
            best_forward = fwd
    return best_forward


@njit(cache=True)
def simulate_round(t, me, forced, scratch, order, gained):
    """Resolve t's pending cards to the end of the round (or a sakura) without drawing: no hidden card is
    read. forced (1 forward, 0 back, -1 none) settles the decision waiting now; `me` picks its other
    choices by _better_direction, other players go forward. Writes only the round's fields
    (kernels.ROUND_RUNS), so kernels.copy_round_fields undoes it; scratch must agree with t outside them
    (a copy of the position looked ahead from), order is scratch for rankings."""
    players = t[PLAYERS]
    while t[PEND_POS] < t[PEND_N]:
        card = t[PENDING + t[PEND_POS]]
        owner = t[PEND_OWNER + t[PEND_POS]]
        if t[HALF] == 0:
            fwd = True
            if owner < players and t[GARDEN + card] == G_EPM1:
                if forced >= 0:
                    fwd = forced == 1
                    forced = -1
                elif owner == me:
                    fwd = _better_direction(t, card, owner, True, me, scratch, order)
            do_garden(t, card, fwd)
            t[HALF] = 1
        fwd = True
        a = t[PACT + card]
        if owner < players and P_PM1 <= a <= P_PM3:
            if forced >= 0:
                fwd = forced == 1
                forced = -1
            elif owner == me:
                fwd = _better_direction(t, card, owner, False, me, scratch, order)
        do_painter(t, card, owner, fwd)
        t[PEND_POS] += 1
        t[HALF] = 0
        k = unscored_sakura_here(t)
        if k >= 0:
            score_sakura(t, k, gained, order)
            return


@njit(cache=True)
def greedy_action(s, rng, buf):
    me = s[TO_MOVE]
    n = legal_actions(s, buf)
    t = s.copy()  # each look-ahead writes only the round's fields: copy_round_fields(t, s) undoes it
    scratch = s.copy()
    order = np.empty(MAX_PAINTERS, dtype=np.int64)
    gained = np.zeros(MAX_PAINTERS, dtype=np.int64)
    best = -1e18
    ties = 0
    choice = buf[0]
    if s[PHASE] == PH_CHOOSE:
        for i in range(n):
            copy_round_fields(t, s)
            simulate_round(t, me, 1 if buf[i] == A_FORWARD else 0, scratch, order, gained)
            val = value(t, me, order)
            if val > best:
                best, ties, choice = val, 1, buf[i]
            elif val == best:
                ties += 1
                if rng_below(rng, ties) == 0:
                    choice = buf[i]
        return choice
    # Select: the cards this seat cannot place are its pool of guesses for every unrevealed card.
    known = np.zeros(DECK_SIZE + 1, dtype=np.int64)
    for i in range(s[HAND_N + me]):
        known[s[HAND + me * HAND_SIZE + i]] = 1
    for i in range(s[DISCARD_N]):
        known[s[DISCARD + i]] = 1
    if s[SELECTED + me] >= 0:
        known[s[SELECTED + me]] = 1  # its own card, already played (tactical court pick)
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    n_pool = 0
    for card in range(1, DECK_SIZE + 1):
        if known[card] == 0:
            pool[n_pool] = card
            n_pool += 1
    court_pick = s[COURT_PICKER] >= 0
    totals = np.zeros(N_ACTIONS_MAX, dtype=np.float64)
    guess = np.empty(MAX_PAINTERS, dtype=np.int64)
    for _ in range(GREEDY_SAMPLES):
        # guesses for every other painter's card, drawn without replacement
        for p in range(s[N_PAINTERS]):
            guess[p] = -1
            if p == me or (p == s[PLAYERS] and court_pick):
                continue  # its own card, or the court card it is choosing now
            j = rng_below(rng, n_pool)
            guess[p] = pool[j]
            pool[j] = pool[n_pool - 1]
            pool[n_pool - 1] = guess[p]
            n_pool -= 1
        for p in range(s[N_PAINTERS]):
            if guess[p] >= 0:
                n_pool += 1  # put the guesses back for the next sample
        for i in range(n):
            copy_round_fields(t, s)
            for p in range(t[N_PAINTERS]):
                if guess[p] >= 0:
                    t[SELECTED + p] = guess[p]
            if court_pick:
                t[SELECTED + t[PLAYERS]] = buf[i] - A_COURT
            else:
                t[SELECTED + me] = buf[i] - A_PLAY
            order_pending(t)
            simulate_round(t, me, -1, scratch, order, gained)
            totals[i] += value(t, me, order)
    for i in range(n):
        if totals[i] > best:
            best, ties, choice = totals[i], 1, buf[i]
        elif totals[i] == best:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = buf[i]
    return choice


@njit(cache=True)
def agent_action(kind, s, rng, buf):
    if kind == AGENT_GREEDY:
        return greedy_action(s, rng, buf)
    return random_action(s, rng, buf)
