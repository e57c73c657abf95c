"""Figures stated truthfully: decisive bounds are rounded outward and never shown on
the margin (or 0) they lie off, no figure is printed as "-0.0", a signed interval stands beside a signed
figure, the verdicts' reading note claims only what the page shows, the run list counts every run directory
reported, and a component's worth has one interval, the same in its verdict and its table, an infinite bound
said in words."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis import figures
from analysis.verdicts import (
    BEYOND,
    against,
    parse_margins,
    pp,
    pp_interval,
    seat_verdict,
    share_text,
    tie_verdict,
)

ROOT = Path(__file__).resolve().parents[1]
#: a number printed as negative zero: "-0", "-0.0", "-0.00" (no other digit after it)
NEGATIVE_ZERO = re.compile(r"-0(\.0+)?(?![\d.])")
#: a bracketed interval of two numbers, signed or not: "[2.03, 4.6]", "[-2.7, -2.1]"
INTERVAL = re.compile(r"\[([+-]?\d+(?:\.\d+)?)%?, ([+-]?\d+(?:\.\d+)?)%?\]")


def tally(wins: list[float], games: int) -> dict:
    """A merged tally whose seats win `wins[s]` of `games` (shares; sums of squares of 0/1 outcomes)."""
    from analysis.tally import SHARE_SCALE

    units = np.round(np.array(wins) * games * SHARE_SCALE).astype(np.int64)
    return {"games": games, "seat_games": np.full(len(wins), games), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.array([0, 0, 0])}


# ---- 1: decisive bounds rounded outward, never on the margin -------------------------------------------
def test_an_unfair_seat_s_bound_above_the_margin_is_not_shown_on_it() -> None:
    """The lower bound 2.0365 pp above a 2 pp margin: "[2.03, ...]" (before: "[2.0, 4.6]", on the margin
    it decided against), the high bound rounded up."""
    said = against(0.037, 0.020365, 0.04561, "the fair share", margin=0.02)
    assert said == "3.7 pp [2.03, 4.6] above the fair share"
    said = against(-0.037, -0.04561, -0.020365, "the fair share", margin=0.02)
    assert said == "3.7 pp [2.03, 4.6] below the fair share"
    assert pp_interval(0.020365, 0.04561, margin=0.02) == "[+2.03, +4.6]"
    assert pp_interval(-0.0003, 0.019612, margin=0.02) == "[-0.1, +1.97]"  # within: never up onto 2.0


def test_the_seat_verdict_of_a_seat_just_beyond_the_margin_shows_its_bound_off_it() -> None:
    """A seat verdict decided unfair: its sentence's interval does not touch the 2 pp margin, and it holds
    the computed one."""
    c = tally([0.3575, 0.3333, 0.3092], 200_000)  # seat 2 lies 2.003 pp beyond the margin at its nearest
    v = seat_verdict(c, 1 / 3, parse_margins("2", "seats"))
    assert v.status == BEYOND
    for s in v.detail["named_seats"]:
        seat = v.detail["seats"][s]
        low, high = 100 * seat["ci_low"], 100 * seat["ci_high"]
        if high < 0:  # said below the fair share: the sentence's bounds are -high and -low
            low, high = -high, -low
        said = re.search(rf"Seat {s} is \w+: it wins [\d.]+% of games, [\d.]+ pp \[([\d.]+), ([\d.]+)\]",
                         v.sentence, re.I)
        assert said, v.sentence
        shown_low, shown_high = float(said.group(1)), float(said.group(2))
        assert 2.0 < shown_low <= low and shown_high >= high, (v.sentence, low, high)  # never "2.0"


def test_a_tune_s_upper_bound_under_the_tolerance_is_not_shown_on_it() -> None:
    """"Target met ...: 95% upper bound 2.00 (tolerance 2)" for 1.997: the bound that met the tolerance is
    shown under it."""
    from sim.design.racing import Standing, verdict
    from sim.design.tune_file import Target

    met, said = verdict(Standing("s", 800, [270.0, 270.0, 260.0], 0.0131, 0.0, 0.01997), Target(), [], 0.95)
    assert met and "upper bound 1.997 (tolerance 2)" in said, said


@settings(deadline=None, max_examples=300)
@given(st.floats(-30, 30), st.floats(0, 10), st.sampled_from([0.5, 1, 1.5, 2, 2.5, 3, 0.25, 1.2]))
def test_bounds_hold_the_interval_and_keep_off_the_margin(low: float, width: float, margin: float) -> None:
    high = low + width
    shown_low, shown_high = (float(x) for x in figures.bounds(low, high, keep_off=(0.0, margin, -margin)))
    # outward, but for float noise: a bound within 1e-9 of a unit of the shown decimal is taken as on it
    assert shown_low <= low + 1e-9 and shown_high >= high - 1e-9
    for k in (0.0, margin, -margin):
        if low != k and abs(low - k) > 1e-4:
            assert (shown_low > k) == (low > k) and shown_low != k, (low, k, shown_low)
        if high != k and abs(high - k) > 1e-4:
            assert (shown_high > k) == (high > k) and shown_high != k, (high, k, shown_high)


@settings(deadline=None, max_examples=300)
@given(st.floats(-0.3, 0.3), st.floats(0, 0.1))
def test_every_verdict_interval_holds_the_computed_one(low: float, width: float) -> None:
    high = low + width
    for text in (pp_interval(low, high), against(0.0, low, high, "x")):
        a, b = (float(x) for x in INTERVAL.search(text).groups())
        if "below" in text:
            a, b = -b, -a
        assert a <= 100 * low + 1e-9 and b >= 100 * high - 1e-9, text


# ---- 2: never "-0.0" -------------------------------------------------------------------------------------
def _formatted(x: float, y: float) -> list[str]:
    from analysis import page
    from analysis.sweep_report import _figure_text
    from analysis.values_report import _pp, _pp_interval, _pts, _pts_interval

    low, high = min(x, y), max(x, y)
    return [pp(x), pp(x, sign=False), pp_interval(low, high), against(x, low, high),
            share_text(abs(x), 0, abs(y)), _pp(x), _pp_interval(low, high), _pts(-0.0), _pts(x),
            _pts_interval(-0.0, 0.0), page._difference(x), page._share(x), page._mean(x), page._number(-0.0),
            page._count(-0.0), page.pct(x), _figure_text(0.5, 0.4, 0.6, True, x, low, high),
            _figure_text(x, low, high, False, x, low, high), figures.figure(100 * x),
            figures.figure(100 * x, 2, sign=True), figures.interval(100 * low, 100 * high),
            figures.interval(100 * low, 100 * high, keep_off=()), figures.whole_interval(-0.0, -0.0)]


@settings(deadline=None, max_examples=300)
@given(st.floats(-0.0006, 0.0006), st.floats(-0.0006, 0.0006))
def test_no_figure_or_bound_is_printed_as_negative_zero(x: float, y: float) -> None:
    for text in _formatted(x, y):
        assert not NEGATIVE_ZERO.search(text), text


# ---- 3: a signed figure beside a signed interval ---------------------------------------------------------
def rescore(changes: list[float], sds: list[float], games: int) -> dict:
    """A re-scoring tally whose configured rule moves seat s by changes[s] against shared wins."""
    from analysis.tally import SHARE_SCALE

    change = -np.round(np.array(changes) * games * SHARE_SCALE).astype(np.int64)
    second = np.array(sds) ** 2 + np.array(changes) ** 2
    squares = np.round(second * games * SHARE_SCALE ** 2).astype(np.int64)
    return {"rules": {"shared": {"change": change, "change_squares": squares}},
            "reference": {"last_in_order": None}, "seat_games": np.full(len(changes), games)}


def test_the_tie_break_effect_is_signed_as_its_interval() -> None:
    """"seat 0 loses 2.4 pp [-2.7, -2.1]" read as a loss of minus 2.4: now "seat 0: -2.4 pp [-2.7, -2.1]"."""
    c = tally([0.3333, 0.3333, 0.3334], 400_000)
    c["ties"] = np.array([40_000, 40_000, 0])
    v = tie_verdict(c, rescore([-0.0236, 0.0006, 0.0230], [0.10, 0.02, 0.15], 400_000), "last_in_order",
                    "R-9", margins=parse_margins("2.25", "ties"))
    effect = re.search(r"seat 0: (-[\d.]+) pp \[(-[\d.]+), (-[\d.]+)\] against sharing tied wins", v.sentence)
    assert effect, v.sentence
    value, low, high = (float(g) for g in effect.groups())
    assert low <= value <= high < -2.25  # the figure inside its interval, both beyond the margin
    assert not re.search(r"\b(gains|loses)\b", v.sentence)


# ---- 4: the reading note claims only what the page shows -------------------------------------------------
def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small self-play run, the same run marked as played until decided, and a values run."""
    base = tmp_path_factory.mktemp("stated")
    done = balance("simulate", "configs/kamakura/base.toml", "--players", "3", "--games", "400", "--agents",
                   "random", "--quiet", "--out", str(base / "run"))
    assert done.returncode == 0, done.stderr
    done = balance("values", "configs/kamakura/base.toml", "--players", "3", "--agents", "greedy", "--games",
                   "40", "--positions", "0", "--seed", "1", "--quiet", "--out", str(base / "values"))
    assert done.returncode == 0, done.stderr
    return {"run": base / "run", "values": base / "values", "base": base}


def _page_text(report: Path) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", (report / "index.html").read_text()))


def _report(paths: list[Path], out: Path, *more: str) -> str:
    done = balance("report", *map(str, paths), "--out", str(out), *more)
    assert done.returncode == 0, done.stderr
    return _page_text(out)


def test_the_note_judges_only_what_is_judged_and_names_intervals_the_page_shows(played) -> None:
    """--questions all asks length too, but a run's length is only described: "Judged here" leaves it
    out; a values report judges worth only and shows no confidence sequence."""
    text = _report([played["run"]], played["base"] / "all", "--questions", "all")
    judged = re.search(r"Judged here: ([^;(]+)", text).group(1).strip()
    assert judged == "seats, start, ties" and "length" not in judged
    assert "a little wider than the fixed-size intervals in the sections below" in text
    text = _report([played["values"]], played["base"] / "values-report")
    assert re.search(r"Judged here: worth;", text), text[:3000]
    assert "confidence sequences" not in text and "fixed-size" not in text and "2 pp for seats" not in text


def test_a_run_played_until_decided_is_not_said_to_have_fixed_size_intervals_below(played, tmp_path) -> None:
    import shutil

    from storage.run_dir import mark_stopped_adaptively

    run = tmp_path / "adaptive"
    shutil.copytree(played["run"], run)
    mark_stopped_adaptively(run)
    text = _report([run], tmp_path / "report")
    assert "fixed-size intervals and tests left out here" in text  # the sections below say so
    assert "a little wider than the fixed-size intervals" not in text
    assert "the sections below show no fixed-size interval of these runs" in text


# ---- 5: the run list counts every run directory reported -------------------------------------------------
def test_the_report_counts_every_run_directory_it_reports(played) -> None:
    text = _report([played["values"]], played["base"] / "one")
    assert "from 1 run directory;" in text  # before: "from 0 run directories"
    text = _report([played["values"], played["run"]], played["base"] / "two")
    assert "from 2 run directories;" in text
    listed = re.search(r"The runs(.*?)What each component", text, re.S).group(1)
    assert str(played["values"]) in listed and str(played["run"]) in listed


# ---- 6: one interval for a component's worth -------------------------------------------------------------
def test_a_component_s_worth_reads_the_same_in_its_verdict_and_its_table(played) -> None:
    import json

    import pandas as pd

    out = played["base"] / "worth"
    _report([played["values"]], out)
    summary = json.loads((out / "summary.json").read_text())
    verdicts = [v for v in next(iter(summary["verdicts"].values())) if v["question"].startswith("worth:")]
    assert verdicts
    table = pd.read_csv(out / "tables" / "values_0.csv")
    checked = 0
    for v in verdicts:
        if not math.isfinite(v.get("worth", math.nan)):
            continue
        row = table[(table["Component"] == v["component"])].iloc[0]
        span = figures.whole_interval(v["worth_low"], v["worth_high"], sign=True)
        assert row["95% interval (points)"] == span, (v["sentence"], row.to_dict())
        assert figures.whole_interval(v["worth_low"], v["worth_high"]) in v["sentence"]
        checked += 1
    assert checked


def test_an_infinite_worth_bound_is_said_in_words() -> None:
    from analysis.verdicts import DEFAULT_MARGINS
    from analysis.worth_verdicts import _one

    row = {"component": "red 4", "n": 150, "value": 0.5, "worth": 8.0, "worth_low": 7.0,
           "worth_high": math.inf, "face": 4.0}
    v = _one(row, BEYOND, "points", DEFAULT_MARGINS)
    assert "inf" not in v.sentence and "inf" not in v.short, v.sentence
    assert "[at least 7]" in v.sentence and "[at least +3]" in v.sentence
    assert figures.whole_interval(7, math.inf, sign=True) == "[at least +7]"
    assert figures.whole_interval(-math.inf, -2, sign=True) == "[at most -2]"
