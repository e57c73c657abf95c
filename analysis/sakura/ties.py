"""Ties in Sakura: how often the top is tied and the tie-break decided (the game-independent
`analysis.ties.tie_stats` plus the decided share of ties), and seat win rates re-scored from the logged
final scores and painter positions under every tie-break rule of R-14 (the engine's
`sim.sakura.spec.TIE_BREAKS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, ints
from analysis.sakura._columns import _rate_row
from analysis.ties import rule_changes
from analysis.ties import tie_stats as _tie_stats
from sim.sakura.spec import TIE_BREAKS

#: Sakura tie-break rules (R-14), in the order reports show them.
TIE_RULES: tuple[str, ...] = TIE_BREAKS


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is tied and how often the tie-break decided the winner. The
    game-independent `analysis.ties.tie_stats` (keys n, top_tied, top_tied_rate, top_tied_ci_low,
    top_tied_ci_high, decided_by_tiebreak, decided_by_tiebreak_rate, decided_by_tiebreak_ci_low,
    decided_by_tiebreak_ci_high, shared_win, shared_win_rate, shared_win_ci_low, shared_win_ci_high; Wilson
    95%) plus decided_share_of_ties (decided / tied; NaN without ties)."""
    out = _tie_stats(games)
    out["decided_share_of_ties"] = (out["decided_by_tiebreak"] / out["top_tied"] if out["top_tied"]
                                    else float("nan"))
    return out


def _seat_matrix(players: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The players table as (games, seats) float arrays per column (NaN where a seat is missing)."""
    gid = ints(players["game_id"])
    seat = ints(players["seat"])
    order = np.lexsort((seat, gid)) if len(gid) and np.any(
        (gid[1:] < gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] <= seat[:-1]))) else np.arange(len(gid))
    gid, seat = gid[order], seat[order]
    seats = np.unique(seat)
    width = len(seats)
    regular = (width > 0 and len(gid) % width == 0
               and np.array_equal(seat.reshape(-1, width), np.broadcast_to(seats, (len(gid) // width, width)))
               and bool(np.all(gid.reshape(-1, width) == gid.reshape(-1, width)[:, :1])))
    if regular:
        return seats, {c: floats(players[c])[order].reshape(-1, width) for c in columns}
    _, game_pos = np.unique(gid, return_inverse=True)
    seat_pos = np.searchsorted(seats, seat)
    out = {}
    for c in columns:
        m = np.full((int(game_pos.max()) + 1 if len(game_pos) else 0, width), np.nan)
        m[game_pos, seat_pos] = floats(players[c])[order]
        out[c] = m
    return seats, out


def rescore_ties(players: pd.DataFrame, rules: tuple[str, ...] = TIE_RULES,
                 reference: str | None = None) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share.
    `closest_to_emperor` (R-14): among the players tied on the top score the one whose painter stands
    highest on the path wins; if they all stand on the gate (position 0) they share. `shared`: every
    player tied on top gets 1/k. (The court painter never wins and is not in the players table.)
    One row per rule and seat, as every game's re-scoring: rule, seat (0-based), games, wins
    (summed re-scored win share), win_rate, ci_low, ci_high (Wilson 95%), and `analysis.ties.rule_changes`
    against `reference` (default: the first rule): win_rate_change, change_ci_low, change_ci_high."""
    seats, m = _seat_matrix(players, ["score", "position"])
    score, position = m["score"], m["position"]
    present = ~np.isnan(score)
    top = np.max(np.where(present, score, -np.inf), axis=1, keepdims=True) if score.size else score
    tied = present & (score == top)
    rows = []
    matrices: dict[str, np.ndarray] = {}
    for rule in rules:
        if rule == "shared":
            win = tied.astype(float)
        elif rule == "closest_to_emperor":
            pos = np.where(tied, np.nan_to_num(position, nan=0.0), -1.0)
            best = pos.max(axis=1, keepdims=True) if pos.size else pos
            win = (tied & (pos == best)).astype(float)  # all on the gate: every tied player, else one
        else:
            raise ValueError(f"unknown Sakura tie-break rule {rule!r}; known: {', '.join(TIE_RULES)}")
        share = win / np.maximum(win.sum(axis=1, keepdims=True), 1.0)
        matrices[rule] = np.where(present, share, np.nan)
        for j, seat in enumerate(seats):
            n = int(present[:, j].sum())
            wins = float(share[:, j].sum())
            rows.append({"rule": rule, "seat": int(seat), "games": n, "wins": wins, **_rate_row(wins, n)})
    table = pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high"])
    changes = rule_changes(matrices, reference or rules[0])
    changes["seat"] = seats[changes["seat"].to_numpy()].astype(int) if len(seats) else changes["seat"]
    return table.merge(changes, on=["rule", "seat"], sort=False)
