"""The simulation study of docs/explanation/statistics.md, "Deciding sooner": the seats verdict's error rate
near the margin, the games it takes to decide, and the forecast's coverage, for the earlier rule
(two-sided sequences at 5% / seats, tightest at the margin; rounds to the point estimate's needs) and now
(analysis.sequences: equivalence decided one-sided, tightest at half the margin; rounds to the forecast).

Games have one winner each, seat s with probability p[s] (3 seats, fair share 1/3, margin 2 pp). Seeded:
the same command prints the same tables.

    PYTHONPATH=. python scripts/sequential_study.py [--runs 1000] [--loop-runs 300] [--seed 46]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from analysis.sequences import (
    BEYOND,
    MIN_GAMES,
    SMALL,
    UNDECIDED,
    WITHIN,
    Design,
    half_width,
    planned_games,
    statuses,
)
from analysis.tally import SHARE_SCALE
from analysis.verdicts import Margins, seat_verdict
from sim.app.until_decided import FIRST_GAMES, next_target

K, FAIR, MARGIN, ALPHA, BLOCK, CAP = 3, 1 / 3, 0.02, 0.05, 100, 200_000


def truth(deviation: float) -> np.ndarray:
    """Seat 0 at fair + deviation, the others sharing the rest."""
    return np.array([FAIR + deviation, *(2 * [(1 - FAIR - deviation) / 2])])


def counts(p: np.ndarray, runs: int, cap: int, rng: np.random.Generator) -> np.ndarray:
    """(runs, looks, K): cumulative wins after every BLOCK games."""
    blocks = rng.multinomial(BLOCK, p, size=(runs, cap // BLOCK))
    return blocks.cumsum(axis=1)


def moments(wins: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rate = wins / n
    sd = np.sqrt(rate * (1 - rate) * n / np.maximum(n - 1, 1))
    return rate - FAIR, sd


def old_status(value: np.ndarray, sd: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Before: two-sided sequences at alpha / K, tightest where their half-width is the margin; within
    when every interval is inside the margin, beyond when one is wholly outside."""
    each = ALPHA / K
    half = half_width(sd, n, each, planned_games(math.sqrt(FAIR * (1 - FAIR)), MARGIN, each))
    return statuses(value, (value - half, value + half), (value - half, value + half), MARGIN)


def new_status(value: np.ndarray, sd: np.ndarray, n: np.ndarray) -> np.ndarray:
    design = Design(alpha=ALPHA, members=K, sd=math.sqrt(FAIR * (1 - FAIR)), margin=MARGIN)
    half, eq = design.half(sd, n), design.eq_half(sd, n)
    return statuses(value, (value - half, value + half), (value - eq, value + eq), MARGIN)


RULES = {"before": old_status, "now": new_status}


def first_decisions(wins: np.ndarray, rule) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the status at the first decided look (every BLOCK games from MIN_GAMES on) and its games
    (CAP + 1 and "undecided" when none)."""
    runs, looks, _ = wins.shape
    status = np.full(runs, UNDECIDED, dtype=object)
    games = np.full(runs, CAP + 1)
    open_ = np.ones(runs, dtype=bool)
    for j in range(MIN_GAMES // BLOCK - 1, looks):
        n = float((j + 1) * BLOCK)
        value, sd = moments(wins[open_, j], n)
        now = rule(value, sd, np.full_like(value, n))
        done = now != UNDECIDED
        idx = np.flatnonzero(open_)[done]
        status[idx], games[idx] = now[done], int(n)
        open_[idx] = False
        if not open_.any():
            break
    return status, games


def error_table(runs: int, rng: np.random.Generator) -> list[tuple]:
    """Wrong calls at the margin +- 0.1, 0.2, 0.5 pp, looking every BLOCK games up to CAP."""
    rows = []
    for off in (0.001, 0.002, 0.005):
        for side, deviation, wrong in (("beyond", MARGIN + off, (WITHIN, SMALL)), ("within", MARGIN - off,
                                                                                   (BEYOND,))):
            wins = counts(truth(deviation), runs, CAP, rng)
            for name, rule in RULES.items():
                status, _ = first_decisions(wins, rule)
                bad = int(np.isin(status, wrong).sum())
                rows.append((f"{100 * deviation:.1f} pp ({side})", name, runs, bad, upper95(bad, runs)))
    return rows


def upper95(bad: int, runs: int) -> float:
    """The one-sided 95% upper bound of a rate (Clopper-Pearson)."""
    from scipy.stats import beta

    return 1.0 if bad == runs else float(beta.ppf(0.95, bad + 1, runs - bad))


# ---- the loop, as `--until-decided` plays its rounds ----------------------------------------------------
def tally_of(w: np.ndarray) -> dict:
    n = int(w.sum())
    units = np.asarray(w, dtype=np.int64) * SHARE_SCALE
    return {"games": n, "seat_games": np.full(K, n, dtype=np.int64), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64)}


def old_needed(value: np.ndarray, sd: np.ndarray, n: int) -> int:
    """Before: the point estimate's games to decide (every interval inside, or the farthest outside)."""
    from analysis.sequences import games_for

    each = ALPHA / K
    planned = planned_games(math.sqrt(FAIR * (1 - FAIR)), MARGIN, each)
    v = np.abs(value)
    if np.any(v > MARGIN):
        return min(games_for(x - MARGIN, s, each, planned) for x, s in zip(v, sd, strict=True) if x > MARGIN)
    return max(games_for(MARGIN - x, s, each, planned) for x, s in zip(v, sd, strict=True))


def loop_stops(wins: np.ndarray, name: str, forecasts: list | None = None) -> np.ndarray:
    """Per run, the games at which the loop stops: first round FIRST_GAMES, then each next target, up to
    CAP (the old rule's targets from its point needs, the new from the forecast). With `forecasts`, every
    stated forecast is appended to it as (run, games in hand, games in all it states)."""
    out = []
    for r, run in enumerate(wins):
        have = FIRST_GAMES
        while True:
            w = run[have // BLOCK - 1]
            value, sd = moments(w, float(have))
            if name == "before":
                st = old_status(value, sd, np.full(K, float(have)))
                if st != UNDECIDED or have >= CAP:
                    break
                need = old_needed(value, sd, have)
                most = 2 * have
                want = need if need <= 10_000_000 else most
                target = min(CAP, max(have + 1, min(most, _round(max(want, math.ceil(1.2 * have))))))
            else:
                v = seat_verdict(tally_of(w), FAIR, Margins(seats=MARGIN))
                if v.decided or have >= CAP:
                    break
                if forecasts is not None:
                    forecasts.append((r, have, v.needed))
                target = next_target([v], have, CAP)
            have = -(-target // BLOCK) * BLOCK
        out.append(have)
    return np.array(out)


def _round(games: int) -> int:
    step = 100 if games >= 1000 else 10
    return -(-games // step) * step


# ---- the forecast's coverage ----------------------------------------------------------------------------
def coverage(deviation: float, runs: int, rng: np.random.Generator) -> tuple:
    """Every forecast the loop states in `runs` runs at a true deviation (each round it is undecided):
    how many it stated, how many held (the rule, looked at every BLOCK games, decided within the games
    it stated), and how many were "more than" (no number stated)."""
    wins = counts(truth(deviation), runs, CAP, rng)
    _, decided_at = first_decisions(wins, new_status)
    stated: list = []
    loop_stops(wins, "now", stated)
    numbers = [(r, need) for r, _, need in stated if need is not None]
    held = sum(int(decided_at[r] <= need) for r, need in numbers)
    return deviation, runs, len(numbers), held, len(stated) - len(numbers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--loop-runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()

    print("## Error rate near the margin (looking every 100 games to 200,000)\n")
    print("| seat 0's true deviation | rule | runs | wrong calls | rate | 95% upper bound |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for label, name, runs, bad, up in error_table(args.runs, rng):
        print(f"| {label} | {name} | {runs:,} | {bad} | {100 * bad / runs:.1f}% | {100 * up:.1f}% |")

    print("\n## Games to decide at a true deviation of 0.9 pp (margin 2 pp)\n")
    wins = counts(truth(0.009), args.runs, CAP, rng)
    print("| rule | what | runs | median | 90th percentile | undecided at 200,000 |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    medians = {}
    for name, rule in RULES.items():
        _, games = first_decisions(wins, rule)
        medians[name] = float(np.median(games))
        print(f"| {name} | the rule, looked at every 100 games | {len(games):,} | {np.median(games):,.0f} | "
              f"{np.quantile(games, 0.9):,.0f} | {int((games > CAP).sum())} |")
    loops = {}
    for name in RULES:
        stops = loop_stops(wins[:args.loop_runs], name)
        loops[name] = float(np.median(stops))
        print(f"| {name} | the loop's rounds | {len(stops):,} | {np.median(stops):,.0f} | "
              f"{np.quantile(stops, 0.9):,.0f} | {int((stops >= CAP).sum())} |")
    print(f"\nratio before/now: the rule {medians['before'] / medians['now']:.2f}, the loop "
          f"{loops['before'] / loops['now']:.2f}")

    print("\n## The forecast's coverage (it states 80%), over every round of the loop that stated one\n")
    print("| true deviation | runs | forecasts stated | decided within them | share | 'more than' |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for deviation in (0.0, 0.009, 0.015, 0.025):
        d, runs, stated, held, more = coverage(deviation, args.loop_runs, rng)
        share = f"{100 * held / stated:.1f}%" if stated else "n/a"
        print(f"| {100 * d:.1f} pp | {runs} | {stated} | {held} | {share} | {more} |")
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
