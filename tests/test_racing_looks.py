"""`balance tune`'s race looks at its candidates once a round. A candidate whose true
game length sits exactly on the target's boundary should be ruled out ("constraint clearly violated")
with probability at most 2.5% (one side of a 95% interval) over the whole race; with each round's interval
at the nominal 95% the repeated looks push that above 2.5%, and Bonferroni over the planned looks
(`Racing.look_confidence`) keeps it under. Synthetic races (the game lengths as normal draws), seeded."""

from __future__ import annotations

import numpy as np

from sim.design.racing import race_round, standing
from sim.design.tune_file import Racing, Target

LENGTH_SD = 4.0
HIGH = 35.0  # the target's longest allowed mean length, and the candidate's true mean


def wrongly_ruled_out(confidence_of, races: int = 4000, seed: int = 0) -> float:
    racing = Racing(first_games=500, growth=2.0, final_games=32000)
    rng = np.random.default_rng(seed)
    target = Target(tolerance=0.5, length=(25.0, HIGH))
    fair = np.array([1 / 3, 1 / 3, 1 / 3])
    out = 0
    for _ in range(races):
        total, played = 0.0, 0
        for n in racing.schedule():
            total += rng.normal(HIGH * (n - played), LENGTH_SD * np.sqrt(n - played))  # n - played lengths
            played = n
            wins = fair * n
            both = {s: standing(s, wins, n, target, confidence_of(racing), length=(total / n, LENGTH_SD))
                    for s in ("boundary", "other")}
            both["other"] = standing("other", wins, n, target, confidence_of(racing),
                                     length=(30.0, LENGTH_SD))
            if "boundary" in race_round(both):
                out += 1
                break
    return out / races


def test_repeated_looks_inflate_the_nominal_error() -> None:
    assert wrongly_ruled_out(lambda r: r.confidence) > 0.03


def test_bonferroni_over_looks_keeps_the_race_error_under_alpha() -> None:
    assert wrongly_ruled_out(lambda r: r.look_confidence()) <= 0.025
