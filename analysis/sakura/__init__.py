"""Sakura balance statistics, computed from a run's logged tables alone (docs/reference/run-directory.md): the
Sakura functions of the question modules, for `analysis.sakura.report` and callers that ask for "everything
about Sakura" (``from analysis import sakura; sakura.card_values_from(...)``).

Each question lives in its own module: seats in the game-independent `analysis.seats` (the report names
their mean score Sakura's tokens), ties in `analysis.sakura.ties` (``tie_stats_from`` adds the decided share
of ties to `analysis.ties.tie_stats`; ``rescore_ties_from`` re-scores under every R-14 rule and, with two
players, both readings of R-23), card and action values in `analysis.sakura.card_values`, bumps, sakura
scoring and game length in `analysis.sakura.game_flow`; the report sections in `analysis.sakura.report` (the
`GameAnalysis.sections`). The report reads a run by parts (docs/howto/scale.md): each figure X is
``X_from(X_tally(tables...))``, where ``X_tally`` is what one chunk of games adds (whole numbers, merged
exactly by `analysis.tally.merge`) and ``X_from`` reads the figure off a merged tally; the figure of some
tables held whole is the ``X_from`` of their ``X_tally``, one chunk. Seats are 0-based as in the tables
(seat 0 is the start player, "seat 1" in docs/rules.md prose). In two-player games the neutral court
painter is logged with `seat = players`; it never wins (unless court_can_win, R-23) and is left out of every
per-player figure (card values, win rates) but counted where painters are (bumps, sakura scoring) and,
under R-23, shown beside the seats with its own win rate. The action ids and the starting tokens are the
engine's (`sim.sakura.params`, `sim.sakura.kernels`).
"""

from __future__ import annotations

from analysis.sakura._columns import CHUNK
from analysis.sakura.card_values import (
    action_tally,
    action_values_from,
    card_tally,
    card_values_from,
    component_values_from,
)
from analysis.sakura.game_flow import (
    bump_stats_from,
    bump_tally,
    round_stats_from,
    round_tally,
    sakura_tokens_from,
    sakura_tokens_tally,
)
from analysis.sakura.ties import (
    COURT_RULES,
    TIE_RULES,
    court_tally,
    court_win_rate_from,
    rescore_tally,
    rescore_ties_from,
    run_rule,
    tie_stats_from,
    tie_tally,
)
from sim.sakura.kernels import START_TOKENS
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS

__all__ = [
    "CHUNK",
    "COURT_RULES",
    "GARDEN_ACTIONS",
    "PAINTER_ACTIONS",
    "START_TOKENS",
    "TIE_RULES",
    "action_tally",
    "action_values_from",
    "bump_stats_from",
    "bump_tally",
    "card_tally",
    "card_values_from",
    "component_values_from",
    "court_tally",
    "court_win_rate_from",
    "rescore_tally",
    "rescore_ties_from",
    "round_stats_from",
    "round_tally",
    "run_rule",
    "sakura_tokens_from",
    "sakura_tokens_tally",
    "tie_stats_from",
    "tie_tally",
]
