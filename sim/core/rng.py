"""A tiny seeded generator usable from numba kernels and from Python alike.

Every random draw of the engines and agents comes from here, so the batch path (compiled) and the readable
API (Python driving the same kernels) see identical streams for the same seed. The generator is
splitmix64; its state is one uint64 held in a length-1 array so kernels can advance it in place.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@njit(cache=True)
def rng_next(state):
    """Advance `state` (uint64[1]) and return the next 64-bit output."""
    state[0] = state[0] + _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def rng_below(state, n):
    """Uniform integer in [0, n) for 1 <= n < 2**53 (53-bit float scaling: bias far below 1e-12)."""
    u = rng_next(state) >> _S11
    return np.int64(np.float64(u) * (1.0 / 9007199254740992.0) * n)


@njit(cache=True)
def shuffle_slice(values, start, n, state):
    """Fisher-Yates shuffle of values[start:start + n] in place, drawing from `state`."""
    for i in range(n - 1, 0, -1):
        j = rng_below(state, i + 1)
        tmp = values[start + i]
        values[start + i] = values[start + j]
        values[start + j] = tmp


@njit(cache=True)
def rng_seeded(seed, stream):
    """A generator state for (seed, stream); different streams of one seed are independent."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * _MIX1 + np.uint64(stream) * _MIX2 + _GOLDEN
    rng_next(state)
    return state


def new_rng(seed: int, stream: int = 0) -> np.ndarray:
    """Python-side helper: the generator state for (seed, stream)."""
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return rng_seeded(np.uint64(seed), np.uint64(stream))


def game_seeds(base_seed: int, start: int, count: int) -> np.ndarray:
    """Seeds of games start .. start+count-1 of a run seeded with base_seed (splitmix64 of the pair).

    Game i's seed depends on (base_seed, i) alone, so a run's tables do not depend on how games are
    split into batches, jobs or chunks.
    """
    index = np.arange(start, start + count, dtype=np.uint64)
    z = np.full(count, base_seed, dtype=np.uint64) * _MIX2 + (index + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return (z ^ (z >> _S31)) >> np.uint64(1)  # below 2**63: fits an int64 column
