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
from analysis.stats import chi2_sf, holm, mean_test_p, wilson_interval, wilson_intervals

ALPHA = 0.05  # family-wise level of every family of seat flags


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
    """One row per agent: ``agent, games, seats, wins, win_rate, ci_low, ci_high, per_seat, fair, p_holm,
    differs`` (the last two: `share_tests` of each agent's per-game win share against ``fair``, Holm over
    the agents).

    ``seats`` is how many seats the agent held in each game (one lineup per run, seats maybe rotated);
    ``wins`` sums its seats' win shares over all games, so ``win_rate`` is the share of games the agent
    won; ``fair`` is seats / players, what it would win if the agents were equal; ``per_seat`` is the
    win rate per seat it held. The interval is Wilson's 95% over games."""
    frame = players.assign(agent=players["agent"].astype(str))
    n_games = frame["game_id"].nunique()
    n_players = int(frame.groupby("game_id").size().max()) if n_games else 0
    rows, columns = [], []
    for agent, group in frame.groupby("agent", sort=True):
        seats = len(group) / n_games
        wins = float(group["win_share"].sum())
        low, high = wilson_interval(wins, n_games)
        rows.append({"agent": agent, "games": n_games, "seats": seats, "wins": wins,
                     "win_rate": wins / n_games, "ci_low": low, "ci_high": high,
                     "per_seat": wins / n_games / seats, "fair": seats / n_players})
        columns.append(group.groupby("game_id")["win_share"].sum().reindex(frame["game_id"].unique(),
                                                                               fill_value=0.0).to_numpy())
    out = pd.DataFrame(rows)
    if rows:
        tests = share_tests(np.column_stack(columns), out["fair"].to_numpy())
        out["p_holm"], out["differs"] = tests["p_holm"].to_numpy(), tests["differs"].to_numpy()
    return out


def seat_equality_test(players: pd.DataFrame) -> dict[str, Any]:
    """Chi-square goodness-of-fit test of "every seat wins equally often" on the summed win shares.

    Expected wins of a seat = all wins x that seat's share of the player-games. Returns ``statistic, dof,
    p_value, n`` (games), plus ``observed`` and ``expected`` per seat."""
    pg = player_games(players)
    k = pg.seats
    games = np.bincount(pg.seat, minlength=k).astype(float)
    observed = np.bincount(pg.seat, weights=pg.share, minlength=k)
    return {**chi_square_equal(observed, games), "n": len(pg.game_ids)}


def chi_square_equal(observed: np.ndarray, games: np.ndarray) -> dict[str, Any]:
    """The omnibus test behind `seat_equality_test`, from each seat's summed win shares and games (or any
    weights the expected wins are proportional to): ``statistic, dof, p_value, observed, expected``."""
    observed = np.asarray(observed, dtype=float)
    games = np.asarray(games, dtype=float)
    k = len(observed)
    expected = observed.sum() * games / games.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
    statistic = float(terms.sum())
    dof = k - 1
    p_value = chi2_sf(statistic, dof) if dof > 0 and observed.sum() > 0 else float("nan")
    return {"statistic": statistic, "dof": dof, "p_value": p_value, "observed": observed.tolist(),
            "expected": expected.tolist()}


def share_tests(shares: np.ndarray, fair: float | np.ndarray) -> pd.DataFrame:
    """Each column of a (games, k) win-share matrix (a seat, or an agent's seats summed) tested against
    its fair share: ``p_value`` (two-sided, normal on the per-game shares, so ties shared as 1/k are
    counted as they fall), ``p_holm`` (Holm over the k columns) and ``differs``: p_holm <= ALPHA and the
    omnibus chi-square of all columns (`chi_square_equal`, expected in proportion to the fair shares)
    rejects at ALPHA too. Holm alone keeps the chance that any truly fair column is flagged <= ALPHA;
    the omnibus gate only removes flags, and under "all columns fair" it alone bounds that chance by
    ALPHA, where the normal approximations of k separate tests at ALPHA / k can drift above it."""
    shares = np.asarray(shares, dtype=float)
    n, k = shares.shape
    fair = np.broadcast_to(np.asarray(fair, dtype=float), (k,))
    sd = shares.std(axis=0, ddof=1) if n > 1 else np.full(k, np.nan)
    p = mean_test_p(shares.mean(axis=0), sd, np.full(k, n), fair)
    adjusted = holm(p)
    omnibus = chi_square_equal(shares.sum(axis=0), fair)["p_value"] if k > 1 else float("nan")
    differs = (adjusted <= ALPHA) & (omnibus <= ALPHA)
    return pd.DataFrame({"p_value": p, "p_holm": adjusted, "differs": differs})


def share_tests_from_sums(n: int, sums: np.ndarray, squares: np.ndarray, fair: float | np.ndarray,
                          scale: int = 1) -> pd.DataFrame:
    """`share_tests` from each column's sum and sum of squares over the n games, in units of 1/scale
    (whole numbers, so a column whose every game has the same share has sd exactly 0, as np.std gives)."""
    sums, squares = np.asarray(sums, dtype=np.int64), np.asarray(squares, dtype=np.int64)
    k = len(sums)
    fair = np.broadcast_to(np.asarray(fair, dtype=float), (k,))
    spread = (n * squares - sums * sums).astype(float)  # n * sum (x - mean)^2, exact in whole units
    sd = np.sqrt(spread / (n * (n - 1))) / scale if n > 1 else np.full(k, np.nan)
    p = mean_test_p(sums / (scale * n), sd, np.full(k, n), fair)
    adjusted = holm(p)
    omnibus = chi_square_equal(sums / scale, fair)["p_value"] if k > 1 else float("nan")
    differs = (adjusted <= ALPHA) & (omnibus <= ALPHA)
    return pd.DataFrame({"p_value": p, "p_holm": adjusted, "differs": differs})


def seat_tests(players: pd.DataFrame) -> pd.DataFrame:
    """One row per seat (0-based): ``seat, p_value, p_holm, differs`` — `share_tests` of each seat's win
    share against the fair share, Holm over the seats."""
    pg = player_games(players)
    k = pg.seats
    matrix = np.zeros((len(pg.game_ids), k))
    matrix[pg.game, pg.seat] = pg.share
    return share_tests(matrix, _fair_share(pg)).assign(seat=np.arange(k))[
        ["seat", "p_value", "p_holm", "differs"]]


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


def win_shares(winners: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """(games, players) 0/1 winner marks -> win shares: each of k winners of a game gets 1/k. ``others``:
    per game the winners that are not seats (a batch's `other_winners`: a neutral painter that a game
    lets win), counted among the k."""
    winners = np.asarray(winners, dtype=float)
    k = winners.sum(axis=1, keepdims=True)
    if others is not None:
        k = k + np.asarray(others, dtype=float).reshape(-1, 1)
    return winners / k.clip(min=1)


def seat_win_rates_from_shares(shares: np.ndarray, agents: list[str] | None = None) -> pd.DataFrame:
    """One row per seat: games n, win share, its Wilson 95% interval, and `share_tests`' Holm-adjusted
    test against the fair share 1/players (``p_holm``; ``differs_from_fair`` when it is <= 5%)."""
    shares = np.asarray(shares, dtype=float)
    games, players = shares.shape
    tests = share_tests(shares, 1.0 / players)
    rows = []
    for seat in range(players):
        total = float(shares[:, seat].sum())
        low, high = wilson_interval(total, games)
        rows.append({"seat": seat, "agent": agents[seat] if agents else "", "games": games,
                     "win_rate": total / games, "ci_low": low, "ci_high": high,
                     "p_holm": float(tests["p_holm"][seat]),
                     "differs_from_fair": bool(tests["differs"][seat])})
    return pd.DataFrame(rows)
