"""`balance luck`: how much of who wins the deal, the draws and the players' own choices decide, and so
what a luck-corrected estimate can save at most (sim/app/luck.py)."""

from __future__ import annotations

import argparse
import json

from sim.app.luck import LuckPlan, luck_text, play_luck
from sim.commands.options import examples, players_int, positive_int, seed_int

PARSER = examples("balance luck configs/kamakura/base.toml --players 3 --agents expert --jobs 2",
                  "balance luck configs/sakura/base.toml --players 4 --agents expert --deals 2000 --jobs 2")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="TOML config of any game (its `game` key says which)")
    parser.add_argument("--players", type=players_int, required=True, help="number of players (required)")
    parser.add_argument("--agents", default="expert",
                        help="one agent for all seats, or one per seat: a,b,c (default expert)")
    parser.add_argument("--deals", type=positive_int, default=1000,
                        help="deals, each played in every draw order and replay (default 1000; at least 20)")
    parser.add_argument("--draws", type=positive_int, default=None,
                        help="orders of the cards left after the deal, per deal (default 2 where the game "
                             "draws after its setup, else 1)")
    parser.add_argument("--replays", type=positive_int, default=None,
                        help="plays of each deal and draw order with other choices of the agents "
                             "(default 2 with several draw orders, else 4; at least 2)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the deals (default 0)")
    parser.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON records")


def run(args: argparse.Namespace) -> int:
    result = play_luck(LuckPlan(args.config, args.players, agents=args.agents, deals=args.deals,
                                draws=args.draws, replays=args.replays, seed=args.seed, jobs=args.jobs))
    if args.json:
        print(json.dumps(result.table.to_dict(orient="records"), indent=1))
    else:
        print(luck_text(result))
    return 0
