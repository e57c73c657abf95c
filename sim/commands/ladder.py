"""`balance ladder GAME --players N`: a strength ladder, each level against the level below
(sim/design/ladder.py)."""

from __future__ import annotations

import argparse
import time

from sim import games
from sim.commands.options import (
    RunOptions,
    add_run_options,
    examples,
    games_int,
    players_int,
    positive_float,
    study_backend,
)
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.ladder import STEP_MARGIN, parse_iters, run_ladder

PARSER = examples("balance ladder kamakura --players 3",
                  "balance ladder sakura --players 4 --games 400 --iters 50,200")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"the game: {' or '.join(games.names())}")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    parser.add_argument("--games", type=games_int, default=600,
                        help="games per step (default 600, at most 10^9)")
    parser.add_argument("--iters", help="MCTS iterations per level, increasing (default 25,50,100,200,400; "
                                        "none: random and greedy only)")
    add_run_options(parser, jobs=True, **study_backend("ladder"), seed=True,
                    out="ladder folder (default: runs/ladder-<game>-<N>p-seed<S>)")
    parser.add_argument("--no-expert", action="store_true",
                        help="leave out the expert level (the expert agent, its shipped model, against the "
                             "strongest MCTS level); a search level, where the game has one, then plays "
                             "against the strongest MCTS level")
    parser.add_argument("--same-deals", action="store_true",
                        help="play every step on the same deals (the ladder's --seed in every step); by "
                             "default each step is dealt fresh games, its seed derived from --seed and the "
                             "step")
    parser.add_argument("--margin", type=positive_float(50, "percentage points"), default=100 * STEP_MARGIN,
                        help="percentage points of win share within which a step is shown level (an "
                             f"equivalence test; default {100 * STEP_MARGIN:g})")
    add_run_options(parser, quiet="no line per step")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = RunOptions.from_args(args)
    options.check_backend()
    game = _game(args.game)
    iters = parse_iters(args.iters, game.agents["mcts"].highest.get("iters"))
    with options.cluster() as cluster:
        result = run_ladder(game, args.players, config=args.config, games=args.games,
                            iters=iters, jobs=options.jobs, seed=options.seed, out=options.out,
                            say=options.say(), expert=not args.no_expert, cluster=cluster,
                            same_deals=args.same_deals, margin=args.margin / 100)
    print(f"{result.text}\n{result.played:,} games played ({result.skipped} of {len(result.steps)} steps "
          f"finished already) in {time.perf_counter() - started:.1f} s; ladder folder: {result.out}; "
          f"report: {result.report}")
    return 0


def _game(name: str) -> GameSpec:
    """The spec of the GAME argument, looked up here, once (ConfigError naming the games)."""
    if name not in games.names():
        raise ConfigError(f"GAME: must be one of {', '.join(games.names())}, got {name!r}")
    return games.spec(name)
