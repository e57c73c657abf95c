"""A run directory (API.md): manifest.json and three Parquet datasets, games.parquet/, players.parquet/ and
events.parquet/, each a folder of parts named by the game range they hold (part-<first>-<end>.parquet).

A chunk's parts are written to hidden temporary files and renamed into place, games last, so a chunk counts
as finished only when all three parts exist: a killed run loses no finished chunk.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from sim.errors import ConfigError
from storage.run_lock import LOCK_NAME
from storage.run_parts import (
    RECORDS,
    Damage,
    adopt_unrecorded,
    damaged,
    quarantine,
    read_records,
    record_chunk,
    rows_of,
)

TABLES = ("events", "players", "games")  # write order: games last marks a chunk finished
SUMMARIES = "summaries"  # each chunk's cached statistics (analysis/parts.py), keyed by its parts
#: the manifest keys that make two runs the same run (with resolved_agents)
IDENTITY = ("game", "config_hash", "players", "agents", "rotate_seats", "seed", "study", "positions")
#: what a manifest written before a key existed means by its absence
_ABSENT = {"study": "simulate", "positions": None}
_PART = re.compile(r"part-(\d{10})-(\d{10})\.parquet$")


class RunDirectory:
    """One run directory on disk: its manifest and the finished parts of its tables (TABLES for self-play;
    a `balance values` run has one, "values"), the last of `tables` written last."""

    def __init__(self, path: str | os.PathLike[str], tables: tuple[str, ...] = TABLES) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.tables = tables

    def table_dir(self, name: str) -> Path:
        return self.path / f"{name}.parquet"

    def read_manifest(self) -> dict | None:
        if not self.manifest_path.exists():
            return None
        try:
            return json.loads(self.manifest_path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise ConfigError(f"{self.manifest_path}: not a readable run manifest ({err})") from None

    def write_manifest(self, manifest: dict) -> None:
        tmp = self.path / ".manifest.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True))
        os.replace(tmp, self.manifest_path)

    def parts(self, name: str) -> set[tuple[int, int]]:
        folder = self.table_dir(name)
        if not folder.is_dir():
            return set()
        found = (_PART.match(p.name) for p in folder.iterdir())
        return {(int(m.group(1)), int(m.group(2))) for m in found if m}

    def finished(self) -> list[tuple[int, int]]:
        """Game ranges whose three parts all exist."""
        done = self.parts(self.tables[0])
        for name in self.tables[1:]:
            done &= self.parts(name)
        return sorted(done)

    def finished_within(self, games: int) -> int:
        """How many of games 0..games-1 are finished."""
        return sum(min(b, games) - a for a, b in self.finished() if a < games)

    def finished_games(self) -> int:
        """Games 0..k-1 all finished: k (0 when there is none)."""
        covered = 0
        for a, b in self.finished():
            if a > covered:
                break
            covered = max(covered, b)
        return covered

    def clean_unfinished(self) -> None:
        """Remove temporary files and the parts of chunks that did not finish (some table missing)."""
        done = set(self.finished())
        for name in self.tables:
            folder = self.table_dir(name)
            if not folder.is_dir():
                continue
            for p in folder.iterdir():
                m = _PART.match(p.name)
                if p.name.startswith(".tmp-") or (m and (int(m.group(1)), int(m.group(2))) not in done):
                    p.unlink()

    def write_chunk(self, start: int, end: int, parts: dict[str, bytes]) -> None:
        name_of = f"part-{start:010d}-{end:010d}.parquet"
        staged = []
        try:
            for name in self.tables:
                folder = self.table_dir(name)
                folder.mkdir(parents=True, exist_ok=True)
                tmp = folder / f".tmp-{name_of}"
                staged.append((tmp, folder / name_of))
                tmp.write_bytes(parts[name])  # a rename is atomic for a killed process; no fsync needed
        except OSError:
            for tmp, _final in staged:  # a full disk or a read-only folder leaves no .tmp- file behind
                tmp.unlink(missing_ok=True)
            raise
        for tmp, final in staged:  # games last: its presence marks the chunk finished
            os.replace(tmp, final)
        record_chunk(self.path, start, end, {name: rows_of(parts[name]) for name in self.tables})

    def repair(self) -> tuple[list[Damage], Path | None]:
        """The writer's check before it plans (storage/run_parts.py): damaged chunks' parts are moved to
        quarantine/ (their games are then missing and get played again) and finished chunks without a
        record are recorded. Returns the damage found and the quarantine folder (None: nothing moved)."""
        finished = self.finished()
        damage = damaged(self.path, self.tables, finished, read_records(self.path))
        bad = {(d.start, d.end) for d in damage}
        folder = quarantine(self.path, self.tables, bad)
        adopt_unrecorded(self.path, self.tables, [r for r in finished if r not in bad])
        return damage, folder

    def intact(self, allow_partial: bool = False) -> list[tuple[int, int]]:
        """The finished chunks a reader may use, checked against their records: a damaged run is refused
        (ConfigError naming the parts) unless `allow_partial`, which leaves the damaged chunks out."""
        finished = self.finished()
        damage = damaged(self.path, self.tables, finished, read_records(self.path))
        if damage and not allow_partial:
            shown = "; ".join(d.text() for d in damage[:5]) + (f"; and {len(damage) - 5} more"
                                                                if len(damage) > 5 else "")
            raise ConfigError(f"{self.path}: damaged run, {len(damage)} part(s): {shown}. `balance simulate` "
                              "with the run's arguments moves them to quarantine/ and plays their games "
                              "again; or pass --allow-partial to use the intact games")
        bad = {(d.start, d.end) for d in damage}
        return [r for r in finished if r not in bad]

    def remove_run(self) -> None:
        for name in {*TABLES, *self.tables}:
            shutil.rmtree(self.table_dir(name), ignore_errors=True)
        shutil.rmtree(self.path / SUMMARIES, ignore_errors=True)
        (self.path / RECORDS).unlink(missing_ok=True)
        self.manifest_path.unlink(missing_ok=True)


def refuse_foreign(run_dir: RunDirectory) -> None:
    """Refuse (ConfigError) an --out that is a file, or a non-empty folder that is not a run directory:
    checked before the run's lock is taken, so that nothing is written into such a place."""
    if run_dir.path.exists() and not run_dir.path.is_dir():
        raise ConfigError(f"{run_dir.path}: --out is a file, not a run directory")
    if not run_dir.manifest_path.exists() and run_dir.path.exists() and not run_dir.finished() and any(
            p.name != LOCK_NAME for p in run_dir.path.iterdir()):
        raise ConfigError(f"{run_dir.path}: --out is a non-empty folder that is not a run directory "
                          "(no manifest.json); choose another --out")


def check_directory(run_dir: RunDirectory, identity: dict, force: bool) -> dict | None:
    """Refuse (ConfigError) a directory that holds something else or a different run, unless forced.
    `identity` is the asking run's record (RunPlan.identity): IDENTITY's keys and resolved_agents.
    Returns the directory's manifest when it holds the same run (None for a new or replaced one)."""
    refuse_foreign(run_dir)
    manifest = run_dir.read_manifest()
    if manifest is None:
        if run_dir.finished() and not force:
            raise ConfigError(f"{run_dir.path}: the run's manifest.json is missing but its parts are there; "
                              "run the same command with --force to rebuild the manifest from them (checked "
                              "by replaying one chunk)")
        return None
    ours = identity
    theirs = {key: manifest.get(key, _ABSENT.get(key)) for key in IDENTITY}
    asked = {key: ours.get(key, _ABSENT.get(key)) for key in IDENTITY}
    differs = [key for key in IDENTITY if theirs[key] != asked[key]]
    # Runs made before agents were recorded resolved lack the key: their agent strings must do.
    if manifest.get("resolved_agents", ours["resolved_agents"]) != ours["resolved_agents"]:
        differs.append("resolved_agents")
    if differs and not force:
        shown = "; ".join(f"{k}: run has {theirs.get(k, manifest.get(k))!r}, "
                          f"asked {asked.get(k, ours.get(k))!r}"
                          for k in differs)
        raise ConfigError(f"{run_dir.path}: made by a different run ({shown}); use another --out, "
                          "or --force to replace it")
    if differs:
        run_dir.remove_run()
        return None
    return manifest
