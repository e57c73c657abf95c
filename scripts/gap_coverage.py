"""How often the seat gap's interval in `balance compare` misses the true change at any look (4 seats).

Run: .venv/bin/python scripts/gap_coverage.py  (seeded; about 10 minutes on one core)
     .venv/bin/python scripts/gap_coverage.py --forecast  (the forecast's stated 80%; about 15 minutes)

Games are drawn with known seat win rates, base and variant independently; the interval of the change of
the gap (analysis.change_verdicts.gap_bounds, at the gap's 2.5% share of the error rate) is looked at 25
times between 200 and 12,000 games. Truths: every seat tied (the worst case of a largest-minus-smallest),
the newcomer's order-chit variant, and two seats tied at each end. With --forecast: in 300 runs at the
newcomer's rates, the gap's forecasts made at 1,000 and 2,500 games while undecided ("about N more games
(80% of runs decide within)") against the games at which the run was in fact decided (looked at every 2%
more games); the seed is the last argument (default 4646).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.change_verdicts import (  # noqa: E402
    gap_bounds,
    gap_decider,
    gap_family,
    gap_loadings,
    gap_status,
)
from analysis.sequences import FORECAST_CHANCE, FORECAST_SETTINGS, UNDECIDED, forecasts  # noqa: E402
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
        fam = gap_family(pair_at(shares, int(n)), SEATS, 0.02, ALPHA)
        low, high = gap_bounds(fam.low, fam.high, SEATS)
        if not low <= truth <= high:
            return True
    return False


def pair_at(shares: np.ndarray, n: int) -> dict:
    x = shares[:n]
    return {"games": n, "units": x.sum(axis=0), "cross": x.T @ x}


QUANTILES = (0.6, 0.7, 0.8, 0.9, 0.95)


def forecasts_held(base: list[float], variant: list[float], rng: np.random.Generator,
                   looks: tuple[int, ...] = (1000, 2500), most: int = 60_000) -> list[list[bool]]:
    """For each look at which the run is undecided: whether it decided by the games the forecast's
    continuations reach at each of QUANTILES."""
    shares = np.zeros((most, 2 * SEATS), dtype=np.int64)
    shares[np.arange(most), rng.choice(SEATS, most, p=variant)] = SHARE_SCALE
    shares[np.arange(most), SEATS + rng.choice(SEATS, most, p=base)] = SHARE_SCALE

    def family_at(n: int):  # noqa: ANN202
        return gap_family(pair_at(shares, n), SEATS, 0.02, ALPHA)

    def decided(n: int) -> bool:
        fam = family_at(n)
        return gap_status(*gap_bounds(fam.low, fam.high, SEATS), 0.02) != UNDECIDED

    first = next((n for n in _grid(min(looks), most) if decided(n)), most + 1)
    out = []
    for at in looks:
        if first <= at:
            continue
        fam = family_at(at)
        said = forecasts(fam, 0.02, QUANTILES, decide=gap_decider(fam, SEATS, 0.02),
                         loadings=gap_loadings(pair_at(shares, at), SEATS))
        out.append([said_n is not None and first <= said_n for said_n in said])
    return out


def _grid(start: int, most: int) -> list[int]:
    """Looks every 2% more games."""
    sizes, n = [], start
    while n < most:
        n = min(int(n * 1.02) + 1, most)
        sizes.append(n)
    return sizes


def forecast_coverage() -> None:
    rng = np.random.default_rng(int(sys.argv[-1]) if sys.argv[-1].isdigit() else 4646)
    base, variant = TRUTHS["the newcomer's variant"]
    held = np.array([row for _ in range(300) for row in forecasts_held(base, variant, rng)])
    for q, rate in zip(QUANTILES, held.mean(axis=0), strict=True):
        print(f"the continuations' {q:.0%} quantile held in {rate:.1%} of {len(held)} forecasts")
    quantile = FORECAST_SETTINGS["gap"][0]
    print(f"(stated: {FORECAST_CHANCE:.0%} of runs decide within the {quantile:.0%} quantile)")


def main() -> None:
    if "--forecast" in sys.argv:
        forecast_coverage()
        return
    rng = np.random.default_rng(46)
    for name, (base, variant) in TRUTHS.items():
        truth = (max(variant) - min(variant)) - (max(base) - min(base))
        missed = sum(missed_at_some_look(base, variant, truth, rng) for _ in range(RUNS))
        print(f"{name}: true change {100 * truth:+.1f} pp, missed at some look in {missed}/{RUNS} runs "
              f"(allowed: {ALPHA:.1%})")


if __name__ == "__main__":
    main()
