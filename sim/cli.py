"""The `balance` command line (API.md). Bad input is refused with one line and exit status 2."""

from __future__ import annotations

import argparse
import json
import sys

from sim.errors import ConfigError


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**63 - 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="balance",
                                     description="Monte Carlo balance toolkit for board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    study = sub.add_parser("study", help="play a batch of games in memory and print seat win rates")
    study.add_argument("config", help="TOML config of either game, e.g. configs/sakura/base.toml")
    study.add_argument("--players", type=int, required=True)
    study.add_argument("--games", type=_positive_int, default=10000)
    study.add_argument("--agents", default="random", help="one agent for all seats, or one per seat: a,b,c")
    study.add_argument("--seed", type=_seed, default=0)

    bench = sub.add_parser("bench", help="engine and agent throughput on this machine")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--scale", type=float, default=1.0, help="scale the number of games timed")
    bench.add_argument("--repeats", type=_positive_int, default=5)
    return parser


def _study(args: argparse.Namespace) -> int:
    from sim.study import format_study, run_study

    print(format_study(run_study(args.config, args.players, args.agents, args.games, args.seed)))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from sim.bench import format_bench, run_bench

    figures = run_bench(scale=args.scale, repeats=args.repeats)
    print(json.dumps(figures, indent=2) if args.json else format_bench(figures))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "study":
            return _study(args)
        return _bench(args)
    except ConfigError as err:
        print(f"balance: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("balance: interrupted", file=sys.stderr)
        return 130
