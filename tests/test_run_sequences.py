"""A property over whole histories of one run directory: random sequences of
kill -9, resume, extend and two writers started together end, after one last resume, with tables equal to
an uninterrupted `--jobs 1` run of the same seed: no game lost, none duplicated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_runner import KAMAKURA, ROOT, assert_same_tables, simulate

ARGS = [KAMAKURA, "--players", "3", "--agents", "random", "--seed", "8", "--jobs", "1", "--chunk-size", "100"]
STEP = st.one_of(
    st.tuples(st.just("run"), st.integers(1, 10)),  # play to n hundred games
    st.tuples(st.just("kill"), st.integers(5, 20), st.integers(1, 4)),  # to n hundred, kill after k parts
    st.tuples(st.just("together"), st.integers(1, 10), st.integers(1, 10)),  # two writers at once
)


def start(out: Path, hundreds: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sim", "simulate", *ARGS, "--games", str(100 * hundreds),
                             "--out", str(out), "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def parts(out: Path) -> int:
    folder = out / "games.parquet"
    return len(list(folder.glob("part-*"))) if folder.is_dir() else 0


@settings(deadline=None, max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=4))
def test_any_history_ends_with_the_uninterrupted_tables(tmp_path_factory, steps) -> None:
    tmp = tmp_path_factory.mktemp("history")
    out = tmp / "run"
    most = 1
    for step in steps:
        if step[0] == "run":
            most = max(most, step[1])
            assert simulate(*ARGS, "--games", str(100 * step[1]), "--out", str(out)).returncode == 0
        elif step[0] == "kill":
            most = max(most, step[1])
            before = parts(out)
            proc = start(out, step[1])
            deadline = time.time() + 120
            while proc.poll() is None and parts(out) < before + step[2] and time.time() < deadline:
                time.sleep(0.01)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        else:
            most = max(most, step[1], step[2])
            a, b = start(out, step[1]), start(out, step[2])
            codes = {a.wait(timeout=300), b.wait(timeout=300)}
            assert codes <= {0, 2}, (a.stderr.read(), b.stderr.read())  # 2: refused, the other was writing
    assert simulate(*ARGS, "--games", str(100 * most), "--out", str(out)).returncode == 0
    whole = tmp / "whole"
    assert simulate(*ARGS, "--games", str(100 * most), "--out", str(whole)).returncode == 0
    assert_same_tables(whole, out)
    assert not list(out.rglob(".tmp-*"))
