"""The Sakura rules as numba kernels over one flat int64 state vector (docs/rules.md, Sakura).

The only copy of the rules: batch self-play, the agents' look-ahead and the readable API (game.py) all
call these functions. `apply_action` runs everything that needs no decision (reveal, resolution in order
number, bumps, scoring, line-up, draws) and stops at the next decision: a card to select, or a
forward/back choice.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng import rng_seeded, shuffle_slice
from sim.core.state_layout import Fields
from sim.sakura.codes import (
    BUMP_FROM,
    DECK_SIZE,
    GARDEN_ACTIONS,
    MAX_PLAYERS,
    MAX_SAKURA,
    PAINTER_ACTIONS,
    TIE_BREAKS,
    VARIANTS,
)

# DECK_SIZE (60 order numbers) and MAX_PLAYERS (6) are the config's limits, from params.py.
MAX_PAINTERS = 6       # players, plus the court painter with two players
HAND_SIZE = 5
START_TOKENS = 5       # docs/rules.md Setup: each player, and the court painter, starts with 5 tokens
MAX_ROUNDS = 2000      # safety valve for degenerate decks (not a rule): the game then ends "round_limit"

# Garden and painter action codes: the index of the action's id in params.GARDEN_ACTIONS / PAINTER_ACTIONS.
G_E1, G_E2, G_EM1, G_EPM1, G_CLOSEST, G_FURTHEST = (
    GARDEN_ACTIONS.index(a) for a in ("E+1", "E+2", "E-1", "E+-1", "closest-2", "furthest+2"))
P_1, P_2, P_3, P_PM1, P_PM2, P_PM3, P_LEAP, P_COUNT = (
    PAINTER_ACTIONS.index(a) for a in ("P+1", "P+2", "P+3", "P+-1", "P+-2", "P+-3", "leapfrog", "count"))
if (P_1, P_2, P_3, P_PM1, P_PM2, P_PM3) != tuple(range(6)):  # half_move reads the distance off the code
    raise AssertionError("PAINTER_ACTIONS must begin P+1, P+2, P+3, P+-1, P+-2, P+-3")
# Rule knob codes: the index in params.TIE_BREAKS / VARIANTS.
TB_CLOSEST, TB_SHARED = TIE_BREAKS.index("closest_to_emperor"), TIE_BREAKS.index("shared")
V_COURT, V_TACTICAL = VARIANTS.index("court"), VARIANTS.index("tactical")  # two players
BF_EMPEROR, BF_PAINTER = BUMP_FROM.index("emperor"), BUMP_FROM.index("painter")

# ---- state vector layout -------------------------------------------------------------------------------
_f = Fields()
PLAYERS = _f.add("players")
N_PAINTERS = _f.add("n_painters")
HAS_COURT = _f.add("has_court")        # 1 with two players: the court painter is painter index `players`
VARIANT = _f.add("variant")            # V_COURT, V_TACTICAL (two players)
TIE_BREAK = _f.add("tie_break")        # TB_CLOSEST, TB_SHARED
PATH_LEN = _f.add("path_len")
TORII = _f.add("torii")
N_SAKURA = _f.add("n_sakura")
EMPEROR = _f.add("emperor")
ROUND = _f.add("round")                # the round being played, from 1
PHASE = _f.add("phase")                # PH_SELECT, PH_CHOOSE, PH_OVER
CHOOSING = _f.add("choosing")          # in PH_CHOOSE: 0 garden half, 1 painter half
TO_MOVE = _f.add("to_move")
HALF = _f.add("half")                  # 1 once the current pending card's garden half has resolved
END_REASON = _f.add("end_reason")
DECK_N = _f.add("deck_n")
DISCARD_N = _f.add("discard_n")
PEND_N = _f.add("pend_n")
PEND_POS = _f.add("pend_pos")
RNG = _f.add("rng")                    # bits of the uint64 generator state used for reshuffles
COURT_PICKER = _f.add("court_picker")  # tactical: the seat still to pick the court painter's card, else -1
BUMPS = _f.add("bumps")                # bumps so far in the game (for the logs)
BUMP_FROM_AT = _f.add("bump_from")     # BF_EMPEROR, BF_PAINTER; offset 22, unused before
LINEUP_GATE = _f.add("lineup_from_gate")  # 1: a lone gate painter lines up too; offset 23, ditto
SAKURA = _f.add("sakura", MAX_SAKURA)            # path indices
SCORED = _f.add("scored", MAX_SAKURA)            # flags
PAINTER = _f.add("painter", MAX_PAINTERS)        # path indices (0 = gate)
TOKENS = _f.add("tokens", MAX_PAINTERS)
GARDEN = _f.add("garden", DECK_SIZE + 1)         # garden action by order number (index 0 unused)
PACT = _f.add("pact", DECK_SIZE + 1)             # painter action by order number (index 0 unused)
HAND = _f.add("hand", MAX_PLAYERS * HAND_SIZE)   # a row per seat, each hand sorted ascending, -1 padded
HAND_N = _f.add("hand_n", MAX_PLAYERS)
DECK = _f.add("deck", DECK_SIZE)                 # the top card is DECK[DECK_N - 1]
DISCARD = _f.add("discard", DECK_SIZE)           # in the order discarded
SELECTED = _f.add("selected", MAX_PAINTERS)      # this round's card per seat, the court's at `players`
PENDING = _f.add("pending", MAX_PAINTERS)        # this round's cards in resolution order
PEND_OWNER = _f.add("pend_owner", MAX_PAINTERS)  # their owners (painter index)
COURT_CAN_WIN = _f.add("court_can_win")          # 1: the court painter can win (R-23; two players)
# Record of the last resolved round, for the logs (not part of the position; left out of equality):
LOG_N = _f.add("log_n")                          # cards in the logged round
LOG_ROUND = _f.add("log_round")
LOG_SAKURA = _f.add("log_sakura")                # sakura scored in that round, or -1
CARD_BUMP_START = _f.add("card_bump_start")      # BUMPS when the current card began to resolve
LOG_CARD = _f.add("log_card", MAX_PAINTERS)      # by resolution slot: card, owner, resolved (0/1),
LOG_OWNER = _f.add("log_owner", MAX_PAINTERS)    # bumps it caused, owner's tokens after
LOG_RESOLVED = _f.add("log_resolved", MAX_PAINTERS)
LOG_BUMPS = _f.add("log_bumps", MAX_PAINTERS)
LOG_TOKENS = _f.add("log_tokens", MAX_PAINTERS)
LOG_GAINED = _f.add("log_gained", MAX_PAINTERS)  # tokens each painter gained at the sakura scored
# The position when the round's resolution began and after each half card (step 2 * slot + half: the garden
# half, then the painter half, by resolution slot), so `balance play` can show a round step by step
# (sim/sakura/terminal.py) from the kernels' own moves rather than a second copy of the movement rules.
LOG_START_EMPEROR = _f.add("log_start_emperor")
LOG_START_PAINTER = _f.add("log_start_painter", MAX_PAINTERS)
LOG_START_TOKENS = _f.add("log_start_tokens", MAX_PAINTERS)
LOG_START_BUMPS = _f.add("log_start_bumps")
LOG_STEP_EMPEROR = _f.add("log_step_emperor", 2 * MAX_PAINTERS)
LOG_STEP_PAINTER = _f.add("log_step_painter", 2 * MAX_PAINTERS * MAX_PAINTERS)
LOG_STEP_TOKENS = _f.add("log_step_tokens", 2 * MAX_PAINTERS * MAX_PAINTERS)
LOG_STEP_BUMPS = _f.add("log_step_bumps", 2 * MAX_PAINTERS)      # BUMPS after the step
LOG_STEP_FORWARD = _f.add("log_step_forward", 2 * MAX_PAINTERS)  # 1 forward, 0 back (a choice's answer)
# 1: keep the round's start and steps above (the readable API sets it, game.py); 0 (new_game): batch play
# and the searches' play-outs, which never read them, skip writing them at every half card, to save time.
LOG_STEPS = _f.add("log_steps")
STATE_SIZE = _f.close(584)
LOG_START = LOG_N      # the log area runs from here to the end of the vector
FIELDS = _f            # named views for the readable API: FIELDS.view(v, "hand"), FIELDS.get(v, "round")

#: The rules as the kernels take them (new_game's and batch.play_batch's `rules`; game.kernel_rules
#: builds it): the player count, the VARIANTS and TIE_BREAKS codes, the path as
#: played (length, torii, int64[n] sakura path indices), the deck, int64[60, 3] of (order, garden
#: code, painter code), and the readings: the BUMP_FROM code (R-15 / R-21), lineup_from_gate (0/1, R-22)
#: and court_can_win (0/1, R-23; acts only with two players).
KernelRules = namedtuple("KernelRules", ["players", "variant", "tie_break", "path_len", "torii", "sakura",
                                         "cards", "bump_from", "lineup_from_gate", "court_can_win"])

# The fields a round's resolution can change (kernels resolve and agents.simulate_round: positions, tokens,
# trees scored, the pending cards and the phase), in three runs of the vector: copy_round_fields undoes a
# look-ahead by copying these ~50 slots back instead of the whole vector.
ROUND_RUNS = ((EMPEROR, BUMPS + 1), (SCORED, TOKENS + MAX_PAINTERS), (SELECTED, PEND_OWNER + MAX_PAINTERS))
if not (EMPEROR < PHASE < CHOOSING < TO_MOVE < HALF < END_REASON < PEND_N < PEND_POS < COURT_PICKER < BUMPS
        and SCORED + MAX_SAKURA == PAINTER and PAINTER + MAX_PAINTERS == TOKENS
        and SELECTED + MAX_PAINTERS == PENDING and PENDING + MAX_PAINTERS == PEND_OWNER):
    raise AssertionError("ROUND_RUNS must cover every field a round's resolution writes")
_R0, _R1, _R2 = ROUND_RUNS

PH_SELECT, PH_CHOOSE, PH_OVER = 0, 1, 2
END_NONE, END_LAST_SAKURA, END_ROUND_LIMIT = 0, 1, 2

# ---- action codes --------------------------------------------------------------------------------------
A_PLAY = 0             # + order number (1..60)
A_COURT = 100          # + order number
A_FORWARD = 200
A_BACK = 201
N_ACTIONS_MAX = 8      # at most 5 cards, or two choices


# ---- setup ---------------------------------------------------------------------------------------------
@njit(cache=True)
def new_game(rules, seed):
    """A fresh game under `rules` (KernelRules): Emperor on the torii, painters on the gate, 5 tokens
    each, 5 cards each from a seeded shuffle. rules.cards: int64[60, 3] of (order, garden, painter);
    rules.sakura: int64[n] path indices as played (already expanded for bridges with 5-6 players)."""
    players, variant, tie_break = rules.players, rules.variant, rules.tie_break
    path_len, torii, sakura, cards = rules.path_len, rules.torii, rules.sakura, rules.cards
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[PLAYERS] = players
    s[HAS_COURT] = 1 if players == 2 else 0
    s[N_PAINTERS] = players + s[HAS_COURT]
    s[VARIANT] = variant
    s[TIE_BREAK] = tie_break
    s[BUMP_FROM_AT] = rules.bump_from
    s[LINEUP_GATE] = rules.lineup_from_gate
    s[COURT_CAN_WIN] = rules.court_can_win
    s[PATH_LEN] = path_len
    s[TORII] = torii
    s[N_SAKURA] = sakura.shape[0]
    for k in range(sakura.shape[0]):
        s[SAKURA + k] = sakura[k]
    s[EMPEROR] = torii
    for p in range(s[N_PAINTERS]):
        s[TOKENS + p] = START_TOKENS
    for i in range(cards.shape[0]):
        s[GARDEN + cards[i, 0]] = cards[i, 1]
        s[PACT + cards[i, 0]] = cards[i, 2]
    rng = rng_seeded(seed, 0)
    for i in range(DECK_SIZE):
        s[DECK + i] = i + 1
    shuffle_slice(s, DECK, DECK_SIZE, rng)
    s[DECK_N] = DECK_SIZE
    s[RNG] = rng.view(np.int64)[0]
    for i in range(MAX_PLAYERS * HAND_SIZE):
        s[HAND + i] = -1
    for seat in range(players):
        for _ in range(HAND_SIZE):
            draw_card(s, seat)
    begin_round(s)
    s[ROUND] = 1
    return s


@njit(cache=True)
def clear_resolution(s):
    """Forget the resolution bookkeeping (unused slots stay zero, so equal positions have equal vectors)."""
    for p in range(MAX_PAINTERS):
        s[PENDING + p] = 0
        s[PEND_OWNER + p] = 0
    s[PEND_N] = 0
    s[PEND_POS] = 0
    s[HALF] = 0
    s[CHOOSING] = 0
    s[COURT_PICKER] = -1


@njit(cache=True)
def begin_round(s):
    for p in range(MAX_PAINTERS):
        s[SELECTED + p] = -1
    clear_resolution(s)
    s[PHASE] = PH_SELECT
    s[TO_MOVE] = 0


@njit(cache=True)
def copy_round_fields(dst, src):
    """Copy the fields a round's resolution can change (ROUND_RUNS) from src to dst: a look-ahead vector
    that agrees with src elsewhere is src again, without copying the whole vector (agents, expert)."""
    for lo, hi in (_R0, _R1, _R2):
        for i in range(lo, hi):
            dst[i] = src[i]


# ---- cards ---------------------------------------------------------------------------------------------
@njit(cache=True)
def take_top(s):
    """Top card of the deck; an empty deck is first refilled with the discard pile, shuffled (R-19)."""
    if s[DECK_N] == 0:
        rng = s[RNG:RNG + 1].view(np.uint64)
        n = s[DISCARD_N]
        for i in range(n):
            s[DECK + i] = s[DISCARD + i]
        shuffle_slice(s, DECK, n, rng)
        for i in range(n):
            s[DISCARD + i] = 0
        s[DECK_N] = n
        s[DISCARD_N] = 0
        if n == 0:
            return -1
    s[DECK_N] -= 1
    card = s[DECK + s[DECK_N]]
    s[DECK + s[DECK_N]] = 0
    return card


@njit(cache=True)
def redeal_draws(s, state):
    """Shuffle the cards still in the deck of a game just set up, and keep `state` for its reshuffles
    (R-19): the hands stay as dealt, every later draw changes. Not a rule: the luck decomposition's way
    of playing one deal with other draws (sim/app/luck.py)."""
    shuffle_slice(s, DECK, s[DECK_N], state)
    s[RNG] = state.view(np.int64)[0]


@njit(cache=True)
def draw_card(s, seat):
    card = take_top(s)
    if card < 0:
        return
    base = HAND + seat * HAND_SIZE
    i = s[HAND_N + seat]
    while i > 0 and s[base + i - 1] > card:  # keep the hand sorted
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = card
    s[HAND_N + seat] += 1


@njit(cache=True)
def remove_from_hand(s, seat, card):
    base = HAND + seat * HAND_SIZE
    n = s[HAND_N + seat]
    found = False
    for i in range(n):
        if found:
            s[base + i - 1] = s[base + i]
        elif s[base + i] == card:
            found = True
    if found:
        s[base + n - 1] = -1
        s[HAND_N + seat] = n - 1
    return found


@njit(cache=True)
def in_hand(s, seat, card):
    base = HAND + seat * HAND_SIZE
    for i in range(s[HAND_N + seat]):
        if s[base + i] == card:
            return True
    return False


# ---- movement ------------------------------------------------------------------------------------------
@njit(cache=True)
def painter_at(s, index, exclude):
    """The painter on path index `index` (> 0) other than `exclude`, or -1."""
    for p in range(s[N_PAINTERS]):
        if p != exclude and s[PAINTER + p] == index:
            return p
    return -1


NEAR = 62  # the spaces others_near marks, from 1: the walks of the rules never count so far (R-15..R-17)


@njit(cache=True)
def others_near(s, p, origin, step):
    """Bit d - 1 set where a painter other than p stands on path index origin + step * d, d = 1..NEAR: the
    spaces a walk from `origin` (step 1 forward, -1 back) skips, read by bit at each step rather than by
    asking every painter there (painter_at), which showed in the look-ahead's walks. The loop runs over
    every painter slot (a fixed count, which compiles to straight code; the unused ones are skipped)."""
    mask = 0
    painters = s[N_PAINTERS]
    for q in range(MAX_PAINTERS):
        d = (s[PAINTER + q] - origin) * step
        if q < painters and q != p and 1 <= d <= NEAR:
            mask |= 1 << (d - 1)
    return mask


@njit(cache=True)
def other_on(s, p, origin, step, mask, index):
    """painter_at(s, index, p) >= 0 for the space `index` (> 0) of a walk from `origin` (mask: others_near
    of the walk); past NEAR spaces, painter_at."""
    d = (index - origin) * step
    if d <= NEAR:
        return (mask >> (d - 1)) & 1 == 1
    return painter_at(s, index, p) >= 0


@njit(cache=True)
def forward_target(s, p, n):
    """Where painter p's move of n empty spaces forward ends, or -1 if it reaches the Emperor first (a
    bump, R-15; under either bump_from reading the same moves bump). Nothing moves (move on a copy)."""
    t = s.copy()
    move(t, 0, p, n, 1)
    return -1 if t[BUMPS] != s[BUMPS] else t[PAINTER + p]


@njit(cache=True)
def leapfrog_target(s, p):
    """R-17: the first space above the next painter ahead that no painter occupies (the Emperor's space
    means a bump); -1 when no painter is ahead (no move). Nothing moves (move on a copy)."""
    t = s.copy()
    move(t, 0, p, 0, 0)
    if t[BUMPS] != s[BUMPS]:
        return s[EMPEROR]
    return t[PAINTER + p] if t[PAINTER + p] != s[PAINTER + p] else -1


@njit(cache=True)
def bump_start(s, stop):
    """Where a painter bumped by its own move counts its three spaces back from: the Emperor's space
    (R-15), or under bump_from "painter" (R-21) `stop`, where its move stopped."""
    return stop if s[BUMP_FROM_AT] == BF_PAINTER else s[EMPEROR]


@njit(cache=True)
def unscored_sakura_here(s):
    """Index k of the sakura the Emperor stands on if it has not scored yet, else -1."""
    for k in range(s[N_SAKURA]):
        if s[SAKURA + k] == s[EMPEROR] and s[SCORED + k] == 0:
            return k
    return -1


@njit(cache=True)
def closest_painter(s):
    """Highest path index; nobody (-1) if every painter is on the gate."""
    best = -1
    best_index = 0
    for p in range(s[N_PAINTERS]):
        if s[PAINTER + p] > best_index:
            best_index = s[PAINTER + p]
            best = p
    return best


@njit(cache=True)
def painters_between(s, p):
    """R-17 count: the painters strictly between painter p and the Emperor."""
    mine = s[PAINTER + p]
    n = 0
    for q in range(s[N_PAINTERS]):
        idx = s[PAINTER + q]
        if q != p and mine < idx < s[EMPEROR]:
            n += 1
    return n


# half_move's movers that move finds (the painter closest to the Emperor, the furthest) and its walk that move
# counts (a space per painter strictly between the mover and the Emperor)
CLOSEST, FURTHEST, BETWEEN = -2, -3, -1


@njit(cache=True)
def half_move(s, card, p, garden, forward):
    """What one half of `card` moves, as move takes it: (steps, mover, n, how). Its garden action (garden
    True): the Emperor's step forward (E+1, E+-1 forward), two (E+2) or back (E-1, E+-1 back); closest-2,
    the painter closest to the Emperor (CLOSEST) back two; furthest+2, the furthest painter (FURTHEST)
    forward two. Painter p's action: P+n and P+-n (`forward` answers a forward-or-back choice), leapfrog,
    and count (forward BETWEEN; R-17). It reads only the card's actions: numba counts no references to
    the state in a kernel that reads it once and calls no other."""
    g = s[GARDEN + card]
    a = s[PACT + card]
    if garden:
        if g == G_E1 or (g == G_EPM1 and forward):
            return 1, -1, 0, 1
        if g == G_E2:
            return 2, -1, 0, 1
        if g == G_EM1 or g == G_EPM1:
            return -1, -1, 0, 1
        return (0, CLOSEST, 2, -1) if g == G_CLOSEST else (0, FURTHEST, 2, 1)
    if a <= P_3:
        return 0, p, a - P_1 + 1, 1
    if a <= P_PM3:
        return 0, p, a - P_PM1 + 1, 1 if forward else -1
    return (0, p, 0, 0) if a == P_LEAP else (0, p, BETWEEN, 1)


@njit(cache=True)
def move(s, steps, mover, n, how):
    """A half card's move (half_move): the Emperor `steps` spaces forward, each counted, stopping at once
    on a sakura entered for the first time, or back one (steps -1, never below index 1); else painter
    `mover` (-1: nobody; CLOSEST, FURTHEST: found here) forward n empty spaces (how 1; n BETWEEN: counted
    here; occupied ones are skipped, not counted), back n (how -1: the gate ends it) or by leapfrog (how 0:
    to the first space above the next painter ahead that no painter occupies; no painter ahead, no move).
    Reaching the Emperor bumps the mover (R-15): counted back from the Emperor's space, or under
    bump_from "painter" (R-21) from where its move stopped (a leapfrog counts no empty space: from its
    starting space); the Emperor moving back onto a painter bumps it, counted back from his space under
    both readings (it is the painter's own space too). A bump (R-15) takes a token if any and moves the
    painter back three empty spaces from there, which itself does not count; other painters' spaces are
    skipped, its own former space counts as empty, the gate ends it. Every move of the rules is written
    once here and calls no other kernel, so that a half card resolves in one call: numba counts
    references to the state at every call of a kernel that calls another, and a round in the look-ahead
    resolves ten halves."""
    if mover == CLOSEST:
        mover = closest_painter(s)  # nobody (-1) when all are on the gate
    elif mover == FURTHEST:  # a painter alone on the gate is furthest; nobody when two or more share it
        on_gate = 0
        gate_painter = -1
        best = -1
        for q in range(s[N_PAINTERS]):
            if s[PAINTER + q] == 0:
                on_gate += 1
                gate_painter = q
            elif best < 0 or s[PAINTER + q] < s[PAINTER + best]:
                best = q
        mover = -1 if on_gate >= 2 else (gate_painter if on_gate == 1 else best)
    if n == BETWEEN:
        n = painters_between(s, mover)  # none between: a walk of no space, no move
    bumped = -1  # the painter bumped, counted back from `start`
    start = 0
    if steps > 0:
        walking = True
        for _ in range(steps):
            if walking and s[EMPEROR] < s[PATH_LEN]:
                s[EMPEROR] += 1
                walking = unscored_sakura_here(s) < 0
            else:
                walking = False
    elif steps < 0:
        if s[EMPEROR] > 1:
            s[EMPEROR] -= 1
            bumped = painter_at(s, s[EMPEROR], -1)
            start = s[EMPEROR]
    elif mover >= 0 and how == 1:
        mine = s[PAINTER + mover]
        ahead = others_near(s, mover, mine, 1)
        pos = mine
        stop = mine  # the last empty space counted
        count = 0
        reached = False
        while count < n and not reached:
            pos += 1
            if pos == s[EMPEROR]:
                reached = True
            elif not other_on(s, mover, mine, 1, ahead, pos):
                count += 1
                stop = pos
        if reached:
            bumped, start = mover, bump_start(s, stop)
        else:
            s[PAINTER + mover] = stop
    elif mover >= 0 and how == -1:
        mine = s[PAINTER + mover]
        behind = others_near(s, mover, mine, -1)
        pos = mine
        count = 0
        while count < n and pos > 0:
            pos -= 1
            if pos == 0 or not other_on(s, mover, mine, -1, behind, pos):
                count += 1
        s[PAINTER + mover] = pos
    elif mover >= 0:
        mine = s[PAINTER + mover]
        ahead = -1
        for q in range(s[N_PAINTERS]):
            idx = s[PAINTER + q]
            if q != mover and idx > mine and (ahead < 0 or idx < ahead):
                ahead = idx
        if ahead >= 0:
            target = ahead + 1
            while painter_at(s, target, mover) >= 0:
                target += 1
            if target == s[EMPEROR]:
                bumped, start = mover, bump_start(s, mine)
            else:
                s[PAINTER + mover] = target
    if bumped >= 0:
        if s[TOKENS + bumped] > 0:
            s[TOKENS + bumped] -= 1
        behind = others_near(s, bumped, start, -1)
        pos = start
        count = 0
        while count < 3 and pos > 0:
            pos -= 1
            if pos == 0 or not other_on(s, bumped, start, -1, behind, pos):
                count += 1
        s[PAINTER + bumped] = pos
        s[BUMPS] += 1


# ---- scoring -------------------------------------------------------------------------------------------
@njit(cache=True)
def ranking(s, out):
    """Painters by closeness to the Emperor: path painters by index, highest first, then a painter alone
    on the gate (R-13: painters sharing the gate are tied and get no rank). Returns how many are ranked."""
    n = 0
    on_gate = 0
    gate_painter = -1
    for p in range(s[N_PAINTERS]):
        idx = s[PAINTER + p]
        if idx == 0:
            on_gate += 1
            gate_painter = p
            continue
        i = n
        while i > 0 and s[PAINTER + out[i - 1]] < idx:
            out[i] = out[i - 1]
            i -= 1
        out[i] = p
        n += 1
    if on_gate != 1:
        return n
    out[n] = gate_painter  # (a store in a branch that falls through made numba keep reference counts)
    return n + 1


@njit(cache=True)
def score_sakura(s, k, gained, order):
    """Award the tokens for sakura k (3/2/1, 4 for the closest at the last tree, a fourth 1 with 5-6
    players); then the line-up (R-18; R-22: a lone, so ranked, gate painter lines up too) unless it was
    the last tree, which ends the game. gained[p] receives each painter's tokens from this tree; order
    (MAX_PAINTERS) is scratch for the ranking."""
    n = ranking(s, order)
    last = k == s[N_SAKURA] - 1
    awards = 4 if s[PLAYERS] >= 5 else 3
    for p in range(MAX_PAINTERS):
        gained[p] = 0
    for r in range(min(n, awards)):
        if r == 0:
            amount = 4 if last else 3
        elif r == 1:
            amount = 2
        else:
            amount = 1
        gained[order[r]] = amount
        s[TOKENS + order[r]] += amount
    s[SCORED + k] = 1
    if last:  # the game ends at once; this round's cards stay on the table (SELECTED)
        clear_resolution(s)
        s[PHASE] = PH_OVER
        s[END_REASON] = END_LAST_SAKURA
        s[TO_MOVE] = -1
        return
    if n > 0:
        prev = s[PAINTER + order[0]]
        for r in range(1, n):
            p = order[r]
            if s[PAINTER + p] == 0 and s[LINEUP_GATE] == 0:
                continue  # a lone gate painter stays on the gate (R-22: it lines up like the rest)
            prev = prev - 1 if prev > 1 else 0
            s[PAINTER + p] = prev


# ---- rounds --------------------------------------------------------------------------------------------
@njit(cache=True)
def order_pending(s):
    """This round's selected cards, by order number, become the pending list (resolution order)."""
    n = 0
    for p in range(s[N_PAINTERS]):
        card = s[SELECTED + p]
        if card < 0:
            continue
        i = n
        while i > 0 and s[PENDING + i - 1] > card:
            s[PENDING + i] = s[PENDING + i - 1]
            s[PEND_OWNER + i] = s[PEND_OWNER + i - 1]
            i -= 1
        s[PENDING + i] = card
        s[PEND_OWNER + i] = p
        n += 1
    s[PEND_N] = n
    s[PEND_POS] = 0
    s[HALF] = 0


@njit(cache=True)
def start_resolution(s):
    """All cards chosen: order them by order number and resolve up to the next decision."""
    order_pending(s)
    n = s[PEND_N]
    s[COURT_PICKER] = -1
    s[LOG_N] = n
    s[LOG_ROUND] = s[ROUND]
    s[LOG_SAKURA] = -1
    for i in range(n):
        s[LOG_CARD + i] = s[PENDING + i]
        s[LOG_OWNER + i] = s[PEND_OWNER + i]
        s[LOG_RESOLVED + i] = 0
        s[LOG_BUMPS + i] = 0
    if s[LOG_STEPS] == 1:
        s[LOG_START_EMPEROR] = s[EMPEROR]
        s[LOG_START_BUMPS] = s[BUMPS]
        for p in range(MAX_PAINTERS):
            s[LOG_START_PAINTER + p] = s[PAINTER + p]
            s[LOG_START_TOKENS + p] = s[TOKENS + p]
    resolve(s)


@njit(cache=True)
def log_step(s, half, forward):
    """Record the position after one half of the card being resolved (the LOG_STEP_* fields), when the
    state keeps them (LOG_STEPS)."""
    if s[LOG_STEPS] == 0:
        return
    step = 2 * s[PEND_POS] + half
    s[LOG_STEP_EMPEROR + step] = s[EMPEROR]
    s[LOG_STEP_BUMPS + step] = s[BUMPS]
    s[LOG_STEP_FORWARD + step] = 1 if forward else 0
    for p in range(MAX_PAINTERS):
        s[LOG_STEP_PAINTER + step * MAX_PAINTERS + p] = s[PAINTER + p]
        s[LOG_STEP_TOKENS + step * MAX_PAINTERS + p] = s[TOKENS + p]


@njit(cache=True)
def resolve(s):
    """Resolve pending cards until one needs its owner's forward/back choice, the round ends, or the
    game ends. Court painter's cards always go forward."""
    players = s[PLAYERS]
    while s[PEND_POS] < s[PEND_N]:
        card = s[PENDING + s[PEND_POS]]
        owner = s[PEND_OWNER + s[PEND_POS]]
        asks = owner < players
        if s[HALF] == 0:
            s[CARD_BUMP_START] = s[BUMPS]
            if asks and s[GARDEN + card] == G_EPM1:
                s[PHASE] = PH_CHOOSE
                s[CHOOSING] = 0
                s[TO_MOVE] = owner
                return
            steps, mover, n, how = half_move(s, card, -1, True, True)
            move(s, steps, mover, n, how)
            log_step(s, 0, True)
            s[HALF] = 1
        a = s[PACT + card]
        if asks and P_PM1 <= a <= P_PM3:
            s[PHASE] = PH_CHOOSE
            s[CHOOSING] = 1
            s[TO_MOVE] = owner
            return
        steps, mover, n, how = half_move(s, card, owner, False, True)
        move(s, steps, mover, n, how)
        log_step(s, 1, True)
        if finish_card(s):
            return
    end_round(s)


@njit(cache=True)
def finish_card(s):
    """After a card's painter half: a sakura reached for the first time scores now and ends the round
    (the later cards are discarded unresolved; the tokens it gave go to LOG_GAINED). Returns True if the
    round or the game ended."""
    slot = s[PEND_POS]
    s[LOG_RESOLVED + slot] = 1
    s[LOG_BUMPS + slot] = s[BUMPS] - s[CARD_BUMP_START]
    s[PEND_POS] += 1
    s[HALF] = 0
    k = unscored_sakura_here(s)
    if k >= 0:
        score_sakura(s, k, s[LOG_GAINED:LOG_GAINED + MAX_PAINTERS], np.empty(MAX_PAINTERS, dtype=np.int64))
        s[LOG_SAKURA] = k
    for i in range(slot, s[LOG_N]):  # tokens after: final for this card, provisional for later ones
        s[LOG_TOKENS + i] = s[TOKENS + s[LOG_OWNER + i]]
    if k < 0:
        return False
    if s[PHASE] != PH_OVER:
        end_round(s)
    return True


@njit(cache=True)
def end_round(s):
    """Table cards to the discard pile, in resolution order; each seat in order draws back to 5 (R-19)."""
    for i in range(s[PEND_N]):
        s[DISCARD + s[DISCARD_N]] = s[PENDING + i]
        s[DISCARD_N] += 1
    for seat in range(s[PLAYERS]):
        while s[HAND_N + seat] < HAND_SIZE:
            before = s[HAND_N + seat]
            draw_card(s, seat)
            if s[HAND_N + seat] == before:
                break
    begin_round(s)
    s[ROUND] += 1
    if s[ROUND] > MAX_ROUNDS:
        s[PHASE] = PH_OVER
        s[END_REASON] = END_ROUND_LIMIT
        s[TO_MOVE] = -1


@njit(cache=True)
def all_selected(s):
    """Every seat has played: reveal the court painter's card (two players) or wait for the tactical
    pick, then resolve."""
    players = s[PLAYERS]
    if s[HAS_COURT] == 1:
        a = s[PAINTER + 0]
        b = s[PAINTER + 1]
        if s[VARIANT] == V_TACTICAL and (a > 0 or b > 0):
            s[COURT_PICKER] = 0 if a < b else 1  # the player further from the Emperor
            s[TO_MOVE] = s[COURT_PICKER]
            return
        s[SELECTED + players] = take_top(s)
    start_resolution(s)


# ---- legal actions and apply ---------------------------------------------------------------------------
@njit(cache=True)
def legal_actions(s, out):
    """Legal action codes, ascending, into `out` (length >= N_ACTIONS_MAX); returns how many."""
    if s[PHASE] == PH_OVER:
        return 0
    if s[PHASE] == PH_CHOOSE:
        out[0] = A_FORWARD
        out[1] = A_BACK
        return 2
    seat = s[TO_MOVE]
    base = A_COURT if s[COURT_PICKER] >= 0 else A_PLAY
    n = s[HAND_N + seat]
    for i in range(n):
        out[i] = base + s[HAND + seat * HAND_SIZE + i]
    return n


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action code in place (legality is the caller's to check)."""
    seat = s[TO_MOVE]
    if s[PHASE] == PH_CHOOSE:
        card = s[PENDING + s[PEND_POS]]
        owner = s[PEND_OWNER + s[PEND_POS]]
        forward = action == A_FORWARD
        if s[CHOOSING] == 0:
            steps, mover, n, how = half_move(s, card, -1, True, forward)
            move(s, steps, mover, n, how)
            log_step(s, 0, forward)
            s[HALF] = 1
        else:
            steps, mover, n, how = half_move(s, card, owner, False, forward)
            move(s, steps, mover, n, how)
            log_step(s, 1, forward)
            if finish_card(s):
                return
        resolve(s)
    elif action >= A_COURT:
        remove_from_hand(s, seat, action - A_COURT)
        s[SELECTED + s[PLAYERS]] = action - A_COURT
        start_resolution(s)
    else:
        remove_from_hand(s, seat, action - A_PLAY)
        s[SELECTED + seat] = action - A_PLAY
        if seat + 1 < s[PLAYERS]:
            s[TO_MOVE] = seat + 1
        else:
            all_selected(s)


# ---- result --------------------------------------------------------------------------------------------
@njit(cache=True)
def rivals(s):
    """How many painters compete for the win, painter indices 0..rivals-1: the players, and with two
    players under court_can_win (R-23) the court painter (index `players`) too."""
    return s[N_PAINTERS] if s[COURT_CAN_WIN] == 1 else s[PLAYERS]


@njit(cache=True)
def winners(s, out):
    """Mark the winning painters in out[0..n_painters-1] (seats, then with two players the court painter
    at index `players`, which never wins unless court_can_win, R-23); returns (tie,
    decided_by_tiebreak). R-14: among the painters competing (`rivals`) tied on tokens the one closest to
    the Emperor wins; tied painters who all stand on the gate share. Under R-23 a court win means no
    player wins; under "shared" the court shares with the tied players."""
    n = rivals(s)
    top = -1
    for p in range(n):
        if s[TOKENS + p] > top:
            top = s[TOKENS + p]
    n_top = 0
    best_pos = -1
    for p in range(s[N_PAINTERS]):
        out[p] = 1 if p < n and s[TOKENS + p] == top else 0
        if out[p] == 1:
            n_top += 1
            if s[PAINTER + p] > best_pos:
                best_pos = s[PAINTER + p]
    if n_top == 1 or s[TIE_BREAK] == TB_SHARED:
        return n_top > 1, False
    kept = 0
    for p in range(n):
        if out[p] == 1 and s[PAINTER + p] != best_pos:
            out[p] = 0
        kept += out[p]
    return True, kept == 1
