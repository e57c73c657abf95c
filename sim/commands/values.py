"""`balance values`: what each component is worth, by paired intervention, played into a resumable run
directory (sim/app/values_run.py)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from analysis.causal_values import format_values, read_values_run
from analysis.verdicts import parse_margins
from analysis.worth_verdicts import format_worth, worth_table
from sim.app.rounds import play_in_rounds
from sim.app.runner import check_run_out, default_out
from sim.app.until_decided import MOST_MINUTES, RunsCost, add_margin_option, minutes_float
from sim.app.values_run import plan_values
from sim.commands.options import RunOptions, examples, games_int
from sim.commands.playing import add_play_options, play_run, start_workers
from storage.run_dir import RunDirectory

#: with --minutes, the seconds of the cap kept aside for reading the run and printing its values after the
#: last round (about this long here on a few dozen base games), at most a quarter of the cap
READ_SECONDS = 8.0

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
    parser.add_argument("--minutes", type=minutes_float, metavar="M",
                        help="stop after about this many minutes, with the base games played by then (no "
                             "round starts that the time left cannot pay for at the measured pace); at most "
                             f"{MOST_MINUTES:,} (default: no time cap)")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    options.check_backend()
    margins = parse_margins(args.margin)
    plan = plan_values(args.config, args.players, args.agents, args.seed, args.positions)
    start_workers(options, plan.spec)

    out = Path(options.out or default_out(plan))
    games = args.games or plan.spec.values.games
    fresh = [options.force]  # --force: what the folder holds now is replaced by the first round

    def play_to(n: int) -> int:
        fresh[0] = False
        return play_run(plan, n, options, "base games", lines_off_terminal=False).played  # (a line a round)

    def held() -> int:
        return 0 if fresh[0] else RunDirectory(out, plan.tables).finished_games()

    check_run_out(plan, games, out, options.force)  # refused before the plan is said or a game played
    positions = ",".join(str(p) for p in plan.positions)
    options.say()(f"values: {games:,} base games of {plan.game} at {plan.players} players, {plan.agents[0]} "
                  f"in every seat, positions {positions}: each plays every component's arms from each")
    done = play_in_rounds(play_to, held, games, minutes=args.minutes, say=options.say(),
                          cost=RunsCost([(out, plan.tables)], options.jobs),
                          probe=plan.smallest_chunk() * options.jobs,
                          reserve=min(READ_SECONDS, 15 * (args.minutes or 0)))
    seconds = time.perf_counter() - started
    note = f" ({done.already} were already there)" if done.already else ""
    capped = f"; stopped at the time cap ({args.minutes:g} min) at {done.games:,} of {games:,}" \
        if done.capped else ""
    values_run = read_values_run(out)
    print(format_worth(values_run, margins))
    print(format_values(values_run, worth_table(values_run)))
    print(f"{done.played} base games played{note} in {seconds:.1f} s{capped}; run directory: {out} "
          f"(`balance report {out}` for the tables and charts)")
    return 0
