"""How often do ties decide the game? Tie counts of a run's games table (top score shared, decided by the
tie-break, shared wins) with Wilson 95% intervals, for every game (the games tables share these columns).

Re-scoring the seats under every tie-break rule depends on each game's rules, so it lives in the game
packages (`analysis/<game>/ties.py`, their `rescore_ties`); the rules are the registry's
(`GameSpec.tie_breaks`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis._arrays import bools
from analysis.stats import wilson_intervals


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner.

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    n = len(games)
    out: dict[str, Any] = {"n": n}
    columns = {"top_tied": bools(games["tie"]),
               "decided_by_tiebreak": bools(games["decided_by_tiebreak"]),
               "shared_win": games["winner"].isna().to_numpy(dtype=bool)}
    for name, mask in columns.items():
        count = int(mask.sum())
        low, high = wilson_intervals(count, n)
        out[name] = count
        out[f"{name}_rate"] = count / n if n else float("nan")
        out[f"{name}_ci_low"] = float(low)
        out[f"{name}_ci_high"] = float(high)
    return out
