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
from sim.sakura.agents import simulate_round
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
    ranking,
    rivals,
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
    mix[:] = 0.0
    n = 0
    for i in range(s[HAND_N + seat]):
        card = s[HAND + seat * HAND_SIZE + i]
        if card != skip:
            add_card(s, card, mix)
            n += 1
    if n > 0:
        mix[:MIX_ORDER] /= n
        mix[MIX_ORDER] /= n * DECK_SIZE


@njit(cache=True)
def unseen_cards(s, me, pool):
    """The cards `me` cannot place, by card number, into pool; returns how many. Known to it: its hand,
    the discard pile, its own card of the round, and once the round is revealed (phase choose) every card
    on the table. Nothing else of the state is read, so twins that differ in hidden cards agree."""
    known = np.zeros(DECK_SIZE + 1, dtype=np.int64)
    for i in range(s[HAND_N + me]):
        known[s[HAND + me * HAND_SIZE + i]] = 1
    for i in range(s[DISCARD_N]):
        known[s[DISCARD + i]] = 1
    for p in range(s[N_PAINTERS]):
        card = s[SELECTED + p]
        if card >= 0 and (p == me or s[PHASE] != PH_SELECT):
            known[card] = 1
    n = 0
    for card in range(1, DECK_SIZE + 1):
        if known[card] == 0:
            pool[n] = card
            n += 1
    return n


@njit(cache=True)
def pool_mix(s, pool, n, mix):
    """The mix of the unseen cards: the expected features of a card in a hand the seat cannot see."""
    mix[:] = 0.0
    for i in range(n):
        add_card(s, pool[i], mix)
    if n > 0:
        mix[:MIX_ORDER] /= n
        mix[MIX_ORDER] /= n * DECK_SIZE


# ---- features ----------------------------------------------------------------------------------------
SUM_ROWS = 8  # feature rows of the evaluation: MAX_PAINTERS, rounded up to its sums' four at a time
WALK = MAX_PAINTERS  # the longest move a feature asks about: 3 spaces, or one per painter between (count)


@njit(cache=True)
def emperor_move(mix):
    """How far a hand of this mix moves the Emperor, per card (E+-1 counted forward: its owner picks)."""
    move = 0.0
    for g in range(N_GARDEN):
        move += mix[g] * EMPEROR_MOVE[g]
    return move


@njit(cache=True)
def _walk(t, p, n, occ, dest):
    """dest[m] for m = 1..n: where painter p's move of m empty spaces forward ends, -1 where it reaches the
    Emperor first: kernels.forward_target for every m in one walk (occ[i]: the painters on path index i;
    the walk never meets p itself, which stands behind it)."""
    pos = t[PAINTER + p]
    emperor = t[EMPEROR]
    m = 0
    while m < n:
        pos += 1
        if pos == emperor:
            break
        if pos < occ.shape[0] and occ[pos] > 0:
            continue
        m += 1
        dest[m] = pos
    for r in range(m + 1, n + 1):
        dest[r] = -1


@njit(cache=True)
def _hand(t, p, mixes, occ, dest, closest_other, next_ahead, between):
    """What painter p's hand (its mix, mixes[p]) does from t: its mean forward reach, its share of cards that
    would make it the closest painter, its share that would bump it into the Emperor. Each painter
    action's destination is the rules' own (kernels.forward_target, leapfrog_target, painters_between;
    R-15, R-17), read off one walk: a forward-or-back card that would bump counts as no move (its owner
    would go back rather than walk into the Emperor). Which moves bump is the same under both bump_from
    readings (R-15, R-21: only where the bumped painter lands differs), and a bump counts here without its
    landing space, so the features mean the same under both. next_ahead: the nearest painter's index ahead
    of p, or -1; between: the painters strictly between p and the Emperor."""
    mine = t[PAINTER + p]
    need = 3
    if mixes[p, N_GARDEN + P_COUNT] != 0.0 and between > need:
        need = between
    _walk(t, p, need, occ, dest)
    advance = 0.0
    lead = 0.0
    bumped = 0.0
    for a in range(N_PACT):
        share = mixes[p, N_GARDEN + a]
        if share == 0.0:
            continue
        if a <= P_3:
            dest_a = dest[a - P_1 + 1]
        elif a <= P_PM3:
            dest_a = dest[a - P_PM1 + 1]
            if dest_a < 0:
                dest_a = mine
        elif a == P_LEAP:
            dest_a = mine
            if next_ahead >= 0:
                target = next_ahead + 1
                while target < occ.shape[0] and occ[target] > 0:
                    target += 1
                dest_a = -1 if target == t[EMPEROR] else target
        else:
            dest_a = mine if between == 0 else dest[between]
        if dest_a < 0:
            bumped += share
        else:
            advance += share * (dest_a - mine)
            if dest_a > closest_other:
                lead += share
    return advance, lead, bumped


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
    features_into(t, mixes, emoves, order, feats, occ, np.empty(WALK + 1, dtype=np.int64))


@njit(cache=True)
def features_into(t, mixes, emoves, order, feats, occ, dest):
    """features, with emoves[p] = emperor_move(mixes[p]) given, occ (zeros, longer than the path; left
    zeros) and dest (WALK + 1) as scratch. Rows are indexed in place, not taken as views: a view costs
    reference counting, which showed in this loop."""
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
    ranked = ranking(t, order)
    awards_given = 4 if players >= 5 else 3
    for q in range(painters):
        occ[t[PAINTER + q]] += 1
    for p in range(competing):
        mine = t[PAINTER + p]
        award = 0.0
        first = 0.0
        for r in range(min(ranked, awards_given)):
            if order[r] == p:
                if r == 0:
                    award = 4.0 if last == 1.0 else 3.0
                    first = 1.0
                else:
                    award = 2.0 if r == 1 else 1.0
        ahead = 0
        closest_other = 0
        next_ahead = -1
        between = 0
        for q in range(painters):
            idx = t[PAINTER + q]
            if idx > mine:
                ahead += 1
            if q != p:
                if idx > closest_other:
                    closest_other = idx
                if idx > mine:
                    if next_ahead < 0 or idx < next_ahead:
                        next_ahead = idx
                    if idx < emperor:
                        between += 1
        gap = emperor - mine
        feats[p, F_BIAS] = 1.0
        feats[p, F_TREES] = trees_left
        feats[p, F_LAST] = last
        feats[p, F_DISTANCE] = distance
        feats[p, F_AWARD] = award
        feats[p, F_AWARD_NEAR] = award * near
        feats[p, F_AWARD_MID] = award * mid
        feats[p, F_AWARD_LAST] = award * last
        feats[p, F_FIRST_LAST] = first * last
        feats[p, F_GAP_LAST] = gap * last
        feats[p, F_FIRST] = first
        feats[p, F_FIRST_NEAR] = first * near
        feats[p, F_AHEAD] = ahead
        feats[p, F_GAP] = gap
        feats[p, F_GAP_NEAR] = gap * near
        feats[p, F_ADJACENT] = 1.0 if gap == 1 else 0.0
        feats[p, F_GATE] = 1.0 if mine == 0 else 0.0
        advance, lead, bumped = _hand(t, p, mixes, occ, dest, closest_other, next_ahead, between)
        feats[p, F_ADVANCE] = advance
        feats[p, F_LEAD] = lead
        feats[p, F_LEAD_NEAR] = lead * near
        feats[p, F_LEAD_LAST] = lead * last
        feats[p, F_BUMP] = bumped
        feats[p, F_EMPEROR] = emoves[p]
        feats[p, F_EMPEROR_FIRST] = emoves[p] * first
        feats[p, F_ORDER] = mixes[p, MIX_ORDER]
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
                np.zeros((SUM_ROWS, N_FEATURES), dtype=np.float64),
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
    players = rivals(t)
    if t[PHASE] == PH_OVER:
        return final_value(t, me, temp, w.win)
    feats = w.feats
    finals = w.finals
    features_into(t, mixes, w.emoves, w.order, feats, w.occ, w.dest)
    for p in range(0, players, 4):  # four sums side by side, each in feature order; rows past the
        # players' (SUM_ROWS) are scratch, their sums unused
        a0 = float(t[TOKENS + p])
        a1 = float(t[TOKENS + p + 1])
        a2 = float(t[TOKENS + p + 2])
        a3 = float(t[TOKENS + p + 3])
        for k in range(N_FEATURES):
            weight = weights[k]
            a0 += weight * feats[p, k]
            a1 += weight * feats[p + 1, k]
            a2 += weight * feats[p + 2, k]
            a3 += weight * feats[p + 3, k]
        finals[p], finals[p + 1], finals[p + 2], finals[p + 3] = a0, a1, a2, a3
    if temp <= 0.0:
        best_other = -1e18
        for p in range(players):
            if p != me and finals[p] > best_other:
                best_other = finals[p]
        return finals[me] - best_other
    spread = temp * np.sqrt(feats[me, F_TREES])
    chance = 1.0
    for p in range(players):
        if p != me:
            chance *= 1.0 / (1.0 + np.exp(-(finals[me] - finals[p]) / spread))
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


@njit(cache=True)
def expert_action(s, rng, params):
    """The expert's action at s for the seat to move. `params` is the seat's parameter row (E_SAMPLES,
    E_TEMP, E_MOST, E_Z, then the weights from E_WEIGHTS)."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    n = legal_actions(s, buf)
    if n == 1:
        return buf[0]
    me = s[TO_MOVE]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    n_pool = unseen_cards(s, me, pool)
    mixes = np.zeros((MAX_PAINTERS, MIX), dtype=np.float64)
    pool_mix(s, pool, n_pool, mixes[0])  # every other painter's hand, as the expert can see it
    w = new_work(s)
    w.emoves[0] = emperor_move(mixes[0])
    for p in range(1, s[N_PAINTERS]):
        mixes[p] = mixes[0]
        w.emoves[p] = w.emoves[0]
    values = np.zeros(n, dtype=np.float64)
    if s[PHASE] == PH_CHOOSE:
        # every card of the round is on the table: the rest of it resolves the same whatever is hidden
        hand_mix(s, me, -1, mixes[me])
        w.emoves[me] = emperor_move(mixes[me])
        t = s.copy()  # a look-ahead writes only the round's fields: copy_round_fields(t, s) undoes it
        scratch = s.copy()
        gained = np.zeros(MAX_PAINTERS, dtype=np.int64)
        for i in range(n):
            copy_round_fields(t, s)
            simulate_round(t, me, 1 if buf[i] == A_FORWARD else 0, scratch, w.order, gained)
            values[i] = evaluate(t, me, mixes, weights, params[E_TEMP], w)
    else:
        select_values(s, rng, params, buf, n, pool, n_pool, mixes, w, values)
    best = 0
    for i in range(1, n):
        if values[i] > values[best] + 1e-12:
            best = i  # ties: the lowest action code, so equal values need no draw
    return buf[best]


@njit(cache=True)
def select_values(s, rng, params, buf, n, pool, n_pool, mixes, w, values):
    """Each card's total value over its common guesses into values (-inf: out of the race): `samples`
    guesses for every card, then RACE_BATCH more at a time for the cards still within `z` standard errors
    of the best, up to `most`. With 0 < `first` < `samples` the race looks first after `first` guesses
    (then every RACE_BATCH): a card already clearly behind gets no more, and a choice already clear
    stops there."""
    me = s[TO_MOVE]
    players = s[PLAYERS]
    samples = max(int(params[E_SAMPLES]), 1)
    temp = params[E_TEMP]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    court_pick = s[COURT_PICKER] >= 0  # tactical variant: it picks the court painter's card now
    base = A_COURT if court_pick else A_PLAY
    mine = np.zeros((N_ACTIONS_MAX, MIX), dtype=np.float64)
    mine_moves = np.zeros(N_ACTIONS_MAX, dtype=np.float64)
    for i in range(n):
        hand_mix(s, me, buf[i] - base, mine[i])  # what it keeps after playing the card
        mine_moves[i] = emperor_move(mine[i])
    t = s.copy()  # a look-ahead writes only the round's fields: copy_round_fields(t, s) undoes it
    scratch = s.copy()
    gained = np.zeros(MAX_PAINTERS, dtype=np.int64)
    guess = np.empty(MAX_PAINTERS, dtype=np.int64)
    most = max(int(params[E_MOST]), samples)
    first = int(params[E_FIRST])
    opening = first if 0 < first < samples else samples  # guesses before the race's first look
    per = np.zeros((n, most), dtype=np.float64)  # each candidate's value at each guess
    alive = np.ones(n, dtype=np.bool_)
    done = 0
    while done < most:
        upto = min(done + (opening if done == 0 else RACE_BATCH), most)
        for k in range(done, upto):
            guess_cards(s, me, court_pick, pool, n_pool, rng, guess)  # the same for every candidate
            for i in range(n):
                if not alive[i]:
                    continue
                copy_round_fields(t, s)
                for p in range(t[N_PAINTERS]):
                    if guess[p] >= 0:
                        t[SELECTED + p] = guess[p]
                t[SELECTED + (players if court_pick else me)] = buf[i] - base
                order_pending(t)
                simulate_round(t, me, -1, scratch, w.order, gained)  # R-12..R-18, no card drawn
                for j in range(MIX):
                    mixes[me, j] = mine[i, j]
                w.emoves[me] = mine_moves[i]
                per[i, k] = evaluate(t, me, mixes, weights, temp, w)
                values[i] += per[i, k]
        done = upto
        if done < most and race(per, values, alive, n, done, params[E_Z]) == 0:
            break
    for i in range(n):
        if not alive[i]:
            values[i] = -np.inf  # out of the race: its total counts fewer guesses
