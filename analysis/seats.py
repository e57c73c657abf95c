"""Does the seat matter? Seat win rates with Wilson 95% intervals, a chi-square test of "every seat wins
equally often" and the start player's advantage over the fair share, for every game (the players tables
share these columns), computed from a run's players table; plus `win_shares` and
`seat_win_rates_from_shares`, the same question on a study's in-memory winner marks (`sim.app.study`).

Seats are 0-based as in the tables (seat 0 is the start player, "seat 1" in RULES.md prose).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import PlayerGames, player_games
from analysis.stats import chi2_sf, wilson_interval, wilson_intervals


def seat_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    """One row per seat: ``seat, games, wins, win_rate, ci_low, ci_high, mean_score``.

    ``wins`` is the summed win share (ties counted by the configured tie-break, shared wins as 1/k) and
    ``win_rate`` its mean; the interval is Wilson's 95% on the summed shares."""
    pg = player_games(players)
    k = pg.seats
    games = np.bincount(pg.seat, minlength=k)
    wins = np.bincount(pg.seat, weights=pg.share, minlength=k)
    score = np.bincount(pg.seat, weights=pg.score, minlength=k)
    low, high = wilson_intervals(wins, games)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({"seat": np.arange(k), "games": games, "wins": wins, "win_rate": wins / games,
                             "ci_low": low, "ci_high": high, "mean_score": score / games})


def agent_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    """One row per agent: ``agent, games, seats, wins, win_rate, ci_low, ci_high, per_seat, fair``.

    ``seats`` is how many seats the agent held in each game (one lineup per run, seats maybe rotated);
    ``wins`` sums its seats' win shares over all games, so ``win_rate`` is the share of games the agent
    won; ``fair`` is seats / players, what it would win if the agents were equal; ``per_seat`` is the
    win rate per seat it held. The interval is Wilson's 95% over games."""
    frame = players.assign(agent=players["agent"].astype(str))
    n_games = frame["game_id"].nunique()
    n_players = int(frame.groupby("game_id").size().max()) if n_games else 0
    rows = []
    for agent, group in frame.groupby("agent", sort=True):
        seats = len(group) / n_games
        wins = float(group["win_share"].sum())
        low, high = wilson_interval(wins, n_games)
        rows.append({"agent": agent, "games": n_games, "seats": seats, "wins": wins,
                     "win_rate": wins / n_games, "ci_low": low, "ci_high": high,
                     "per_seat": wins / n_games / seats, "fair": seats / n_players})
    return pd.DataFrame(rows)


def seat_equality_test(players: pd.DataFrame) -> dict[str, Any]:
    """Chi-square goodness-of-fit test of "every seat wins equally often" on the summed win shares.

    Expected wins of a seat = all wins x that seat's share of the player-games. Returns ``statistic, dof,
    p_value, n`` (games), plus ``observed`` and ``expected`` per seat."""
    pg = player_games(players)
    k = pg.seats
    games = np.bincount(pg.seat, minlength=k).astype(float)
    observed = np.bincount(pg.seat, weights=pg.share, minlength=k)
    expected = observed.sum() * games / games.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
    statistic = float(terms.sum())
    dof = k - 1
    p_value = chi2_sf(statistic, dof) if dof > 0 and observed.sum() > 0 else float("nan")
    return {"statistic": statistic, "dof": dof, "p_value": p_value, "n": len(pg.game_ids),
            "observed": observed.tolist(), "expected": expected.tolist()}


def _fair_share(pg: PlayerGames) -> float:
    """Expected win share of a seat when all seats are equal: mean over games of 1 / players."""
    return float(np.mean(1.0 / pg.sizes))


def start_player_advantage(players: pd.DataFrame) -> dict[str, Any]:
    """Seat 0's win rate minus the fair share 1/P: ``value, ci_low, ci_high`` (the Wilson 95% interval of
    seat 0's rate shifted by 1/P), ``n`` (games), ``win_rate`` (seat 0) and ``fair_share``."""
    pg = player_games(players)
    first = pg.seat == 0
    n = int(first.sum())
    wins = float(pg.share[first].sum())
    fair = _fair_share(pg)
    low, high = wilson_intervals(wins, n)
    rate = wins / n if n else float("nan")
    return {"value": rate - fair, "ci_low": float(low) - fair, "ci_high": float(high) - fair, "n": n,
            "win_rate": rate, "fair_share": fair}


def win_shares(winners: np.ndarray) -> np.ndarray:
    """(games, players) 0/1 winner marks -> win shares: each of k winners of a game gets 1/k."""
    winners = np.asarray(winners, dtype=float)
    return winners / winners.sum(axis=1, keepdims=True).clip(min=1)


def seat_win_rates_from_shares(shares: np.ndarray, agents: list[str] | None = None) -> pd.DataFrame:
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
