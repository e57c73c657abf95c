"""`balance report` on small real runs: every referenced file exists, summary.json has the headline
figures, and the page renders in headless Chromium with every chart decoded and no errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.browser import chromium, probe

ROOT = Path(__file__).resolve().parents[1]


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("report")
    runs = [("configs/kamakura/base.toml", "3", "greedy,random,random", "--rotate-seats"),
            ("configs/kamakura/base.toml", "4", "random", None),
            ("configs/sakura/base.toml", "4", "random", None)]
    dirs = []
    for i, (config, players, agents, extra) in enumerate(runs):
        out = base / f"run{i}"
        args = ["simulate", config, "--players", players, "--games", "600", "--agents", agents, "--quiet",
                "--out", str(out)] + ([extra] if extra else [])
        assert balance(*args).returncode == 0
        dirs.append(str(out))
    values_runs = [("configs/kamakura/base.toml", "3", "greedy", "0,9"),
                   ("configs/sakura/base.toml", "4", "random", "0")]
    for i, (config, players, agents, positions) in enumerate(values_runs):
        out = base / f"values{i}"
        args = ["values", config, "--players", players, "--agents", agents, "--games", "6", "--positions",
                positions, "--quiet", "--out", str(out)]
        done = balance(*args)
        assert done.returncode == 0, done.stderr
        dirs.append(str(out))
    done = balance("report", *dirs, "--out", str(base / "report"))
    assert done.returncode == 0, done.stderr
    assert "report written" in done.stdout
    return base / "report"


def test_every_referenced_file_exists(report: Path) -> None:
    page = (report / "index.html").read_text()
    refs = re.findall(r"(?:src|href)='([^']+)'", page)
    assert len([r for r in refs if r.endswith(".png")]) >= 10
    assert len([r for r in refs if r.endswith(".csv")]) >= 8
    for ref in refs:
        if ref.startswith("#"):  # a verdict's link to its evidence
            assert f"id='{ref[1:]}'" in page, ref
        else:
            assert (report / ref).is_file(), ref


def test_the_page_leads_with_the_verdicts_in_question_order(report: Path) -> None:
    page = (report / "index.html").read_text()
    order = [page.index(f"id='{anchor}'") for anchor in
             ("verdicts", "runs", "kamakura-seats", "kamakura-ties", "components", "kamakura-length")]
    assert order == sorted(order)
    assert "<details>" in page  # long tables folded
    summary = json.loads((report / "summary.json").read_text())
    runs = [r["label"] for r in summary["runs"]]
    for label in runs:
        records = summary["verdicts"][label]
        questions = [r["question"] for r in records]
        assert questions in (["seats", "start", q, "length"] for q in ("ties", "tiebreak"))
        statuses = {r["status"] for r in records}
        assert statuses <= {"within", "small", "beyond", "undecided", "too_few", "info"}
    values = [records for label, records in summary["verdicts"].items() if label not in runs]
    assert values and all(records[0]["question"] == "components" for records in values)
    assert all(r["question"].startswith("worth:") for records in values for r in records[1:])


def test_no_chart_title_is_clipped() -> None:
    from analysis import charts

    frame = pd.DataFrame({"seat": [0, 1, 2], "win_rate": [.3, .3, .4], "ci_low": [.2, .2, .3],
                          "ci_high": [.4, .4, .5], "run": ["kamakura 3p greedy,random,random rotated"] * 3})
    fig = charts.grouped_bars(frame, "seat", "win_rate", "ci_low", "ci_high", "run", "Kamakura win rate by "
                              "seat and tie-break rule, every rule of R-9 (n = 123,456 games in 3 runs)",
                              "seat", "win rate (%)", reference=1 / 3, reference_label="fair share")
    assert charts.title_fits(fig, fig.axes[0].title)


def test_headline_figures_carry_n_and_intervals(report: Path) -> None:
    page = (report / "index.html").read_text()
    for chart_title in re.findall(r"alt='([^']+)'", page):
        assert "n = " in chart_title, chart_title
    notes = re.findall(r"<p class='note'>(.*?)</p>", page)
    headline = [n for n in notes if "<b>kamakura" in n or "<b>sakura" in n]
    assert headline and all("n = " in n and "[" in n for n in headline)


def test_summary_json(report: Path) -> None:
    summary = json.loads((report / "summary.json").read_text())
    for key in ("games", "players", "seats", "start_player_advantage", "ties", "tiebreak_rescoring",
                "chit_values"):
        assert key in summary, key
    assert summary["games"] == 600 and summary["players"] == 3
    assert {"seat", "win_rate", "ci_low", "ci_high"} <= set(summary["seats"][0])
    assert {"value", "ci_low", "ci_high"} <= set(summary["start_player_advantage"])
    assert {"top_tied_rate", "decided_by_tiebreak_rate"} <= set(summary["ties"])
    assert set(summary["tiebreak_rescoring"]) == {"last_in_order", "first_in_order", "shared", "last_to_play"}
    assert all(len(v) == 3 for v in summary["tiebreak_rescoring"].values())
    chit_keys = {"colour", "icons", "claim_rate", "win_added", "ci_low", "ci_high"}
    assert chit_keys <= set(summary["chit_values"][0])
    assert [run["game"] for run in summary["runs"]] == ["kamakura", "kamakura", "sakura"]
    # the causal values of the values runs, and every run's seat handicaps
    keys = {"component", "position", "seat", "value", "ci_low", "ci_high", "n", "points_equivalent",
            "pe_ci_low", "pe_ci_high", "significant"}
    values = summary["component_values"]
    assert values and all(keys <= set(v) for v in values)
    kamakura = [v for v in values if v["component"].startswith(("red", "yellow", "green", "blue"))]
    assert {v["position"] for v in kamakura} == {0, 9} and {v["seat"] for v in kamakura} == {"all", 0, 1, 2}
    assert any(v["component"].startswith("card ") for v in values)
    for run in summary["runs"]:
        handicap = run["seat_handicap_points"]
        assert [h["seat"] for h in handicap] == list(range(run["players"]))
        assert all({"handicap_points", "ci_low", "ci_high", "n"} <= set(h) for h in handicap)


@pytest.mark.skipif(chromium() is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_report_renders_in_chromium(report: Path) -> None:
    result = probe(report / "index.html", width=1400)
    assert len(result["images"]) >= 10
    assert all(image["width"] > 0 for image in result["images"]), result["images"]
    assert result["errors"] == [] and result["console"] == []
    # Three runs side by side fit a 1400-pixel window (wide tables are shown one run at a time).
    assert result["page_width"] <= 1400 and all(t["width"] <= 1400 for t in result["tables"])
    # the first 1400 x 900 screen holds every run's verdicts
    assert result["verdicts"] is not None and result["verdicts"]["bottom"] <= 900, result["verdicts"]
    assert result["verdict_items"] >= 3 * 4
    # No interval of a non-rate is printed with "%": an interval column's unit is that of the nearest
    # value column before it, and only rates and shares are percentages.
    bound = re.compile(r"(95% (low|high)|interval)", re.I)
    checked = 0
    for table in result["tables"]:
        unit = ""
        for j, header in enumerate(table["headers"]):
            if not bound.search(header) or "(" in header:
                unit = header
            is_rate = any(w in unit.lower() for w in ("rate", "share", "advantage", "added", "(pp)"))
            cells = [row[j] for row in table["rows"] if j < len(row)]
            if bound.search(header) and not is_rate:
                checked += 1
                assert not any("%" in c for c in cells), (header, unit, cells[:3])
    assert checked >= 5


def test_bad_run_directory_refused(tmp_path: Path) -> None:
    run = balance("report", str(tmp_path))
    assert run.returncode == 2 and "not a run directory" in run.stderr and "Traceback" not in run.stderr


def test_a_refusal_part_way_leaves_no_figure_open():
    """build_report's guard: figures made inside and still open are closed on the way out, others kept."""
    import matplotlib.pyplot as plt
    import pytest

    from analysis import charts

    mine = plt.figure()
    before = plt.get_fignums()
    with pytest.raises(ValueError), charts.closing_new_figures():
        plt.figure()
        plt.figure()
        raise ValueError("refused part-way")
    assert plt.get_fignums() == before
    plt.close(mine)
