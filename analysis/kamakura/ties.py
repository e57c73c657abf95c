"""Would another tie-break change Kamakura's seat balance? Seat win rates re-scored from the logged final
scores under every tie-break rule of R-9 (the engine's `sim.kamakura.spec.TIE_BREAKS`). How often ties
decide a game is the game-independent `analysis.ties.tie_stats`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, player_games
from analysis.stats import mean_interval, wilson_intervals
from analysis.tally import SHARE_SCALE, mean_sd, share_units
from sim.kamakura.params import TIE_BREAKS

#: Tie-break rules of R-9, in the order reports show them.
TIE_RULES: tuple[str, ...] = TIE_BREAKS


def win_shares(score: np.ndarray, columns: dict[str, np.ndarray] | None = None,
               rule: str = "last_in_order") -> np.ndarray:
    """Each seat's win share under tie-break `rule` (R-9) from a (games, seats) score matrix (NaN: no such
    seat): ``last_in_order``, the highest tied seat wins; ``first_in_order``, the lowest; ``shared``, 1/k
    each; R-20 ``last_to_play``, the tied seat whose own last turn came latest, from
    ``columns["last_turn"]`` (games, seats), the logged turn of each seat's final `end` or `pass` (the
    other rules need nothing but the scores). Re-scores a bonus too (analysis.causal_values: point
    equivalents; analysis.handicaps)."""
    present = ~np.isnan(score)
    s = np.where(present, score, -np.inf)
    top = s.max(axis=1, keepdims=True) if s.size else s
    tied = present & (s == top)
    seats = np.arange(score.shape[1])
    if rule == "shared":
        win = tied.astype(float)
        return np.where(present, win / np.maximum(win.sum(axis=1, keepdims=True), 1.0), np.nan)
    if rule == "last_in_order":
        chosen = np.where(tied, seats, -1).max(axis=1, keepdims=True)
    elif rule == "first_in_order":
        chosen = np.where(tied, seats, score.shape[1]).min(axis=1, keepdims=True)
    elif rule == "last_to_play":
        if not columns or "last_turn" not in columns:
            raise ValueError("re-scoring under last_to_play (R-20) needs each seat's last turn; these logs "
                             "have no last_turn column (written before it was logged)")
        last = np.where(tied, np.nan_to_num(columns["last_turn"], nan=-1.0), -np.inf)
        # the first seat with the latest last turn: two seats never finish the same turn
        chosen = np.argmax(last, axis=1)[:, None] if last.size else np.zeros((0, 1), dtype=int)
    else:
        raise ValueError(f"unknown tie-break rule {rule!r}; expected one of {', '.join(TIE_RULES)}")
    return np.where(present, (seats == chosen).astype(float), np.nan)


def rescore_tally(players: pd.DataFrame, rules: Iterable[str] = TIE_RULES,
                  reference: str | None = None) -> dict[str, Any]:
    """What `rescore_ties_from` needs of some games, as whole numbers (analysis.tally): per seat its
    games; per rule each seat's re-scored win-share sum, and the sum and square sum of its per-game change
    against `reference` (default: the first rule), in 1/SHARE_SCALE."""
    pg = player_games(players)
    k = pg.seats
    score = np.full((len(pg.game_ids), k), np.nan)
    score[pg.game, pg.seat] = pg.score
    columns = None
    if "last_turn" in players.columns:
        columns = {"last_turn": np.full((len(pg.game_ids), k), np.nan)}
        columns["last_turn"][pg.game, pg.seat] = floats(pg.frame["last_turn"])
    # logs written before R-20's column re-score under the other rules only
    rules = [rule for rule in rules if columns is not None or rule != "last_to_play"]
    reference = reference or rules[0]
    matrices = {rule: share_units(win_shares(score, columns, rule)) for rule in rules}
    if reference not in matrices:
        raise ValueError(f"reference rule {reference!r} is not among the re-scored rules {list(matrices)}")
    base = matrices[reference]
    return {"seat_games": np.bincount(pg.seat, minlength=k).astype(np.int64), "reference": {reference},
            "rules": {rule: {"units": m.sum(axis=0), "change": (m - base).sum(axis=0),
                             "change_squares": ((m - base) ** 2).sum(axis=0)}
                      for rule, m in matrices.items()}}


def rescore_ties_from(tally: dict[str, Any], order: Iterable[str] = TIE_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores under each tie-break rule (R-9), ignoring the
    logged ``win_share``, from a (merged) `rescore_tally`, the rules in `order`: ``last_in_order`` (the
    highest seat among those with the top score wins), ``first_in_order`` (the lowest), ``shared`` (each of
    k tied players gets 1/k), ``last_to_play`` (R-20: the one whose logged ``last_turn`` is latest; left out
    for logs without that column).

    Long format, one row per (rule, seat): ``rule, seat, games, wins, win_rate, ci_low, ci_high``, and the
    change against the tally's reference rule (a report's: the run's configured rule): ``win_rate_change,
    change_ci_low, change_ci_high``, paired over the games: the mean of the per-game changes with its
    normal 95% interval, from their sum and square sum."""
    games = tally["seat_games"]
    k = len(games)
    rows = []
    for rule in [r for r in order if r in tally["rules"]]:
        t = tally["rules"][rule]
        wins = t["units"] / SHARE_SCALE
        low, high = wilson_intervals(wins, games)
        moments = [mean_sd(int(games[s]), int(t["change"][s]), int(t["change_squares"][s]), SHARE_SCALE)
                   for s in range(k)]
        mean = np.array([m for m, _ in moments])
        c_low, c_high = mean_interval(mean, np.array([sd for _, sd in moments]), games)
        with np.errstate(divide="ignore", invalid="ignore"):
            rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(k), "games": games, "wins": wins,
                                      "win_rate": wins / games, "ci_low": low, "ci_high": high,
                                      "win_rate_change": mean, "change_ci_low": c_low,
                                      "change_ci_high": c_high}))
    return pd.concat(rows, ignore_index=True)
