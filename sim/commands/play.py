"""`balance play GAME`: one game in the terminal against agents, to check the rules by hand
(sim/app/play.py)."""

from __future__ import annotations

import argparse
import os

from sim import games
from sim.app.play import play_game
from sim.commands.options import add_run_options, examples, players_int

PARSER = examples("balance play kamakura",
                  "balance play sakura --players 4 --agents greedy --seed 7")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"the game: {' or '.join(games.names())}")
    parser.add_argument("--players", type=players_int, default=2, help="number of players (default 2)")
    parser.add_argument("--agents",
                        help="one agent per seat or one for all: human, random, greedy, mcts[:key=value,...] "
                             "(default: human in seat 0, mcts in every other seat)")
    parser.add_argument("--config", help="TOML config of the game (default: configs/<game>/base.toml)")
    add_run_options(parser, seed={
        "default": None, "help": "seed of the deal and the agents (default: drawn and shown)"})


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    play_game(games.spec(args.game), args.players, args.agents, seed, config=args.config)
    return 0
