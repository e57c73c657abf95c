"""`balance train GAME --players N`: fit the expert agent's evaluation by self-play and write its model file
(sim/app/train.py). `balance train --from-config VARIANT.toml --players N` fits one for a variant and writes
it next to it (VARIANT.expert-<N>p.json), where a seat without `model=` playing that config finds it."""

from __future__ import annotations

import argparse
import time

from sim import games
from sim.app.train import train
from sim.commands.options import (
    MOST_GAMES,
    RunOptions,
    add_run_options,
    at_most,
    examples,
    games_in_memory_int,
    players_int,
    user_path,
)
from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.core.expert_model import variant_model_path

PARSER = examples("balance train kamakura --players 3",
                  "balance train sakura --players 4 --rounds 3 --games 2000",
                  "balance train --from-config my-variant.toml --players 3")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?",
                        help=f"the game: {' or '.join(games.names())} (with --from-config: the config's)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    parser.add_argument("--from-config", type=user_path, metavar="VARIANT.toml",
                        help="fit a model for this config (any game's) and write it next to it, "
                             "VARIANT.expert-<N>p.json, where the expert and search agents playing that "
                             "config find it (instead of --config and --out)")
    parser.add_argument("--games", type=games_in_memory_int, default=3000,
                        help="self-play games per round (default 3000; at most 1,000,000, whose positions "
                             "are held in memory)")
    parser.add_argument("--agents", default="greedy", help="the data agent of round 0, and what the strength "
                                                           "is measured against (default greedy)")
    parser.add_argument("--rounds", type=at_most(100, "each round trains a model"), default=2,
                        help="rounds; each after the first plays the expert of the round before (default 2)")
    parser.add_argument("--strength-games", type=at_most(MOST_GAMES, "a run's chunks are listed in memory",
                                                          lowest=0), default=600,
                        help="games of one expert against the data agent, seats rotated (default 600; 0: "
                             "none; at most 10^9)")
    add_run_options(parser, jobs=True, seed=True,
                    out="model file (default: runs/models/<game>-<config>-<N>p.json)",
                    quiet="no line per round")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = RunOptions.from_args(args)
    game, config, out = _what_to_train(args, options.out)
    result = train(games.spec(game), args.players, config=config, games_per_round=args.games,
                   agents=args.agents, rounds=args.rounds, jobs=options.jobs, seed=options.seed,
                   out=out, strength_games=args.strength_games, say=options.say())
    strength = result.model.strength
    low, high = strength.get("interval", (0.0, 0.0))
    measured = (f"; {strength['win_share']:.1%} [{low:.1%}, {high:.1%}] of wins against "
                f"{strength['against']} (n = {strength['games']})" if strength else "")
    print(f"model written: {result.path} ({result.positions:,} positions{measured}) in "
          f"{time.perf_counter() - started:.1f} s")
    return 0


def _what_to_train(args: argparse.Namespace, out: str | None) -> tuple[str, str | None, str | None]:
    """The game, config and model file asked: GAME [--config] [--out], or --from-config (the config's game;
    the model next to the config). ConfigError on a mix of both or on neither."""
    if args.from_config is None:
        if args.game is None:
            raise ConfigError("train: name the game (balance train GAME --players N) or a config to fit a "
                              "model for (--from-config VARIANT.toml)")
        return args.game, args.config, out
    if args.config is not None:
        raise ConfigError("--config: not with --from-config (which names the config to train on)")
    if out is not None:
        raise ConfigError(f"--out: not with --from-config, whose model is written next to the config "
                          f"({variant_model_path(args.from_config, args.players)}), where the tool finds it")
    merged, _ = load_toml(args.from_config)
    game = games.spec_of_config(merged, args.from_config).name
    if args.game is not None and args.game != game:
        raise ConfigError(f"{args.from_config}: game: the config is for {game}, not {args.game}")
    return game, args.from_config, str(variant_model_path(args.from_config, args.players))
