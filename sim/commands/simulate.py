"""`balance simulate`: self-play games in parallel into a resumable run directory, a fixed number of them
or (--until-decided) in rounds until every headline verdict is decided."""

from __future__ import annotations

import argparse
import dataclasses
import time

from analysis.run_tally import read_run_tally
from analysis.summary_text import agents_text, format_run
from analysis.verdicts import parse_margins
from sim.app.expert_check import check_plan, say_checks
from sim.app.plain_run import FirstBatch, first_batch, warmer
from sim.app.runner import check_run_out, default_out, interrupted, plan_run
from sim.app.until_decided import (
    DEFAULT_CAP,
    RunJudge,
    RunsCost,
    add_until_decided_options,
    check_caps,
    first_probe,
    first_round,
    play_until_decided,
)
from sim.commands.options import RunOptions, examples, games_int
from sim.commands.playing import add_model_check_option, add_play_options, play_run, start_workers
from sim.core.errors import ConfigError, Interrupted
from storage.run_dir import RunDirectory, mark_stopped_adaptively

PARSER = examples("balance simulate configs/kamakura/base.toml --players 3 --games 20000",
                  "balance simulate my-variant.toml --players 4 --until-decided",
                  "balance simulate my-variant.toml --players 2 --agents greedy,random --rotate-seats")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=games_int,
                        help="games the run directory should hold (required, unless --until-decided; more "
                             "extends a run; at most 10^9); with --until-decided the cap (default 200,000)")
    parser.add_argument("--rotate-seats", action="store_true",
                        help="rotate the agents one seat per game: each agent sits in each seat equally")
    add_until_decided_options(parser)
    add_model_check_option(parser)
    add_play_options(parser, agents="expert", unit="games", out="runs/<game>-<config>-<N>p-<agents>-seed<S>")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()  # the reported time covers validation and worker start-up too

    options = RunOptions.from_args(args)
    options.check_backend()
    if args.until_decided:  # the caps and margins are refused, if bad, before anything is planned

        cap = args.games if args.games is not None else DEFAULT_CAP
        check_caps(cap, args.minutes)
        margins = parse_margins(args.margin, args.questions)
    else:
        for option, value in (("--minutes", args.minutes), ("--margin", args.margin),
                              ("--questions", args.questions)):
            if value is not None:
                raise ConfigError(f"{option}: only used with --until-decided")
        if args.games is None:
            raise ConfigError("--games: required, the games the run directory should hold (or "
                              "--until-decided: play until the verdicts are decided)")
    plan = plan_run(args.config, args.players, args.agents, args.seed, args.rotate_seats)
    start_workers(options, plan.spec)
    if not args.no_model_check:
        say_checks(check_plan(plan, options.jobs, options.say()), options.say())
    try:
        if not args.until_decided:
            return _play_games(plan, args.games, options, started)
        return _play_until_decided(plan, options, started, cap=cap, margins=margins, minutes=args.minutes)
    except Interrupted:  # while playing: it says what was kept
        raise
    except KeyboardInterrupt:  # between rounds (or after a first batch), while the verdicts are read
        raise _kept(plan, options) from None


def _kept(plan, options: RunOptions) -> Interrupted:
    """What Ctrl-C says of the plan's run directory: the games it kept."""
    out = options.out or default_out(plan)
    return interrupted(RunDirectory(out, plan.tables).finished_total(), out)


def _play_games(plan, games: int, options: RunOptions, started: float) -> int:
    """Play the run directory to `games` games and say how it went; a long run says its plan first, timed
    on its first games (sim.app.plain_run; not with --quiet)."""
    first = FirstBatch() if options.quiet else _first_batch(plan, games, options)
    result = play_run(plan, games, options, "games", lines=first.progress)
    result.played += first.played
    result.already -= first.played  # (the first batch's games count as played, not as there before)
    seconds = time.perf_counter() - started
    rate = result.played / seconds if seconds > 0 else 0.0
    note = f" ({result.already} were already there)" if result.already else ""

    players = agents_text(plan)
    print(f"{result.played} games played{note} by {players} in {seconds:.1f} s, {rate:,.0f} games/s; "
          f"run directory: {result.run_dir}")
    return 0


def _first_batch(plan, games: int, options: RunOptions) -> FirstBatch:
    """The run's first games, timed, and the plan said when the rest takes long (sim.app.plain_run)."""
    out = options.out or default_out(plan)
    check_run_out(plan, games, out, options.force)  # refused before the kernels are warmed

    def play_to(n: int, chunk: int) -> int:
        return play_run(plan, n, dataclasses.replace(options, quiet=True, chunk_size=chunk), "games").played

    return first_batch(play_to, [RunDirectory(out, plan.tables)], games, smallest_chunk=plan.smallest_chunk(),
                       jobs=options.jobs, who=agents_text(plan), label=plan.game, say=options.say(),
                       warm=warmer(plan, options.jobs, options.backend, options.say()))


def _play_until_decided(plan, options: RunOptions, started: float, *, cap: int, margins,
                        minutes: float | None) -> int:
    """Play the run directory in rounds until its verdicts are decided (or a cap), then summarise it."""
    out = options.out or default_out(plan)
    judge = RunJudge(out, margins)
    try:
        done = play_until_decided(lambda games: play_run(plan, games, options, "games").played, judge, cap,
                                  minutes, options.say(), first=first_round(plan.smallest_chunk()),
                                  plan=judge.plan, cost=RunsCost([(out, plan.tables)], options.jobs),
                                  probe=first_probe(plan.smallest_chunk(), minutes),
                                  warm=warmer(plan, options.jobs, options.backend, options.say()))
    finally:  # it stopped on its own data, or was looked at before an interruption: its report says so
        mark_stopped_adaptively(out)
    seconds = time.perf_counter() - started
    rate = done.played / seconds if seconds > 0 else 0.0
    stopped = ("every verdict decided" if done.decided else f"stopped undecided at the games cap ({cap:,})"
               if done.reason == "games cap" else f"stopped undecided at the time cap ({minutes} min)")
    print(format_run(read_run_tally(out), margins))  # read again: the manifest now says how it stopped
    print(f"until decided: {stopped} at {done.games:,} games, {done.rounds} round(s); {done.played:,} games "
          f"played in {seconds:.1f} s, {rate:,.0f} games/s; run directory: {out}")
    return 0
