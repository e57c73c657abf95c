"""The quick path of Kamakura's random self-play keeps the rules and the random agent's draws.

`gain_reachable` tries the free swaps and the icon counts alone before the powers and greens: its answer is
held to the full check written out here (every count a green allows, at the whole swap budget). The
batch loop's `random_step` is told when the last step left a gain known to be reachable and then lists the
actions without the R-8 check (`open_actions`): its actions and draws are held to `random_action`'s on the
same states, and each time it claims a gain reachable, the state after the action is checked.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.core.rng import game_seeds, rng_seeded
from sim.kamakura.agents import random_action, random_step
from sim.kamakura.board import MASK_TO_INDEX, SWAP_DISTANCE
from sim.kamakura.game import kernel_rules
from sim.kamakura.kernels import (
    GAINS_DONE,
    GREEN_MIN,
    ICONS,
    MASKS,
    N_ACTIONS,
    OVER,
    OWNER,
    SWAPS_LEFT,
    TO_MOVE,
    apply_action,
    best_green,
    gain_reachable,
    legal_actions,
    new_game,
    open_actions,
    potential_swaps,
)
from sim.kamakura.spec import SPEC

RULES = [  # (players, changes to the base config)
    (3, {}),
    (2, {"voluntary_pass": True}),
    (4, {"green_min_requirement": 0, "layout": "random"}),
    (3, {"green_min_requirement": 3, "tie_break": "last_to_play"}),
]


def full_reachable(s: np.ndarray) -> bool:
    """R-8 as gain_reachable stated it before its quick first pass: every chit on the board, every count
    from its icons down by the best green (not below green_min), at the turn's whole swap budget."""
    seat = int(s[TO_MOVE])
    cap = min(int(potential_swaps(s, seat)), 126)
    green = int(best_green(s, seat, True))
    for colour in range(4):
        idx = MASK_TO_INDEX[s[MASKS + colour]]
        for line in range(10):
            chit = 10 * colour + line
            if s[OWNER + chit] != -1:
                continue
            icons = int(s[ICONS + chit])
            lowest = max(icons - green, int(s[GREEN_MIN]))
            if any(SWAP_DISTANCE[idx, line, target] <= cap for target in [icons, *range(lowest, icons)]):
                return True
    return False


@pytest.mark.parametrize(("players", "changes"), RULES)
def test_random_step_plays_as_random_action_and_its_claims_hold(players: int, changes: dict) -> None:
    rules = kernel_rules(dataclasses.replace(SPEC.default_rules(players), **changes))
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    ref = np.empty(N_ACTIONS, dtype=np.int64)
    claims = 0
    for seed in game_seeds(38, 0, 12):
        s = new_game(rules, seed)
        rng = rng_seeded(seed, 1)
        reachable = False
        while s[OVER] == 0:
            if s[GAINS_DONE] == 0:
                assert gain_reachable(s) == full_reachable(s)
            before, rng_before = s.copy(), rng.copy()
            expected = random_action(before, rng_before, ref)
            action, reachable = random_step(s, rng, buf, reachable)
            assert action == expected and rng[0] == rng_before[0]
            assert (s == before).all(), "the step leaves the state as it found it"
            apply_action(s, action)
            if reachable:
                claims += 1
                assert s[GAINS_DONE] == 0 and s[SWAPS_LEFT] >= 0 and full_reachable(s)
                n = legal_actions(s, ref)
                assert open_actions(s, buf, True) == n and (buf[:n] == ref[:n]).all()
    assert claims > 0
