"""The parallel backends every by-chunks job runs on: joblib's reusable loky executor (jobs - 1 workers
plus the calling process) and Dask (a LocalCluster, or the cluster at --scheduler), with the watch that
ends a loky worker whose parent was killed. A task is any picklable function of a chunk (start, end);
nothing here knows what a chunk holds.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from joblib import Parallel, delayed, parallel_config
from joblib.externals.loky import get_reusable_executor

from sim.core.errors import ConfigError

_RUNNER_PID = "BALANCE_RUNNER_PID"  # the runner's pid, in its loky workers' environment (worker_env)
_watching = False


def watch_runner() -> None:
    """In a loky worker (its environment names the runner, worker_env): exit within half a second once
    the runner that started it is gone (a kill -9 of `balance simulate` would otherwise leave loky workers
    and their resource tracker alive for 40 s or more). Does nothing in the runner itself."""
    global _watching
    runner = int(os.environ.get(_RUNNER_PID, "0") or 0)
    if _watching or runner in (0, os.getpid()):
        return
    _watching = True

    def watch() -> None:
        while True:
            try:
                os.kill(runner, 0)
            except ProcessLookupError:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, name="watch-runner", daemon=True).start()


def worker_env() -> dict[str, str]:
    """The environment the loky workers get: the pid they watch (watch_runner)."""
    return {_RUNNER_PID: str(os.getpid())}


def close_dask(client) -> None:
    """Close a `connect_dask` client, and the LocalCluster it started (a --scheduler's cluster stays)."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


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


class StudyCluster:
    """The Dask cluster every run of a study (sheet, profile, sweep, ladder, explore) plays on: one client
    for the whole study, not one LocalCluster a run. `scheduler`: a running cluster's address, reached at
    once (`connect`: an unreachable one is refused before anything is written); None: a LocalCluster of
    `jobs` single-threaded workers, started at the study's first game (bad input, or a finished study run
    again, starts none). Closed when the study ends (`study_cluster`)."""

    def __init__(self, scheduler: str | None, jobs: int) -> None:
        self.scheduler, self.jobs = scheduler, jobs
        self._client: Any = None

    def connect(self) -> None:
        """Reach a --scheduler now (ConfigError when it cannot be reached); a LocalCluster waits."""
        if self.scheduler:
            self.client()

    def client(self) -> Any:
        """The study's client, connected at its first call (`connect_dask`), the same one afterwards."""
        if self._client is None:
            self._client = connect_dask(self.scheduler, self.jobs)
        return self._client

    def close(self) -> None:
        """Close the client, and the LocalCluster it started (a --scheduler's cluster stays)."""
        if self._client is not None:
            close_dask(self._client)
            self._client = None


@contextmanager
def study_cluster(backend: str, scheduler: str | None, jobs: int) -> Iterator[StudyCluster | None]:
    """The StudyCluster of a study's `--backend dask` (closed on leaving, Ctrl-C and errors included), or
    None with loky (each run then plays on this machine's `jobs` processes, as ever)."""
    if backend != "dask":
        yield None
        return
    cluster = StudyCluster(scheduler, jobs)
    try:
        cluster.connect()
        yield cluster
    finally:
        cluster.close()


def run_chunks(task: Callable[[int, int], Any], chunks: list[tuple[int, int]], jobs: int,
               backend: str, client: Any = None) -> Iterator[Any]:
    """`task(start, end)` of every chunk, results as they finish, in any order.

    loky: `jobs` lanes take chunks from one list, each the moment it is free: one plays them in this
    process (so the workers' start-up overlaps useful work), the others hand them to jobs - 1 worker
    processes (joblib's reusable loky executor), which load the compiled kernels from numba's cache once
    and are reused from chunk to chunk. Every lane is a thread: this thread only waits for results, so
    Ctrl-C reaches it at once (a KeyboardInterrupt waits for the bytecode a numba kernel is inside), and
    the kernels release the GIL while games play. On any exit but the end (Ctrl-C, an error, the caller
    stopping), `abandon` kills the workers; results that reached this process before Ctrl-C are handed
    out first. dask: the same chunks through joblib's dask backend on `client`'s cluster (the one the
    caller connected; None: dask's default client).
    """
    if backend == "dask":
        with parallel_config(backend="dask", client=client):
            yield from Parallel(return_as="generator_unordered")(
                delayed(task)(a, b) for a, b in chunks)
        return
    lanes = _Lanes(task, chunks, jobs)
    finished = False
    try:
        try:
            yield from lanes.played()
        except KeyboardInterrupt:
            lanes.stop.set()
            yield from lanes.ready()  # chunks played before the signal: still the caller's to keep
            raise
        finished = True
    finally:
        if finished:
            lanes.close()
        else:
            lanes.abandon()


def told_results(results: Generator[Any, None, None], interrupt: KeyboardInterrupt) -> Iterator[Any]:
    """The results a `run_chunks` generator still hands out once told of a Ctrl-C its caller caught while
    keeping a result (between results, where the generator cannot see it): it stops its lanes and gives the
    results that reached this process before the signal (none if it raised the signal itself). The caller
    loops over the results and keeps them (sim.app.runner.keep_results): storage hands results up, it
    calls nothing of the caller's."""
    try:
        yield results.throw(interrupt)
        yield from results
    except (KeyboardInterrupt, StopIteration):
        return


class _Lanes:
    """The lanes of `run_chunks` (loky): threads that take chunks from one list and put each result (or
    the exception that stopped the lane, then None when the lane ends) on one queue."""

    def __init__(self, task: Callable[[int, int], Any], chunks: list[tuple[int, int]], jobs: int) -> None:
        self.waiting = list(reversed(chunks))
        self.lock = threading.Lock()
        self.results: queue.Queue = queue.Queue()
        self.stop = threading.Event()
        self.executor = loky_executor(jobs) if jobs > 1 else None
        plays = [task] + [partial(_in_worker, self.executor, task) for _ in range(jobs - 1)]
        self.threads = [threading.Thread(target=self.lane, args=(play,), daemon=True) for play in plays]
        self.running = len(self.threads)
        for thread in self.threads:
            thread.start()

    def take(self) -> tuple[int, int] | None:
        with self.lock:
            return self.waiting.pop() if self.waiting and not self.stop.is_set() else None

    def lane(self, play: Callable[[int, int], Any]) -> None:
        """Play chunks until none is left: each taken only when this lane is free, so the tail of the run
        never waits on a chunk queued behind a busy worker while another lane idles."""
        try:
            while (chunk := self.take()) is not None:
                self.results.put(play(*chunk))
        except BaseException as err:  # handed to the waiting thread, which re-raises it
            self.results.put(err)
        finally:
            self.results.put(None)

    def played(self) -> Iterator[Any]:
        """The chunks' results as they come, until every lane has ended; a lane's exception re-raised."""
        while self.running:
            item = self.results.get()  # a wait Ctrl-C interrupts at once
            if item is None:
                self.running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item

    def ready(self) -> Iterator[Any]:
        """The results already waiting on the queue (not the lanes' ends or errors)."""
        while True:
            try:
                item = self.results.get_nowait()
            except queue.Empty:
                return
            if item is not None and not isinstance(item, BaseException):
                yield item

    def close(self) -> None:
        """Every chunk played: join the lanes, and let the idle workers exit now rather than in the
        interpreter's exit."""
        for thread in self.threads:
            thread.join()
        if self.executor is not None:
            self.executor.shutdown(wait=True)

    def abandon(self) -> None:
        """Stop taking chunks and kill the workers (their chunks in play are lost; a finished chunk is on
        disk already). The lane of this process finishes the chunk its kernel is inside (a kernel cannot
        be stopped from outside) and takes no other; the `balance` command exits without waiting for it."""
        self.stop.set()
        if self.executor is not None:
            self.executor.shutdown(wait=True, kill_workers=True)


def _in_worker(executor: Any, task: Callable[[int, int], Any], start: int, end: int) -> Any:
    """`task(start, end)` in one of the executor's workers, waited for."""
    return executor.submit(task, start, end).result()


def loky_executor(jobs: int):
    """joblib's reusable loky executor of jobs - 1 workers, each watching this process (watch_runner)."""
    return get_reusable_executor(max_workers=jobs - 1, env=worker_env())


@contextmanager
def parallel_backend(backend: str, jobs: int) -> Iterator[None]:
    """joblib's loky backend, or its dask backend on a LocalCluster of `jobs` workers (closed on leaving):
    the one code path of every by-parts figure."""
    if backend != "dask":
        with parallel_config(backend="loky"):
            yield
        return
    client = connect_dask(None, jobs)
    try:
        with parallel_config(backend="dask"):
            yield
    finally:
        close_dask(client)
