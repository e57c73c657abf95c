"""Kamakura balance statistics, computed from a run's tables alone (docs/reference/run-directory.md):
the Kamakura functions of the question modules, for `analysis.kamakura.report` and callers that ask for
"everything about Kamakura" (``from analysis import kamakura; kamakura.chit_values_from(...)``).

Each question lives in its own module: seats in the game-independent `analysis.seats`, how often ties
decide in `analysis.ties`, the tie re-scoring under every R-9 rule in `analysis.kamakura.ties`, chits and
powers in `analysis.kamakura.chit_values`, scores, passing and lead changes in
`analysis.kamakura.game_flow`; the report sections in `analysis.kamakura.report` (Kamakura's
`GameAnalysis.sections`). Each figure the report shows has a ``*_tally`` (what some games add, whole numbers
that merge exactly: analysis.tally) and a ``*_from`` (the figure from a merged tally): a figure of some
tables held whole is the ``*_from`` of their ``*_tally``, one chunk. All are pure functions: DataFrames in,
DataFrames or dicts out; nothing is printed or written. Every rate comes with its n and a Wilson 95%
interval, every difference with a normal 95% interval. Seats are 0-based as in the tables (seat 0 is the
start player, "seat 1" in docs/rules.md prose).
"""

from __future__ import annotations

from analysis.kamakura.chit_values import (
    COLOURS,
    POWERS,
    chit_tally,
    chit_types,
    chit_values_from,
    component_values_from,
    power_tally,
    power_values_from,
)
from analysis.kamakura.game_flow import (
    flow_tally,
    lead_changes_from,
    lead_changes_per_game,
    pass_timing_from,
    score_stats_from,
)
from analysis.kamakura.ties import TIE_RULES, rescore_tally, rescore_ties_from

__all__ = [
    "COLOURS",
    "POWERS",
    "TIE_RULES",
    "chit_tally",
    "chit_types",
    "chit_values_from",
    "component_values_from",
    "flow_tally",
    "lead_changes_from",
    "lead_changes_per_game",
    "pass_timing_from",
    "power_tally",
    "power_values_from",
    "rescore_tally",
    "rescore_ties_from",
    "score_stats_from",
]
