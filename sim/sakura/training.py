"""Training positions for the Sakura `expert` (compiled): self-play games that record, at the start of
every round, each player's evaluation features (expert.py) from its own observation (its own hand, the
public board) and its tokens, and at the end the tokens each player went on to gain from there (bumps
count against it, R-15): the target the evaluation learns (sim/app/train.py fits it).

The features of a seat are those it can compute itself, so the fitted weights read a hand the way the
expert reads its own; for the other players the expert puts the mix of the cards it cannot see in their
hands' place (expert.py), the expectation of the same linear prediction.

Games are set up and played exactly as in batch.py (same seeds, streams and agent dispatch), so the
positions are those of the self-play a run of `balance simulate` with these agents would log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from sim.core.batching import batch_inputs, training_positions
from sim.core.rng import rng_seeded
from sim.sakura.batch import next_action
from sim.sakura.expert import MIX, N_FEATURES, features, hand_mix
from sim.sakura.kernels import (
    MAX_PAINTERS,
    N_ACTIONS_MAX,
    PH_OVER,
    PH_SELECT,
    PHASE,
    PLAYERS,
    ROUND,
    TO_MOVE,
    TOKENS,
    apply_action,
    new_game,
)
from sim.sakura.mcts import N_PARAMS

if TYPE_CHECKING:
    from sim.sakura.params import SakuraRules

ROUNDS_PER_GAME = 40  # rows kept per game and player (games last about 10 rounds; a longer one keeps 40)


@njit(cache=True, nogil=True)
def play_positions(seeds, rules, agent_kinds, agent_params, feats, seat_of, game_of, gained):
    """Play the games and fill one row per (round start, player): its features, seat, game index and the
    tokens it gains from there to the end. Returns the number of rows."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    order = np.empty(MAX_PAINTERS, dtype=np.int64)
    mixes = np.zeros((MAX_PAINTERS, MIX), dtype=np.float64)
    row_feats = np.zeros((MAX_PAINTERS, N_FEATURES), dtype=np.float64)
    n_rows = 0
    for g in range(seeds.shape[0]):
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        players = s[PLAYERS]
        first_row = n_rows
        recorded = 0
        last_round = -1
        while s[PHASE] != PH_OVER:
            if (s[ROUND] != last_round and s[PHASE] == PH_SELECT and recorded < ROUNDS_PER_GAME
                    and n_rows + players <= feats.shape[0]):
                last_round = s[ROUND]
                recorded += 1
                for seat in range(players):
                    hand_mix(s, seat, -1, mixes[seat])  # each player's own hand: its own observation
                features(s, mixes, order, row_feats)
                for seat in range(players):
                    feats[n_rows] = row_feats[seat]
                    seat_of[n_rows] = seat
                    game_of[n_rows] = g
                    gained[n_rows] = -s[TOKENS + seat]  # the final tokens are added below
                    n_rows += 1
            seat = s[TO_MOVE]
            action = next_action(agent_kinds[g, seat], s, rng, agent_params[g, seat], buf)
            apply_action(s, action)
        for row in range(first_row, n_rows):
            gained[row] += s[TOKENS + seat_of[row]]
    return n_rows


def positions(rules: SakuraRules, seeds, seating, params) -> dict[str, np.ndarray]:
    """The training positions of one game per seed (seating, params: as batch.run_batch takes them):
    `features` (rows, N_FEATURES), `seat`, `game` (index into seeds) and `gained` (the target)."""
    from sim.sakura.game import kernel_rules

    seeds, seating, params = batch_inputs(seeds, seating, rules.players, params, N_PARAMS)
    return training_positions(play_positions=play_positions, args=kernel_rules(rules), seeds=seeds,
                              seating=seating, params=params,
                              rows=ROUNDS_PER_GAME * rules.players * len(seeds), n_features=N_FEATURES)
