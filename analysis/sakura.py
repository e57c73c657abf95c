"""Sakura balance statistics, computed from a run's logged tables alone (API.md, "Run directory"): the
Sakura functions of the question modules under their historical names, for `analysis.report_sakura` and
callers that ask for "everything about Sakura".

Each question lives in its own module: seats in `analysis.seats` (``seat_win_rates`` below renames its
mean score to Sakura's tokens), ties in `analysis.ties` (``tie_stats`` and ``rescore_ties`` here are
`analysis.ties.sakura_tie_stats` and `analysis.ties.rescore_sakura_ties`), card and action values in
`analysis.card_values`, bumps, sakura scoring and game length in `analysis.sakura_play`. Seats are 0-based
as in the tables (seat 0 is the start player, "seat 1" in RULES.md prose). In two-player games the neutral
court painter is logged with `seat = players`; it never wins and is left out of every per-player figure
(card values, win rates, tie re-scoring) but counted where painters are (bumps, sakura scoring).
"""

from __future__ import annotations

import pandas as pd

from analysis import seats as _seats
from analysis._columns import CHUNK
from analysis.card_values import GARDEN_ACTIONS, PAINTER_ACTIONS, action_values, card_values
from analysis.sakura_play import START_TOKENS, bump_stats, round_stats, sakura_tokens
from analysis.ties import SAKURA_TIE_RULES, rescore_sakura_ties, sakura_tie_stats

TIE_RULES = SAKURA_TIE_RULES
tie_stats = sakura_tie_stats
rescore_ties = rescore_sakura_ties

__all__ = [
    "CHUNK",
    "GARDEN_ACTIONS",
    "PAINTER_ACTIONS",
    "START_TOKENS",
    "TIE_RULES",
    "action_values",
    "bump_stats",
    "card_values",
    "rescore_ties",
    "round_stats",
    "sakura_tokens",
    "seat_win_rates",
    "tie_stats",
]


def seat_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    """One row per seat (0-based): seat, games, wins (summed win share under the run's configured tie-break),
    win_rate, Wilson 95% ci_low/ci_high, mean_tokens (mean final tokens). The game-independent
    `analysis.seats.seat_win_rates`, with its mean_score named for Sakura's tokens."""
    return _seats.seat_win_rates(players).rename(columns={"mean_score": "mean_tokens"})
