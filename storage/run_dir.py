"""A run directory (docs/reference/run-directory.md): manifest.json and three Parquet datasets,
games.parquet/, players.parquet/ and events.parquet/, each a folder of parts named by the game range they hold
(part-<first>-<end>.parquet).

A chunk's parts are written to hidden temporary files and renamed into place, games last, so a chunk counts
as finished only when all three parts exist: a killed run loses no finished chunk.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from sim.core.errors import ConfigError
from sim.core.file_reads import read_regular_text
from storage.interrupts import deferred_interrupt
from storage.run_lock import LOCK_NAME, RunLock
from storage.run_parts import (
    RECORDS,
    ChunkRecord,
    Damage,
    adopt_unrecorded,
    damaged,
    quarantine,
    read_records,
    record_chunk,
    rows_of,
    trim_cut_record,
)
from storage.run_record import RunManifest

#: the manifest as it is written, before it replaces manifest.json in one step
MANIFEST_TMP = ".manifest.json.tmp"
#: what a run leaves in its folder before it has a manifest (its lock, a manifest being written when the
#: process was killed): such a folder is the run's own, resumed, not a folder of something else
SCRATCH = (LOCK_NAME, MANIFEST_TMP)
TABLES = ("events", "players", "games")  # write order: games last marks a chunk finished
SUMMARIES = "summaries"  # each chunk's cached statistics (analysis/parts.py), keyed by its parts
_PART = re.compile(r"part-(\d{10})-(\d{10})\.parquet$")


#: a manifest is a few kilobytes (its config snapshot, a line per session): past this it is not one, and
#: reading it could exhaust the memory
MAX_MANIFEST_BYTES = 16 * 2**20


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number (JSON has no NaN or Infinity)")


def read_json_object(path: Path, what: str, lists: tuple[str, ...] = ()) -> dict:
    """A JSON object the toolkit wrote (`what`: "run manifest", "profile manifest" ...), whose `lists`
    keys are lists of objects: one line naming the file (and key) for bytes that are not JSON, NaN,
    nesting deeper than the parser's stack, another type, a file past `MAX_MANIFEST_BYTES`, or one that is
    not a regular file (a FIFO, a device, a folder: sim.core.file_reads)."""
    try:  # only a regular file, within MAX_MANIFEST_BYTES: a FIFO or /dev/zero is refused, not read
        found = json.loads(read_regular_text(path, what, MAX_MANIFEST_BYTES), parse_constant=_no_constant)
    except ConfigError:
        raise
    except (OSError, ValueError) as err:  # JSONDecodeError, UnicodeDecodeError and NaN are ValueErrors
        raise ConfigError(f"{path}: not a readable {what} ({getattr(err, 'strerror', None) or err})") \
            from None
    except RecursionError:
        raise ConfigError(f"{path}: not a {what} (JSON nested too deep to read)") from None
    if not isinstance(found, dict):
        raise ConfigError(f"{path}: not a {what} (a JSON object is expected, got {type(found).__name__})")
    for key in lists:
        if not isinstance(found.get(key), list) or not all(isinstance(v, dict) for v in found[key]):
            raise ConfigError(f"{path}: {key}: missing or not a list of JSON objects")
    return found


def load_manifest(path: Path) -> RunManifest:
    """Read and check a manifest file: one line naming the file (and key) for anything a reader would trip
    on (bytes that are not JSON, NaN, nesting deeper than the parser's stack, a key missing or of the
    wrong type, a count below zero, a file too large to be a manifest)."""
    return RunManifest.from_json(read_json_object(path, "run manifest"), path)


def manifest_study(path: str | os.PathLike[str]) -> str | None:
    """The study a run directory's manifest names ("simulate", "values"; "simulate" when it names none),
    read without checking the rest; None when there is no manifest or it cannot be read (its reader then
    refuses it, naming the file)."""
    manifest = Path(path) / "manifest.json"
    try:
        found = json.loads(manifest.read_text()) if manifest.is_file() else None
    except (OSError, ValueError, RecursionError):
        return None
    return found.get("study", "simulate") if isinstance(found, dict) else None


def mark_stopped_adaptively(*paths: str | os.PathLike[str], looks: tuple[int, ...] = ()) -> None:
    """Record in each run directory's manifest (`stopped_adaptively`) that the run was played until its
    verdicts were decided (--until-decided): it stopped on its own data, so fixed-size intervals and tests
    of it would overstate. Sticky: every later session of the run keeps the manifest's key, so a run
    extended by a fixed --games still stopped adaptively once. `looks`: the games in hand at the looks just
    made, added to those the manifest holds (`RunManifest.looks`: every later verdict of the run is the
    running intersection of its sequences over them). A path without a manifest is left alone."""
    for path in paths:
        run_dir = RunDirectory(path)
        if not run_dir.manifest_path.is_file():
            continue
        with RunLock(path, wait=True):  # not under a writer's feet: its manifest is rewritten whole
            manifest = run_dir.read_manifest()
            if manifest is None:
                continue
            held = tuple(sorted(set(manifest.looks) | {int(n) for n in looks}))
            if not manifest.stopped_adaptively or held != manifest.looks:
                run_dir.write_manifest(manifest.updated(stopped_adaptively=True, **(
                    {"looks": held} if held else {})))


class RunDirectory:
    """One run directory on disk: its manifest and the finished parts of its tables (TABLES for self-play;
    a `balance values` run has one, "values"), the last of `tables` written last."""

    def __init__(self, path: str | os.PathLike[str], tables: tuple[str, ...] = TABLES) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.tables = tables

    def table_dir(self, name: str) -> Path:
        return self.path / f"{name}.parquet"

    def read_manifest(self) -> RunManifest | None:
        """The run's manifest, checked (`check_manifest`); None when there is none. A manifest that is not
        what the toolkit writes is refused (ConfigError naming the file and key) before anything reads it."""
        if not self.manifest_path.exists() and not self.manifest_path.is_symlink():
            return None
        return load_manifest(self.manifest_path)

    def write_manifest(self, manifest: RunManifest) -> None:
        """Write the manifest (`RunManifest.to_json`) whole: to a temporary file renamed over the old."""
        tmp = self.path / MANIFEST_TMP
        tmp.write_text(json.dumps(manifest.to_json(), indent=2, sort_keys=True))
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

    def finished_total(self) -> int:
        """How many games are finished, in all (also past what a run asks now)."""
        return sum(b - a for a, b in self.finished())

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
        """Write a chunk's parts (temporary files renamed into place, the last table last) and record it;
        Ctrl-C waits for the record (storage/interrupts.py)."""
        with deferred_interrupt():
            self._write_chunk(start, end, parts)

    def _write_chunk(self, start: int, end: int, parts: dict[str, bytes]) -> None:
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
        record_chunk(self.path, ChunkRecord(start, end, {name: rows_of(parts[name]) for name in self.tables}))

    def repair(self) -> tuple[list[Damage], Path | None]:
        """The writer's check before it plans (storage/run_parts.py): damaged chunks' parts are moved to
        quarantine/ (their games are then missing and get played again) and finished chunks without a
        record are recorded. Returns the damage found and the quarantine folder (None: nothing moved)."""
        finished = self.finished()
        damage = damaged(self.path, self.tables, finished, read_records(self.path))
        trim_cut_record(self.path)
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
        kept = [r for r in finished if r not in bad]
        if damage and not kept:
            raise ConfigError(f"{self.path}: damaged run: every finished chunk ({len(bad)}) is damaged "
                              f"({damage[0].text()}{'; ...' if len(damage) > 1 else ''}), so --allow-partial "
                              "leaves nothing to read. `balance simulate` with the run's arguments moves "
                              "them to quarantine/ and plays their games again")
        return kept

    def remove_run(self) -> None:
        for name in {*TABLES, *self.tables}:
            shutil.rmtree(self.table_dir(name), ignore_errors=True)
        shutil.rmtree(self.path / SUMMARIES, ignore_errors=True)
        (self.path / RECORDS).unlink(missing_ok=True)
        self.manifest_path.unlink(missing_ok=True)


def check_out(out: str | os.PathLike[str], what: str, marks: tuple[str, ...], *,
              otherwise: str = "choose another --out") -> None:
    """The one rule of every --out: refuse (ConfigError) a file, and a folder that exists, is not empty (its
    lock aside) and holds none of `marks` (the paths, inside it, that make it this command's own earlier
    output: a manifest, a report's summary.json). Checked before anything is played or written, so that
    `--out /` or a designer's folder of configs is never written into. `what` names the command's folder
    ("report folder"); `otherwise` is the way out the message suggests."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: --out is a file, not a {what}")
    if out.is_dir() and not any((out / mark).exists() for mark in marks) and any(
            p.name not in SCRATCH for p in out.iterdir()):
        raise ConfigError(f"{out}: --out is a non-empty folder that is not a {what} (no {marks[0]}); "
                          f"{otherwise}")


def refuse_foreign(run_dir: RunDirectory) -> None:
    """Refuse (ConfigError) an --out that is a file, or a non-empty folder that is not a run directory:
    checked before the run's lock is taken, so that nothing is written into such a place."""
    if run_dir.path.exists() and not run_dir.path.is_dir():
        raise ConfigError(f"{run_dir.path}: --out is a file, not a run directory")
    if not run_dir.manifest_path.exists() and run_dir.path.exists() and not run_dir.finished() and any(
            p.name not in SCRATCH for p in run_dir.path.iterdir()):
        raise ConfigError(f"{run_dir.path}: --out is a non-empty folder that is not a run directory "
                          "(no manifest.json); choose another --out")


def check_directory(run_dir: RunDirectory, identity: RunManifest, force: bool) -> RunManifest | None:
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
    differs = manifest.differences(identity)
    if differs and not force:
        shown = "; ".join(f"{key}: run has {theirs!r}, asked {asked!r}"
                          for key, (theirs, asked) in differs.items())
        raise ConfigError(f"{run_dir.path}: made by a different run ({shown}); use another --out, "
                          "or --force to replace it")
    if differs:
        run_dir.remove_run()
        return None
    return manifest
