"""`balance compare` walks from the command to its verdict sentence once, downhill (docs/design/notes.md,
"The compare walk"), as scripts/compare_walk.py measures it: one small compare (two Kamakura configs, 200
random games each, --jobs 1, so every chunk is played and tallied in the command's process) run under
instrumentation in a process of its own.

- Each run's report tally is read once (analysis.run_tally.read_run_tally), each of its chunks once
  (analysis.parts.chunk_stats): the verdicts and the report read the same tallies.
- Each config is validated once for its player count (its game's `rules_from_mapping`, however it is
  reached): the plan, the players, the run's manifest, its chunk tallies and its report share the rules.
- The verdict sentences reach stdout before the report is built; the report's path follows its page.
- The walk goes downhill. The layers from the top (docs/design/layout.md): commands, workbench, design, app,
  analysis, storage, engines, foundation. On the command's main thread, from the moment it starts to the
  moment it ends, no call of a project function is to a function of a layer above its caller's: along every
  chain of calls the layers never rise (the command calls the application, which calls the analysis, which
  calls storage), so no layer is entered again from below once the walk has left it downwards (no callback
  up). The registry (sim/games.py, sim/core/game_spec.py, sim/<game>/spec.py) is a table of references, not a
  step: a call through it is judged by who called whom through it. Calls made while a module is imported are
  left out, and so are the chunks the backend plays on its lanes (threads and worker processes that run
  the task they are handed, as an executor does), which are beside the walk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = "configs/kamakura/base.toml"
VARIANT = "configs/kamakura/tie-shared.toml"


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("walk") / "compare"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "scripts/compare_walk.py", "--json", "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    figures["chunks"] = {name: len(list((out / name / "games.parquet").glob("part-*.parquet")))
                         for name in ("base", "variant")}
    return figures


def test_the_measured_compare_says_its_verdicts(walk: dict[str, Any]) -> None:
    assert walk["status"] == 0
    assert walk["stdout"].startswith(f"compare: {BASE} (base) with {VARIANT} (variant)")
    assert "  Seat gap: " in walk["stdout"]


def test_each_run_is_tallied_once(walk: dict[str, Any]) -> None:
    assert walk["tallies"] == {"base": 1, "variant": 1}
    assert walk["chunk_tallies"] == walk["chunks"]


def test_each_config_is_validated_once_per_player_count(walk: dict[str, Any]) -> None:
    assert walk["validations"] == {f"{BASE}, 3 players": 1, f"{VARIANT}, 3 players": 1}


def test_the_sentence_is_printed_before_the_report_is_built(walk: dict[str, Any]) -> None:
    assert walk["events"] == ["sentence", "report built", "report written"]
    last = walk["stdout"].splitlines()[-1]
    assert last.startswith("report: ") and last.endswith("index.html")


def test_the_walk_goes_downhill(walk: dict[str, Any]) -> None:
    assert walk["up"] == {}
    assert walk["returns"] == 0
    assert walk["up_after"] == 0
