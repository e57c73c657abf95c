"""What a report says about the rules a run read (analysis/readings.py): each
reading knob's value (R-9/R-20, R-14) in the run list, and a one-sentence notice when a run keeps the
components the originals do not print (Kamakura R-1, R-3, R-4; Sakura R-10, R-11), or plays a player
count the originals do not describe (Kamakura with 2)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.readings import reconstructed_parts, reconstruction_notes, rule_readings
from analysis.runs import Run
from sim import games
from sim.core.config import load_toml
from storage.run_record import RunManifest

ROOT = Path(__file__).resolve().parents[1]


def run_of(config: str, players: int, **rules) -> Run:
    merged, _ = load_toml(ROOT / config)
    merged["rules"] = {**merged.get("rules", {}), **rules}
    manifest = RunManifest(game=merged["game"], players=players, config=merged, agents=["random"] * players,
                           seed=0)
    return Run(Path("/nowhere"), manifest, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(),
               spec=games.spec(merged["game"]))


def test_readings_name_each_knobs_value():
    assert rule_readings(run_of("configs/kamakura/base.toml", 3)) == {"tie_break": "last_in_order"}
    assert rule_readings(run_of("configs/kamakura/base.toml", 3, tie_break="last_to_play")) == \
        {"tie_break": "last_to_play"}  # R-20
    assert rule_readings(run_of("configs/sakura/base.toml", 4)) == {
        "tie_break": "closest_to_emperor", "bump_from": "emperor", "lineup_from_gate": False}
    assert rule_readings(run_of("configs/sakura/base.toml", 2, court_can_win=True, bump_from="painter")) == {
        "tie_break": "closest_to_emperor", "bump_from": "painter", "lineup_from_gate": False,
        "court_can_win": True}


def test_the_reconstructed_defaults_are_named():
    base = run_of("configs/kamakura/base.toml", 3)
    assert reconstructed_parts(base) == ["layout (R-1)", "chit set (R-3)", "order-chit moves (R-4)"]
    assert reconstructed_parts(run_of("configs/kamakura/random-layout.toml", 3)) == \
        ["chit set (R-3)", "order-chit moves (R-4)"]
    moved = run_of("configs/kamakura/base.toml", 3, order_chit_moves=[0, 0, 0, 0])
    assert "order-chit moves (R-4)" not in reconstructed_parts(moved)
    sakura = run_of("configs/sakura/base.toml", 4)
    assert reconstructed_parts(sakura) == ["board geometry (R-10)", "deck (R-11)"]


def test_notes_say_it_once_naming_the_runs():
    runs = [run_of("configs/kamakura/base.toml", 3), run_of("configs/kamakura/base.toml", 4),
            run_of("configs/kamakura/base.toml", 2)]
    notes = reconstruction_notes(runs, ["a", "b", "c"])
    assert len(notes) == 2
    assert notes[0].startswith("Kamakura: the layout (R-1), chit set (R-3) and order-chit moves (R-4) are "
                               "the reconstructed defaults") and notes[0].endswith("(a, b, c)")
    assert "the originals describe 3 and 4 players only" in notes[1] and notes[1].endswith("(c)")
    random_layout = run_of("configs/kamakura/base.toml", 3, layout="random")
    assert reconstruction_notes([random_layout], ["x"])[0].startswith(
        "Kamakura: the chit set (R-3) and order-chit moves (R-4) are")
