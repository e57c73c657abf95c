"""Would the voluntary pass (R-8 knob) have paid? Kamakura self-play of one agent (expert or search) under
`voluntary_pass = true`: at every turn where the pass is offered to the searching levels (a gain reachable
and the mover's score at least every other seat's, planner.pass_can_win), the game is played on twice from
there by the same agent in every seat, after the pass and after the turn the agent chose, from one copy of
its generator; the mover's win shares are compared (docs/reference/agents.md, Rule options).

    PYTHONPATH=. python scripts/kamakura_voluntary_pass.py --players 3 --games 200 --seed 11
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this tree's sim

from sim.core.agent_spec import AgentSpec, agent_row  # noqa: E402
from sim.core.rng import game_seeds, rng_seeded  # noqa: E402
from sim.kamakura import kernels as K  # noqa: E402
from sim.kamakura.agents import MAX_PLAN  # noqa: E402
from sim.kamakura.expert import expert_plan  # noqa: E402
from sim.kamakura.game import kernel_rules  # noqa: E402
from sim.kamakura.planner import pass_can_win  # noqa: E402
from sim.kamakura.puct import search_plan  # noqa: E402
from sim.kamakura.spec import SPEC  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", choices=("expert", "search"), default="expert")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    players = args.players
    rules = kernel_rules(dataclasses.replace(SPEC.default_rules(players), voluntary_pass=True))
    row = np.array(agent_row(AgentSpec(args.agent), SPEC, players), dtype=np.float64)
    kernel = expert_plan if args.agent == "expert" else search_plan
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    score = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
    win = np.zeros(K.MAX_PLAYERS, dtype=np.int64)

    def share(s: np.ndarray, seat: int) -> float:
        K.scores(s, score)
        K.winners(s, score, win)
        return float(win[seat]) / max(int(win[:players].sum()), 1)

    def play_on(s: np.ndarray, rng: np.ndarray) -> np.ndarray:
        while not s[K.OVER]:
            for code in plan[:kernel(s, rng, row, plan)].copy():
                K.apply_action(s, code)
        return s

    offered = taken = better = worse = 0
    begun = time.monotonic()
    for seed in game_seeds(args.seed, 0, args.games):
        s = K.new_game(rules, seed)
        rng = rng_seeded(seed, 1)
        while not s[K.OVER]:
            me = int(s[K.TO_MOVE])
            open_pass = K.gain_reachable(s) and pass_can_win(s)
            before = s.copy()
            chosen = plan[:kernel(s, rng, row, plan)].copy()
            if open_pass:
                offered += 1
                taken += len(chosen) == 1 and chosen[0] == K.A_PASS
                after_pass, after_turn = before.copy(), before.copy()
                K.apply_action(after_pass, K.A_PASS)
                for code in chosen:
                    K.apply_action(after_turn, code)
                diff = share(play_on(after_pass, rng.copy()), me) - share(play_on(after_turn, rng.copy()), me)
                better += diff > 0
                worse += diff < 0
            for code in chosen:
                K.apply_action(s, code)
    print(f"{args.agent}, {players} players, {args.games} games (seed {args.seed}): the pass was offered at "
          f"{offered} turns and taken at {taken}; played on, the pass would have won more at {better} and "
          f"less at {worse} ({time.monotonic() - begun:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
