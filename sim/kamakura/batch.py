"""Batch self-play: many Kamakura games in one compiled call, results as arrays.

Game i is set up from seeds[i] (stream 0: layout and chit shuffle) and its agents draw from stream 1 of the
same seed, so a game's record depends on its seed and seating alone, not on which batch it ran in.
"""

import numpy as np
from numba import njit

from sim.batching import batch_inputs
from sim.kamakura.agents import AGENT_MCTS, MAX_PLAN, agent_plan
from sim.kamakura.kernels import (
    A_GAIN,
    A_PASS,
    A_USE,
    A_USE_ORDER,
    END_REASON,
    ICONS,
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
from sim.kamakura.mcts import (
    M_VALID,
    N_PARAMS,
    NODES_PER_ITER,
    P_C,
    P_HORIZON,
    P_ITERS,
    P_PRIOR,
    P_REWARD,
    P_ROLLOUT,
    P_TREE,
    P_WIDTH,
    TREE_TURNS,
    VALUE_COLUMNS,
    mcts_action,
)
from sim.kamakura.turn_mcts import PLAN_WIDTH, turn_mcts_plan
from sim.rng import rng_seeded

MAX_HISTORY = 4096  # actions remembered for MCTS tree reuse; a longer game starts fresh trees
MAX_EVENTS = 96  # at most 40 gains + 40 chit activations + 4 order chits
EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER = 0, 1, 2


@njit(cache=True, nogil=True)  # lets the runner's helper threads work while games play
def play_batch(seeds, players, layout, random_layout, chit_sets, order_moves, green_min, voluntary,
               tie_break, agent_kinds, agent_params, out_scores, out_winners, out_tie, out_decided, out_turns,
               out_end_reason, out_out_turn, out_events, out_n_events, out_chits):
    """Play len(seeds) games; agent_kinds[g, seat] gives each game's seating and agent_params[g, seat]
    the parameters of an MCTS seat (mcts.P_*). Fills the out_* arrays:
    scores and winners (0/1) per seat, tie / decided-by-tie-break flags, turns, end reason, the turn at
    which each seat passed (-1 if never), events[g, k] = (turn, seat, kind, chit id or -1), and each
    chit's (icons, points, power) as dealt in that game (chits[g, id])."""
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    # One search tree per seat, sized for the largest MCTS tree at the table (tiny when there is none).
    capacity = 1
    plan_width = 1
    for g in range(seeds.shape[0]):
        for seat in range(players):
            if agent_kinds[g, seat] == AGENT_MCTS:
                iters = int(agent_params[g, seat, P_ITERS])
                if int(agent_params[g, seat, P_TREE]) == TREE_TURNS:
                    need = int(agent_params[g, seat, P_WIDTH]) * (iters + 1)
                    plan_width = PLAN_WIDTH
                else:
                    need = NODES_PER_ITER * iters + 4 * N_ACTIONS
                capacity = max(capacity, need)
    t_first = np.full((MAX_PLAYERS, capacity), -1, dtype=np.int64)
    t_count = np.zeros((MAX_PLAYERS, capacity), dtype=np.int64)
    t_action = np.zeros((MAX_PLAYERS, capacity), dtype=np.int64)
    t_visits = np.zeros((MAX_PLAYERS, capacity), dtype=np.int64)
    t_value = np.zeros((MAX_PLAYERS, capacity, VALUE_COLUMNS), dtype=np.float64)
    t_meta = np.zeros((MAX_PLAYERS, 4), dtype=np.int64)
    t_plans = np.zeros((MAX_PLAYERS, capacity if plan_width > 1 else 1, plan_width), dtype=np.int16)
    queue = np.empty(capacity, dtype=np.int64)
    history = np.empty(MAX_HISTORY, dtype=np.int64)
    for g in range(seeds.shape[0]):
        for seat in range(MAX_PLAYERS):
            t_meta[seat, M_VALID] = 0
        n_history = 0
        s = new_game(players, layout, random_layout, chit_sets, order_moves, green_min, voluntary,
                     tie_break, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        for chit in range(40):
            out_chits[g, chit, 0] = s[ICONS + chit]
            out_chits[g, chit, 1] = s[POINTS + chit]
            out_chits[g, chit, 2] = s[POWER + chit]
        n_events = 0
        turn_start_events = 0
        last_turn = 0
        while s[OVER] == 0:
            seat = s[TO_MOVE]
            kind = agent_kinds[g, seat]
            if kind == AGENT_MCTS and int(agent_params[g, seat, P_TREE]) == TREE_TURNS:
                row = agent_params[g, seat]
                n_plan = turn_mcts_plan(s, rng, int(row[P_ITERS]), row[P_C], int(row[P_ROLLOUT]),
                                        int(row[P_REWARD]), int(row[P_HORIZON]), row[P_PRIOR],
                                        int(row[P_WIDTH]), t_first[seat], t_count[seat], t_action[seat],
                                        t_visits[seat], t_value[seat], t_meta[seat], t_plans[seat], queue,
                                        history, n_history, plan)
            elif kind == AGENT_MCTS:
                row = agent_params[g, seat]
                plan[0] = mcts_action(s, rng, int(row[P_ITERS]), row[P_C], int(row[P_ROLLOUT]),
                                      int(row[P_REWARD]), int(row[P_HORIZON]), row[P_PRIOR],
                                      t_first[seat], t_count[seat], t_action[seat], t_visits[seat],
                                      t_value[seat], t_meta[seat], queue, history, n_history)
                n_plan = 1
            else:
                n_plan = agent_plan(kind, s, rng, plan, buf)
            for i in range(n_plan):
                action = plan[i]
                turn = s[TURN]
                if turn != last_turn:
                    turn_start_events = n_events
                    last_turn = turn
                if action == A_PASS:
                    n_events = turn_start_events  # a void turn activated nothing
                elif action >= A_USE and action <= A_USE_ORDER or (action >= A_GAIN and action < A_GAIN + 40):
                    out_events[g, n_events, 0] = turn
                    out_events[g, n_events, 1] = seat
                    if action == A_USE_ORDER:
                        out_events[g, n_events, 2] = EVENT_USE_ORDER
                        out_events[g, n_events, 3] = -1
                    elif action < A_USE_ORDER:
                        out_events[g, n_events, 2] = EVENT_USE_CHIT
                        out_events[g, n_events, 3] = action - A_USE
                    else:
                        out_events[g, n_events, 2] = EVENT_GAIN
                        out_events[g, n_events, 3] = action - A_GAIN
                    n_events += 1
                apply_action(s, action)
                history[n_history] = action
                n_history += 1
                if n_history == MAX_HISTORY:
                    n_history = 0
                    for other in range(MAX_PLAYERS):
                        t_meta[other, M_VALID] = 0
        scores(s, score)
        tie, decided = winners(s, score, win)
        for seat in range(s[PLAYERS]):
            out_scores[g, seat] = score[seat]
            out_winners[g, seat] = win[seat]
            out_out_turn[g, seat] = s[OUT_TURN + seat]
        out_tie[g] = tie
        out_decided[g] = decided
        out_turns[g] = s[TURN]
        out_end_reason[g] = s[END_REASON]
        out_n_events[g] = n_events


# ---- Python face ---------------------------------------------------------------------------------------
def run_batch(rules, seeds, seating, params=None) -> dict[str, np.ndarray]:
    """Play one game per seed. `seating` is a (games, players) array of agent codes (agents.AGENT_CODES)
    or one row for every game; `params` the matching (games, players, mcts.N_PARAMS) MCTS parameters, or
    one (players, N_PARAMS) table for every game (needed only when a seat plays mcts). Returns the out_*
    arrays by name (see play_batch)."""
    from sim.kamakura.game import kernel_args

    players = rules.players
    seeds, seating, params = batch_inputs(seeds, seating, players, params, N_PARAMS)
    games = len(seeds)
    out = {
        "scores": np.zeros((games, players), dtype=np.int64),
        "winners": np.zeros((games, players), dtype=np.int64),
        "tie": np.zeros(games, dtype=np.bool_),
        "decided_by_tiebreak": np.zeros(games, dtype=np.bool_),
        "turns": np.zeros(games, dtype=np.int64),
        "end_reason": np.zeros(games, dtype=np.int64),
        "out_turn": np.zeros((games, players), dtype=np.int64),
        "events": np.empty((games, MAX_EVENTS, 4), dtype=np.int16),  # rows past n_events unused
        "n_events": np.zeros(games, dtype=np.int64),
        "chits": np.empty((games, 40, 3), dtype=np.int8),
    }
    play_batch(seeds, *kernel_args(rules), seating, params, out["scores"], out["winners"], out["tie"],
               out["decided_by_tiebreak"], out["turns"], out["end_reason"], out["out_turn"], out["events"],
               out["n_events"], out["chits"])
    return out
