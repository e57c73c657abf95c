"""The Python face of every game's batch self-play: the inputs of `run_batch`, broadcast once here."""

from __future__ import annotations

import numpy as np


def batch_inputs(seeds, seating, players: int, params, n_params: int) -> tuple[np.ndarray, np.ndarray,
                                                                                 np.ndarray]:
    """Seeds as uint64, seating as a contiguous, writable (games, players) array of agent codes (one row
    stands for every game) and agent parameters as a contiguous, writable (games, players, n) float array
    (None: zeros, n = n_params; one (players, n) table stands for every game)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    seating = np.asarray(seating, dtype=np.int64)
    if seating.ndim == 1:
        seating = np.broadcast_to(seating, (len(seeds), players))
    params = np.zeros((players, n_params)) if params is None else np.asarray(params, dtype=np.float64)
    if params.ndim == 2:  # rows may be longer than n_params: an expert's ends with its model's weights
        params = np.broadcast_to(params, (len(seeds), players, params.shape[-1]))
    # Writable as well as contiguous: numba compiles (and caches) a kernel once per array type, and an
    # array a worker process received (joblib's memmapped or unpickled inputs) can be read-only, which is
    # another type; copying the small tables keeps one compiled kernel for every run
    # (sim/commands/compile_kernels.py).
    def owned(values: np.ndarray) -> np.ndarray:
        return np.require(values, requirements=("C_CONTIGUOUS", "WRITEABLE"))
    return owned(seeds), owned(seating), owned(params)


def result_arrays(games: int, players: int) -> dict[str, np.ndarray]:
    """The outputs every game's play_batch fills for the log tables' common columns (sim/core/log_tables.py):
    winners (0/1 per seat), the tie and decided-by-tie-break flags and the end reason, zeroed."""
    return {"winners": np.zeros((games, players), dtype=np.int64),
            "tie": np.zeros(games, dtype=np.bool_),
            "decided_by_tiebreak": np.zeros(games, dtype=np.bool_),
            "end_reason": np.zeros(games, dtype=np.int64)}


def training_positions(play_positions, args, seeds, seating, params, rows: int,
                       n_features: int) -> dict[str, np.ndarray]:
    """Run a game's compiled play_positions(seeds, args, seating, params, feats, seat, game, gained)
    into arrays of `rows` rows and keep the rows it filled: `features` (rows, n_features), `seat`,
    `game` (index into seeds) and `gained` (the points or tokens the seat went on to gain, the target
    sim/app/train.py fits)."""
    feats = np.zeros((rows, n_features), dtype=np.float64)
    seat_of = np.zeros(rows, dtype=np.int64)
    game_of = np.zeros(rows, dtype=np.int64)
    gained = np.zeros(rows, dtype=np.float64)
    n = play_positions(seeds, args, seating, params, feats, seat_of, game_of, gained)
    return {"features": feats[:n], "seat": seat_of[:n], "game": game_of[:n], "gained": gained[:n]}
