"""Kamakura self-play games/s of several checkouts side by side (docs/design/notes.md, Kamakura speed):
random, greedy and expert self-play at 3 players (base config, default parameters, one core), each checkout
timed in its own process, the checkouts in alternation within every repeat so a busy spell of a shared machine
falls on all of them; prints each figure's median and its ratio to the first checkout's.

    python scripts/kamakura_speed.py --repeats 5 /tmp/wt-base /tmp/wt-new ...

A checkout from before the expert existed reports it as missing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

# Runs inside the checkout (PYTHONPATH = checkout): one timed batch per agent after a warm-up.
_CHILD = r"""
import json, sys, time
import numpy as np
from sim.core.rng import game_seeds
from sim.kamakura.batch import run_batch
rep, sizes = int(sys.argv[1]), json.loads(sys.argv[2])
try:
    from sim import games
    spec = games.spec("kamakura")
    rules = spec.default_rules(3)
except (ImportError, AttributeError):
    spec = None
    from sim.kamakura.params import default_rules
    rules = default_rules(3)
out = {}
for agent, n in sizes.items():
    if n == 0:  # not asked for
        continue
    if agent == "expert":
        if spec is None or "expert" not in spec.agents:
            continue
        from sim.core.agent_spec import agent_arrays
        kinds, params = agent_arrays([["expert"] * 3] * n, spec)
        run = lambda seeds: run_batch(rules, seeds, kinds[:len(seeds)], params[:len(seeds)])
    else:
        code = {"random": 0, "greedy": 1}[agent]
        run = lambda seeds: run_batch(rules, seeds, [code] * 3)
    run(game_seeds(0, 0, 2))  # compile, or load the cache
    start = time.perf_counter()
    run(game_seeds(rep + 1, 0, n))
    out[agent] = n / (time.perf_counter() - start)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--random", type=int, default=10000, help="random games a repeat")
    parser.add_argument("--greedy", type=int, default=300, help="greedy games a repeat")
    parser.add_argument("--expert", type=int, default=60, help="expert games a repeat")
    args = parser.parse_args()
    sizes = json.dumps({"random": args.random, "greedy": args.greedy, "expert": args.expert})
    rates: dict[str, dict[str, list[float]]] = {c: {} for c in args.checkouts}
    for rep in range(args.repeats):
        for checkout in args.checkouts:
            done = subprocess.run([sys.executable, "-c", _CHILD, str(rep), sizes], cwd=checkout,
                                  env={"PYTHONPATH": checkout, "PATH": "/usr/bin:/bin"},
                                  capture_output=True, text=True, check=True)
            for agent, rate in json.loads(done.stdout.splitlines()[-1]).items():
                rates[checkout].setdefault(agent, []).append(rate)
    first = args.checkouts[0]
    for agent in ("random", "greedy", "expert"):
        print(f"{agent} self-play, 3 players, games/s (median of {args.repeats}):")
        for checkout in args.checkouts:
            values = rates[checkout].get(agent)
            if not values:
                print(f"  {checkout:<28} missing")
                continue
            med = statistics.median(values)
            base = rates[first].get(agent)
            ratio = f"  x{med / statistics.median(base):.2f}" if base else ""
            print(f"  {checkout:<28} {med:>10,.1f}{ratio}   ({', '.join(f'{v:,.0f}' for v in values)})")


if __name__ == "__main__":
    main()
