"""The Kamakura `expert` agent (compiled): a learned evaluation of positions over a shallow search of whole
turns.

At the start of its turn the expert takes the planner's `width` best distinct turns (planner.py, the
moves of the turn-level MCTS) and plays each on a copy of the position. It scores the position right
after each with the evaluation (cheap); the `deep` best of them it plays on with greedy turns for
`horizon` rounds, every seat in turn, its own next turn included (as the `mcts` agent's horizon judges a
leaf right after the searcher moved again), and scores the position reached. The evaluation is each
seat's score now plus its predicted points still to come, w . features(seat), never below 0 (a seat that
has passed gains nothing more); the expert plays the turn whose position leaves it the largest lead over
the best other seat (ties: the planner's order, so with equal values it plays greedy's turn). When the
best candidate's quick score leads the second best's by more than `settle` predicted points it plays that
turn without the deep look (0: always look deep; docs/design/notes.md, Kamakura speed, measures the
default: about a fifth of the turns skip it, and one such expert against two that always look deep keeps
its share of wins within the non-inferiority margin). Under the R-8 knob voluntary_pass, when the seat's
score now is at least every other's (from behind a pass cannot win), the planner offers the pass after
the gaining turns (turn_candidates); the expert chooses among the gaining turns as without the knob, then
looks deep at the pass and at that choice and plays the pass only if it leaves the larger lead: whether
a pass from the lead wins turns on what the others reach after it, which the replies play out and the
quick evaluation, fitted on games without voluntary passes, misjudges.

The features (FEATURES, in the weights' order, declared in the registry entry) speak of points, powers
and swap distances, never of chit ids, so a model trained on one config means the same on a variant:
what is left on the board (points and chits, also per seat still in); the seat's unspent move (red and
order), yellow and green powers; and, by the seat's place in the coming turn order (next to move,
second, ...), the most points one chit can bring it within the swaps it can pay for (its best green
lowering requirements, R-6), the most one line can bring it with its yellows (R-5: one line a turn), and
the points within one swap and at two swaps of eligibility. The weights are fitted by `balance train`
(sim/app/train.py) from self-play; the model files are sim/core/expert_model.py's.

Why these defaults (head to head, 600 3-player games, one expert against two, seats rotated, fair share
33.3%): seeing its own next turn played out (horizon 1) beats stopping before it, 41.5% [37.6, 45.4];
16 candidate turns beat 8 (12 against 8: 40.2% [36.2, 44.1]; 16 against 12: 37.0% [33.1, 40.9]), while
24 against 16 (36.5% [32.6, 40.4]) and a deeper look at 4 candidates rather than 3 (34.2% [30.4, 38.0])
add little for their cost.
"""

import numpy as np
from numba import njit

from sim.kamakura.agent_kinds import AGENTS, EXPERT_FEATURES, EXPERT_RANKED
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.board import MASK_TO_INDEX, SWAP_DISTANCE
from sim.kamakura.kernels import (
    A_PASS,
    CHITS_LEFT,
    GREEN,
    GREEN_MIN,
    ICONS,
    MASKS,
    MAX_PLAYERS,
    N_CHITS,
    ORDER_MOVES,
    ORDER_SPENT,
    OVER,
    OWNER,
    PASSED,
    PLAYERS,
    POINTS,
    POWER,
    RED,
    SPENT,
    TO_MOVE,
    VOLUNTARY,
    YELLOW,
    apply_action,
    gain_reachable,
    scores,
)
from sim.kamakura.planner import greedy_plan, push_top, turn_candidates

# The parameter row of an expert seat: its numeric parameters in the registry's order (spec.py), then the
# model's weights (sim/core/agent_spec.py agent_row appends them).
_NUMERIC = [key for key, (kind, _default) in AGENTS["expert"].params.items() if kind is not str]
E_WIDTH, E_DEEP, E_HORIZON, E_SETTLE = (_NUMERIC.index(key) for key in ("width", "deep", "horizon",
                                                                        "settle"))
E_WEIGHTS = len(_NUMERIC)

FEATURES = EXPERT_FEATURES  # declared in the registry entry, so validation reads them without kernels
N_FEATURES = len(FEATURES)
_PLACED = FEATURES.index("next_0")  # features before the ones per place in the turn order
_PER_RANK = len(EXPERT_RANKED)
_FAR = 127   # SWAP_DISTANCE's "unreachable"


@njit(cache=True, inline='always')
def _chit_distance(s, chit, green):
    """Fewest swaps that make `chit` (on the board) eligible, a green of power `green` lowering its
    requirement by up to that much but not below the green_min knob (R-6)."""
    colour = chit // 10
    line = chit % 10
    index = MASK_TO_INDEX[s[MASKS + colour]]
    need = s[ICONS + chit]
    lowest = need - green
    if lowest < s[GREEN_MIN]:
        lowest = s[GREEN_MIN]
    if lowest > need:
        lowest = need
    best = _FAR
    for target in range(lowest, need + 1):
        d = SWAP_DISTANCE[index, line, target]
        if d < best:
            best = d
    return best


@njit(cache=True, inline='always')
def _chit_distances(s, green, out):
    """_chit_distance of every chit on the board into out[chit] (chits owned: left as they were)."""
    for chit in range(N_CHITS):
        if s[OWNER + chit] == -1:
            out[chit] = _chit_distance(s, chit, green)


@njit(cache=True, inline='always')
def _seat_powers(s, seat):
    """The seat's unspent red, yellow and green powers and its largest unspent green: (red, yellow, green,
    best_green)."""
    red = 0
    yellow = 0
    green = 0
    best_green = 0
    for line in range(10):
        for colour in (RED, YELLOW, GREEN):
            chit = 10 * colour + line
            if s[OWNER + chit] == seat and s[SPENT + chit] == 0:
                p = s[POWER + chit]
                if colour == RED:
                    red += p
                elif colour == YELLOW:
                    yellow += p
                else:
                    green += p
                    if p > best_green:
                        best_green = p
    return red, yellow, green, best_green


@njit(cache=True)
def features(s, seat, out):
    """The evaluation's features of `seat` in position s (FEATURES order) into out[:N_FEATURES]."""
    dist = np.empty(N_CHITS, dtype=np.int64)
    _chit_distances(s, _seat_powers(s, seat)[3], dist)
    _features(s, seat, dist, np.empty(4, dtype=np.int64), out)


@njit(cache=True, inline='always')
def _features(s, seat, dist, top, out):
    """features(s, seat, out) given dist, the _chit_distances for the seat's best green; top: 4 integers of
    working space."""
    players = s[PLAYERS]
    n_active = 0
    for other in range(players):
        if s[PASSED + other] == 0:
            n_active += 1
    points_left = 0
    for chit in range(N_CHITS):
        if s[OWNER + chit] == -1:
            points_left += s[POINTS + chit]
    red, yellow, green, _best_green = _seat_powers(s, seat)
    order = s[ORDER_MOVES + seat] if s[ORDER_SPENT + seat] == 0 else 0
    out[:N_FEATURES] = 0.0
    out[0] = 1.0
    out[1] = points_left
    out[2] = points_left / max(n_active, 1)
    out[3] = s[CHITS_LEFT]
    out[4] = s[CHITS_LEFT] / max(n_active, 1)
    out[5] = red
    out[6] = yellow
    out[7] = green
    out[8] = order
    # the seat's place among the seats still in, counted from the one to move
    rank = 0
    other = s[TO_MOVE]
    for _ in range(players):
        if other == seat:
            break
        if s[PASSED + other] == 0:
            rank += 1
        other = (other + 1) % players
    swaps = 1 + red + order
    claims = min(1 + yellow, 4)
    reach = 0
    near = 0
    mid = 0
    claim = 0
    for line in range(10):
        top[:] = 0
        for colour in range(4):
            chit = 10 * colour + line
            if s[OWNER + chit] != -1:
                continue
            d = dist[chit]
            p = s[POINTS + chit]
            if d <= 1:
                near += p
            elif d == 2:
                mid += p
            if d <= swaps:
                if p > reach:
                    reach = p
                push_top(top, p)  # the line's best chits within reach, largest first
        total = 0
        for i in range(claims):
            total += top[i]
        if total > claim:
            claim = total
    base = _PLACED + _PER_RANK * rank
    out[base] = 1.0
    out[base + 1] = reach
    out[base + 2] = claim
    out[base + 3] = near
    out[base + 4] = mid


# Working space of the evaluation (new_eval_space): floats (each seat's final, then the features) and
# integers (the chit distances for up to MAX_PLAYERS distinct best greens, their greens, the line's top 4).
_DIST = 0
_GREENS = MAX_PLAYERS * N_CHITS
_TOP = _GREENS + MAX_PLAYERS


@njit(cache=True)
def new_eval_space():
    """(floats, ints): the working space of predicted_finals_in and lead_in, made once per search."""
    return np.zeros(MAX_PLAYERS + N_FEATURES, dtype=np.float64), np.zeros(_TOP + 4, dtype=np.int64)


@njit(cache=True)
def predicted_finals_in(s, weights, out, ints, f):
    """predicted_finals with working space (new_eval_space: ints, and N_FEATURES floats f): the chit
    distances are worked out once per distinct best green among the seats, not once per seat."""
    scores(s, out)
    if s[OVER] == 1:
        return
    n_rows = 0
    for seat in range(s[PLAYERS]):
        if s[PASSED + seat] == 1:
            continue
        best_green = _seat_powers(s, seat)[3]
        row = 0
        while row < n_rows and ints[_GREENS + row] != best_green:
            row += 1
        dist = ints[_DIST + N_CHITS * row:_DIST + N_CHITS * (row + 1)]
        if row == n_rows:
            _chit_distances(s, best_green, dist)
            ints[_GREENS + row] = best_green
            n_rows += 1
        _features(s, seat, dist, ints[_TOP:_TOP + 4], f)
        gain = 0.0
        for k in range(N_FEATURES):
            gain += weights[k] * f[k]
        if gain > 0.0:
            out[seat] += gain


@njit(cache=True)
def predicted_finals(s, weights, out):
    """Each seat's score now plus its predicted points to come (>= 0; 0 once passed or over) into out."""
    floats, ints = new_eval_space()
    predicted_finals_in(s, weights, out, ints, floats[MAX_PLAYERS:])


@njit(cache=True)
def lead_in(s, seat, weights, floats, ints):
    """lead with working space (new_eval_space)."""
    finals = floats[:MAX_PLAYERS]
    finals[:] = 0.0
    predicted_finals_in(s, weights, finals, ints, floats[MAX_PLAYERS:])
    best_other = -1e18
    for other in range(s[PLAYERS]):
        if other != seat and finals[other] > best_other:
            best_other = finals[other]
    return finals[seat] - best_other


@njit(cache=True)
def lead(s, seat, weights):
    """The evaluation of position s for `seat`: its predicted final score minus the best other seat's."""
    floats, ints = new_eval_space()
    return lead_in(s, seat, weights, floats, ints)


@njit(cache=True)
def _quick_leads(s, me, cands, lengths, n, weights, st, floats, ints, quick):
    """The evaluation's lead for `me` right after each of the n candidate turns, into quick[:n]."""
    for k in range(n):
        st[:] = s
        for j in range(lengths[k]):
            apply_action(st, cands[k, j])
        quick[k] = lead_in(st, me, weights, floats, ints)


@njit(cache=True)
def _deep_value(s, rng, me, cands, lengths, k, replies, weights, space):
    """The deep look at candidate k: played on with `replies` greedy turns and scored again (`me`'s lead).
    `space`: the working arrays (position, reply plan, the evaluation's floats and ints)."""
    st, reply, floats, ints = space
    st[:] = s
    for j in range(lengths[k]):
        apply_action(st, cands[k, j])
    # the replies draw from a copy of one generator state: every candidate meets the same draws
    reply_rng = rng.copy()
    for _ in range(replies):
        if st[OVER] == 1:
            break
        m = greedy_plan(st, reply_rng, reply)
        for j in range(m):
            apply_action(st, reply[j])
    return lead_in(st, me, weights, floats, ints)


@njit(cache=True)
def _deep_best(s, rng, me, cands, lengths, ranked, replies, weights, space):
    """The deep look (_deep_value) at the candidates `ranked`; returns the best one's index (ties: the
    planner's order)."""
    best = 0
    best_value = -1e18
    for k in ranked:
        value = _deep_value(s, rng, me, cands, lengths, k, replies, weights, space)
        if value > best_value + 1e-9 or (abs(value - best_value) <= 1e-9 and k < best):
            best_value = value
            best = k
    return best


@njit(cache=True)
def expert_look(s, rng, params, cands):
    """The expert's choice at s (a turn start where a gain is reachable) and what led to it: (n, lengths,
    quick gap, quick best, chosen). The quick gap is the best candidate's quick lead minus the second
    best's (inf with one candidate); the deep look is skipped, and the quick best played, when `settle`
    > 0 and the gap exceeds it (0: always look deep). `cands`: int64[width + 1, MAX_PLAN] of working
    space.

    Under the R-8 knob voluntary_pass the planner may follow the gaining turns with the pass (when the
    seat's score now is at least every other's: turn_candidates). The choice among the gaining turns is
    made as without the knob (the gap and the quick best are theirs); then the pass and that choice are
    both looked at deep and the pass is played only if its value is the higher. So with the knob the
    expert plays the same turns as without, except the passes it finds better: the quick evaluation,
    fitted on games where nobody passes while a gain is open, never decides one."""
    width = max(int(params[E_WIDTH]), 1)
    replies = int(params[E_HORIZON]) * s[PLAYERS]  # through the expert's own next turn(s)
    deep = max(int(params[E_DEEP]), 1)
    settle = params[E_SETTLE]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    me = s[TO_MOVE]
    n, lengths = turn_candidates(s, rng, width, cands)
    voluntary = s[VOLUNTARY] == 1 and n >= 2 and lengths[n - 1] == 1 and cands[n - 1, 0] == A_PASS
    turns = n - 1 if voluntary else n  # the gaining turns, the pass (if offered) after them
    if turns <= 1 and not voluntary:
        return n, lengths, np.inf, 0, 0
    st = np.empty_like(s)
    floats, ints = new_eval_space()
    reply = np.empty(MAX_PLAN, dtype=np.int64)
    space = (st, reply, floats, ints)
    gap = np.inf
    quick_best = 0
    chosen = 0
    if turns > 1:
        # first the position right after each turn, scored as it stands (cheap) ...
        quick = np.empty(turns, dtype=np.float64)
        _quick_leads(s, me, cands, lengths, turns, weights, st, floats, ints, quick)
        order = np.argsort(-quick, kind="mergesort")
        gap = quick[order[0]] - quick[order[1]]
        quick_best = order[0]
        chosen = order[0]
        if not (settle > 0.0 and gap > settle):
            # ... then the `deep` best of those again after `horizon` rounds of greedy turns (the costly part)
            chosen = _deep_best(s, rng, me, cands, lengths, order[:min(deep, turns)], replies, weights, space)
    if voluntary:
        pass_value = _deep_value(s, rng, me, cands, lengths, n - 1, replies, weights, space)
        if pass_value > _deep_value(s, rng, me, cands, lengths, chosen, replies, weights, space) + 1e-9:
            chosen = n - 1
    return n, lengths, gap, quick_best, chosen


@njit(cache=True)
def expert_plan(s, rng, params, plan):
    """The expert's whole turn at s (a turn start) into `plan`; returns its length. `params` is the
    seat's parameter row (E_WIDTH, E_DEEP, E_HORIZON, E_SETTLE, then the weights from E_WEIGHTS)."""
    if not gain_reachable(s):
        return greedy_plan(s, rng, plan)  # the forced pass
    cands = np.empty((max(int(params[E_WIDTH]), 1) + 1, MAX_PLAN), dtype=np.int64)
    _n, lengths, _gap, _quick_best, best = expert_look(s, rng, params, cands)
    for j in range(lengths[best]):
        plan[j] = cands[best, j]
    return lengths[best]
