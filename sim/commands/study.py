"""`balance study`: a batch of games played in memory, its seat win rates printed (sim/app/study.py)."""

from __future__ import annotations

import argparse

from sim.app.study import format_study, run_study
from sim.commands.options import add_run_options, examples, games_in_memory_int, players_int

PARSER = examples("balance study configs/kamakura/base.toml --players 3 --games 10000 --agents random",
                  "balance study configs/sakura/base.toml --players 4 --agents greedy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--games", type=games_in_memory_int, default=10000,
                        help="games to play (default 10000; at most 1,000,000, which are held in memory: "
                             "`balance simulate` streams more to disk)")
    parser.add_argument("--agents", default="expert",
                        help="one agent for all seats, or one per seat: a,b,c (default expert; "
                             "each parameter's range: docs/reference/agents.md)")
    add_run_options(parser, seed="seed of the games (default 0)")


def run(args: argparse.Namespace) -> int:
    print(format_study(run_study(args.config, args.players, args.agents, args.games, args.seed)))
    return 0
