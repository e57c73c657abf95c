"""`balance summary`: seat win rates and ties of run directories, read from their logs (a `balance values`
run prints its values)."""

from __future__ import annotations

import argparse

from analysis.causal_values import format_values, is_values_run, read_values_run
from analysis.run_tally import read_run_tally
from analysis.runs import run_snapshot
from analysis.summary_text import format_run
from analysis.verdicts import parse_margins
from analysis.worth_verdicts import format_worth, worth_table
from sim import games
from sim.app.expert_check import cached_checks
from sim.commands.options import RunOptions, add_run_dirs_options, examples

PARSER = examples("balance summary runs/my-run",
                  "balance summary runs/base-run runs/variant-run --margin 1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_dirs_options(parser, partial="summarise", tallied="summarised")


def run(args: argparse.Namespace) -> int:
    options = RunOptions.from_args(args)
    margins = parse_margins(args.margin, args.questions)
    # refuse any bad directory before printing anything; a `balance values` run prints its values. A
    # simulate run is summarised from its report tally, chunk by chunk: memory holds a chunk, not the run.
    runs = [read_values_run(path, args.allow_partial) if is_values_run(path) else
            run_snapshot(path, args.allow_partial) for path in args.runs]
    texts = []
    for one in runs:
        if is_values_run(one.path):
            texts.append(f"{one.path}:\n{format_worth(one, margins)}\n{format_values(one, worth_table(one))}")
            continue
        tally = read_run_tally(one.path, args.allow_partial, options.jobs, options.backend)
        texts.append(_with_checks(format_run(tally, margins), tally.manifest))
    print("\n\n".join(texts))
    return 0


def _with_checks(text: str, manifest) -> str:
    """A run's summary with, under its first line, the strength check of each model its seats played on a
    config it was not trained on (sim.app.expert_check), as measured and cached by `balance simulate` or
    `compare`; no game is played here, and a check not cached is said to be missing."""
    others = [r for r in manifest.models or () if r.get("trained_on_hash") != manifest.config_hash]
    if not others:
        return text
    config = (manifest.config_path or "this config", manifest.config_hash or "")
    checks = cached_checks(games.spec(manifest.game), manifest.players, config, others)
    lines = [f"  {'warning: ' if check.weak else ''}{check.sentence()}" for check in checks]
    measured = {check.agent for check in checks}
    lines += [f"  {r.get('agent')}'s model was trained on another config and its strength here is not "
              "measured yet (balance simulate measures it)" for r in others
              if str(r.get("agent")) not in measured]
    first, _, rest = text.partition("\n")
    return "\n".join([first, *lines, rest])
