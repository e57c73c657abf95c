"""Player-game differences with game-clustered intervals: the holders-minus-others
difference of Kamakura's chit and power tables, computed from whole-number sums (analysis.tally), has
statsmodels' cluster-robust (CR1) standard error; so has the standard error of Sakura's card and action
tables (analysis.sakura.card_values)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.stats import Z95
from analysis.tally import SHARE_SCALE, comparison_from_sums, comparison_sums


def clustered_difference(flags: np.ndarray, share: np.ndarray, game: np.ndarray):
    """The chit tables' difference and interval: `comparison_from_sums` of the observations' sums, win
    shares in 1/SHARE_SCALE (the shares here are whole wins), clusters numbered 0.. in order."""
    _, cluster = np.unique(game, return_inverse=True)
    units = np.rint(share * SHARE_SCALE).astype(np.int64)
    out = comparison_from_sums(comparison_sums(flags, units, cluster, int(cluster.max()) + 1))
    return out["diff"], out["low"], out["high"]


def _players(rng: np.random.Generator, games: int, seats: int = 3):
    """Win shares of games in which a flagged player wins more often; one winner a game."""
    flag = rng.random((games, seats)) < 0.3
    weight = np.where(flag, 2.0, 1.0)
    winner = np.array([rng.choice(seats, p=w / w.sum()) for w in weight])
    share = np.zeros((games, seats))
    share[np.arange(games), winner] = 1.0
    return flag.reshape(-1), share.reshape(-1), np.repeat(np.arange(games), seats)


def test_matches_statsmodels_cluster_robust_ols():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    flag, share, game = _players(rng, 800)
    diff, low, high = clustered_difference(flag[None, :], share, game)
    fit = sm.OLS(share, sm.add_constant(flag.astype(float))).fit(cov_type="cluster",
                                                                   cov_kwds={"groups": game})
    assert diff[0] == pytest.approx(fit.params[1])
    assert (high[0] - low[0]) / (2 * Z95) == pytest.approx(fit.bse[1], rel=1e-9)


def test_one_observation_per_cluster_is_the_heteroskedasticity_robust_error():
    """With no two observations in one cluster the estimator is HC1 (statsmodels' robust OLS)."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(1)
    flag, share, _ = _players(rng, 500)
    _, low, high = clustered_difference(flag[None, :], share, np.arange(len(share)))
    fit = sm.OLS(share, sm.add_constant(flag.astype(float))).fit(cov_type="HC1")
    assert (high[0] - low[0]) / (2 * Z95) == pytest.approx(fit.bse[1], rel=1e-9)


def test_empty_groups_give_nan():
    diff, low, high = clustered_difference(np.ones((1, 6), dtype=bool), np.arange(6.0), np.arange(6) // 3)
    assert np.isnan(diff[0]) and np.isnan(low[0]) and np.isnan(high[0])


def test_sakura_card_se_is_statsmodels_cluster_robust() -> None:
    """Sakura's card and action tables: the standard error of a key's mean win share
    over the player-games holding it, from the whole-number sums of a chunk (`_key_sums`, `_se_from_sums`),
    is statsmodels' cluster-robust (CR1, by game) one of a regression of the share on a constant over those
    player-games."""
    import statsmodels.api as sm

    from analysis.sakura.card_values import _BIT, _key_sums, _se_from_sums

    rng = np.random.default_rng(5)
    games, seats = 300, 4
    game = np.repeat(np.arange(games), seats)
    units = np.rint(rng.dirichlet(np.ones(seats), size=games).reshape(-1) * SHARE_SCALE).astype(np.int64)
    share = units / SHARE_SCALE
    flags = rng.random((games * seats, 2)) < [0.5, 0.2]
    bits = (flags[:, 0] * _BIT[0] | flags[:, 1] * _BIT[1]).astype(np.uint64)
    se, _ = _se_from_sums(_key_sums(bits, units, game, [0, 1]))
    for k in range(2):
        rows = flags[:, k]
        fit = sm.OLS(share[rows], np.ones(rows.sum())).fit(cov_type="cluster",
                                                           cov_kwds={"groups": game[rows]})
        assert abs(se[k] - fit.bse[0]) < 1e-9 * max(1.0, fit.bse[0])
