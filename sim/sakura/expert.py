"""The Sakura `expert` agent (compiled): a learned evaluation of positions over the greedy's look-ahead of
one round, from the seat's observation only.

Why this shape: what a card is worth in Sakura shows only when the round resolves (order numbers decide
who moves first, bumps and the Emperor's stop at a tree depend on every card of the round), and the cards
that decide it are hidden. So, like the greedy (agents.py), the expert resolves the round for every card
it could play against `samples` guesses of the unseen cards, drawn from the cards it cannot place (its
own hand, the discard pile and the cards on the table are known; the other hands, the deck and the other
seats' choices of the round are not), with common draws for every candidate and more of them where the
choice is close (the race, below). Where the greedy then counts tokens plus half the next tree's award,
the expert scores the position reached with a linear evaluation of each player's tokens still to come,
w . features(player), fitted by `balance train` (sim/app/train.py), and plays the card with the best mean
chance of winning: the chance of beating each other player, as if independently, the logistic of its
predicted lead over that player with a spread of `temp` tokens times the square root of the trees left
(temp 0: the plain lead over the best other player; the default 2 was chosen by the measurements below).
A finished game counts its actual win share. A forward/back choice (API.md phase `choose`) reveals
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

The shipped models (sim/sakura/models/) are fitted on self-play of `mcts:iters=300` (`balance train
sakura --agents mcts:iters=300 --rounds 1`): the evaluation is to predict tokens at tables of searching
players, who hit a leader harder than greedy players do; fitted on greedy and expert self-play instead, it
won less against mcts in the same games (22% against 25% of 240).

The spread `temp`, one expert against three `mcts:iters=500`, 4 players, seats rotated, 400 games each
on the same seeds: 0.5 won 32.7%, 1 33.3%, 2 35.7%, 3 35.5%, 4 34.0% (each interval about +-4.6 pp);
one temp-2 expert among three temp-1 ones won 26.0% [24.1, 27.9] of 2,000 (fair 25%).

The race (`most`, `z`): a card's worth is a mean over guesses, and most choices are not close. After the
first `samples` guesses every card whose mean deficit to the best, paired over the common guesses, is more
than `z` standard errors leaves the race (race()), and the cards still in it get 16 more guesses each,
up to `most`: the guesses go where the choice is close. The guesses are drawn in the same order either
way, so a race that drops nobody plays exactly as `samples=most` (a test). One seat against three
experts without it (64 guesses), 4 players, seats rotated, 10,000 games, seed 21: samples 48, most 192,
z 2.5 won 26.1% [25.2, 26.9] at about 1.5 times the self-play cost; 32/256/2 25.6% [24.8, 26.5] (1.1
times); 64/256/2.5 25.6% [24.7, 26.4]; plain 160 guesses 25.4% [24.5, 26.2] (2.5 times).
Against three `mcts` at 2,000 iterations, 4 players, seats rotated, seed 14: samples 48, most 192, z 2.5
(now the defaults) won 25.3% [24.4, 26.2] of 9,000 (3,715 s on the two cores); 64 guesses without the
race won 24.9% [24.2, 25.7] of 12,000 with the same command, whose first 9,000 games are the same deals.
Self-play, 4 players, one core, median of 7 repeats timed in alternation as `balance bench` does: 26.3
games/s with the race, 32.6 without, `mcts` 0.86: 30.6 and 37.9 times `mcts`.

For scale, the search this expert is measured against (4 players, seats rotated, 1,500 games, seed 14):
`mcts` with twice its 2,000 iterations won 27.1% [24.9, 29.4] against three `mcts` (953 s on the two
cores, against about 550 s for an expert in its seat); a doubled search budget is about two pp of
win share here.

Tried and measured before the race, 4 players, and left out because they did not play better (one variant
seat against three of this expert, or against three `mcts:iters=500`, seats rotated; fair share 25%):
other players guessed to play the card of a dealt hand that is best for them alone, 25.4% of 1,000
against this expert (temp 1) but 26.8% against mcts where this expert wins 33.3% (400 each); a second
round looked ahead at the last tree, 24.1% of 1,000; an information-set tree search (mcts.py's) with this
evaluation in place of the random play-out, 24.7% at 300 iterations and 25.2% at 1,000 (each about 3 and
10 times slower); a model fitted on 2,000 instead of 500 games, 25.8% of 2,000; R-14's tie-break as a
continuity correction at the last tree (half a token added to the lead over a player farther from the
Emperor, taken from the lead over a closer one), 24.3% [23.0, 25.7] of 4,000 against this expert; 160
samples instead of 64, 26.0% [24.5, 27.6] of 3,000 (not significant, and 2.5 times the cost); a win model
in place of the token prediction (a conditional logit of who wins, the softmax of each painter's utility
in its tokens and these features with weights for 1, 2, and 3 or more trees left, fitted by maximum
likelihood on expert iteration from greedy self-play), 25.9% [24.9, 26.9] of 8,000 against this expert,
35.0% [32.9, 37.1] of 2,000 against three `mcts:iters=500` (a second fit, training seed 40) where this
expert wins 31.9% [29.9, 34.0] on the same deals, 36.1% [34.1, 38.3] of 2,000 against three greedy (this
expert 36.7%) and 24.9% [22.8, 27.2] of 1,500 against three `mcts` at 2,000 iterations (this expert
26.1%, the same command and seed); the other players' forward/back choices each made by its own greedy
look-ahead rather than always forward (simulate_round), 25.6% [24.7, 26.4] of 10,000 against this expert
and 25.2% [23.1, 27.5] of 1,500 against three `mcts` at 2,000 iterations (seed 14, where this expert
without the race wins 26.1%).

Tried after the race, one variant seat and one seat of this expert at a table with two `mcts` at 2,000
iterations (4 players, seats rotated, seed 31; the difference of the two seats' win shares in the same
games, 95% interval), and left out: the other players' cards guessed from a dealt hand by a conditional
logit of how `mcts` players choose (fitted on 18,896 choices of 400 games of its self-play; it names the
card chosen 30% of the time, chance 20%), -1.2 pp [-3.4, +1.1] of 4,000; at the last tree every card
played out at random to the end over common determinizations (as `mcts` scores a play-out), -4.4 pp
[-8.7, -0.1] of 991 (stopped there); the evaluation refitted on 1,000 games of `mcts` self-play at 2,000
iterations (weights within a few hundredths of these), -0.8 pp [-3.4, +1.8] of 3,000; `temp` 1.3, the
spread that matches this evaluation's errors (the pair residual's SD is 2.5, 3.4 and 4.0 tokens at 1, 2
and 3 trees left, a logistic scale about 0.67 of temp 2's), -1.4 pp [-3.9, +1.1] of 3,000.

Where this expert loses to that search, from the first and third of those tables (its seat and the two `mcts`
seats, 7,000 games): it leads after the second tree in 22.6% of games, an `mcts` seat in 14.8%, but from the
same standing there (its token lead over the best other, -4 to +3) it wins 1.9 pp less often [-3.3, -0.5],
clustered by game. So the loss is in the play to the last tree, where the linear evaluation knows little:
fitted on last-tree positions alone it explains 6.3% of the tokens to come there, a fit on every position 6.2%
(31,412 last-tree positions of 2,000 games of `mcts:iters=300` self-play).

Tried at the last tree against that loss, the same design (seed 31, 4,000 games unless stopped), and left out:
a plan of two rounds, each card followed by the best other card of the hand next round, over common
determinizations (mcts.determinize) in which the others play cards of their dealt hands at random, -1.7 pp
[-5.5, +2.0] of 1,321 (stopped; against three of this expert 25.0% [24.1, 25.8] of 10,000, seed 41, and 25.0%
[24.2, 25.9] with the follow-up chosen after seeing each guess); the other players' cards each the best of its
dealt hand for itself against random cards of the rest, -3.1 pp [-6.9, +0.7] of 1,321 (stopped; 12 games/s
of self-play, too slow besides); R-14 read into the evaluation (a tie on tokens at the end goes to whoever is
behind before the last tree's award, as in every one of 197 two-way ties at the top of 1,321 games, so the
chance of each pairwise lead counts a tie band of one token won when behind and lost when ahead), -2.0 pp
[-4.2, +0.2]; twice the guesses (samples and most) at the last tree only, at 1.24 times the self-play cost,
-0.7 pp [-3.0, +1.5]. In the R-14 table the seat of this expert takes the last tree's 4 tokens 2.2 pp
less often than an `mcts` seat from the same token standing before it [-4.1, -0.3] and wins 2.0 pp less
[-3.7, -0.2] (linear probability, clustered by game): the search is better at being closest when the Emperor
reaches the last tree. Read against the same design with this expert in both seats (a copy under another name
that plays identically: an A/A check), -1.3 pp [-3.5, +0.9] of 4,000, the first seat does worse on these
deals by chance, so none of these variants, nor of the four above, plays measurably better than this expert.

Where a stronger player would gain, from the same positions (sim/sakura/phase_study.py: positions of this
expert's self-play right after a tree scores, seed 77, the rest of each game played with one seat swapped,
common random numbers, the other three seats `mcts` at 2,000 iterations): `mcts` at 2,000 iterations in that
seat instead of this expert gains +0.90 pp [-1.74, +3.54] from the first tree on (2,000 positions) and
+0.10 [-1.79, +1.99] from the second (3,000): no phase holds a gap of two or more pp. Tried there and left
out (a scratch copy, 3,000 positions of another seeding): this expert handing the last tree's play to `mcts`
at 250 iterations, -3.13 pp [-5.01, -1.25]; at 2,000 iterations once the Emperor is within 2 spaces of
the last tree, +0.50 [-0.11, +1.11] (not significant), at 21 times `mcts`'s self-play speed (one core, one
run: 24.7 games/s against this expert's 36.6 and `mcts`'s 1.17).
"""

import numpy as np
from numba import njit

from sim.rng import rng_below
from sim.sakura.agent_kinds import AGENTS, EXPERT_FEATURES
from sim.sakura.agents import simulate_round
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
    P_LEAP,
    P_PM1,
    P_PM3,
    PACT,
    PAINTER,
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
    forward_target,
    leapfrog_target,
    legal_actions,
    order_pending,
    painters_between,
    ranking,
    rivals,
    winners,
)
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS

# The parameter row of an expert seat: its numeric parameters in the registry's order (spec.py), then the
# model's weights (sim/agent_spec.py agent_row appends them).
_NUMERIC = [key for key, (kind, _default) in AGENTS["expert"].params.items() if kind is not str]
E_SAMPLES, E_TEMP, E_MOST, E_Z = (_NUMERIC.index(key) for key in ("samples", "temp", "most", "z"))
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
@njit(cache=True)
def _destination(t, p, a):
    """Where painter action `a` would take painter p from t, or -1 for a bump (the rules' own targets,
    kernels.forward_target and leapfrog_target, R-15, R-17; nothing moved): a forward-or-back card that
    would bump counts as no move (its owner would go back rather than walk into the Emperor). Which moves
    bump is the same under both bump_from readings (R-15, R-21: only where the bumped painter lands
    differs), and a bump counts here without its landing space, so the features mean the same under
    both."""
    mine = t[PAINTER + p]
    if a <= P_3:
        return forward_target(t, p, a - P_1 + 1)
    if a <= P_PM3:
        dest = forward_target(t, p, a - P_PM1 + 1)
        return mine if dest < 0 else dest
    if a == P_LEAP:
        target = leapfrog_target(t, p)
        if target < 0:
            return mine
        return -1 if target == t[EMPEROR] else target
    n = painters_between(t, p)
    return mine if n == 0 else forward_target(t, p, n)


@njit(cache=True)
def features(t, mixes, order, feats):
    """Every competing painter's features at position t (a round being played or just played, not over)
    into rows 0..rivals-1 of feats (the players, and the court painter under R-23); painter p's hand is
    mixes[p] (its own hand, or the unseen cards' mix). `order` is scratch for the ranking."""
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
    for p in range(competing):
        f = feats[p]
        f[:] = 0.0
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
        for q in range(painters):
            idx = t[PAINTER + q]
            if idx > mine:
                ahead += 1
            if q != p and idx > closest_other:
                closest_other = idx
        gap = emperor - mine
        f[F_BIAS] = 1.0
        f[F_TREES] = trees_left
        f[F_LAST] = last
        f[F_DISTANCE] = distance
        f[F_AWARD] = award
        f[F_AWARD_NEAR] = award * near
        f[F_AWARD_MID] = award * mid
        f[F_AWARD_LAST] = award * last
        f[F_FIRST_LAST] = first * last
        f[F_GAP_LAST] = gap * last
        f[F_FIRST] = first
        f[F_FIRST_NEAR] = first * near
        f[F_AHEAD] = ahead
        f[F_GAP] = gap
        f[F_GAP_NEAR] = gap * near
        f[F_ADJACENT] = 1.0 if gap == 1 else 0.0
        f[F_GATE] = 1.0 if mine == 0 else 0.0
        mix = mixes[p]
        advance = 0.0
        lead = 0.0
        bumped = 0.0
        for a in range(N_PACT):
            share = mix[N_GARDEN + a]
            if share == 0.0:
                continue
            dest = _destination(t, p, a)
            if dest < 0:
                bumped += share
            else:
                advance += share * (dest - mine)
                if dest > closest_other:
                    lead += share
        emperor_move = 0.0
        for g in range(N_GARDEN):
            emperor_move += mix[g] * EMPEROR_MOVE[g]
        f[F_ADVANCE] = advance
        f[F_LEAD] = lead
        f[F_LEAD_NEAR] = lead * near
        f[F_LEAD_LAST] = lead * last
        f[F_BUMP] = bumped
        f[F_EMPEROR] = emperor_move
        f[F_EMPEROR_FIRST] = emperor_move * first
        f[F_ORDER] = mix[MIX_ORDER]


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


@njit(cache=True)
def evaluate(t, me, mixes, weights, temp, order, feats, finals, win):
    """What position t is worth to `me`: its chance of ending with more tokens than every other competing
    painter (the players; under R-23 the court painter too, its tokens predicted by the same model with
    the unseen cards' mix as its hand), each beaten (as if independently) with the logistic chance of its
    predicted lead over it, a spread of `temp` tokens times the root of the trees left (temp <= 0: the
    predicted lead over the best other). A finished game: final_value."""
    players = rivals(t)
    if t[PHASE] == PH_OVER:
        return final_value(t, me, temp, win)
    features(t, mixes, order, feats)
    for p in range(players):
        final = float(t[TOKENS + p])
        for k in range(N_FEATURES):
            final += weights[k] * feats[p, k]
        finals[p] = final
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
    players = s[PLAYERS]
    samples = max(int(params[E_SAMPLES]), 1)
    temp = params[E_TEMP]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    n_pool = unseen_cards(s, me, pool)
    mixes = np.zeros((MAX_PAINTERS, MIX), dtype=np.float64)
    pool_mix(s, pool, n_pool, mixes[0])  # every other painter's hand, as the expert can see it
    for p in range(1, s[N_PAINTERS]):
        mixes[p] = mixes[0]
    t = np.empty_like(s)
    scratch = np.empty_like(s)
    order = np.empty(MAX_PAINTERS, dtype=np.int64)
    gained = np.zeros(MAX_PAINTERS, dtype=np.int64)
    feats = np.zeros((MAX_PAINTERS, N_FEATURES), dtype=np.float64)
    win = np.zeros(MAX_PAINTERS, dtype=np.int64)
    finals = np.zeros(MAX_PAINTERS, dtype=np.float64)
    values = np.zeros(n, dtype=np.float64)
    if s[PHASE] == PH_CHOOSE:
        # every card of the round is on the table: the rest of it resolves the same whatever is hidden
        hand_mix(s, me, -1, mixes[me])
        for i in range(n):
            t[:] = s
            simulate_round(t, me, 1 if buf[i] == A_FORWARD else 0, scratch, order, gained)
            values[i] = evaluate(t, me, mixes, weights, temp, order, feats, finals, win)
    else:
        court_pick = s[COURT_PICKER] >= 0  # tactical variant: it picks the court painter's card now
        base = A_COURT if court_pick else A_PLAY
        mine = np.zeros((N_ACTIONS_MAX, MIX), dtype=np.float64)
        for i in range(n):
            hand_mix(s, me, buf[i] - base, mine[i])  # what it keeps after playing the card
        guess = np.empty(MAX_PAINTERS, dtype=np.int64)
        most = max(int(params[E_MOST]), samples)
        per = np.zeros((n, most), dtype=np.float64)  # each candidate's value at each guess
        alive = np.ones(n, dtype=np.bool_)
        done = 0
        while done < most:
            upto = min(done + (samples if done == 0 else RACE_BATCH), most)
            for k in range(done, upto):
                guess_cards(s, me, court_pick, pool, n_pool, rng, guess)  # the same for every candidate
                for i in range(n):
                    if not alive[i]:
                        continue
                    t[:] = s
                    for p in range(t[N_PAINTERS]):
                        if guess[p] >= 0:
                            t[SELECTED + p] = guess[p]
                    t[SELECTED + (players if court_pick else me)] = buf[i] - base
                    order_pending(t)
                    simulate_round(t, me, -1, scratch, order, gained)  # R-12..R-18, no card drawn
                    mixes[me] = mine[i]
                    per[i, k] = evaluate(t, me, mixes, weights, temp, order, feats, finals, win)
                    values[i] += per[i, k]
            done = upto
            if done < most and race(per, values, alive, n, done, params[E_Z]) == 0:
                break
        for i in range(n):
            if not alive[i]:
                values[i] = -np.inf  # out of the race: its total counts fewer guesses
    best = 0
    for i in range(1, n):
        if values[i] > values[best] + 1e-12:
            best = i  # ties: the lowest action code, so equal values need no draw
    return buf[best]
