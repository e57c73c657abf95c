"""Seat win rates: the first question every balance study answers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.stats import wilson_interval


def win_shares(winners: np.ndarray) -> np.ndarray:
    """(games, players) 0/1 winner marks -> win shares: each of k winners of a game gets 1/k."""
    winners = np.asarray(winners, dtype=float)
    return winners / winners.sum(axis=1, keepdims=True).clip(min=1)


def seat_win_rates(shares: np.ndarray, agents: list[str] | None = None) -> pd.DataFrame:
    """One row per seat: games n, win share, its Wilson 95% interval, and whether the fair share 1/players
    lies inside the interval (if it does, the seat's difference from fair is not significant)."""
    shares = np.asarray(shares, dtype=float)
    games, players = shares.shape
    fair = 1.0 / players
    rows = []
    for seat in range(players):
        total = float(shares[:, seat].sum())
        low, high = wilson_interval(total, games)
        rows.append({"seat": seat + 1, "agent": agents[seat] if agents else "", "games": games,
                     "win_rate": total / games, "ci_low": low, "ci_high": high,
                     "differs_from_fair": not low <= fair <= high})
    return pd.DataFrame(rows)
