"""How far an explore's refined figures are from the truth (docs/howto/explore.md, "Refining"): the `top`
designs of an explore folder's table `refined` (the fairest at their furthest-refined games) are played on
`games` fresh games each (seed 99, --jobs 2), and each line gives the refined largest seat deviation beside
the one on the fresh games, with every seat's share, the mean length and the tie rate.

    python scripts/explore_truth.py EXPLORE_FILE OUT_FOLDER [--top 12] [--games 40000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.core.agent_spec import parse_agents  # noqa: E402
from sim.core.config import apply_overrides  # noqa: E402
from sim.design.component_balance import SHARE_SCALE  # noqa: E402
from sim.design.explore import figures_of, load_explore, merge_measured, play_measured  # noqa: E402
from sim.design.files import validate  # noqa: E402


def refined_designs(out: Path) -> list[tuple[float, int, list]]:
    """(largest seat deviation, games, design) of each design at its furthest refined games, fairest first."""
    furthest: dict[str, tuple[int, dict]] = {}
    with sqlite3.connect(out / "archive.db") as db:
        for design, games, stats in db.execute("SELECT design, games, stats FROM refined"):
            if design not in furthest or games > furthest[design][0]:
                furthest[design] = (games, json.loads(stats))
    rows = []
    for design, (games, st) in furthest.items():
        rows.append((figures_of(st)["seat_dev"], games, json.loads(design)))
    return sorted(rows, key=lambda r: r[0])


def _chunk(file: str, values: list, start: int, count: int) -> dict:
    tune, _ = load_explore(file)
    space = tune.search_space
    config = apply_overrides(space.base, {d.path: v for d, v in zip(space.dimensions, values, strict=True)},
                             file)
    rules = validate(tune.spec, config, tune.players, file)
    agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
    return play_measured(tune.spec, rules, agents, 99, start, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("out", type=Path)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--games", type=int, default=40000)
    args = parser.parse_args()
    half = args.games // 2
    for dev, games, values in refined_designs(args.out)[:args.top]:
        parts = Parallel(n_jobs=2)(delayed(_chunk)(args.file, values, s, n)
                                   for s, n in ((0, half), (half, args.games - half)))
        stats = merge_measured(parts[0], parts[1])
        shares = [w / SHARE_SCALE / stats["games"] for w in stats["wins"]]
        f = figures_of(stats)
        print(f"refined {100 * dev:.2f} pp on {games:,} games -> {100 * f['seat_dev']:.2f} pp on "
              f"{args.games:,} fresh games; seats {[round(100 * x, 1) for x in shares]}%, "
              f"length {f['length']:.1f}, ties {100 * f['ties']:.1f}%", flush=True)


if __name__ == "__main__":
    main()
