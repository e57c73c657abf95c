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
from analysis.stats import wilson_intervals
from analysis.tally import Hist, hist, hist_count, hist_distribution, hist_table

#: a gain in a batch's events: sim.kamakura.batch.EVENT_GAIN, as sim/kamakura/tables.py reads it (importing
#: the batch module would load its kernels)
GAIN_EVENT = 0


def _margins(pg: Any) -> np.ndarray:
    """First minus second score per game (0 when the top is tied; NaN in a one-player game)."""
    score = np.nan_to_num(pg.score, nan=-np.inf)
    first = np.maximum.reduceat(score, pg.starts)
    is_first = score == first[pg.game]
    n_first = np.add.reduceat(is_first.astype(np.int64), pg.starts)
    second = np.maximum.reduceat(np.where(is_first, -np.inf, score), pg.starts)
    margin = np.where(n_first >= 2, 0.0, first - second)
    margin[~np.isfinite(margin)] = np.nan  # one-player games have no second score
    return margin


def flow_tally(players: pd.DataFrame, games: pd.DataFrame,
               events: pd.DataFrame | None = None) -> dict[str, Any]:
    """What `score_stats_from`, `pass_timing_from` and `lead_changes_from` need of some games, as
    histograms of whole numbers (analysis.tally): final scores per seat, winning margins, turns, end
    reasons, the passing turn per seat (and player-games that never passed), and, given the events, lead
    changes per game."""
    pg = player_games(players)
    reasons = games["end_reason"].astype("string").fillna("<NA>").value_counts(sort=False)
    out_turn = floats(pg.frame["out_turn"])
    out: dict[str, Any] = {
        "score": hist(pg.score, pg.seat, pg.seats), "margin": hist(_margins(pg)),
        "turns": hist(floats(games["turns"])),
        "end_reasons": {str(r): int(c) for r, c in reasons.items()},
        "seat_games": np.bincount(pg.seat, minlength=pg.seats).astype(np.int64),
        "never_passed": np.bincount(pg.seat[np.isnan(out_turn)], minlength=pg.seats).astype(np.int64),
        "out_turn": hist(out_turn, pg.seat, pg.seats)}
    if events is not None:
        out["lead_changes"] = hist(lead_changes_per_game(events, players).to_numpy(dtype=float))
    return out


def score_stats_from(tally: dict[str, Any]) -> dict[str, Any]:
    """Scores and decisiveness, from a (merged) `flow_tally`. Keys:

    - ``by_seat``: DataFrame ``seat, n, mean, sd, ci_low, ci_high`` (95% interval of the mean), ``min, q25,
      median, q75, max`` of final scores;
    - ``margin``: dict of the first-minus-second score per game (0 when the top is tied): ``n, mean, sd,
      ci_low, ci_high, min, q25, median, q75, max, zero_rate``; ``margin_counts``: DataFrame
      ``margin, games, share`` (histogram-ready);
    - ``length``: dict of game length in turns (same keys as margin, without zero_rate);
      ``length_counts``: DataFrame ``turns, games, share``;
    - ``end_reasons``: DataFrame ``end_reason, games, rate, ci_low, ci_high``."""
    score: Hist = tally["score"]
    by_seat = [{"seat": seat, **hist_distribution(score.group(seat))}
               for seat in range(score.counts.shape[0])]
    margin = hist_distribution(tally["margin"])
    margin["zero_rate"] = hist_count(tally["margin"], 0) / margin["n"] if margin["n"] else float("nan")
    reasons = sorted(tally["end_reasons"].items(), key=lambda item: -item[1])  # most frequent first
    n = sum(c for _, c in reasons)
    counts = np.array([c for _, c in reasons], dtype=np.int64)
    low, high = wilson_intervals(counts, n)
    end_reasons = pd.DataFrame({"end_reason": np.array([r for r, _ in reasons], dtype=object),
                                "games": counts, "rate": counts / max(n, 1), "ci_low": low, "ci_high": high})
    return {"by_seat": pd.DataFrame(by_seat), "margin": margin,
            "margin_counts": hist_table(tally["margin"], "margin"),
            "length": hist_distribution(tally["turns"]),
            "length_counts": hist_table(tally["turns"], "turns"), "end_reasons": end_reasons}


def pass_timing_from(tally: dict[str, Any]) -> pd.DataFrame:
    """When players pass out of the game (R-8), per seat, from a (merged) `flow_tally`: ``seat, n``
    (player-games), ``passed``, ``never_passed_rate`` with ``ci_low, ci_high`` (Wilson; the game ended with
    every chit gained first), and the turn of passing among those who passed (game-wide turn index):
    ``mean_out_turn, sd_out_turn, q25_out_turn, median_out_turn, q75_out_turn``."""
    out_turn: Hist = tally["out_turn"]
    rows = []
    for seat, n in enumerate(tally["seat_games"]):
        n, never = int(n), int(tally["never_passed"][seat])
        low, high = wilson_intervals(never, n)
        d = hist_distribution(out_turn.group(seat)) if seat < out_turn.counts.shape[0] else \
            hist_distribution(Hist(0, np.zeros(1, dtype=np.int64)))
        rows.append({"seat": seat, "n": n, "passed": n - never,
                     "never_passed_rate": never / n if n else np.nan,
                     "ci_low": float(low), "ci_high": float(high), "mean_out_turn": d["mean"],
                     "sd_out_turn": d["sd"], "q25_out_turn": d["q25"], "median_out_turn": d["median"],
                     "q75_out_turn": d["q75"]})
    return pd.DataFrame(rows)


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


def lead_changes_of_batch(out: dict[str, np.ndarray]) -> np.ndarray:
    """Each game's lead changes from a batch's arrays (sim.kamakura.batch.run_batch: its events, turn,
    seat, kind and chit, and each game's chits, whose points a gain adds), counted as
    `lead_changes_per_game` counts them from the logs, without the tables: explore's `lead_changes`
    measure."""
    games = len(out["n_events"])
    n = np.asarray(out["n_events"])
    keep = np.arange(out["events"].shape[1])[None, :] < n[:, None]
    ev = out["events"][keep]  # (rows, 4): turn, seat, kind, chit, in play order
    game = np.repeat(np.arange(games, dtype=np.int32), n)
    gain = (ev[:, 2] == GAIN_EVENT) & (ev[:, 3] >= 0) & (ev[:, 0] >= 0)
    game, ev = game[gain], ev[gain]
    points = out["chits"][game, ev[:, 3], 1].astype(np.int64)
    return _lead_changes_block(game, ev[:, 1].astype(np.int64), ev[:, 0].astype(np.int64),
                               np.clip(points, 0, None), games)


def run_lead_changes(own: dict[str, Any]) -> dict[str, Any]:
    """A run's lead changes per game (`lead_changes_from` of its flow tally), from Kamakura's half of its
    merged report tally."""
    return lead_changes_from(own["flow"])


def lead_changes_from(tally: dict[str, Any]) -> dict[str, Any]:
    """Summary of lead changes per game (``lead_changes_per_game``), from a (merged) `flow_tally` made with
    the events: ``n, mean, sd, ci_low, ci_high, min, q25, median, q75, max, zero_rate`` and ``counts``
    (DataFrame ``lead_changes, games, share``)."""
    h: Hist = tally["lead_changes"]
    summary = hist_distribution(h)
    summary["zero_rate"] = hist_count(h, 0) / summary["n"] if summary["n"] else float("nan")
    summary["counts"] = hist_table(h, "lead_changes")
    return summary
