"""`balance simulate`: batch self-play spread over processes, written as a resumable run directory.

Game i always plays with the seed derived from (seed, i), so the tables do not depend on --jobs, chunking
or backend. Workers return each chunk's parts as Parquet bytes; the parent writes them into the run
directory (storage/run_dir.py), so a killed run loses no finished chunk and running the same command again
plays only the missing games. The game is whatever the config's `game` key names in the registry
(sim/games.py); nothing here knows one game from another.
"""

from __future__ import annotations

import copy
import io
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass, field, fields
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim import games
from sim.core.agent_spec import agent_arrays, check_models, model_seats, parse_agents, parse_spec, resolved
from sim.core.errors import ConfigError, Interrupted, RunFailed
from sim.core.expert_model import PlayedConfig
from sim.core.game_spec import GameSpec
from sim.core.log_tables import to_parquet_bytes
from sim.core.rng import game_seeds
from storage.backends import (
    StudyCluster,
    close_dask,
    connect_dask,
    loky_executor,
    run_chunks,
    told_results,
    watch_runner,
)
from storage.run_dir import TABLES, RunDirectory, check_directory, refuse_foreign
from storage.run_lock import RunLock
from storage.run_parts import part_name, read_records
from storage.run_record import RunManifest

# numpy, numba and pyarrow load lazily, in play_chunk: the parent only validates and plans until its
# first chunk, so its workers (prestart_workers) start as early as possible.


@dataclass(frozen=True)
class RunPlan:
    """Everything that decides a run's tables (besides the number of games). The game is its spec, looked
    up once where the run's config was read; its name is part of the run's identity."""

    spec: GameSpec
    config_path: str
    config: dict
    config_hash: str
    players: int
    agents: tuple[str, ...]
    rotate_seats: bool
    seed: int

    @property
    def game(self) -> str:
        """The game's name: what the manifest records and labels show."""
        return self.spec.name

    @property
    def played(self) -> PlayedConfig:
        """The config the games are played on: a seat without `model=` plays the model fitted for it, if
        any (sim/core/expert_model.py)."""
        return PlayedConfig(self.config_path, self.config_hash)

    @property
    def resolved_agents(self) -> list[str]:
        """The agents with their defaults written out (agent_spec.resolved): part of a run's identity."""
        return [resolved(parse_spec(agent, self.spec), self.spec, self.players, self.played)
                for agent in self.agents]

    #: what the run's chunks hold: self-play games (the three log tables)
    study = "simulate"
    tables = TABLES  # (a class attribute, not a field: no annotation)

    def identity(self) -> RunManifest:
        """The manifest record that makes a run this run (run_record.IDENTITY, resolved agents too): every
        field, the game by its name."""
        record = {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name != "spec"}
        models = model_seats(list(self.agents), self.spec, self.players, self.played) or None
        return RunManifest(**record, game=self.game, resolved_agents=tuple(self.resolved_agents),
                           study=self.study, models=models)

    def manifest_extra(self) -> dict:
        """What else a new run's manifest records (nothing for self-play)."""
        return {}

    def play(self, start: int, end: int) -> dict[str, bytes]:
        """Play games start..end-1 and return their three tables as Parquet bytes (runs in a worker)."""
        spec = self.spec
        rules = plan_rules(self)
        seating = self.seating(start, end)
        kinds, params = agent_arrays(seating, self.spec, self.played)
        seeds = game_seeds(self.seed, start, end - start)
        out = spec.run_batch(rules, seeds, kinds, params)
        tables = spec.tables(start, seeds, seating, out, rules)
        return {name: to_parquet_bytes(table) for name, table in tables.items()}

    def smallest_chunk(self) -> int:
        """The smallest chunk any seat's agent asks for (registry AgentKind.smallest_chunk): 1,000 games
        for the fast agents, 10 when a seat searches (mcts: seconds a game)."""
        kinds = self.spec.agents
        return min(kinds[parse_spec(agent, self.spec).name].smallest_chunk for agent in self.agents)

    def seating(self, start: int, end: int) -> list[list[str]]:
        """Agent names per seat for games start..end-1 (rotated one seat per game with rotate_seats)."""
        n = self.players
        if not self.rotate_seats:
            return [list(self.agents)] * (end - start)
        return [[self.agents[(seat + i) % n] for seat in range(n)] for i in range(start, end)]


def plan_run(config: str | os.PathLike[str], players: int, agents: str, seed: int,
             rotate_seats: bool) -> RunPlan:
    """Validate the inputs of a run (ConfigError on anything wrong) and fix its identity."""
    spec, merged, rules = games.load_config(config, players)
    agent_specs = parse_agents(agents, players, spec)
    check_models(agent_specs, spec, players, rules.config_hash, config)
    return RunPlan(spec=spec, config_path=os.fspath(config), config=merged,
                   config_hash=rules.config_hash, players=players,
                   agents=tuple(str(a) for a in agent_specs), rotate_seats=rotate_seats, seed=seed)


_RULES_CACHE: dict[tuple[str, str, int], object] = {}


def plan_rules(plan: RunPlan):
    """The validated rules of a plan, built once per worker process."""
    key = (plan.game, plan.config_hash, plan.players)
    if key not in _RULES_CACHE:
        _RULES_CACHE[key] = plan.spec.rules(plan.config, plan.players, plan.config_path)
    return _RULES_CACHE[key]


def play_chunk(plan: RunPlan, start: int, end: int) -> tuple[int, int, dict[str, bytes]]:
    """Play chunk start..end-1 of a plan and return its tables as Parquet bytes (runs in a worker)."""
    watch_runner()
    return start, end, plan.play(start, end)


def missing_ranges(done: list[tuple[int, int]], games: int, jobs: int,
                   chunk: int | None = None, smallest: int = 1000) -> list[tuple[int, int]]:
    """Chunks covering 0..games-1 minus the finished ranges. Without a fixed `chunk`, sizes shrink as the
    work left shrinks (a quarter of it per job, `smallest` to 10,000 games), so the last chunks finish
    close together; for the fast agents smaller parts would cost more than their time saves (a part's
    fixed Parquet overhead is about 4 kB), but a searching agent takes seconds a game, and small chunks
    keep both the jobs busy and an interrupted run's losses small."""
    # the gaps between the finished ranges, walked as intervals: no per-game array, so any --games that
    # passes check_budget plans in constant memory
    gaps = []
    pos = 0
    for a, b in sorted(done):
        a, b = min(a, games), min(b, games)
        if a > pos:
            gaps.append((pos, a))
        pos = max(pos, b)
    if pos < games:
        gaps.append((pos, games))
    remaining = sum(b - a for a, b in gaps)
    out = []
    for a, b in gaps:
        i = a
        while i < b:
            size = chunk or max(smallest, min(10000, -(-remaining // (4 * jobs))))
            j = min(b, i + size)
            out.append((i, j))
            remaining -= j - i
            i = j
    return out


def _versions() -> dict[str, str]:
    names = ("numpy", "numba", "pandas", "pyarrow", "joblib", "dask", "distributed", "balance-toolkit")
    out = {"python": sys.version.split()[0]}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


# ---- execution -----------------------------------------------------------------------------------------
def _warm_worker(spec: GameSpec) -> None:
    """Import a game's kernels and load them from numba's cache (or compile them) in a worker."""
    watch_runner()
    rules = spec.default_rules(spec.min_players)

    spec.run_batch(rules, game_seeds(0, 0, 1), [0] * rules.players)


def prestart_workers(jobs: int, spec: GameSpec | None) -> None:
    """Start the loky workers (and their kernel loading) now, so it overlaps this process's own set-up.
    Starts nothing when the run will not use loky workers."""
    if jobs < 2 or spec is None:
        return
    executor = loky_executor(jobs)
    for _ in range(jobs - 1):
        executor.submit(_warm_worker, spec)


def warm_kernels(plan: RunPlan, jobs: int, backend: str = "loky") -> None:
    """Load the game's kernels (or compile them, on a cold cache) in this process, with the plan's own
    rules, and in every loky worker, and wait for it: before a first batch is timed, so that its pace
    carries no compile (about a minute on a fresh install) and no worker start-up. Nothing for dask (its
    workers are not ours)."""
    if backend != "loky":
        return
    executor = loky_executor(jobs) if jobs > 1 else None
    waiting = [executor.submit(_warm_worker, plan.spec) for _ in range(jobs - 1)] if executor else []
    plan.spec.run_batch(plan_rules(plan), game_seeds(plan.seed, 0, 1), [0] * plan.players)
    for future in waiting:
        future.result()


@dataclass
class SimulateResult:
    run_dir: Path
    played: int
    already: int
    seconds: float
    damaged: list[str] = field(default_factory=list)  # parts found damaged, moved aside and replayed
    quarantined: Path | None = None
    stalled: int = 0  # games played now that the engine stopped at its limit (GameSpec.limit_end)


def limit_games(spec: GameSpec, parts: dict[str, bytes]) -> int:
    """How many of a chunk's games ended at the engine's safety limit (`GameSpec.limit_end`), from its
    games part's end_reason column (0 for a game without such a limit or a study without a games table)."""
    if spec.limit_end is None or "games" not in parts:
        return 0


    reasons = pq.read_table(io.BytesIO(parts["games"]), columns=["end_reason"]).column("end_reason")
    return int(pc.sum(pc.equal(reasons.cast("string"), spec.limit_end[0])).as_py() or 0)


def simulate(plan: RunPlan, games: int, out: str | os.PathLike[str], jobs: int = 1, backend: str = "loky",
             scheduler: str | None = None, force: bool = False, chunk_size: int | None = None,
             progress: Callable[[int], None] | None = None, wait: bool = False,
             cluster: StudyCluster | None = None) -> SimulateResult:
    """Play the games of `plan` missing from run directory `out` (up to `games`), holding the directory's
    lock throughout (storage/run_lock.py: a second writer is refused, or with `wait` waits its turn).
    `cluster`: a study's Dask cluster (storage.backends.StudyCluster), which the chunks play on whatever
    `backend` says and which stays open for the study's next run; without it `backend="dask"` connects
    (`scheduler`, or a LocalCluster of `jobs` workers) for this run alone."""
    check_run_out(plan, games, out, force)
    with RunLock(out, wait=wait):
        return _simulate_locked(plan=plan, games=games, out=out, jobs=jobs,
                                backend="dask" if cluster is not None else backend, scheduler=scheduler,
                                force=force, chunk_size=chunk_size, progress=progress, cluster=cluster)


def _simulate_locked(plan: RunPlan, games: int, out: str | os.PathLike[str], jobs: int, backend: str,
                     scheduler: str | None, force: bool, chunk_size: int | None,
                     progress: Callable[[int], None] | None, cluster: StudyCluster | None) -> SimulateResult:
    run_dir = RunDirectory(out, plan.tables)
    manifest = check_directory(run_dir, plan.identity(), force)
    if manifest is None and run_dir.finished():
        recover_manifest(plan, run_dir)  # --force on parts without their manifest: rebuild it
    own = connect_dask(scheduler, jobs) if backend == "dask" and cluster is None else None
    try:
        run_dir.clean_unfinished()
        damage, quarantined = run_dir.repair()  # a damaged chunk's games are missing now: played again
        done = run_dir.finished()
        already = run_dir.finished_within(games)
        todo = missing_ranges(done, games, jobs, chunk_size, smallest=plan.smallest_chunk())
        # a study's cluster is asked for only when there are games to play (its LocalCluster starts then)
        client = cluster.client() if cluster is not None and todo else own
        manifest = manifest or plan.identity().updated(**plan.manifest_extra(), created=time.time(),
                                                       sessions=(), wall_time_s=0.0)
        manifest = manifest.updated(games_asked=max(games, manifest.games_asked),
                                    games_finished=run_dir.finished_total(),  # all on disk, also past `games`
                                    config_path=plan.config_path, package_versions=_versions())
        run_dir.write_manifest(manifest)
        start = time.perf_counter()
        written = _Written(plan, run_dir, progress)
        if todo:
            failure: OSError | KeyboardInterrupt | None = None
            try:
                keep_results(run_chunks(partial(play_chunk, plan), todo, jobs, backend, client=client),
                             written.keep)
            except (OSError, KeyboardInterrupt) as err:
                failure = err
            finally:
                seconds = time.perf_counter() - start
                session = {"started": time.time() - seconds, "seconds": round(seconds, 3),
                           "games_played": written.played, "jobs": jobs, "backend": backend}
                manifest = manifest.updated(games_finished=run_dir.finished_total(),
                                            wall_time_s=manifest.wall_time_s + seconds,
                                            sessions=(*manifest.sessions, session))
                try:
                    run_dir.write_manifest(manifest)
                except OSError as err:  # the disk that stopped the run may refuse this too: say the first
                    failure = failure or err
            _stopped(failure, run_dir, manifest.games_finished)
        return SimulateResult(run_dir=run_dir.path, played=written.played, already=already,
                              seconds=time.perf_counter() - start, damaged=[d.text() for d in damage],
                              quarantined=quarantined, stalled=written.stalled)
    finally:
        if own is not None:
            close_dask(own)


def keep_results(results: Generator[Any, None, None], keep: Callable[[Any], None]) -> None:
    """`keep(result)` for every result of a `run_chunks` generator (storage.backends), then close it. Ctrl-C
    while `keep` runs is handed to the generator (`told_results`), whose results that reached this process
    before the signal are kept too, then the KeyboardInterrupt goes on. The loop is the runner's: storage
    hands the results up and calls nothing back."""
    with closing(results):
        try:
            for result in results:
                keep(result)
        except KeyboardInterrupt as err:
            for result in told_results(results, err):
                keep(result)
            raise


@dataclass
class _Written:
    """A run's chunks written as they come (`keep`), counting the games played and how many of them
    stopped at the engine's limit."""

    plan: RunPlan
    run_dir: RunDirectory
    progress: Callable[[int], None] | None
    played: int = 0
    stalled: int = 0

    def keep(self, chunk: tuple[int, int, dict[str, bytes]]) -> None:
        a, b, parts = chunk
        self.run_dir.write_chunk(a, b, parts)
        self.played += b - a
        self.stalled += limit_games(self.plan.spec, parts)
        if self.progress:
            self.progress(b - a)


def _stopped(failure: OSError | KeyboardInterrupt | None, run_dir: RunDirectory, kept: int) -> None:
    """Say why a run stopped part-way, with the `kept` games finished before it: Ctrl-C (Interrupted) or a
    failure of the machine (RunFailed). Nothing when it did not stop."""
    if isinstance(failure, KeyboardInterrupt):
        raise interrupted(kept, run_dir.path) from None
    if failure is not None:
        raise RunFailed(f"{failure.filename or run_dir.path}: {failure.strerror or failure}; the run stopped "
                        f"after {kept:,} finished games, which are safe: run the same command again to play "
                        "the rest") from None


def interrupted(kept: int, where: str | os.PathLike[str], split: str = "") -> Interrupted:
    """What Ctrl-C says of a run: the `kept` games finished in `where` (`split`: whose they are), and how
    to go on."""
    return Interrupted(f"{kept:,} games kept in {where}{split}; run the same command again to resume")


def recover_manifest(plan: RunPlan, run_dir: RunDirectory) -> None:
    """Parts without their manifest: replay the smallest finished chunk under `plan` and compare its tables
    with the parts on disk. The same: the parts are this plan's, and the run goes on (a new manifest is
    written from the plan, with every finished game counted). Different: ConfigError, nothing touched."""
    start, end = min(run_dir.finished(), key=lambda r: (r[1] - r[0], r[0]))
    _, _, parts = play_chunk(plan, start, end)
    for name in plan.tables:
        on_disk = pq.read_table(run_dir.table_dir(name) / part_name(start, end))
        if not on_disk.equals(pq.read_table(io.BytesIO(parts[name]))):
            raise ConfigError(f"{run_dir.path}: its parts were not made by this config, players, agents and "
                              f"seed (games {start}..{end - 1} replay differently); give the arguments of "
                              "the run that made them")


#: what the logs of one game cost on disk, generously (self-play measures under 200 bytes a game,
#: tests/test_runner.py; a values base game logs every arm of every component)
LOG_BYTES = {"simulate": 400, "values": 40_000}


def log_bytes_needed(plan: RunPlan, games: int, out: Path) -> int:
    """The bytes the logs of the games `out` still lacks of `games` will take, at LOG_BYTES a game."""
    on_disk = RunDirectory(out, plan.tables).finished_within(games) if out.is_dir() else 0
    return (games - on_disk) * LOG_BYTES.get(plan.study, 400)


def free_space(out: Path) -> tuple[Path, int]:
    """The nearest existing folder of `out` (itself or a parent) and the bytes free there."""
    place = next(p for p in (out, *out.absolute().parents) if p.exists())
    return place, shutil.disk_usage(place).free


def check_run_out(plan: RunPlan, games: int, out: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse (ConfigError), reading only, what `simulate` would refuse of run directory `out` before any
    game: a folder that holds something else or another run (unless forced), a damaged record, a config
    snapshot its validator refuses, logs that cannot fit on the disk. A command that says a plan before
    playing checks this first, so that bad input is refused before any line."""
    run_dir = RunDirectory(out, plan.tables)
    refuse_foreign(run_dir)
    if not force and run_dir.path.is_dir():  # a refusal leaves the folder as it was, its .lock included
        manifest = check_directory(run_dir, plan.identity(), force)  # (read-only unless forced; again
        read_records(run_dir.path)                                   # under the lock)
        if manifest is not None:  # the config snapshot the reports will read: the run's own validator
            plan.spec.rules(manifest.config, plan.players, f"{run_dir.manifest_path} (config)")
    check_budget(plan, games, Path(out))


def check_budget(plan: RunPlan, games: int, out: Path) -> None:
    """Refuse (ConfigError), before anything is written, a --games whose logs cannot fit on the disk."""
    need = log_bytes_needed(plan, games, out)
    place, free = free_space(out)
    if need > free:
        raise ConfigError(f"--games {games:,}: its logs need about {need / 1e9:,.1f} GB and {place} has "
                          f"{free / 1e9:,.1f} GB free; ask for fewer games")


def default_out(plan: RunPlan) -> Path:
    """runs/<game>-<config>-<N>p-<agents>-seed<S>, prefixed with the study ("values-") when not self-play."""
    agents = "-".join(plan.agents) + ("-rotated" if plan.rotate_seats else "")
    stem = Path(plan.config_path).stem
    prefix = "" if plan.study == "simulate" else f"{plan.study}-"
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_",
                  f"{prefix}{plan.game}-{stem}-{plan.players}p-{agents}-seed{plan.seed}")
    return Path("runs") / name
