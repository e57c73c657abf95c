"""`balance bench`: engine and agent throughput on this machine (sim/app/bench.py), with --against the same
figures of another git revision side by side (sim/app/bench_against.py), or with --runner how `balance
simulate` scales from one job to two (sim/app/bench_runner.py)."""

from __future__ import annotations

import argparse
import json
import sys

from sim.app.bench import format_bench, run_bench
from sim.app.bench_against import bench_against, format_against
from sim.app.bench_runner import format_runner_bench, run_runner_bench
from sim.commands.options import at_most, examples, games_int, positive_float
from sim.core.errors import ConfigError

PARSER = examples("balance bench --json --repeats 3",
                  "balance bench --against HEAD~3 --scale 0.2 --repeats 3",
                  "balance bench --runner")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--scale", type=positive_float(100), default=1.0,
                        help="scale the number of games timed (default 1.0; above 0, at most 100)")
    parser.add_argument("--against", metavar="REV",
                        help="also bench this git revision (a hash, HEAD~3, a branch) in a temporary "
                             "worktree, alternating runs of the two trees, and print each figure both "
                             "have, their medians and ratio (current/REV); the other tree compiles first, "
                             "for minutes")
    parser.add_argument("--repeats", type=at_most(1000, "timings of one figure"), default=5,
                        help="timings of each figure; the median is reported (default 5, at most 1000)")
    parser.add_argument("--runner", action="store_true",
                        help="instead: time `balance simulate` with --jobs 1 and 2 (100,000 games each)")
    parser.add_argument("--games", type=games_int, default=100_000,
                        help="games per run with --runner (default 100000, at most 10^9)")


def run(args: argparse.Namespace) -> int:
    if args.against is not None and args.runner:
        raise ConfigError("--against: compares `balance bench`'s figures, not --runner's; give one of them")
    if args.against is not None:
        result = bench_against(args.against, args.scale, args.repeats,
                               say=lambda line: print(line, file=sys.stderr, flush=True))
        print(json.dumps(result, indent=2) if args.json else format_against(result))
        return 0
    if args.runner:
        figures = run_runner_bench(args.games, args.repeats)
        print(json.dumps(figures, indent=2) if args.json else format_runner_bench(figures))
        return 0

    figures = run_bench(scale=args.scale, repeats=args.repeats)
    print(json.dumps(figures, indent=2) if args.json else format_bench(figures))
    return 0
