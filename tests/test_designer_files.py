"""Never lose a designer's file, the command line's half: every --out follows one rule (a folder that
exists, is not empty and is not this command's own earlier output is refused before anything is played,
and `~` is the home folder for the writers and the readers alike); files are read only when regular, and
within a size; a refused Dask run leaves no lock; meaningless inputs are refused; a config's dotted keys
and `extends` chains are refused in one line that says what is wrong. Every refusal: one line on stderr,
exit status 2, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.commands import main
from tests import test_bad_run_dirs as made
from tests.test_bad_run_dirs import listing, refused
from tests.test_runner import KAMAKURA

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
