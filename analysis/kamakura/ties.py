"""Would another tie-break change Kamakura's seat balance? Seat win rates re-scored from the logged final
scores under every tie-break rule of R-9 (the engine's `sim.kamakura.spec.TIE_BREAKS`). How often ties
decide a game is the game-independent `analysis.ties.tie_stats`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from analysis._arrays import player_games
from analysis.stats import wilson_intervals
from analysis.ties import rule_changes
from sim.kamakura.spec import TIE_BREAKS

#: Tie-break rules of R-9, in the order reports show them.
TIE_RULES: tuple[str, ...] = TIE_BREAKS


def rescore_ties(players: pd.DataFrame, rules: Iterable[str] = TIE_RULES,
                 reference: str | None = None) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores under each tie-break rule (R-9), ignoring the
    logged ``win_share``: ``last_in_order`` (the highest seat among those with the top score wins),
    ``first_in_order`` (the lowest), ``shared`` (each of k tied players gets 1/k).

    Long format, one row per (rule, seat): ``rule, seat, games, wins, win_rate, ci_low, ci_high``, and
    `analysis.ties.rule_changes` against `reference` (default: the first rule; a report passes the run's
    configured rule): ``win_rate_change, change_ci_low, change_ci_high``, paired over the games."""
    rules = list(rules)
    pg = player_games(players)
    k = pg.seats
    score = np.nan_to_num(pg.score, nan=-np.inf)
    top = np.maximum.reduceat(score, pg.starts)
    is_top = score == top[pg.game]
    n_top = np.add.reduceat(is_top.astype(np.int64), pg.starts)
    games = np.bincount(pg.seat, minlength=k)
    rows = []
    matrices: dict[str, np.ndarray] = {}
    for rule in rules:
        if rule == "shared":
            share = is_top / n_top[pg.game]
        elif rule == "last_in_order":
            chosen = np.maximum.reduceat(np.where(is_top, pg.seat, -1), pg.starts)
            share = (pg.seat == chosen[pg.game]).astype(float)
        elif rule == "first_in_order":
            chosen = np.minimum.reduceat(np.where(is_top, pg.seat, np.iinfo(np.int64).max), pg.starts)
            share = (pg.seat == chosen[pg.game]).astype(float)
        else:
            raise ValueError(f"unknown tie-break rule {rule!r}; "
                             f"expected one of {', '.join(TIE_RULES)}")
        matrix = np.full((len(pg.game_ids), k), np.nan)
        matrix[pg.game, pg.seat] = share
        matrices[rule] = matrix
        wins = np.bincount(pg.seat, weights=share, minlength=k)
        low, high = wilson_intervals(wins, games)
        with np.errstate(divide="ignore", invalid="ignore"):
            rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(k), "games": games, "wins": wins,
                                      "win_rate": wins / games, "ci_low": low, "ci_high": high}))
    changes = rule_changes(matrices, reference or rules[0])
    return pd.concat(rows, ignore_index=True).merge(changes, on=["rule", "seat"], sort=False)
