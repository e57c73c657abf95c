"""`balance tune TUNE_FILE`: search a space of config values for the one that best meets a balance target,
by racing its candidates (sim/design/tune.py) or, for a space too large to race, by a model search
(sim/design/model_tune.py)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from sim.commands.options import RunOptions, add_run_options, examples
from sim.core.errors import ConfigError
from sim.design.model_tune import run_model_tune, why_nothing
from sim.design.tune import default_out, run_tune
from sim.design.tune_file import GROWTH, LEAST_TOLERANCE, load_tune

PARSER = examples("balance tune configs/tunes/kamakura-3p-chit-points.toml",
                  "balance tune my-tune.toml --jobs 8 --out runs/tunes/mine",
                  "balance tune my-tune.toml --backend dask --scheduler tcp://10.0.0.5:8786")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tune_file",
                        help="TOML tune file, e.g. one of configs/tunes/; limits: budget and game counts "
                             "at most 10^9, at most 10,000 values a space key, racing at most 5,000 "
                             f"candidates, growth and eta from {GROWTH[0]:g} to {GROWTH[1]:g}, "
                             f"target.tolerance from {LEAST_TOLERANCE:g}, finite numbers (no nan or inf)")
    add_run_options(parser, jobs=True,
                    out="tune folder (default: runs/tunes/<tune file name>)",
                    force="replace candidate run directories (or a model search's study) made by a different "
                          "config, seed or agents",
                    quiet="no line per round")
    parser.add_argument("--baseline", choices=["random"],
                        help="a model search only: run random search over the same space at the same budget "
                             "into the same tune folder, for the report's comparison (default: the search "
                             "itself)")
    add_run_options(parser,
                    backend="how a model search's games run in parallel: loky processes on this machine, or "
                            "dask (a LocalCluster, or --scheduler) (default loky)",
                    scheduler="with --backend dask: the address of a running Dask scheduler (default: a "
                              "LocalCluster of --jobs workers)")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    tune = load_tune(args.tune_file)
    if tune.method == "model":
        return _model_search(args, tune, options, started)
    if args.baseline or options.backend != "loky":
        raise ConfigError(f"{args.tune_file}: --baseline and --backend are for a model search; this tune "
                          f"races its {len(tune.candidates)} candidates")

    result = run_tune(args.tune_file, options.out, jobs=options.jobs, force=options.force, say=options.say())
    share = (result.race_games + result.confirm_games) / result.exhaustive_games \
        if result.exhaustive_games else float("nan")
    print(f"recommended: {result.config_file} ({result.recommended.label()})\n{result.statement}\n"
          f"games: {result.race_games:,} racing + {result.confirm_games:,} confirming = "
          f"{result.race_games + result.confirm_games:,}; an exhaustive grid at the same per-candidate "
          f"sample size: {result.exhaustive_games:,} ({100 * share:.1f}%); {result.played:,} played now in "
          f"{time.perf_counter() - started:.1f} s; report: {result.report}")
    return 0


def _model_search(args: argparse.Namespace, tune, options: RunOptions, started: float) -> int:
    """A tune file of ``method = "model"``: the model search (or its random baseline), then what it found."""
    out = Path(options.out) if options.out else default_out(args.tune_file)
    summary = run_model_tune(tune, out, jobs=options.jobs, backend=options.backend,
                             scheduler=options.scheduler, baseline=args.baseline or "", force=options.force,
                             report=True, say=options.say())
    rec = summary.get("recommended")
    study = summary["studies"].get("random" if args.baseline else "model", {})
    stopped = f"\nThe search stopped before its budget: {summary['stopped']}." \
        if rec and summary.get("stopped") else ""
    print((f"recommended: {summary['recommended_config']} ({summary['recommended_label']})\n"
           f"{rec['confirm'][tune.agents]['statement']}{stopped}" if rec else why_nothing(summary, tune))
          + f"\n{study.get('spent', 0):,} games searching ({len(study.get('records', []))} trials, "
          f"{_candidates(summary['space']['log10_candidates'])}); {summary['played_now']:,} "
          f"played now in {time.perf_counter() - started:.1f} s; report: {summary.get('report')}")
    return 0


def _candidates(log10: float) -> str:
    """A space's size in words: "3 candidates" while it is countable at a glance, "10^12.4" past a million."""
    return f"{round(10 ** log10):,} candidates" if log10 < 6 else f"10^{log10:.1f} candidates"
