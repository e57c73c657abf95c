"""How much weighing the Kamakura planner's search does (docs/design/notes.md, Kamakura speed): on the
expert's positions of fixed-seed self-play (scripts/profile_kamakura_expert.py's collection), runs a copy of
planner._search_plans with counters, in Python, and prints per search the first swaps tried, swap pairs looked
at, lines weighed and plans offered at each depth, for the greedy replies of the deep look and for
turn_candidates (width 16).

    PYTHONPATH=. python scripts/kamakura_search_counts.py [--games 5]
"""

from __future__ import annotations

import argparse
import collections
import inspect

import numpy as np
from profile_kamakura_expert import collect

import sim.kamakura.planner as planner
from sim import games
from sim.core.agent_spec import agent_arrays
from sim.kamakura.kernels import TO_MOVE, gain_reachable

_MARKS = {  # a line of the search, and the counter bumped just before it
    "            alive = _alive_lines(": "first",
    "                lines &= alive\n": "pair",
    "                    points, cost = _line_value(": "weigh",
    "                    n = _keep(cands, n, max_k, greedy, best, rng, row, board, worst)": "offer",
}


def counting_search(counts: collections.Counter):
    """planner._search_plans as plain Python with a counter before each marked line."""
    source = inspect.getsource(planner._search_plans.py_func).replace("@njit(cache=True)\n", "")
    for line, name in _MARKS.items():
        assert line in source, f"the search no longer has {line.strip()!r}"
        indent = line[:len(line) - len(line.lstrip())]
        source = source.replace(line, f"{indent}COUNTS['{name}', depth] += 1\n{line}")
    namespace = {**vars(planner), "COUNTS": counts}
    exec(source, namespace)  # noqa: S102 - the planner's own source, counters added
    return namespace["_search_plans"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    _, params = agent_arrays([["expert:settle=0"] * 3], games.spec("kamakura"))
    positions = collect(args.games, np.ascontiguousarray(params[0, 0]))
    counts: collections.Counter = collections.Counter()
    search = counting_search(counts)
    for label, states, rngs, width, greedy in [
            ("greedy replies", positions["reply_at"], positions["reply_rngs"], 1, True),
            ("turn_candidates", positions["starts"], positions["rngs"], 16, False)]:
        counts.clear()
        searches = 0
        for s, rng in zip(states, rngs, strict=True):
            if not gain_reachable(s):
                continue
            searches += 1
            cands = np.zeros((width, planner.N_COLUMNS), dtype=np.int64)
            search(s, rng.copy(), planner.powers_at_hand(s, s[TO_MOVE]), cands, width, greedy)
        print(f"{label}: {searches} searches; per search, at swap depth 0, 1, 2:")
        for name in _MARKS.values():
            print(f"  {name:<6} " + "  ".join(f"{counts[name, d] / searches:7.1f}" for d in range(3)))


if __name__ == "__main__":
    main()
