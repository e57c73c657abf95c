"""`balance sheet CONFIG`: the balance sheet of a config at every player count, for strong play
(sim/design/sheet.py)."""

from __future__ import annotations

import argparse
import time

from analysis.verdicts import parse_margins
from sim.app.until_decided import MOST_MINUTES, add_margin_option, minutes_float
from sim.commands.options import RunOptions, add_run_options, examples, games_int, study_backend
from sim.design.sheet import DEFAULT_CAP, DEFAULT_QUESTIONS, run_sheet

PARSER = examples("balance sheet configs/kamakura/base.toml --jobs 2",
                  "balance sheet my-variant.toml --players 3,4 --games 2000 --minutes 30",
                  "balance sheet configs/sakura/base.toml --levels greedy,expert")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", help="player counts, e.g. 3,4 (default: every count the game allows; a "
                                          "count with a rule of its own, once per value of it)")
    parser.add_argument("--levels", help="the two levels compared, the strongest last (default: the game's "
                                         "two strongest agents, expert,search)")
    parser.add_argument("--games", type=games_int, default=DEFAULT_CAP,
                        help=f"each level's cap at each player count (default {DEFAULT_CAP:,}; at most 10^9)")
    parser.add_argument("--minutes", type=minutes_float, metavar="M",
                        help="the whole sheet's time cap: the player counts share it evenly, and each "
                             "count's stages (each level, then the two together) share its part, what one "
                             "leaves passing on to the next; no round starts that the time left cannot pay "
                             f"for at its level's pace; at most {MOST_MINUTES:,} (default: none)")
    add_margin_option(parser)
    parser.add_argument("--questions", metavar="Q", default=DEFAULT_QUESTIONS,
                        help=f"the questions judged (default {DEFAULT_QUESTIONS}; length can be added)")
    add_run_options(parser, seed="the same at every player count and level (default 0)", jobs=True,
                    **study_backend("sheet"), out="sheet folder (default: runs/sheets/<game>-<config>)",
                    force="replace the tables of a sheet made by another config, seed or levels",
                    quiet="no line per round")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = RunOptions.from_args(args)
    options.check_backend()
    with options.cluster() as cluster:
        result = run_sheet(args.config, players=args.players, levels=args.levels, games_cap=args.games,
                           minutes=args.minutes, margins=parse_margins(args.margin, args.questions),
                           jobs=options.jobs, seed=options.seed, out=options.out, force=options.force,
                           say=options.say(), cluster=cluster)
    stops = "; ".join(f"{label} {how}" for label, how in result.stops.items())
    print(f"{result.text}\nstable at the top: {stops}\n{len(result.tables)} tables, {result.played:,} games "
          f"played in {time.perf_counter() - started:.1f} s; sheet folder: {result.out}; report: "
          f"{result.report}")
    return 0
