"""Shared plumbing of the question modules (private): table columns as numpy arrays and the players table
as a sorted player-game index.

Every game's tables read through these (`analysis.seats`, `analysis.ties` and the game packages
`analysis/<game>/`); not part of the package's interface.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


def ints(series: pd.Series, fill: int = -1) -> np.ndarray:
    """A numeric (possibly nullable) column as int64, nulls (and NaN) -> ``fill``."""
    return series.to_numpy(dtype=np.int64, na_value=fill)


def floats(series: pd.Series) -> np.ndarray:
    """A numeric (possibly nullable) column as float64, nulls -> NaN."""
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def bools(series: pd.Series) -> np.ndarray:
    """A (possibly nullable) boolean column as bool, nulls -> False."""
    return series.to_numpy(dtype=bool, na_value=False)


@dataclass(frozen=True)
class PlayerGames:
    """The players table as arrays sorted by (game, seat), with per-game row offsets."""

    game_ids: np.ndarray  # (G,) sorted game ids
    starts: np.ndarray  # (G,) first row of each game
    sizes: np.ndarray  # (G,) players in each game
    game: np.ndarray  # (N,) game index of each row
    seat: np.ndarray  # (N,)
    share: np.ndarray  # (N,) win share
    score: np.ndarray  # (N,) float score
    frame: pd.DataFrame  # the players table in this row order

    @property
    def seats(self) -> int:
        return int(self.seat.max()) + 1 if len(self.seat) else 0


def player_games(players: pd.DataFrame) -> PlayerGames:
    """The players table indexed by player-game (ValueError when it is empty or a game's seats are not
    0..P-1)."""
    if len(players) == 0:
        raise ValueError("players table is empty")
    gid = ints(players["game_id"])
    seat = ints(players["seat"])
    ordered = bool(np.all((gid[1:] > gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] > seat[:-1]))))
    if not ordered:
        order = np.lexsort((seat, gid))
        players = players.iloc[order]
        gid, seat = gid[order], seat[order]
    new = np.empty(len(gid), dtype=bool)
    new[0] = True
    np.not_equal(gid[1:], gid[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    game = np.cumsum(new) - 1
    sizes = np.diff(np.append(starts, len(gid)))
    if not np.array_equal(seat, np.arange(len(gid)) - starts[game]):
        raise ValueError("players table must list seats 0..P-1 of every game")
    return PlayerGames(game_ids=gid[starts], starts=starts, sizes=sizes, game=game, seat=seat,
                       share=floats(players["win_share"]), score=floats(players["score"]), frame=players)
