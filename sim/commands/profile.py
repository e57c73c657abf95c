"""`balance profile CONFIG --players N`: self-play at several skill levels on the same game seeds, the
report showing every headline figure per level (sim/design/profile.py)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from analysis.verdicts import parse_margins
from sim.app.until_decided import DEFAULT_CAP, add_until_decided_options
from sim.commands.options import RunOptions, add_run_options, examples, games_int, players_int, study_backend
from sim.design.profile import DEFAULT_GAMES, DEFAULT_LEVELS, TOP_RUNG, run_profile

PARSER = examples("balance profile configs/kamakura/base.toml --players 3 --levels greedy,expert",
                  "balance profile my-variant.toml --players 4 --until-decided",
                  "balance profile my-variant.toml --players 3 --values")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--levels",
                        help=f"--agents strings for one seat, weakest first (default {DEFAULT_LEVELS},"
                             f"{TOP_RUNG}); with --until-decided the top two also play until it is "
                             "decided which answers stay the same from one to the other; "
                             "every seat plays the level")
    parser.add_argument("--games", type=games_int,
                        help=f"games per level (default {DEFAULT_GAMES:,}); with --until-decided each "
                             f"level's cap (default {DEFAULT_CAP:,}); at most 10^9")
    add_until_decided_options(parser, "each level")
    add_run_options(parser, seed="the same at every level (default 0)")
    parser.add_argument("--values", action="store_true",
                        help="also a `balance values` run per level: component values per level")
    parser.add_argument("--values-games", type=games_int,
                        help="base games of each values run (default: the game's own; at most 10^9)")
    add_run_options(parser, jobs=True, **study_backend("profile"),
                    out="profile folder (default: runs/profiles/<game>-<config>-<N>p)",
                    force="write into a non-empty folder that is not a profile, and replace level runs made "
                          "by a different config or seed",
                    quiet="no line per level")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    options.check_backend()
    games = args.games or (DEFAULT_CAP if args.until_decided else DEFAULT_GAMES)
    with options.cluster() as cluster:
        result = run_profile(args.config, args.players, levels=args.levels, games=games, jobs=options.jobs,
                             seed=options.seed, out=options.out, force=options.force, say=options.say(),
                             values=args.values, values_games=args.values_games,
                             until_decided=args.until_decided, minutes=args.minutes,
                             margins=parse_margins(args.margin, args.questions), cluster=cluster)
    if result.until:
        print("until decided: " + "; ".join(
            f"{name} {'decided' if done.decided else 'undecided at the ' + done.reason} at "
            f"{done.games:,} games" for name, done in result.until.items())
            + _stable_said(result.stable))
    print(f"{result.text}\n{len(result.levels)} levels ({result.skipped} finished already), "
          f"{result.played:,} games played"
          + (f" and {result.values_played:,} values base games" if args.values else "")
          + f" in {time.perf_counter() - started:.1f} s; profile folder: {result.out}; "
          f"report: {result.report}")
    return 0


def _stable_said(done: Any) -> str:
    """The stable-at-the-top stage in the until-decided line ("" when there was none)."""
    if done is None:
        return ""
    status = "decided" if done.decided else f"undecided at the {done.reason}"
    return f"; stable at the top {status} at {done.games:,} paired games"
