"""The expert on variants (docs/reference/agents.md, "The expert on a variant"): for each variant of a game,
the strength check of the shipped model there (sim/app/expert_check.py: one expert seat against greedy, on
the variant and on the base config, the same seeds) next to what a model fitted for the variant gains over
the shipped one there (`balance train --from-config`, then both models on the variant, the same seeds,
paired game by game). A check that warns should be one where a fitted model gains; a variant where the
shipped model loses nothing should pass.

    PYTHONPATH=. python scripts/expert_on_variants.py --game kamakura --players 3 --jobs 1
    PYTHONPATH=. python scripts/expert_on_variants.py --game sakura --players 4 --jobs 1
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from analysis.stats import Z95
from sim import games
from sim.app.expert_check import GAMES, check_level
from sim.app.train import level_shares, train
from sim.core.expert_model import variant_model_path

ROOT = Path(__file__).resolve().parents[1]


def _chits(colours: tuple[str, ...], key: str, values: list[int]) -> str:
    return "".join(f'"chits.{c}[{i}].{key}" = {v}\n' for c in colours for i, v in enumerate(values))


def _board(length: int, torii: int, sakura: list[int], bridges: list[int]) -> str:
    return f"[board]\nlength = {length}\ntorii = {torii}\nsakura = {sakura}\nbridges = {bridges}\n"


THREE = ("red", "yellow", "green")
#: name -> the lines a variant adds to the base config
VARIANTS = {
    "kamakura": {
        "blue chits 20 points": _chits(("blue",), "points", [20] * 10),
        "green needs 4 tiles at least": '"rules.green_min_requirement" = 4\n',
        "order chits move 8": '"rules.order_chit_moves" = [0, 8, 8, 8]\n',
        "no powers": _chits(THREE, "power", [0] * 10),
        "every power 4": _chits(THREE, "power", [4] * 10),
        "order chits move 0": '"rules.order_chit_moves" = [0, 0, 0, 0]\n',
        "points against icons": _chits(THREE, "points", [4, 4, 4, 4, 3, 3, 3, 2, 2, 1])
        + _chits(("blue",), "points", [8, 8, 8, 8, 6, 6, 6, 4, 4, 2]),
        "red points against icons": _chits(("red",), "points", [4, 4, 4, 4, 3, 3, 3, 2, 2, 1]),
    },
    "sakura": {
        "short board": _board(22, 2, [8, 14, 20], [4, 10, 16, 18]),
        "early first sakura": _board(30, 2, [6, 14, 28], [8, 16, 24, 26]),
        "late sakura": _board(30, 4, [22, 25, 28], [8, 16, 24, 26]),
        "bump from the painter, line up": '[rules]\nbump_from = "painter"\nlineup_from_gate = true\n',
        "shared ties": '[rules]\ntie_break = "shared"\n',
    },
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(VARIANTS))
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=GAMES, help="games a config (default: the check's)")
    parser.add_argument("--train-games", type=int, default=1500, help="self-play games a training round")
    parser.add_argument("--seed", type=int, default=1, help="the training's seed (the check's is its own, 0)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    spec = games.spec(args.game)
    base = ROOT / "configs" / args.game / "base.toml"
    print("variant | check: shipped model on the variant, on the base, drop [95%] | fitted model's gain on "
          "the variant [95%] | seconds")
    with tempfile.TemporaryDirectory() as folder:
        for i, (name, lines) in enumerate(VARIANTS[args.game].items()):
            started = time.perf_counter()
            path = Path(folder) / f"v{i}.toml"
            path.write_text(f'extends = "{base.as_posix()}"\ndescription = "{name}"\n{lines}')
            check = check_level(path, args.players, "expert", args.jobs, games=args.games, cache=False)
            fitted = train(spec, args.players, config=path, games_per_round=args.train_games, jobs=args.jobs,
                           seed=args.seed, out=variant_model_path(path, args.players), strength_games=0)
            _, merged, _ = games.load_config(path, args.players)
            shares = {model: level_shares(spec, merged, str(path), args.players, f"expert:model={model}",
                                          against="greedy", n_games=args.games, seed=check.seed,
                                          jobs=args.jobs)
                      for model in (fitted.path, ROOT / check.model)}
            gain = shares[fitted.path] - shares[ROOT / check.model]
            half = Z95 * float(gain.std(ddof=1)) / math.sqrt(args.games)
            low, high = check.intervals()["drop"]
            print(f"{name} | {100 * check.wins:.1f}%, {100 * check.base_wins:.1f}%, "
                  f"{100 * check.drop:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"
                  f"{' WARNED' if check.weak else ''} | "
                  f"{100 * gain.mean():+.1f} pp [{100 * (gain.mean() - half):+.1f}, "
                  f"{100 * (gain.mean() + half):+.1f}] | {time.perf_counter() - started:.0f}", flush=True)


if __name__ == "__main__":
    main()
