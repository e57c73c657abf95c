"""Is a game's compiled code already in numba's cache? (issue 16, item 7)

numba compiles each kernel on its first call and keeps the result in `__pycache__` beside the source
(`*.nbi` index files); a first run without it spends about a minute compiling before the first game, at
0% on the progress bar. `make` set-up fills the cache (sim/app/compile_kernels.py); when it is cold anyway
(a kernel edited, a cache deleted) the commands say so instead of sitting silent.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from sim import games

NOTICE = ("compiling the {game} kernels into numba's cache, once (about a minute on 2 cores); later runs "
          "start at once")


def cache_is_warm(game: str) -> bool:
    """True when the game's batch module has compiled code in numba's cache (or the cache lives where we do
    not look: NUMBA_CACHE_DIR set)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return True
    module = games.spec(game).batch_ref.split(":")[0]
    found = importlib.util.find_spec(module)
    if found is None or not found.origin:
        return True
    source = Path(found.origin)
    return any((source.parent / "__pycache__").glob(f"{source.stem}.*.nbi"))


def announce_compiling(game: str, say) -> bool:
    """Say that the kernels compile now when the cache is cold; True when it said so."""
    if cache_is_warm(game):
        return False
    say(NOTICE.format(game=game))
    return True
