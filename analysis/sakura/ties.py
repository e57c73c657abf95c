"""Ties in Sakura: how often the top is tied and the tie-break decided (the game-independent
`analysis.ties.tie_stats` plus the decided share of ties), and seat win rates re-scored from the logged
final scores and painter positions under every tie-break rule of R-14 (the engine's
`sim.sakura.spec.TIE_BREAKS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import seat_matrix
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


def win_shares(score: np.ndarray, columns: dict[str, np.ndarray],
               rule: str = "closest_to_emperor") -> np.ndarray:
    """Each seat's win share under tie-break `rule` (R-14) from (games, seats) tokens (NaN: no such seat)
    and ``columns["painter_at"]``, the painters' final path indices: `closest_to_emperor`, among the
    players tied on the top the one standing highest wins, all on the gate (0) share; `shared`, 1/k each.
    Re-scores a bonus too (analysis.values: token equivalents, seat handicaps)."""
    present = ~np.isnan(score)
    top = np.max(np.where(present, score, -np.inf), axis=1, keepdims=True) if score.size else score
    tied = present & (score == top)
    if rule == "shared":
        win = tied.astype(float)
    elif rule == "closest_to_emperor":
        pos = np.where(tied, np.nan_to_num(columns["painter_at"], nan=0.0), -1.0)
        best = pos.max(axis=1, keepdims=True) if pos.size else pos
        win = (tied & (pos == best)).astype(float)  # all on the gate: every tied player, else one
    else:
        raise ValueError(f"unknown Sakura tie-break rule {rule!r}; known: {', '.join(TIE_RULES)}")
    return np.where(present, win / np.maximum(win.sum(axis=1, keepdims=True), 1.0), np.nan)


def rescore_ties(players: pd.DataFrame, rules: tuple[str, ...] = TIE_RULES,
                 reference: str | None = None) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share.
    `closest_to_emperor` (R-14): among the players tied on the top score the one whose painter stands
    highest on the path wins; if they all stand on the gate (position 0) they share. `shared`: every
    player tied on top gets 1/k. (The court painter never wins and is not in the players table.)
    One row per rule and seat, as every game's re-scoring: rule, seat (0-based), games, wins
    (summed re-scored win share), win_rate, ci_low, ci_high (Wilson 95%), and `analysis.ties.rule_changes`
    against `reference` (default: the first rule): win_rate_change, change_ci_low, change_ci_high."""
    seats, m = seat_matrix(players, ["score", "position"])
    score = m["score"]
    present = ~np.isnan(score)
    rows = []
    matrices: dict[str, np.ndarray] = {}
    for rule in rules:
        matrices[rule] = win_shares(score, {"painter_at": m["position"]}, rule)
        share = np.nan_to_num(matrices[rule])
        for j, seat in enumerate(seats):
            n = int(present[:, j].sum())
            wins = float(share[:, j].sum())
            rows.append({"rule": rule, "seat": int(seat), "games": n, "wins": wins, **_rate_row(wins, n)})
    table = pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high"])
    changes = rule_changes(matrices, reference or rules[0])
    changes["seat"] = seats[changes["seat"].to_numpy()].astype(int) if len(seats) else changes["seat"]
    return table.merge(changes, on=["rule", "seat"], sort=False)
