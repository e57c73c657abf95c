"""Ties in Sakura: how often the top is tied and the tie-break decided (the game-independent
`analysis.ties.tie_stats` plus the decided share of ties), and seat win rates re-scored from the logged
final scores and painter positions under every tie-break rule of R-14 (the engine's
`sim.sakura.spec.TIE_BREAKS`) and, for two-player runs, under both readings of R-23 (court_can_win):
the court painter never wins, or it competes with the players from its logged final tokens and position
(games.parquet `court_tokens`, `court_position`). A rule under R-23 is named with the suffix
``+court_can_win`` (`COURT_CAN_WIN`), e.g. ``shared+court_can_win``; `run_rule` gives a run's own.
Each figure is computed from whole-number tallies (`tie_tally`, `rescore_tally`, `court_tally`, win shares
in 1/SHARE_SCALE, mergeable across chunks of games) by `tie_stats_from`, `rescore_ties_from`,
`court_win_rate_from`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import bools, floats, ints, seat_matrix
from analysis.sakura._columns import _rate_row
from analysis.stats import mean_interval
from analysis.tally import SHARE_SCALE, mean_sd, share_units
from analysis.ties import count_rates
from sim.sakura.params import TIE_BREAKS

#: Sakura tie-break rules (R-14), in the order reports show them.
TIE_RULES: tuple[str, ...] = TIE_BREAKS
#: The suffix of a re-scoring rule under R-23 (court_can_win: the court painter competes for the win).
COURT_CAN_WIN = "+court_can_win"
#: Every re-scoring rule of a two-player run whose logs hold the court painter's final tokens and position.
COURT_RULES: tuple[str, ...] = TIE_RULES + tuple(rule + COURT_CAN_WIN for rule in TIE_RULES)


def tie_tally(games: pd.DataFrame) -> dict[str, Any]:
    """What `tie_stats_from` needs of some games, as whole numbers: games, and the games whose top is
    tied, that the tie-break decided, and that were shared wins (tied, not decided)."""
    tied, decided = bools(games["tie"]), bools(games["decided_by_tiebreak"])
    return {"games": len(games), "counts": np.array([int(tied.sum()), int(decided.sum()),
                                                     int((tied & ~decided).sum())], dtype=np.int64)}


def tie_stats_from(tally: dict[str, Any]) -> dict[str, Any]:
    """How often the top score is tied and how often the tie-break decided the winner, from a (merged)
    `tie_tally`: the keys of the game-independent `analysis.ties.tie_stats` (n, top_tied, top_tied_rate,
    top_tied_ci_low, top_tied_ci_high, decided_by_tiebreak, decided_by_tiebreak_rate,
    decided_by_tiebreak_ci_low, decided_by_tiebreak_ci_high, shared_win, shared_win_rate,
    shared_win_ci_low, shared_win_ci_high; Wilson 95%) plus decided_share_of_ties (decided / tied; NaN
    without ties). A shared win is a tie the tie-break did not decide: under R-23 a game the court painter
    won alone also has no `winner`, but it was not shared."""
    out = count_rates(int(tally["games"]), dict(zip(("top_tied", "decided_by_tiebreak", "shared_win"),
                                                    tally["counts"], strict=True)))
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
    analysis.causal_values broadcasts re-scoring columns to the seats)."""
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
    `shares_with_court` gives it. Re-scores a bonus too (analysis.causal_values: token equivalents, seat
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


def rescore_tally(players: pd.DataFrame, rules: tuple[str, ...] | None = None,
                  reference: str | None = None, games: pd.DataFrame | None = None) -> dict[str, Any]:
    """What `rescore_ties_from` needs of some games, as whole numbers (analysis.tally): games; per seat
    (seats 0..P-1, then the court painter's column when `games` logs it) its games; the court painter's
    games (those logging its tokens); and per rule the games re-scored, each column's re-scored win-share
    sum, and the sum and square sum of its per-game change against `reference` (default: the first
    rule), in 1/SHARE_SCALE. `rules` default to every rule the tables can be re-scored under (R-23's too
    when `games` logs the court painter)."""
    seats, m = seat_matrix(players, ["score", "position"])
    score = m["score"]
    court = court_columns(players, games)
    if rules is None:
        rules = COURT_RULES if court is not None else TIE_RULES
    columns = {"painter_at": m["position"], **(court or {})}
    present = ~np.isnan(score)
    units: dict[str, np.ndarray] = {}
    for rule in rules:
        share, court_share = shares_with_court(score, columns, rule)
        matrix = share_units(share)
        if court is not None:  # the court painter's column: its own win share (0 unless R-23)
            matrix = np.column_stack([matrix, share_units(court_share)])
        units[rule] = matrix
    reference = reference or rules[0]
    if reference not in units:
        raise ValueError(f"reference rule {reference!r} is not among the re-scored rules {list(units)}")
    base = units[reference]
    n = len(score)
    return {"games": n, "seat_games": present.sum(axis=0).astype(np.int64),
            "court_games": int((~np.isnan(court["court_tokens"])).sum()) if court is not None else 0,
            "reference": {reference},
            "rules": {rule: {"games": n, "units": u.sum(axis=0), "change": (u - base).sum(axis=0),
                             "change_squares": ((u - base) ** 2).sum(axis=0)}
                      for rule, u in units.items()}}


def rescore_ties_from(tally: dict[str, Any], order: tuple[str, ...] = COURT_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share,
    from a (merged) `rescore_tally`, the rules in `order` (a rule some of the games were not re-scored
    under is left out). `closest_to_emperor` (R-14): among the players tied on the top score the one whose
    painter stands highest on the path wins; if they all stand on the gate (position 0) they share.
    `shared`: every player tied on top gets 1/k. A tally of a two-player run's games whose `games` table
    holds the court painter's final tokens and position also has each rule under R-23 (``+court_can_win``:
    the court painter competes like a third player), and those rules have a row for the court painter
    itself, seat = players as in the logs; otherwise the court painter never wins and has no row.
    One row per rule and seat, as every game's re-scoring: rule, seat (0-based), games, wins (summed
    re-scored win share), win_rate, ci_low, ci_high (Wilson 95%), and the change against the tally's
    reference rule (a report's: the run's own, `run_rule`): win_rate_change, change_ci_low, change_ci_high
    (paired: the same games; the mean of the per-game changes with its normal 95% interval, from their sum
    and square sum, `analysis.tally.mean_sd`)."""
    if len(tally["reference"]) != 1:
        raise ValueError(f"the games were re-scored against different rules: {sorted(tally['reference'])}")
    n = int(tally["games"])
    seat_games = tally["seat_games"]
    k = len(seat_games)
    rows = []

    def row(rule: str, seat: int, games: int, t: dict[str, np.ndarray], paired: int) -> dict[str, Any]:
        wins = int(t["units"][seat]) / SHARE_SCALE
        mean, sd = mean_sd(paired, int(t["change"][seat]), int(t["change_squares"][seat]), SHARE_SCALE)
        low, high = mean_interval(mean, sd, paired)
        return {"rule": rule, "seat": seat, "games": games, "wins": wins, **_rate_row(wins, games),
                "win_rate_change": mean, "change_ci_low": float(low), "change_ci_high": float(high)}

    for rule in [r for r in order if r in tally["rules"] and int(tally["rules"][r]["games"]) == n]:
        t = tally["rules"][rule]
        rows += [row(rule, j, int(seat_games[j]), t, int(seat_games[j])) for j in range(k)]
        if _split(rule)[1]:  # under R-23 the court painter's own row (seat = players, as in the logs)
            rows.append(row(rule, k, int(tally["court_games"]), t, n))
    return pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high",
                                       "win_rate_change", "change_ci_low", "change_ci_high"])


def court_tally(players: pd.DataFrame, games: pd.DataFrame) -> dict[str, Any]:
    """What `court_win_rate_from` needs of some games, as whole numbers: games, the seats, the court
    painter's win share (what the seats' logged shares leave of each game's one win, in 1/SHARE_SCALE),
    and the sum and count of its logged final tokens."""
    seats, m = seat_matrix(players, ["win_share"])
    court = np.clip(SHARE_SCALE - share_units(m["win_share"]).sum(axis=1), 0, SHARE_SCALE)
    tokens = floats(games["court_tokens"]) if "court_tokens" in games else np.zeros(0)
    logged = ~np.isnan(tokens)
    return {"games": len(court), "seats": {len(seats)}, "units": int(court.sum()),
            "tokens": int(tokens[logged].sum()), "tokens_n": int(logged.sum())}


def court_win_rate_from(tally: dict[str, Any]) -> pd.DataFrame:
    """The court painter's own win rate as logged in a run under R-23 (court_can_win), in the form of the
    seats' (`analysis.seats.seat_win_rates`; seat = players, as in the logs), from a (merged)
    `court_tally`: per game it holds what the seats' logged win shares leave of the game's one win.
    ``seat, games, wins, win_rate, ci_low, ci_high, mean_tokens`` (Wilson 95%; mean final tokens from
    games.court_tokens)."""
    n = int(tally["games"])
    wins = int(tally["units"]) / SHARE_SCALE
    logged = int(tally["tokens_n"])
    return pd.DataFrame([{"seat": max(tally["seats"]), "games": n, "wins": wins, **_rate_row(wins, n),
                          "mean_tokens": int(tally["tokens"]) / logged if logged else float("nan")}])
