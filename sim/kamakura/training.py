"""Training positions for the Kamakura `expert` (compiled): self-play games that record, at the start of
every turn, each seat's evaluation features (expert.py) and its score, and at the end the points each seat
went on to gain from there: the target the evaluation learns (sim/app/train.py fits it).

Games are set up and played exactly as in batch.py (same seeds, streams and agent dispatch), so the
positions are those of the self-play a run of `balance simulate` with these agents would log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from sim.core.batching import batch_inputs, training_positions
from sim.core.rng import rng_seeded
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.batch import MAX_HISTORY, _seat_trees, next_plan, remember
from sim.kamakura.expert import N_FEATURES, features
from sim.kamakura.kernels import (
    MAX_PLAYERS,
    N_ACTIONS,
    OVER,
    PASSED,
    PLAYERS,
    TO_MOVE,
    apply_action,
    new_game,
    scores,
)
from sim.kamakura.turn_mcts import at_turn_start
from sim.kamakura.uct import M_VALID, N_PARAMS, ROOT

if TYPE_CHECKING:
    from sim.kamakura.params import KamakuraRules

ROWS_PER_GAME = 64 * MAX_PLAYERS  # a game has at most 40 gaining turns and one pass per seat


@njit(cache=True, nogil=True)
def play_positions(seeds, rules, agent_kinds, agent_params, feats, seat_of, game_of, gained):
    """Play the games and fill one row per (turn start, seat still in): its features, seat, game index
    and the points the seat gains from there to the end. Returns the number of rows."""
    players = rules.players
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    trees = _seat_trees(agent_kinds, agent_params, players, rules.voluntary)
    history = np.empty(MAX_HISTORY, dtype=np.int64)
    n_rows = 0
    for g in range(seeds.shape[0]):
        for seat in range(MAX_PLAYERS):
            trees.meta[seat, M_VALID] = 0
        n_history = ROOT  # int64 from the start (uct.ROOT)
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        first_row = n_rows
        while s[OVER] == 0:
            if at_turn_start(s) and n_rows + players <= feats.shape[0]:
                scores(s, score)
                for seat in range(s[PLAYERS]):
                    if s[PASSED + seat] == 0:
                        features(s, seat, feats[n_rows])
                        seat_of[n_rows] = seat
                        game_of[n_rows] = g
                        gained[n_rows] = -score[seat]  # the final score is added below
                        n_rows += 1
            seat = s[TO_MOVE]
            n_plan = next_plan(s, rng, agent_kinds[g, seat], agent_params[g, seat], trees, history, n_history,
                               plan, buf)
            for i in range(n_plan):
                apply_action(s, plan[i])
                n_history = remember(history, n_history, plan[i], trees)
        scores(s, score)
        for row in range(first_row, n_rows):
            gained[row] += score[seat_of[row]]
    return n_rows


def positions(rules: KamakuraRules, seeds, seating, params) -> dict[str, np.ndarray]:
    """The training positions of one game per seed (seating, params: as batch.run_batch takes them):
    `features` (rows, N_FEATURES), `seat`, `game` (index into seeds) and `gained` (the target)."""
    from sim.kamakura.game import kernel_rules

    seeds, seating, params = batch_inputs(seeds, seating, rules.players, params, N_PARAMS)
    return training_positions(play_positions=play_positions, args=kernel_rules(rules), seeds=seeds,
                              seating=seating, params=params,
                              rows=ROWS_PER_GAME * len(seeds), n_features=N_FEATURES)
