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
    BUMPS,
    COURT_PICKER,
    DECK_SIZE,
    DISCARD,
    DISCARD_N,
    EMPEROR,
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
    PAINTER,
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
    half_move,
    legal_actions,
    move,
    order_pending,
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
def value(t, me):
    """Tokens now plus half of what the next sakura would give `me` if it scored now: its rank as
    kernels.ranking orders the painters (R-13: path painters by index, highest first, painter order on a
    tie; a painter alone on the gate after them; painters sharing the gate get no rank), counted here so
    that this kernel calls no other (numba would count references to t at every call)."""
    v = float(t[TOKENS + me])
    mine = t[PAINTER + me]
    rank = 0
    on_gate = 0
    for q in range(t[N_PAINTERS]):
        idx = t[PAINTER + q]
        if idx > mine or (idx == mine and q < me):
            rank += 1
        if idx == 0:
            on_gate += 1
    awards = 4 if t[PLAYERS] >= 5 else 3
    last = True
    for k in range(t[N_SAKURA] - 1):
        if t[SCORED + k] == 0:
            last = False
    if (mine > 0 or on_gate == 1) and rank < awards:
        if rank == 0:
            v += 0.5 * (4.0 if last else 3.0)
        elif rank == 1:
            v += 1.0
        else:
            v += 0.5
    return v


@njit(cache=True)
def _better_direction(t, card, owner, garden_half, me, scratch):
    """Forward (True) or back, whichever leaves `me` better off right after this half-card. scratch agrees
    with t outside the round's fields (kernels.ROUND_RUNS); of those, the half's move and value read only
    the Emperor's space, the bump count, the trees scored, the positions and the tokens, so copying these
    (22 slots of the 52) makes scratch t for them."""
    best_forward = True
    best = -1e9
    for fwd in (True, False):
        scratch[EMPEROR] = t[EMPEROR]
        scratch[BUMPS] = t[BUMPS]
        for i in range(SCORED, TOKENS + MAX_PAINTERS):  # SCORED, PAINTER, TOKENS: one run of the vector
            scratch[i] = t[i]
        steps, mover, n, how = half_move(scratch, card, owner, garden_half, fwd)
        move(scratch, steps, mover, n, how)
        val = value(scratch, me)
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
    (a copy of the position looked ahead from), order is scratch for rankings. Returns whether a sakura
    scored (which ends the round: the cards still pending are discarded unresolved)."""
    k = resolve_round(t, me, forced, scratch)
    if k < 0:
        return False
    score_sakura(t, k, gained, order)
    return True


@njit(cache=True)
def resolve_round(t, me, forced, scratch):
    """simulate_round up to the sakura the Emperor reaches, unscored: its index (-1: none, the round
    resolved to its end). With two arrays rather than four: numba counts references to every array a
    kernel that calls others holds, at every call, and the expert's look-ahead calls this one most."""
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
                    fwd = _better_direction(t, card, owner, True, me, scratch)
            steps, mover, n, how = half_move(t, card, -1, True, fwd)
            move(t, steps, mover, n, how)
            t[HALF] = 1
        fwd = True
        a = t[PACT + card]
        if owner < players and P_PM1 <= a <= P_PM3:
            if forced >= 0:
                fwd = forced == 1
                forced = -1
            elif owner == me:
                fwd = _better_direction(t, card, owner, False, me, scratch)
        steps, mover, n, how = half_move(t, card, owner, False, fwd)
        move(t, steps, mover, n, how)
        t[PEND_POS] += 1
        t[HALF] = 0
        k = unscored_sakura_here(t)
        if k >= 0:
            return k
    return -1


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
            val = value(t, me)
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
            totals[i] += value(t, me)
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
