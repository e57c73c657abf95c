"""Sakura self-play cost of agents side by side (the `search` agent's cost, docs/design/notes.md): games per
second of each agent in 4-player self-play, base config, one core, by this process's CPU time (steadier when
other jobs share the cores), the agents timed in alternation within each repeat; then the medians and each
agent's cost over the first's.

    PYTHONPATH=. python scripts/sakura_search_cost.py "expert;search" 60,6 7

Agents are `--agents` texts separated by ';' (`search:inner=4,samples=16`), one game count each.
"""

from __future__ import annotations

import statistics
import sys
import time


def main() -> None:
    from sim import games
    from sim.core.agent_spec import agent_arrays
    from sim.core.rng import game_seeds

    spec = games.spec("sakura")
    rules = spec.default_rules(4)
    agents = sys.argv[1].split(";")
    sizes = [int(x) for x in sys.argv[2].split(",")]
    repeats = int(sys.argv[3])
    arrays = {agent: (agent_arrays([[agent] * 4] * n, spec), n)
              for agent, n in zip(agents, sizes, strict=True)}
    for (kinds, params), _ in arrays.values():  # compile, or load numba's cache
        spec.run_batch(rules, game_seeds(0, 0, 1), kinds[:1], params[:1])
    rates: dict[str, list[float]] = {agent: [] for agent in agents}
    for rep in range(repeats):
        for agent, ((kinds, params), n) in arrays.items():
            start = time.process_time()
            spec.run_batch(rules, game_seeds(rep + 1, 0, n), kinds, params)
            rates[agent].append(n / (time.process_time() - start))
        print(f"repeat {rep + 1}: " + ", ".join(f"{a} {r[-1]:.2f}" for a, r in rates.items()), flush=True)
    first = statistics.median(rates[agents[0]])
    for agent in agents:
        median = statistics.median(rates[agent])
        within = [a / b for a, b in zip(rates[agents[0]], rates[agent], strict=True)]
        print(f"{agent}: median {median:.2f} games/s, cost {first / median:.1f} times {agents[0]}'s "
              f"(within a repeat {min(within):.1f} to {max(within):.1f})")


if __name__ == "__main__":
    main()
