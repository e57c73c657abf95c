"""The Sakura `expert` agent (compiled): a learned evaluation of positions over the greedy's look-ahead of
one round, from the seat's observation only.

Why this shape: what a card is worth in Sakura shows only when the round resolves (order numbers decide
who moves first, bumps and the Emperor's stop at a tree depend on every card of the round), and the cards
that decide it are hidden. So, like the greedy (agents.py), the expert resolves the round for every card
it could play against `samples` guesses of the unseen cards, drawn from the cards it cannot place (its own
hand, the discard pile and the cards on the table are known; the other hands, the deck and the other
seats' choices of the round are not), with common draws for every candidate, fewer where a card is clearly
behind after `first` guesses and more where the choice is close (the race, select_values). Where the
greedy then counts tokens plus half the next tree's award, the expert scores the position reached with a
linear evaluation of each player's tokens still to come, w . features(player), fitted by `balance train`
(sim/app/train.py), and plays the card with the best mean chance of winning: the chance of beating each
other player, as if independently, the logistic of its predicted lead over that player with a spread of
`temp` tokens times the square root of the trees left (temp 0: the plain lead over the best other player;
the default 2 was chosen by the measurements in docs/design/notes.md).
A finished game counts its actual win share. A forward/back choice (the state dict's phase `choose`) reveals
nothing more to guess: both outcomes of the round are resolved once and scored the same way.

The features (FEATURES, the registry's EXPERT_FEATURES) speak of distances, ranks, awards and card
actions, never of card ids, so a model means the same on a variant deck or board: the trees left and
the Emperor's distance to the next one (R-10; near and middle distances scale with the painters); what
the seat would get if that tree scored now (R-13 ranks, 3/2/1, 4 at the last tree, a fourth 1 with 5-6
players) and whether it leads; its distance behind the Emperor and whether it stands right behind him
(an Emperor moving back bumps it, R-15); and what its hand does here: the mean forward reach of its
painter actions, how many of them would make it the closest painter, how many would bump it into the
Emperor (R-12, R-15, leapfrog and count by R-17), how far its garden actions move the Emperor and how
early its cards resolve. A seat's hand is known only to itself: the expert reads its own hand and puts
the mix of the cards it cannot place (their expected features) in every other player's place, so no
decision depends on what it may not observe (the no-peeking tests).

The measurements behind its settings, and the variants tried and left out, are in docs/design/notes.md.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng import rng_below
from sim.sakura.agent_kinds import AGENTS, EXPERT_FEATURES
from sim.sakura.agents import resolve_round
from sim.sakura.codes import GARDEN_ACTIONS, PAINTER_ACTIONS
from sim.sakura.kernels import (
    A_COURT,
    A_FORWARD,
    A_PLAY,
    COURT_PICKER,
    DECK_SIZE,
    DISCARD,
    DISCARD_N,
    EMPEROR,
    G_E1,
    G_E2,
    G_EM1,
    G_EPM1,
    GARDEN,
    HAND,
    HAND_N,
    HAND_SIZE,
    MAX_PAINTERS,
    N_ACTIONS_MAX,
    N_PAINTERS,
    N_SAKURA,
    P_1,
    P_3,
    P_COUNT,
    P_LEAP,
    P_PM1,
    P_PM3,
    PACT,
    PAINTER,
    PATH_LEN,
    PEND_N,
    PEND_OWNER,
    PEND_POS,
    PENDING,
    PH_CHOOSE,
    PH_OVER,
    PH_SELECT,
    PHASE,
    PLAYERS,
    SAKURA,
    SCORED,
    SELECTED,
    TO_MOVE,
    TOKENS,
    copy_round_fields,
    legal_actions,
    order_pending,
    rivals,
    score_sakura,
    winners,
)

# The parameter row of an expert seat: its numeric parameters in the registry's order (spec.py), then the
# model's weights (sim/core/agent_spec.py agent_row appends them).
_NUMERIC = [key for key, (kind, _default) in AGENTS["expert"].params.items() if kind is not str]
E_SAMPLES, E_TEMP, E_MOST, E_Z, E_FIRST = (_NUMERIC.index(key) for key in ("samples", "temp", "most", "z",
                                                                            "first"))
E_WEIGHTS = len(_NUMERIC)
RACE_BATCH = 16  # guesses added per candidate still in the race, between two looks

FEATURES = EXPERT_FEATURES  # declared in the registry entry, so validation reads them without kernels
N_FEATURES = len(FEATURES)
_INDEX = {name: i for i, name in enumerate(FEATURES)}
F_BIAS, F_TREES, F_LAST, F_DISTANCE = (_INDEX[n] for n in ("bias", "trees_left", "last_tree",
                                                           "emperor_to_tree"))
F_AWARD, F_AWARD_NEAR, F_AWARD_MID, F_AWARD_LAST = (_INDEX[n] for n in ("award", "award_near", "award_mid",
                                                                       "award_last"))
F_FIRST, F_FIRST_NEAR, F_FIRST_LAST = (_INDEX[n] for n in ("first", "first_near", "first_last"))
F_AHEAD, F_GAP, F_GAP_NEAR, F_GAP_LAST, F_ADJACENT, F_GATE = (_INDEX[n] for n in (
    "painters_ahead", "gap", "gap_near", "gap_last", "adjacent", "on_gate"))
F_ADVANCE, F_LEAD, F_LEAD_NEAR, F_LEAD_LAST, F_BUMP = (_INDEX[n] for n in (
    "hand_advance", "hand_lead", "hand_lead_near", "hand_lead_last", "hand_bump"))
F_EMPEROR, F_EMPEROR_FIRST, F_ORDER = (_INDEX[n] for n in ("hand_emperor", "hand_emperor_first",
                                                           "hand_order"))

# A hand's mix: the share of its cards with each garden action, with each painter action, then their mean
# order number over DECK_SIZE (the expected features of one card of it).
N_GARDEN = len(GARDEN_ACTIONS)
N_PACT = len(PAINTER_ACTIONS)
MIX_ORDER = N_GARDEN + N_PACT
MIX = MIX_ORDER + 1
# How far each garden action moves the Emperor (E+-1 counted forward: its owner picks; the painter
# actions move nobody's Emperor).
EMPEROR_MOVE = np.zeros(N_GARDEN, dtype=np.float64)
EMPEROR_MOVE[G_E1], EMPEROR_MOVE[G_E2], EMPEROR_MOVE[G_EM1], EMPEROR_MOVE[G_EPM1] = 1.0, 2.0, -1.0, 1.0


# ---- what a seat's hand holds ----------------------------------------------------------------------------
@njit(cache=True)
def add_card(s, card, mix):
    """Count one card into an unnormalised mix (its garden and painter actions, its order number)."""
    mix[s[GARDEN + card]] += 1.0
    mix[N_GARDEN + s[PACT + card]] += 1.0
    mix[MIX_ORDER] += card


@njit(cache=True)
def hand_mix(s, seat, skip, mix):
    """The mix of `seat`'s own hand without card `skip` (-1: none) into mix; zeros for an empty hand."""
    for j in range(MIX):
        mix[j] = 0.0
    n = 0
    for i in range(s[HAND_N + seat]):
        card = s[HAND + seat * HAND_SIZE + i]
        if card != skip:
            add_card(s, card, mix)
            n += 1
    normalise(mix, n)


@njit(cache=True)
def normalise(mix, n):
    """A mix of n cards' counts (n 0: zeros, left so) into shares and the mean order number over DECK_SIZE,
    in loops rather than slice operations: a slice is a view, which costs numba reference counts."""
    d = max(n, 1)
    for j in range(MIX_ORDER):
        mix[j] /= d
    mix[MIX_ORDER] /= d * DECK_SIZE


@njit(cache=True)
def unseen_cards(s, me, pool):
    """The cards `me` cannot place, by card number, into pool; returns how many. Known to it: its hand,
    the discard pile, its own card of the round, and once the round is revealed (phase choose) every card
    on the table. Nothing else of the state is read, so twins that differ in hidden cards agree."""
    return unseen_into(s, me, pool, np.zeros(DECK_SIZE + 1, dtype=np.int64))


@njit(cache=True)
def unseen_into(s, me, pool, known):
    """unseen_cards with its marks' scratch given (DECK_SIZE + 1 entries, any values)."""
    for card in range(DECK_SIZE + 1):
        known[card] = 0
    for i in range(s[HAND_N + me]):
        known[s[HAND + me * HAND_SIZE + i]] = 1
    for i in range(s[DISCARD_N]):
        known[s[DISCARD + i]] = 1
    for p in range(s[N_PAINTERS]):
        card = s[SELECTED + p]
        if card >= 0 and (p == me or s[PHASE] != PH_SELECT):
            known[card] = 1
    n = 0
    for card in range(1, DECK_SIZE + 1):  # every card written, the count moved past the unseen ones: no
        pool[n] = card  # jump on which cards are known, which mispredicted
        n += 1 - known[card]
    return n


@njit(cache=True)
def pool_mix(s, pool, n, mix):
    """The mix of the unseen cards: the expected features of a card in a hand the seat cannot see."""
    for j in range(MIX):
        mix[j] = 0.0
    for i in range(n):
        add_card(s, pool[i], mix)
    normalise(mix, n)


# ---- features ----------------------------------------------------------------------------------------
SUM_ROWS = MAX_PAINTERS  # the evaluation's feature columns, a painter's each
WALK = MAX_PAINTERS  # the longest move a feature asks about: 3 spaces, or one per painter between (count)


@njit(cache=True)
def emperor_move(mix):
    """How far a hand of this mix moves the Emperor, per card (E+-1 counted forward: its owner picks)."""
    move = 0.0
    for g in range(N_GARDEN):
        move += mix[g] * EMPEROR_MOVE[g]
    return move


@njit(cache=True)
def features(t, mixes, order, feats):
    """Every competing painter's features at position t (a round being played or just played, not over)
    into rows 0..rivals-1 of feats (the players, and the court painter under R-23); painter p's hand is
    mixes[p] (its own hand, or the unseen cards' mix). `order` is scratch for the ranking. The expert's
    loop calls features_into with its work arrays instead."""
    emoves = np.empty(MAX_PAINTERS, dtype=np.float64)
    for p in range(t[N_PAINTERS]):
        emoves[p] = emperor_move(mixes[p])
    occ = np.zeros(t[PATH_LEN] + 2, dtype=np.int64)
    columns = np.zeros((N_FEATURES, SUM_ROWS), dtype=np.float64)
    features_into(t, mixes, emoves, order, columns, occ, np.empty(WALK + 1, dtype=np.int64))
    for p in range(rivals(t)):
        for k in range(N_FEATURES):
            feats[p, k] = columns[k, p]


@njit(cache=True)
def features_into(t, mixes, emoves, order, feats, occ, dest):
    """features, into the columns of feats (N_FEATURES, SUM_ROWS): feats[k, p] is painter p's feature k,
    so that evaluate sums the painters side by side. emoves[p] = emperor_move(mixes[p]) is given; order
    (MAX_PAINTERS), occ (zeros, longer than the path; left zeros) and dest (WALK + 1) are scratch. It
    calls no other kernel (the ranking and the hand's walk are written out here): a numba kernel that
    calls another one it does not inline counts references to every array it holds, once a call, which
    showed in this loop."""
    players = t[PLAYERS]
    competing = rivals(t)
    painters = t[N_PAINTERS]
    emperor = t[EMPEROR]
    trees_left = 0
    tree = -1
    for k in range(t[N_SAKURA]):
        if t[SCORED + k] == 0:
            trees_left += 1
            if tree < 0:
                tree = t[SAKURA + k]  # trees score in path order: the first unscored one is next
    distance = tree - emperor if tree > emperor else 1
    last = 1.0 if trees_left == 1 else 0.0
    near = 1.0 if distance <= (painters + 1) // 2 else 0.0
    mid = 1.0 if near == 0.0 and distance <= (5 * painters + 3) // 4 else 0.0
    awards_given = 4 if players >= 5 else 3
    # every painter by position, highest first, painter order on a tie (kernels.ranking's order, the gate's
    # painters too): a painter's place in it gives its rank and what lies ahead of it
    ge = 0  # the painters on or past the Emperor's space
    for q in range(painters):
        idx = t[PAINTER + q]
        occ[idx] += 1
        ge += idx >= emperor
        i = q
        while i > 0 and t[PAINTER + order[i - 1]] < idx:
            order[i] = order[i - 1]
            i -= 1
        order[i] = q
    top = t[PAINTER + order[0]]
    second = t[PAINTER + order[1]] if painters > 1 else 0
    ahead = 0  # the first place of the painters on this one's space: how many stand ahead of it
    for r in range(MAX_PAINTERS):  # (a fixed count: a loop that may run no time made numba count
        if r < painters:  # references to the arrays it last uses)
            p = order[r]
            mine = t[PAINTER + p]
            if r > 0 and t[PAINTER + order[r - 1]] != mine:
                ahead = r
            if p < competing:  # (not a `continue`: a second way out of the loop, as above)
                tied = r - ahead  # painters before p in painter order on its space (only the gate is ever
                # shared)
                next_ahead = t[PAINTER + order[ahead - 1]] if ahead > 0 else -1
                closest_other = top if r > 0 else second
                between = ahead - min(ge, ahead)  # those ahead short of the Emperor
                # R-13 as kernels.ranking orders them: path painters by index, highest first (painter order on
                # a tie), then a painter alone on the gate (painters sharing it get no rank)
                award = 0.0
                first = 0.0
                rank = ahead + tied
                if (mine > 0 or occ[0] == 1) and rank < awards_given:
                    if rank == 0:
                        award = 4.0 if last == 1.0 else 3.0
                        first = 1.0
                    else:
                        award = 2.0 if rank == 1 else 1.0
                gap = emperor - mine
                feats[F_BIAS, p] = 1.0
                feats[F_TREES, p] = trees_left
                feats[F_LAST, p] = last
                feats[F_DISTANCE, p] = distance
                feats[F_AWARD, p] = award
                feats[F_AWARD_NEAR, p] = award * near
                feats[F_AWARD_MID, p] = award * mid
                feats[F_AWARD_LAST, p] = award * last
                feats[F_FIRST_LAST, p] = first * last
                feats[F_GAP_LAST, p] = gap * last
                feats[F_FIRST, p] = first
                feats[F_FIRST_NEAR, p] = first * near
                feats[F_AHEAD, p] = ahead
                feats[F_GAP, p] = gap
                feats[F_GAP_NEAR, p] = gap * near
                feats[F_ADJACENT, p] = 1.0 if gap == 1 else 0.0
                feats[F_GATE, p] = 1.0 if mine == 0 else 0.0
                # What p's hand (its mix, mixes[p]) does from here: its mean forward reach, its share of
                # cards that would make it the closest painter, its share that would bump it into the
                # Emperor. Each painter action's destination is the rules' own (kernels.forward_target,
                # leapfrog_target, painters_between; ), read off one walk: dest[m] for m = 1..need,
                # where a move of m empty spaces forward ends, -1 where it reaches the Emperor first (the
                # walk never meets p, which stands behind it). A forward-or-back card that would bump counts
                # as no move (its owner would go back rather than walk into the Emperor). Which moves bump is
                # the same under both bump_from readings (R-15, R-21: only where the bumped painter lands
                # differs), and a bump counts here without its landing space, so the features mean the same
                # under both.
                need = 3
                if mixes[p, N_GARDEN + P_COUNT] != 0.0 and between > need:
                    need = between
                pos = mine  # the last empty space counted, -1 once the walk has reached the Emperor
                for m in range(1, need + 1):
                    if pos >= 0:
                        pos += 1
                        while pos != emperor and pos < occ.shape[0] and occ[pos] > 0:
                            pos += 1  # occupied spaces are skipped, not counted
                        if pos == emperor:
                            pos = -1
                    dest[m] = pos
                leap = mine  # the leapfrog's destination (no painter ahead: no move)
                if next_ahead >= 0 and mixes[p, N_GARDEN + P_LEAP] != 0.0:
                    target = next_ahead + 1
                    while target < occ.shape[0] and occ[target] > 0:
                        target += 1
                    leap = -1 if target == emperor else target
                count = mine if between == 0 else dest[between]
                advance = 0.0
                lead = 0.0
                bumped = 0.0
                for a in range(N_PACT):
                    share = mixes[p, N_GARDEN + a]
                    if a <= P_3:
                        dest_a = dest[a - P_1 + 1]
                    elif a <= P_PM3:
                        dest_a = dest[a - P_PM1 + 1]
                        if dest_a < 0:
                            dest_a = mine
                    elif a == P_LEAP:
                        dest_a = leap
                    else:
                        dest_a = count
                    # sums without a branch on the data (adding +0.0 leaves each sum as it was: they never
                    # hold -0.0), so a card share of 0 and a bump cost no mispredicted jump
                    bump = dest_a < 0
                    bumped += share if bump else 0.0
                    advance += 0.0 if bump else share * (dest_a - mine)
                    lead += share if dest_a > closest_other else 0.0
                feats[F_ADVANCE, p] = advance
                feats[F_LEAD, p] = lead
                feats[F_LEAD_NEAR, p] = lead * near
                feats[F_LEAD_LAST, p] = lead * last
                feats[F_BUMP, p] = bumped
                feats[F_EMPEROR, p] = emoves[p]
                feats[F_EMPEROR_FIRST, p] = emoves[p] * first
                feats[F_ORDER, p] = mixes[p, MIX_ORDER]
    for q in range(painters):
        occ[t[PAINTER + q]] -= 1


# ---- the evaluation ------------------------------------------------------------------------------------
@njit(cache=True)
def final_value(t, me, temp, win):
    """A finished game's worth to `me`: its win share (R-14, the court painter's win counted under R-23;
    temp <= 0: its token lead over the best other competing painter, half a token more when it wins)."""
    winners(t, win)
    if temp > 0.0:
        total = 0
        for p in range(t[N_PAINTERS]):  # the court painter is marked only when it can win
            total += win[p]
        return win[me] / max(total, 1)
    best_other = -1e18
    for p in range(rivals(t)):
        if p != me and t[TOKENS + p] > best_other:
            best_other = t[TOKENS + p]
    return t[TOKENS + me] - best_other + 0.5 * win[me]


#: The evaluation's scratch arrays, made once a decision (new_work): the ranking, the feature rows, the
#: predicted finals, the winners' marks, the path's occupancy (zeros between calls), the walk's
#: destinations, and each painter's emperor_move of its mix (the caller keeps it in step with mixes).
Work = namedtuple("Work", ["order", "feats", "finals", "win", "occ", "dest", "emoves"])


@njit(cache=True)
def new_work(s):
    """Scratch for evaluate at positions of s's game (its path length)."""
    return Work(np.empty(MAX_PAINTERS, dtype=np.int64),
                np.zeros((N_FEATURES, SUM_ROWS), dtype=np.float64),
                np.zeros(SUM_ROWS, dtype=np.float64), np.zeros(MAX_PAINTERS, dtype=np.int64),
                np.zeros(s[PATH_LEN] + 2, dtype=np.int64), np.empty(WALK + 1, dtype=np.int64),
                np.zeros(MAX_PAINTERS, dtype=np.float64))


@njit(cache=True)
def evaluate(t, me, mixes, weights, temp, w):
    """What position t is worth to `me`: its chance of ending with more tokens than every other competing
    painter (the players; under R-23 the court painter too, its tokens predicted by the same model with
    the unseen cards' mix as its hand), each beaten (as if independently) with the logistic chance of its
    predicted lead over it, a spread of `temp` tokens times the root of the trees left (temp <= 0: the
    predicted lead over the best other). A finished game: final_value. w: the Work scratch (new_work),
    w.emoves in step with mixes."""
    if t[PHASE] == PH_OVER:
        return final_value(t, me, temp, w.win)
    features_into(t, mixes, w.emoves, w.order, w.feats, w.occ, w.dest)
    return win_chance(t, me, w.feats, w.finals, weights, temp)


@njit(cache=True)
def win_chance(t, me, feats, finals, weights, temp):
    """evaluate's last step, from the feature rows of t (features_into): each competing painter's predicted
    final tokens into finals, then `me`'s chance of beating them all (temp <= 0: its predicted lead)."""
    players = rivals(t)
    # the painters' sums side by side, each in feature order: four, or with five or six painters six (the
    # columns past the painters' are scratch, their sums unused, and the slots after TOKENS read for them
    # any numbers)
    a0, a1, a2, a3 = float(t[TOKENS]), float(t[TOKENS + 1]), float(t[TOKENS + 2]), float(t[TOKENS + 3])
    a4, a5 = float(t[TOKENS + 4]), float(t[TOKENS + 5])
    wide = players > 4
    for k in range(N_FEATURES):
        weight = weights[k]
        a0 += weight * feats[k, 0]
        a1 += weight * feats[k, 1]
        a2 += weight * feats[k, 2]
        a3 += weight * feats[k, 3]
        if wide:
            a4 += weight * feats[k, 4]
            a5 += weight * feats[k, 5]
    finals[0], finals[1], finals[2], finals[3] = a0, a1, a2, a3
    finals[4], finals[5] = a4, a5
    sums = (a0, a1, a2, a3, a4, a5)  # read from here on, so finals' last use is above, on every path
    mine = sums[me]
    if temp <= 0.0:
        best_other = -1e18
        for p in range(players):
            if p != me and sums[p] > best_other:
                best_other = sums[p]
        return mine - best_other
    spread = temp * np.sqrt(feats[F_TREES, me])
    chance = 1.0
    for p in range(players):
        if p != me:
            chance *= 1.0 / (1.0 + np.exp(-(mine - sums[p]) / spread))
    return chance


@njit(cache=True)
def guess_cards(s, me, court_pick, pool, n_pool, rng, guess):
    """One guess of every other painter's card of the round (the court painter's: the deck's top), drawn
    without replacement from the unseen cards into guess (-1: its own card, or the court card it is
    choosing now); pool is left a permutation of itself."""
    taken = 0
    for p in range(s[N_PAINTERS]):
        guess[p] = -1
        if p == me or (p == s[PLAYERS] and court_pick) or taken == n_pool:
            continue
        j = rng_below(rng, n_pool - taken)
        guess[p] = pool[j]
        pool[j] = pool[n_pool - taken - 1]
        pool[n_pool - taken - 1] = guess[p]
        taken += 1


@njit(cache=True)
def race(per, totals, alive, n, done, z):
    """Drop from `alive` every candidate whose mean deficit to the leader (the best total alive) over the
    `done` common guesses so far exceeds z standard errors of that paired difference; returns how many
    besides the leader stay. Common guesses make the difference far less noisy than either value."""
    lead = -1
    for i in range(n):
        if alive[i] and (lead < 0 or totals[i] > totals[lead]):
            lead = i
    left = 0
    for i in range(n):
        if not alive[i] or i == lead:
            continue
        mean = 0.0
        square = 0.0
        for k in range(done):
            d = per[lead, k] - per[i, k]
            mean += d
            square += d * d
        mean /= done
        variance = max(square / done - mean * mean, 0.0) / max(done - 1, 1)
        if mean > z * np.sqrt(variance) + 1e-12:
            alive[i] = False
        else:
            left += 1
    return left


#: expert_decide's scratch, made once a decision (new_expert_work), or once for many decisions of one
#: game by a caller that decides for several seats (search.py's inner expert): the legal actions, the
#: unseen cards and their marks, the painters' mixes, the evaluation's Work, each card's total, the mix and
#: Emperor move of the hand it keeps, the look-ahead vector, the round as it stands before a card's turn
#: (select_values) and a scratch vector (three copies of a position of the game: a look-ahead reads the
#: round's fields, which it copies in, and the game's fixed ones), the tokens gained at a tree, the guess,
#: each card's value at each guess (`most` columns) and the race's marks.
ExpertWork = namedtuple("ExpertWork", ["buf", "pool", "known", "mixes", "w", "values", "mine", "mine_moves",
                                       "t", "ahead", "scratch", "gained", "guess", "per", "alive"])


@njit(cache=True)
def new_expert_work(s, most):
    """Scratch for expert_decide at positions of s's game, with up to `most` guesses a card."""
    rows = N_ACTIONS_MAX
    f64 = np.float64
    return ExpertWork(np.empty(rows, dtype=np.int64), np.empty(DECK_SIZE, dtype=np.int64),
                      np.zeros(DECK_SIZE + 1, dtype=np.int64), np.zeros((MAX_PAINTERS, MIX), dtype=f64),
                      new_work(s), np.zeros(rows, dtype=f64), np.zeros((rows, MIX), dtype=f64),
                      np.zeros(rows, dtype=f64), s.copy(), s.copy(), s.copy(),
                      np.zeros(MAX_PAINTERS, dtype=np.int64),
                      np.empty(MAX_PAINTERS, dtype=np.int64), np.zeros((rows, max(most, 1)), dtype=f64),
                      np.ones(rows, dtype=np.bool_))


@njit(cache=True)
def expert_action(s, rng, params):
    """The expert's action at s for the seat to move. `params` is the seat's parameter row (E_SAMPLES,
    E_TEMP, E_MOST, E_Z, then the weights from E_WEIGHTS)."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    if legal_actions(s, buf) == 1:
        return buf[0]
    most = max(int(params[E_MOST]), max(int(params[E_SAMPLES]), 1))
    return expert_decide(s, rng, params, new_expert_work(s, most))


@njit(cache=True)
def expert_decide(s, rng, params, xw):
    """expert_action with its scratch given (xw: new_expert_work of a position of s's game, with at least
    the row's `most` columns): the same action, without making the arrays again at every decision."""
    buf = xw.buf
    n = legal_actions(s, buf)
    if n == 1:
        return buf[0]
    me = s[TO_MOVE]
    pool = xw.pool
    n_pool = unseen_into(s, me, pool, xw.known)
    mixes = xw.mixes
    w = xw.w
    pool_mix(s, pool, n_pool, mixes[0])  # every other painter's hand, as the expert can see it
    w.emoves[0] = emperor_move(mixes[0])
    for p in range(1, s[N_PAINTERS]):  # (index loops: a row or a slice is a view, which numba counts)
        for j in range(MIX):
            mixes[p, j] = mixes[0, j]
        w.emoves[p] = w.emoves[0]
    values = xw.values
    for i in range(n):
        values[i] = 0.0
    t = xw.t  # agrees with s but in the round's fields (the game's): copy_round_fields(t, s) makes it s
    if s[PHASE] == PH_CHOOSE:
        # every card of the round is on the table: the rest of it resolves the same whatever is hidden
        hand_mix(s, me, -1, mixes[me])
        w.emoves[me] = emperor_move(mixes[me])
        weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
        temp = params[E_TEMP]
        scratch, gained = xw.scratch, xw.gained
        order, feats, finals, win, occ, dest, emoves = w
        for i in range(n):
            copy_round_fields(t, s)
            tree = resolve_round(t, me, 1 if buf[i] == A_FORWARD else 0, scratch)  # simulate_round
            if tree >= 0:
                score_sakura(t, tree, gained, order)
            if t[PHASE] == PH_OVER:  # evaluate(t, me, mixes, weights, temp, w), its arrays taken once
                values[i] = final_value(t, me, temp, win)
            else:
                features_into(t, mixes, emoves, order, feats, occ, dest)
                values[i] = win_chance(t, me, feats, finals, weights, temp)
    else:
        select_values(s, rng, params, n, n_pool, xw)
    best = 0
    for i in range(1, n):
        if values[i] > values[best] + 1e-12:
            best = i  # ties: the lowest action code, so equal values need no draw
    return buf[best]


@njit(cache=True)
def select_values(s, rng, params, n, n_pool, xw):
    """Each of the n cards' (xw.buf) total value over its common guesses (of the n_pool unseen cards in
    xw.pool) into xw.values (-inf: out of the race): `samples` guesses for every card, then RACE_BATCH more
    at a time for the cards still within `z` standard errors of the best, up to `most`. With 0 < `first` <
    `samples` the race looks first after `first` guesses (then every RACE_BATCH): a card already clearly
    behind gets no more, and a choice already clear stops there. xw.mixes and xw.w.emoves hold the pool's
    mix.

    The round of a guess resolves the other painters' cards by order number whatever the card played, so
    the cards below each candidate's (the hand, so the candidates, ascending) are resolved once, into
    xw.ahead, and each candidate's look-ahead starts from there: the same positions as resolving the
    whole round for each. Every array is taken out of xw once, before the loops, and the loop calls only
    kernels that call no other (evaluate's steps written out) but the round's resolution, so that numba
    counts few references in it."""
    me = s[TO_MOVE]
    players = s[PLAYERS]
    samples = max(int(params[E_SAMPLES]), 1)
    temp = params[E_TEMP]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    court_pick = s[COURT_PICKER] >= 0  # tactical variant: it picks the court painter's card now
    base = A_COURT if court_pick else A_PLAY
    slot = players if court_pick else me  # whose card of the round it picks
    buf, pool, mixes, values, mine, mine_moves = xw.buf, xw.pool, xw.mixes, xw.values, xw.mine, xw.mine_moves
    t, ahead, scratch, gained, guess = xw.t, xw.ahead, xw.scratch, xw.gained, xw.guess
    per, alive = xw.per, xw.alive
    order, feats, finals, win, occ, dest, emoves = xw.w
    for i in range(n):
        hand_mix(s, me, buf[i] - base, mine[i])  # what it keeps after playing the card
        mine_moves[i] = emperor_move(mine[i])
        alive[i] = True
    most = max(int(params[E_MOST]), samples)
    first = int(params[E_FIRST])
    opening = first if 0 < first < samples else samples  # guesses before the race's first look
    done = 0
    while done < most:
        upto = min(done + (opening if done == 0 else RACE_BATCH), most)
        for k in range(done, upto):
            guess_cards(s, me, court_pick, pool, n_pool, rng, guess)  # the same for every candidate
            copy_round_fields(ahead, s)
            for p in range(ahead[N_PAINTERS]):
                if guess[p] >= 0:
                    ahead[SELECTED + p] = guess[p]
            order_pending(ahead)  # the other painters' cards (its own is still to choose: -1)
            others = ahead[PEND_N]
            over = False  # a sakura scored among them: the round ended before the later cards
            last = n - 1  # the last card still in the race resolves the cards below it with its own
            while last > 0 and not alive[last]:
                last -= 1
            for i in range(n):
                card = buf[i] - base
                below = ahead[PEND_POS]  # where this card goes among the pending ones
                while not over and below < others and ahead[PENDING + below] < card:
                    below += 1
                if below > ahead[PEND_POS] and i < last:  # the other cards below it resolve now, once
                    ahead[PEND_N] = below
                    tree = resolve_round(ahead, me, -1, scratch)
                    over = tree >= 0
                    if over:
                        score_sakura(ahead, tree, gained, order)
                    else:
                        ahead[PEND_N] = others
                if not alive[i]:
                    continue
                copy_round_fields(t, ahead)
                t[SELECTED + slot] = card
                if not over:  # its card joins the pending ones in its place, as order_pending puts it
                    for j in range(others, below, -1):
                        t[PENDING + j] = t[PENDING + j - 1]
                        t[PEND_OWNER + j] = t[PEND_OWNER + j - 1]
                    t[PENDING + below] = card
                    t[PEND_OWNER + below] = slot
                    t[PEND_N] = others + 1
                    tree = resolve_round(t, me, -1, scratch)  # R-12..R-18, no card drawn
                    if tree >= 0:
                        score_sakura(t, tree, gained, order)
                for j in range(MIX):
                    mixes[me, j] = mine[i, j]
                emoves[me] = mine_moves[i]
                if t[PHASE] == PH_OVER:  # evaluate(t, me, mixes, weights, temp, xw.w), step by step
                    per[i, k] = final_value(t, me, temp, win)
                else:
                    features_into(t, mixes, emoves, order, feats, occ, dest)
                    per[i, k] = win_chance(t, me, feats, finals, weights, temp)
                values[i] += per[i, k]
        done = upto
        if done < most and race(per, values, alive, n, done, params[E_Z]) == 0:
            done = most  # the race is decided (not a `break`, which would make numba count references)
    for i in range(n):
        if not alive[i]:
            values[i] = -np.inf  # out of the race: its total counts fewer guesses
