"""`RunTally`: a run as the report sections read it (its path, manifest, game spec and merged tally, no
table), built by `analysis.run_tally.read_run_tally`. Apart from the reader so that a game's report
sections, which the registry refers to, can name the type without importing the registry back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.handicaps import handicap_table
from sim.core.game_spec import GameSpec
from storage.run_record import RunManifest


@dataclass
class RunTally:
    """A run for the report: its manifest and its merged tally (`read_run_tally`), no table."""

    path: Path
    manifest: RunManifest
    spec: GameSpec                 # the run's game
    tally: dict
    parts_read: int = 0
    ranges: list[tuple[int, int]] = field(default_factory=list)  # the chunks tallied
    #: the tallies of the run's first games at its earlier looks (manifest.looks below the games in hand,
    #: where the chunks end there), in game order: the verdicts' sequences are intersected over them
    looks: list[dict] = field(default_factory=list)

    @property
    def common(self) -> dict:
        return self.tally["common"]

    @property
    def own(self) -> dict:
        """The game's own tally (`GameAnalysis.tally`)."""
        return self.tally.get("game") or {}

    @property
    def n_games(self) -> int:
        return int(self.common["games"])

    @property
    def game(self) -> str:
        return self.manifest.game

    @property
    def partial_note(self) -> str:
        """"partial: N of M games asked" for a run with fewer games than asked ('' when complete)."""
        asked = self.manifest.games_asked
        n = self.n_games
        return f"partial: {n:,} of {asked:,} games asked" if n < asked else ""

    @property
    def rules(self) -> Any:
        return self.spec.rules(self.manifest.config, self.manifest.players,
                               str(self.path / "manifest.json"))

    @cached_property
    def handicap(self) -> pd.DataFrame | None:
        """Each seat's whole-point handicap to the fair share (`analysis.handicaps.handicap_table` of the
        tally's ``handicap``), computed once; None for a game or run without one."""
        return handicap_table(self.tally.get("handicap"), self.spec)
