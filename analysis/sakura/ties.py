"""Ties in Sakura: how often the top is tied and the tie-break decided (the game-independent
`analysis.ties.tie_stats` plus the decided share of ties), and seat win rates re-scored from the logged
final scores and painter positions under every tie-break rule of R-14 (the engine's
`sim.sakura.spec.TIE_BREAKS`) and, for two-player runs, under both readings of R-23 (court_can_win):
the court painter never wins, or it competes with the players from its logged final tokens and position
(games.parquet `court_tokens`, `court_position`). A rule under R-23 is named with the suffix
``+court_can_win`` (`COURT_CAN_WIN`), e.g. ``shared+court_can_win``; `run_rule` gives a run's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import bools, floats, ints, seat_matrix
from analysis.sakura._columns import _rate_row
from analysis.stats import wilson_intervals
from analysis.ties import rule_changes
from analysis.ties import tie_stats as _tie_stats
from sim.sakura.spec import TIE_BREAKS

#: Sakura tie-break rules (R-14), in the order reports show them.
TIE_RULES: tuple[str, ...] = TIE_BREAKS
#: The suffix of a re-scoring rule under R-23 (court_can_win: the court painter competes for the win).
COURT_CAN_WIN = "+court_can_win"
#: Every re-scoring rule of a two-player run whose logs hold the court painter's final tokens and position.
COURT_RULES: tuple[str, ...] = TIE_RULES + tuple(rule + COURT_CAN_WIN for rule in TIE_RULES)


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is tied and how often the tie-break decided the winner. The
    game-independent `analysis.ties.tie_stats` (keys n, top_tied, top_tied_rate, top_tied_ci_low,
    top_tied_ci_high, decided_by_tiebreak, decided_by_tiebreak_rate, decided_by_tiebreak_ci_low,
    decided_by_tiebreak_ci_high, shared_win, shared_win_rate, shared_win_ci_low, shared_win_ci_high; Wilson
    95%) plus decided_share_of_ties (decided / tied; NaN without ties). A shared win is a tie the
    tie-break did not decide: under R-23 a game the court painter won alone also has no `winner`, but it
    was not shared."""
    out = _tie_stats(games)
    shared = bools(games["tie"]) & ~bools(games["decided_by_tiebreak"])
    n = len(games)
    low, high = wilson_intervals(int(shared.sum()), n)
    out.update(shared_win=int(shared.sum()), shared_win_rate=shared.sum() / n if n else float("nan"),
               shared_win_ci_low=float(low), shared_win_ci_high=float(high))
    out["decided_share_of_ties"] = (out["decided_by_tiebreak"] / out["top_tied"] if out["top_tied"]
                                    else float("nan"))
    return out


def run_rule(rules: Any) -> str:
    """The re-scoring rule a run was played under (its validated `SakuraRules`): its tie_break (R-14),
    with `COURT_CAN_WIN` appended for a two-player run under R-23."""
    return rules.tie_break + (COURT_CAN_WIN if rules.players == 2 and rules.court_can_win else "")


def _split(rule: str) -> tuple[str, bool]:
    """(tie-break, court_can_win) of a re-scoring rule name; ValueError for an unknown one."""
    base, court = (rule[:-len(COURT_CAN_WIN)], True) if rule.endswith(COURT_CAN_WIN) else (rule, False)
    if base not in TIE_RULES:
        known = ", ".join(COURT_RULES)
        raise ValueError(f"unknown Sakura re-scoring rule {rule!r}; known: {known}")
    return base, court


def _per_game(values: np.ndarray, games: int) -> np.ndarray:
    """A per-game column given as (games,) or as (games, seats) repeating it in every seat's column (as
    analysis.values broadcasts re-scoring columns to the seats)."""
    values = np.asarray(values, dtype=float)
    return values[:, 0] if values.ndim == 2 else values.reshape(games)


def shares_with_court(score: np.ndarray, columns: dict[str, np.ndarray],
                      rule: str = "closest_to_emperor") -> tuple[np.ndarray, np.ndarray]:
    """(seat win shares (games, seats), the court painter's (games,)) under re-scoring `rule`, from
    (games, seats) tokens (NaN: no such seat) and ``columns["painter_at"]``, the painters' final path
    indices. R-14 `closest_to_emperor`: among those tied on the top the one standing highest wins, all on
    the gate (0) share; `shared`: 1/k each. Under ``+court_can_win`` (R-23) the court painter competes
    like a third player, from ``columns["court_tokens"]`` and ``columns["court_at"]`` (per game; NaN where
    there is no court painter, which then changes nothing); otherwise it never wins (share 0)."""
    tie_break, court = _split(rule)
    games = score.shape[0]
    court_share = np.zeros(games)
    if court:
        if "court_tokens" not in columns or "court_at" not in columns:
            raise ValueError(f"re-scoring rule {rule!r} needs the court painter's final tokens and position "
                             "(columns court_tokens and court_at)")
        court_score = _per_game(columns["court_tokens"], games)
        court_at = _per_game(columns["court_at"], games)
        score = np.column_stack([score, court_score])
        at = np.column_stack([columns["painter_at"], court_at])
    else:
        at = columns["painter_at"]
    present = ~np.isnan(score)
    top = np.max(np.where(present, score, -np.inf), axis=1, keepdims=True) if score.size else score
    tied = present & (score == top)
    if tie_break == "shared":
        win = tied.astype(float)
    else:
        pos = np.where(tied, np.nan_to_num(at, nan=0.0), -1.0)
        best = pos.max(axis=1, keepdims=True) if pos.size else pos
        win = (tied & (pos == best)).astype(float)  # all on the gate: every tied painter, else one
    shares = np.where(present, win / np.maximum(win.sum(axis=1, keepdims=True), 1.0), np.nan)
    if court:
        court_share = np.nan_to_num(shares[:, -1])
        shares = shares[:, :-1]
    return shares, court_share


def win_shares(score: np.ndarray, columns: dict[str, np.ndarray],
               rule: str = "closest_to_emperor") -> np.ndarray:
    """Each seat's win share under re-scoring `rule` (R-14; ``+court_can_win``: R-23), as
    `shares_with_court` gives it. Re-scores a bonus too (analysis.values: token equivalents, seat
    handicaps)."""
    return shares_with_court(score, columns, rule)[0]


def court_columns(players: pd.DataFrame, games: pd.DataFrame | None) -> dict[str, np.ndarray] | None:
    """The court painter's final tokens and position per game, in the game order of `seat_matrix`
    (sorted game ids): ``{"court_tokens", "court_at"}``, or None when `games` does not log both (3-6
    players, or logs written before `court_position` was logged) or logs no court painter."""
    if games is None or not {"court_tokens", "court_position"} <= set(games.columns):
        return None
    order = np.argsort(ints(games["game_id"]), kind="stable")
    tokens, at = floats(games["court_tokens"])[order], floats(games["court_position"])[order]
    if np.isnan(tokens).all():
        return None
    ids = np.unique(ints(players["game_id"]))
    if not np.array_equal(ints(games["game_id"])[order], ids):
        raise ValueError("the games and players tables hold different games")
    return {"court_tokens": tokens, "court_at": at}


def rescore_ties(players: pd.DataFrame, rules: tuple[str, ...] | None = None,
                 reference: str | None = None, games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share.
    `closest_to_emperor` (R-14): among the players tied on the top score the one whose painter stands
    highest on the path wins; if they all stand on the gate (position 0) they share. `shared`: every
    player tied on top gets 1/k. With a two-player run's `games` table holding the court painter's final
    tokens and position, the rules (default) also include each under R-23 (``+court_can_win``: the court
    painter competes like a third player), and those rules have a row for the court painter itself, seat
    = players as in the logs; otherwise the court painter never wins and has no row.
    One row per rule and seat, as every game's re-scoring: rule, seat (0-based), games, wins
    (summed re-scored win share), win_rate, ci_low, ci_high (Wilson 95%), and `analysis.ties.rule_changes`
    against `reference` (default: the first rule; a run's own: `run_rule`): win_rate_change,
    change_ci_low, change_ci_high (paired: the same games)."""
    seats, m = seat_matrix(players, ["score", "position"])
    score = m["score"]
    court = court_columns(players, games)
    if rules is None:
        rules = COURT_RULES if court is not None else TIE_RULES
    columns = {"painter_at": m["position"], **(court or {})}
    present = ~np.isnan(score)
    rows = []
    matrices: dict[str, np.ndarray] = {}
    labels = [int(s) for s in seats]
    for rule in rules:
        share, court_share = shares_with_court(score, columns, rule)
        share = np.nan_to_num(share)
        for j, seat in enumerate(labels):
            n = int(present[:, j].sum())
            wins = float(share[:, j].sum())
            rows.append({"rule": rule, "seat": seat, "games": n, "wins": wins, **_rate_row(wins, n)})
        if court is not None:  # the court painter's column: its own win share (0 unless R-23)
            share = np.column_stack([share, court_share])
            if _split(rule)[1]:
                n = int((~np.isnan(court["court_tokens"])).sum())
                wins = float(court_share.sum())
                rows.append({"rule": rule, "seat": len(labels), "games": n, "wins": wins,
                             **_rate_row(wins, n)})
        matrices[rule] = np.where(np.column_stack([present, np.ones(len(score), bool)])
                                  if court is not None else present, share, np.nan)
    table = pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high"])
    changes = rule_changes(matrices, reference or rules[0])
    ids = np.array(labels + ([len(labels)] if court is not None else []), dtype=int)
    changes["seat"] = ids[changes["seat"].to_numpy()] if len(ids) else changes["seat"]
    return table.merge(changes, on=["rule", "seat"], sort=False)


def court_win_rate(players: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """The court painter's own win rate as logged in a run under R-23 (court_can_win), in the form of
    `analysis.sakura.seat_win_rates` (seat = players, as in the logs): per game it holds what the seats'
    logged win shares leave of the game's one win. ``seat, games, wins, win_rate, ci_low, ci_high,
    mean_tokens`` (Wilson 95%; mean final tokens from games.court_tokens)."""
    seats, m = seat_matrix(players, ["win_share"])
    court = np.clip(1.0 - np.nansum(m["win_share"], axis=1), 0.0, 1.0)
    court[np.abs(court) < 1e-6] = 0.0  # float32 shares of a seat win: no court share
    wins = float(court.sum())
    n = len(court)
    tokens = floats(games["court_tokens"]) if "court_tokens" in games else np.full(n, np.nan)
    return pd.DataFrame([{"seat": len(seats), "games": n, "wins": wins, **_rate_row(wins, n),
                          "mean_tokens": float(np.nanmean(tokens)) if np.isfinite(tokens).any()
                          else float("nan")}])
