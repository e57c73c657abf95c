"""How often the seat gap's interval in `balance compare` misses the true change at any look (4 seats).

Run: .venv/bin/python scripts/gap_coverage.py  (seeded; about 10 minutes on one core)

Games are drawn with known seat win rates, base and variant independently; the interval of the change of
the gap (analysis.change_verdicts.gap_bounds, at the gap's 2.5% share of the error rate) is looked at 25
times between 200 and 12,000 games. Truths: every seat tied (the worst case of a largest-minus-smallest),
the newcomer's order-chit variant, and two seats tied at each end.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.change_verdicts import gap_bounds, gap_family  # noqa: E402
from analysis.tally import SHARE_SCALE  # noqa: E402

SEATS, ALPHA, RUNS = 4, 0.025, 400
TRUTHS = {"every seat tied": ([0.25] * 4, [0.25] * 4),
          "the newcomer's variant": ([0.209, 0.325, 0.253, 0.213], [0.246, 0.216, 0.279, 0.259]),
          "two seats tied at each end": ([0.28, 0.28, 0.22, 0.22], [0.27, 0.27, 0.23, 0.23])}
LOOKS = np.unique(np.geomspace(200, 12_000, 25).astype(int))


def missed_at_some_look(base: list[float], variant: list[float], truth: float,
                        rng: np.random.Generator) -> bool:
    games = int(LOOKS[-1])
    shares = np.zeros((games, 2 * SEATS), dtype=np.int64)
    shares[np.arange(games), rng.choice(SEATS, games, p=variant)] = SHARE_SCALE
    shares[np.arange(games), SEATS + rng.choice(SEATS, games, p=base)] = SHARE_SCALE
    for n in LOOKS:
        x = shares[:n]
        fam = gap_family({"games": int(n), "units": x.sum(axis=0), "cross": x.T @ x}, SEATS, 0.02, ALPHA)
        low, high = gap_bounds(fam.low, fam.high, SEATS)
        if not low <= truth <= high:
            return True
    return False


def main() -> None:
    rng = np.random.default_rng(46)
    for name, (base, variant) in TRUTHS.items():
        truth = (max(variant) - min(variant)) - (max(base) - min(base))
        missed = sum(missed_at_some_look(base, variant, truth, rng) for _ in range(RUNS))
        print(f"{name}: true change {100 * truth:+.1f} pp, missed at some look in {missed}/{RUNS} runs "
              f"(allowed: {ALPHA:.1%})")


if __name__ == "__main__":
    main()
