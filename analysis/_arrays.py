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


def seat_matrix(players: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The players table as (games, seats) float arrays per column (NaN where a seat is missing)."""
    gid = ints(players["game_id"])
    seat = ints(players["seat"])
    order = np.lexsort((seat, gid)) if len(gid) and np.any(
        (gid[1:] < gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] <= seat[:-1]))) else np.arange(len(gid))
    gid, seat = gid[order], seat[order]
    seats = np.unique(seat)
    width = len(seats)
    regular = (width > 0 and len(gid) % width == 0
               and np.array_equal(seat.reshape(-1, width), np.broadcast_to(seats, (len(gid) // width, width)))
               and bool(np.all(gid.reshape(-1, width) == gid.reshape(-1, width)[:, :1])))
    if regular:
        return seats, {c: floats(players[c])[order].reshape(-1, width) for c in columns}
    _, game_pos = np.unique(gid, return_inverse=True)
    seat_pos = np.searchsorted(seats, seat)
    out = {}
    for c in columns:
        m = np.full((int(game_pos.max()) + 1 if len(game_pos) else 0, width), np.nan)
        m[game_pos, seat_pos] = floats(players[c])[order]
        out[c] = m
    return seats, out
