"""A report over several runs of a game shows each run minus the first (issue 13, item 4), paired game by
game when the runs share their seeds: the same deals under another tie-break differ only where ties are
broken, so the paired interval is far narrower than the unpaired one, and the table is one Holm family."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.runs import read_run
from analysis.sweep_report import compare_runs, per_game
from analysis.variants import variant_rows, variant_section
from sim.app.runner import plan_run, simulate

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "kamakura" / "base.toml"


def test_variant_minus_base_is_paired_on_shared_seeds(tmp_path: Path) -> None:
    variant = tmp_path / "first.toml"
    variant.write_text(f'extends = "{BASE.as_posix()}"\n[rules]\ntie_break = "first_in_order"\n')
    runs = {}
    for label, config, seed in (("base", BASE, 3), ("first", variant, 3), ("other seed", BASE, 4)):
        simulate(plan_run(config, 3, "greedy", seed, False), 1500, tmp_path / label, jobs=1)
        runs[label] = read_run(tmp_path / label)
    rows = variant_rows(runs, "turns")
    same = rows[rows["run"] == "first"].set_index("metric")
    other = rows[rows["run"] == "other seed"].set_index("metric")
    assert same["paired"].all() and not other["paired"].any()
    assert same.loc["length", "difference"] == 0 and same.loc["length", "ci_low"] == 0  # same games
    unpaired = compare_runs(per_game(runs["first"].games, runs["first"].players, "turns"),
                            per_game(runs["base"].games, runs["base"].players, "turns"), paired=False)
    paired_width = same.loc["start_adv", "ci_high"] - same.loc["start_adv", "ci_low"]
    assert paired_width < 0.5 * (unpaired["d_start_adv_high"] - unpaired["d_start_adv_low"])
    assert np.all(rows["p_holm"] >= rows["p_value"] - 1e-12)
    section = variant_section("Kamakura", runs, "turns")
    assert section is not None and len(section.tables) == 1
