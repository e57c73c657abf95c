"""Batch self-play: many Kamakura games in one compiled call, results as arrays.

Game i is set up from seeds[i] (stream 0: layout and chit shuffle) and its agents draw from stream 1 of the
same seed, so a game's record depends on its seed and seating alone, not on which batch it ran in.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from sim.core.batching import batch_inputs, result_arrays
from sim.core.rng import rng_seeded
from sim.kamakura.agents import (
    AGENT_EXPERT,
    AGENT_GREEDY,
    AGENT_MCTS,
    AGENT_RANDOM,
    AGENT_SEARCH,
    MAX_PLAN,
    agent_plan,
    random_step,
)
from sim.kamakura.expert import expert_plan
from sim.kamakura.kernels import (
    A_GAIN,
    A_PASS,
    A_USE,
    A_USE_ORDER,
    END_REASON,
    ICONS,
    LAST_TURN,
    MAX_PLAYERS,
    N_ACTIONS,
    OUT_TURN,
    OVER,
    PLAYERS,
    POINTS,
    POWER,
    TO_MOVE,
    TURN,
    apply_action,
    new_game,
    scores,
    winners,
)
from sim.kamakura.mcts import NODES_PER_ITER, mcts_action
from sim.kamakura.planner import greedy_plan
from sim.kamakura.puct import search_plan
from sim.kamakura.turn_mcts import PLAN_WIDTH, turn_mcts_plan
from sim.kamakura.uct import (
    M_VALID,
    N_META,
    N_PARAMS,
    P_ITERS,
    P_TREE,
    P_WIDTH,
    ROOT,
    TREE_TURNS,
    VALUE_COLUMNS,
    Tree,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from sim.kamakura.params import KamakuraRules

MAX_HISTORY = 4096  # actions remembered for MCTS tree reuse; a longer game starts fresh trees
MAX_EVENTS = 96  # at most 40 gains + 40 chit activations + 4 order chits
EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER = 0, 1, 2

# What play_batch fills, per game g: scores and winners (0/1) per seat, tie / decided-by-tie-break flags,
# turns, end reason, the turn at which each seat passed (-1 if never), events[g, k] = (turn, seat, kind,
# chit id or -1) for k < n_events[g], and each chit's (icons, points, power) as dealt (chits[g, id]).
# run_batch returns these arrays by name, in this order.
BatchOut = namedtuple("BatchOut", ["scores", "winners", "tie", "decided_by_tiebreak", "turns", "end_reason",
                                   "out_turn", "last_turn", "events", "n_events", "chits"])


@njit(cache=True)
def _seat_trees(agent_kinds, agent_params, players, voluntary):
    """One search tree per seat, as a Tree whose arrays have a leading seat axis (the compaction queue is
    scratch shared by all), sized for the largest MCTS tree at any table of the batch (tiny when there is
    none); `voluntary` (the R-8 knob, 0/1): a turn tree's node has one child more, the pass. Plans are
    stored only when some seat searches whole turns."""
    capacity = 1
    plan_width = 1
    for g in range(agent_kinds.shape[0]):
        for seat in range(players):
            if agent_kinds[g, seat] == AGENT_MCTS:
                iters = int(agent_params[g, seat, P_ITERS])
                if int(agent_params[g, seat, P_TREE]) == TREE_TURNS:
                    need = (int(agent_params[g, seat, P_WIDTH]) + voluntary) * (iters + 1)
                    plan_width = PLAN_WIDTH
                else:
                    need = NODES_PER_ITER * iters + 4 * N_ACTIONS
                capacity = max(capacity, need)
    return Tree(np.full((MAX_PLAYERS, capacity), -1, dtype=np.int64),
                np.zeros((MAX_PLAYERS, capacity), dtype=np.int64),
                np.zeros((MAX_PLAYERS, capacity), dtype=np.int64),
                np.zeros((MAX_PLAYERS, capacity), dtype=np.int64),
                np.zeros((MAX_PLAYERS, capacity, VALUE_COLUMNS), dtype=np.float64),
                np.zeros((MAX_PLAYERS, N_META), dtype=np.int64),
                np.zeros((MAX_PLAYERS, capacity if plan_width > 1 else 1, plan_width), dtype=np.int16),
                np.empty(capacity, dtype=np.int64))


@njit(cache=True)
def _seat_tree(trees, seat):
    """Seat `seat`'s tree: its rows of the arrays of _seat_trees, with the shared queue."""
    return Tree(trees.first[seat], trees.count[seat], trees.edge[seat], trees.visits[seat], trees.value[seat],
                trees.meta[seat], trees.plans[seat], trees.queue)


@njit(cache=True)
def next_plan(s, rng, kind, seat_params, trees, history, n_history, plan, buf):
    """The seat to move's next actions into `plan` (returns how many): a whole turn for the planners,
    turn-tree MCTS, the expert and the search, one action for action-tree MCTS. `seat_params` is its
    parameter row."""
    seat = s[TO_MOVE]
    if kind == AGENT_EXPERT:
        return expert_plan(s, rng, seat_params, plan)
    if kind == AGENT_SEARCH:  # a fresh tree every turn: no seat tree, no history
        return search_plan(s, rng, seat_params, plan)
    if kind == AGENT_MCTS and int(seat_params[P_TREE]) == TREE_TURNS:
        return turn_mcts_plan(s, rng, seat_params, _seat_tree(trees, seat), history, n_history, plan)
    if kind == AGENT_MCTS:
        plan[0] = mcts_action(s, rng, seat_params, _seat_tree(trees, seat), history, n_history)
        return 1
    return agent_plan(kind, s, rng, plan, buf)


@njit(cache=True)
def any_search(agent_kinds, players):
    """Does any seat of the batch search with a tree (mcts)? Only then is the history of actions kept."""
    for g in range(agent_kinds.shape[0]):
        for seat in range(players):
            if agent_kinds[g, seat] == AGENT_MCTS:
                return True
    return False


@njit(cache=True)
def remember(history, n_history, action, trees):
    """Append a played action to the game's history (what MCTS trees are walked along); a game longer than
    the history (MAX_HISTORY) starts afresh, every seat's tree then invalid. Returns the new length."""
    history[n_history] = action
    n_history += 1
    if n_history == history.shape[0]:
        n_history = 0
        for other in range(MAX_PLAYERS):
            trees.meta[other, M_VALID] = 0
    return n_history


@njit(cache=True, nogil=True)  # lets the runner's helper threads work while games play
def play_batch(seeds, rules, agent_kinds, agent_params, out, play_stream):
    """Play len(seeds) games under `rules` (a kernels.KernelRules); agent_kinds[g, seat] gives each game's
    seating and agent_params[g, seat] the parameter row of an MCTS seat (uct.P_*). The setup draws from
    stream 0 of each game's seed, the agents from stream `play_stream` (1 in every study; another replays
    the same deal with other play, for the variance decomposition). Fills the arrays of `out`, a
    BatchOut."""
    players = rules.players
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    trees = _seat_trees(agent_kinds, agent_params, players, rules.voluntary)
    history = np.empty(MAX_HISTORY, dtype=np.int64)
    searching = any_search(agent_kinds, players)
    # the output arrays as locals: taking one out of the tuple at every write costs a reference count each
    events, chits = out.events, out.chits
    for g in range(seeds.shape[0]):
        for seat in range(MAX_PLAYERS):
            trees.meta[seat, M_VALID] = 0
        n_history = ROOT  # int64 from the start (uct.ROOT)
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], play_stream)
        for chit in range(40):
            chits[g, chit, 0] = s[ICONS + chit]
            chits[g, chit, 1] = s[POINTS + chit]
            chits[g, chit, 2] = s[POWER + chit]
        n_events = 0
        turn_start_events = 0
        last_turn = 0
        reachable = False  # a random seat's last step left a gain known reachable (agents.random_step)
        while s[OVER] == 0:
            seat = s[TO_MOVE]
            kind = agent_kinds[g, seat]
            if kind == AGENT_RANDOM:  # no trees, no parameters: the quick path
                plan[0], reachable = random_step(s, rng, buf, reachable)
                n_plan = 1
            else:
                reachable = False
                if kind == AGENT_GREEDY:  # no trees, no parameters either
                    n_plan = greedy_plan(s, rng, plan)
                else:
                    n_plan = next_plan(s, rng, kind, agent_params[g, seat], trees, history, n_history, plan,
                                       buf)
            for i in range(n_plan):
                action = plan[i]
                turn = s[TURN]
                if turn != last_turn:
                    turn_start_events = n_events
                    last_turn = turn
                if action == A_PASS:
                    n_events = turn_start_events  # a void turn activated nothing
                elif action >= A_USE and action <= A_USE_ORDER or (action >= A_GAIN and action < A_GAIN + 40):
                    events[g, n_events, 0] = turn
                    events[g, n_events, 1] = seat
                    if action == A_USE_ORDER:
                        events[g, n_events, 2] = EVENT_USE_ORDER
                        events[g, n_events, 3] = -1
                    elif action < A_USE_ORDER:
                        events[g, n_events, 2] = EVENT_USE_CHIT
                        events[g, n_events, 3] = action - A_USE
                    else:
                        events[g, n_events, 2] = EVENT_GAIN
                        events[g, n_events, 3] = action - A_GAIN
                    n_events += 1
                apply_action(s, action)
                if searching:
                    n_history = remember(history, n_history, action, trees)
        scores(s, score)
        tie, decided = winners(s, score, win)
        for seat in range(s[PLAYERS]):
            out.scores[g, seat] = score[seat]
            out.winners[g, seat] = win[seat]
            out.out_turn[g, seat] = s[OUT_TURN + seat]
            out.last_turn[g, seat] = s[LAST_TURN + seat]  # R-20 re-scoring
        out.tie[g] = tie
        out.decided_by_tiebreak[g] = decided
        out.turns[g] = s[TURN]
        out.end_reason[g] = s[END_REASON]
        out.n_events[g] = n_events


# ---- Python face ---------------------------------------------------------------------------------------
def run_batch(rules: KamakuraRules, seeds: ArrayLike, seating: ArrayLike,
              params: ArrayLike | None = None, play_stream: int = 1) -> dict[str, np.ndarray]:
    """Play one game per seed. `seating` is a (games, players) array of agent codes (agents.AGENT_CODES)
    or one row for every game; `params` the matching (games, players, uct.N_PARAMS) MCTS parameters, or
    one (players, N_PARAMS) table for every game (needed only when a seat plays mcts). Returns the arrays
    of BatchOut by name (see there)."""
    from sim.kamakura.game import kernel_rules

    players = rules.players
    seeds, seating, params = batch_inputs(seeds, seating, players, params, N_PARAMS)
    games = len(seeds)
    out = BatchOut(
        scores=np.zeros((games, players), dtype=np.int64),
        turns=np.zeros(games, dtype=np.int64),
        **result_arrays(games, players),
        out_turn=np.zeros((games, players), dtype=np.int64),
        last_turn=np.zeros((games, players), dtype=np.int64),
        events=np.empty((games, MAX_EVENTS, 4), dtype=np.int16),  # rows past n_events unused
        n_events=np.zeros(games, dtype=np.int64),
        chits=np.empty((games, 40, 3), dtype=np.int8),
    )
    play_batch(seeds, kernel_rules(rules), seating, params, out, play_stream)
    return out._asdict()
