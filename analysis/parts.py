"""A run's chunk statistics by parts (docs/howto/scale.md): each chunk's tally, computed from that chunk's
parts alone, cached beside them, and merged exactly (analysis.tally), so memory is bounded by one part
whatever the run's size.

A chunk's statistics are whole numbers (win shares are multiples of 1/SHARE_SCALE, so a seat's share sums
and squares are too; scores and lengths are integers), so the combination does not depend on the order or
grouping of the parts: any --jobs, backend or cache state gives the same figures.

This module stores and merges; what a chunk's statistics are is its caller's (`Kind`: the report's tally is
`analysis.run_tally.REPORT`, its only kind). The cache: ``summaries/<kind>-<start>-<end>.json`` in the run
directory, holding the statistics and the key of the parts they came from (each table's part size and
modification time, and the chunk's integrity record, storage/run_parts.py). A part replaced (a damaged
chunk quarantined and played again) or a run played on changes the key or adds parts, so a report reads
only the chunks whose statistics it does not hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from joblib import Parallel, delayed

from analysis import tally
from analysis.runs import read_part
from analysis.tally import SHARE_SCALE
from sim.core.errors import ConfigError
from sim.core.file_reads import read_regular_text
from storage.backends import parallel_backend
from storage.run_dir import SUMMARIES as CACHE
from storage.run_parts import part_name, read_records
from storage.run_record import RunManifest

__all__ = ["CACHE", "SHARE_SCALE", "Kind", "cached_stats", "chunk_stats", "part_key",
           "run_stats", "store_stats"]


@dataclass(frozen=True)
class Kind:
    """A kind of chunk statistics: its name (the cache files' prefix), the tables it reads, how one chunk's
    are computed (``of(frames, manifest)``: a tally, analysis.tally) and its version (a cached entry of
    another version is recomputed). ``of`` must be a module-level function: workers receive it by name."""

    name: str
    tables: tuple[str, ...]
    of: Callable[[dict[str, pd.DataFrame], RunManifest], Any]
    version: int


# ---- a chunk's statistics, cached -------------------------------------------------------------------------
def part_key(run: Path, start: int, end: int, record: dict[str, int] | None, kind: Kind) -> dict[str, Any]:
    """What a chunk's cached statistics of `kind` must match: its version, each of its tables' part (size,
    modification time) and the chunk's integrity record."""
    key: dict[str, Any] = {"version": kind.version, "record": record}
    for table in kind.tables:
        stat = (run / f"{table}.parquet" / part_name(start, end)).stat()
        key[table] = [stat.st_size, stat.st_mtime_ns]
    return key


def chunk_stats(run: str, start: int, end: int, *, kind: Kind, manifest: RunManifest,
                record: dict[str, int] | None, cache: bool = True) -> tuple[str, bool, str]:
    """One chunk's statistics of `kind`, from its cache when the key matches, else from its parts (and
    cached): (the statistics as stored, whether the parts were read, what was wrong with a cache file that
    could not be used: '' when it was used, absent or another key's). A worker: reads one chunk, holds
    nothing else, and returns text, which every backend carries alike."""
    path = Path(run)
    key = part_key(path, start, end, record, kind)
    cached = path / CACHE / f"{kind.name}-{start:010d}-{end:010d}.json"
    held, problem = _cached(cached, key) if cache else (None, "")
    if held is not None:
        return held, False, ""
    frames = {t: read_part(path, t, start, end) for t in kind.tables}
    text = tally.dumps(kind.of(frames, manifest))
    if cache:
        store_stats(cached, key, text)
    return text, True, problem


#: the largest cache entry read (one holds a chunk's statistics: tens of kilobytes)
MAX_CACHE_BYTES = 64 * 2**20


def _digest(stats: Any) -> str:
    """The digest of statistics as JSON holds them: a cache file's integrity record."""
    return hashlib.sha256(json.dumps(stats).encode()).hexdigest()


def _cached(cached: Path, key: dict[str, Any]) -> tuple[str | None, str]:
    """(the statistics stored at `cached` as text, or None; what is wrong with the file, '' when nothing
    is: it is absent, another key's or an older format, all recomputed without a word)."""
    if not cached.exists():
        return None, ""
    try:  # only a regular file, within a size: a FIFO or /dev/zero put there would be read for ever
        held = json.loads(read_regular_text(cached, "cache entry", MAX_CACHE_BYTES))
        if not isinstance(held, dict) or not {"key", "stats"} <= held.keys():
            return None, "not a cache entry"
        if held["key"] != key or "digest" not in held:
            return None, ""
        if held["digest"] != _digest(held["stats"]):
            return None, "its statistics do not match their digest"
        text = json.dumps(held["stats"])
        tally.loads(text)  # statistics that do not decode are recomputed, not handed to the report
        return text, ""
    except ConfigError as err:  # not a regular file, or too large
        return None, str(err).split(": ", 1)[-1]
    except (OSError, ValueError, RecursionError) as err:  # ValueError: JSON, UTF-8
        return None, f"unreadable ({getattr(err, 'strerror', None) or type(err).__name__})"
    except (TypeError, KeyError, AttributeError, IndexError):
        return None, "statistics that do not decode"


def cached_stats(cached: Path, key: dict[str, Any]) -> str | None:
    """The statistics stored at `cached` (as text) when its key is `key` and they match their digest;
    None when there are none, they are another key's, or the file cannot be read (it is then
    recomputed)."""
    return _cached(cached, key)[0]


def store_stats(cached: Path, key: dict[str, Any], text: str) -> None:
    """Store statistics (text) under their key and digest, atomically; a read-only run is only not cached."""
    try:
        cached.parent.mkdir(exist_ok=True)
        tmp = cached.with_name(f".tmp-{os.getpid()}-{cached.name}")
        digest = _digest(json.loads(text))
        tmp.write_text(f'{{"key": {json.dumps(key)}, "digest": "{digest}", "stats": {text}}}')
        os.replace(tmp, cached)
    except OSError:
        pass


# ---- a run ----------------------------------------------------------------------------------------------
def run_stats(run_dir: str | os.PathLike[str], ranges: list[tuple[int, int]], kind: Kind,
              manifest: RunManifest, jobs: int = 1, backend: str = "loky", cache: bool = True,
              cuts: dict[int, Any] | None = None) -> tuple[Any, int]:
    """The run's statistics of `kind` over the chunks `ranges` (read_run's consistent snapshot), chunks in
    parallel with `jobs` (joblib's loky, or its dask backend on the runner's client): (statistics merged
    in game order, parts read). The statistics are whole numbers, so any grouping gives the same.
    `cuts`: game counts (its keys) at which the statistics of the first games are wanted too; each one the
    chunks end at exactly gets them as its value (the others stay None)."""
    path = Path(run_dir)
    records = read_records(path)
    tasks = [delayed(chunk_stats)(os.fspath(path), a, b, kind=kind, manifest=manifest,
                                  record=records[(a, b)].rows if (a, b) in records else None, cache=cache)
             for a, b in sorted(ranges)]
    ends = prefix_ends(sorted(ranges))
    if jobs > 1 and len(tasks) > 1:
        with parallel_backend(backend, jobs):
            return _combine(Parallel(n_jobs=jobs, return_as="generator")(tasks), path, ends, cuts)
    return _combine((task[0](*task[1], **task[2]) for task in tasks), path, ends, cuts)


def prefix_ends(ranges: list[tuple[int, int]]) -> list[int | None]:
    """For each chunk in game order, the games 0..b-1 it completes, or None where the chunks so far leave
    a gap (their merged statistics are then not those of the first games)."""
    out: list[int | None] = []
    covered = 0
    for a, b in ranges:
        covered = b if covered == a else -1
        out.append(b if covered >= 0 else None)
    return out


def _combine(results: Any, run: Path, ends: list[int | None] | None = None,
             cuts: dict[int, Any] | None = None) -> tuple[Any, int]:
    """Merge chunk statistics as they arrive (in game order), so the parent holds one merged tally and one
    chunk's; where the merged chunks end at a key of `cuts`, the merged tally so far is its value (merging
    makes new objects, so it stays as it was). Cache files that could not be used (and were recomputed
    from the logs) are said on stderr, in one line."""
    total, read, problems = None, 0, []
    for i, (text, was_read, problem) in enumerate(results):
        total = tally.merge(total, tally.loads(text))
        read += was_read
        if problem:
            problems.append(problem)
        if cuts is not None and ends is not None and ends[i] is not None and ends[i] in cuts:
            cuts[ends[i]] = total
    if problems:
        print(f"balance: {run / CACHE}: {len(problems)} cached chunk statistics file(s) could not be used "
              f"({problems[0]}{', ...' if len(problems) > 1 else ''}); recomputed from the logs and "
              "rewritten", file=sys.stderr)
    return total, read
