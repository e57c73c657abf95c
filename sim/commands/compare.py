"""`balance compare BASE VARIANT --players N`: both configs played on the same seeds, and each headline
question's change judged in words (sim/app/compare.py)."""

from __future__ import annotations

import argparse

from sim.app.compare import DEFAULT_GAMES, CompareRequest, run_compare, write_compare_report
from sim.app.until_decided import add_until_decided_options
from sim.commands.options import RunOptions, add_run_options, examples, games_int, players_int
from sim.commands.playing import add_model_check_option

PARSER = examples("balance compare base.toml my-variant.toml --players 3",
                  "balance compare base.toml my-variant.toml --players 4 --until-decided",
                  "balance compare base.toml my-variant.toml --players 3 --margin 1 --agents greedy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", help="the base TOML config")
    parser.add_argument("variant", help="the variant TOML config (the same game)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--agents", default="expert",
                        help="the players, one for all seats or a,b,c (default expert; "
                             "each parameter's range: docs/reference/agents.md)")
    parser.add_argument("--games", type=games_int,
                        help=f"games of each config (default {DEFAULT_GAMES:,}; with --until-decided the "
                             "cap, default 200,000; at most 10^9)")
    add_until_decided_options(parser, "both configs alike")
    add_model_check_option(parser)
    add_run_options(parser,
                    jobs={"default": None, "help": "worker processes (default: the cores)"},
                    backend="how both runs' chunks run in parallel: loky processes or a dask cluster "
                            "(default loky)",
                    scheduler=True,
                    seed="seed of both runs' games (default 0)",
                    out="compare folder (default: runs/compare/<base>-vs-<variant>-<N>p-<agents>-seed<S>)",
                    force="replace run directories made by a different run", quiet="no progress lines")


def run(args: argparse.Namespace) -> int:
    """The comparison's text on stdout as soon as its verdicts are decided, then the report's path once it
    is written; progress on stderr."""
    options = RunOptions.from_args(args)
    options.check_backend()
    ask = CompareRequest(base=args.base, variant=args.variant, players=args.players, agents=args.agents,
                         games=args.games, seed=options.seed, jobs=options.jobs, backend=options.backend,
                         scheduler=options.scheduler, out=options.out,
                         force=options.force, until_decided=args.until_decided, minutes=args.minutes,
                         margin=args.margin, questions=args.questions, model_check=not args.no_model_check)
    result = run_compare(ask, options.say())
    print(result.text, flush=True)
    print(f"report: {write_compare_report(result)}")
    return 0
