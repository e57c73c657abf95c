"""Does the seat matter? Each seat's win rate with its Wilson 95% interval, a chi-square test of "every seat
wins equally often", each seat tested against the fair share, the start player's advantage over the fair
share and each agent's win rate, for every game (the players tables share these columns).

Every figure is read off a mergeable tally of whole numbers (`seat_tally`, merged by `analysis.tally.merge`;
the report's common tally, `analysis.run_tally.common_tally`, holds it), so a run's figures are those of its
chunks' tallies merged; `seat_win_rates` also takes a players table, tallied as one chunk. `win_shares`
and `seat_win_rates_from_shares` ask the same question of a study's in-memory winner marks
(`sim.app.study`), through the same tally.

Seats are 0-based as in the tables (seat 0 is the start player, "seat 1" in docs/rules.md prose).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import player_games
from analysis.stats import chi2_sf, holm, mean_test_p, wilson_intervals
from analysis.tally import SHARE_SCALE, Hist, hist, share_units

ALPHA = 0.05  # family-wise level of every family of seat flags


# ---- the tally --------------------------------------------------------------------------------------------
def seat_tally(players: pd.DataFrame) -> dict[str, Any]:
    """What the seat figures need of some games' players table, as whole numbers (analysis.tally): games;
    per seat its player-games, win-share sum and square sum (in 1/SHARE_SCALE), a histogram of its scores
    and its agents; the seats' per-game share cross-products; per agent its seat-games and the sum and
    square sum of its per-game share; games per player count."""
    pg = player_games(players)
    units = share_units(pg.share)
    k, n_games = pg.seats, len(pg.game_ids)
    matrix = np.zeros((n_games, k), dtype=np.int64)
    matrix[pg.game, pg.seat] = units
    agent_names = pg.frame["agent"].astype(str).to_numpy()
    agents: dict[str, np.ndarray] = {}
    for agent in sorted(set(agent_names)):
        mine = agent_names == agent
        per_game = np.bincount(pg.game[mine], weights=units[mine], minlength=n_games).astype(np.int64)
        agents[agent] = np.array([int(mine.sum()), int(per_game.sum()), int(per_game @ per_game)])
    sizes, counts = np.unique(pg.sizes, return_counts=True)
    return {
        "games": n_games,
        "seat_games": np.bincount(pg.seat, minlength=k).astype(np.int64),
        "seat_units": matrix.sum(axis=0), "seat_squares": (matrix * matrix).sum(axis=0),
        "seat_cross": matrix.T @ matrix,
        "score": hist(pg.score, pg.seat, k),
        "seat_agents": {str(s): set(agent_names[pg.seat == s]) for s in range(k)},
        "agents": agents,
        "sizes": {str(int(s)): int(c) for s, c in zip(sizes, counts, strict=True)},
    }


# ---- the figures, from a (merged) tally ------------------------------------------------------------------
def fair_share(c: dict) -> float:
    """The mean over games of 1 / players: a seat's share when every seat is equal."""
    return sum(count / int(size) for size, count in c["sizes"].items()) / c["games"]


def _rates(c: dict) -> pd.DataFrame:
    """``seat, games, wins, win_rate, ci_low, ci_high`` of a tally's seats."""
    games = c["seat_games"]
    wins = c["seat_units"] / SHARE_SCALE
    low, high = wilson_intervals(wins, games)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({"seat": np.arange(len(games)), "games": games, "wins": wins,
                             "win_rate": wins / games, "ci_low": low, "ci_high": high})


def seat_win_rates(c: dict | pd.DataFrame) -> pd.DataFrame:
    """One row per seat: ``seat, games, wins, win_rate, ci_low, ci_high, mean_score``, from a (merged) seat
    tally (`seat_tally`, or the report's common tally); given a players table, from its `seat_tally` (the
    same computation on one chunk).

    ``wins`` is the summed win share (ties counted by the configured tie-break, shared wins as 1/k) and
    ``win_rate`` its mean; the interval is Wilson's 95% on the summed shares."""
    if isinstance(c, pd.DataFrame):
        c = seat_tally(c)
    score: Hist = c["score"]
    with np.errstate(divide="ignore", invalid="ignore"):
        return _rates(c).assign(mean_score=score.counts @ score.values / c["seat_games"])


def seat_equality_test(c: dict) -> dict[str, Any]:
    """Chi-square goodness-of-fit test of "every seat wins equally often" on the summed win shares of a
    (merged) seat tally: expected wins of a seat = all wins x that seat's share of the player-games.
    ``statistic, dof, p_value, n`` (games), plus ``observed`` and ``expected`` per seat."""
    return {**chi_square_equal(c["seat_units"] / SHARE_SCALE, c["seat_games"].astype(float)),
            "n": int(c["games"])}


def seat_tests(c: dict) -> pd.DataFrame:
    """One row per seat (0-based): ``seat, p_value, p_holm, differs`` — `share_tests_from_sums` of each
    seat's win share against the fair share, Holm over the seats (a (merged) seat tally)."""
    k = len(c["seat_games"])
    tests = share_tests_from_sums(int(c["games"]), c["seat_units"], c["seat_squares"], fair_share(c),
                                  SHARE_SCALE)
    return tests.assign(seat=np.arange(k))[["seat", "p_value", "p_holm", "differs"]]


def start_player_advantage(c: dict) -> dict[str, Any]:
    """Seat 0's win rate minus the fair share: ``value, ci_low, ci_high`` (the Wilson 95% interval of
    seat 0's rate shifted by the fair share), ``n`` (games), ``win_rate`` (seat 0) and ``fair_share``, from
    a (merged) seat tally."""
    n = int(c["seat_games"][0])
    wins = c["seat_units"][0] / SHARE_SCALE
    fair = fair_share(c)
    low, high = wilson_intervals(wins, n)
    rate = wins / n if n else float("nan")
    return {"value": rate - fair, "ci_low": float(low) - fair, "ci_high": float(high) - fair, "n": n,
            "win_rate": rate, "fair_share": fair}


def agent_win_rates(c: dict) -> pd.DataFrame:
    """One row per agent of a (merged) seat tally, by name: ``agent, games, seats, wins, win_rate, ci_low,
    ci_high, fair, p_holm, differs``. ``seats``: the seats the agent held per game; ``wins`` sums its seats'
    win shares over all games, so ``win_rate`` is the share of games it won, with Wilson's 95% interval
    over games; ``fair``: seats / players (the most players of a game), what it would win if the agents
    were equal; ``p_holm`` and ``differs``: `share_tests_from_sums` of its per-game win share against
    ``fair``, Holm over the agents."""
    agents = c["agents"]
    n = int(c["games"])
    names = sorted(agents)
    most = max(int(size) for size in c["sizes"])
    held = np.array([agents[a][0] for a in names]) / n
    sums, squares = np.array([agents[a][1] for a in names]), np.array([agents[a][2] for a in names])
    wins = sums / SHARE_SCALE
    fair = held / most
    tests = share_tests_from_sums(n, sums, squares, fair, SHARE_SCALE)
    low, high = wilson_intervals(wins, np.full(len(names), n))
    return pd.DataFrame({"agent": names, "games": n, "seats": held, "wins": wins, "win_rate": wins / n,
                         "ci_low": low, "ci_high": high, "fair": fair, "p_holm": tests["p_holm"].to_numpy(),
                         "differs": tests["differs"].to_numpy()})


# ---- the tests behind them --------------------------------------------------------------------------------
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


def share_tests_from_sums(n: int, sums: np.ndarray, squares: np.ndarray, fair: float | np.ndarray,
                          scale: int = 1) -> pd.DataFrame:
    """Each column of a (games, k) win-share matrix (a seat, or an agent's seats summed) tested against its
    fair share, from each column's sum and sum of squares over the n games, in units of 1/scale (whole
    numbers, so a column whose every game has the same share has sd exactly 0): ``p_value`` (two-sided,
    normal on the per-game shares, so ties shared as 1/k are counted as they fall), ``p_holm`` (Holm over
    the k columns) and ``differs``: p_holm <= ALPHA and the omnibus chi-square of all columns
    (`chi_square_equal`, expected in proportion to the fair shares) rejects at ALPHA too. Holm alone keeps
    the chance that any truly fair column is flagged <= ALPHA; the omnibus gate only removes flags, and
    under "all columns fair" it alone bounds that chance by ALPHA, where the normal approximations of k
    separate tests at ALPHA / k can drift above it."""
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


# ---- a study's winner marks -------------------------------------------------------------------------------
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
    """One row per seat of a (games, players) win-share matrix (every seat in every game): ``seat, agent,
    games, win_rate, ci_low, ci_high`` (`seat_win_rates`' Wilson 95% interval), ``p_holm`` and
    ``differs_from_fair`` (`seat_tests` against the fair share 1/players), from the matrix's tally."""
    units = share_units(shares)
    games, players = units.shape
    c = {"games": games, "seat_games": np.full(players, games, dtype=np.int64),
         "seat_units": units.sum(axis=0), "seat_squares": (units * units).sum(axis=0),
         "sizes": {str(players): games}}
    tests = seat_tests(c)
    return _rates(c).assign(agent=list(agents) if agents else "", p_holm=tests["p_holm"],
                            differs_from_fair=tests["differs"])[
        ["seat", "agent", "games", "win_rate", "ci_low", "ci_high", "p_holm", "differs_from_fair"]]
