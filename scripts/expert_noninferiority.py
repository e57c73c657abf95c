"""Non-inferiority of a changed Kamakura expert (docs/design/notes.md, Kamakura speed): ONE `--new` expert
against players-1 `--old` ones, seats rotated (the new one in seat g mod players of game g, so in each seat
equally), its win share (a shared win 1/k, as the toolkit scores seats) with a Wilson 95% interval; it passes
when the interval's lower bound is at least the fair share minus `--margin`.

    PYTHONPATH=. python scripts/expert_noninferiority.py --games 20000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from sim import games
from sim.app.train import measure_strength


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new", default="expert", help="the changed expert (default: today's default)")
    parser.add_argument("--old", default="expert:settle=0", help="the expert it must not fall behind")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--margin", type=float, default=0.015)
    args = parser.parse_args()
    spec = games.spec("kamakura")
    config_path = os.fspath(spec.default_config)
    _, merged, _ = games.load_config(config_path, args.players)
    start = time.perf_counter()
    result = measure_strength(spec, merged, config_path, args.players, args.new, args.old, args.games,
                              args.seed, args.jobs)
    result["seconds"] = round(time.perf_counter() - start, 1)
    floor = 1 / args.players - args.margin
    passed = result["interval"][0] >= floor
    print(f"{args.new} (1 seat) against {args.old} ({args.players - 1} seats), {args.players} players, "
          f"seats rotated, seed {args.seed}: win share {result['win_share']:.4f} "
          f"[{result['interval'][0]:.4f}, {result['interval'][1]:.4f}] of n = {args.games} games; "
          f"floor {floor:.4f}: {'PASS' if passed else 'FAIL'} ({result['seconds']} s)")
    print(json.dumps(result))
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
