"""How often do ties decide the game? Tie counts of a run's games table (top score shared, decided by the
tie-break, shared wins) with Wilson 95% intervals, for every game (the games tables share these columns),
read off a mergeable tally (`tie_tally`, held in the report's common tally).

Re-scoring the seats under every tie-break rule depends on each game's rules, so it lives in the game
packages (`analysis/<game>/ties.py`, their `rescore_tally` and `rescore_ties_from`); the rules are the
registry's (`GameSpec.tie_breaks`). What a rule changes against the configured one is paired, since the
rules re-score the same games: the mean of the per-game changes, from their sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import bools
from analysis.stats import wilson_intervals


def tie_tally(games: pd.DataFrame) -> np.ndarray:
    """What `tie_stats` needs of some games besides their number, as whole numbers: the games whose top
    score is shared, that the tie-break decided, and with no single winner (the report's common tally
    holds it as ``ties``, `analysis.run_tally.common_tally`)."""
    return np.array([int(bools(games["tie"]).sum()), int(bools(games["decided_by_tiebreak"]).sum()),
                     int(games["winner"].isna().to_numpy(dtype=bool).sum())])


def tie_stats(c: dict) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner, from a (merged)
    common tally (its ``games`` and its ``ties``, `tie_tally`).

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    return count_rates(int(c["games"]), dict(zip(("top_tied", "decided_by_tiebreak", "shared_win"),
                                                 c["ties"], strict=True)))


def count_rates(n: int, counts: dict[str, int]) -> dict[str, Any]:
    """``n`` and, per named count of games, the count, its rate and Wilson 95% interval (``<name>``,
    ``<name>_rate``, ``<name>_ci_low``, ``<name>_ci_high``)."""
    out: dict[str, Any] = {"n": n}
    for name, count in counts.items():
        count = int(count)
        low, high = wilson_intervals(count, n)
        out[name] = count
        out[f"{name}_rate"] = count / n if n else float("nan")
        out[f"{name}_ci_low"] = float(low)
        out[f"{name}_ci_high"] = float(high)
    return out
