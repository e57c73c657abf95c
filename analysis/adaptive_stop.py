"""Runs played until their verdicts were decided (`--until-decided`, sim/app/until_decided.py; the run
directory's manifest says so: its RunManifest.stopped_adaptively). Such a run stopped on its own data, so a
fixed-size interval or test of it (a Wilson interval, a Holm flag, a chi-square) would overstate; only the
verdicts' confidence sequences stay valid. What the report and the summary say in their place.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

#: why a run that stopped on its own data shows no fixed-size interval or test
ADAPTIVE_NOTE = ("this run was played in rounds until its verdicts were decided (--until-decided), looked at "
                 "after each, so fixed-size intervals and tests would overstate; the verdicts' confidence "
                 "sequences above stay valid")


def adaptive_labels(runs: dict[str, Any]) -> set[str]:
    """The labels of the runs (label -> run with a manifest) that stopped when their verdicts were
    decided."""
    return {label for label, run in runs.items() if run.manifest.stopped_adaptively}


def adaptive_note(labels: Iterable[str]) -> str:
    """The one line (HTML) a report section shows in place of what it leaves out of these runs."""
    names = ", ".join(f"<b>{html.escape(str(label))}</b>" for label in sorted(labels))
    return f"{names}: fixed-size intervals and tests left out here: {ADAPTIVE_NOTE}."


def unless_adaptive(run: Any, text: str) -> str:
    """`text` (a fixed-size interval or test as a note words it), or "" for a run that stopped adaptively."""
    return "" if run.manifest.stopped_adaptively else text
