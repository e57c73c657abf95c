"""Kamakura self-play games/s of several agents side by side (the `search` agent's budget,
docs/design/notes.md): 3 players, base config, one core, the agents timed in alternation within every repeat
so a busy spell of a shared machine falls on all of them; prints each one's median and its cost relative to
the first.

    PYTHONPATH=. python scripts/kamakura_selfplay_cost.py --repeats 5 expert:8 search:4 search:iters=32:4

Each argument is an agent string and, after the last colon, the games a repeat.
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
    parser.add_argument("agents", nargs="+", help="AGENT:GAMES, e.g. expert:8 or search:iters=32:4")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    spec = games.spec("kamakura")
    rules = spec.default_rules(args.players)
    sizes = {text.rpartition(":")[0]: int(text.rpartition(":")[2]) for text in args.agents}
    arrays = {agent: agent_arrays([[agent] * args.players] * n, spec) for agent, n in sizes.items()}
    for kinds, params in arrays.values():  # compile, or load the cache
        spec.run_batch(rules, game_seeds(0, 0, 1), kinds[:1], params[:1])
    rates: dict[str, list[float]] = {agent: [] for agent in sizes}
    for rep in range(args.repeats):
        for agent, (kinds, params) in arrays.items():
            start = time.perf_counter()
            spec.run_batch(rules, game_seeds(rep + 1, 0, sizes[agent]), kinds, params)
            rates[agent].append(sizes[agent] / (time.perf_counter() - start))
    base = rates[next(iter(sizes))]
    first = statistics.median(base)
    print(f"self-play, {args.players} players, games/s (median of {args.repeats}), "
          "cost relative to the first:")
    for agent, values in rates.items():
        med = statistics.median(values)
        paired = sorted(b / v for b, v in zip(base, values, strict=True))
        within = f"{paired[0]:.1f} to {paired[-1]:.1f}, median {statistics.median(paired):.1f}"
        print(f"  {agent:<40} {med:>9.2f}  x{first / med:6.2f}   ({', '.join(f'{v:.2f}' for v in values)}; "
              f"cost within a repeat {within})")


if __name__ == "__main__":
    main()
