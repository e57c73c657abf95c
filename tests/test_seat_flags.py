"""Families of seat flags: each seat tested against the fair share and the
family Holm-adjusted, so that a run whose seats are all equal flags any seat at most 5% of the time.

Holm is checked against an independent formulation (closed testing with Bonferroni local tests, by brute
force over every subset of hypotheses); the seat flags against null simulations of synthetic tables, where
the old rule (a seat's 95% interval excludes the fair share) flags far more often; the omnibus chi-square
against scipy.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.seats import (
    agent_win_rates,
    chi_square_equal,
    seat_equality_test,
    seat_tally,
    seat_tests,
    share_tests_from_sums,
)
from analysis.stats import holm, mean_test_p, wilson_intervals
from analysis.tally import SHARE_SCALE, share_units
from tests import oracles


def closed_testing_rejections(p: list[float], alpha: float) -> set[int]:
    """Hypotheses rejected by the closed testing procedure whose local test of an intersection of m'
    hypotheses is Bonferroni (min p <= alpha / m'); Holm's procedure is its shortcut."""
    m = len(p)
    rejected = set()
    for i in range(m):
        if all(min(p[j] for j in subset) <= alpha / len(subset)
               for size in range(1, m + 1) for subset in itertools.combinations(range(m), size)
               if i in subset):
            rejected.add(i)
    return rejected


@settings(deadline=None, max_examples=200)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=6), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_rejects_what_closed_testing_rejects(p: list[float], alpha: float) -> None:
    adjusted = holm(p)
    assert {i for i, q in enumerate(adjusted) if q <= alpha} == closed_testing_rejections(p, alpha)
    assert np.all(adjusted >= np.asarray(p)) and np.all(adjusted <= 1)


def test_holm_by_hand_and_with_missing_values():
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    out = holm([0.02, np.nan, 0.5])
    assert np.isnan(out[1]) and out[[0, 2]].tolist() == pytest.approx([0.04, 0.5])


def share_tests(shares: np.ndarray, fair: float) -> pd.DataFrame:
    """`share_tests_from_sums` of a (games, k) win-share matrix: what the seat flags of a run's tally do."""
    units = share_units(shares)
    squares = (units * units).sum(axis=0)
    return share_tests_from_sums(len(units), units.sum(axis=0), squares, fair, SHARE_SCALE)


def test_mean_test_matches_the_normal_formula():
    p = mean_test_p(0.52, 0.5, 10_000, 0.5)
    assert float(p) == pytest.approx(0.0000633, rel=1e-2)  # z = 4
    assert float(mean_test_p(0.3, 0.0, 10, 0.3)) == 1.0 and float(mean_test_p(0.3, 0.0, 10, 0.2)) == 0.0
    assert np.isnan(mean_test_p(0.3, 0.1, 1, 0.2))


def null_shares(rng: np.random.Generator, games: int, seats: int, tie_rate: float = 0.1) -> np.ndarray:
    """Win shares of games whose seats are all equal: one winner at random, or a two-way shared win."""
    shares = np.zeros((games, seats))
    winner = rng.integers(0, seats, games)
    shares[np.arange(games), winner] = 1.0
    tied = rng.random(games) < tie_rate
    other = (winner + rng.integers(1, seats, games)) % seats
    shares[tied, winner[tied]] = 0.5
    shares[tied, other[tied]] = 0.5
    return shares


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_null_runs_flag_any_seat_at_most_five_percent_of_the_time(seats: int) -> None:
    """1,000 seeded null runs of 2,000 games each: the Holm family flags some seat in <= 5% of runs; the
    old per-seat interval rule flags some seat far more often (12-17% at 3-4 seats)."""
    rng = np.random.default_rng(seats)
    runs, games = 1000, 2000
    holm_flags = old_flags = 0
    for _ in range(runs):
        shares = null_shares(rng, games, seats)
        holm_flags += bool(share_tests(shares, 1 / seats)["differs"].any())
        low, high = wilson_intervals(shares.sum(axis=0), np.full(seats, games))
        old_flags += bool(((1 / seats < low) | (1 / seats > high)).any())
    assert holm_flags / runs <= 0.05
    if seats >= 3:
        assert old_flags / runs > 0.08


def test_a_real_seat_difference_is_flagged():
    rng = np.random.default_rng(0)
    shares = null_shares(rng, 20_000, 3)
    biased = rng.random(20_000) < 0.05  # seat 0 takes 5% of the games from whoever won them
    shares[biased] = [1.0, 0.0, 0.0]
    tests = share_tests(shares, 1 / 3)
    assert bool(tests["differs"][0]) and tests["p_holm"][0] < 1e-6


def _players_table(shares: np.ndarray) -> pd.DataFrame:
    games, seats = shares.shape
    return pd.DataFrame({"game_id": np.repeat(np.arange(games), seats),
                         "seat": np.tile(np.arange(seats), games), "agent": "greedy", "score": 0, "rank": 1,
                         "win_share": shares.reshape(-1)})


def test_seat_tests_from_the_tally_match_the_matrix_form():
    rng = np.random.default_rng(3)
    shares = null_shares(rng, 3000, 4)
    from_table = seat_tests(seat_tally(_players_table(shares)))
    from_matrix = oracles.share_tests(shares, 0.25)  # float shares and numpy's sd, held whole
    assert from_table["seat"].tolist() == [0, 1, 2, 3]
    assert np.allclose(from_table["p_holm"], from_matrix["p_holm"])
    pd.testing.assert_frame_equal(from_table, oracles.seat_tests(_players_table(shares)), check_exact=False,
                                  rtol=1e-9)


def test_agent_flags_are_holm_adjusted_over_the_agents():
    rng = np.random.default_rng(4)
    shares = null_shares(rng, 3000, 3)
    table = _players_table(shares)
    table["agent"] = np.where(table["seat"] == 0, "mcts", "greedy")
    agents = agent_win_rates(seat_tally(table))
    assert set(agents["agent"]) == {"greedy", "mcts"} and {"p_holm", "differs"} <= set(agents.columns)
    expect = oracles.agent_win_rates(table)  # by pandas on the table held whole
    pd.testing.assert_frame_equal(agents, expect[agents.columns], check_dtype=False, check_exact=False,
                                  rtol=1e-9)
    greedy_games = shares[:, 1:].sum(axis=1)
    p = float(mean_test_p(greedy_games.mean(), greedy_games.std(ddof=1), 3000, 2 / 3))
    # two agents whose shares sum to 1 in every game: the same test twice, so Holm doubles it
    assert float(agents.set_index("agent").loc["greedy", "p_holm"]) == pytest.approx(min(1.0, 2 * p))


def test_the_omnibus_chi_square_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    observed = np.array([980.5, 1100.0, 919.5])
    games = np.array([3000, 3000, 3000])
    ours = chi_square_equal(observed, games)
    theirs = scipy_stats.chisquare(observed, observed.sum() * games / games.sum())
    assert ours["statistic"] == pytest.approx(theirs.statistic)
    assert ours["p_value"] == pytest.approx(theirs.pvalue)
    rng = np.random.default_rng(5)
    table = _players_table(null_shares(rng, 2000, 4))
    ours = seat_equality_test(seat_tally(table))
    assert ours["n"] == 2000
    assert ours["statistic"] == pytest.approx(oracles.seat_equality_test(table)["statistic"], rel=1e-12)


def test_a_table_of_intervals_is_judged_as_one_family():
    """interval_family: p from each interval's width, Holm over the rows; 1,000 null tables of 60 rows
    (true values 0) call any row significant in <= 5% of them, where 'the interval excludes 0' does in
    nearly all (51 of 60 card intervals, once judged one by one)."""
    from analysis.stats import Z95, interval_family

    rng = np.random.default_rng(9)
    se = 0.01
    any_holm = any_naive = 0
    for _ in range(1000):
        value = rng.normal(0.0, se, 60)
        family = interval_family(value, value - Z95 * se, value + Z95 * se)
        any_holm += bool(family["significant"].any())
        any_naive += bool((np.abs(value) > Z95 * se).any())
    assert any_holm / 1000 <= 0.05 and any_naive / 1000 > 0.9
    clear = interval_family([0.05, 0.0], [0.03, -0.02], [0.07, 0.02])
    assert clear["significant"].tolist() == [True, False]
    z = 0.05 / (0.04 / (2 * Z95))  # the estimate over the standard error its interval implies
    assert clear["p_holm"][0] == pytest.approx(2 * math.erfc(z / math.sqrt(2)))  # Holm over 2 rows
