"""How does a Kamakura game unfold? Final scores by seat, winning margins, game length and end
reasons, when players pass out of the game (R-8), and how often the lead changes hands, each with its n
and a 95% interval and with histogram-ready count tables.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, player_games
from analysis.kamakura._frames import _EventScan
from analysis.stats import mean_interval, wilson_intervals


def _distribution(values: np.ndarray) -> dict[str, float]:
    """n, mean, sd, 95% interval of the mean, min, quartiles and max of a sample (NaNs dropped)."""
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return {"n": 0, **{k: float("nan") for k in
                           ("mean", "sd", "ci_low", "ci_high", "min", "q25", "median", "q75", "max")}}
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else float("nan")
    low, high = mean_interval(mean, sd, n)
    q25, median, q75 = np.quantile(values, [0.25, 0.5, 0.75])
    return {"n": n, "mean": mean, "sd": sd, "ci_low": float(low), "ci_high": float(high),
            "min": float(values.min()), "q25": float(q25), "median": float(median), "q75": float(q75),
            "max": float(values.max())}


def _counts(values: np.ndarray, name: str, unit: str = "games") -> pd.DataFrame:
    """Histogram-ready table: each distinct value, how many, and the share."""
    values = values[~np.isnan(values)]
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) and np.all(distinct == np.round(distinct)):
        distinct = distinct.astype(np.int64)
    total = counts.sum()
    return pd.DataFrame({name: distinct, unit: counts,
                         "share": counts / total if total else np.zeros(len(counts))})


def score_stats(players: pd.DataFrame, games: pd.DataFrame) -> dict[str, Any]:
    """Scores and decisiveness. Keys:

    - ``by_seat``: DataFrame ``seat, n, mean, sd, ci_low, ci_high`` (95% interval of the mean), ``min, q25,
      median, q75, max`` of final scores;
    - ``margin``: dict of the first-minus-second score per game (0 when the top is tied): ``n, mean, sd,
      ci_low, ci_high, min, q25, median, q75, max, zero_rate``; ``margin_counts``: DataFrame
      ``margin, games, share`` (histogram-ready);
    - ``length``: dict of game length in turns (same keys as margin, without zero_rate);
      ``length_counts``: DataFrame ``turns, games, share``;
    - ``end_reasons``: DataFrame ``end_reason, games, rate, ci_low, ci_high``."""
    pg = player_games(players)
    by_seat = []
    for seat in range(pg.seats):
        by_seat.append({"seat": seat, **_distribution(pg.score[pg.seat == seat])})
    score = np.nan_to_num(pg.score, nan=-np.inf)
    first = np.maximum.reduceat(score, pg.starts)
    is_first = score == first[pg.game]
    n_first = np.add.reduceat(is_first.astype(np.int64), pg.starts)
    second = np.maximum.reduceat(np.where(is_first, -np.inf, score), pg.starts)
    margin = np.where(n_first >= 2, 0.0, first - second)
    margin[~np.isfinite(margin)] = np.nan  # one-player games have no second score
    margin_summary = _distribution(margin)
    margin_summary["zero_rate"] = float(np.mean(margin[~np.isnan(margin)] == 0)) if margin_summary["n"] \
        else float("nan")
    turns = floats(games["turns"])
    reasons = games["end_reason"].astype("string").fillna("<NA>")
    reason_counts = reasons.value_counts(sort=True)
    low, high = wilson_intervals(reason_counts.to_numpy(), len(games))
    end_reasons = pd.DataFrame({"end_reason": reason_counts.index.to_numpy(dtype=object),
                                "games": reason_counts.to_numpy(),
                                "rate": reason_counts.to_numpy() / max(len(games), 1),
                                "ci_low": low, "ci_high": high})
    return {"by_seat": pd.DataFrame(by_seat), "margin": margin_summary,
            "margin_counts": _counts(margin, "margin"), "length": _distribution(turns),
            "length_counts": _counts(turns, "turns"), "end_reasons": end_reasons}


def pass_timing(players: pd.DataFrame) -> pd.DataFrame:
    """When players pass out of the game (R-8), per seat: ``seat, n`` (player-games), ``passed``,
    ``never_passed_rate`` with ``ci_low, ci_high`` (Wilson; the game ended with every chit gained first),
    and the turn of passing among those who passed (game-wide turn index): ``mean_out_turn, sd_out_turn,
    q25_out_turn, median_out_turn, q75_out_turn``."""
    pg = player_games(players)
    out = floats(pg.frame["out_turn"])
    rows = []
    for seat in range(pg.seats):
        values = out[pg.seat == seat]
        n = len(values)
        never = int(np.isnan(values).sum())
        low, high = wilson_intervals(never, n)
        d = _distribution(values)
        rows.append({"seat": seat, "n": n, "passed": n - never,
                     "never_passed_rate": never / n if n else np.nan,
                     "ci_low": float(low), "ci_high": float(high), "mean_out_turn": d["mean"],
                     "sd_out_turn": d["sd"], "q25_out_turn": d["q25"], "median_out_turn": d["median"],
                     "q75_out_turn": d["q75"]})
    return pd.DataFrame(rows)


def pass_timing_counts(players: pd.DataFrame) -> pd.DataFrame:
    """Histogram-ready distribution of the passing turn per seat: ``seat, out_turn, players, share`` (share
    of that seat's player-games; players who never passed are not listed)."""
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


def _lead_changes_block(game: np.ndarray, seat: np.ndarray, turn: np.ndarray, points: np.ndarray,
                        games: int) -> np.ndarray:
    """Lead changes of ``games`` games from their gain events: ``game`` the local game index 0..games-1,
    the rows of one (game, seat) in turn order (they are sorted here when they are not)."""
    if len(game) == 0:
        return np.zeros(games, dtype=np.int64)
    span = int(turn.max()) + 1
    seats = int(seat.max()) + 1
    wide = np.int64 if games * seats * span >= 2**31 else np.int32
    key = game.astype(wide)
    key *= seats
    key += seat
    key *= span
    key += turn
    if np.any(key[1:] < key[:-1]):
        order = np.argsort(key, kind="stable")
        game, seat, turn, points, key = game[order], seat[order], turn[order], points[order], key[order]
    # cumulative score of each player-game after each gain (reset where the player-game changes)
    cum = np.cumsum(points, dtype=np.int64)
    new_pg = np.empty(len(key), dtype=bool)
    new_pg[0] = True
    np.not_equal(game[1:], game[:-1], out=new_pg[1:])
    new_pg[1:] |= seat[1:] != seat[:-1]
    seg = np.flatnonzero(new_pg)
    cum -= np.repeat(cum[seg] - points[seg], np.diff(np.append(seg, len(cum))))
    # the score after the last gain of each (player-game, turn), placed on a (game, turn) grid
    last = np.empty(len(key), dtype=bool)
    last[-1] = True
    np.not_equal(key[1:], key[:-1], out=last[:-1])
    cell = game[last].astype(wide)
    cell *= span
    cell += turn[last]
    small = np.int16 if cum.max(initial=0) < 2**15 else np.int64
    grid_cum = np.zeros(games * span, dtype=small)
    grid_seat = np.zeros(games * span, dtype=np.int8)
    grid_cum[cell] = cum[last]
    grid_seat[cell] = seat[last]
    grid_cum = grid_cum.reshape(games, span)
    # a turn sets a record when its score beats every earlier score of the game (and 0); a tie does not
    best = np.maximum.accumulate(grid_cum, axis=1)
    before = np.zeros_like(best)
    before[:, 1:] = best[:, :-1]
    r_cell = np.flatnonzero(grid_cum > before)
    r_game = r_cell // span
    r_seat = grid_seat[r_cell]
    change = np.zeros(len(r_game), dtype=bool)
    change[1:] = (r_game[1:] == r_game[:-1]) & (r_seat[1:] != r_seat[:-1])
    return np.bincount(r_game[change], minlength=games)


def lead_changes_per_game(events: pd.DataFrame, players: pd.DataFrame) -> pd.Series:
    """Number of lead changes in each game (Series indexed by ``game_id``, every game of ``players``).

    The leader after a turn is the player with the highest cumulative score; a tie keeps the previous
    leader, so the lead changes only when another player's score rises strictly above the leader's. The
    first player to score takes the lead without it counting as a change."""
    pg = player_games(players)
    result = np.zeros(len(pg.game_ids), dtype=np.int64)
    scan = _EventScan(events, pg)
    if scan.n:
        kind_codes, kind_lookup = scan.code_column("kind", ("gain", "activate"))
        turns = scan.int_column("turn", np.int16)
        points = scan.int_column("points", np.int16)
        gain_code = int(np.flatnonzero(kind_lookup == 0)[0]) if (kind_lookup == 0).any() else -2
        for a, b, r0, r1 in scan.blocks():
            row = scan.rows(a, b, r0, r1)
            gain = kind_codes[a:b] == gain_code
            gain &= row >= 0
            gain &= turns[a:b] >= 0
            where = np.flatnonzero(gain)
            per_run = np.add.reduceat(gain, scan.run_starts[r0:r1] - a, dtype=np.int64)
            local = np.repeat(np.arange(r1 - r0, dtype=np.int32), per_run)
            changes = _lead_changes_block(local, scan.seat[a:b].take(where), turns[a:b].take(where),
                                          np.clip(points[a:b].take(where), 0, None), r1 - r0)
            games = scan.run_game[r0:r1]
            known = games >= 0
            result[games[known]] += changes[known]
    return pd.Series(result, index=pd.Index(pg.game_ids, name="game_id"), name="lead_changes")


def lead_changes(events: pd.DataFrame, players: pd.DataFrame) -> dict[str, Any]:
    """Summary of lead changes per game (see ``lead_changes_per_game``): ``n, mean, sd, ci_low, ci_high,
    min, q25, median, q75, max, zero_rate`` and ``counts`` (DataFrame ``lead_changes, games, share``)."""
    per_game = lead_changes_per_game(events, players).to_numpy(dtype=float)
    summary = _distribution(per_game)
    summary["zero_rate"] = float(np.mean(per_game == 0)) if len(per_game) else float("nan")
    summary["counts"] = _counts(per_game, "lead_changes")
    return summary
