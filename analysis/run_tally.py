"""A run's report figures by parts (issue 18): every chunk's tally (analysis.tally) computed from that
chunk's parts alone, cached beside them (analysis.parts), merged exactly, and the figures read off the
merged tally, so memory holds one chunk a job whatever the run's size.

A run's tally has two halves:
- ``common``: what every game logs (games and players tables): seat win shares, scores, ties, length,
  agents, and the seats' per-game cross-products;
- ``game``: the game's own figures, from its registry entry (`GameSpec.report_tally`: chits, cards,
  powers, the tie-break re-scoring, lead changes ...).

`RunTally` stands where a `Run` stood in the report sections: it has the run's path, manifest and rules, its
number of games, and the tally instead of the tables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import bools, player_games
from analysis.seats import chi_square_equal, share_tests_from_sums
from analysis.stats import wilson_intervals
from analysis.tally import SHARE_SCALE, Hist, hist, share_units
from analysis.values import run_handicap_tally
from sim import games as registry


@dataclass
class RunTally:
    """A run for the report: its manifest and its merged tally (`read_run_tally`), no table."""

    path: Path
    manifest: dict
    tally: dict
    parts_read: int = 0
    ranges: list[tuple[int, int]] = field(default_factory=list)  # the chunks tallied

    @property
    def common(self) -> dict:
        return self.tally["common"]

    @property
    def own(self) -> dict:
        """The game's own tally (`GameSpec.report_tally`)."""
        return self.tally.get("game") or {}

    @property
    def n_games(self) -> int:
        return int(self.common["games"])

    @property
    def game(self) -> str:
        return self.manifest["game"]

    @property
    def partial_note(self) -> str:
        """"partial: N of M games asked" for a run with fewer games than asked ('' when complete)."""
        asked = int(self.manifest.get("games_asked", 0) or 0)
        n = self.n_games
        return f"partial: {n:,} of {asked:,} games asked" if n < asked else ""

    @property
    def rules(self) -> Any:
        return registry.spec(self.game).rules(self.manifest["config"], self.manifest["players"],
                                              str(self.path / "manifest.json"))


# ---- one chunk ------------------------------------------------------------------------------------------
def common_tally(games: pd.DataFrame, players: pd.DataFrame, length: str) -> dict[str, Any]:
    """What every game's report needs of one chunk's games and players tables, as whole numbers: games;
    per seat its player-games, win-share sum and square sum (in 1/SHARE_SCALE), a histogram of its scores
    and its agents; the seats' per-game share cross-products; per agent its seat-games and the sum and
    square sum of its per-game share; games per player count; ties, games the tie-break decided and games
    with no single winner; the histogram of the length column."""
    pg = player_games(players)
    units = share_units(pg.share)
    k, n_games = pg.seats, len(pg.game_ids)
    matrix = np.zeros((n_games, k), dtype=np.int64)
    matrix[pg.game, pg.seat] = units
    agent_names = pg.frame["agent"].astype(str).to_numpy()
    agents: dict[str, np.ndarray] = {}
    for agent in sorted(set(agent_names)):
        mine = agent_names == agent
        per_game = np.bincount(pg.game[mine], weights=units[mine], minlength=n_games).astype(np.int64)
        agents[agent] = np.array([int(mine.sum()), int(per_game.sum()), int(per_game @ per_game)])
    sizes, counts = np.unique(pg.sizes, return_counts=True)
    return {
        "games": n_games,
        "seat_games": np.bincount(pg.seat, minlength=k).astype(np.int64),
        "seat_units": matrix.sum(axis=0), "seat_squares": (matrix * matrix).sum(axis=0),
        "seat_cross": matrix.T @ matrix,
        "score": hist(pg.score, pg.seat, k),
        "seat_agents": {str(s): set(agent_names[pg.seat == s]) for s in range(k)},
        "agents": agents,
        "sizes": {str(int(s)): int(c) for s, c in zip(sizes, counts, strict=True)},
        "ties": np.array([int(bools(games["tie"]).sum()), int(bools(games["decided_by_tiebreak"]).sum()),
                          int(games["winner"].isna().to_numpy(dtype=bool).sum())]),
        "length": hist(games[length].to_numpy(dtype=float, na_value=np.nan)),
    }


def report_tally(frames: dict[str, pd.DataFrame], manifest: dict) -> dict[str, Any]:
    """One chunk's whole tally: the common half and the game's own (`GameSpec.report_tally`)."""
    spec = registry.spec(manifest["game"])
    out: dict[str, Any] = {"common": common_tally(frames["games"], frames["players"],
                                                  spec.vocabulary.length)}
    if spec.report_tally is not None:
        out["game"] = spec.report_tally(frames["games"], frames["players"], frames["events"], manifest)
    handicap = run_handicap_tally(frames["players"], manifest)
    if handicap is not None:
        out["handicap"] = handicap
    return out


def tally_of_run(run: Any) -> RunTally:
    """The tally of tables held in memory (an `analysis.runs.Run`) as one part: what the by-parts figures
    must equal."""
    frames = {"games": run.games, "players": run.players, "events": run.events}
    ids = run.games["game_id"].to_numpy(dtype=np.int64)
    ranges = [(int(ids.min()), int(ids.max()) + 1)] if len(ids) else []
    return RunTally(run.path, run.manifest, report_tally(frames, run.manifest), 1, ranges)


def read_run_tally(run_dir: str | os.PathLike[str], allow_partial: bool = False, jobs: int = 1,
                   backend: str = "loky", cache: bool = True) -> RunTally:
    """A run's merged tally over one consistent snapshot of its chunks (analysis.runs.run_snapshot), the
    chunks tallied in parallel (`jobs`, joblib's loky or dask backend) and cached beside the parts."""
    from analysis.parts import run_stats
    from analysis.runs import run_snapshot

    snap = run_snapshot(run_dir, allow_partial)
    tally, read = run_stats(snap.path, snap.ranges, "report", snap.manifest, jobs, backend, cache)
    if tally is None:
        from sim.errors import ConfigError

        raise ConfigError(f"{run_dir}: the run has no finished games yet")
    return RunTally(snap.path, snap.manifest, tally, read, list(snap.ranges))


# ---- the common figures ---------------------------------------------------------------------------------
def fair_share(c: dict) -> float:
    """The mean over games of 1 / players: a seat's share when every seat is equal."""
    return sum(count / int(size) for size, count in c["sizes"].items()) / c["games"]


def seat_win_rates(c: dict) -> pd.DataFrame:
    """`analysis.seats.seat_win_rates` from a common tally: ``seat, games, wins, win_rate, ci_low, ci_high,
    mean_score``."""
    games = c["seat_games"]
    wins = c["seat_units"] / SHARE_SCALE
    score: Hist = c["score"]
    score_sum = score.counts @ score.values
    low, high = wilson_intervals(wins, games)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({"seat": np.arange(len(games)), "games": games, "wins": wins,
                             "win_rate": wins / games, "ci_low": low, "ci_high": high,
                             "mean_score": score_sum / games})


def seat_equality_test(c: dict) -> dict[str, Any]:
    """`analysis.seats.seat_equality_test` from a common tally."""
    return {**chi_square_equal(c["seat_units"] / SHARE_SCALE, c["seat_games"].astype(float)),
            "n": int(c["games"])}


def seat_tests(c: dict) -> pd.DataFrame:
    """`analysis.seats.seat_tests` from a common tally: ``seat, p_value, p_holm, differs``."""
    k = len(c["seat_games"])
    tests = share_tests_from_sums(int(c["games"]), c["seat_units"], c["seat_squares"], fair_share(c),
                                  SHARE_SCALE)
    return tests.assign(seat=np.arange(k))[["seat", "p_value", "p_holm", "differs"]]


def start_player_advantage(c: dict) -> dict[str, Any]:
    """`analysis.seats.start_player_advantage` from a common tally."""
    n = int(c["seat_games"][0])
    wins = c["seat_units"][0] / SHARE_SCALE
    fair = fair_share(c)
    low, high = wilson_intervals(wins, n)
    rate = wins / n if n else float("nan")
    return {"value": rate - fair, "ci_low": float(low) - fair, "ci_high": float(high) - fair, "n": n,
            "win_rate": rate, "fair_share": fair}


def tie_stats(c: dict) -> dict[str, Any]:
    """`analysis.ties.tie_stats` from a common tally."""
    from analysis.ties import count_rates

    return count_rates(int(c["games"]), dict(zip(("top_tied", "decided_by_tiebreak", "shared_win"),
                                                 c["ties"], strict=True)))
