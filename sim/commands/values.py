"""`balance values`: what each component is worth, by paired intervention, played into a resumable run
directory (sim/app/values_run.py)."""

from __future__ import annotations

import argparse
import time

from analysis.causal_values import format_values, read_values_run
from analysis.verdicts import parse_margins
from analysis.worth_verdicts import format_worth
from sim.app.until_decided import add_margin_option
from sim.app.values_run import plan_values
from sim.commands.options import RunOptions, examples, games_int
from sim.commands.playing import add_play_options, play_run, start_workers

PARSER = examples("balance values configs/kamakura/base.toml --players 3",
                  "balance values my-variant.toml --players 4 --agents greedy --games 300",
                  "balance values configs/kamakura/base.toml --players 3 --positions 0,9")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=games_int,
                        help="base games (default: the game's own, in its registry entry); each plays every "
                             "component's arms from every position; at most 10^9)")
    parser.add_argument("--positions", help="turns or rounds played before the intervention, e.g. 0,9,18 "
                                            "(default: the game's own; 0 = the start)")
    add_play_options(parser, agents="expert", unit="base games",
                     out="runs/values-<game>-<config>-<N>p-<agents>-seed<S>")
    add_margin_option(parser)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    options.check_backend()
    margins = parse_margins(args.margin)
    plan = plan_values(args.config, args.players, args.agents, args.seed, args.positions)
    start_workers(options, plan.spec)

    result = play_run(plan, args.games or plan.spec.values.games, options, "base games")
    seconds = time.perf_counter() - started
    note = f" ({result.already} were already there)" if result.already else ""
    values_run = read_values_run(result.run_dir)
    print(format_worth(values_run, margins))
    print(format_values(values_run))
    print(f"{result.played} base games played{note} in {seconds:.1f} s; run directory: {result.run_dir} "
          f"(`balance report {result.run_dir}` for the tables and charts)")
    return 0
