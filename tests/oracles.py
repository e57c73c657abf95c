"""What the tests compare the report's figures against: independent formulas on tables held whole
(or on in-memory arrays), which the analysis package no longer carries, and `tally_of_run`, the tally of
tables held in memory as one chunk.

Every report figure is computed once, from mergeable tallies (analysis.tally): a figure of some tables is
``X_from(X_tally(tables))``. The oracles here compute the same figures another way (floats summed over the
rows, pandas group-bys, the sandwich estimator on the observations, a bootstrap), so a test that the two
agree checks the tally path; they are not used by the package.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import PlayerGames, bools, floats, player_games
from analysis.seats import ALPHA, chi_square_equal
from analysis.stats import (
    BOOTSTRAP,
    Z95,
    holm,
    mean_interval,
    mean_test_p,
    wilson_interval,
    wilson_intervals,
    z_value,
)
from analysis.ties import count_rates


# ---- one chunk ---------------------------------------------------------------------------------------------
def tally_of_run(run: Any) -> Any:
    """The tally of tables held in memory (an `analysis.runs.Run`) as one part: what the by-parts figures
    must equal."""
    from analysis.run_tally import RunTally, report_tally

    frames = {"games": run.games, "players": run.players, "events": run.events}
    ids = run.games["game_id"].to_numpy(dtype=np.int64)
    ranges = [(int(ids.min()), int(ids.max()) + 1)] if len(ids) else []
    return RunTally(run.path, run.manifest, run.spec, report_tally(frames, run.manifest, run.spec),
                    parts_read=1, ranges=ranges)


# ---- seats (analysis.seats) ------------------------------------------------------------------------------
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


# ---- ties (analysis.ties, the games' re-scoring) ---------------------------------------------------------
def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner.

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    return count_rates(len(games), {"top_tied": int(bools(games["tie"]).sum()),
                                    "decided_by_tiebreak": int(bools(games["decided_by_tiebreak"]).sum()),
                                    "shared_win": int(games["winner"].isna().to_numpy(dtype=bool).sum())})


def rule_changes(shares: dict[str, np.ndarray], reference: str) -> pd.DataFrame:
    """What each tie-break rule changes for each seat against `reference` (the run's configured rule),
    paired: the same games re-scored, so the change is the mean of the per-game differences of the seat's
    win share, with its normal 95% interval (games independent; the within-game dependence between seats
    does not enter a single seat's difference). ``shares``: rule -> (games, seats) re-scored win shares
    (NaN where a seat is missing). One row per (rule, seat): ``rule, seat, win_rate_change,
    change_ci_low, change_ci_high`` (0 with a zero-width interval for the reference itself)."""
    if reference not in shares:
        raise ValueError(f"reference rule {reference!r} is not among the re-scored rules {list(shares)}")
    base = shares[reference]
    rows = []
    for rule, matrix in shares.items():
        d = matrix - base
        n = np.sum(~np.isnan(d), axis=0)
        mean = np.nanmean(d, axis=0) if d.size else np.zeros(d.shape[1])
        sd = np.nanstd(d, axis=0, ddof=1) if d.shape[0] > 1 else np.full(d.shape[1], np.nan)
        low, high = mean_interval(mean, sd, n)
        rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(d.shape[1]), "win_rate_change": mean,
                                  "change_ci_low": low, "change_ci_high": high}))
    return pd.concat(rows, ignore_index=True)


# ---- a clustered difference of means (analysis.tally.comparison_from_sums) ------------------------------
def clustered_comparison(flags: np.ndarray, y: np.ndarray, cluster: np.ndarray,
                         z: float = Z95) -> dict[str, np.ndarray]:
    """For each row of ``flags`` (k, N) bool: ``n1, m1`` and ``n0, m0`` (count and mean of ``y`` over the
    flagged and the unflagged observations) and their difference ``diff`` with a normal interval ``low,
    high`` whose standard error is cluster-robust by ``cluster`` (N,) (the players of one game are not
    independent: when one holds a chit and wins, the others lose).

    The difference is the slope of the least-squares fit y = a + b flag; its variance is the sandwich
    estimator with the small-sample factor G/(G-1) (N-1)/(N-2) of statsmodels' ``cov_type="cluster"``
    (CR1), G clusters. NaN where a group is empty (its mean, the difference) or G < 2 (the interval)."""
    flags = np.asarray(flags, dtype=bool)
    y = np.asarray(y, dtype=float)
    _, codes = np.unique(np.asarray(cluster), return_inverse=True)
    g = int(codes.max()) + 1 if len(codes) else 0
    n = len(y)
    k = flags.shape[0]
    out = {name: np.full(k, np.nan) for name in ("n1", "m1", "n0", "m0", "diff", "low", "high")}
    for row, x in enumerate(flags):
        n1 = int(x.sum())
        out["n1"][row], out["n0"][row] = n1, n - n1
        m1 = y[x].mean() if n1 else np.nan
        m0 = y[~x].mean() if n1 < n else np.nan
        out["m1"][row], out["m0"][row] = m1, m0
        if n1 == 0 or n1 == n:
            continue
        out["diff"][row] = m1 - m0
        if g < 2:
            continue
        resid = y - np.where(x, m1, m0)
        centred = x - n1 / n
        score = np.bincount(codes, weights=centred * resid, minlength=g)
        factor = g / (g - 1) * (n - 1) / (n - 2)
        se = math.sqrt(factor * float(score @ score)) / float(centred @ centred)
        out["low"][row], out["high"][row] = m1 - m0 - z * se, m1 - m0 + z * se
    return out


def clustered_difference(flags: np.ndarray, y: np.ndarray, cluster: np.ndarray,
                         z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`clustered_comparison`'s difference and its cluster-robust interval: (diff, low, high)."""
    out = clustered_comparison(flags, y, cluster, z)
    return out["diff"], out["low"], out["high"]


# ---- the seat gap (analysis.paired.seat_gap_from_sums) ----------------------------------------------------
def _bootstrap_rates(rows: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Nonparametric bootstrap of the column means of ``rows`` (games x m): resampling games is a
    multinomial draw over the distinct rows (a handful: who won, which ties), so it costs O(draws x
    distinct). Returns (draws, m)."""
    n = len(rows)
    if n == 0:
        return np.full((draws, rows.shape[1]), np.nan)
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    weights = rng.multinomial(n, counts / n, size=draws)
    return weights @ distinct / n


def gap_samples(shares: np.ndarray, draws: int = BOOTSTRAP, seed: int = 0,
                paired_with: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Bootstrap samples of the largest gap between seat win rates (max minus min over seats) of a (games,
    seats) win-share matrix. With ``paired_with`` (the other run's share matrix, same games in the same
    order) the games are resampled jointly and the other run's samples come back too."""
    rng = np.random.default_rng(seed)
    if paired_with is None:
        rates = _bootstrap_rates(shares, draws, rng)
        return rates.max(axis=1) - rates.min(axis=1), None
    k = shares.shape[1]
    rates = _bootstrap_rates(np.hstack([shares, paired_with]), draws, rng)
    mine, other = rates[:, :k], rates[:, k:]
    return mine.max(axis=1) - mine.min(axis=1), other.max(axis=1) - other.min(axis=1)


def seat_gap(shares: np.ndarray, confidence: float = 0.95) -> dict[str, Any]:
    """The largest gap between seat win rates of a (games, seats) win-share matrix, ``max - min`` of the
    seat means: ``value, ci_low, ci_high, n, max_seat, min_seat``. Ludii's Balance metric is 1 minus this
    gap.

    The interval comes from simultaneous intervals of every pairwise difference of seat rates: each
    difference p_i - p_j is a mean of per-game differences (paired: the seats share the games), with a
    normal interval at ``1 - (1 - confidence) / pairs`` (Bonferroni over the k(k-1)/2 pairs). When all of
    them hold, which happens with probability at least `confidence`, the gap ``max_ij (p_i - p_j)`` lies
    between the largest lower bound (at least 0) and the largest upper bound. The percentile bootstrap it
    replaces never covered a true gap of 0: the sample max - min is biased upward, worst when seats are
    equal; this interval reaches 0 whenever no pair can be told apart."""
    shares = np.asarray(shares, dtype=float)
    n, k = shares.shape
    rates = shares.mean(axis=0) if n else np.full(k, np.nan)
    value = float(rates.max() - rates.min()) if n else float("nan")
    low = high = float("nan")
    if n > 1 and k > 1:
        i, j = np.triu_indices(k, 1)
        d = shares[:, i] - shares[:, j]
        half = z_value(confidence, len(i)) * d.std(axis=0, ddof=1) / math.sqrt(n)
        mean = d.mean(axis=0)
        # the gap is the largest |p_i - p_j|: bound each |difference| from its interval
        abs_low = np.where((mean - half > 0) | (mean + half < 0), np.abs(mean) - half, 0.0)
        abs_high = np.abs(mean) + half
        low, high = float(max(0.0, abs_low.max())), float(abs_high.max())
    return {"value": value, "ci_low": low, "ci_high": high, "n": n,
            "max_seat": int(np.argmax(rates)) if n else -1, "min_seat": int(np.argmin(rates)) if n else -1}


# ---- a game's flow: scores, length, passing, lead changes (the games' game_flow and play modules) -------
def distribution(values: Any) -> dict[str, float]:
    """n, mean, sd, the normal 95% interval of the mean, min, quartiles and max of the non-missing values,
    by numpy."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if not len(x):
        return {"n": 0, **{k: math.nan for k in ("mean", "sd", "ci_low", "ci_high", "min", "q25", "median",
                                                  "q75", "max")}}
    sd = float(x.std(ddof=1)) if len(x) > 1 else math.nan
    low, high = mean_interval(x.mean(), sd, len(x))
    q25, median, q75 = np.quantile(x, [0.25, 0.5, 0.75])
    return {"n": len(x), "mean": float(x.mean()), "sd": sd, "ci_low": float(low), "ci_high": float(high),
            "min": float(x.min()), "q25": float(q25), "median": float(median), "q75": float(q75),
            "max": float(x.max())}


def counts_table(values: Any, name: str, unit: str = "games") -> pd.DataFrame:
    """Each value that occurred, how often and its share, by pandas."""
    x = pd.Series(np.asarray(values, dtype=float)).dropna().astype(np.int64)
    counts = x.value_counts().sort_index()
    return pd.DataFrame({name: counts.index.to_numpy(dtype=np.int64), unit: counts.to_numpy(),
                         "share": counts.to_numpy() / counts.sum()})


def score_stats(players: pd.DataFrame, games: pd.DataFrame) -> dict[str, Any]:
    """Final scores by seat, the winning margin (first minus second score, 0 when the top is tied), game
    length in turns and the end reasons (`analysis.kamakura.game_flow.score_stats_from`), by pandas."""
    frame = players.assign(score=floats(players["score"]), seat=players["seat"].astype(int))
    by_seat = pd.DataFrame([{"seat": seat, **distribution(group["score"])}
                            for seat, group in frame.groupby("seat", sort=True)])
    top_two = frame.sort_values("score", ascending=False).groupby("game_id")["score"].apply(
        lambda s: s.iloc[0] - s.iloc[1] if len(s) > 1 else math.nan)
    margin = distribution(top_two)
    margin["zero_rate"] = float((top_two == 0).mean())
    reasons = games["end_reason"].astype(str).value_counts()
    low, high = wilson_intervals(reasons.to_numpy(), len(games))
    turns = floats(games["turns"])
    return {"by_seat": by_seat, "margin": margin, "margin_counts": counts_table(top_two, "margin"),
            "length": distribution(turns), "length_counts": counts_table(turns, "turns"),
            "end_reasons": pd.DataFrame({"end_reason": reasons.index.to_numpy(dtype=object),
                                         "games": reasons.to_numpy(), "rate": reasons.to_numpy() / len(games),
                                         "ci_low": low, "ci_high": high})}


def pass_timing(players: pd.DataFrame) -> pd.DataFrame:
    """When players pass out of the game (R-8), per seat (`analysis.kamakura.game_flow.pass_timing_from`),
    by pandas."""
    rows = []
    for seat, group in players.assign(seat=players["seat"].astype(int)).groupby("seat", sort=True):
        out = floats(group["out_turn"])
        n, never = len(out), int(np.isnan(out).sum())
        low, high = wilson_interval(never, n)
        d = distribution(out)
        rows.append({"seat": seat, "n": n, "passed": n - never, "never_passed_rate": never / n,
                     "ci_low": low, "ci_high": high, "mean_out_turn": d["mean"], "sd_out_turn": d["sd"],
                     "q25_out_turn": d["q25"], "median_out_turn": d["median"], "q75_out_turn": d["q75"]})
    return pd.DataFrame(rows)


def pass_timing_counts(players: pd.DataFrame) -> pd.DataFrame:
    """Histogram-ready distribution of the passing turn per seat: ``seat, out_turn, players, share`` (share
    of that seat's player-games; players who never passed are not listed): what the report's passing chart
    counts (`flow_tally`'s ``out_turn``)."""
    pg = player_games(players)
    out = floats(pg.frame["out_turn"])
    passed = ~np.isnan(out)
    seats = pg.seats
    turn = out[passed].astype(np.int64)
    if len(turn) == 0:
        return pd.DataFrame({"seat": [], "out_turn": [], "players": [], "share": []})
    span = int(turn.max()) + 1
    counts = np.bincount(pg.seat[passed] * span + turn, minlength=seats * span).reshape(seats, span)
    seat_idx, turn_idx = np.nonzero(counts)
    per_seat = np.bincount(pg.seat, minlength=seats)
    c = counts[seat_idx, turn_idx]
    return pd.DataFrame({"seat": seat_idx, "out_turn": turn_idx, "players": c,
                         "share": c / per_seat[seat_idx]})


def lead_changes(per_game: pd.Series) -> dict[str, Any]:
    """The summary of lead changes per game (`analysis.kamakura.game_flow.lead_changes_from`) from the
    per-game counts (`lead_changes_per_game`), by numpy."""
    x = per_game.to_numpy(dtype=float)
    return {**distribution(x), "zero_rate": float((x == 0).mean()), "counts": counts_table(x, "lead_changes")}


def round_stats(games: pd.DataFrame) -> dict[str, Any]:
    """Sakura's game length in rounds (`analysis.sakura.game_flow.round_stats_from`), by numpy."""
    d = distribution(floats(games["rounds"]))
    reasons = games["end_reason"].astype(str).value_counts()
    return {"n": d["n"], "mean": d["mean"], "sd": d["sd"], "median": d["median"], "q1": d["q25"],
            "q3": d["q75"], "min": int(d["min"]), "max": int(d["max"]),
            "end_reasons": {str(k): int(v) for k, v in reasons.items()},
            "histogram": counts_table(floats(games["rounds"]), "rounds")}
