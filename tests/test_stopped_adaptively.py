"""A run played until its verdicts were decided: it stopped on its own data, so its run
directory says so (storage.run_dir.mark_stopped_adaptively, sticky), and the report and `balance summary`
show for it only the verdicts' confidence sequences: no fixed-size (Wilson) interval, no Holm seat flag or
other test, a one-line note in their place. An ordinary run keeps them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import analysis.run_report as run_report
from analysis.adaptive_stop import ADAPTIVE_NOTE
from analysis.page import column_of, is_fixed_size
from analysis.run_tally import read_run_tally
from analysis.summary_text import format_run
from storage.run_dir import load_manifest, mark_stopped_adaptively

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = "configs/kamakura/base.toml"


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def simulate(out: Path, games: int, *extra: str) -> None:
    done = balance("simulate", KAMAKURA, "--players", "3", "--agents", "greedy,random,random", "--games",
                   str(games), "--seed", "3", "--jobs", "1", "--quiet", "--out", str(out), *extra)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same 300 games twice: an ordinary run and a copy marked as played until decided."""
    base = tmp_path_factory.mktemp("adaptive")
    plain, until = base / "plain", base / "until"
    simulate(plain, 300)
    shutil.copytree(plain, until, ignore=shutil.ignore_patterns("summaries", ".lock"))
    mark_stopped_adaptively(until)
    return plain, until


def test_the_mark_is_in_the_manifest_and_survives_an_extension(runs, tmp_path: Path) -> None:
    plain, until = runs
    assert load_manifest(until / "manifest.json").stopped_adaptively is True
    assert "stopped_adaptively" not in json.loads((plain / "manifest.json").read_text())
    grown = tmp_path / "grown"
    shutil.copytree(until, grown)
    simulate(grown, 400)  # extended with a fixed --games: it still stopped adaptively once
    manifest = load_manifest(grown / "manifest.json")
    assert manifest.stopped_adaptively is True and manifest.games_finished == 400
    mark_stopped_adaptively(tmp_path / "nothing")  # no run there: nothing made
    assert not (tmp_path / "nothing").exists()


def test_the_summary_leaves_out_wilson_intervals_and_holm_flags(runs) -> None:
    plain, until = runs
    ordinary, adaptive = format_run(read_run_tally(plain)), format_run(read_run_tally(until))
    for words in ("95% CI", "Holm", "chi-square"):
        assert words in ordinary and words not in adaptive, words
    assert ADAPTIVE_NOTE not in ordinary and ADAPTIVE_NOTE in adaptive
    assert re.search(r"^ +0  greedy +\d+\.\d%", adaptive, re.M)  # the seats' win rates stay
    wilson = re.compile(r"\[ *\d+\.\d%, +\d+\.\d%\]")  # the verdicts' own intervals may be in % too
    assert len(wilson.findall(ordinary)) - len(wilson.findall(adaptive)) == 3 + 2  # seats and agents
    assert "(verdict intervals are confidence sequences" in adaptive  # the verdicts stay, with theirs


def report(paths: list[Path], out: Path) -> tuple[str, dict, list]:
    """The report of `paths`: its page, summary.json and sections (as the page was written from them)."""
    kept: list = []
    write = run_report.write_report

    def keep(sections, *args, **kwargs):
        kept.extend(sections)
        return write(sections, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_report, "write_report", keep)
        page = run_report.build_report(paths, out)
    return page.read_text(), json.loads((out / "summary.json").read_text()), kept


def fixed_size_columns(frame: pd.DataFrame) -> list[str]:
    kinds = frame.attrs.get("kinds", {})
    return [c for c in frame.columns if (value := column_of(c, kinds)[0]) and is_fixed_size(kinds[value])]


def test_a_report_of_both_shows_the_intervals_of_the_ordinary_run_only(runs, tmp_path: Path) -> None:
    plain, until = runs
    page, summary, sections = report([plain, until], tmp_path / "both")
    tables = {name: frame for sec in sections for name, _, frame in sec.tables}
    seats = tables["kamakura_seats"]
    assert {"ci_low [kamakura 3p greedy,random,random (plain)]", "win_rate [kamakura 3p greedy,random,random "
            "(until)]"} <= set(seats.columns)
    for name, frame in tables.items():
        fixed = fixed_size_columns(frame)
        assert not [c for c in fixed if "(until)" in c], name
    assert any(fixed_size_columns(frame) for frame in tables.values())  # the ordinary run's stay
    seat_notes = next(sec for sec in sections if sec.anchor == "kamakura-seats").notes
    adaptive = next(n for n in seat_notes if n.startswith("<b>kamakura 3p greedy,random,random (until)</b>: "
                                                          "start"))
    ordinary = next(n for n in seat_notes if "(plain)</b>: start" in n)
    assert "Holm" in ordinary and "chi-square" in ordinary and "[" in ordinary
    assert "Holm" not in adaptive and "chi-square" not in adaptive and "[" not in adaptive
    assert page.count(ADAPTIVE_NOTE) >= 4  # seats, ties, components, length, and the runs' differences
    assert "95% interval" not in tables["variants_kamakura_3p"].columns  # the run minus the other
    assert [r["stopped_adaptively"] for r in summary["runs"]] == [False, True]


def test_a_report_of_an_adaptive_run_alone_has_no_fixed_size_interval(runs, tmp_path: Path) -> None:
    _, until = runs
    page, _, sections = report([until], tmp_path / "alone")
    tables = {name: frame for sec in sections for name, _, frame in sec.tables}
    assert "win_rate" in tables["kamakura_seats"] and "ci_low" not in tables["kamakura_seats"]
    assert not [name for name, frame in tables.items() if fixed_size_columns(frame)]
    assert "differ from the fair share at 5% after Holm" not in page and ADAPTIVE_NOTE in page
    ordinary, _, _ = report([runs[0]], tmp_path / "ordinary")
    assert "differ from the fair share at 5% after Holm" in ordinary and ADAPTIVE_NOTE not in ordinary


def test_simulate_and_compare_until_decided_mark_their_runs(tmp_path: Path) -> None:
    out = tmp_path / "until"
    done = balance("simulate", KAMAKURA, "--players", "3", "--agents", "random", "--until-decided", "--games",
                   "200", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert load_manifest(out / "manifest.json").stopped_adaptively is True
    assert ADAPTIVE_NOTE in done.stdout and "95% CI" not in done.stdout
    folder = tmp_path / "compare"
    done = balance("compare", KAMAKURA, "configs/kamakura/tie-shared.toml", "--players", "3", "--agents",
                   "random", "--until-decided", "--games", "200", "--jobs", "1", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    for name in ("base", "variant"):
        assert load_manifest(folder / name / "manifest.json").stopped_adaptively is True
    assert ADAPTIVE_NOTE in (folder / "report" / "index.html").read_text()


def test_profile_until_decided_marks_its_levels_and_its_skill_section_says_why(tmp_path: Path) -> None:
    out = tmp_path / "profile"
    done = balance("profile", KAMAKURA, "--players", "3", "--levels", "random,greedy", "--until-decided",
                   "--games", "200", "--jobs", "1", "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    for level in ("random", "greedy"):
        assert load_manifest(out / level / "manifest.json").stopped_adaptively is True
    page = (out / "report" / "index.html").read_text()
    skill = page[page.index("id='skill_0'"):]
    assert ADAPTIVE_NOTE in skill and "Holm's adjustment runs over" not in skill
    assert not (out / "report" / "tables" / "skill_0_tests.csv").exists()


def test_a_run_interrupted_between_rounds_is_marked_too(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C after a round: the run was already looked at, so its report must not show fixed-size figures."""
    from sim.commands import main

    def one_round_then_ctrl_c(play, *args, **kwargs):
        play(200)
        raise KeyboardInterrupt

    monkeypatch.setattr("sim.commands.simulate.play_until_decided", one_round_then_ctrl_c)
    out = tmp_path / "cut"
    code = main(["simulate", KAMAKURA, "--players", "3", "--agents", "greedy,random,random", "--seed", "3",
                 "--jobs", "1", "--quiet", "--until-decided", "--out", str(out)])
    assert code == 130
    manifest = load_manifest(out / "manifest.json")
    assert manifest.stopped_adaptively is True and manifest.games_finished == 200
    assert ADAPTIVE_NOTE in format_run(read_run_tally(out))
