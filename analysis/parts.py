"""A run's figures by parts (issue 18): each chunk's sufficient statistics, computed from that chunk's parts
alone, cached beside them, and combined exactly, so memory is bounded by one part whatever the run's size.

A chunk's statistics are whole numbers (win shares are multiples of 1/SHARE_SCALE, so a seat's share sums
and squares are too; scores and lengths are integers), so the combination does not depend on the order or
grouping of the parts: any --jobs, backend or cache state gives the same figures.

Two kinds (`run_stats`): ``summary`` (`balance summary`: `summary_of_part`) and ``report`` (every report
figure: `analysis.run_tally.report_tally`, merged by `analysis.tally.merge`). The cache:
``summaries/<kind>-<start>-<end>.json`` in the run directory, holding the statistics and the key of the
parts they came from (each table's part size and modification time, and the chunk's integrity record,
storage/run_parts.py). A part replaced (a damaged chunk quarantined and played again) or a run played on
changes the key or adds parts, so a report reads only the chunks whose statistics it does not hold.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from storage.run_dir import SUMMARIES as CACHE

SHARE_SCALE = 420  # lcm(1..7): a 1/k share of a win, k <= 7 winners, is a whole number of 1/420ths
SUMMARY_VERSION = 1
_TABLES = ("games", "players")


# ---- one chunk ------------------------------------------------------------------------------------------
def summary_of_part(games: pd.DataFrame, players: pd.DataFrame, length: str) -> dict[str, Any]:
    """The sufficient statistics of `balance summary` over one chunk's games and players tables: games,
    ties, length sum and square sum; per seat its games, win-share sum and square sum (in 1/SHARE_SCALE)
    and score sum, and the agents that sat there; per agent its seat-games and the sum and square sum of
    its per-game win share; the games per player count (the fair share is the mean of 1 / players)."""
    from analysis._arrays import player_games

    pg = player_games(players)
    units = np.rint(pg.share * SHARE_SCALE).astype(np.int64)
    k = pg.seats
    seat_games = np.bincount(pg.seat, minlength=k)
    seat_sum = np.bincount(pg.seat, weights=units, minlength=k).astype(np.int64)
    seat_sq = np.bincount(pg.seat, weights=units * units, minlength=k).astype(np.int64)
    seat_score = np.bincount(pg.seat, weights=pg.score, minlength=k).astype(np.int64)
    agent_names = pg.frame["agent"].astype(str).to_numpy()
    seats: dict[str, list] = {}
    for seat in range(k):
        seats[str(seat)] = [int(seat_games[seat]), int(seat_sum[seat]), int(seat_sq[seat]),
                            int(seat_score[seat]), sorted(set(agent_names[pg.seat == seat]))]
    agents: dict[str, list[int]] = {}
    for agent in sorted(set(agent_names)):
        mine = agent_names == agent
        per_game = np.bincount(pg.game[mine], weights=units[mine], minlength=len(pg.game_ids))
        per_game = per_game.astype(np.int64)
        agents[agent] = [int(mine.sum()), int(per_game.sum()), int((per_game * per_game).sum())]
    lengths = games[length].to_numpy(dtype=np.int64)
    sizes, counts = np.unique(pg.sizes, return_counts=True)
    return {"games": len(pg.game_ids), "ties": int(games["tie"].to_numpy(dtype=bool).sum()),
            "length": [int(lengths.sum()), int((lengths * lengths).sum())], "seats": seats,
            "agents": agents, "sizes": {str(int(s)): int(c) for s, c in zip(sizes, counts, strict=True)}}


def merge_summaries(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """The statistics of two disjoint sets of games, combined exactly."""
    if not a:
        return json.loads(json.dumps(b))

    def add(x: list, y: list) -> list:
        return [sorted(set(p) | set(q)) if isinstance(p, list) else p + q for p, q in zip(x, y, strict=True)]

    out = {"games": a["games"] + b["games"], "ties": a["ties"] + b["ties"],
           "length": add(a["length"], b["length"]), "seats": dict(a["seats"]), "agents": dict(a["agents"]),
           "sizes": dict(a["sizes"])}
    for name in ("seats", "agents"):
        for key, value in b[name].items():
            out[name][key] = add(out[name][key], value) if key in out[name] else value
    for size, count in b["sizes"].items():
        out["sizes"][size] = out["sizes"].get(size, 0) + count
    return out


# ---- a chunk's statistics of each kind, cached -----------------------------------------------------------
def _summary_stats(frames: dict[str, pd.DataFrame], manifest: dict) -> dict[str, Any]:
    from sim import games

    return summary_of_part(frames["games"], frames["players"], games.spec(manifest["game"]).vocabulary.length)


def _report_stats(frames: dict[str, pd.DataFrame], manifest: dict) -> dict[str, Any]:
    # by name: analysis.run_tally reads runs through this module, which must not import it back
    return importlib.import_module("analysis.run_tally").report_tally(frames, manifest)


def _kinds() -> dict[str, dict[str, Any]]:
    """Each kind of chunk statistics: the tables it reads, how one chunk's are computed, merged, stored
    and read back, and its version (a cached entry of another version is recomputed)."""
    from analysis import tally

    return {"summary": {"tables": _TABLES, "of": _summary_stats, "merge": merge_summaries,
                        "dumps": json.dumps, "loads": json.loads, "version": SUMMARY_VERSION},
            "report": {"tables": ("games", "players", "events"), "of": _report_stats, "merge": tally.merge,
                       "dumps": tally.dumps, "loads": tally.loads,
                       "version": tally.REPORT_VERSION}}


def part_key(run: Path, start: int, end: int, record: dict[str, int] | None,
             tables: tuple[str, ...] = _TABLES, version: int = SUMMARY_VERSION) -> dict[str, Any]:
    """What a chunk's cached statistics must match: each table's part (size, modification time) and the
    chunk's integrity record."""
    from storage.run_parts import part_name

    key: dict[str, Any] = {"version": version, "record": record}
    for table in tables:
        stat = (run / f"{table}.parquet" / part_name(start, end)).stat()
        key[table] = [stat.st_size, stat.st_mtime_ns]
    return key


def chunk_stats(run: str, start: int, end: int, kind: str, manifest: dict, record: dict[str, int] | None,
                cache: bool = True) -> tuple[str, bool]:
    """One chunk's statistics of `kind` ("summary", "report"), from its cache when the key matches, else
    from its parts (and cached): (the statistics as stored, whether the parts were read). A worker: reads
    one chunk, holds nothing else, and returns text, which every backend carries alike."""
    from analysis.runs import read_part

    how = _kinds()[kind]
    path = Path(run)
    key = part_key(path, start, end, record, how["tables"], how["version"])
    cached = path / CACHE / f"{kind}-{start:010d}-{end:010d}.json"
    held = cached_stats(cached, key) if cache else None
    if held is not None:
        return held, False
    frames = {t: read_part(path, t, start, end) for t in how["tables"]}
    text = how["dumps"](how["of"](frames, manifest))
    if cache:
        store_stats(cached, key, text)
    return text, True


def cached_stats(cached: Path, key: dict[str, Any]) -> str | None:
    """The statistics stored at `cached` (as text) when its key is `key`; None when there are none, they
    are another key's, or the file cannot be read (it is then recomputed)."""
    if not cached.is_file():
        return None
    try:
        held = json.loads(cached.read_text())
        return json.dumps(held["stats"]) if held.get("key") == key else None
    except (OSError, json.JSONDecodeError, KeyError):
        return None


def store_stats(cached: Path, key: dict[str, Any], text: str) -> None:
    """Store statistics (text) under their key, atomically; a read-only run is only not cached."""
    try:
        cached.parent.mkdir(exist_ok=True)
        tmp = cached.with_name(f".tmp-{os.getpid()}-{cached.name}")
        tmp.write_text(f'{{"key": {json.dumps(key)}, "stats": {text}}}')
        os.replace(tmp, cached)
    except OSError:
        pass


# ---- a run ----------------------------------------------------------------------------------------------
def run_stats(run_dir: str | os.PathLike[str], ranges: list[tuple[int, int]], kind: str, manifest: dict,
              jobs: int = 1, backend: str = "loky", cache: bool = True) -> tuple[Any, int]:
    """The run's statistics of `kind` over the chunks `ranges` (read_run's consistent snapshot), chunks in
    parallel with `jobs` (joblib's loky, or its dask backend on the runner's client): (statistics merged
    in game order, parts read). The statistics are whole numbers, so any grouping gives the same."""
    from joblib import Parallel, delayed

    from storage.run_parts import read_records

    how = _kinds()[kind]
    path = Path(run_dir)
    records = read_records(path)
    tasks = [delayed(chunk_stats)(os.fspath(path), a, b, kind, manifest, records.get((a, b)), cache)
             for a, b in sorted(ranges)]
    if jobs > 1 and len(tasks) > 1:
        from storage.backends import parallel_backend

        with parallel_backend(backend, jobs):
            return _combine(Parallel(n_jobs=jobs, return_as="generator")(tasks), how)
    return _combine((task[0](*task[1], **task[2]) for task in tasks), how)


def _combine(results: Any, how: dict[str, Any]) -> tuple[Any, int]:
    """Merge chunk statistics as they arrive, so the parent holds one merged tally and one chunk's."""
    total, read = None, 0
    for text, was_read in results:
        total = how["merge"](total, how["loads"](text))
        read += was_read
    return total, read


def run_summary(run_dir: str | os.PathLike[str], ranges: list[tuple[int, int]], manifest: dict,
                jobs: int = 1, backend: str = "loky",
                cache: bool = True) -> tuple[dict[str, Any] | None, int]:
    """The run's `balance summary` statistics over the chunks `ranges` (`run_stats` of kind "summary")."""
    return run_stats(run_dir, ranges, "summary", manifest, jobs, backend, cache)
