"""A report over several runs of a game shows each run minus the first, paired game by
game when the runs share their seeds: the same deals under another tie-break differ only where ties are
broken, so the paired interval is far narrower than the unpaired one, and the table is one Holm family."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.paired import per_game
from analysis.run_tally import read_run_tally
from analysis.runs import read_run
from analysis.sweep_report import TESTED, compare_runs
from analysis.variants import variant_rows, variant_section
from sim.app.runner import plan_run, simulate

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "kamakura" / "base.toml"


def test_variant_minus_base_is_paired_on_shared_seeds(tmp_path: Path) -> None:
    variant = tmp_path / "first.toml"
    variant.write_text(f'extends = "{BASE.as_posix()}"\n[rules]\ntie_break = "first_in_order"\n')
    runs, whole = {}, {}
    for label, config, seed in (("base", BASE, 3), ("first", variant, 3), ("other seed", BASE, 4)):
        simulate(plan_run(config, 3, "greedy", seed, False), 1500, tmp_path / label, jobs=1, chunk_size=500)
        runs[label] = read_run_tally(tmp_path / label)
        whole[label] = read_run(tmp_path / label)
    rows = variant_rows(runs, "turns")
    same = rows[rows["run"] == "first"].set_index("metric")
    other = rows[rows["run"] == "other seed"].set_index("metric")
    assert same["paired"].all() and not other["paired"].any()
    assert same.loc["length", "difference"] == 0 and same.loc["length", "ci_low"] == 0  # same games
    frames = {label: per_game(run.games, run.players, "turns") for label, run in whole.items()}
    unpaired = compare_runs(frames["first"], frames["base"], paired=False)
    paired_width = same.loc["start_adv", "ci_high"] - same.loc["start_adv", "ci_low"]
    assert paired_width < 0.5 * (unpaired["d_start_adv_high"] - unpaired["d_start_adv_low"])
    assert np.all(rows["p_holm"] >= rows["p_value"] - 1e-12)
    section = variant_section("Kamakura", runs, "turns")
    assert section is not None and len(section.tables) == 1


def test_the_paired_rows_by_chunks_are_those_of_the_whole_runs(tmp_path: Path) -> None:
    """The pair sums of three chunks, merged, give the same differences as the two runs' tables
    held whole (the same sums in one piece), and a second report reads no part again."""
    variant = tmp_path / "first.toml"
    variant.write_text(f'extends = "{BASE.as_posix()}"\n[rules]\ntie_break = "first_in_order"\n')
    for label, config in (("base", BASE), ("first", variant)):
        simulate(plan_run(config, 3, "greedy", 5, False), 900, tmp_path / label, jobs=1, chunk_size=300)
    runs = {label: read_run_tally(tmp_path / label) for label in ("base", "first")}
    rows = variant_rows(runs, "turns").set_index("metric")
    whole = {label: read_run(tmp_path / label) for label in ("base", "first")}
    expected = compare_runs(*(per_game(whole[k].games, whole[k].players, "turns") for k in ("first", "base")))
    assert expected["tie_is_decided"]  # last_in_order and first_in_order decide every tie: one row
    assert set(rows.index) == {m for m in TESTED if m != "tiebreak_rate"} - {"tie_rate"} | {"tie_decided"}
    for row in rows.index:
        metric = "tie_rate" if row == "tie_decided" else row
        for suffix, column in (("", "difference"), ("_low", "ci_low"), ("_high", "ci_high")):
            assert np.isclose(rows.loc[row, column], expected[f"d_{metric}{suffix}"], rtol=1e-12,
                              atol=1e-15, equal_nan=True), (metric, column)
    from analysis.paired import paired_tally

    _, read = paired_tally(runs["first"], runs["base"], "turns")
    assert read == 0  # every window's sums came from the cache
