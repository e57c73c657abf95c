"""Never lose a designer's file, the command line's half: every --out follows one rule (a folder that
exists, is not empty and is not this command's own earlier output is refused before anything is played,
and `~` is the home folder for the writers and the readers alike); files are read only when regular, and
within a size; a refused Dask run leaves no lock; meaningless inputs are refused; a config's dotted keys
and `extends` chains are refused in one line that says what is wrong. Every refusal: one line on stderr,
exit status 2, no traceback, nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.commands import main
from tests import test_bad_run_dirs as made
from tests.test_bad_run_dirs import listing, refused
from tests.test_runner import KAMAKURA, ROOT

runs, run = made.runs, made.run  # the fixtures: a 5-game run of each game, and a copy of the Kamakura one

TUNE = f'''base = "{Path(KAMAKURA).as_posix()}"
players = 2
agents = "random"
seed = 4
budget = 200000
[space]
"rules.order_chit_moves[1]" = {{min = 0, max = 1}}
[target]
tolerance = 0.1
'''
SWEEP = f'''base = "{Path(KAMAKURA).as_posix()}"
players = [2]
agents = ["random"]
games = 10
[grid]
"rules.tie_break" = ["last_in_order", "shared"]
'''


def _outs(run: Path, files: Path) -> dict[str, list[str]]:
    """Each command that writes an --out folder, its arguments before --out."""
    (files / "tune.toml").write_text(TUNE)
    (files / "sweep.toml").write_text(SWEEP)
    small = ["--players", "3", "--games", "10", "--agents", "random", "--jobs", "1"]
    return {"simulate": ["simulate", KAMAKURA, *small], "values": ["values", KAMAKURA, *small],
            "compare": ["compare", KAMAKURA, KAMAKURA, *small], "report": ["report", str(run)],
            "sweep": ["sweep", str(files / "sweep.toml"), "--jobs", "1"],
            "tune": ["tune", str(files / "tune.toml"), "--jobs", "1"],
            "profile": ["profile", KAMAKURA, "--players", "3", "--games", "10", "--levels", "random,greedy",
                        "--jobs", "1"],
            "ladder": ["ladder", "kamakura", "--players", "3", "--games", "10", "--jobs", "1"]}


COMMANDS = ["simulate", "values", "compare", "report", "sweep", "tune", "profile", "ladder"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_out_refuses_a_folder_of_something_else(command: str, run: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`report RUN --out /` wrote /index.html, /summary.json ...; `compare --out /` made /base, /variant:
    a non-empty folder that is not the command's own output is refused before anything is played."""
    files = tmp_path / "files"
    files.mkdir()
    argv = _outs(run, files)[command]
    foreign = tmp_path / "designs"
    foreign.mkdir()
    (foreign / "my-variant.toml").write_text("# a designer's file\n")
    before = listing(tmp_path)
    refused(capsys, [*argv, "--out", str(foreign)], str(foreign), "--out", "not")
    assert listing(tmp_path) == before


def test_report_refuses_writing_into_a_run_directory(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = listing(run)
    refused(capsys, ["report", str(run), "--out", str(run)], str(run), "--out")
    assert listing(run) == before


def test_report_writes_again_into_its_own_folder(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out)]) == 0
    assert main(["report", str(run), "--out", str(out)]) == 0
    assert (out / "index.html").is_file()


def test_out_tilde_is_the_home_folder_for_writers_and_readers(run: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out '~/x'` made a literal ./~ while pyarrow read ~ as the home folder: compare played every game
    and then called its own parts corrupt. Both now see the home folder."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert main(["report", str(run), "--out", "~/report"]) == 0
    assert main(["compare", KAMAKURA, KAMAKURA, "--players", "3", "--games", "10", "--agents", "random",
                 "--jobs", "1", "--out", "~/compare", "--quiet"]) == 0
    assert main(["summary", "~/compare/base"]) == 0
    assert (home / "report" / "index.html").is_file() and (home / "compare" / "base").is_dir()
    assert list(work.iterdir()) == []


# ---- C: only regular files are read, within a size -------------------------------------------------------

def balance(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m sim argv` in a subprocess with a timeout: a read that blocks (a FIFO) or never ends
    (/dev/zero) fails the test instead of hanging it."""
    return subprocess.run([sys.executable, "-m", "sim", *argv], capture_output=True, text=True, timeout=90,
                          cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def one_line_refusal(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), done.stderr


def _zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


RESUME = ["simulate", KAMAKURA, "--players", "3", "--agents", "random", "--games", "5", "--seed", "0",
          "--jobs", "1", "--quiet"]


@pytest.mark.parametrize("name, make, kind", [("manifest.json", _zero, "device"),
                                              ("manifest.json", _fifo, "FIFO"),
                                              ("chunks.jsonl", _fifo, "FIFO")])
@pytest.mark.parametrize("command", ["summary", "resume"])
def test_a_run_file_that_is_not_regular_is_refused_not_read(name: str, make, kind: str, command: str,
                                                            run: Path) -> None:
    """`ln -sf /dev/zero RUN/manifest.json` made a resume read without end; a FIFO as chunks.jsonl or the
    manifest blocked `balance summary RUN` and a resume forever."""
    make(run / name)
    argv = ["summary", str(run)] if command == "summary" else [*RESUME, "--out", str(run)]
    one_line_refusal(balance(*argv), str(run / name), kind)


@pytest.mark.parametrize("make", [_zero, _fifo])
def test_a_cache_entry_that_is_not_regular_is_recomputed_not_read(make, run: Path) -> None:
    """A FIFO or a link to /dev/zero in the run's summaries cache blocked `balance summary` (found by the
    fuzz): the cache is the tool's own, so the entry is recomputed from the logs and rewritten."""
    assert balance("summary", str(run)).returncode == 0
    entry = next((run / "summaries").glob("*.json"))
    make(entry)
    done = balance("summary", str(run))
    assert done.returncode == 0 and "recomputed" in done.stderr, done.stderr
    assert entry.is_file() and not entry.is_symlink()


@pytest.mark.parametrize("kind", ["FIFO", "folder"])
def test_a_config_or_extends_target_that_is_not_regular_is_refused(kind: str, tmp_path: Path) -> None:
    """A config that is a FIFO blocked the read; `extends` at a FIFO or a folder said "file not found"."""
    odd = tmp_path / "odd.toml"
    os.mkfifo(odd) if kind == "FIFO" else odd.mkdir()
    child = tmp_path / "child.toml"
    child.write_text('extends = "odd.toml"\n')
    study = ["--players", "3", "--games", "10", "--agents", "random"]
    one_line_refusal(balance("study", str(child), *study), str(child), "extends", kind)
    if kind == "FIFO":
        one_line_refusal(balance("study", str(odd), *study), str(odd), kind)


# ---- D: a refused run leaves no lock -----------------------------------------------------------------------

def test_a_dead_dask_scheduler_leaves_no_lock(tmp_path: Path) -> None:
    """`--backend dask --scheduler tcp://127.0.0.1:1` was refused but left OUT/.lock (and OUT) behind."""
    out = tmp_path / "run"
    done = balance(*RESUME, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out))
    one_line_refusal(done, "127.0.0.1:1")
    assert not out.exists(), sorted(p.name for p in out.iterdir())


def test_a_refused_writer_leaves_an_empty_folder_as_it_was(tmp_path: Path) -> None:
    """The lock's file goes with a refusal that wrote nothing; an empty folder given as --out stays."""
    from storage.run_lock import RunLock

    out = tmp_path / "empty"
    out.mkdir()
    with pytest.raises(RuntimeError), RunLock(out):
        raise RuntimeError("refused")
    assert out.is_dir() and list(out.iterdir()) == []
    with RunLock(out):
        (out / "manifest.json").write_text("{}")
    assert (out / ".lock").exists()  # a run's lock stays with its files (removing it would race)


# ---- E: what cannot mean anything is refused ------------------------------------------------------------

def test_play_with_an_empty_agents_list_is_refused() -> None:
    """`balance play kamakura --agents ''` started a game with the default seats as if --agents were left
    out; an empty list names no agent."""
    done = subprocess.run([sys.executable, "-m", "sim", "play", "kamakura", "--agents", ""], input="q\n",
                          capture_output=True, text=True, timeout=90, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    one_line_refusal(done, "--agents")
    assert done.stdout == "", done.stdout  # no board was drawn


# ---- F: a config's keys and extends chains, refused in one line that says what is wrong -------------------

def _config(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_dotted_key_into_a_misspelt_table_suggests_the_table(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`"chits.blu[0].points" = 1` said "cannot index it; override the whole value"; the table form
    (`[chits] blu = ...`) already said "did you mean blue?"."""
    base = Path(KAMAKURA).as_posix()
    path = _config(tmp_path, "v.toml", f'extends = "{base}"\n"chits.blu[0].points" = 1\n')
    refused(capsys, ["study", str(path), "--players", "3"], "chits.blu[0].points", "did you mean blue?")


def test_a_long_extends_chain_is_refused_by_its_length_not_called_a_link_loop(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A chain of 1,500 extends files was called "a loop of symbolic links" (Python's recursion ran out)."""
    from sim.core.config import MAX_EXTENDS

    (tmp_path / "c0.toml").write_text(Path(KAMAKURA).read_text())
    for i in range(1, 1501):
        _config(tmp_path, f"c{i}.toml", f'extends = "c{i - 1}.toml"\n')
    refused(capsys, ["study", str(tmp_path / "c1500.toml"), "--players", "3"], "extends",
            f"longer than {MAX_EXTENDS} files")
    assert main(["simulate", str(tmp_path / f"c{MAX_EXTENDS - 1}.toml"), "--players", "3", "--games", "2",
                 "--agents", "random", "--jobs", "1", "--out", str(tmp_path / "run"), "--quiet"]) == 0


def test_an_extends_value_with_a_newline_is_refused_in_one_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, "v.toml", 'extends = "base.toml\\nother.toml"\n')
    refused(capsys, ["study", str(path), "--players", "3"], "extends", "one line", "'base.toml\\nother.toml'")
