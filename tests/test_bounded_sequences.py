"""The bounded confidence sequences under every win-rate verdict (analysis.bounded_sequences): the sums
formula equals the per-game definition, no interval has width 0 while games can still differ, and the truth
stays inside at every look in at least 95% of runs; and a compare of two configs whose games all come out
alike says so instead of giving a verdict."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.bounded_sequences import BET_MOST, BETS, best_bet, bounds, log_weights, lower_bound
from analysis.change_verdicts import differ_bound, no_game_changed, with_games_differing
from analysis.sequences import TOO_FEW, WITHIN, classify, family, intersected
from analysis.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[1]


def _per_game_lower(y: np.ndarray, centre: float, alpha: float, bet: float) -> float:
    """The lower bound written game by game, as the definition reads: the mixture over the bets of
    prod exp(l (y_i - mu) - psi(l) (y_i - c)^2), and the smallest mu on a fine grid where it is below
    1/alpha."""
    logw = log_weights(bet)
    kept = np.isfinite(logw)
    bets, logw = BETS[kept], logw[kept]
    psi = -np.log1p(-bets) - bets
    grid = np.linspace(0, 1, 20001)
    log_mart = np.zeros((len(grid), len(bets)))
    for value in y:  # one game at a time
        log_mart += bets * (value - grid[:, None]) - psi * (value - centre) ** 2
    mixture = np.log(np.exp(log_mart + logw).sum(axis=1))
    kept = grid[mixture < math.log(1 / alpha)]
    return float(kept.min())


@settings(deadline=None, max_examples=30)
@given(values=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=60),
       centre=st.sampled_from([1 / 3, 0.5, 0.25]))
def test_the_sums_give_the_per_game_definition(values: list[float], centre: float) -> None:
    y = np.array(values)
    n, total, spread = len(y), y.sum(), ((y - centre) ** 2).sum()
    bet = best_bet(0.45, 3000, 0.01)
    from_sums = float(lower_bound(n, total, spread, 0.01, log_weights(bet)))
    assert from_sums == pytest.approx(_per_game_lower(y, centre, 0.01, bet), abs=1e-4)


@settings(deadline=None, max_examples=200)
@given(n=st.integers(1, 3000), value=st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]),
       alpha=st.sampled_from([0.05, 0.0125, 0.001]))
def test_no_interval_of_width_zero_from_games_that_could_differ(n: int, value: float, alpha: float) -> None:
    """Games that all came out alike (observed sd 0) on an outcome in [-1, 1]: the interval still has
    width, about log(1/alpha) / (bet n), and holds the observed mean."""
    [(low, high)] = bounds(value, 0.0, n, (-1.0, 1.0), [(alpha, best_bet(0.3, 5000, alpha))])
    assert low <= value <= high
    assert high - low >= min(1.0, math.log(1 / alpha) / (BET_MOST * n)) - 1e-9
    fam = family([value], [0.0], [n], 0.02, 0.05, sd_design=0.6, within=(-1, 1))
    assert fam.eq_high[0] - fam.eq_low[0] > 0 and fam.high[0] - fam.low[0] > 0


def test_two_hundred_identical_paired_games_are_no_verdict() -> None:
    """The reproducer: 200 paired games all alike said "+0.0 pp [+0.0, +0.0]" and "no change"."""
    fam = family(np.zeros(3), np.zeros(3), np.full(3, 200.0), 0.02, 0.025, sd_design=0.67, within=(-1, 1))
    assert fam.eq_high.min() > 0.02 and classify(fam, 0.02) not in (WITHIN, TOO_FEW)


@pytest.mark.parametrize("p", [0.05, 1 / 3, 0.5, 0.95])
def test_the_truth_stays_inside_at_every_look(p: float) -> None:
    """Win-or-lose games at a known rate, 600 runs of 3,000 games each looked at every 25 games: the truth
    leaves the two-sided 5% sequence in at most 5% of runs (plus the simulation's own error)."""
    rng = np.random.default_rng(62)
    runs, games, alpha = 600, 3000, 0.05
    y = (rng.random((runs, games)) < p).astype(float)
    n = np.arange(1, games + 1)[24::25]
    total = np.cumsum(y, axis=1)[:, 24::25]
    squares = np.cumsum(y * y, axis=1)[:, 24::25]
    mean = total / n
    sd = np.sqrt(np.clip((squares - n * mean**2) / np.maximum(n - 1, 1), 0, None))
    side = (alpha / 2, best_bet(0.47, 3000, alpha / 2))
    [(low, high)] = bounds(mean - 1 / 3, sd, n, (-1 / 3, 2 / 3), [side])
    missed = ((low > p - 1 / 3) | (high < p - 1 / 3)).any(axis=1).mean()
    assert missed <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)


def _pair(games: int, differ: int) -> dict:
    units = np.full(6, games * 1000 // 3, dtype=np.int64)
    sums = np.array([games, 0, 0])
    return {"games": games, "seats": np.array([3]), "units": units, "cross": np.diag(units * 1000),
            "differ": np.array([differ]), "tie": sums, "decided": sums, "length": sums}


def test_no_game_changed_is_said_as_such() -> None:
    said = no_game_changed(_pair(1000, 0))
    assert said is not None and said.status == "info" and said.sentence.startswith(
        "0 of 1,000 paired games differ: no agent at this level used what the variant changes")
    assert said.high == pytest.approx(1 - 0.05 ** (1 / 1000))
    assert no_game_changed(_pair(1000, 3)) is None
    assert differ_bound(0, 200) == pytest.approx(0.0149, abs=2e-4)  # "a change in 1.5% of games"


def test_a_compare_of_a_config_with_itself_gives_no_fairness_verdict(tmp_path: Path) -> None:
    base = "configs/kamakura/base.toml"
    args = ["compare", base, base, "--players", "3", "--agents", "greedy", "--games", "300", "--jobs", "1",
            "--quiet", "--out", str(tmp_path / "c")]
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    assert "0 of 300 paired games differ: no agent at this level used what the variant changes" in done.stdout
    assert "no change in fairness" not in done.stdout and "[+0.0, +0.0]" not in done.stdout
    page = (tmp_path / "c" / "report" / "index.html").read_text()
    assert page.count("0 of 300 paired games differ") == 1 and "No verdict is judged here" in page
    assert "wrong is at most 0%" not in page


def test_few_games_that_differ_are_counted_beside_the_verdicts() -> None:
    def verdict() -> Verdict:
        return Verdict("gap", "Is the variant fairer?", WITHIN, "Seat gap: no change. n = 1,000 games.",
                       value=0.0, low=-0.01, high=0.01, unit="pp", margin=0.02, n=1000)

    few = with_games_differing([verdict(), verdict()], _pair(1000, 7))
    assert few[0].sentence == ("Seat gap: no change. n = 1,000 games, of which 7 differ (the changes rest on "
                               "these 7 games alone).")
    assert few[1].sentence.endswith("n = 1,000 games.") and few[1].detail["games_differ"] == 7
    many = with_games_differing([verdict()], _pair(1000, 400))
    assert many[0].sentence.endswith("n = 1,000 games.") and many[0].detail["games_differ"] == 400


def _seat_tally(winners: np.ndarray, k: int = 3) -> dict:
    """A common tally of games with one winner each (whole-number sums, analysis.tally)."""
    from analysis.tally import SHARE_SCALE

    wins = np.bincount(winners, minlength=k).astype(np.int64)
    units = wins * SHARE_SCALE
    return {"games": len(winners), "seat_games": np.full(k, len(winners)), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64)}


def _start_statuses(winners: np.ndarray, looks: list[int], intersect: bool) -> np.ndarray:
    """The start player's status (as `start_family` and `classify` give it) in every run (rows of
    `winners`) at each look: the family of all runs at once, each its own member at the full error rate,
    intersected incrementally (as `intersected` over every earlier look gives it)."""
    from analysis.sequences import statuses

    fair = 1 / 3
    held, out = None, []
    for n in looks:
        share = (winners[:, :n] == 0).mean(axis=1)
        sd = np.sqrt(share * (1 - share) * n / (n - 1))
        now = family(share - fair, sd, np.full(len(share), float(n)), 0.02, 0.05, members=1,
                     sd_design=math.sqrt(fair * (1 - fair)), within=(-fair, 1 - fair))
        held = intersected(now, [held]) if intersect and held is not None else now
        out.append(statuses(held.value[:, None], (held.low[:, None], held.high[:, None]),
                            (held.eq_low[:, None], held.eq_high[:, None]), 0.02))
    return np.array(out).T


def test_decided_stays_decided_over_the_looks() -> None:
    """The start player near the margin (truth 1.8 pp above the fair share, margin 2 pp), looked at every
    50 games from 200 to 6,000, 1,000 runs: without the running intersection some runs withdraw a decided
    verdict at a later look; with it none does."""
    from analysis.sequences import DECIDED

    rng = np.random.default_rng(350)
    winners = np.where(rng.random((1000, 6000)) < 1 / 3 + 0.018, 0, rng.integers(1, 3, (1000, 6000)))
    looks = list(range(200, 6001, 50))
    withdrawn = {}
    for intersect in (True, False):
        decided = np.isin(_start_statuses(winners, looks, intersect), DECIDED)
        once = np.maximum.accumulate(decided, axis=1)
        withdrawn[intersect] = int((once & ~decided).any(axis=1).sum())
    assert withdrawn[True] == 0
    assert withdrawn[False] > 0  # the test sees the failure it guards against


def test_a_verdict_intersects_the_looks_it_is_given() -> None:
    """start_verdict with the tallies of earlier looks gives the intersection's bounds and status."""
    from analysis.verdicts import EVERY_QUESTION, start_family, start_verdict

    rng = np.random.default_rng(7)
    winners = np.where(rng.random(3000) < 0.36, 0, rng.integers(1, 3, 3000))
    earlier = [_seat_tally(winners[:n]) for n in (400, 1000, 2000)]
    now = _seat_tally(winners)
    said = start_verdict(now, 1 / 3, EVERY_QUESTION, looks=earlier)
    fam = intersected(start_family(now, 1 / 3, 0.02, 0.05 / 3),
                      [start_family(t, 1 / 3, 0.02, 0.05 / 3) for t in earlier])
    assert said.status == classify(fam, 0.02)
    plain = start_verdict(now, 1 / 3, EVERY_QUESTION)
    assert plain.detail["shown_low"] <= said.detail["shown_low"] <= said.detail["shown_high"] <= \
        plain.detail["shown_high"]


def test_a_run_extended_after_it_decided_keeps_its_looks(tmp_path: Path) -> None:
    """`--until-decided` records each look in the manifest; the run extended by hand reads its first games
    at that look again (from the chunks that end there) and its verdicts are intersected with it."""
    from analysis.run_tally import read_run_tally
    from analysis.verdicts import Margins, run_verdicts, seat_family

    out = tmp_path / "run"
    args = ["simulate", "configs/kamakura/base.toml", "--players", "3", "--agents", "greedy", "--jobs", "1",
            "--seed", "5", "--quiet", "--out", str(out)]
    for extra in (["--until-decided", "--games", "20000"], ["--games", "3000"]):
        done = subprocess.run([sys.executable, "-m", "sim", *args, *extra], cwd=ROOT, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, done.stderr
    run = read_run_tally(out)
    assert run.manifest.looks == (1000,) and run.n_games == 3000 and len(run.looks) == 1
    assert int(run.looks[0]["common"]["games"]) == 1000
    seats = run_verdicts(run, Margins())[0]
    earlier = seat_family(run.looks[0]["common"], 1 / 3, 0.02, 0.05)
    now = seat_family(run.common, 1 / 3, 0.02, 0.05)
    held = np.array([(d["ci_low"], d["ci_high"]) for d in seats.detail["seats"]])
    assert np.allclose(held[:, 0], np.maximum(earlier.low, now.low))
    assert np.allclose(held[:, 1], np.minimum(earlier.high, now.high))
