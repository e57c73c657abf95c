"""Sakura self-play games per second, 4 players, base config, for the checkout on PYTHONPATH
(docs/design/notes.md, Sakura speed): run it from several checkouts in alternation to compare them side by
side on a shared machine, e.g.

    for r in 1 2 3 4 5; do for wt in /tmp/wt-d6s /tmp/wt-sbase /tmp/wt-sspeed; do
        (cd $wt && PYTHONPATH=. python $RATES random,greedy,expert $r); done; done

with RATES the path of this script (it imports only the checkout's sim).

Agents: random, greedy, expert (its defaults), expert0 (`expert:first=0,most=192`, the expert before its
speed work; a checkout without `first` takes plain `expert` for it). Prints one JSON line of games per second
by the clock and by this process's CPU time (`_cpu`, steadier when other jobs share the cores), after a
warm-up batch (compiling, or loading numba's cache). Runs on checkouts back to d6cd0a5.
"""

from __future__ import annotations

import json
import sys
import time

SIZES = {"random": 6000, "greedy": 200, "expert": 40, "expert0": 40}


def main() -> None:
    from sim.core.rng import game_seeds
    from sim.sakura import batch

    try:
        from sim.sakura.spec import SPEC
        rules = SPEC.default_rules(4)
    except ImportError:  # d6cd0a5
        from sim.sakura.params import default_rules
        rules = default_rules(4)
    agents, rep = sys.argv[1].split(","), int(sys.argv[2])
    out = {}
    for agent in agents:
        games = SIZES[agent]
        seeds = game_seeds(rep + 1, 0, games)
        if agent.startswith("expert"):
            from sim import games as registry
            from sim.core.agent_spec import agent_arrays

            spec = registry.spec("sakura")
            has_first = "first" in spec.agents["expert"].params
            text = "expert:first=0,most=192" if agent == "expert0" and has_first else "expert"
            kinds, params = agent_arrays([[text] * 4] * games, spec)
            batch.run_batch(rules, game_seeds(0, 0, 1), kinds[:1], params[:1])
            args = (rules, seeds, kinds, params)
        else:
            code = {"random": 0, "greedy": 1}[agent]
            batch.run_batch(rules, game_seeds(0, 0, 4), [code] * 4)
            args = (rules, seeds, [code] * 4)
        clock, cpu = time.perf_counter(), time.process_time()
        batch.run_batch(*args)
        out[agent] = round(games / (time.perf_counter() - clock), 2)
        out[agent + "_cpu"] = round(games / (time.process_time() - cpu), 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
