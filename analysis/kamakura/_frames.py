"""Shared plumbing of the Kamakura questions (private): the events table scanned in blocks of whole games,
as compact numpy columns, each event with its player-game row of the players table
(`analysis._arrays.player_games`).

Used by `analysis.kamakura.chit_values` and `analysis.kamakura.game_flow`; not part of the package's
interface.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis._arrays import PlayerGames

#: Events are processed in blocks of whole games of about this many rows, so that temporary arrays stay small
#: (first-touch page faults of big temporaries dominate the cost at tens of millions of rows).
_BLOCK_ROWS = 1 << 20


class _EventScan:
    """The events table as compact numpy columns, cut into blocks of whole games, with each event's
    player-game row (index into `analysis._arrays.PlayerGames`) computed per block.

    Game ids are looked up, and seats checked, once per run of equal game ids rather than once per row."""

    def __init__(self, events: pd.DataFrame, pg: PlayerGames, block_rows: int | None = None):
        block_rows = block_rows or _BLOCK_ROWS
        gid = events["game_id"].to_numpy(dtype=np.int64, na_value=-1)  # a view when there is no NA
        n = len(gid)
        if n:
            new = np.empty(n, dtype=bool)
            new[0] = True
            np.not_equal(gid[1:], gid[:-1], out=new[1:])
            run_starts = np.flatnonzero(new)
            if np.any(np.diff(gid[run_starts]) <= 0):  # not grouped by ascending game: sort once
                events = events.iloc[np.argsort(gid, kind="stable")]
                gid = events["game_id"].to_numpy(dtype=np.int64, na_value=-1)
                np.not_equal(gid[1:], gid[:-1], out=new[1:])
                run_starts = np.flatnonzero(new)
            del new
        else:
            run_starts = np.empty(0, dtype=np.int64)
        self.events = events
        self.n = n
        self.pg = pg
        self.seat = events["seat"].to_numpy(dtype=np.int8, na_value=-1) if n else np.empty(0, np.int8)
        run_ids = gid[run_starts]
        pos = np.minimum(np.searchsorted(pg.game_ids, run_ids), max(len(pg.game_ids) - 1, 0))
        ok = pg.game_ids[pos] == run_ids if n else np.empty(0, dtype=bool)
        if n:
            ok &= np.minimum.reduceat(self.seat, run_starts) >= 0
            ok &= np.maximum.reduceat(self.seat, run_starts) < pg.sizes[pos]
        #: per run of equal game ids (= per game, events being grouped): start row, game index (-1: unknown)
        self.run_starts = run_starts
        self.run_game = np.where(ok, pos, -1)
        self._run_base = np.where(ok, pg.starts[pos], -(1 << 40))
        self._all_ok = bool(ok.all())
        # block cuts at run starts, about block_rows apart
        if n:
            targets = np.arange(0, n, block_rows)
            cut_runs = np.unique(np.searchsorted(run_starts, targets, side="left"))
            cut_runs = cut_runs[cut_runs < len(run_starts)]
            self._cut_runs = np.append(cut_runs, len(run_starts))
        else:
            self._cut_runs = np.zeros(1, dtype=np.int64)
        self._columns: dict[str, np.ndarray] = {}

    def blocks(self) -> Iterator[tuple[int, int, int, int]]:
        """Yield ``(a, b, r0, r1)``: event rows a:b holding exactly the runs (games) r0:r1."""
        for r0, r1 in zip(self._cut_runs[:-1], self._cut_runs[1:], strict=True):
            a = int(self.run_starts[r0])
            b = int(self.run_starts[r1]) if r1 < len(self.run_starts) else self.n
            yield a, b, int(r0), int(r1)

    def run_lengths(self, a: int, b: int, r0: int, r1: int) -> np.ndarray:
        return np.diff(np.append(self.run_starts[r0:r1], b))

    def rows(self, a: int, b: int, r0: int, r1: int) -> np.ndarray:
        """Player-game row of each event in a:b; -1 where game or seat is unknown to the players table."""
        row = np.repeat(self._run_base[r0:r1], self.run_lengths(a, b, r0, r1))
        row += self.seat[a:b]
        if not self._all_ok:
            row[row < 0] = -1
        return row

    def int_column(self, name: str, dtype: npt.DTypeLike = np.int16) -> np.ndarray:
        """An integer column as a compact numpy array, NA -> -1 (cached)."""
        if name not in self._columns:
            self._columns[name] = self.events[name].to_numpy(dtype=dtype, na_value=-1)
        return self._columns[name]

    def code_column(self, name: str, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """A string column as raw int codes and a lookup mapping them (index -1 included, as the last entry)
        to positions in ``names`` (-1 for anything else): ``lookup[codes[a:b]]``."""
        series = self.events[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes = np.asarray(series.array.codes)
            lookup = [names.index(c) if c in names else -1 for c in series.cat.categories]
        else:
            codes = pd.Categorical(series, categories=list(names)).codes
            lookup = list(range(len(names)))
        return codes, np.array([*lookup, -1], dtype=np.int8)
