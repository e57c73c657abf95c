"""One writer per run directory (storage/run_lock.py), with real concurrent processes:
a second `simulate` on a directory another one is writing is refused at once (exit 2, naming the holder),
or with --wait runs after it; either way no game is lost or duplicated and the tables equal an
uninterrupted `--jobs 1` run of the same seed. A killed holder leaves no lock behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from storage.run_lock import LOCK_NAME
from tests.test_runner import KAMAKURA, ROOT, assert_same_tables, simulate

ARGS = [KAMAKURA, "--players", "3", "--agents", "greedy", "--seed", "5", "--jobs", "1", "--chunk-size", "300"]


def start(out: Path, games: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sim", "simulate", *ARGS, "--games", str(games), "--out",
                             str(out), "--quiet", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_holder(out: Path, proc: subprocess.Popen) -> dict:
    """The lock record once the process holds the lock (it writes its pid there)."""
    deadline = time.time() + 300
    lock = out / LOCK_NAME
    while time.time() < deadline:
        text = lock.read_text() if lock.is_file() else ""
        if text:
            return json.loads(text)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("the first run never took the lock")


def test_a_second_writer_is_refused_naming_the_first(tmp_path: Path) -> None:
    """The table's first two rows: resumes with different (or the same) --games started together."""
    whole = simulate(*ARGS, "--games", "3000", "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "run"
    assert simulate(*ARGS, "--games", "300", "--out", str(out)).returncode == 0
    first = start(out, 3000)
    holder = wait_for_holder(out, first)
    assert holder["pid"] == first.pid
    os.killpg(first.pid, signal.SIGSTOP)  # held still, so however fast its games it holds the lock now
    try:
        for games in ("9000", "3000"):
            second = simulate(*ARGS, "--games", games, "--out", str(out))
            assert second.returncode == 2, second.stdout
            assert f"pid {first.pid}" in second.stderr and "--wait" in second.stderr
            assert "Traceback" not in second.stderr and len(second.stderr.strip().splitlines()) == 1
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert first.wait(timeout=600) == 0, first.stderr.read()
    assert_same_tables(tmp_path / "whole", out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games_finished"] == 3000
    assert sum(s["games_played"] for s in manifest["sessions"]) == 3000  # every game played once
    assert (out / LOCK_NAME).read_text() == ""  # let go


def test_with_wait_the_second_runs_after_the_first(tmp_path: Path) -> None:
    whole = simulate(*ARGS, "--games", "2400", "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "run"
    first = start(out, 1500, "--wait")
    wait_for_holder(out, first)
    second = start(out, 2400, "--wait")
    assert first.wait(timeout=600) == 0 and second.wait(timeout=600) == 0
    stdout = second.stdout.read()
    assert "900 games played (1500 were already there)" in stdout, stdout
    assert_same_tables(tmp_path / "whole", out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["games_played"] for s in manifest["sessions"]] == [1500, 900]


def test_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = start(out, 30000)
    wait_for_holder(out, first)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    again = simulate(*ARGS, "--games", "600", "--out", str(out))
    assert again.returncode == 0, again.stderr  # the kernel dropped the dead holder's lock


def test_a_holder_killed_while_writing_its_first_manifest_is_resumed(tmp_path: Path) -> None:
    # what a SIGKILL between the manifest's write and its rename leaves (seen once in CI on a loaded
    # machine): the lock and the manifest half written; the folder is the run's own, not someone else's
    from storage.run_dir import MANIFEST_TMP

    out = tmp_path / "run"
    out.mkdir()
    (out / LOCK_NAME).write_text("")
    (out / MANIFEST_TMP).write_text('{"game": "kama')
    again = simulate(*ARGS, "--games", "600", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "manifest.json").read_text())["games_finished"] == 600
    assert not (out / MANIFEST_TMP).exists()


def test_a_sweep_folder_has_one_writer(tmp_path: Path) -> None:
    from sim.core.errors import ConfigError
    from storage.run_lock import RunLock

    with RunLock(tmp_path / "sweep"):
        sweep_file = str(ROOT / "configs/sweeps/kamakura-tie-break.toml")
        folder = str(tmp_path / "sweep")
        done = subprocess.run([sys.executable, "-m", "sim", "sweep", sweep_file, "--out", folder, "--quiet"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and f"pid {os.getpid()}" in done.stderr, done.stderr
        try:
            with RunLock(tmp_path / "sweep"):
                raise AssertionError("a second lock in the same process family must be refused too")
        except ConfigError as err:
            assert "another balance process" in str(err)
    assert not (tmp_path / "sweep" / "sweep.json").exists()  # the refused sweep wrote nothing


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = {int(x) for x in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += sorted(kids - out)
            out |= kids
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_runner_leaves_no_worker_alive(tmp_path: Path) -> None:
    """Kill -9 of a `--jobs 2` run (the runner only, not its process group): its loky
    workers watch it and are gone within 5 s."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "simulate", *ARGS[:-4], "--jobs", "2", "--games",
                             "200000", "--chunk-size", "200", "--out", str(out), "--quiet"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_holder(out, proc)
    deadline = time.time() + 120
    while time.time() < deadline and not (out / "games.parquet").is_dir():
        time.sleep(0.1)  # the workers are playing
    children = _descendants(proc.pid)
    assert children, "a --jobs 2 run has worker processes"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(c) for c in children):
        time.sleep(0.1)
    assert not [c for c in children if _alive(c)], "workers outlived their runner by more than 5 s"
