"""The design commands of `balance`: `sweep` (run config variants and compare them), `tune` (search a
space of config values for the fairest) and `profile` (one config played at several skill levels).
Registered by `sim.app.cli.build_parser`, which hands in its argument checks (this module imports nothing
of the CLI's); bad input is a ConfigError, which `sim.app.cli.main` prints as one line with exit status
2."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable


def add_design_commands(sub: argparse._SubParsersAction, _jobs: Callable[[str], int],
                        _seed: Callable[[str], int]) -> None:
    """Add `sweep`, `tune` and `profile` to the parser; `_jobs` checks a --jobs value (a positive whole
    number), `_seed` a --seed value (the CLI's own checks, handed in)."""
    sweep = sub.add_parser("sweep", help="run a grid or list of config variants and write a comparison "
                                         "report")
    sweep.add_argument("sweep_file", help="TOML sweep file, e.g. one of configs/sweeps/")
    _run_options(sweep, _jobs, "sweep folder (default: runs/sweeps/<sweep file name>)",
                 "replace run directories made by a different config, seed or agents", "no line per run")
    sweep.add_argument("--wait", action="store_true",
                       help="if another balance process is writing the sweep folder, wait for it to finish "
                            "(default: refuse at once, naming it)")

    tune = sub.add_parser("tune", help="search a space of config values for the one that best meets a "
                                       "balance target (candidates raced with confidence intervals)")
    tune.add_argument("tune_file", help="TOML tune file, e.g. one of configs/tunes/")
    _run_options(tune, _jobs, "tune folder (default: runs/tunes/<tune file name>)",
                 "replace candidate run directories (or a model search's study) made by a different config, "
                 "seed or agents", "no line per round")
    tune.add_argument("--baseline", choices=["random"],
                      help="a model search only: run random search over the same space at the same budget "
                           "into the same tune folder, for the report's comparison (default: the search "
                           "itself)")
    tune.add_argument("--backend", choices=["loky", "dask"], default="loky",
                      help="how a model search's games run in parallel: loky processes on this machine, or "
                           "dask (a LocalCluster, or --scheduler) (default loky)")
    tune.add_argument("--scheduler", help="with --backend dask: the address of a running Dask scheduler "
                                          "(default: a LocalCluster of --jobs workers)")

    from sim.app.until_decided import DEFAULT_CAP, add_until_decided_options
    from sim.design.profile import DEFAULT_GAMES, DEFAULT_LEVELS

    profile = sub.add_parser("profile", help="self-play at several skill levels on the same game seeds; the "
                                             "report shows every headline figure per level and flags what "
                                             "depends on how well people play")
    profile.add_argument("config", help="TOML config of any game (its `game` key says which)")
    profile.add_argument("--players", type=int, required=True, help="number of players (required)")
    profile.add_argument("--levels", default=DEFAULT_LEVELS,
                         help=f"--agents strings for one seat, weakest first (default {DEFAULT_LEVELS}); "
                              "every seat plays the level")
    profile.add_argument("--games", type=_jobs,
                         help=f"games per level (default {DEFAULT_GAMES:,}); with --until-decided each "
                              f"level's cap (default {DEFAULT_CAP:,})")
    add_until_decided_options(profile, "each level")
    profile.add_argument("--seed", type=_seed, default=0, help="the same at every level (default 0)")
    profile.add_argument("--values", action="store_true",
                         help="also a `balance values` run per level: component values per level")
    profile.add_argument("--values-games", type=_jobs,
                         help="base games of each values run (default: the game's own)")
    _run_options(profile, _jobs, "profile folder (default: runs/profiles/<game>-<config>-<N>p)",
                 "write into a non-empty folder that is not a profile, and replace level runs made by a "
                 "different config or seed", "no line per level")


def _run_options(parser: argparse.ArgumentParser, jobs: Callable[[str], int], out: str, force: str,
                 quiet: str) -> None:
    """The options both design commands take, with their own help texts."""
    parser.add_argument("--jobs", type=jobs, default=os.cpu_count() or 1,
                        help="worker processes (default: the machine\'s cores, %(default)s here)")
    parser.add_argument("--out", help=out)
    parser.add_argument("--force", action="store_true", help=force)
    parser.add_argument("--quiet", action="store_true", help=quiet)


def _say(quiet: bool):
    def say(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr, flush=True)
    return say


def run_design_command(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    if args.command == "profile":
        from analysis.verdicts import parse_margins
        from sim.app.until_decided import DEFAULT_CAP
        from sim.design.profile import DEFAULT_GAMES, run_profile

        games = args.games or (DEFAULT_CAP if args.until_decided else DEFAULT_GAMES)
        result = run_profile(args.config, args.players, args.levels, games, args.jobs, args.seed,
                             args.out, args.force, say=_say(args.quiet), values=args.values,
                             values_games=args.values_games, until_decided=args.until_decided,
                             minutes=args.minutes, margins=parse_margins(args.margin))
        if result.until:
            print("until decided: " + "; ".join(
                f"{name} {'decided' if done.decided else 'undecided at the ' + done.reason} at "
                f"{done.games:,} games" for name, done in result.until.items()))
        print(f"{result.text}\n{len(result.levels)} levels ({result.skipped} finished already), "
              f"{result.played:,} games played"
              + (f" and {result.values_played:,} values base games" if args.values else "")
              + f" in {time.perf_counter() - started:.1f} s; profile folder: {result.out}; "
              f"report: {result.report}")
        return 0
    if args.command == "sweep":
        from sim.design.sweep import run_sweep

        result = run_sweep(args.sweep_file, args.out, jobs=args.jobs, force=args.force, say=_say(args.quiet),
                           wait=args.wait)
        print(f"{len(result.runs)} runs ({result.skipped} finished already), {result.played:,} games "
              f"played in {time.perf_counter() - started:.1f} s; sweep folder: {result.out}; "
              f"report: {result.report}")
        return 0
    from sim.design.tune import default_out, run_tune
    from sim.design.tune_file import load_tune

    tune = load_tune(args.tune_file)
    if tune.method == "model":
        from pathlib import Path

        from sim.design.model_tune import run_model_tune, why_nothing

        out = Path(args.out) if args.out else default_out(args.tune_file)
        summary = run_model_tune(tune, out, args.jobs, args.backend, args.scheduler, args.baseline or "",
                                 args.force, True, _say(args.quiet))
        rec = summary.get("recommended")
        study = summary["studies"].get("random" if args.baseline else "model", {})
        print((f"recommended: {summary['recommended_config']} ({summary['recommended_label']})\n"
               f"{rec['confirm'][tune.agents]['statement']}" if rec else why_nothing(summary, tune))
              + f"\n{study.get('spent', 0):,} games searching ({len(study.get('records', []))} trials, "
              f"10^{summary['space']['log10_candidates']:.1f} candidates); {summary['played_now']:,} "
              f"played now in {time.perf_counter() - started:.1f} s; report: {summary.get('report')}")
        return 0
    if args.baseline or args.backend != "loky":
        from sim.errors import ConfigError

        raise ConfigError(f"{args.tune_file}: --baseline and --backend are for a model search; this tune "
                          f"races its {len(tune.candidates)} candidates")
    result = run_tune(args.tune_file, args.out, jobs=args.jobs, force=args.force, say=_say(args.quiet))
    share = (result.race_games + result.confirm_games) / result.exhaustive_games \
        if result.exhaustive_games else float("nan")
    print(f"recommended: {result.config_file} ({result.recommended.label()})\n{result.statement}\n"
          f"games: {result.race_games:,} racing + {result.confirm_games:,} confirming = "
          f"{result.race_games + result.confirm_games:,}; an exhaustive grid at the same per-candidate "
          f"sample size: {result.exhaustive_games:,} ({100 * share:.1f}%); {result.played:,} played now in "
          f"{time.perf_counter() - started:.1f} s; report: {result.report}")
    return 0
