"""The `balance` command line (API.md). Bad input is refused with one line and exit status 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from sim import games
from sim.app.until_decided import add_margin_option, add_until_decided_options
from sim.errors import ConfigError, RunFailed


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("balance-toolkit")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**63 - 1, got {value}")
    return value


def _run_options(parser: argparse.ArgumentParser, agents: str, unit: str, out: str) -> None:
    """The options `simulate` and `values` share: what to play, where, and how it runs."""
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", type=int, required=True, help="number of players (required)")
    parser.add_argument("--agents", default=agents,
                        help=f"one agent for all seats, or one per seat: a,b,c (default {agents})")
    parser.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1,
                        help="worker processes (default: the machine's cores, %(default)s here)")
    parser.add_argument("--seed", type=_seed, default=0,
                        help="seed of every game's deal and agents: game i plays from (seed, i) (default 0)")
    parser.add_argument("--out", help=f"run directory (default: {out})")
    parser.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="how chunks run in parallel: loky processes or a dask cluster (default loky)")
    parser.add_argument("--scheduler", help="dask scheduler address (default: a local cluster)")
    parser.add_argument("--chunk-size", type=_positive_int,
                        help=f"{unit} per chunk (default: from --games and --jobs)")
    parser.add_argument("--force", action="store_true",
                        help="replace a run directory made by a different run")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--wait", action="store_true",
                        help="if another balance process is writing the run directory, wait for it to finish "
                             "(default: refuse at once, naming it)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="balance",
                                     description="Monte Carlo balance toolkit for board games.")
    parser.add_argument("--version", action="version", version=f"balance {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    study = sub.add_parser("study", help="play a batch of games in memory and print seat win rates")
    study.add_argument("config", help="TOML config of any game (its `game` key says which)")
    study.add_argument("--players", type=int, required=True, help="number of players (required)")
    study.add_argument("--games", type=_positive_int, default=10000, help="games to play (default 10000)")
    study.add_argument("--agents", default="expert",
                       help="one agent for all seats, or one per seat: a,b,c (default expert)")
    study.add_argument("--seed", type=_seed, default=0, help="seed of the games (default 0)")

    sim_p = sub.add_parser("simulate", help="self-play games in parallel into a resumable run directory")
    sim_p.add_argument("--games", type=_positive_int,
                       help="games the run directory should hold (required, unless --until-decided; more "
                            "extends a run); with --until-decided the cap (default 200,000)")
    sim_p.add_argument("--rotate-seats", action="store_true",
                       help="rotate the agents one seat per game: each agent sits in each seat equally")
    add_until_decided_options(sim_p)
    _run_options(sim_p, agents="expert", unit="games",
                 out="runs/<game>-<config>-<N>p-<agents>-seed<S>")

    values = sub.add_parser("values", help="causal value of each component by paired intervention (holding "
                                           "it vs nobody holding it, same seeds), in win share and points")
    values.add_argument("--games", type=_positive_int,
                        help="base games (default: the game's own, in its registry entry); each plays every "
                             "component's arms from every position")
    values.add_argument("--positions", help="turns or rounds played before the intervention, e.g. 0,9,18 "
                                            "(default: the game's own; 0 = the start)")
    _run_options(values, agents="expert", unit="base games",
                 out="runs/values-<game>-<config>-<N>p-<agents>-seed<S>")
    add_margin_option(values)

    report = sub.add_parser("report", help="balance report of run directories (HTML, JSON, CSV)")
    report.add_argument("runs", nargs="+", help="run directories written by simulate")
    report.add_argument("--out", help="report folder (default: reports/<run name>)")
    report.add_argument("--allow-partial", action="store_true",
                        help="report on the intact games of a run with damaged parts (default: refuse it)")
    report.add_argument("--jobs", type=_positive_int, default=1,
                        help="chunks tallied in parallel (default 1); memory holds one chunk a job")
    report.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="loky (this machine, the default) or dask (a LocalCluster)")
    add_margin_option(report)

    summary = sub.add_parser("summary", help="seat win rates and ties of run directories, from their logs")
    summary.add_argument("runs", nargs="+", help="run directories written by simulate")
    summary.add_argument("--allow-partial", action="store_true",
                         help="summarise the intact games of a run with damaged parts (default: refuse it)")
    summary.add_argument("--jobs", type=_positive_int, default=1,
                         help="chunks summarised in parallel (default 1); memory holds one chunk a job")
    summary.add_argument("--backend", choices=("loky", "dask"), default="loky",
                         help="loky (this machine, the default) or dask (a LocalCluster)")
    add_margin_option(summary)

    ladder = sub.add_parser("ladder", help="strength ladder: each level (random, greedy, MCTS at doubling "
                                           "iterations) against the level below; win share vs 1/N")
    ladder.add_argument("game", help=f"the game: {' or '.join(games.names())}")
    ladder.add_argument("--players", type=int, required=True, help="number of players (required)")
    ladder.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    ladder.add_argument("--games", type=_positive_int, default=600, help="games per step (default 600)")
    ladder.add_argument("--iters", help="MCTS iterations per level, increasing (default 25,50,100,200,400; "
                                        "none: random and greedy only)")
    ladder.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1,
                        help="worker processes (default: the machine\'s cores, %(default)s here)")
    ladder.add_argument("--seed", type=_seed, default=0, help="seed of every game (default 0)")
    ladder.add_argument("--out", help="ladder folder (default: runs/ladder-<game>-<N>p-seed<S>)")
    ladder.add_argument("--no-expert", action="store_true",
                        help="leave out the last level, the expert agent (its shipped model) against the "
                             "strongest MCTS level")
    ladder.add_argument("--quiet", action="store_true", help="no line per step")

    play = sub.add_parser("play", help="play one game in the terminal against agents, to check rules by hand")
    play.add_argument("game", help=f"the game: {' or '.join(games.names())}")
    play.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    play.add_argument("--agents",
                      help="one agent per seat or one for all: human, random, greedy, mcts[:key=value,...] "
                           "(default: human in seat 0, mcts in every other seat)")
    play.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    play.add_argument("--seed", type=_seed, help="seed of the deal and the agents (default: drawn and shown)")

    train = sub.add_parser("train", help="fit the expert agent's evaluation by self-play (expert iteration) "
                                         "and write its model file")
    train.add_argument("game", help=f"the game: {' or '.join(games.names())}")
    train.add_argument("--players", type=int, required=True, help="number of players (required)")
    train.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    train.add_argument("--games", type=_positive_int, default=3000, help="self-play games per round (default "
                                                                         "3000)")
    train.add_argument("--agents", default="greedy", help="the data agent of round 0, and what the strength "
                                                          "is measured against (default greedy)")
    train.add_argument("--rounds", type=_positive_int, default=2,
                       help="rounds; each after the first plays the expert of the round before (default 2)")
    train.add_argument("--strength-games", type=int, default=600,
                       help="games of one expert against the data agent, seats rotated (default 600; 0: "
                            "none)")
    train.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1,
                        help="worker processes (default: the machine\'s cores, %(default)s here)")
    train.add_argument("--seed", type=_seed, default=0, help="seed of every game (default 0)")
    train.add_argument("--out", help="model file (default: runs/models/<game>-<config>-<N>p.json)")
    train.add_argument("--quiet", action="store_true", help="no line per round")

    bench = sub.add_parser("bench", help="engine and agent throughput on this machine")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--scale", type=float, default=1.0,
                       help="scale the number of games timed (default 1.0)")
    bench.add_argument("--repeats", type=_positive_int, default=5,
                       help="timings of each figure; the median is reported (default 5)")
    bench.add_argument("--runner", action="store_true",
                       help="instead: time `balance simulate` with --jobs 1 and 2 (100,000 games each)")
    bench.add_argument("--games", type=_positive_int, default=100_000,
                       help="games per run with --runner (default 100000)")

    from sim.app import compare
    from sim.design.commands import add_design_commands

    compare.add_parser(sub, _positive_int, _seed)

    add_design_commands(sub, _positive_int, _seed)  # sweep, tune, profile
    return parser


def _study(args: argparse.Namespace) -> int:
    from sim.app.study import format_study, run_study

    print(format_study(run_study(args.config, args.players, args.agents, args.games, args.seed)))
    return 0


def _play_run(plan, games_asked: int, args: argparse.Namespace, unit: str):
    """Play a plan into its run directory with the shared run options, a progress bar on a terminal."""
    from tqdm import tqdm

    from sim.app.runner import default_out, simulate

    out = args.out or default_out(plan)
    show = not args.quiet and sys.stderr.isatty()
    if not args.quiet:
        from sim.app.kernel_cache import announce_compiling

        announce_compiling(plan.game, lambda line: print(f"balance: {line}", file=sys.stderr, flush=True))
    with tqdm(total=games_asked, unit=unit, disable=not show, smoothing=0.1, desc=plan.game) as bar:
        result = simulate(plan, games_asked, out, jobs=args.jobs, backend=args.backend,
                          scheduler=args.scheduler, force=args.force, chunk_size=args.chunk_size,
                          progress=bar.update, wait=args.wait)
    if result.damaged:
        print(f"balance: {len(result.damaged)} damaged part(s) moved to {result.quarantined} and their games "
              f"played again: {'; '.join(result.damaged)}", file=sys.stderr)
    return result


def _start(args: argparse.Namespace, game: str) -> None:
    """Start the loky workers of a command that plays a plan, before anything else it does."""
    from sim.app.runner import prestart_workers

    if args.backend == "loky":
        prestart_workers(args.jobs, game)  # first, so their start-up overlaps everything below


def _check_backend(args: argparse.Namespace) -> None:
    if args.scheduler and args.backend != "dask":
        raise ConfigError("--scheduler: only used with --backend dask")


def _simulate(args: argparse.Namespace) -> int:
    started = time.perf_counter()  # the reported time covers validation and worker start-up too
    from sim.app.runner import plan_run

    _check_backend(args)
    if args.until_decided:  # the caps and margins are refused, if bad, before anything is planned
        from analysis.verdicts import parse_margins
        from sim.app.until_decided import DEFAULT_CAP, check_caps

        cap = args.games if args.games is not None else DEFAULT_CAP
        check_caps(cap, args.minutes)
        margins = parse_margins(args.margin)
    else:
        for option, value in (("--minutes", args.minutes), ("--margin", args.margin)):
            if value is not None:
                raise ConfigError(f"{option}: only used with --until-decided")
        if args.games is None:
            raise ConfigError("--games: required, the games the run directory should hold (or "
                              "--until-decided: play until the verdicts are decided)")
    plan = plan_run(args.config, args.players, args.agents, args.seed, args.rotate_seats)
    _start(args, plan.game)
    if not args.until_decided:
        result = _play_run(plan, args.games, args, "games")
        seconds = time.perf_counter() - started
        rate = result.played / seconds if seconds > 0 else 0.0
        note = f" ({result.already} were already there)" if result.already else ""
        from analysis.summary import agents_text

        players = agents_text({"agents": plan.agents, "rotate_seats": plan.rotate_seats})
        print(f"{result.played} games played{note} by {players} in {seconds:.1f} s, {rate:,.0f} games/s; "
              f"run directory: {result.run_dir}")
        return 0
    from analysis.summary import format_run
    from sim.app.runner import default_out
    from sim.app.until_decided import RunJudge, first_round, play_until_decided

    out = args.out or default_out(plan)
    judge = RunJudge(out, margins)
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    done = play_until_decided(lambda games: _play_run(plan, games, args, "games").played, judge, cap,
                              args.minutes, say, first=first_round(plan.smallest_chunk()), plan=judge.plan)
    seconds = time.perf_counter() - started
    rate = done.played / seconds if seconds > 0 else 0.0
    stopped = ("every verdict decided" if done.decided else f"stopped undecided at the games cap ({cap:,})"
               if done.reason == "games cap" else f"stopped undecided at the time cap ({args.minutes} min)")
    print(format_run(judge.run, margins))
    print(f"until decided: {stopped} at {done.games:,} games, {done.rounds} round(s); {done.played:,} games "
          f"played in {seconds:.1f} s, {rate:,.0f} games/s; run directory: {out}")
    return 0


def _values(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    from analysis.verdicts import parse_margins
    from sim.app.values_run import plan_values

    _check_backend(args)
    margins = parse_margins(args.margin)
    plan = plan_values(args.config, args.players, args.agents, args.seed, args.positions)
    _start(args, plan.game)
    from analysis.values import format_values, read_values_run
    from analysis.worth_verdicts import format_worth

    result = _play_run(plan, args.games or games.spec(plan.game).values.games, args, "base games")
    seconds = time.perf_counter() - started
    note = f" ({result.already} were already there)" if result.already else ""
    values_run = read_values_run(result.run_dir)
    print(format_worth(values_run, margins))
    print(format_values(values_run))
    print(f"{result.played} base games played{note} in {seconds:.1f} s; run directory: {result.run_dir} "
          f"(`balance report {result.run_dir}` for the tables and charts)")
    return 0


def _report(args: argparse.Namespace) -> int:
    from analysis.report import build_report

    started = time.perf_counter()
    from analysis.verdicts import parse_margins

    page = build_report(args.runs, args.out, allow_partial=args.allow_partial, jobs=args.jobs,
                        backend=args.backend, margins=parse_margins(args.margin))
    print(f"report written in {time.perf_counter() - started:.1f} s: {page}")
    return 0


def _summary(args: argparse.Namespace) -> int:
    from analysis.run_tally import read_run_tally
    from analysis.runs import run_snapshot
    from analysis.summary import format_run
    from analysis.values import format_values, is_values_run, read_values_run
    from analysis.verdicts import parse_margins
    from analysis.worth_verdicts import format_worth

    margins = parse_margins(args.margin)
    # refuse any bad directory before printing anything; a `balance values` run prints its values. A
    # simulate run is summarised from its report tally, chunk by chunk: memory holds a chunk, not the run.
    runs = [read_values_run(path, args.allow_partial) if is_values_run(path) else
            run_snapshot(path, args.allow_partial) for path in args.runs]
    texts = []
    for run in runs:
        if is_values_run(run.path):
            texts.append(f"{run.path}:\n{format_worth(run, margins)}\n{format_values(run)}")
            continue
        tally = read_run_tally(run.path, args.allow_partial, args.jobs, args.backend)
        texts.append(format_run(tally, margins))
    print("\n\n".join(texts))
    return 0


def _ladder(args: argparse.Namespace) -> int:
    from sim.design.ladder import parse_iters, run_ladder

    started = time.perf_counter()
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = run_ladder(args.game, args.players, args.config, args.games, parse_iters(args.iters), args.jobs,
                        args.seed, args.out, say=say, expert=not args.no_expert)
    print(f"{result.text}\n{result.played:,} games played ({result.skipped} of {len(result.steps)} steps "
          f"finished already) in {time.perf_counter() - started:.1f} s; ladder folder: {result.out}; "
          f"report: {result.report}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from sim.app.train import train

    started = time.perf_counter()
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = train(args.game, args.players, args.config, args.games, args.agents, args.rounds, args.jobs,
                   args.seed, args.out, args.strength_games, say=say)
    strength = result.model.strength
    low, high = strength.get("interval", (0.0, 0.0))
    measured = (f"; {strength['win_share']:.1%} [{low:.1%}, {high:.1%}] of wins against "
                f"{strength['against']} (n = {strength['games']})" if strength else "")
    print(f"model written: {result.path} ({result.positions:,} positions{measured}) in "
          f"{time.perf_counter() - started:.1f} s")
    return 0


def _play(args: argparse.Namespace) -> int:
    from sim.app.play import play_game

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    play_game(args.game, args.players, args.agents, seed, config=args.config)
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.runner:
        from sim.app.bench_runner import format_runner_bench, run_runner_bench

        figures = run_runner_bench(args.games, args.repeats)
        print(json.dumps(figures, indent=2) if args.json else format_runner_bench(figures))
        return 0
    from sim.app.bench import format_bench, run_bench

    figures = run_bench(scale=args.scale, repeats=args.repeats)
    print(json.dumps(figures, indent=2) if args.json else format_bench(figures))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "study":
            return _study(args)
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "values":
            return _values(args)
        if args.command == "summary":
            return _summary(args)
        if args.command == "report":
            return _report(args)
        if args.command == "ladder":
            return _ladder(args)
        if args.command == "play":
            return _play(args)
        if args.command == "train":
            return _train(args)
        if args.command == "compare":
            from sim.app.compare import main as compare_main

            return compare_main(args)
        if args.command in ("sweep", "tune", "profile"):
            from sim.design.commands import run_design_command

            return run_design_command(args)
        return _bench(args)
    except ConfigError as err:
        print(f"balance: {err}", file=sys.stderr)
        return 2
    except RunFailed as err:
        print(f"balance: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # a read-only place, a file where a folder should be, a full disk: one line
        print(f"balance: {err.filename or ''}{': ' if err.filename else ''}{err.strerror or err}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("balance: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The `balance` command: main(), then the interpreter's exit handlers (loky's and Dask's shutdown,
    logging's flush) and an immediate exit. Why not a plain return: Arrow's C++ thread pools can abort the
    interpreter's own teardown after the work is done ("terminate called without an active exception",
    status -6; apache/arrow#34314), which turned a refusal's status 2 into a crash, intermittently."""
    import atexit

    try:
        code = main()
    except SystemExit as stop:  # argparse's --help, --version and usage errors
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
        if not isinstance(stop.code, int) and stop.code is not None:
            print(stop.code, file=sys.stderr)
    # loky's own exit handler sits in threading's shutdown, which os._exit skips: stop its workers here
    executors = sys.modules.get("joblib.externals.loky.reusable_executor")
    if executors is not None and getattr(executors, "_executor", None) is not None:
        executors._executor.shutdown(wait=True)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`balance ... | head`): nothing more to say
            pass
    os._exit(code)
