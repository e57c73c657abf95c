"""How often do ties decide the game, and would another tie-break change the seat balance? Tie counts
(top score shared, decided by the tie-break, shared wins) with Wilson 95% intervals, and seat win rates
re-scored from the logged final scores under every tie-break rule: Kamakura's R-9 rules
(`rescore_kamakura_ties`) and Sakura's R-14 rules (`rescore_sakura_ties`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from analysis._columns import _floats, _ints, _rate_row
from analysis._frames import _bools, _player_games
from analysis.stats import wilson_intervals

#: Tie-break rules of R-9, in the order reports show them.
KAMAKURA_TIE_RULES: tuple[str, ...] = ("last_in_order", "first_in_order", "shared")

#: Sakura tie-break rules (R-14), in the order reports show them.
SAKURA_TIE_RULES: tuple[str, ...] = ("closest_to_emperor", "shared")


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner.

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    n = len(games)
    out: dict[str, Any] = {"n": n}
    columns = {"top_tied": _bools(games["tie"]),
               "decided_by_tiebreak": _bools(games["decided_by_tiebreak"]),
               "shared_win": games["winner"].isna().to_numpy(dtype=bool)}
    for name, mask in columns.items():
        count = int(mask.sum())
        low, high = wilson_intervals(count, n)
        out[name] = count
        out[f"{name}_rate"] = count / n if n else float("nan")
        out[f"{name}_ci_low"] = float(low)
        out[f"{name}_ci_high"] = float(high)
    return out


def sakura_tie_stats(games: pd.DataFrame) -> dict:
    """How often the top score is tied and how often the tie-break decided the winner. The
    game-independent `tie_stats` (keys n, top_tied, top_tied_rate, top_tied_ci_low,
    top_tied_ci_high, decided_by_tiebreak, decided_by_tiebreak_rate, decided_by_tiebreak_ci_low,
    decided_by_tiebreak_ci_high, shared_win, shared_win_rate, shared_win_ci_low, shared_win_ci_high; Wilson
    95%) plus decided_share_of_ties (decided / tied; NaN without ties)."""
    out = tie_stats(games)
    out["decided_share_of_ties"] = (out["decided_by_tiebreak"] / out["top_tied"] if out["top_tied"]
                                    else float("nan"))
    return out


def rescore_kamakura_ties(players: pd.DataFrame, rules: Iterable[str] = KAMAKURA_TIE_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores under each tie-break rule (R-9), ignoring the
    logged ``win_share``: ``last_in_order`` (the highest seat among those with the top score wins),
    ``first_in_order`` (the lowest), ``shared`` (each of k tied players gets 1/k).

    Long format, one row per (rule, seat): ``rule, seat, games, wins, win_rate, ci_low, ci_high``."""
    pg = _player_games(players)
    k = pg.seats
    score = np.nan_to_num(pg.score, nan=-np.inf)
    top = np.maximum.reduceat(score, pg.starts)
    is_top = score == top[pg.game]
    n_top = np.add.reduceat(is_top.astype(np.int64), pg.starts)
    games = np.bincount(pg.seat, minlength=k)
    rows = []
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
                             f"expected one of {', '.join(KAMAKURA_TIE_RULES)}")
        wins = np.bincount(pg.seat, weights=share, minlength=k)
        low, high = wilson_intervals(wins, games)
        with np.errstate(divide="ignore", invalid="ignore"):
            rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(k), "games": games, "wins": wins,
                                      "win_rate": wins / games, "ci_low": low, "ci_high": high}))
    return pd.concat(rows, ignore_index=True)


def _seat_matrix(players: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The players table as (games, seats) float arrays per column (NaN where a seat is missing)."""
    gid = _ints(players["game_id"])
    seat = _ints(players["seat"])
    order = np.lexsort((seat, gid)) if len(gid) and np.any(
        (gid[1:] < gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] <= seat[:-1]))) else np.arange(len(gid))
    gid, seat = gid[order], seat[order]
    seats = np.unique(seat)
    width = len(seats)
    regular = (width > 0 and len(gid) % width == 0
               and np.array_equal(seat.reshape(-1, width), np.broadcast_to(seats, (len(gid) // width, width)))
               and bool(np.all(gid.reshape(-1, width) == gid.reshape(-1, width)[:, :1])))
    if regular:
        return seats, {c: _floats(players[c])[order].reshape(-1, width) for c in columns}
    _, game_pos = np.unique(gid, return_inverse=True)
    seat_pos = np.searchsorted(seats, seat)
    out = {}
    for c in columns:
        m = np.full((int(game_pos.max()) + 1 if len(game_pos) else 0, width), np.nan)
        m[game_pos, seat_pos] = _floats(players[c])[order]
        out[c] = m
    return seats, out


def rescore_sakura_ties(players: pd.DataFrame, rules: tuple[str, ...] = SAKURA_TIE_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share.
    `closest_to_emperor` (R-14): among the players tied on the top score the one whose painter stands
    highest on the path wins; if they all stand on the gate (position 0) they share. `shared`: every
    player tied on top gets 1/k. (The court painter never wins and is not in the players table.)
    One row per rule and seat, as rescore_kamakura_ties: rule, seat (0-based), games, wins
    (summed re-scored win share), win_rate, ci_low, ci_high (Wilson 95%)."""
    seats, m = _seat_matrix(players, ["score", "position"])
    score, position = m["score"], m["position"]
    present = ~np.isnan(score)
    top = np.max(np.where(present, score, -np.inf), axis=1, keepdims=True) if score.size else score
    tied = present & (score == top)
    rows = []
    for rule in rules:
        if rule == "shared":
            win = tied.astype(float)
        elif rule == "closest_to_emperor":
            pos = np.where(tied, np.nan_to_num(position, nan=0.0), -1.0)
            best = pos.max(axis=1, keepdims=True) if pos.size else pos
            win = (tied & (pos == best)).astype(float)  # all on the gate: every tied player, else one
        else:
            raise ValueError(f"unknown Sakura tie-break rule {rule!r}; known: {', '.join(SAKURA_TIE_RULES)}")
        share = win / np.maximum(win.sum(axis=1, keepdims=True), 1.0)
        for j, seat in enumerate(seats):
            n = int(present[:, j].sum())
            wins = float(share[:, j].sum())
            rows.append({"rule": rule, "seat": int(seat), "games": n, "wins": wins, **_rate_row(wins, n)})
    return pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high"])
