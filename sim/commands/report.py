"""`balance report`: the balance report (HTML, JSON, CSV) of run directories (analysis/run_report.py)."""

from __future__ import annotations

import argparse
import time

from analysis.run_report import build_report
from analysis.verdicts import parse_margins
from sim.commands.options import RunOptions, add_run_dirs_options, examples

PARSER = examples("balance report runs/my-run --out reports/my-run",
                  "balance report runs/base-run runs/variant-run --out reports/both",
                  "balance report runs/big-run --jobs 8 --backend dask")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_dirs_options(parser, partial="report on", tallied="tallied",
                         out="report folder (default: reports/<run name>)")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    options = RunOptions.from_args(args)
    page = build_report(args.runs, options.out, allow_partial=args.allow_partial, jobs=options.jobs,
                        backend=options.backend, margins=parse_margins(args.margin, args.questions))
    print(f"report written in {time.perf_counter() - started:.1f} s: {page}")
    return 0
