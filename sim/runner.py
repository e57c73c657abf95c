"""`balance simulate`: batch self-play spread over processes, written as a resumable run directory.

A run directory (API.md) holds manifest.json and three Parquet datasets, games.parquet/,
players.parquet/ and events.parquet/, each a folder of parts named by the game range they hold
(part-<first>-<end>.parquet). Game i always plays with the seed derived from (seed, i), so the tables do
not depend on --jobs, chunking or backend. Workers return each chunk's parts as Parquet bytes; the parent
writes them to hidden temporary files and renames them into place, games last, so a chunk counts as
finished only when all three parts exist: a killed run loses no finished chunk, and running the same
command again plays only the missing games.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from sim.agent_spec import agent_arrays, parse_agents, parse_spec, resolved
from sim.config import load_toml
from sim.errors import ConfigError

# numpy, numba and pyarrow load lazily, in play_chunk: the parent only validates and plans until its
# first chunk, so its workers (prestart_workers) start as early as possible.

TABLES = ("events", "players", "games")  # write order: games last marks a chunk finished
GAME_PACKAGES = {"kamakura": "sim.kamakura", "sakura": "sim.sakura"}
IDENTITY = ("game", "config_hash", "players", "agents", "rotate_seats", "seed")
_PART = re.compile(r"part-(\d{10})-(\d{10})\.parquet$")


@dataclass(frozen=True)
class RunPlan:
    """Everything that decides a run's tables (besides the number of games)."""

    game: str
    config_path: str
    config: dict
    config_hash: str
    players: int
    agents: tuple[str, ...]
    rotate_seats: bool
    seed: int

    @property
    def resolved_agents(self) -> list[str]:
        """The agents with their defaults written out (agent_spec.resolved): part of a run's identity."""
        return [resolved(parse_spec(agent, self.game), self.game) for agent in self.agents]

    def seating(self, start: int, end: int) -> list[list[str]]:
        """Agent names per seat for games start..end-1 (rotated one seat per game with rotate_seats)."""
        n = self.players
        if not self.rotate_seats:
            return [list(self.agents)] * (end - start)
        return [[self.agents[(seat + i) % n] for seat in range(n)] for i in range(start, end)]


def _package(game: str, module: str):
    return importlib.import_module(f"{GAME_PACKAGES[game]}.{module}")


def load_rules(config: str | os.PathLike[str], players: int) -> tuple[str, dict, Any]:
    """Read a config of either game (its `game` key says which) and validate it for `players`:
    (game, merged config, rules)."""
    merged, _ = load_toml(config)
    game = merged.get("game")
    if game not in GAME_PACKAGES:
        raise ConfigError(f"{config}: game: must be one of {', '.join(GAME_PACKAGES)}, got {game!r}")
    return game, merged, _package(game, "params").rules_from_mapping(merged, players, os.fspath(config))


def plan_run(config: str | os.PathLike[str], players: int, agents: str, seed: int,
             rotate_seats: bool) -> RunPlan:
    """Validate the inputs of a run (ConfigError on anything wrong) and fix its identity."""
    game, merged, rules = load_rules(config, players)
    specs = parse_agents(agents, players, game)
    return RunPlan(game, os.fspath(config), merged, rules.config_hash, players, tuple(str(a) for a in specs),
                   rotate_seats, seed)


_RULES_CACHE: dict[tuple[str, str, int], object] = {}


def _rules(plan: RunPlan):
    """The validated rules of a plan, built once per worker process."""
    key = (plan.game, plan.config_hash, plan.players)
    if key not in _RULES_CACHE:
        params = _package(plan.game, "params")
        _RULES_CACHE[key] = params.rules_from_mapping(plan.config, plan.players, plan.config_path)
    return _RULES_CACHE[key]


def play_chunk(plan: RunPlan, start: int, end: int) -> tuple[int, int, dict[str, bytes]]:
    """Play games start..end-1 and return their three tables as Parquet bytes (runs in a worker)."""

    from sim.rng import game_seeds
    from sim.run_tables import kamakura_tables, sakura_tables, to_parquet_bytes

    rules = _rules(plan)
    codes = _package(plan.game, "agents").AGENT_CODES
    seating = plan.seating(start, end)
    kinds, params = agent_arrays(seating, plan.game, codes)
    seeds = game_seeds(plan.seed, start, end - start)
    out = _package(plan.game, "batch").run_batch(rules, seeds, kinds, params)
    if plan.game == "kamakura":
        tables = kamakura_tables(start, seeds, seating, out, plan.config_hash, rules.order_chit_moves)
    else:
        params = _package("sakura", "params")
        tables = sakura_tables(start, seeds, seating, out, plan.config_hash, rules.cards,
                               params.GARDEN_ACTIONS, params.PAINTER_ACTIONS)
    return start, end, {name: to_parquet_bytes(table) for name, table in tables.items()}


# ---- the run directory ---------------------------------------------------------------------------------
class RunDirectory:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"

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
        done = self.parts(TABLES[0])
        for name in TABLES[1:]:
            done &= self.parts(name)
        return sorted(done)

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
        for name in TABLES:
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
        for name in TABLES:
            folder = self.table_dir(name)
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".tmp-{name_of}"
            tmp.write_bytes(parts[name])  # a rename is atomic for a killed process; no fsync needed
            staged.append((tmp, folder / name_of))
        for tmp, final in staged:  # games last: its presence marks the chunk finished
            os.replace(tmp, final)

    def remove_run(self) -> None:
        for name in TABLES:
            shutil.rmtree(self.table_dir(name), ignore_errors=True)
        self.manifest_path.unlink(missing_ok=True)


def smallest_chunk(plan: RunPlan) -> int:
    """1,000 games for the fast agents; 10 when a seat searches (mcts: seconds a game)."""
    return 10 if any(agent.startswith("mcts") for agent in plan.agents) else 1000


def missing_ranges(done: list[tuple[int, int]], games: int, jobs: int,
                   chunk: int | None = None, smallest: int = 1000) -> list[tuple[int, int]]:
    """Chunks covering 0..games-1 minus the finished ranges. Without a fixed `chunk`, sizes shrink as the
    work left shrinks (a quarter of it per job, `smallest` to 10,000 games), so the last chunks finish
    close together; for the fast agents smaller parts would cost more than their time saves (a part's
    fixed Parquet overhead is about 4 kB), but a searching agent takes seconds a game, and small chunks
    keep both the jobs busy and an interrupted run's losses small."""
    covered = bytearray(games)
    for a, b in done:
        covered[a:min(b, games)] = b"\x01" * (min(b, games) - a)
    remaining = games - sum(covered)
    out = []
    i = 0
    while i < games:
        if covered[i]:
            i += 1
            continue
        size = chunk or max(smallest, min(10000, -(-remaining // (4 * jobs))))
        j = i
        while j < games and not covered[j] and j - i < size:
            j += 1
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


def check_directory(run_dir: RunDirectory, plan: RunPlan, force: bool) -> dict | None:
    """Refuse (ConfigError) a directory that holds something else or a different run, unless forced."""
    if run_dir.path.exists() and not run_dir.path.is_dir():
        raise ConfigError(f"{run_dir.path}: --out is a file, not a run directory")
    manifest = run_dir.read_manifest()
    if manifest is None:
        if run_dir.path.exists() and any(p for p in run_dir.path.iterdir()):
            raise ConfigError(f"{run_dir.path}: --out is a non-empty folder that is not a run directory "
                              "(no manifest.json); choose another --out")
        return None
    ours = asdict(plan)
    ours["agents"] = list(plan.agents)
    ours["resolved_agents"] = plan.resolved_agents
    differs = [key for key in IDENTITY if manifest.get(key) != ours[key]]
    # Runs made before agents were recorded resolved lack the key: their agent strings must do.
    if manifest.get("resolved_agents", ours["resolved_agents"]) != ours["resolved_agents"]:
        differs.append("resolved_agents")
    if differs and not force:
        shown = "; ".join(f"{k}: run has {manifest.get(k)!r}, asked {ours[k]!r}" for k in differs)
        raise ConfigError(f"{run_dir.path}: made by a different run ({shown}); use another --out, "
                          "or --force to replace it")
    if differs:
        run_dir.remove_run()
        return None
    return manifest


# ---- execution -----------------------------------------------------------------------------------------
def _warm_worker(game: str) -> None:
    """Import a game's kernels and load them from numba's cache (or compile them) in a worker."""
    params = _package(game, "params")
    rules = params.default_rules(params.MIN_PLAYERS)
    from sim.rng import game_seeds

    _package(game, "batch").run_batch(rules, game_seeds(0, 0, 1), [0] * rules.players)


def prestart_workers(jobs: int, game: str | None) -> None:
    """Start the loky workers (and their kernel loading) now, so it overlaps this process's own set-up.
    Starts nothing when the run will not use loky workers."""
    if jobs < 2 or game not in GAME_PACKAGES:
        return
    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=jobs - 1)
    for _ in range(jobs - 1):
        executor.submit(_warm_worker, game)


def connect_dask(scheduler: str | None, jobs: int):
    """A dask client: the cluster at `scheduler`, or a LocalCluster of `jobs` single-threaded workers."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--backend dask: dask.distributed is not installed") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="5s")
        except (OSError, TimeoutError, ValueError) as err:
            raise ConfigError(f"--scheduler: cannot reach the dask scheduler at {scheduler}: {err}") from None
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster)


def run_chunks(plan: RunPlan, chunks: list[tuple[int, int]], jobs: int,
               backend: str) -> Iterator[tuple[int, int, dict[str, bytes]]]:
    """Chunk results as they finish, in any order.

    loky: jobs - 1 worker processes (joblib's reusable loky executor) plus this process, which plays
    chunks too, so the workers' start-up overlaps useful work. A feeder thread per worker hands it the
    next chunk the moment it is free; all take chunks from one list.
    Workers are reused from chunk to chunk and load the compiled kernels from numba's cache once; on a
    fresh checkout every process compiles them at the same time, which costs no more wall time than
    compiling first and loading after. dask: the same chunks through joblib's dask backend on the
    cluster the caller connected to.
    """
    if backend == "dask":
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend="dask"):
            yield from Parallel(return_as="generator_unordered")(
                delayed(play_chunk)(plan, a, b) for a, b in chunks)
        return
    waiting = list(reversed(chunks))
    if jobs == 1:
        while waiting:
            yield play_chunk(plan, *waiting.pop())
        return
    import queue
    import threading

    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=jobs - 1)
    lock = threading.Lock()
    results: queue.Queue = queue.Queue()
    stop = threading.Event()

    def take() -> tuple[int, int] | None:
        with lock:
            return waiting.pop() if waiting and not stop.is_set() else None

    def feed() -> None:
        """Keep one worker busy: each chunk is taken only when the worker is free, so the tail of the
        run never waits on a chunk queued behind a busy worker while this process idles."""
        try:
            while (chunk := take()) is not None:
                results.put(executor.submit(play_chunk, plan, *chunk).result())
        except BaseException as err:  # handed to the main thread, which re-raises it
            results.put(err)
        finally:
            results.put(None)

    feeders = [threading.Thread(target=feed, daemon=True) for _ in range(jobs - 1)]
    for thread in feeders:
        thread.start()
    running = len(feeders)
    try:
        while running:
            chunk = take()
            if chunk is not None:
                yield play_chunk(plan, *chunk)
            block = chunk is None  # wait for the workers only when nothing is left to play here
            while running:
                try:
                    item = results.get(block=block)
                except queue.Empty:
                    break
                block = False
                if item is None:
                    running -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
    finally:
        stop.set()
        for thread in feeders:
            thread.join()
        executor.shutdown(wait=True)  # idle workers exit now rather than in the interpreter's exit


@dataclass
class SimulateResult:
    run_dir: Path
    played: int
    already: int
    seconds: float


def simulate(plan: RunPlan, games: int, out: str | os.PathLike[str], jobs: int = 1, backend: str = "loky",
             scheduler: str | None = None, force: bool = False, chunk_size: int | None = None,
             progress: Callable[[int], None] | None = None) -> SimulateResult:
    run_dir = RunDirectory(out)
    manifest = check_directory(run_dir, plan, force)
    client = connect_dask(scheduler, jobs) if backend == "dask" else None
    try:
        run_dir.path.mkdir(parents=True, exist_ok=True)
        run_dir.clean_unfinished()
        done = run_dir.finished()
        already = sum(min(b, games) - a for a, b in done if a < games)
        todo = missing_ranges(done, games, jobs, chunk_size, smallest=smallest_chunk(plan))
        manifest = manifest or {**asdict(plan), "agents": list(plan.agents),
                                "resolved_agents": plan.resolved_agents, "created": time.time(),
                                "sessions": [], "wall_time_s": 0.0}
        manifest.update(games_asked=max(games, manifest.get("games_asked", 0)), games_finished=already,
                        config_path=plan.config_path, package_versions=_versions())
        run_dir.write_manifest(manifest)
        start = time.perf_counter()
        played = 0
        if todo:
            try:
                for a, b, parts in run_chunks(plan, todo, jobs, backend):
                    run_dir.write_chunk(a, b, parts)
                    played += b - a
                    if progress:
                        progress(b - a)
            finally:
                seconds = time.perf_counter() - start
                manifest["games_finished"] = sum(b - a for a, b in run_dir.finished())
                manifest["wall_time_s"] = manifest.get("wall_time_s", 0.0) + seconds
                manifest["sessions"].append({"started": time.time() - seconds, "seconds": round(seconds, 3),
                                             "games_played": played, "jobs": jobs, "backend": backend})
                run_dir.write_manifest(manifest)
        return SimulateResult(run_dir.path, played, already, time.perf_counter() - start)
    finally:
        if client is not None:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


def default_out(plan: RunPlan) -> Path:
    agents = "-".join(plan.agents) + ("-rotated" if plan.rotate_seats else "")
    stem = Path(plan.config_path).stem
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{plan.game}-{stem}-{plan.players}p-{agents}-seed{plan.seed}")
    return Path("runs") / name
