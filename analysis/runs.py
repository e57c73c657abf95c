"""Reading run directories (API.md): the manifest and the three tables as pandas DataFrames."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.app.run_dir import RunDirectory
from sim.app.run_parts import part_name
from sim.errors import ConfigError

TABLES = ("games", "players", "events")
# Integer columns may hold nulls (a chit id on an order-chit row, the winner of a shared win): read them
# as pandas' nullable integers instead of floats.
_NULLABLE = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
             pa.int64(): pd.Int64Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


@dataclass
class Run:
    path: Path
    manifest: dict
    games: pd.DataFrame
    players: pd.DataFrame
    events: pd.DataFrame

    @property
    def partial_note(self) -> str:
        """"partial: N of M games asked" for a run with fewer games than asked ('' when complete)."""
        asked = int(self.manifest.get("games_asked", 0) or 0)
        n = len(self.games)
        return f"partial: {n:,} of {asked:,} games asked" if n < asked else ""

    @property
    def game(self) -> str:
        return self.manifest["game"]

    @property
    def rules(self):
        """The run's validated rules (its game's validator on the manifest's config snapshot)."""
        from sim import games

        return games.spec(self.game).rules(self.manifest["config"], self.manifest["players"],
                                           str(self.path / "manifest.json"))


def read_table(run_dir: str | os.PathLike[str], name: str,
               ranges: list[tuple[int, int]] | None = None) -> pd.DataFrame:
    """One table of a run as one DataFrame, ordered by game (rows of a game keep their order): the parts
    of the chunks `ranges` (default: every part there is)."""
    folder = Path(run_dir) / f"{name}.parquet"
    if not folder.is_dir():
        raise ConfigError(f"{run_dir}: not a run directory (no {name}.parquet)")
    if ranges is None:
        parts = sorted(folder.glob("part-*.parquet"))  # hidden .tmp- files of unfinished chunks are skipped
    else:
        parts = [folder / part_name(a, b) for a, b in sorted(ranges)]
    if not parts:
        return pd.DataFrame()
    # Parts hold consecutive game ranges and are named by them, so in name order the rows are already
    # ordered by game (and within a game keep their logged order): no sort needed.
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    return table.to_pandas(types_mapper=_NULLABLE.get)


def read_run(run_dir: str | os.PathLike[str], allow_partial: bool = False) -> Run:
    """A run's manifest and tables as one consistent snapshot: the chunks whose parts all three tables
    hold, listed once (a run being written adds chunks, never half of one), checked against their
    records (sim/app/run_parts.py): a damaged run is refused naming its parts, unless `allow_partial`."""
    path = Path(run_dir)
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise ConfigError(f"{run_dir}: not a run directory (no manifest.json)")
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"{manifest_path}: unreadable manifest ({err})") from None
    for name in TABLES:
        if not (path / f"{name}.parquet").is_dir():
            raise ConfigError(f"{run_dir}: not a run directory (no {name}.parquet)")
    ranges = RunDirectory(path, TABLES).intact(allow_partial)
    return Run(path, manifest, *(read_table(path, name, ranges) for name in TABLES))
