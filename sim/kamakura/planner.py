"""Whole-turn planning for Kamakura (compiled): the greedy agent's search and the turn-level MCTS's moves.

One search weighs every board reachable with up to two swaps (paying extra swaps with red/order powers)
and, when the powers allow three or more swaps, a shortest swap path to each chit that can become eligible
(from the R-8 distance table, board.py); on each board it claims the best set of chits in one line using
the yellow and green powers (R-5, R-6). A plan swaps only to change the line it claims in: lines the swaps
leave alone were already weighed with fewer swaps.

`greedy_plan` keeps the one plan gaining the most points (ties: fewest power chits spent, then a seeded
draw among equals). `turn_candidates` keeps the `max_k` best distinct plans in the same order (the draw
is a seeded key per plan): two plans are the same when they leave the same board and claim in the same
line, such as two disjoint swaps made in either order. They are the moves of the turn-level search
(turn_mcts.py), the expert (expert.py) and the search (puct.py); under the R-8 knob voluntary_pass the
pass follows them (when it could still win), so that every move the rules open is weighed. greedy_plan
never passes while a gain is reachable (its docstring says why).
"""

import numpy as np
from numba import njit

from sim.core.rng import rng_below
from sim.kamakura.board import (
    CELL_LINE_MASK,
    LINE_CELLS,
    MASK_TO_INDEX,
    SWAP_DISTANCE,
    SWAPS,
    colour_masks,
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
    PLAYERS,
    POINTS,
    POWER,
    RED,
    SWAPS_LEFT,
    TO_MOVE,
    VOLUNTARY,
    YELLOW,
    gain_reachable,
    usable_power,
)

# plan rows kept by the search
C_POINTS, C_COST, C_DRAW, C_KEY, C_KIND, C_A, C_B, C_LINE = 0, 1, 2, 3, 4, 5, 6, 7
N_COLUMNS = 8
# C_KIND: 0, 1, 2 = that many listed swaps (C_A, C_B); KIND_DEEP = a shortest path to (chit C_A, target C_B)
KIND_DEEP = 3

# A line's four cells as its count of each colour, one base-5 code (c0 * 125 + c1 * 25 + c2 * 5 + c3); the
# 35 codes whose counts sum to 4 have a slot each in a search's memo of line claims (_line_value).
CODE_WEIGHT = np.array([125, 25, 5, 1], dtype=np.int64)
CODE_SLOT = np.full(625, -1, dtype=np.int64)
_slots = [code for code in range(625) if code // 125 + code // 25 % 5 + code // 5 % 5 + code % 5 == 4]
CODE_SLOT[_slots] = np.arange(len(_slots))
N_SLOTS = len(_slots)
UNKNOWN = -2  # a memo entry not worked out yet


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


@njit(cache=True, inline='always')
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


@njit(cache=True, inline='always')
def _line_code(board, line):
    """The colour counts of `line` on `board` (16 tile colours) as one base-5 code (CODE_WEIGHT)."""
    return (CODE_WEIGHT[board[LINE_CELLS[line, 0]]] + CODE_WEIGHT[board[LINE_CELLS[line, 1]]]
            + CODE_WEIGHT[board[LINE_CELLS[line, 2]]] + CODE_WEIGHT[board[LINE_CELLS[line, 3]]])


@njit(cache=True, inline='always')
def _line_value(s, board, line, greens, n_greens, yellow_cost, memo, choice, scratch):
    """_line_best's (points, chits spent) for `line` on `board`, from memo[line, slot] (int64[10, N_SLOTS,
    2], UNKNOWN until first asked): a claim depends on the board only through the line's colour counts,
    so one search works each out once. choice is not written."""
    code = _line_code(board, line)
    slot = CODE_SLOT[code]
    if memo[line, slot, 0] == UNKNOWN:
        counts = scratch[18:22]
        counts[0] = code // 125
        counts[1] = code // 25 % 5
        counts[2] = code // 5 % 5
        counts[3] = code % 5
        points, cost = _line_best(s, counts, line, greens, n_greens, yellow_cost, choice, scratch)
        memo[line, slot, 0] = points
        memo[line, slot, 1] = cost
    return memo[line, slot, 0], memo[line, slot, 1]


@njit(cache=True, inline='always')
def _line_best(s, counts, line, greens, n_greens, yellow_cost, choice, scratch):
    """Best claim in one line whose tiles count counts[c] of each colour c: returns (points, chits spent),
    points -1 when no claim is possible (a claim of 0-point chits is a claim, worth 0), and writes into
    choice[0..3] the green power assigned per colour (0 = none, -1 = not claimed). scratch: 18 integers
    of working space."""
    need = scratch[0:4]
    used = scratch[4:14]
    trial = scratch[14:18]
    gmin = s[GREEN_MIN]
    claimable = 0  # bit per colour whose chit could be claimed
    for colour in range(4):
        choice[colour] = -1  # nothing claimed unless a claim is found below
    for colour in range(4):
        need[colour] = -1
        chit = 10 * colour + line
        if s[OWNER + chit] != -1:
            continue
        count = counts[colour]
        d = s[ICONS + chit] - count
        if d == 0 or (d > 0 and count >= gmin and n_greens > 0 and greens[0] >= d):
            need[colour] = d
            claimable |= 1 << colour
    best_points = -1
    best_cost = 0
    if claimable == 0:
        return -1, 0
    # the subsets of the claimable colours, in increasing order (the others cannot be claimed)
    subset = 0
    while True:
        subset = (subset - claimable) & claimable
        if subset == 0:
            break
        size = 0
        points = 0
        for colour in range(4):
            if subset >> colour & 1:
                size += 1
                points += s[POINTS + 10 * colour + line]
        if yellow_cost[size] < 0:
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


@njit(cache=True, inline='always')
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
def powers_at_hand(s, seat):
    """The power chits `seat` can still activate this turn and what they buy: (move_powers, move_ids,
    n_moves, yellow_powers, yellow_ids, n_yellows, greens, green_ids, n_greens, move_cost, yellow_cost).
    Move chits are reds and the order chit (whose action code stands in move_ids); greens are sorted by
    power, descending. move_cost[k]: chits spent to make k swaps (-1: impossible); yellow_cost[size]:
    chits spent to claim `size` chits."""
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
    return (move_powers, move_ids, n_moves, yellow_powers, yellow_ids, n_yellows, greens, green_ids, n_greens,
            move_cost, yellow_cost)


@njit(cache=True)
def _top_sum(top, claims):
    """The sum of the `claims` largest of the kept points top[0..3] (largest first)."""
    total = 0
    for i in range(claims):
        total += top[i]
    return total


@njit(cache=True, inline='always')
def push_top(top, p):
    """Keep the 4 largest points seen, largest first, in top (set to 0 before a line: points are never
    negative)."""
    i = 3
    if p > top[3]:
        while i > 0 and top[i - 1] < p:
            top[i] = top[i - 1]
            i -= 1
        top[i] = p


@njit(cache=True)
def _claims(yellow_cost):
    """How many chits one claim can take with the yellows at hand (R-5)."""
    claims = 1
    while claims < 4 and yellow_cost[claims + 1] >= 0:
        claims += 1
    return claims


@njit(cache=True)
def line_bounds(s, yellow_cost):
    """Most points any claim in each line could bring (its best chits, as many as the yellows allow): lets
    a plan search skip lines that cannot match what it has already found."""
    claims = _claims(yellow_cost)
    bound = np.zeros(10, dtype=np.int64)
    top = np.empty(4, dtype=np.int64)
    for line in range(10):
        top[:] = 0
        for colour in range(4):
            if s[OWNER + 10 * colour + line] == -1:
                push_top(top, s[POINTS + 10 * colour + line])
        bound[line] = _top_sum(top, claims)
    return bound


@njit(cache=True)
def depth_bounds(s, board, yellow_cost, greens, n_greens, bounds):
    """bounds[line, d] for d = 0, 1, 2: the most points a claim in `line` can bring after d swaps, the best
    chits (as many as the yellows allow) each within d swaps of eligibility on `board` (SWAP_DISTANCE, the
    best green lowering requirements as _line_best allows, R-6); -1 when none is. Tighter than
    line_bounds, so the greedy search turns away more lines that could neither win nor tie."""
    claims = _claims(yellow_cost)
    masks = np.zeros(4, dtype=np.int64)
    colour_masks(board, 0, masks)
    best_green = greens[0] if n_greens > 0 else 0
    dist = np.empty(4, dtype=np.int64)
    top = np.empty(4, dtype=np.int64)
    for line in range(10):
        nearest = 99
        for colour in range(4):
            chit = 10 * colour + line
            dist[colour] = 99
            if s[OWNER + chit] != -1:
                continue
            icons = s[ICONS + chit]
            lo = max(icons - best_green, s[GREEN_MIN])
            if lo > icons:
                lo = icons
            index = MASK_TO_INDEX[masks[colour]]
            for target in range(lo, icons + 1):
                dist[colour] = min(dist[colour], SWAP_DISTANCE[index, line, target])
            nearest = min(nearest, dist[colour])
        for depth in range(3):
            if nearest > depth:
                bounds[line, depth] = -1
                continue
            top[:] = 0
            for colour in range(4):
                if dist[colour] <= depth:
                    push_top(top, s[POINTS + 10 * colour + line])
            bounds[line, depth] = _top_sum(top, claims)


@njit(cache=True)
def write_plan(s, powers, path, n_path, line, plan):
    """Write the turn that makes the swaps path[:n_path] (activating move chits as needed) and then the
    best claim in `line` (yellows and greens as needed, R-5, R-6) as action codes into plan; return the
    count. powers: powers_at_hand(s, seat)."""
    (move_powers, move_ids, n_moves, yellow_powers, yellow_ids, n_yellows, greens, green_ids, n_greens,
     move_cost, yellow_cost) = powers
    taken = np.zeros(11, dtype=np.int64)
    board = np.empty(16, dtype=np.int64)
    for cell in range(16):
        board[cell] = s[BOARD + cell]
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
    counts = np.zeros(4, dtype=np.int64)
    choice = np.zeros(4, dtype=np.int64)
    scratch = np.zeros(18, dtype=np.int64)
    for cell in LINE_CELLS[line]:
        counts[board[cell]] += 1
    _line_best(s, counts, line, greens, n_greens, yellow_cost, choice, scratch)
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
            plan[n] = A_GAIN + 10 * colour + line
            n += 1
    plan[n] = A_END
    return n + 1


@njit(cache=True, inline='always')
def _pack(board, line):
    """The board (2 bits a cell) and the claimed line in one integer: a plan's identity."""
    key = 0
    for cell in range(16):
        key |= board[cell] << (2 * cell)
    return key | (line << 32)


@njit(cache=True, inline='always')
def _ranks_above(a, b):
    """Does candidate row a rank above row b? More points, then fewer chits spent, then the draw."""
    if a[C_POINTS] != b[C_POINTS]:
        return a[C_POINTS] > b[C_POINTS]
    if a[C_COST] != b[C_COST]:
        return a[C_COST] < b[C_COST]
    return a[C_DRAW] > b[C_DRAW]


@njit(cache=True, inline='always')
def _offer(cands, n, max_k, row):
    """Keep `row` among the best max_k distinct plans in cands[:n]; return the new count."""
    for i in range(n):
        if cands[i, C_KEY] == row[C_KEY]:
            if _ranks_above(row, cands[i]):
                cands[i, :] = row
            return n
    if n < max_k:
        cands[n, :] = row
        return n + 1
    worst = _worst(cands, n)
    if _ranks_above(row, cands[worst]):
        cands[worst, :] = row
    return n


@njit(cache=True, inline='always')
def _worst(cands, n):
    """The row of cands[:n] that ranks lowest (the first of equals): the one a better plan replaces."""
    worst = 0
    for i in range(1, n):
        if _ranks_above(cands[worst], cands[i]):
            worst = i
    return worst


@njit(cache=True, inline='always')
def _floor(cands, n, max_k, worst):
    """Points a new plan needs to have a chance of a place: 1 while places are free, else the worst kept
    (worst[0]: its row, kept up to date by _keep once the places are full)."""
    if n < max_k:
        return 1
    return cands[worst[0], C_POINTS]


@njit(cache=True, inline='always')
def _describe(row, points, cost, kind, a, b, line):
    """Write a weighed plan into `row`: its points and cost, and what to replay (kind, a, b, line)."""
    row[C_POINTS] = points
    row[C_COST] = cost
    row[C_KIND] = kind
    row[C_A] = a
    row[C_B] = b
    row[C_LINE] = line


@njit(cache=True, inline='always')
def _keep(cands, n, max_k, greedy, best, rng, row, board, worst):
    """Offer the plan described in `row` (_describe; board: the board after its swaps) to the search's
    store; return the new count. greedy: one slot, the reservoir draw of _better_plan among equals
    (best = [points, cost, ties]); else the best max_k distinct plans (_offer), each with a draw of its
    own and its identity (_pack). worst[0]: the lowest kept row once the places are full (_worst); a plan
    that does not rank above it changes nothing (it ranks no higher than any kept plan, its twin
    included), so it is turned away before its identity is worked out."""
    if greedy:
        if _better_plan(row[C_POINTS], row[C_COST], best, rng):
            cands[0, :] = row
            return 1
        return n
    row[C_DRAW] = rng_below(rng, 1 << 30)
    if n == max_k and not _ranks_above(row, cands[worst[0]]):
        return n
    row[C_KEY] = _pack(board, row[C_LINE])
    n = _offer(cands, n, max_k, row)
    if n == max_k:
        worst[0] = _worst(cands, n)
    return n


@njit(cache=True, inline='always')
def _hopeless(bound, min_cost, cands, n, max_k, greedy, best, worst):
    """Can no claim worth at most `bound` points, paying at least `min_cost` chits, be kept (or tie)?"""
    if greedy:
        return bound < best[0] or (bound == best[0] and best[1] < min_cost)
    return bound < _floor(cands, n, max_k, worst)


@njit(cache=True, inline='always')
def _alive_lines(bound, min_cost, cands, n, max_k, greedy, best, worst):
    """Bit per line whose claims, worth at most bound[line] and paying at least `min_cost` chits, may
    still be kept: a superset of the lines _hopeless lets through now and at any later point of the same
    search (its bar only rises; while places are free the others' floor of 1 may yet fall to a kept
    0-point plan's 0, so 0 is taken), so lines outside it are skipped with no change to the search."""
    alive = 0
    for line in range(10):
        if greedy:
            keep = not _hopeless(bound[line], min_cost, cands, n, max_k, greedy, best, worst)
        else:
            keep = bound[line] >= (cands[worst[0], C_POINTS] if n == max_k else 0)
        if keep:
            alive |= 1 << line
    return alive


@njit(cache=True, inline='always')
def _new_lines(a, b, c, d):
    """The lines where swap (a, b) then swap (c, d) may leave counts that no single swap left: those
    holding c or d, and, when the swaps share no cell, also a or b. In any other line the two swaps
    leave the counts of one swap alone, a claim the greedy search weighed at depth 1 with fewer chits
    spent (or found hopeless then, and still is): offered again it could neither win nor tie, so only
    the greedy search (no draw per plan) leaves it out."""
    lines = CELL_LINE_MASK[c] | CELL_LINE_MASK[d]
    if a != c and a != d and b != c and b != d:
        lines &= CELL_LINE_MASK[a] | CELL_LINE_MASK[b]
    return lines


@njit(cache=True)
def _search_plans(s, rng, powers, cands, max_k, greedy):
    """Weigh every plan of the player to move (see the module docstring) and keep the best in cands
    (rows of C_* columns); return how many."""
    greens = powers[6]
    n_greens = powers[8]
    move_cost = powers[9]
    yellow_cost = powers[10]
    max_swaps = s[SWAPS_LEFT] + powers[0].sum()
    bound = line_bounds(s, yellow_cost)
    board = np.empty(16, dtype=np.int64)
    for cell in range(16):
        board[cell] = s[BOARD + cell]
    # the greedy search's bound of each line at 0, 1 and 2 swaps; turn_candidates draws a key for every
    # plan it offers, so a tighter bound would change its stream: it keeps line_bounds at every depth
    bounds = np.empty((10, 3), dtype=np.int64)
    if greedy:
        depth_bounds(s, board, yellow_cost, greens, n_greens, bounds)
    else:
        for depth in range(3):
            bounds[:, depth] = bound
    masks = np.zeros(4, dtype=np.int64)
    choice = np.zeros(4, dtype=np.int64)
    scratch = np.zeros(22, dtype=np.int64)
    memo = np.full((10, N_SLOTS, 2), UNKNOWN, dtype=np.int64)
    row = np.zeros(N_COLUMNS, dtype=np.int64)
    best = np.array([-1, 0, 0], dtype=np.int64)  # greedy: points, chits spent, ties (see _better_plan)
    worst = np.zeros(1, dtype=np.int64)  # the others: the lowest kept row once all max_k are kept (_keep)
    n = 0
    n_swaps = SWAPS.shape[0]
    for depth in range(3):
        if depth > max_swaps:
            break
        for first in range(n_swaps if depth >= 1 else 1):
            alive = _alive_lines(bounds[:, depth], move_cost[depth], cands, n, max_k, greedy, best, worst)
            if alive == 0:
                break  # a line turned away stays so: the search only raises its bar
            a = SWAPS[first, 0]
            b = SWAPS[first, 1]
            if depth >= 1:
                if board[a] == board[b]:
                    continue
                board[a], board[b] = board[b], board[a]
            for second in range(n_swaps if depth == 2 else 1):
                c = SWAPS[second, 0]
                d = SWAPS[second, 1]
                if depth == 0:
                    lines = (1 << 10) - 1
                elif depth == 1:
                    lines = CELL_LINE_MASK[a] | CELL_LINE_MASK[b]
                elif greedy and move_cost[2] > move_cost[1]:
                    lines = _new_lines(a, b, c, d)
                else:
                    lines = CELL_LINE_MASK[a] | CELL_LINE_MASK[b] | CELL_LINE_MASK[c] | CELL_LINE_MASK[d]
                lines &= alive
                if lines == 0:
                    continue
                if depth == 2:
                    if second == first or board[c] == board[d]:
                        continue
                    board[c], board[d] = board[d], board[c]
                for line in range(10):
                    if not (lines >> line) & 1:
                        continue
                    if _hopeless(bounds[line, depth], move_cost[depth], cands, n, max_k, greedy, best, worst):
                        continue
                    points, cost = _line_value(s, board, line, greens, n_greens, yellow_cost, memo, choice,
                                               scratch)
                    if points < 0:
                        continue
                    _describe(row, points, cost + move_cost[depth], depth, first if depth >= 1 else -1,
                              second if depth == 2 else -1, line)
                    n = _keep(cands, n, max_k, greedy, best, rng, row, board, worst)
                if depth == 2:
                    board[c], board[d] = board[d], board[c]
            if depth >= 1:
                board[a], board[b] = board[b], board[a]
    if max_swaps >= 3:
        colour_masks(board, 0, masks)
        best_green = greens[0] if n_greens > 0 else 0
        work = np.empty(16, dtype=np.int64)
        path = np.zeros(64, dtype=np.int64)
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
                if _hopeless(bound[line], move_cost[dist], cands, n, max_k, greedy, best, worst):
                    continue
                work[:] = board
                _shortest_path(work, colour, line, target, path)
                points, cost = _line_value(s, work, line, greens, n_greens, yellow_cost, memo, choice,
                                           scratch)
                if points < 0:
                    continue
                _describe(row, points, cost + move_cost[dist], KIND_DEEP, chit, target, line)
                n = _keep(cands, n, max_k, greedy, best, rng, row, work, worst)
    return n


@njit(cache=True)
def _write_row(s, powers, row, plan):
    """Write the plan of a kept row as action codes into plan; return the count."""
    path = np.zeros(64, dtype=np.int64)
    n_path = 0
    if row[C_KIND] == KIND_DEEP:
        work = np.empty(16, dtype=np.int64)
        for cell in range(16):
            work[cell] = s[BOARD + cell]
        n_path = _shortest_path(work, row[C_A] // 10, row[C_A] % 10, row[C_B], path)
    else:
        if row[C_KIND] >= 1:
            path[0] = row[C_A]
            n_path = 1
        if row[C_KIND] == 2:
            path[1] = row[C_B]
            n_path = 2
    return write_plan(s, powers, path, n_path, row[C_LINE], plan)


@njit(cache=True)
def greedy_plan(s, rng, plan):
    """Plan the whole turn for the player to move; write action codes into `plan`, return their count.

    It passes only when no gain is reachable (R-8), also under the voluntary_pass knob: a pass scores
    nothing now and, the player being out, nothing later, while any gain, even one needing no swap, adds
    points and keeps the choice of passing open for the next turn. What a pass can be worth is what the
    turn's swaps would hand the players after it, which a one-turn view does not see; the searching
    agents (expert, search, mcts) weigh it (turn_candidates offers it them)."""
    if not gain_reachable(s):
        plan[0] = A_PASS
        return 1
    powers = powers_at_hand(s, s[TO_MOVE])
    cands = np.zeros((1, N_COLUMNS), dtype=np.int64)
    _search_plans(s, rng, powers, cands, 1, True)
    return _write_row(s, powers, cands[0], plan)


@njit(cache=True)
def pass_can_win(s):
    """Could a voluntary pass (R-8 knob) still win for the player to move: is its score now at least every
    other seat's? A pass fixes the player's final score where it stands, and the others' can only grow,
    so from behind it cannot win (nor tie for the win); a gain keeps every chance it had."""
    me = s[TO_MOVE]
    mine = 0
    for chit in range(40):
        if s[OWNER + chit] == me:
            mine += s[POINTS + chit]
    for other in range(s[PLAYERS]):
        if other == me:
            continue
        theirs = 0
        for chit in range(40):
            if s[OWNER + chit] == other:
                theirs += s[POINTS + chit]
        if theirs > mine:
            return False
    return True


@njit(cache=True)
def turn_candidates(s, rng, max_k, plans):
    """Write up to max_k whole-turn plans (action codes, each ending with `end`, or a lone `pass` when no
    gain is reachable, R-8) into the rows of plans (int64[max_k + 1, MAX_PLAN]), best first; return
    (count, lengths).

    Under the R-8 knob voluntary_pass a reachable gain may also be given up: when the player's score now
    is at least every other seat's (pass_can_win; from behind a pass cannot win) the lone `pass` follows
    the max_k gaining plans, as plan max_k + 1 at most (so the gains offered are the same with the knob
    or without; plans needs the extra row for it). The searches that take these plans (expert, search,
    turn-level mcts) weigh it as a move; greedy_plan never passes while a gain is reachable (see
    there)."""
    lengths = np.zeros(max_k + 1, dtype=np.int64)
    if not gain_reachable(s):
        plans[0, 0] = A_PASS
        lengths[0] = 1
        return 1, lengths
    powers = powers_at_hand(s, s[TO_MOVE])
    cands = np.zeros((max_k, N_COLUMNS), dtype=np.int64)
    n = _search_plans(s, rng, powers, cands, max_k, False)
    # Best first (insertion sort: n is small).
    order = np.arange(n)
    for i in range(1, n):
        j = i
        while j > 0 and _ranks_above(cands[order[j]], cands[order[j - 1]]):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    for i in range(n):
        lengths[i] = _write_row(s, powers, cands[order[i]], plans[i])
    if s[VOLUNTARY] == 1 and n < plans.shape[0] and pass_can_win(s):  # a place for it: max_k + 1 rows
        plans[n, 0] = A_PASS
        lengths[n] = 1
        n += 1
    return n, lengths
