"""The report by parts (analysis/tally.py and analysis/run_tally.py): every figure from chunk
tallies merged exactly, so chunking, --jobs, the backend and the cache change no number; the tallies'
primitives agree with numpy and with the in-memory estimators."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis import tally as T
from analysis.kamakura.report import kamakura_sections
from analysis.run_tally import read_run_tally
from analysis.runs import read_run
from tests.oracles import clustered_comparison, seat_gap, tally_of_run

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = str(ROOT / "configs" / "kamakura" / "base.toml")


def simulate(out: Path, games: int, chunk: int, *extra: str) -> None:
    args = ["simulate", KAMAKURA, "--players", "3", "--games", str(games), "--jobs", "1", "--seed", "4",
            "--chunk-size", str(chunk), "--out", str(out), "--quiet", *extra]
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr


def sections_of(runs: dict) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The sections' tables by name and their notes (the charts closed unsaved)."""
    import matplotlib.pyplot as plt

    sections, _ = kamakura_sections(runs)
    plt.close("all")
    return ({name: frame for sec in sections for name, _, frame in sec.tables},
            [note for sec in sections for note in sec.notes])


def test_chunks_give_the_figures_of_the_whole_tables(tmp_path: Path) -> None:
    """Five chunks, each tallied alone and merged, give every table and note of the tables held whole
    (one part): the sums are whole numbers, so the merge is exact."""
    out = tmp_path / "run"
    simulate(out, 1500, 300, "--agents", "greedy,random,greedy", "--rotate-seats")
    by_parts = read_run_tally(out)
    assert by_parts.parts_read == 5
    whole = tally_of_run(read_run(out))
    (parts_tables, parts_notes), (whole_tables, whole_notes) = sections_of({"run": by_parts}), \
        sections_of({"run": whole})
    assert set(parts_tables) == set(whole_tables) and len(parts_tables) >= 6
    for name, frame in parts_tables.items():
        pd.testing.assert_frame_equal(frame, whole_tables[name], check_exact=False, rtol=1e-12, atol=1e-15)
    assert parts_notes == whole_notes
    again = read_run_tally(out)
    assert again.parts_read == 0  # every chunk's tally from its cache


def report(out: Path, run: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", "report", str(run), "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_jobs_and_dask_give_the_same_report(tmp_path: Path) -> None:
    """The same report at --jobs 1 and through Dask (a LocalCluster of two workers), the caches cleared
    between them: every table and summary.json alike."""
    run = tmp_path / "run"
    simulate(run, 1200, 300, "--agents", "random")
    first = report(tmp_path / "one", run)
    assert first.returncode == 0, first.stderr
    for cached in (run / "summaries").glob("*.json"):
        cached.unlink()
    dask = report(tmp_path / "dask", run, "--jobs", "2", "--backend", "dask")
    assert dask.returncode == 0, dask.stderr
    tables = sorted(p.name for p in (tmp_path / "one" / "tables").glob("*.csv"))
    assert tables == sorted(p.name for p in (tmp_path / "dask" / "tables").glob("*.csv")) and tables
    one, dask = tmp_path / "one", tmp_path / "dask"
    for name in tables:
        assert (one / "tables" / name).read_text() == (dask / "tables" / name).read_text()
    assert json.loads((one / "summary.json").read_text()) == json.loads((dask / "summary.json").read_text())


# ---- the primitives ----------------------------------------------------------------------------------------
@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(-30, 60), min_size=1, max_size=80), st.integers(1, 79))
def test_histograms_merge_exactly_and_give_numpy_s_figures(values: list[int], cut: int) -> None:
    x = np.array(values, dtype=float)
    merged = T.merge(T.hist(x[:cut]), T.hist(x[cut:])) if cut < len(x) else T.hist(x)
    whole = T.hist(x)
    assert merged.offset == whole.offset and np.array_equal(merged.counts, whole.counts)
    d = T.hist_distribution(merged)
    qs = np.quantile(x, [0.25, 0.5, 0.75])
    assert np.allclose([d["q25"], d["median"], d["q75"]], qs, rtol=0, atol=1e-9)
    assert d["min"] == x.min() and d["max"] == x.max() and np.isclose(d["mean"], x.mean())
    if len(x) > 1:
        assert np.isclose(d["sd"], x.std(ddof=1), rtol=1e-9, atol=1e-12)
    back = T.loads(T.dumps({"h": merged}))["h"]
    assert back.offset == merged.offset and np.array_equal(back.counts, merged.counts)


@settings(deadline=None, max_examples=40)
@given(st.integers(2, 60), st.integers(0, 2**31 - 1))
def test_the_clustered_comparison_from_sums_is_the_sandwich_estimator(games: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, games)
    game = np.repeat(np.arange(games), sizes)
    y = rng.integers(0, 4, len(game)) * 105  # shares of 1/4 in 1/420ths
    flags = rng.random((3, len(game))) < rng.random()
    expect = clustered_comparison(flags, y / T.SHARE_SCALE, game)
    halves = [T.comparison_sums(flags[:, part], y[part], game[part], games)
              for part in (game < games // 2, game >= games // 2)]
    got = T.comparison_from_sums(T.merge(*halves))
    for key in expect:
        assert np.allclose(got[key], expect[key], rtol=1e-9, atol=1e-12, equal_nan=True), key


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_seat_gap_from_sums_is_the_seat_gap(seats: int) -> None:
    from analysis.paired import seat_gap_from_sums

    rng = np.random.default_rng(seats)
    winner = rng.integers(0, seats, 3000)
    shares = np.eye(seats)[winner]
    shares[:200] = 1 / seats  # some games shared by everyone
    units = T.share_units(shares)
    got = seat_gap_from_sums(len(shares), units.sum(axis=0), units.T @ units)
    expect = seat_gap(shares)
    for key in expect:
        assert np.isclose(got[key], expect[key], rtol=1e-9, atol=1e-12), key
