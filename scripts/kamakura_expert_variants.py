"""Games/s of Kamakura expert variants in one process (docs/design/notes.md, Kamakura speed): 3-player
self-play of each `--agents` spec (base config), the variants in alternation within every repeat so a busy
spell of a shared machine falls on all of them; prints each one's median and its ratio to the first.

    PYTHONPATH=. python scripts/kamakura_expert_variants.py --games 100 expert:settle=0 expert
"""

from __future__ import annotations

import argparse
import statistics
import time

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="+", help="agent specs, e.g. expert:settle=0")
    parser.add_argument("--games", type=int, default=100, help="games a repeat")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    spec = games.spec("kamakura")
    rules = spec.default_rules(3)
    arrays = {agent: agent_arrays([[agent] * 3] * args.games, spec) for agent in args.agents}
    for kinds, params in arrays.values():  # compile, or load the cache
        spec.run_batch(rules, game_seeds(0, 0, 2), kinds[:2], params[:2])
    rates: dict[str, list[float]] = {agent: [] for agent in args.agents}
    for rep in range(args.repeats):
        for agent, (kinds, params) in arrays.items():
            start = time.perf_counter()
            spec.run_batch(rules, game_seeds(rep + 1, 0, args.games), kinds, params)
            rates[agent].append(args.games / (time.perf_counter() - start))
    base = statistics.median(rates[args.agents[0]])
    for agent, values in rates.items():
        med = statistics.median(values)
        print(f"{agent:<24} {med:8.1f} games/s  x{med / base:.2f}  ({', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
