"""One error rate for the page (docs/explanation/statistics.md, "The question asked, and one error rate for
the report"): every page that shows several judged sets of verdicts (a comparison and its two runs, a report
of several runs, a balance sheet, a workbench card) says the chance that any verdict on it is wrong, by the
union bound, and that rate is the sum of the rates of the sets it shows, read off the page itself.

One small compare (two Kamakura configs, 200 random games each) and one small sheet (2 and 3 players,
random and greedy, 200 games a level) are played once; the reports of their runs are written from them."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.run_tally import read_run_tally
from analysis.verdicts import DEFAULT_MARGINS, JudgedSet, page_error, run_verdicts
from sim.app.compare import judge_folder
from sim.workbench import views
from sim.workbench.exploring import Elite, Explored
from sim.workbench.jobs import Job
from sim.workbench.status import JobView, RunView

ROOT = Path(__file__).resolve().parents[1]
#: the page-wide sentence: its total and its parts ("5% for the comparison, 5% for each of the 2 runs' ...")
PAGE = re.compile(r"(On this page|Above,|In the sheet above,|On this card) the chance that any verdict is "
                  r"wrong is at most ([\d.]+)% \((.*?)\)\.")
#: one part of it: its rate, and how many sets it counts
PART = re.compile(r"([\d.]+)% for (?:each of the (\d+) |the |one )")


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def stated(text: str) -> tuple[float, list[tuple[float, int, str]]]:
    """The one page-wide sentence of `text` (HTML or console): its total and each part as (rate, count,
    words)."""
    found = PAGE.findall(html.unescape(re.sub(r"<[^>]+>", "", text)))
    assert len(found) == 1, found  # one sentence a page
    _, total, parts = found[0]
    out = []
    for part in re.split(r", |; ", parts):
        rate, count = PART.match(part).groups()
        out.append((float(rate), int(count or 1), part))
    return float(total), out


def added(parts: list[tuple[float, int, str]]) -> float:
    return sum(rate * count for rate, count, _ in parts)


# ---- the one function ------------------------------------------------------------------------------------
def test_the_page_rate_is_the_sum_of_the_sets_and_one_set_alone_needs_no_second_sentence() -> None:
    page = page_error([JudgedSet("the comparison", 0.05),
                       JudgedSet("each of the 2 runs' own verdicts", 0.05, 2)])
    assert page.sentence == ("On this page the chance that any verdict is wrong is at most 15% (5% for the "
                             "comparison, 5% for each of the 2 runs' own verdicts).")
    assert page.total == pytest.approx(0.15) and not page.alone
    assert page_error([JudgedSet("the run's own verdicts", 0.05)]).alone
    described = page_error([JudgedSet("the comparison", 0.05), JudgedSet("each of the 2 runs'", 0.0, 2)])
    assert described.total == pytest.approx(0.05) and described.alone
    assert "0% for each of the 2 runs', nothing judged" in described.sentence
    nothing = page_error([JudgedSet("the run's own verdicts", 0.0)])
    assert nothing.total == 0 and "no verdict is judged" in nothing.sentence
    many = page_error([JudgedSet("each of the 24 runs' own verdicts", 0.05, 24)])
    assert "add up to 120%" in many.sentence and "at most" not in many.sentence  # no bound above 100%


# ---- a comparison: its console and its report ------------------------------------------------------------
@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("page") / "compare"
    done = balance("compare", "configs/kamakura/base.toml", "configs/kamakura/tie-shared.toml",
                   "--players", "3", "--agents", "random", "--games", "200", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_the_compare_console_adds_the_comparison_and_each_configs_own_rate(compared) -> None:
    _, said = compared
    total, parts = stated(said)
    assert total == pytest.approx(added(parts)) == pytest.approx(15)
    comparison = float(re.search(r"any of the comparison's verdicts is wrong is at most ([\d.]+)% in all",
                                 said).group(1))
    own = [float(x) for x in re.findall(r"on its own \(its own ([\d.]+)% error rate\)", said)]
    assert len(own) == 2  # the base's and the variant's seats verdict
    assert added(parts) == pytest.approx(comparison + sum(own))
    assert said.rstrip().splitlines()[-2].strip().startswith("Above, the chance")  # the verdicts' last line


def test_the_compare_report_states_the_page_rate_on_its_first_screen(compared) -> None:
    out, _ = compared
    page = (out / "report" / "index.html").read_text()
    total, parts = stated(page)
    assert total == pytest.approx(added(parts))
    first, _, rest = page.partition("<h2 id='verdicts'>")
    assert "page-error" in first  # in the comparison, beside its own rate
    comparison = float(re.search(r"any judged verdict of the comparison is wrong is at most ([\d.]+)%",
                                 page).group(1))
    run_rate = float(re.search(r"any judged verdict of a run is wrong is at most ([\d.]+)%", rest).group(1))
    cards = rest.split("<h2 id='runs'>")[0].count("class='run-verdicts'")
    assert cards == 2
    assert (comparison, 1) == parts[0][:2] and (run_rate, cards) == parts[1][:2]


# ---- a report of several runs, and of one ----------------------------------------------------------------
def test_a_report_of_n_runs_says_n_and_one_runs_report_keeps_one_sentence(compared, tmp_path) -> None:
    out, _ = compared
    done = balance("report", str(out / "base"), str(out / "variant"), "--out", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "two" / "index.html").read_text()
    total, parts = stated(page)
    cards = page.split("<h2 id='runs'>")[0].count("class='run-verdicts'")
    run_rate = float(re.search(r"any judged verdict of a run is wrong is at most ([\d.]+)%", page).group(1))
    assert parts == [(run_rate, cards, f"{run_rate:g}% for each of the {cards} runs' own verdicts")]
    assert total == pytest.approx(added(parts)) == pytest.approx(10)
    done = balance("report", str(out / "base"), "--out", str(tmp_path / "one"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "one" / "index.html").read_text()
    assert not PAGE.search(page) and page.count("is wrong is at most") == 1  # one sentence, not two


# ---- a balance sheet ---------------------------------------------------------------------------------------
def test_the_sheet_states_its_rate_in_print_and_on_its_page(tmp_path) -> None:
    out = tmp_path / "sheet"
    done = balance("sheet", "configs/kamakura/base.toml", "--players", "2,3", "--levels", "random,greedy",
                   "--games", "200", "--jobs", "1", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    total, parts = stated(done.stdout)
    tables = len(re.findall(r"^\d players \(", done.stdout, re.M))
    assert tables == 2 and [(r, n) for r, n, _ in parts] == [(5, tables), (5, tables)]
    assert total == pytest.approx(added(parts))
    page = (out / "report" / "index.html").read_text()
    total, parts = stated(page)
    lead, _, rest = page.partition("<h2 id='verdicts'>")
    assert "page-error" in lead  # in the sheet, the page's first screen
    cards = rest.split("<h2 id='runs'>")[0]
    runs = len(re.findall(r"<div class='run-verdicts'><h3>[^<]*<span class='meta'>", cards))
    assert runs == 2 * tables
    assert [(n, "runs'" in words) for _, n, words in parts] == [(runs, True), (tables, False)]
    assert total == pytest.approx(added(parts)) == pytest.approx(5 * (runs + tables))


# ---- the workbench's cards -------------------------------------------------------------------------------
def _job(kind: str) -> Job:
    about = {"config": "d.toml", "players": 3, "agents": "random", "seed": 0, "questions": ["seats"]}
    now = time.time()
    return Job(f"{kind}-1", kind, [kind], [], now, status="finished", finished=now, about=about)


def test_the_workbench_cards_state_their_rate(compared) -> None:
    out, _ = compared
    tallies = {name: read_run_tally(out / name) for name in ("base", "variant")}
    runs = [RunView(name, 200, tally, run_verdicts(tally)) for name, tally in tallies.items()]
    changes = judge_folder(out, DEFAULT_MARGINS)[3]
    card = views.job(JobView(_job("compare"), runs, changes=changes), "ws")
    total, parts = stated(card)
    assert [(r, n) for r, n, _ in parts] == [(5, 1), (5, 2)] and total == pytest.approx(added(parts))
    one = views.job(JobView(_job("simulate"), runs[:1]), "ws")
    assert stated(one) == (5, [(5, 1, "5% for the run's own verdicts")])
    explored = Explored([Elite("1-2", "fair"), Elite("3-0", "fair")], tried=3, replayed=2)
    card = views.job(JobView(_job("explore"), [], explored=explored), "ws")
    total, parts = stated(card)
    assert [(r, n) for r, n, _ in parts] == [(5, 3), (5, 2)] and total == pytest.approx(25)
