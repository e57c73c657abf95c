"""Machine failures are one line, not a traceback: a --games whose logs cannot fit
is refused before anything is written; an --out or report --out where a file stands, exit 2; a disk that
fills mid-run stops it with exit 1 after the finished chunks are safe and the manifest is true, with no
.tmp- file left, and the same command then plays the rest."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from sim.app import runner
from sim.app.runner import plan_run
from sim.app.runner import simulate as simulate_plan
from sim.core.errors import ConfigError, RunFailed
from tests.test_run_integrity import ARGS, balance
from tests.test_runner import KAMAKURA, assert_same_tables, simulate


def one_line(done, code: int, *words: str) -> None:
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def test_games_past_the_cap_are_refused_in_one_line_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "huge"
    one_line(simulate(*ARGS, "--games", "10000000000000", "--out", str(out)), 2, "--games",
             "at most 1,000,000,000")
    assert not out.exists()


def test_games_beyond_the_disk_are_refused_before_anything_is_written(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "huge"
    monkeypatch.setattr(runner.shutil, "disk_usage", lambda place: SimpleNamespace(free=10**6))
    with pytest.raises(ConfigError, match=r"--games 100,000: its logs need about .* GB free; ask for fewer"):
        runner.check_budget(plan_run(KAMAKURA, 3, "random", 3, False), 100_000, out)
    assert not out.exists()


def test_a_file_where_a_folder_should_be(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line(simulate(*ARGS, "--games", "100", "--out", str(blocker / "run")), 2, str(blocker))
    run = tmp_path / "run"
    assert simulate(*ARGS, "--games", "200", "--out", str(run)).returncode == 0
    one_line(balance("report", str(run), "--out", str(blocker)), 2, str(blocker))
    assert blocker.read_text() == "x"


def test_a_full_disk_mid_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = tmp_path / "whole"
    assert simulate(*ARGS, "--games", "1000", "--out", str(whole)).returncode == 0
    plan = plan_run(KAMAKURA, 3, "random", 3, False)
    real = Path.write_bytes

    def fills_up(self: Path, data: bytes) -> int:
        # the third chunk's events part is written, then the disk is full at its players part
        if self.name == ".tmp-part-0000000400-0000000600.parquet" and self.parent.name == "players.parquet":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", fills_up)
    run = tmp_path / "run"
    with pytest.raises(RunFailed, match="No space left on device; the run stopped after 400 finished games"):
        simulate_plan(plan, 1000, run, jobs=1, chunk_size=200)
    monkeypatch.setattr(Path, "write_bytes", real)
    assert not list(run.rglob(".tmp-*"))  # the half-written chunk's events part went with it
    assert json.loads((run / "manifest.json").read_text())["games_finished"] == 400
    again = simulate(*ARGS, "--games", "1000", "--out", str(run))
    assert again.returncode == 0 and "600 games played (400 were already there)" in again.stdout
    assert not list(run.rglob(".tmp-*"))
    assert_same_tables(whole, run)


def test_a_read_only_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """`--out` and `report --out` on a read-only filesystem: one line naming the path and the cause, exit 2,
    nothing written. The suite runs as root, which writes through permission bits, so the filesystem's
    refusal (EROFS, what `mount -o ro` gives) is raised where the commands create their folders."""
    from sim.commands import main

    read_only = tmp_path / "ro"
    read_only.mkdir()
    real = Path.mkdir

    def refuses(self: Path, *args, **kwargs) -> None:
        if self == read_only or read_only in self.parents:
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        real(self, *args, **kwargs)

    run = tmp_path / "run"
    assert simulate(*ARGS, "--games", "100", "--out", str(run)).returncode == 0
    monkeypatch.setattr(Path, "mkdir", refuses)
    for argv in (["simulate", *ARGS, "--games", "100", "--out", str(read_only / "run")],
                 ["report", str(run), "--out", str(read_only / "report")]):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and str(read_only) in err and "Read-only file system" in err, err
    assert list(read_only.iterdir()) == []
