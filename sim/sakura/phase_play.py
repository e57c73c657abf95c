"""The compiled half of the paired phase study (sim/sakura/phase_study.py): collect positions of self-play
right after a tree scores, and play the rest of a game from one. Kept apart from the study's command-line
half, which reads the registry entry, so that only kernel sources key numba's cache (sim/core/numba_cache.py).
"""

import numpy as np
from numba import njit

from sim.core.rng import rng_seeded
from sim.sakura.batch import next_action
from sim.sakura.kernels import (
    MAX_PLAYERS,
    N_ACTIONS_MAX,
    N_SAKURA,
    PH_OVER,
    PHASE,
    SCORED,
    TO_MOVE,
    apply_action,
    new_game,
)
from sim.sakura.mcts import REWARD_WIN, rewards_at

COLLECT_STREAM, FINISH_STREAM = 1, 2  # the play that reaches a position, and each arm's rest of the game


@njit(cache=True)
def play_on(s, rng, kinds, params, trees_left):
    """Play s on in place until the game is over or only `trees_left` trees are still unscored (right
    after the tree before them scored); 0 plays to the end, since the last tree's scoring ends the game."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    while s[PHASE] != PH_OVER:
        left = 0
        for k in range(s[N_SAKURA]):
            left += 1 - s[SCORED + k]
        if left == trees_left:
            return
        mover = s[TO_MOVE]
        apply_action(s, next_action(kinds[mover], s, rng, params[mover], buf))


@njit(cache=True)
def collect(args, seeds, kinds, params, trees_left, out):
    """Play a game per seed until `trees_left` trees are still unscored and store that state in out;
    returns how many were stored (a game over first is skipped)."""
    n = 0
    for g in range(seeds.shape[0]):
        s = new_game(args, seeds[g])
        play_on(s, rng_seeded(seeds[g], COLLECT_STREAM), kinds, params, trees_left)
        if s[PHASE] != PH_OVER:
            out[n] = s
            n += 1
    return n


@njit(cache=True)
def finish(start, seed, kinds, params, seat, stream=FINISH_STREAM):
    """Play the game on from `start` with the generator (seed, stream) and return `seat`'s win share
    (R-14's winner, as the `mcts` win reward counts it: a shared win split, R-23's court painter among
    the rivals)."""
    s = start.copy()
    play_on(s, rng_seeded(seed, stream), kinds, params, 0)
    share = np.zeros(MAX_PLAYERS, dtype=np.float64)
    rewards_at(s, REWARD_WIN, np.zeros(MAX_PLAYERS, dtype=np.int64), share)
    return share[seat]
