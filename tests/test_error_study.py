"""The error study's replay of --until-decided (scripts/error_study.py, docs/explanation/statistics.md "The
error study"): a few seeded replays on games of known truth, judged by the verdict functions themselves,
with the loop's rounds, the running intersection and an extension to twice the games. The study's 1,000
replays are its command; here, that its parts say what they claim."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.sequences import BEYOND, FAIRER, LESS_FAIR, SMALL, UNDECIDED, WITHIN
from analysis.tally import SHARE_SCALE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import error_study as study  # noqa: E402


@pytest.mark.parametrize("factor", [0.0, 0.5, 1.25])
def test_synthetic_games_hold_the_truth_they_are_drawn_at(factor: float) -> None:
    """Seat 0's deviation and the tie-break's effect on it, measured on 200,000 drawn games, are the truth."""
    t = factor * study.MARGIN
    rule, shared = study.synthetic_games(3, t, t, 200_000, np.random.default_rng(1))
    assert (rule.sum(axis=1) == SHARE_SCALE).all() and (shared.sum(axis=1) == SHARE_SCALE).all()
    seat0 = rule[:, 0].mean() / SHARE_SCALE - 1 / 3
    effect0 = (rule[:, 0] - shared[:, 0]).mean() / SHARE_SCALE
    assert abs(seat0 - t) < 0.004 and abs(effect0 - t) < 0.002
    truths = study.run_truths(3, factor, None, None)
    assert truths["seats"][0] == pytest.approx(t) and truths["tiebreak"].sum() == pytest.approx(0)


def test_a_wrong_verdict_is_one_whose_claim_is_false_of_the_truth() -> None:
    margin = 0.02
    assert study.wrong(BEYOND, np.array([0.019, -0.01]), margin)
    assert not study.wrong(BEYOND, np.array([0.021, -0.01]), margin)
    assert study.wrong(WITHIN, np.array([0.021, -0.01]), margin)
    assert study.wrong(SMALL, np.zeros(3), margin) and not study.wrong(SMALL, np.array([0.01, 0, 0]), margin)
    assert not study.wrong(UNDECIDED, np.array([0.5]), margin)
    assert study.gap_wrong(FAIRER, 0.0, margin) and not study.gap_wrong(FAIRER, -0.001, margin)
    assert study.gap_wrong(LESS_FAIR, -0.01, margin) and study.gap_wrong(WITHIN, -0.03, margin)


def test_withdrawn_is_a_later_look_that_reads_otherwise_and_refinements_are_not() -> None:
    record = study.Record(statuses=[UNDECIDED, WITHIN, SMALL], games=[1000, 1500, 3000])
    assert not record.withdrawn()
    record = study.Record(statuses=[UNDECIDED, WITHIN, UNDECIDED], games=[1000, 1500, 3000])
    assert record.withdrawn()
    record = study.Record(statuses=[BEYOND, WITHIN], games=[1000, 2000])
    assert record.withdrawn()


def test_replays_of_the_loop_withdraw_nothing_and_say_when_forecasts_held() -> None:
    """Six replays with seat 0 and the tie-break 1.25 times the margin from none, games capped at 40,000:
    no verdict withdrawn in the loop or after doubling the games, and every forecast is checked against the
    first size at which the question read decided."""
    t = 1.25 * study.MARGIN
    for seed in range(6):
        records = study.replay_run(lambda n, rng: study.synthetic_games(3, t, t, n, rng), 3, seed, cap=40_000)
        for record in records.values():
            assert not record.withdrawn()
            assert record.games[-1] == 2 * record.games[-2]  # the extension's look
            for _, need, held, _ in record.held():
                if held is not None:
                    assert held == (record.fine is not None and record.fine <= need)
