"""`balance sweep SWEEP_FILE`: run a grid or list of config variants and write a comparison report
(sim/design/sweep.py)."""

from __future__ import annotations

import argparse
import time

from sim.commands.options import RunOptions, add_run_options, examples, study_backend
from sim.design.sweep import run_sweep

PARSER = examples("balance sweep configs/sweeps/kamakura-tie-break.toml",
                  "balance sweep configs/sweeps/sakura-readings.toml --jobs 8 --out runs/sweeps/readings")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_file",
                        help="TOML sweep file, e.g. one of configs/sweeps/; limits: games at most 10^9, "
                             "at most 1,000 variants (the grid counted before it is expanded), the logs "
                             "must fit on the disk")
    add_run_options(parser, jobs=True, **study_backend("sweep"),
                    out="sweep folder (default: runs/sweeps/<sweep file name>)",
                    force="replace run directories made by a different config, seed or agents",
                    quiet="no line per run",
                    wait="if another balance process is writing the sweep folder, wait for it to finish "
                         "(default: refuse at once, naming it)")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    options.check_backend()
    with options.cluster() as cluster:
        result = run_sweep(args.sweep_file, options.out, jobs=options.jobs, force=options.force,
                           say=options.say(), wait=options.wait, cluster=cluster)
    print(f"{len(result.runs)} runs ({result.skipped} finished already), {result.played:,} games "
          f"played in {time.perf_counter() - started:.1f} s; sweep folder: {result.out}; "
          f"report: {result.report}")
    return 0
