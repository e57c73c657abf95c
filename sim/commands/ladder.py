"""`balance ladder GAME --players N`: a strength ladder, each level against the level below
(sim/design/ladder.py)."""

from __future__ import annotations

import argparse
import time

from sim import games
from sim.commands.options import RunOptions, add_run_options, examples, games_int, players_int
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.ladder import parse_iters, run_ladder

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
    add_run_options(parser, jobs=True, seed=True,
                    out="ladder folder (default: runs/ladder-<game>-<N>p-seed<S>)")
    parser.add_argument("--no-expert", action="store_true",
                        help="leave out the expert level (the expert agent, its shipped model, against the "
                             "strongest MCTS level); a search level, where the game has one, then plays "
                             "against the strongest MCTS level")
    add_run_options(parser, quiet="no line per step")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = RunOptions.from_args(args)
    game = _game(args.game)
    iters = parse_iters(args.iters, game.agents["mcts"].highest.get("iters"))
    result = run_ladder(game, args.players, config=args.config, games=args.games,
                        iters=iters, jobs=options.jobs, seed=options.seed, out=options.out,
                        say=options.say(), expert=not args.no_expert)
    print(f"{result.text}\n{result.played:,} games played ({result.skipped} of {len(result.steps)} steps "
          f"finished already) in {time.perf_counter() - started:.1f} s; ladder folder: {result.out}; "
          f"report: {result.report}")
    return 0


def _game(name: str) -> GameSpec:
    """The spec of the GAME argument, looked up here, once (ConfigError naming the games)."""
    if name not in games.names():
        raise ConfigError(f"GAME: must be one of {', '.join(games.names())}, got {name!r}")
    return games.spec(name)
