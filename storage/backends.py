"""The parallel backends every by-chunks job runs on: joblib's reusable loky executor (jobs - 1 workers
plus the calling process) and Dask (a LocalCluster, or the cluster at --scheduler), with the watch that
ends a loky worker whose parent was killed. A task is any picklable function of a chunk (start, end);
nothing here knows what a chunk holds.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sim.errors import ConfigError

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


def run_chunks(task: Callable[[int, int], Any], chunks: list[tuple[int, int]], jobs: int,
               backend: str) -> Iterator[Any]:
    """`task(start, end)` of every chunk, results as they finish, in any order.

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
                delayed(task)(a, b) for a, b in chunks)
        return
    waiting = list(reversed(chunks))
    if jobs == 1:
        while waiting:
            yield task(*waiting.pop())
        return
    import queue


    executor = loky_executor(jobs)
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
                results.put(executor.submit(task, *chunk).result())
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
                yield task(*chunk)
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




def loky_executor(jobs: int):
    """joblib's reusable loky executor of jobs - 1 workers, each watching this process (watch_runner)."""
    from joblib.externals.loky import get_reusable_executor

    return get_reusable_executor(max_workers=jobs - 1, env=worker_env())


@contextmanager
def parallel_backend(backend: str, jobs: int) -> Iterator[None]:
    """joblib's loky backend, or its dask backend on a LocalCluster of `jobs` workers (closed on leaving):
    the one code path of every by-parts figure."""
    from joblib import parallel_config

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
