"""A model-search trial's games (sim/design/model_search.py): played in chunks, on this machine (joblib's
loky) or a Dask cluster, and kept as exact integer sufficient statistics (games, each seat's win shares in
1/SHARE_SCALE, length sums), so chunks combine exactly in any order and a trial's stages are stored whole
in the study file."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from joblib import Parallel, delayed, parallel_config

from analysis.seats import win_shares
from sim.core.agent_spec import agent_arrays
from sim.core.game_spec import GameSpec
from sim.core.rng import game_seeds
from sim.design.component_balance import SHARE_SCALE
from sim.design.racing import standing
from sim.design.tune_file import Target
from storage.backends import StudyCluster, close_dask, connect_dask


# ---- games --------------------------------------------------------------------------------------------
def play_batch(spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, start: int,
               count: int) -> dict[str, Any]:
    """The game's run_batch arrays of games start .. start+count-1 of a candidate (their seeds depend on
    the seed and the game's number alone, so every candidate plays the same games)."""
    seating, params = agent_arrays([list(agents)], spec)
    return spec.run_batch(rules, game_seeds(seed, start, count), seating[0], params[0])


def batch_stats(spec: GameSpec, batch: dict[str, Any], players: int) -> dict[str, Any]:
    """A batch's exact sufficient statistics: games, each seat's win shares in 1/SHARE_SCALE, length sums."""
    shares = win_shares(batch["winners"], batch.get("other_winners"))[:, :players]
    lengths = np.asarray(batch[spec.vocabulary.length], dtype=np.int64)
    return {"games": len(lengths), "wins": [int(x) for x in np.rint(shares * SHARE_SCALE).sum(axis=0)],
            "length_sum": int(lengths.sum()), "length_sq": int((lengths * lengths).sum())}


def play_chunk(spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, start: int,
               count: int) -> dict[str, Any]:
    """Games start .. start+count-1 of a candidate, as exact sufficient statistics (a worker)."""
    batch = play_batch(spec, rules, agents, seed, start, count)
    return batch_stats(spec, batch, len(agents))


def merge(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """Two sets of sufficient statistics of disjoint games, combined exactly."""
    if not a:
        return dict(b)
    return {"games": a["games"] + b["games"],
            "wins": [x + y for x, y in zip(a["wins"], b["wins"], strict=True)],
            "length_sum": a["length_sum"] + b["length_sum"], "length_sq": a["length_sq"] + b["length_sq"]}


def figures(stats: dict[str, Any], target: Target, confidence: float):
    """The race's Standing of a candidate from its statistics (objective with bounds, length)."""
    n = stats["games"]
    mean = stats["length_sum"] / n
    var = (stats["length_sq"] - n * mean * mean) / (n - 1) if n > 1 else math.inf
    wins = [w / SHARE_SCALE for w in stats["wins"]]
    return standing("", wins, n, target, confidence, length=(mean, math.sqrt(max(var, 0.0))))


class GamePool:
    """Plays a candidate's games in ``jobs`` chunks (joblib's loky, or its dask backend), one pool for the
    whole tune. `cluster`: a study's Dask cluster (storage.backends.StudyCluster), played on whatever
    `backend` says, asked for its client at the first game played on it (a study that plays nothing starts
    no LocalCluster) and left open at `close` for the study's other stages."""

    def __init__(self, jobs: int, backend: str = "loky", scheduler: str | None = None,
                 cluster: StudyCluster | None = None) -> None:
        self.jobs = jobs
        self.backend = "dask" if cluster is not None else backend
        self._parallel = None
        self._client = None
        self._cluster = cluster
        if cluster is None and backend == "dask":
            self._client = connect_dask(scheduler, jobs)  # the runner's: a LocalCluster, or --scheduler
        elif cluster is None and jobs > 1:
            self._parallel = Parallel(n_jobs=jobs, backend="loky")
            self._parallel.__enter__()  # one pool of workers for the whole tune

    def play(self, spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, start: int, count: int,
             worker: Callable[..., dict[str, Any]] | None = None,
             combine: Callable[[dict[str, Any] | None, dict[str, Any]], dict[str, Any]] | None = None,
             smallest: int = 100) -> dict[str, Any]:
        """Games (or, with `worker`, base games of another study) start .. start+count-1, in up to `jobs`
        chunks of at least `smallest`; their statistics combined in game order."""
        worker, combine = worker or play_chunk, combine or merge
        if (self._parallel is None and self.backend != "dask") or count < 2 * smallest:
            return worker(spec, rules, agents, seed, start=start, count=count)
        pieces = min(self.jobs, count // smallest)
        bounds = [start + count * k // pieces for k in range(pieces + 1)]
        tasks = (delayed(worker)(spec, rules, agents, seed, start=a, count=b - a)
                 for a, b in zip(bounds, bounds[1:], strict=False))
        if self.backend == "dask":
            if self._client is None and self._cluster is not None:
                self._client = self._cluster.client()
            with parallel_config(backend="dask", client=self._client):
                parts = Parallel(n_jobs=pieces)(tasks)
        else:
            parts = self._parallel(tasks)
        total = None
        for part in parts:  # in game order: the sums are exact integers anyway
            total = combine(total, part)
        return total

    def close(self) -> None:
        if self._parallel is not None:
            self._parallel.__exit__(None, None, None)
        if self._client is not None and self._cluster is None:
            close_dask(self._client)  # and the LocalCluster it started
