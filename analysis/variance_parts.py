"""How much of who wins is luck: the variance of each seat's win share split into what the deal decides,
what the later draws decide, and what the players' own choices decide (docs/explanation/statistics.md,
"How much is luck").

The games come from a nested design (sim/app/luck.py): `deals` deals, each played with `draws` orders of
the cards left after the deal (one where the game draws none after its setup), each of those `replays`
times with other streams of the agents' choices. The components are the classical ones of a balanced
nested random-effects model (method of moments: the mean squares set equal to their expectations), each
unbiased, a negative estimate reported as it is rather than set to 0 so that a sum over seats stays
unbiased; their intervals are percentile bootstraps over deals, the unit that is independent.

What the split says about estimators: a luck correction (a control variate of the chance events, AIVAT's
chance terms) can at best remove the chance components, so it needs at most 1 / (1 - chance share) times
fewer games than the plain estimate; the players' component stays (why a correction at their decisions
does not pay at expert and search: docs/explanation/statistics.md, "How much is luck").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: bootstrap resamples of the deals
BOOTSTRAP = 2000
#: the parts, in the order of the nesting
PARTS = ("deal", "draws", "play")


def components(shares: np.ndarray) -> np.ndarray:
    """The three variance components (deal, draws, play) of each seat: `shares` is (deals, draws,
    replays, seats); returns (3, seats). With one draw order the draws' component is 0 (not estimable:
    it is then part of the deal's)."""
    deals, draws, replays, _ = shares.shape
    cell = shares.mean(axis=2)                                 # (deals, draws, seats)
    play = shares.var(axis=2, ddof=1).mean(axis=(0, 1)) if replays > 1 else np.zeros(shares.shape[3])
    if draws > 1:
        draw = cell.var(axis=1, ddof=1).mean(axis=0) - play / replays
    else:
        draw = np.zeros(shares.shape[3])
    deal = cell.mean(axis=1).var(axis=0, ddof=1) - draw / draws - play / (draws * replays)
    return np.stack([deal, draw, play])


def _shares_of(parts: np.ndarray) -> np.ndarray:
    """Each part's share of the sum of the parts, per seat and (last column) over all seats: (3, seats+1)."""
    pooled = parts.sum(axis=1, keepdims=True)
    both = np.concatenate([parts, pooled], axis=1)
    total = both.sum(axis=0, keepdims=True)
    return np.divide(both, total, out=np.zeros_like(both), where=total > 0)


def luck_table(shares: np.ndarray, seed: int = 0, resamples: int = BOOTSTRAP) -> pd.DataFrame:
    """One row per seat and one for all seats ('all'): the win share, each part's variance and share of
    the variance with its 95% interval (bootstrap over deals), the chance share (deal and draws) and the
    most a luck correction can save, 1 / (1 - chance share), with its interval."""
    deals, _, _, seats = shares.shape
    parts = components(shares)
    point = _shares_of(parts)
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, 3, seats + 1))
    for b in range(resamples):
        boot[b] = _shares_of(components(shares[rng.integers(0, deals, deals)]))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    chance_boot = boot[:, 0] + boot[:, 1]
    c_low, c_high = np.percentile(chance_boot, [2.5, 97.5], axis=0)
    rows = []
    for k in range(seats + 1):
        row = {"seat": str(k) if k < seats else "all",
               "win_share": float(shares[..., k].mean()) if k < seats else float("nan"),
               "variance": float(parts[:, k].sum()) if k < seats else float(parts.sum()),
               "games": int(shares[..., 0].size)}
        for i, part in enumerate(PARTS):
            row[f"{part}_variance"] = float(parts[i, k]) if k < seats else float(parts[i].sum())
            row[f"{part}_share"], row[f"{part}_low"], row[f"{part}_high"] = (
                float(point[i, k]), float(low[i, k]), float(high[i, k]))
        chance = point[0, k] + point[1, k]
        row.update(chance_share=float(chance), chance_low=float(c_low[k]), chance_high=float(c_high[k]),
                   most_saved=_saving(chance), most_saved_low=_saving(c_low[k]),
                   most_saved_high=_saving(c_high[k]))
        rows.append(row)
    return pd.DataFrame(rows)


def _saving(chance: float) -> float:
    """How many times fewer games an estimate needs when a share `chance` of its variance is removed."""
    return float(1.0 / max(1e-9, 1.0 - min(max(chance, 0.0), 1.0 - 1e-9)))
