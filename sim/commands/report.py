"""`balance report`: the balance report (HTML, JSON, CSV) of run directories (analysis/run_report.py)."""

from __future__ import annotations

import argparse
import time

from sim.app.until_decided import add_margin_option
from sim.commands.options import RunOptions, add_run_options

NAME = "report"
HELP = "balance report of run directories (HTML, JSON, CSV)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", help="run directories written by simulate")
    add_run_options(parser, out="report folder (default: reports/<run name>)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="report on the intact games of a run with damaged parts (default: refuse it)")
    add_run_options(parser, jobs={"default": 1, "help": "chunks tallied in parallel (default 1); memory "
                                                       "holds one chunk a job"}, backend=True)
    add_margin_option(parser)


def run(args: argparse.Namespace) -> int:
    from analysis.run_report import build_report

    started = time.perf_counter()
    from analysis.verdicts import parse_margins

    options = RunOptions.from_args(args)
    page = build_report(args.runs, options.out, allow_partial=args.allow_partial, jobs=options.jobs,
                        backend=options.backend, margins=parse_margins(args.margin))
    print(f"report written in {time.perf_counter() - started:.1f} s: {page}")
    return 0
