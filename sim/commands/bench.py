"""`balance bench`: engine and agent throughput on this machine (sim/app/bench.py), or with --runner how
`balance simulate` scales from one job to two (sim/app/bench_runner.py)."""

from __future__ import annotations

import argparse
import json

from sim.commands.options import at_most, examples, games_int, positive_float

NAME = "bench"
HELP = "engine and agent throughput on this machine"
PARSER = examples("balance bench",
                  "balance bench --json --repeats 3",
                  "balance bench --runner")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--scale", type=positive_float(100), default=1.0,
                        help="scale the number of games timed (default 1.0; above 0, at most 100)")
    parser.add_argument("--repeats", type=at_most(1000, "timings of one figure"), default=5,
                        help="timings of each figure; the median is reported (default 5, at most 1000)")
    parser.add_argument("--runner", action="store_true",
                        help="instead: time `balance simulate` with --jobs 1 and 2 (100,000 games each)")
    parser.add_argument("--games", type=games_int, default=100_000,
                        help="games per run with --runner (default 100000, at most 10^9)")


def run(args: argparse.Namespace) -> int:
    if args.runner:
        from sim.app.bench_runner import format_runner_bench, run_runner_bench

        figures = run_runner_bench(args.games, args.repeats)
        print(json.dumps(figures, indent=2) if args.json else format_runner_bench(figures))
        return 0
    from sim.app.bench import format_bench, run_bench

    figures = run_bench(scale=args.scale, repeats=args.repeats)
    print(json.dumps(figures, indent=2) if args.json else format_bench(figures))
    return 0
