"""Reading run directories (docs/reference/run-directory.md): the manifest and the three tables as pandas
DataFrames, for people who want the raw tables in a notebook (`read_table` with columns= and games=, warning
before a read that would not fit in memory), and a run's consistent snapshot of chunks (`run_snapshot`) for
the figures that are computed a chunk at a time (analysis/parts.py)."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim import games
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from storage.run_dir import RunDirectory
from storage.run_parts import part_name
from storage.run_record import RunManifest

TABLES = ("games", "players", "events")
# Integer columns may hold nulls (a chit id on an order-chit row, the winner of a shared win): read them
# as pandas' nullable integers instead of floats.
_NULLABLE = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
             pa.int64(): pd.Int64Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


def spec_of(game: str) -> GameSpec:
    """The spec of the game a manifest names (its ``game``): where a run's game enters analysis by name,
    read from a file. Every reader of a run, sweep or profile looks its game up here once and hands the
    spec on; a ConfigError names the known games."""
    return games.spec(game)


@dataclass
class Run:
    path: Path
    manifest: RunManifest
    games: pd.DataFrame
    players: pd.DataFrame
    events: pd.DataFrame
    spec: GameSpec  # the run's game (`spec_of` its manifest, looked up by the reader)

    @property
    def n_games(self) -> int:
        return len(self.games)

    @property
    def partial_note(self) -> str:
        """"partial: N of M games asked" for a run with fewer games than asked ('' when complete)."""
        asked = self.manifest.games_asked
        n = len(self.games)
        return f"partial: {n:,} of {asked:,} games asked" if n < asked else ""

    @property
    def game(self) -> str:
        return self.manifest.game

    @property
    def rules(self):
        """The run's validated rules (its game's validator on the manifest's config snapshot)."""
        return self.spec.rules(self.manifest.config, self.manifest.players,
                               str(self.path / "manifest.json"))


def read_part(run_dir: str | os.PathLike[str], name: str, start: int, end: int) -> pd.DataFrame:
    """One chunk's part of a table as a DataFrame (nullable integers as `read_table` reads them)."""
    return pq.read_table(Path(run_dir) / f"{name}.parquet" / part_name(start, end)).to_pandas(
        types_mapper=_NULLABLE.get)


class MemoryWarning(UserWarning):
    """A read that would take more memory than this machine has free (`read_table`)."""


#: what pandas holds of a table against Parquet's uncompressed size, generously (nullable columns, index)
PANDAS_OVERHEAD = 2.0


def available_memory() -> int | None:
    """Bytes of memory free for a new allocation (Linux's MemAvailable), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def read_table(run_dir: str | os.PathLike[str], name: str,
               ranges: list[tuple[int, int]] | None = None, columns: list[str] | None = None,
               games: tuple[int, int] | range | None = None) -> pd.DataFrame:
    """One table of a run as one DataFrame, ordered by game (rows of a game keep their order): the parts
    of the chunks `ranges` (default: every part there is); only `columns` (default: all), and only the
    games with ids in `games` (a (start, stop) pair or a range; default: all), reading only the parts
    that hold them. Warns (MemoryWarning) before a read whose DataFrame would not fit in the memory free
    now: a run's whole events table can be tens of gigabytes; the figures themselves are computed chunk
    by chunk (analysis/parts.py)."""
    folder = Path(run_dir) / f"{name}.parquet"
    if not folder.is_dir():
        raise ConfigError(f"{run_dir}: not a run directory (no {name}.parquet)")
    if ranges is None:
        parts = sorted(folder.glob("part-*.parquet"))  # hidden .tmp- files of unfinished chunks are skipped
    else:
        parts = [folder / part_name(a, b) for a, b in sorted(ranges)]
    lo, hi = (games.start, games.stop) if isinstance(games, range) else (games or (None, None))
    if games is not None:
        parts = [p for p in parts if _overlaps(p.name, lo, hi)]
    if not parts:
        return pd.DataFrame()
    wanted = None if columns is None else list(dict.fromkeys(["game_id", *columns]))
    need = PANDAS_OVERHEAD * sum(_uncompressed(p, wanted) for p in parts)
    free = available_memory()
    if free is not None and need > free:
        warnings.warn(f"{folder}: reading {len(parts)} parts needs about {need / 1e9:.1f} GB and "
                      f"{free / 1e9:.1f} GB are free; select columns= or games=, or use the chunk-by-chunk "
                      "figures (analysis.parts)", MemoryWarning, stacklevel=2)
    # Parts hold consecutive game ranges and are named by them, so in name order the rows are already
    # ordered by game (and within a game keep their logged order): no sort needed.
    table = pa.concat_tables([pq.read_table(p, columns=wanted) for p in parts])
    if games is not None:
        ids = table.column("game_id")
        table = table.filter(pc.and_(pc.greater_equal(ids, lo), pc.less(ids, hi)))
    if columns is not None and "game_id" not in columns:
        table = table.drop_columns(["game_id"])
    return table.to_pandas(types_mapper=_NULLABLE.get)


def _overlaps(name: str, lo: int, hi: int) -> bool:
    """Whether part `name` (part-START-END.parquet) holds a game id in lo .. hi-1."""
    start, end = (int(x) for x in name[len("part-"):-len(".parquet")].split("-"))
    return start < hi and lo < end


def _uncompressed(path: Path, columns: list[str] | None) -> int:
    """A part's uncompressed bytes (of `columns`), from its footer."""
    meta = pq.read_metadata(path)
    total = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            if columns is None or column.path_in_schema in columns:
                total += column.total_uncompressed_size
    return total


@dataclass
class Snapshot:
    """A run's manifest and the chunks of one consistent snapshot (`run_snapshot`), no table read."""

    path: Path
    manifest: RunManifest
    ranges: list[tuple[int, int]]


def run_snapshot(run_dir: str | os.PathLike[str], allow_partial: bool = False) -> Snapshot:
    """The manifest and the chunks whose parts all three tables hold, listed once (a run being written
    adds chunks, never half of one), checked against their records (storage/run_parts.py): a damaged run
    is refused naming its parts, unless `allow_partial`. Nothing of the tables is read but footers."""
    path = Path(run_dir)
    manifest = checked_manifest(path)  # a manifest that is not a regular file is refused by what it is
    for name in TABLES:
        if not (path / f"{name}.parquet").is_dir():
            raise ConfigError(f"{run_dir}: not a run directory (no {name}.parquet)")
    return Snapshot(path, manifest, RunDirectory(path, TABLES).intact(allow_partial))


def checked_manifest(run_dir: str | os.PathLike[str]) -> RunManifest:
    """A run's manifest (storage/run_dir.py checks its keys and types) whose game is known and whose config
    snapshot its game's validator accepts: a ConfigError names the manifest, before any figure reads it."""
    path = Path(run_dir) / "manifest.json"
    manifest = RunDirectory(run_dir).read_manifest()
    if manifest is None:
        raise ConfigError(f"{run_dir}: not a run directory (no manifest.json)")
    try:
        spec = spec_of(manifest.game)
    except ConfigError as err:
        raise ConfigError(f"{path}: game: {err}") from None
    spec.rules(manifest.config, manifest.players, f"{path} (config)")
    return manifest


def read_run(run_dir: str | os.PathLike[str], allow_partial: bool = False) -> Run:
    """A run's manifest and tables, whole, as one consistent snapshot (`run_snapshot`)."""
    snap = run_snapshot(run_dir, allow_partial)
    return Run(snap.path, snap.manifest, *(read_table(snap.path, name, snap.ranges) for name in TABLES),
               spec=spec_of(snap.manifest.game))
