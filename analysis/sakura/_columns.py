"""Shared plumbing of the Sakura questions (private): column access without conversion and chunked
walks over the events table (about 60 million rows at a million games), a (game_id, seat) row finder,
the id lists' ordering (docs/rules.md, R-11) and the Wilson-interval rate row.

Whole numeric columns convert with the shared `analysis._arrays.ints` / `floats`; `_Col` is for what
those do not do: text and categorical columns read as codes into their labels, and a column read in
slices (chunk by chunk) without converting it whole.

Used by `analysis.sakura.ties`, `analysis.sakura.card_values` and `analysis.sakura.game_flow`; not part of the
package's interface.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from analysis.stats import wilson_interval

CHUNK = 1 << 22  # event rows per step: temporaries stay small however large the run

#: Rows of a column to read: a slice, a boolean mask or an index array.
Rows = slice | np.ndarray


class _Col:
    """A column's values without conversion: numeric columns as their numpy buffer (nullable ones with
    their null mask), text and categorical columns (`text=True`) as codes 0.. (-1 for null) into `labels`.
    `take(rows)` reads some rows (a slice, mask or index array), nulls as `fill`."""

    def __init__(self, series: pd.Series, text: bool = False):
        self.mask: np.ndarray | None = None
        self.labels: list[str] = []
        arr = series.array
        if isinstance(series.dtype, pd.CategoricalDtype) or text:
            if isinstance(arr, pd.Categorical):
                self.values = np.asarray(arr.codes)
                self.labels = [str(c) for c in arr.categories]
            else:
                self.values, uniques = pd.factorize(series, use_na_sentinel=True)
                self.labels = [str(c) for c in uniques]
        elif hasattr(arr, "_data") and hasattr(arr, "_mask"):  # pandas' nullable (masked) arrays
            self.values, self.mask = np.asarray(arr._data), np.asarray(arr._mask)
            if not self.mask.any():
                self.mask = None
        else:
            values = series.to_numpy()
            if values.dtype == object:
                converted = series.convert_dtypes()
                if converted.dtype == object:
                    raise TypeError(f"column {series.name!r}: cannot read {series.dtype} as numbers")
                self.__init__(converted)
                return
            self.values = values
            if values.dtype.kind == "f" and np.isnan(values).any():
                self.mask = np.isnan(values)

    def take(self, rows: Rows = slice(None), fill: float = -1) -> np.ndarray:
        values = self.values[rows]
        if self.mask is not None:
            mask = self.mask[rows]
            if mask.any():
                values = np.where(mask, fill, values)
        return values.view(np.int8) if values.dtype == bool else values

    def ints(self, rows: Rows = slice(None), fill: int = -1) -> np.ndarray:
        return self.take(rows, fill).astype(np.int64, copy=False)

    def floats(self, rows: Rows = slice(None)) -> np.ndarray:
        return self.take(rows, np.nan).astype(np.float64, copy=False)


def _spans(n: int) -> Iterator[slice]:
    """Slices of CHUNK rows covering 0..n."""
    for start in range(0, n, CHUNK):
        yield slice(start, min(start + CHUNK, n))


def _kind_col(events: pd.DataFrame) -> tuple[_Col, int, int]:
    """The kind column's codes and the codes of "card" and "sakura" (-2 when absent)."""
    col = _Col(events["kind"], text=True)
    code = {label: i for i, label in enumerate(col.labels)}
    return col, code.get("card", -2), code.get("sakura", -2)


class _KeyIndex:
    """Finds the row of (game_id, seat) pairs among given ones; -1 where there is none (e.g. the court
    painter, who has no players row)."""

    def __init__(self, game_id: np.ndarray, seat: np.ndarray):
        self.width = int(seat.max()) + 2 if len(seat) else 1
        self.low = int(game_id.min()) if len(game_id) else 0
        span = (int(game_id.max()) - self.low + 1) if len(game_id) else 0
        self.dense = span * self.width <= max(4 * len(game_id), 1 << 16)
        keys = (game_id - self.low) * self.width + seat
        if self.dense:
            self.table = np.full(span * self.width + 1, -1, dtype=np.int64)  # last entry: "none"
            self.table[keys] = np.arange(len(keys))
        else:
            self.order = np.argsort(keys, kind="stable")
            self.keys = keys[self.order]

    def __call__(self, game_id: np.ndarray, seat: np.ndarray) -> np.ndarray:
        game_id = game_id.astype(np.int64, copy=False)
        keys = game_id - self.low
        keys *= self.width
        keys += seat
        if not len(keys):
            return np.zeros(0, dtype=np.int64)
        in_range = bool(seat.min() >= 0 and seat.max() < self.width and game_id.min() >= self.low)
        if self.dense:
            if not (in_range and keys.max() < len(self.table) - 1):
                ok = (seat >= 0) & (seat < self.width) & (game_id >= self.low) & (keys < len(self.table) - 1)
                keys = np.where(ok, keys, len(self.table) - 1)
            return self.table[keys]
        if not len(self.keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        hit = self.keys[at] == keys
        if not in_range:
            hit &= (seat >= 0) & (seat < self.width) & (game_id >= self.low)
        return np.where(hit, self.order[at], -1)


def _rank(labels: list[str], order: tuple[str, ...]) -> list[int]:
    """Indices of `labels` sorted as in `order` (the id lists of docs/rules.md, R-11), unknown ids last by
    name."""
    return sorted(range(len(labels)), key=lambda i: (
        order.index(labels[i]) if labels[i] in order else len(order), labels[i]))


def _rate_row(successes: float, n: int) -> dict:
    """win_rate = successes / n (NaN for n = 0) with its Wilson 95% ci_low, ci_high."""
    low, high = wilson_interval(successes, n)
    return {"win_rate": successes / n if n else np.nan, "ci_low": low, "ci_high": high}
