"""A run's report figures by parts (docs/howto/scale.md): every chunk's tally (analysis.tally) computed from
that chunk's parts alone, cached beside them (analysis.parts), merged exactly, and the figures read off the
merged tally, so memory holds one chunk a job whatever the run's size.

A run's tally has two halves, and a third when the game can re-score a seat's bonus:
- ``common``: what every game logs (games and players tables): the seats' tally (`analysis.seats.seat_tally`:
  win shares, scores, agents and the seats' per-game cross-products), ties (`analysis.ties.tie_tally`) and
  length;
- ``game``: the game's own figures, from its registry entry (`GameAnalysis.tally`: chits, cards,
  powers, the tie-break re-scoring, lead changes ...);
- ``handicap``: each seat's re-scored share at every whole bonus (`run_handicap_tally`).

`RunTally` stands where a `Run` stood in the report sections: it has the run's path, manifest and rules, its
number of games, and the tally instead of the tables. The common figures read off ``common`` are
`analysis.seats`' and `analysis.ties`' (imported here too, for the modules that read them with the run).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import seat_matrix
from analysis.game_analysis import analysis_of
from analysis.handicaps import handicap_tally, seats_decide
from analysis.parts import Kind, run_stats
from analysis.runs import run_snapshot, spec_of
from analysis.seats import (
    fair_share,
    seat_equality_test,
    seat_tally,
    seat_tests,
    seat_win_rates,
    start_player_advantage,
)
from analysis.tallied_run import RunTally
from analysis.tally import REPORT_VERSION, hist
from analysis.ties import tie_stats, tie_tally
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from storage.run_record import RunManifest

__all__ = ["REPORT", "RunTally", "common_tally", "fair_share", "read_run_tally", "report_tally",
           "seat_equality_test", "seat_tests", "seat_win_rates", "start_player_advantage", "tie_stats"]


# ---- one chunk ------------------------------------------------------------------------------------------
def common_tally(games: pd.DataFrame, players: pd.DataFrame, length: str) -> dict[str, Any]:
    """What every game's report needs of one chunk's games and players tables, as whole numbers: the seats'
    tally (`analysis.seats.seat_tally`: games; per seat its player-games, win-share sum and square sum in
    1/SHARE_SCALE, a histogram of its scores and its agents; the seats' per-game share cross-products; per
    agent its seat-games and the sum and square sum of its per-game share; games per player count); ties,
    games the tie-break decided and games with no single winner (`analysis.ties.tie_tally`); the histogram
    of the length column."""
    return {**seat_tally(players), "ties": tie_tally(games),
            "length": hist(games[length].to_numpy(dtype=float, na_value=np.nan))}


def report_tally(frames: dict[str, pd.DataFrame], manifest: RunManifest,
                 spec: GameSpec | None = None) -> dict[str, Any]:
    """One chunk's whole tally: the common half, the game's own (`GameAnalysis.tally`, handed the run's
    validated rules: `GameSpec.rules` validates a config once in a process) and the seats' handicap sums.
    `spec` is the run's game; a chunk worker (analysis.parts), which receives the manifest alone, looks it up
    from the manifest (analysis.runs.spec_of)."""
    if spec is None:
        spec = spec_of(manifest.game)
    out: dict[str, Any] = {"common": common_tally(frames["games"], frames["players"],
                                                  spec.vocabulary.length)}
    game_tally = analysis_of(spec).tally
    if game_tally is not None:
        rules = spec.rules(manifest.config, manifest.players, "manifest.json")
        out["game"] = game_tally(frames["games"], frames["players"], frames["events"], manifest, rules)
    handicap = run_handicap_tally(frames["players"], manifest, spec)
    if handicap is not None:
        out["handicap"] = handicap
    return out


#: the report's chunk statistics (analysis.parts): cached as summaries/report-<start>-<end>.json
REPORT = Kind("report", ("games", "players", "events"), report_tally, REPORT_VERSION)


def read_run_tally(run_dir: str | os.PathLike[str], allow_partial: bool = False, jobs: int = 1,
                   backend: str = "loky", cache: bool = True) -> RunTally:
    """A run's merged tally over one consistent snapshot of its chunks (analysis.runs.run_snapshot), the
    chunks tallied in parallel (`jobs`, joblib's loky or dask backend) and cached beside the parts; with the
    tallies of its first games at the looks its manifest records (`RunTally.looks`)."""
    snap = run_snapshot(run_dir, allow_partial)
    cuts: dict[int, Any] = dict.fromkeys(snap.manifest.looks)
    tally, read = run_stats(snap.path, snap.ranges, REPORT, snap.manifest, jobs=jobs, backend=backend,
                            cache=cache, cuts=cuts)
    if tally is None:
        raise ConfigError(f"{run_dir}: the run has no finished games yet")
    games = int(tally["common"]["games"])
    looks = [cuts[n] for n in sorted(cuts) if cuts[n] is not None and n < games]
    return RunTally(path=snap.path, manifest=snap.manifest, spec=spec_of(snap.manifest.game), tally=tally,
                    parts_read=read, ranges=list(snap.ranges), looks=looks)


def run_handicap_tally(players: pd.DataFrame, manifest: RunManifest, spec: GameSpec) -> dict[str, Any] | None:
    """`handicap_tally` of some games of a self-play run (its players table and manifest); None for a game
    without a re-scoring rule, or a run its seats' scores do not decide (`seats_decide`)."""
    study = spec.values
    rules = spec.rules(manifest.config, manifest.players, "manifest.json")
    shares = analysis_of(spec).win_shares
    if study is None or shares is None or not len(players) or not seats_decide(rules):
        return None
    names = study.columns_in(players.columns)
    _, m = seat_matrix(players, ["score", *names])
    return handicap_tally(m["score"], {names[k]: m[k] for k in names}, shares, rules.tie_break)
