"""Is a game's compiled code already in numba's cache?

numba compiles each kernel on its first call and keeps the result in the current sources' cache folder
(sim/core/numba_cache.py; `*.nbi` index files); a first run without it spends about a minute compiling before
the first game, at 0% on the progress bar. `make` set-up fills the cache (its compile_kernels step); when
it is cold anyway (a source edited, a cache deleted) the commands say so instead of sitting silent.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sim.core import numba_cache
from sim.core.game_spec import GameSpec

NOTICE = ("compiling the {game} kernels into numba's cache, once (about a minute on 2 cores); later runs "
          "start at once")


def cache_is_warm(spec: GameSpec) -> bool:
    """True when the game's batch module has compiled code in the current sources' numba cache."""
    module = spec.batch_ref.module
    found = importlib.util.find_spec(module)
    if found is None or not found.origin:
        return True
    source = Path(found.origin)
    # numba files a source's kernels under a folder named after the source's own folder
    return any(numba_cache.cache_dir().glob(f"{source.parent.name}*/{source.stem}.*.nbi"))


def announce_compiling(spec: GameSpec, say) -> bool:
    """Say that the kernels compile now when the cache is cold; True when it said so."""
    if cache_is_warm(spec):
        return False
    say(NOTICE.format(game=spec.name))
    return True
