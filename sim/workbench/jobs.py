"""The workbench's background work: each job is one `balance` command in a child process, run in the
workspace, with its record (`.workbench/jobs/<id>.json`) and its output (`<id>.log`) beside it.

Why a child process and not a thread: the run is then exactly the command line the page shows (the same
tables, the same resume, the same lock), a run that fails or is stopped cannot take the server with it,
and a server restarted mid-run finds the record and offers to run the command again, which plays only the
games that are missing. A run directory written by anyone else (another tab's job, a terminal) is refused
before anything starts, naming the holder as the lock records it.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sim.workbench.workspace import Refused, Workspace
from storage.run_lock import held_by

RUNNING, FINISHED, FAILED, STOPPED, INTERRUPTED = "running", "finished", "failed", "stopped", "interrupted"
#: a job whose command outlived the server that started it, seen ending by the next one: its tables are
#: whole as far as they go; running it again plays anything missing
ENDED = "ended"


@dataclass
class Job:
    """One command: what it is (`kind`: simulate, compare), its arguments after `balance`, the run
    directories it writes (relative to the workspace), and how it went."""

    id: str
    kind: str
    args: list[str]
    outs: list[str]
    started: float
    status: str = RUNNING
    finished: float | None = None
    error: str = ""
    returncode: int | None = None
    #: what the page needs again to show it: config, start, players, agents, seed, games
    about: dict = field(default_factory=dict)

    @property
    def command(self) -> str:
        """The command line that does what this job does, run in the workspace folder."""
        return shlex.join(["balance", *self.args])

    @property
    def active(self) -> bool:
        return self.status == RUNNING


class Jobs:
    """The jobs of one workspace: started here, or found on disk from an earlier server."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.jobs: dict[str, Job] = {}
        self._procs: dict[str, subprocess.Popen] = {}
        self._stopping: set[str] = set()  # jobs asked to stop, until their command has ended
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        for path in sorted(self.workspace.jobs.glob("*.json")):
            try:
                job = Job(**json.loads(path.read_text()))
            except (OSError, ValueError, TypeError):
                continue
            self.jobs[job.id] = job
            if job.active and any(held_by(self.workspace.root / out) for out in job.outs):
                threading.Thread(target=self._watch_lock, args=(job,), daemon=True).start()
            elif job.active:  # its server stopped: the games it finished are on disk, the rest can be played
                job.status = INTERRUPTED
                self._save(job)

    def _watch_lock(self, job: Job) -> None:
        """Follow a command an earlier server started until it lets go of its run directories."""
        while any(held_by(self.workspace.root / out) for out in job.outs):
            time.sleep(1.0)
        with self._lock:
            job.status, job.finished = ENDED, time.time()
            self._save(job)

    def _save(self, job: Job) -> None:
        path = self.workspace.jobs / f"{job.id}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(job), indent=1))
        os.replace(tmp, path)

    def log_path(self, job: Job) -> Path:
        return self.workspace.jobs / f"{job.id}.log"

    def start(self, kind: str, args: list[str], outs: list[str], about: dict) -> Job:
        """Start `balance <args>` in the workspace; Refused if one of `outs` is being written."""
        with self._lock:
            for out in outs:
                mine = [j for j in self.jobs.values() if j.active and out in j.outs]
                holder = (f"this workbench's job {mine[0].id}: {mine[0].command}" if mine
                          else held_by(self.workspace.root / out))
                if holder:
                    raise Refused(f"{out}: another balance process is writing this run ({holder}); wait "
                                  "for it to finish, or stop it")
            job = Job(self._new_id(kind), kind, args, outs, time.time(), about=about)
            self._launch(job)
            return job

    def resume(self, job_id: str) -> Job:
        """Run an ended job's command again (it plays only what is missing)."""
        old = self.get(job_id)
        if old.active:
            raise Refused(f"{job_id}: still running")
        return self.start(old.kind, old.args, old.outs, old.about)

    def _new_id(self, kind: str) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        n = 1
        while f"{kind}-{stamp}-{n}" in self.jobs:
            n += 1
        return f"{kind}-{stamp}-{n}"

    def _launch(self, job: Job) -> None:
        log = self.log_path(job).open("w")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "sim", *job.args], cwd=self.workspace.root,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env)
        log.close()
        self.jobs[job.id], self._procs[job.id] = job, proc
        self._save(job)
        threading.Thread(target=self._wait, args=(job, proc), daemon=True).start()

    def _wait(self, job: Job, proc: subprocess.Popen) -> None:
        code = proc.wait()
        with self._lock:
            job.returncode, job.finished = code, time.time()
            if job.id in self._stopping:
                job.status = STOPPED
            elif job.status == RUNNING:
                job.status = FINISHED if code == 0 else FAILED
                job.error = "" if code == 0 else failure_text(self.log_path(job).read_text())
            self._procs.pop(job.id, None)
            self._save(job)

    def get(self, job_id: str) -> Job:
        if job_id not in self.jobs:
            raise Refused(f"job {job_id!r}: no such job in this workspace")
        return self.jobs[job_id]

    def stop(self, job_id: str) -> Job:
        """Stop a running job (its finished chunks stay; resuming plays the rest)."""
        job = self.get(job_id)
        proc = self._procs.get(job_id)
        if proc is not None and job.active:
            self._stopping.add(job_id)  # it reads "stopped" once the command has let go of its runs
            _signal_group(proc, signal.SIGTERM)
        return job

    def shutdown(self, grace: float = 10.0) -> None:
        """Stop every running job and wait for them, as the server stops."""
        procs = list(self._procs.items())
        for job_id, proc in procs:
            self._stopping.add(job_id)
            _signal_group(proc, signal.SIGTERM)
        deadline = time.time() + grace
        for _, proc in procs:
            try:
                proc.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
        for job_id, _ in procs:
            self.jobs[job_id].status = STOPPED
            self._save(self.jobs[job_id])

    def listed(self) -> list[Job]:
        """Every job, the newest first."""
        return sorted(self.jobs.values(), key=lambda j: j.started, reverse=True)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)  # the command and its worker processes
    except ProcessLookupError:
        pass


def failure_text(log: str) -> str:
    """What a failed command said: its `balance: ...` lines (the command line's refusals and failures),
    else the last lines of its output."""
    lines = [line for line in log.splitlines() if line.strip()]
    said = [line for line in lines if line.startswith("balance: ")]
    return "\n".join(said or lines[-12:]) or "the command ended without saying why"
