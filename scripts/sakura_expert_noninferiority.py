"""Non-inferiority of the Sakura expert's defaults against the expert before its speed work
(docs/design/notes.md, Sakura speed): one seat of `--new` against three of `--current` (by default `expert`
against `expert:first=0,most=192`, which plays exactly as before), 4 players, base config, the new seat
rotated over the four seats game by game.

Prints the new seat's win share (a shared win counted as a share), its 95% interval (normal, over games)
and n, and whether the interval's lower bound clears the fair share less the margin (25% - 1.5 pp).
Usage: PYTHONPATH=. python scripts/sakura_expert_noninferiority.py [--games 6000] [--seed 38]
[--workers 2]; docs/design/notes.md quotes the figures with this command.
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor

import numpy as np

PLAYERS = 4
CHUNK = 200


def chunk_shares(new: str, current: str, seed: int, start: int, count: int) -> np.ndarray:
    """The new seat's win share in games start..start+count of `seed` (seat = game index mod 4)."""
    from sim import games
    from sim.core.agent_spec import agent_arrays
    from sim.core.rng import game_seeds
    from sim.sakura.batch import run_batch
    from sim.sakura.spec import SPEC

    seats = [(start + g) % PLAYERS for g in range(count)]
    seating = [[new if p == seat else current for p in range(PLAYERS)] for seat in seats]
    kinds, params = agent_arrays(seating, games.spec("sakura"))
    result = run_batch(SPEC.default_rules(PLAYERS), game_seeds(seed, start, count), kinds, params)
    won = result["winners"].astype(np.float64)
    return won[np.arange(count), seats] / np.maximum(won.sum(axis=1), 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--new", default="expert")
    parser.add_argument("--current", default="expert:first=0,most=192")
    a = parser.parse_args()
    starts = list(range(0, a.games, CHUNK))
    with ProcessPoolExecutor(a.workers) as pool:
        k = len(starts)
        parts = pool.map(chunk_shares, [a.new] * k, [a.current] * k, [a.seed] * k, starts,
                         [min(CHUNK, a.games - s) for s in starts])
        shares = np.concatenate(list(parts))
    n = len(shares)
    mean = float(shares.mean())
    half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(n)
    low, high = mean - half, mean + half
    print(f"{a.new} (one seat) against three {a.current}, {PLAYERS} players, base config, seats rotated, "
          f"seed {a.seed}: win share {mean:.2%} [{low:.2%}, {high:.2%}] of n = {n}")
    print(f"non-inferior at a margin of 1.5 pp (lower bound >= 23.5%): {'yes' if low >= 0.235 else 'no'}")


if __name__ == "__main__":
    main()
