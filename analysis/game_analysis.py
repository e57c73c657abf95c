"""What the analysis layer knows of each game, registered by the game's own analysis package: its report
sections, what one chunk of games adds to its report tally, each component's worth from that tally, its
re-scoring of win shares from the seats' scores, and how often the lead changes hands. Each
`analysis/<game>/entry.py` names them (the fields of `GameAnalysis`); `analysis_of` finds it by the game's
registry name, so the engine beneath (sim/<game>/) refers to nothing of the analysis, and no generic module
names a game.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import Any

from sim.core.game_spec import GameSpec


@dataclass(frozen=True)
class GameAnalysis:
    """A game's own figures."""

    #: the runs of one game by label -> (its report sections, per-run summaries)
    sections: Callable[..., tuple[list, list]]
    #: (games, players, events, manifest, the run's validated rules) of one chunk -> the game's mergeable
    #: report tally (analysis.tally)
    tally: Callable[..., dict] | None = None
    #: (the game's half of a run's merged report tally, config) -> each component's worth, one row per item
    component_values: Callable[..., Any] | None = None
    #: (scores (games, seats), the columns `ValuesStudy.player_columns` names, tie-break rule) -> win
    #: shares: games re-scored with a bonus (point equivalents, seat handicaps); None: the game has none
    win_shares: Callable[..., Any] | None = None
    #: (a batch's arrays, the game's `run_batch`) -> each game's lead changes, as its report counts them
    #: (explore's `lead_changes` measure); None: the game's batch keeps no score after each turn
    lead_changes: Callable[[dict], Any] | None = None
    #: (the game's half of a run's merged report tally) -> its lead changes per game: n, mean, ci_low, ci_high
    run_lead_changes: Callable[[dict], dict] | None = None


@cache
def _entry(game: str) -> GameAnalysis:
    entry = importlib.import_module(f"analysis.{game}.entry")
    return GameAnalysis(**{name.name: getattr(entry, name.name, None) for name in fields(GameAnalysis)})


def analysis_of(spec: GameSpec) -> GameAnalysis:
    """The analysis entry of a registered game."""
    return _entry(spec.name)
