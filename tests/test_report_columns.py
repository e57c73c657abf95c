"""The tables of a real report: every numeric column has a kind declared by the code that built
it (`analysis.page.declare`), and no cell shown as a percentage lies outside [0%, 100%]: only shares are
percentages (a difference of shares is in pp), whatever the columns or the runs are called. The runs: the
audit's pair (Kamakura's base and tie-shared, whose label holds "share"), and a Sakura run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import analysis.run_report as run_report
from analysis.page import SHARE, column_kind, format_table, human_header, per_run

ROOT = Path(__file__).resolve().parents[1]
RUNS = {"base": ("configs/kamakura/base.toml", "3"), "tie-shared": ("configs/kamakura/tie-shared.toml", "3"),
        "sakura": ("configs/sakura/base.toml", "3")}


def impossible_percentages(page: str) -> list[str]:
    """The table cells of a report page shown as a percentage outside [0%, 100%] (a share cannot be)."""
    return [c for c in re.findall(r"<td>([-\d.,]+)%</td>", page) if not 0 <= float(c.replace(",", "")) <= 100]


def simulate(config: str, players: str, out: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", config, "--players", players, "--agents",
                           "random", "--games", "200", "--seed", "11", "--jobs", "1", "--quiet", "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, pd.DataFrame]]]:
    """The report of the three runs, and its tables (name, frame) as the sections built them."""
    base = tmp_path_factory.mktemp("columns")
    for name, (config, players) in RUNS.items():
        simulate(config, players, base / name)
    tables: list[tuple[str, pd.DataFrame]] = []
    write = run_report.write_report

    def keep(sections, *args, **kwargs):
        tables.extend((name, frame) for sec in sections for name, _, frame in sec.tables)
        return write(sections, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_report, "write_report", keep)
        run_report.build_report([base / name for name in RUNS], base / "report")
    return base / "report", tables


def test_the_audits_runs_are_side_by_side(report) -> None:
    _, tables = report
    seats = dict(tables)["kamakura_seats"]
    assert "wins [kamakura 3p random tie-shared]" in seats.columns


def test_every_numeric_column_has_a_declared_kind(report) -> None:
    _, tables = report
    assert len(tables) >= 10
    for name, frame in tables:
        kinds = frame.attrs.get("kinds", {})
        for col in frame.columns:
            if pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col]):
                assert column_kind(col, kinds), f"{name}: {col!r} has no declared kind"


def test_only_shares_are_percentages_and_they_lie_in_0_to_100(report) -> None:
    _, tables = report
    for name, frame in tables:
        kinds = frame.attrs.get("kinds", {})
        shown = format_table(frame)
        for col in shown.columns:
            cells = [c for c in shown[col] if isinstance(c, str) and c.endswith("%")]
            if not cells:
                continue
            assert column_kind(col, kinds).removesuffix(" bound") == SHARE, f"{name}: {col!r} in percent"
            values = [float(c[:-1].replace(",", "")) for c in cells]
            assert all(0 <= v <= 100 for v in values), f"{name}: {col!r}: {cells}"


def test_the_page_shows_no_percentage_outside_0_to_100(report) -> None:
    out, tables = report
    page = (out / "index.html").read_text()
    assert len(re.findall(r"<td>([-\d.,]+)%</td>", page)) > 100
    assert impossible_percentages(page) == []
    # the tables on the page are the formatted frames, split per run where wide
    name, frame = next((n, f) for n, f in tables if n == "kamakura_seats")
    for _, part in per_run(format_table(frame)):
        assert part.rename(columns=human_header).to_html(index=False, border=0, na_rep="") in page
