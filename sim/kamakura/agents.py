"""Compiled Kamakura agents for the batch path (and, through thin wrappers, for the readable API).

random: uniform over the legal micro-actions, by rejection sampling, except that it never takes an action
    that turns a reachable gain into a void turn: a swap after which no gain is reachable any more, or a
    voluntary pass (R-8 knob). Rejection keeps the choice uniform over the actions it allows.
greedy: at the start of each turn plans the swaps, activations and claims that gain the most points this
    turn (ties: fewest power chits spent, then a seeded draw), then plays the plan out. Plans considered:
    every board reachable with up to two swaps (paying extra swaps with red/order powers) and, when its
    powers allow three or more swaps, a shortest swap path to each chit that becomes eligible, from the R-8
    distance table. On each board it claims the best set of chits in one line using its yellow and green
    powers (R-5, R-6).
"""

import numpy as np
from numba import njit

from sim.kamakura.board import (
    CELL_LINE_MASK,
    LINE_MASK,
    MASK_TO_INDEX,
    SWAP_DISTANCE,
    SWAPS,
    colour_masks,
    popcount,
)
from sim.kamakura.kernels import (
    A_END,
    A_GAIN,
    A_PASS,
    A_USE,
    A_USE_ORDER,
    BOARD,
    GREEN,
    GREEN_MIN,
    ICONS,
    ORDER_MOVES,
    ORDER_SPENT,
    OWNER,
    POINTS,
    POWER,
    RED,
    SWAPS_LEFT,
    TO_MOVE,
    YELLOW,
    gain_reachable,
    legal_actions,
    swap_tiles,
    usable_power,
)
from sim.rng import rng_below

AGENT_RANDOM = 0
AGENT_GREEDY = 1
AGENT_MCTS = 2  # searched in mcts.py; the batch loop calls it with the seat's tree
AGENT_CODES = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "mcts": AGENT_MCTS}
MAX_PLAN = 96


# ---- random --------------------------------------------------------------------------------------------
@njit(cache=True)
def swap_keeps_gain(s, action):
    """Would this swap leave a gain reachable this turn? (The state is restored before returning.)"""
    a = SWAPS[action, 0]
    b = SWAPS[action, 1]
    swap_tiles(s, a, b)
    s[SWAPS_LEFT] -= 1
    ok = gain_reachable(s)
    s[SWAPS_LEFT] += 1
    swap_tiles(s, a, b)
    return ok


@njit(cache=True)
def random_action(s, rng, buf):
    n = legal_actions(s, buf)
    if n == 1:
        return buf[0]
    while True:
        action = buf[rng_below(rng, n)]
        if action < A_USE:
            if swap_keeps_gain(s, action):
                return action
        elif action != A_PASS:
            return action


# ---- greedy --------------------------------------------------------------------------------------------

@njit(cache=True)
def _chits_to_cover(powers, n_powers, need, taken):
    """Pick power chits whose powers sum to >= need with as few chits as possible, wasting little: the
    smallest single chit that covers what is left, else the largest. Marks `taken`; returns the count,
    or -1 if the powers cannot cover the need."""
    for i in range(n_powers):
        taken[i] = 0
    count = 0
    left = need
    while left > 0:
        best = -1
        for i in range(n_powers):
            if taken[i] == 0 and powers[i] >= left and (best < 0 or powers[i] < powers[best]):
                best = i
        if best < 0:
            for i in range(n_powers):
                if taken[i] == 0 and (best < 0 or powers[i] > powers[best]):
                    best = i
        if best < 0:
            return -1
        taken[best] = 1
        left -= powers[best]
        count += 1
    return count


@njit(cache=True)
def _assign_greens(subset, need, greens, n_greens, used, out):
    """Greens for the claimed colours in `subset` (bit per colour): needs in descending order each take
    the smallest unused green that covers them (the sets of fitting greens are nested, so this finds an
    assignment whenever one exists). Writes per colour the green power used (0 none, -1 not claimed)
    into out; returns how many greens, or -1 if the claims cannot all be covered."""
    for i in range(n_greens):
        used[i] = 0
    for colour in range(4):
        out[colour] = 0 if subset >> colour & 1 else -1
    n_used = 0
    for d in range(4, 0, -1):
        for colour in range(4):
            if subset >> colour & 1 and need[colour] == d:
                pick = -1
                for i in range(n_greens):
                    if used[i] == 0 and greens[i] >= d:
                        pick = i  # greens are sorted descending: the last fit is the smallest
                if pick < 0:
                    return -1
                used[pick] = 1
                out[colour] = greens[pick]
                n_used += 1
    return n_used


@njit(cache=True)
def _line_best(s, masks, line, greens, n_greens, yellow_cost, choice, scratch):
    """Best claim in one line on a board given by colour masks: returns (points, chits spent) and writes
    into choice[0..3] the green power assigned per colour (0 = none, -1 = not claimed). scratch: 18
    integers of working space."""
    need = scratch[0:4]
    used = scratch[4:14]
    trial = scratch[14:18]
    gmin = s[GREEN_MIN]
    any_claim = False
    for colour in range(4):
        need[colour] = -1
        chit = 10 * colour + line
        if s[OWNER + chit] != -1:
            continue
        count = popcount(masks[colour] & LINE_MASK[line])
        d = s[ICONS + chit] - count
        if d == 0 or (d > 0 and count >= gmin and n_greens > 0 and greens[0] >= d):
            need[colour] = d
            any_claim = True
    best_points = 0
    best_cost = 0
    if not any_claim:
        return 0, 0
    for subset in range(1, 16):
        size = 0
        points = 0
        ok = True
        for colour in range(4):
            if subset >> colour & 1:
                if need[colour] < 0:
                    ok = False
                    break
                size += 1
                points += s[POINTS + 10 * colour + line]
        if not ok or yellow_cost[size] < 0:
            continue
        n_green_used = _assign_greens(subset, need, greens, n_greens, used, trial)
        if n_green_used < 0:
            continue
        cost = yellow_cost[size] + n_green_used
        if points > best_points or (points == best_points and cost < best_cost):
            best_points = points
            best_cost = cost
            for colour in range(4):
                choice[colour] = trial[colour]
    return best_points, best_cost


@njit(cache=True)
def _better_plan(points, cost, best, rng):
    """Is (points, cost) the best plan so far? best = [points, cost, ties]: more points first, then fewer
    chits spent; among equals a reservoir draw keeps each of them with equal probability."""
    if points > best[0] or (points == best[0] and cost < best[1]):
        best[0] = points
        best[1] = cost
        best[2] = 1
        return True
    if points == best[0] and cost == best[1]:
        best[2] += 1
        return rng_below(rng, best[2]) == 0
    return False


@njit(cache=True)
def _shortest_path(board, colour, line, target, path):
    """Swaps (indices) along a shortest path to `target` tiles of `colour` in `line`; board is advanced."""
    n = 0
    mask = 0
    for cell in range(16):
        if board[cell] == colour:
            mask |= 1 << cell
    d = SWAP_DISTANCE[MASK_TO_INDEX[mask], line, target]
    while d > 0:
        for k in range(SWAPS.shape[0]):
            a = SWAPS[k, 0]
            b = SWAPS[k, 1]
            if ((mask >> a) & 1) != ((mask >> b) & 1):
                m2 = mask ^ ((1 << a) | (1 << b))
                if SWAP_DISTANCE[MASK_TO_INDEX[m2], line, target] == d - 1:
                    tmp = board[a]
                    board[a] = board[b]
                    board[b] = tmp
                    mask = m2
                    path[n] = k
                    n += 1
                    d -= 1
                    break
    return n


@njit(cache=True)
def greedy_plan(s, rng, plan):
    """Plan the whole turn for the player to move; write action codes into `plan`, return their count."""
    seat = s[TO_MOVE]
    if not gain_reachable(s):
        plan[0] = A_PASS
        return 1
    # Powers at hand. Move chits: reds and the order chit (index 10 stands for the order chit).
    move_powers = np.zeros(11, dtype=np.int64)
    move_ids = np.zeros(11, dtype=np.int64)
    n_moves = 0
    yellow_powers = np.zeros(10, dtype=np.int64)
    yellow_ids = np.zeros(10, dtype=np.int64)
    n_yellows = 0
    greens = np.zeros(10, dtype=np.int64)
    green_ids = np.zeros(10, dtype=np.int64)
    n_greens = 0
    for line in range(10):
        if usable_power(s, 10 * RED + line, seat):
            move_powers[n_moves] = s[POWER + 10 * RED + line]
            move_ids[n_moves] = A_USE + 10 * RED + line
            n_moves += 1
        if usable_power(s, 10 * YELLOW + line, seat):
            yellow_powers[n_yellows] = s[POWER + 10 * YELLOW + line]
            yellow_ids[n_yellows] = A_USE + 10 * YELLOW + line
            n_yellows += 1
    if s[ORDER_SPENT + seat] == 0 and s[ORDER_MOVES + seat] > 0:
        move_powers[n_moves] = s[ORDER_MOVES + seat]
        move_ids[n_moves] = A_USE_ORDER
        n_moves += 1
    # greens sorted by power, descending (insertion sort keeps ids aligned)
    for line in range(10):
        chit = 10 * GREEN + line
        if usable_power(s, chit, seat):
            p = s[POWER + chit]
            i = n_greens
            while i > 0 and greens[i - 1] < p:
                greens[i] = greens[i - 1]
                green_ids[i] = green_ids[i - 1]
                i -= 1
            greens[i] = p
            green_ids[i] = chit
            n_greens += 1
    taken = np.zeros(11, dtype=np.int64)
    max_swaps = s[SWAPS_LEFT]
    for i in range(n_moves):
        max_swaps += move_powers[i]
    move_cost = np.full(max_swaps + 2, -1, dtype=np.int64)
    for k in range(max_swaps + 1):
        move_cost[k] = _chits_to_cover(move_powers, n_moves, k - s[SWAPS_LEFT], taken) if k > 1 else 0
    yellow_cost = np.full(5, -1, dtype=np.int64)
    for size in range(1, 5):
        yellow_cost[size] = _chits_to_cover(yellow_powers, n_yellows, size - 1, taken)

    board = np.empty(16, dtype=np.int64)
    for cell in range(16):
        board[cell] = s[BOARD + cell]
    masks = np.zeros(4, dtype=np.int64)
    choice = np.zeros(4, dtype=np.int64)
    scratch = np.zeros(18, dtype=np.int64)
    wmasks = np.zeros(4, dtype=np.int64)
    best = np.array([-1, 0, 0], dtype=np.int64)  # points, chits spent, ties (see _better_plan)
    best_kind = 0  # 0: up to two listed swaps, 1: shortest path to (colour, line, target)
    best_a = -1
    best_b = -1
    best_line = -1
    best_target = 0
    n_swaps = SWAPS.shape[0]
    path = np.zeros(64, dtype=np.int64)
    # Most points any claim in each line could bring (best chits on it, as many as yellows allow): lets
    # the search skip lines that cannot match the best plan so far.
    claims = 1
    while claims < 4 and yellow_cost[claims + 1] >= 0:
        claims += 1
    bound = np.zeros(10, dtype=np.int64)
    pts = np.zeros(4, dtype=np.int64)
    for line in range(10):
        n_on = 0
        for colour in range(4):
            if s[OWNER + 10 * colour + line] == -1:
                pts[n_on] = s[POINTS + 10 * colour + line]
                n_on += 1
        pts[:n_on].sort()
        for i in range(min(claims, n_on)):
            bound[line] += pts[n_on - 1 - i]
    for depth in range(3):
        if depth > max_swaps:
            break
        for first in range(n_swaps if depth >= 1 else 1):
            if depth >= 1:
                a = SWAPS[first, 0]
                b = SWAPS[first, 1]
                if board[a] == board[b]:
                    continue
                board[a], board[b] = board[b], board[a]
            for second in range(n_swaps if depth == 2 else 1):
                if depth == 2:
                    c = SWAPS[second, 0]
                    d = SWAPS[second, 1]
                    if second == first or board[c] == board[d]:
                        continue
                    board[c], board[d] = board[d], board[c]
                colour_masks(board, 0, masks)
                # A plan swaps only to change the line it claims in: lines the swaps leave alone were
                # already weighed with fewer swaps.
                if depth == 0:
                    lines = (1 << 10) - 1
                elif depth == 1:
                    lines = CELL_LINE_MASK[a] | CELL_LINE_MASK[b]
                else:
                    lines = CELL_LINE_MASK[a] | CELL_LINE_MASK[b] | CELL_LINE_MASK[c] | CELL_LINE_MASK[d]
                for line in range(10):
                    if not (lines >> line) & 1:
                        continue
                    if bound[line] < best[0] or (bound[line] == best[0] and best[1] < move_cost[depth]):
                        continue  # cannot match the best plan so far, even as a tie
                    points, cost = _line_best(s, masks, line, greens, n_greens, yellow_cost, choice,
                                              scratch)
                    if points == 0:
                        continue
                    if not _better_plan(points, cost + move_cost[depth], best, rng):
                        continue
                    best_kind = 0
                    best_a = first if depth >= 1 else -1
                    best_b = second if depth == 2 else -1
                    best_line = line
                if depth == 2:
                    board[c], board[d] = board[d], board[c]
            if depth >= 1:
                board[a], board[b] = board[b], board[a]
    if max_swaps >= 3:
        # Deeper plans: a shortest swap path that makes one chit eligible (exact distances, board.py).
        colour_masks(board, 0, masks)
        best_green = greens[0] if n_greens > 0 else 0
        work = np.empty(16, dtype=np.int64)
        for chit in range(40):
            if s[OWNER + chit] != -1:
                continue
            colour = chit // 10
            line = chit - 10 * colour
            icons = s[ICONS + chit]
            lo = icons - best_green
            if lo < s[GREEN_MIN]:
                lo = s[GREEN_MIN]
            if lo > icons:
                lo = icons
            for target in range(lo, icons + 1):
                dist = SWAP_DISTANCE[MASK_TO_INDEX[masks[colour]], line, target]
                if dist < 3 or dist > max_swaps:
                    continue
                for cell in range(16):
                    work[cell] = board[cell]
                _shortest_path(work, colour, line, target, path)
                colour_masks(work, 0, wmasks)
                for gl in range(line, line + 1):  # the line the path was built for
                    points, cost = _line_best(s, wmasks, gl, greens, n_greens, yellow_cost, choice,
                                              scratch)
                    if points == 0:
                        continue
                    if not _better_plan(points, cost + move_cost[dist], best, rng):
                        continue
                    best_kind = 1
                    best_a = chit
                    best_target = target
                    best_line = gl

    # ---- write the plan out ----
    n_path = 0
    if best_kind == 0:
        if best_a >= 0:
            path[n_path] = best_a
            n_path += 1
        if best_b >= 0:
            path[n_path] = best_b
            n_path += 1
    else:
        n_path = _shortest_path(board.copy(), best_a // 10, best_a % 10, best_target, path)
    n = 0
    if n_path > s[SWAPS_LEFT]:
        _chits_to_cover(move_powers, n_moves, n_path - s[SWAPS_LEFT], taken)
        for i in range(n_moves):
            if taken[i]:
                plan[n] = move_ids[i]
                n += 1
    for i in range(n_path):
        plan[n] = path[i]
        k = path[i]
        a = SWAPS[k, 0]
        b = SWAPS[k, 1]
        board[a], board[b] = board[b], board[a]
        n += 1
    colour_masks(board, 0, masks)
    _line_best(s, masks, best_line, greens, n_greens, yellow_cost, choice, scratch)
    size = 0
    for colour in range(4):
        if choice[colour] >= 0:
            size += 1
    if size > 1:
        _chits_to_cover(yellow_powers, n_yellows, size - 1, taken)
        for i in range(n_yellows):
            if taken[i]:
                plan[n] = yellow_ids[i]
                n += 1
    used = np.zeros(10, dtype=np.int64)
    for colour in range(4):
        power = choice[colour]
        if power > 0:
            # activate one unused green of exactly the assigned power
            for i in range(n_greens):
                if used[i] == 0 and greens[i] == power:
                    used[i] = 1
                    plan[n] = A_USE + green_ids[i]
                    n += 1
                    break
    for colour in range(4):
        if choice[colour] >= 0:
            plan[n] = A_GAIN + 10 * colour + best_line
            n += 1
    plan[n] = A_END
    return n + 1


@njit(cache=True)
def agent_plan(kind, s, rng, plan, buf):
    """The next action(s) of agent `kind`: random gives one action, greedy a whole turn."""
    if kind == AGENT_GREEDY:
        return greedy_plan(s, rng, plan)
    plan[0] = random_action(s, rng, buf)
    return 1
