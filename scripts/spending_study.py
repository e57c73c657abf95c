"""docs/explanation/statistics.md, "How much is luck": what spending the error over planned looks could
save against the confidence sequences the verdicts use, at the same error, for one seat's equivalence
bound of a 3-player game (sd 0.471, one-sided at 1.67% / 3 seats).

Three ways to hold the error: the bounded confidence sequence (analysis/bounded_sequences.py, its bet
planned for the games shown, valid at every n), a fixed-size test (one look, valid only there), and
group-sequential boundaries over geometric looks (1,000 games, each look 1.2 times the last, to 200,000):
a constant boundary (Pocock's), and one that spends 80% of the error at the look nearest a planned size
and 20% at a constant boundary over the others. Each is given as the games it needs for the interval of
the fixed-size test, as a ratio to the fixed-size test's. Boundaries by Monte Carlo of the Brownian
motion at the looks (seeded).

    PYTHONPATH=. python scripts/spending_study.py [--paths 200000] [--seed 0] [--ratio 1.2]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import norm

from analysis.bounded_sequences import best_bet, bounds

SD = 0.471          # a seat's win share in a 3-player game, about 1/3
ALPHA = 0.05 / 3 / 3  # the page's 5% over its three questions, over 3 seats; one side of the equivalence


def sequence_ratio(games: int) -> float:
    """The confidence sequence's games against the fixed-size test's, at `games` (its bet planned there)."""
    _, high = bounds(0.0, SD, games, (-1 / 3, 2 / 3), [(ALPHA, best_bet(SD, games, ALPHA))])[0]
    return float(high / (norm.isf(ALPHA) * SD / np.sqrt(games))) ** 2


def looks(ratio: float = 1.2) -> np.ndarray:
    """From 1,000 games, each look `ratio` times the last, to 200,000 or past it."""
    out = [1000]
    while out[-1] < 200_000:
        out.append(int(out[-1] * ratio))
    return np.array(out)


def overshoot(ratio: float) -> float:
    """How far past the games that would decide a run its next look lies, on average, when those games
    fall anywhere between two looks `ratio` apart (uniform on the log scale): (ratio - 1) / ln ratio."""
    return (ratio - 1) / np.log(ratio)


def boundaries(paths: int, seed: int, planned: int, ratio: float = 1.2) -> dict[str, float]:
    """Pocock's constant boundary, and the planned look's and the others' boundaries of the 80/20 split."""
    at = looks(ratio)
    rng = np.random.default_rng(seed)
    steps = rng.standard_normal((paths, len(at))) * np.sqrt(np.diff(np.concatenate([[0], at])))
    z = np.cumsum(steps, axis=1) / np.sqrt(at)
    pocock = float(np.quantile(z.max(axis=1), 1 - ALPHA))
    k = int(np.argmin(abs(at - planned)))
    others = np.delete(z, k, axis=1).max(axis=1)
    c_other = float(np.quantile(others, 1 - 0.2 * ALPHA))
    crossed = others > c_other
    rest = (ALPHA - crossed.mean()) / (1 - crossed.mean())
    c_planned = float(np.quantile(z[~crossed, k], 1 - rest))
    return {"looks": len(at), "pocock": pocock, "planned": c_planned, "others": c_other}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ratio", type=float, default=1.2, help="each look this many times the last")
    args = parser.parse_args()
    fixed = norm.isf(ALPHA)
    print("| games | sequence (every n) | Pocock, every look | 80% at the planned look: there | elsewhere |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for games in (5000, 10000, 20000, 40000):
        b = boundaries(args.paths, args.seed, games, args.ratio)
        cells = [sequence_ratio(games)] + [(b[key] / fixed) ** 2 for key in ("pocock", "planned", "others")]
        print(f"| {games:,} | " + " | ".join(f"{x:.2f}" for x in cells) + " |")
    print(f"\n{b['looks']} looks, each {args.ratio:g} times the last; each figure: games needed / the "
          f"fixed-size test's games, same interval; a run stops at the next look past its decision, "
          f"on average {overshoot(args.ratio):.2f} times its games")


if __name__ == "__main__":
    main()
