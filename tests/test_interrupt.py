"""Ctrl-C: SIGINT to the process group of a command that plays games, the way a terminal sends it,
ends the command with one line on stderr and status 130, keeps every chunk finished before it (recorded,
none half-written), releases the run's lock and leaves no worker process running; the same command run
again completes, with the tables of an uninterrupted run.

The games are sized so that a chunk is in play for seconds when the signal comes. The product promises
2 s; that is measured by hand on an idle machine (the commit says the figures), while these tests only
require the command to end within LIMIT, far above it, so that a loaded machine cannot fail them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sim.app.runner import keep_results, plan_run, simulate
from sim.commands import main
from storage.backends import run_chunks
from storage.run_dir import RunDirectory
from storage.run_lock import held_by
from storage.run_parts import read_records
from tests.test_runner import assert_same_tables

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = str(ROOT / "configs" / "kamakura" / "base.toml")
SAKURA = str(ROOT / "configs" / "sakura" / "base.toml")
#: seconds from Ctrl-C to the end of the command that fail a test: the promise is 2 s, measured by hand;
#: a command that waited for its chunks in play would take minutes here
LIMIT = 20.0


@pytest.fixture
def start() -> Iterator[Callable[[list[str], Path], subprocess.Popen]]:
    """`start(ARGS, logs)`: `balance ARGS` in a session of its own (its pid is the session's id), output to
    files in `logs`; whatever a failed test leaves of it is killed afterwards."""
    started: list[subprocess.Popen] = []

    def run(args: list[str], logs: Path) -> subprocess.Popen:
        logs.mkdir(exist_ok=True)
        with open(logs / "stdout", "w") as out, open(logs / "stderr", "w") as err:
            started.append(subprocess.Popen([sys.executable, "-m", "sim", *args], cwd=ROOT, stdout=out,
                                            stderr=err, start_new_session=True))
        return started[-1]

    yield run
    for proc in started:
        if alive_in_session(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_until(proc: subprocess.Popen, ready, what: str, timeout: float = 600) -> None:
    """Poll until ready() (the command still running), or fail saying what never came."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, f"the command ended (status {proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.02)


def recorded(run: Path) -> int:
    """Games in the chunks `run`'s chunks.jsonl records (0 before its first)."""
    return sum(b - a for a, b in read_records(run)) if (run / "chunks.jsonl").is_file() else 0


def ctrl_c(proc: subprocess.Popen, logs: Path) -> tuple[float, str]:
    """SIGINT to the command's process group: the seconds until it ended (waited for up to a minute) and
    what it wrote on stderr after the signal."""
    said = (logs / "stderr").stat().st_size
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    proc.wait(timeout=60)
    seconds = time.monotonic() - sent
    with open(logs / "stderr", "rb") as f:
        f.seek(said)
        return seconds, f.read().decode()


def alive_in_session(sid: int) -> list[str]:
    """The command lines of the processes of session `sid` still running (zombies are not: a process whose
    parent has ended waits there for the system to reap it; nor is a process whose memory is already gone,
    an empty command line: a killed worker in its last moment of exiting)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        if int(fields[3]) == sid and fields[0] not in "ZX" and cmdline.strip():
            out.append(cmdline)
    return out


def assert_stopped(proc: subprocess.Popen, stopped: tuple[float, str]) -> str:
    """Status 130 within LIMIT, one line on stderr and no traceback; no worker left running, nor (soon
    after, once they read that the command is gone) loky's resource trackers. Returns the line."""
    left = alive_in_session(proc.pid)
    seconds, err = stopped
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert seconds < LIMIT, f"Ctrl-C took {seconds:.2f} s to stop the command"
    assert not [cmd for cmd in left if "resource_tracker" not in cmd], left
    deadline = time.monotonic() + LIMIT
    while alive_in_session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive_in_session(proc.pid)
    return err.strip()


def assert_kept(run: Path) -> int:
    """Every finished chunk of `run` recorded and whole, no temporary part, the manifest counting them, the
    lock free. Returns the games kept."""
    run_dir = RunDirectory(run)
    assert sorted(read_records(run)) == run_dir.finished() == run_dir.intact()
    assert not list(run.rglob(".tmp-*"))
    kept = run_dir.finished_total()
    assert run_dir.read_manifest().games_finished == kept
    assert held_by(run) is None
    return kept


@pytest.mark.parametrize("mode", [("--games", "900", "--jobs", "2"),
                                  ("--until-decided", "--games", "900", "--jobs", "1")],
                         ids=["jobs2", "until-decided-jobs1"])
def test_ctrl_c_stops_simulate_and_the_run_resumes(tmp_path: Path, start, mode: tuple[str, ...]) -> None:
    """Two jobs (a lane in the command and a loky worker), or one in rounds until decided (900 the cap),
    expert chunks of seconds each: the signal comes a second after the first chunk is recorded, with
    chunks in play."""
    args = ["simulate", KAMAKURA, "--players", "3", "--agents", "expert", *mode, "--chunk-size", "300",
            "--seed", "5", "--quiet", "--out", str(tmp_path / "cut")]
    proc = start(args, tmp_path / "logs")
    wait_until(proc, lambda: recorded(tmp_path / "cut"), "chunk recorded")
    time.sleep(1)  # into the chunks in play (a moment after a record the command may be between kernels)
    line = assert_stopped(proc, ctrl_c(proc, tmp_path / "logs"))
    kept = assert_kept(tmp_path / "cut")
    assert 0 < kept < 900
    assert line == (f"balance: interrupted: {kept:,} games kept in {tmp_path / 'cut'}; run the same command "
                    "again to resume")
    again = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "--until-decided" in mode or f"({kept} were already there)" in again.stdout
    whole = RunDirectory(tmp_path / "cut").finished_total()  # 900, or where the verdicts were decided
    simulate(plan_run(KAMAKURA, 3, "expert", 5, False), whole, tmp_path / "whole", jobs=1)
    assert_same_tables(tmp_path / "whole", tmp_path / "cut")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_compare_until_decided_and_it_resumes(tmp_path: Path, start, jobs: str) -> None:
    """`balance compare --until-decided` with one job (its chunks play in the command itself) or two,
    stopped a tenth of a second into the variant's chunks (six players' greedy games: the whole variant
    takes about a second on a quiet machine), its base finished."""
    variant = tmp_path / "shared.toml"
    variant.write_text(f'extends = "{SAKURA}"\n\n[rules]\ntie_break = "shared"\n')
    out = tmp_path / "compare"
    args = ["compare", SAKURA, str(variant), "--players", "6", "--agents", "greedy", "--until-decided",
            "--games", "1000", "--jobs", jobs, "--seed", "3", "--quiet", "--out", str(out)]
    proc = start(args, tmp_path / "logs")
    wait_until(proc, lambda: (out / "variant" / "manifest.json").is_file(), "variant started")
    time.sleep(0.1)  # into its chunks
    line = assert_stopped(proc, ctrl_c(proc, tmp_path / "logs"))
    kept = assert_kept(out / "variant")
    assert assert_kept(out / "base") == 1000 and kept < 1000
    base = read_records(out / "base")
    assert line == (f"balance: interrupted: {1000 + kept:,} games kept in {out} (base 1,000, variant "
                    f"{kept:,}); run the same command again to resume")
    again = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "1,000 games each" in again.stdout
    assert read_records(out / "base") == base  # kept, not played again
    simulate(plan_run(variant, 6, "greedy", 3, False), 1000, tmp_path / "whole", jobs=1)
    assert_same_tables(tmp_path / "whole", out / "variant")


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_ctrl_c_between_rounds_says_the_games_kept(tmp_path: Path, monkeypatch, capsys, command: str) -> None:
    """Ctrl-C while an --until-decided run reads its verdicts (no chunk in play) says what it kept too."""
    def cut(play_to, judge, *args, **kwargs):
        play_to(200)
        judge()
        raise KeyboardInterrupt

    caller = {"simulate": "sim.commands.simulate", "compare": "sim.app.compare"}[command]
    monkeypatch.setattr(f"{caller}.play_until_decided", cut)  # patched where it is called
    configs = [KAMAKURA] + ([str(ROOT / "configs" / "kamakura" / "tie-shared.toml")] if command == "compare"
                            else [])
    out = tmp_path / "run"
    assert main([command, *configs, "--players", "3", "--agents", "greedy", "--until-decided", "--jobs", "1",
                 "--seed", "2", "--quiet", "--out", str(out)]) == 130
    kept = "400 games kept in {} (base 200, variant 200)" if command == "compare" else "200 games kept in {}"
    assert capsys.readouterr().err == (f"balance: interrupted: {kept.format(out)}; run the same command "
                                       "again to resume\n")


def test_results_in_hand_at_ctrl_c_are_kept() -> None:
    """Ctrl-C while the caller writes a chunk: the chunk another lane finished meanwhile is still handed
    out (and written), the chunk in play is not waited for."""
    in_play, release = threading.Event(), threading.Event()

    def task(a: int, b: int) -> int:
        if a == 2:
            in_play.set()
            release.wait(20)
        return a

    kept: list[int] = []

    def keep(a: int) -> None:
        kept.append(a)
        if a == 0:
            assert in_play.wait(20)  # chunk 1 is in hand, chunk 2 in play
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        keep_results(run_chunks(task, [(0, 1), (1, 2), (2, 3), (3, 4)], 1, "loky"), keep)
    release.set()
    assert kept == [0, 1]


def test_ctrl_c_stops_a_command_inside_a_kernel_in_2_s(tmp_path: Path, start) -> None:
    """`balance study` plays its games in one kernel call in its main thread, where Python sees no Ctrl-C
    until the kernel returns (minutes here): the watch (sim/commands/interrupt.py) ends it."""
    proc = start(["study", KAMAKURA, "--players", "3", "--agents", "expert", "--games", "10000"],
                 tmp_path / "logs")
    time.sleep(8)  # past its start-up, into the kernel
    assert proc.poll() is None
    line = assert_stopped(proc, ctrl_c(proc, tmp_path / "logs"))
    assert line == "balance: interrupted"


LEAK = """
import os
from joblib.externals.loky.backend import resource_tracker
{quiet}
resource_tracker.ensure_running()
resource_tracker.register("/balance-test-leak-{pid}", "semlock")
os._exit(0)
"""


@pytest.mark.parametrize("quiet", [True, False], ids=["quieted", "as-loky-is"])
def test_a_leaked_semaphore_says_nothing_after_the_line(tmp_path: Path, quiet: bool) -> None:
    """A worker killed on Ctrl-C can leave a semaphore registered with loky's resource tracker, which
    unlinks it once the command has gone and warned about it on the terminal, after the command's one
    line. The `balance` process quiets its trackers (interrupt.quiet_trackers); here a process registers
    a semaphore it never made and exits at once, and its stderr (which the tracker shares) stays empty
    only when quieted (loky as it is warns, so that the test can see the noise)."""
    quieting = "from sim.commands import interrupt; interrupt.quiet_trackers()" if quiet else ""
    err_path = tmp_path / "stderr"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONWARNINGS"}
    with open(err_path, "w") as err:
        proc = subprocess.Popen([sys.executable, "-c", LEAK.format(quiet=quieting, pid=os.getpid())],
                                cwd=ROOT, stderr=err, env=env, start_new_session=True)
    assert proc.wait(timeout=60) == 0
    deadline = time.monotonic() + 60
    while alive_in_session(proc.pid) and time.monotonic() < deadline:  # the tracker, cleaning up
        time.sleep(0.05)
    assert not alive_in_session(proc.pid)
    said = err_path.read_text()
    assert (said == "") if quiet else ("leaked semlock" in said), said
