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
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sim.workbench.workspace import Refused, Workspace
from storage.run_lock import held_by

RUNNING, FINISHED, FAILED, STOPPED, INTERRUPTED = "running", "finished", "failed", "stopped", "interrupted"
#: a record on disk that is not a job this workbench could have written: listed, never followed or run
DAMAGED = "damaged"
KINDS = ("simulate", "compare", "values", "tune", "explore")
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
            job = read_record(path, self.workspace)
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
        if old.status == DAMAGED:
            raise Refused(f"{job_id}: its record is damaged ({old.error}); start the run again from the form")
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


class _About(BaseModel):
    """What a job record says for the page (`Job.about`)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    config: str
    start: str = ""
    players: int
    agents: str
    seed: int
    games: int
    until_decided: bool = False
    questions: list[str] | None = None
    folder: str | None = None
    had: int = 0
    had_each: list[int] | None = None


class _Record(BaseModel):
    """A job record as this workbench writes it (`Jobs._save`): checked before anything in it is used."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    id: Annotated[str, Field(pattern=r"^[a-z]+-\d{8}-\d{6}-\d+$")]
    kind: Literal[KINDS]  # type: ignore[valid-type]
    args: list[str]
    outs: list[str]
    started: float
    status: Literal[RUNNING, FINISHED, FAILED, STOPPED, INTERRUPTED, ENDED]  # type: ignore[valid-type]
    finished: float | None = None
    error: str = ""
    returncode: int | None = None
    about: _About


def read_record(path: Path, workspace: Workspace) -> Job:
    """The job a record holds, or (when it is not one this workbench wrote: damaged, edited, or naming a
    folder outside the workspace's runs) a DAMAGED job that is shown but never followed nor run."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1_000_000:
            raise ValueError("not a regular file of at most 1 MB")
        record = _Record.model_validate_json(path.read_bytes())
        if record.id != path.stem or not record.args or record.args[0] != record.kind:
            raise ValueError("its id, file name and command disagree")
        pairs = zip(record.args, record.args[1:], strict=False)
        named = [b for a, b in pairs if a == "--out"] + record.outs + [record.about.folder or "runs/x"]
        for out in named:
            if not _inside(workspace.runs, workspace.root / out):
                raise ValueError(f"it names {out!r}, outside the workspace's runs")
        return Job(**{**record.model_dump(), "about": record.about.model_dump(exclude_none=True)})
    except (OSError, ValueError) as err:
        reason = str(err)
        if isinstance(err, ValidationError):
            first = err.errors(include_url=False)[0]
            reason = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        return Job(path.stem, "damaged", [], [], _mtime(path), status=DAMAGED,
                   error=f"damaged record: {reason}", about={"config": path.name})


def _inside(folder: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve()) and path.resolve() != folder.resolve()


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
