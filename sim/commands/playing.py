"""What `balance simulate` and `balance values` share: their options (what to play, where, and how it
runs) and playing a plan into its run directory with a progress bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tqdm import tqdm

from sim.app.kernel_cache import announce_compiling
from sim.app.plain_run import ProgressLines
from sim.app.runner import default_out, prestart_workers, simulate
from sim.commands.options import RunOptions, add_run_options, players_int
from sim.core.game_spec import GameSpec
from storage.run_dir import RunDirectory


def add_play_options(parser: argparse.ArgumentParser, agents: str, unit: str, out: str) -> None:
    """The options `simulate` and `values` share: what to play, where, and how it runs."""
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--agents", default=agents,
                        help=f"one agent for all seats, or one per seat: a,b,c (default {agents}; "
                             "each parameter's range: docs/reference/agents.md)")
    add_run_options(
        parser, jobs=True,
        seed="seed of every game's deal and agents: game i plays from (seed, i) (default 0)",
        out=f"run directory (default: {out})",
        backend="how chunks run in parallel: loky processes or a dask cluster (default loky)",
        scheduler=True,
        chunk_size=f"{unit} per chunk (default: from --games and --jobs)",
        force=True,
        quiet="no progress bar",
        wait="if another balance process is writing the run directory, wait for it to finish (default: "
             "refuse at once, naming it)")


def add_model_check_option(parser: argparse.ArgumentParser) -> None:
    """--no-model-check (simulate, compare): skip the strength check of a model on a config it was not
    trained on."""
    parser.add_argument("--no-model-check", action="store_true",
                        help="do not check the expert's (and search's) model on a config it was not trained "
                             "on (by default measured once, cached: docs/reference/agents.md)")


def start_workers(options: RunOptions, spec: GameSpec) -> None:
    """Start the loky workers of a command that plays a plan, before anything else it does."""
    if options.backend == "loky":
        prestart_workers(options.jobs, spec)  # first, so their start-up overlaps everything below


def play_run(plan: Any, games_asked: int, options: RunOptions, unit: str,
             lines_off_terminal: bool = True, lines: ProgressLines | None = None) -> Any:
    """Play a plan into its run directory with the shared run options, a progress bar on a terminal (off
    one, a line every 10 s: ProgressLines, unless the caller says its own lines; `lines`: those of a plan
    said, sim.app.plain_run)."""
    out = options.out or default_out(plan)
    show = not options.quiet and sys.stderr.isatty()
    if not options.quiet:
        announce_compiling(plan.spec, lambda line: print(f"balance: {line}", file=sys.stderr, flush=True))
    try:
        missing = max(0, games_asked - RunDirectory(out, plan.tables).finished_within(games_asked))
    except OSError:  # simulate says what is wrong with the folder
        missing = games_asked
    if lines is None and lines_off_terminal and not options.quiet and not show:
        lines = ProgressLines(plan.game, missing, unit)
    elif show:
        lines = None  # (the bar says it)
    with tqdm(total=games_asked, initial=games_asked - missing, unit=unit, disable=not show, smoothing=0.1,
              desc=plan.game) as bar:
        def progress(games: int) -> None:
            bar.update(games)
            if lines is not None:
                lines(games)

        result = simulate(plan, games_asked, out, jobs=options.jobs, backend=options.backend,
                          scheduler=options.scheduler, force=options.force, chunk_size=options.chunk_size,
                          progress=progress, wait=options.wait)
    if result.damaged:
        print(f"balance: {len(result.damaged)} damaged part(s) moved to {result.quarantined} and their games "
              f"played again: {'; '.join(result.damaged)}", file=sys.stderr)
    if getattr(result, "stalled", 0):
        print(f"balance: warning: {result.stalled:,} of the {result.played:,} {unit} played stopped at "
              f"{plan.spec.limit_end[1]} without ending by the rules: the config may not let a game progress "
              "(the report counts them)", file=sys.stderr)
    return result
