"""The Kamakura expert's `settle`: a turn whose quick gap exceeds it is played without the deep
look, as the quick best; `settle=0` always looks deep and plays what expert_plan plays."""

from __future__ import annotations

import numpy as np

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, rng_seeded
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.expert import expert_look, expert_plan
from sim.kamakura.game import kernel_rules
from sim.kamakura.kernels import OVER, apply_action, gain_reachable, new_game


def _rows(*agents: str) -> list[np.ndarray]:
    _, params = agent_arrays([list(agents)], games.spec("kamakura"))
    return [np.ascontiguousarray(params[0, seat]) for seat in range(len(agents))]


def test_settle_plays_the_quick_best_past_the_gap_and_zero_looks_deep() -> None:
    always, eager, settled = _rows("expert:settle=0", "expert:settle=0.000001", "expert:settle=0.5")
    rules = kernel_rules(games.spec("kamakura").default_rules(3))
    cands = np.empty((int(always[0]), MAX_PLAN), dtype=np.int64)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    looked = skipped = 0
    for seed in game_seeds(5, 0, 4):
        s = new_game(rules, seed)
        rng = rng_seeded(seed, 1)
        while s[OVER] == 0:
            if gain_reachable(s):
                n, _, gap, quick_best, deep = expert_look(s, rng.copy(), always, cands)
                m = expert_plan(s.copy(), rng.copy(), always, plan)
                assert list(plan[:m]) == list(cands[deep, :m])  # settle=0 is expert_plan's deep choice
                if n > 1:
                    assert expert_look(s, rng.copy(), eager, cands)[4] == (quick_best if gap > 1e-6 else deep)
                    chosen = expert_look(s, rng.copy(), settled, cands)[4]
                    assert chosen == (quick_best if gap > 0.5 else deep)
                    skipped += gap > 0.5
                    looked += quick_best != deep
            m = expert_plan(s, rng, always, plan)
            for j in range(m):
                apply_action(s, plan[j])
    assert skipped > 0 and looked > 0  # both branches were seen
