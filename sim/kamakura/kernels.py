"""The Kamakura rules as numba kernels over one flat int64 state vector.

This module is the only copy of the rules: the batch self-play loop and the readable API (game.py) both call
these functions. A state is a 1-D int64 array laid out by the fields below (FIELDS); kernels mutate it in
place and callers copy when they need persistence. Actions are small integers (see the action codes), ordered
the way `legal_actions` lists them.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng import rng_seeded, shuffle_slice
from sim.core.state_layout import Fields
from sim.kamakura.board import LINE_MASK, MASK_TO_INDEX, SWAP_DISTANCE, SWAPS, colour_masks, popcount

MAX_PLAYERS = 4
N_CHITS = 40
RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3

# ---- state vector layout -----------------------------------------------------------------------------
# Declared once, in vector order: the offsets are plain ints (numba compiles them as constants) and FIELDS
# names the same slices for the readable API (game.py: FIELDS.view(v, "board"), FIELDS.get(v, "turn")).
_f = Fields()
BOARD = _f.add("board", 16)                    # 16 tile colours, row-major
START_BOARD = _f.add("start_board", 16)        # the board at the turn's start (a void turn restores it, R-8)
ICONS = _f.add("icons", N_CHITS)               # per chit id (10 * colour + line)
POINTS = _f.add("points", N_CHITS)
POWER = _f.add("power", N_CHITS)
OWNER = _f.add("owner", N_CHITS)               # seat, or -1 while on the board
SPENT = _f.add("spent", N_CHITS)               # 1 once the power was activated
GAINED_NOW = _f.add("gained_now", N_CHITS)     # 1 if gained this turn: cannot be activated this turn
ACTIVE_NOW = _f.add("active_now", N_CHITS)     # 1 if activated this turn: undone by a void turn
GREEN_USED = _f.add("green_used", N_CHITS)     # 1 if an activated green already helped a gain this turn
ORDER_MOVES = _f.add("order_moves", MAX_PLAYERS)  # per seat
ORDER_SPENT = _f.add("order_spent", MAX_PLAYERS)
ORDER_ACTIVE = _f.add("order_active", MAX_PLAYERS)
PASSED = _f.add("passed", MAX_PLAYERS)
OUT_TURN = _f.add("out_turn", MAX_PLAYERS)     # the turn number at which the seat passed, -1 while in
PLAYERS = _f.add("players")
TO_MOVE = _f.add("to_move")
TURN = _f.add("turn")                          # turns finished so far (every `end` and `pass` finishes one)
# swaps still allowed this turn: 1 free + activated move powers - swaps made
SWAPS_LEFT = _f.add("swaps_left")
GAINS_DONE = _f.add("gains_done")
GAINS_ALLOWED = _f.add("gains_allowed")        # 1 + activated yellow powers
GAIN_LINE = _f.add("gain_line")                # line of this turn's gains, -1 before the first
GREEN_MIN = _f.add("green_min")                # rules knob green_min_requirement
VOLUNTARY = _f.add("voluntary")                # rules knob voluntary_pass
TIE_BREAK = _f.add("tie_break")                # rules knob tie_break: the TIE_* codes
OVER = _f.add("over")
CHITS_LEFT = _f.add("chits_left")
END_REASON = _f.add("end_reason")              # END_NONE, END_ALL_GAINED, END_ALL_PASSED
MASKS = _f.add("masks", 4)                     # cell bitmask per colour: derived from BOARD, kept in step
# the turn number of each seat's latest finished turn (`end` or `pass`), -1 before its first: R-20's
# tie-break (`last_to_play`) and the logs' `last_turn`
LAST_TURN = _f.add("last_turn", MAX_PLAYERS)
STATE_SIZE = _f.close(393)
FIELDS = _f

TIE_LAST, TIE_FIRST, TIE_SHARED, TIE_LAST_TO_PLAY = 0, 1, 2, 3  # params.TIE_BREAKS order
END_NONE, END_ALL_GAINED, END_ALL_PASSED = 0, 1, 2

# ---- action codes --------------------------------------------------------------------------------------
A_SWAP = 0             # + swap index (board.SWAPS), 24 of them
A_USE = 24             # + chit id
A_USE_ORDER = 64
A_GAIN = 65            # + chit id
A_END = 105
A_PASS = 106
N_ACTIONS = 107


# ---- setup ---------------------------------------------------------------------------------------------
# The rules as the kernels take them (game.kernel_rules builds them from a validated config): players;
# layout, int64[16] colours (ignored when random_layout, R-1); chit_sets, int64[4, 10, 3] (icons, points,
# power) per colour; order_moves, int64[players]; the knobs green_min, voluntary (R-8, 0/1)
# and tie_break (R-9: TIE_LAST, TIE_FIRST, TIE_SHARED; R-20: TIE_LAST_TO_PLAY).
KernelRules = namedtuple("KernelRules", ["players", "layout", "random_layout", "chit_sets", "order_moves",
                                         "green_min", "voluntary", "tie_break"])


@njit(cache=True)
def new_game(rules, seed):
    """A fresh game after setup (R-1 layout, R-2 seeded chit deal, R-4 order chits) under `rules`, a
    KernelRules; every shuffle is seeded by `seed`."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = rng_seeded(seed, 0)
    for cell in range(16):
        s[BOARD + cell] = rules.layout[cell]
    if rules.random_layout:
        for cell in range(16):
            s[BOARD + cell] = cell // 4
        shuffle_slice(s, BOARD, 16, rng)
    # each colour's ten chits are shuffled and dealt one to each line.
    chit_sets = rules.chit_sets
    perm = np.empty(10, dtype=np.int64)
    for colour in range(4):
        for i in range(10):
            perm[i] = i
        shuffle_slice(perm, 0, 10, rng)
        for line in range(10):
            chit = 10 * colour + line
            s[ICONS + chit] = chit_sets[colour, perm[line], 0]
            s[POINTS + chit] = chit_sets[colour, perm[line], 1]
            s[POWER + chit] = chit_sets[colour, perm[line], 2]
    refresh_masks(s)
    for chit in range(N_CHITS):
        s[OWNER + chit] = -1
    s[PLAYERS] = rules.players
    for seat in range(MAX_PLAYERS):
        s[OUT_TURN + seat] = -1
        s[LAST_TURN + seat] = -1
        s[PASSED + seat] = 1 if seat >= rules.players else 0
    for seat in range(rules.players):
        s[ORDER_MOVES + seat] = rules.order_moves[seat]
    s[ORDER_SPENT + 0] = 1  # the start player's order chit stays face up and never acts
    s[GREEN_MIN] = rules.green_min
    s[VOLUNTARY] = rules.voluntary
    s[TIE_BREAK] = rules.tie_break
    s[CHITS_LEFT] = N_CHITS
    begin_turn(s)
    return s


@njit(cache=True)
def begin_turn(s):
    for cell in range(16):
        s[START_BOARD + cell] = s[BOARD + cell]
    for chit in range(N_CHITS):
        s[GAINED_NOW + chit] = 0
        s[ACTIVE_NOW + chit] = 0
        s[GREEN_USED + chit] = 0
    for seat in range(MAX_PLAYERS):
        s[ORDER_ACTIVE + seat] = 0
    s[SWAPS_LEFT] = 1
    s[GAINS_DONE] = 0
    s[GAINS_ALLOWED] = 1
    s[GAIN_LINE] = -1


# ---- counting ------------------------------------------------------------------------------------------
@njit(cache=True)
def refresh_masks(s):
    """Recompute the per-colour cell masks from the board (after setup, restore or loading a dict)."""
    colour_masks(s, BOARD, s[MASKS:MASKS + 4])


@njit(cache=True)
def swap_tiles(s, a, b):
    ca = s[BOARD + a]
    cb = s[BOARD + b]
    s[BOARD + a] = cb
    s[BOARD + b] = ca
    flip = (1 << a) | (1 << b)
    if ca != cb:
        s[MASKS + ca] ^= flip
        s[MASKS + cb] ^= flip

@njit(cache=True)
def line_count(mask, line):
    return popcount(mask & LINE_MASK[line])


@njit(cache=True, inline='always')
def usable_power(s, chit, seat):
    """True if `seat` may still activate `chit` this turn: owned, unspent, not gained this turn (R-5).
    Without branches (`&`), so open_actions adds it to its count with nothing to mispredict."""
    return ((s[OWNER + chit] == seat) & (s[SPENT + chit] == 0) & (s[GAINED_NOW + chit] == 0)
            & (s[POWER + chit] > 0))


@njit(cache=True)
def best_green(s, seat, include_unactivated):
    """Largest green power that could help the next gain: activated and unassigned, or (optionally) owned
    and still activatable."""
    best = 0
    for line in range(10):
        chit = 10 * GREEN + line
        if s[OWNER + chit] != seat:
            continue
        if s[ACTIVE_NOW + chit] == 1 and s[GREEN_USED + chit] == 0:
            p = s[POWER + chit]
        elif include_unactivated and usable_power(s, chit, seat):
            p = s[POWER + chit]
        else:
            continue
        if p > best:
            best = p
    return best


@njit(cache=True)
def potential_swaps(s, seat):
    """Swaps this turn could still make: those left plus every move power not yet activated (R-4, red)."""
    total = s[SWAPS_LEFT]
    for line in range(10):
        chit = 10 * RED + line
        if usable_power(s, chit, seat):
            total += s[POWER + chit]
    if s[ORDER_SPENT + seat] == 0:
        total += s[ORDER_MOVES + seat]
    return total


@njit(cache=True)
def gain_reachable(s):
    """R-8: can the player to move still gain a first chit this turn by any swaps and activations open?

    Exact for any swap budget: for every chit on the board and every tile count that would make it
    eligible (its icons, or lower by up to the best green's power but not below green_min_requirement),
    the fewest swaps to reach that count in its line come from the precomputed table (board.py).

    The swaps left alone and the chits' own icon counts answer yes at most steps of a turn, so they are
    tried first; only then are the powers still to activate and the greens summed and every count tried
    (the same answer: a count reached with fewer swaps is reached with more).
    """
    free = s[SWAPS_LEFT]
    if free > 126:
        free = 126
    for colour in range(4):
        idx = MASK_TO_INDEX[s[MASKS + colour]]
        for line in range(10):
            chit = 10 * colour + line
            if s[OWNER + chit] == -1 and SWAP_DISTANCE[idx, line, s[ICONS + chit]] <= free:
                return True
    seat = s[TO_MOVE]
    budget = potential_swaps(s, seat)
    green = best_green(s, seat, True)
    if green == 0 and budget == s[SWAPS_LEFT]:
        return False  # nothing to add to what was just tried
    gmin = s[GREEN_MIN]
    cap = budget if budget < 127 else 126
    for colour in range(4):
        idx = MASK_TO_INDEX[s[MASKS + colour]]
        for line in range(10):
            chit = 10 * colour + line
            if s[OWNER + chit] != -1:
                continue
            icons = s[ICONS + chit]
            if SWAP_DISTANCE[idx, line, icons] <= cap:
                return True
            lo = icons - green
            if lo < gmin:
                lo = gmin
            for target in range(lo, icons):
                if SWAP_DISTANCE[idx, line, target] <= cap:
                    return True
    return False


@njit(cache=True)
def gain_shortfall(s, chit):
    """How far the chit's line falls short of its icon count in its colour: 0 = eligible as it stands,
    d > 0 = eligible with a green of power >= d (R-6: only down to green_min_requirement), -1 = never this
    board (too many tiles, or too few even with help)."""
    colour = chit // 10
    count = line_count(s[MASKS + colour], chit - 10 * colour)
    icons = s[ICONS + chit]
    if count == icons:
        return 0
    if count > icons or count < s[GREEN_MIN]:
        return -1
    return icons - count


@njit(cache=True)
def green_for_gain(s, chit, seat):
    """The green that helps a gain of `chit` now: -2 if none is needed, else the id of the smallest
    activated unassigned green of power >= the shortfall (R-6), or -1 if the chit is not eligible."""
    need = gain_shortfall(s, chit)
    if need == 0:
        return -2
    if need < 0:
        return -1
    found = -1
    found_power = 1 << 30
    for gl in range(10):
        g = 10 * GREEN + gl
        if (s[OWNER + g] == seat and s[ACTIVE_NOW + g] == 1 and s[GREEN_USED + g] == 0
                and s[POWER + g] >= need and s[POWER + g] < found_power):
            found = g
            found_power = s[POWER + g]
    return found


# ---- legal actions and apply ---------------------------------------------------------------------------
@njit(cache=True)
def legal_actions(s, out):
    """Write the legal action codes, ascending, into `out` (length >= N_ACTIONS); return how many. Entries
    of `out` past the count are scratch (open_actions writes every candidate)."""
    if s[OVER] == 1:
        return 0
    first = s[GAINS_DONE] == 0
    if first and not gain_reachable(s):
        out[0] = A_PASS  # nothing reachable, pass is the only choice
        return 1
    return open_actions(s, out, first)


@njit(cache=True)
def open_actions(s, out, first):
    """legal_actions past its R-8 check, for a caller that already knows the answer: the legal actions of a
    game not over, `first` (no gain yet this turn, GAINS_DONE == 0) only when a gain is still reachable.

    Every candidate is written at out[n] and n moves on only when it is legal (no branch to mispredict
    on the board's colours or the chits' owners), so `out` must have room for all of them (N_ACTIONS)."""
    seat = s[TO_MOVE]
    n = 0
    if first and s[SWAPS_LEFT] > 0:
        for k in range(SWAPS.shape[0]):
            out[n] = A_SWAP + k
            n += s[BOARD + SWAPS[k, 0]] != s[BOARD + SWAPS[k, 1]]
    for chit in range(0 if first else 10, 30):  # red (before a gain only), yellow, green; blue has no power
        out[n] = A_USE + chit
        n += usable_power(s, chit, seat)
    if first and s[ORDER_SPENT + seat] == 0 and s[ORDER_MOVES + seat] > 0:
        out[n] = A_USE_ORDER
        n += 1
    if s[GAINS_DONE] < s[GAINS_ALLOWED]:
        green = best_green(s, seat, False)
        gmin = s[GREEN_MIN]
        lo = 0 if first else s[GAIN_LINE]  # after a gain, only the turn's line
        hi = 10 if first else lo + 1
        for colour in range(4):
            mask = s[MASKS + colour]
            for line in range(lo, hi):
                chit = 10 * colour + line
                count = line_count(mask, line)
                icons = s[ICONS + chit]
                out[n] = A_GAIN + chit
                # gain_shortfall(s, chit) is 0, or d > 0 with d <= green
                n += (s[OWNER + chit] == -1) & ((count == icons) | ((count < icons) & (count >= gmin)
                                                                    & (icons - count <= green)))
    if not first:
        out[n] = A_END
        n += 1
    elif s[VOLUNTARY] == 1:
        out[n] = A_PASS
        n += 1
    return n


@njit(cache=True)
def is_legal(s, action):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    n = legal_actions(s, buf)
    for i in range(n):
        if buf[i] == action:
            return True
    return False


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action code in place (legality is the caller's to check)."""
    seat = s[TO_MOVE]
    if action < A_USE:
        swap_tiles(s, SWAPS[action, 0], SWAPS[action, 1])
        s[SWAPS_LEFT] -= 1
    elif action < A_USE_ORDER:
        chit = action - A_USE
        s[SPENT + chit] = 1
        s[ACTIVE_NOW + chit] = 1
        colour = chit // 10
        if colour == RED:
            s[SWAPS_LEFT] += s[POWER + chit]
        elif colour == YELLOW:
            s[GAINS_ALLOWED] += s[POWER + chit]
    elif action == A_USE_ORDER:
        s[ORDER_SPENT + seat] = 1
        s[ORDER_ACTIVE + seat] = 1
        s[SWAPS_LEFT] += s[ORDER_MOVES + seat]
    elif action < A_END:
        chit = action - A_GAIN
        green = green_for_gain(s, chit, seat)
        if green >= 0:
            s[GREEN_USED + green] = 1
        s[OWNER + chit] = seat
        s[GAINED_NOW + chit] = 1
        s[GAINS_DONE] += 1
        s[GAIN_LINE] = chit % 10
        s[CHITS_LEFT] -= 1
    elif action == A_END:
        finish_turn(s)
    else:  # A_PASS: the turn is void
        for cell in range(16):
            s[BOARD + cell] = s[START_BOARD + cell]
        refresh_masks(s)
        for chit in range(N_CHITS):
            if s[ACTIVE_NOW + chit] == 1:
                s[SPENT + chit] = 0
        if s[ORDER_ACTIVE + seat] == 1:
            s[ORDER_SPENT + seat] = 0
        s[PASSED + seat] = 1
        s[OUT_TURN + seat] = s[TURN]
        finish_turn(s)


@njit(cache=True)
def finish_turn(s):
    s[LAST_TURN + s[TO_MOVE]] = s[TURN]  # whose own last turn came latest
    s[TURN] += 1
    begin_turn(s)
    if s[CHITS_LEFT] == 0:
        s[OVER] = 1
        s[END_REASON] = END_ALL_GAINED
        return
    players = s[PLAYERS]
    seat = s[TO_MOVE]
    for step in range(1, players + 1):
        nxt = (seat + step) % players
        if s[PASSED + nxt] == 0:
            s[TO_MOVE] = nxt
            return
    s[OVER] = 1
    s[END_REASON] = END_ALL_PASSED


# ---- result --------------------------------------------------------------------------------------------
@njit(cache=True)
def scores(s, out):
    for seat in range(s[PLAYERS]):
        out[seat] = 0
    for chit in range(N_CHITS):
        if s[OWNER + chit] >= 0:
            out[s[OWNER + chit]] += s[POINTS + chit]


@njit(cache=True)
def winners(s, score, out):
    """Mark the winners in `out` (0/1 per seat) under the R-9 tie-break; return (tie, decided_by_tiebreak).
    `last_in_order`: the highest tied seat; `first_in_order`: the lowest; R-20 `last_to_play`: the tied
    seat whose own last turn (its final `end` or `pass`) came latest; `shared`: every tied seat.

    tie: the top score is shared by two or more players; decided_by_tiebreak: the rule picked one of them.
    """
    players = s[PLAYERS]
    top = score[0]
    for seat in range(players):
        if score[seat] > top:
            top = score[seat]
    n_top = 0
    for seat in range(players):
        out[seat] = 1 if score[seat] == top else 0
        n_top += out[seat]
    if n_top == 1 or s[TIE_BREAK] == TIE_SHARED:
        return n_top > 1, False
    keep = -1
    for seat in range(players):
        if out[seat] == 1:
            if keep < 0 or s[TIE_BREAK] == TIE_LAST:
                keep = seat
            elif s[TIE_BREAK] == TIE_LAST_TO_PLAY and s[LAST_TURN + seat] > s[LAST_TURN + keep]:
                keep = seat
    for seat in range(players):
        out[seat] = 1 if seat == keep else 0
    return True, True
