"""Monte Carlo balance toolkit: game engines, agents and self-play."""

from sim.core import numba_cache
from sim.core.errors import ConfigError

numba_cache.use()  # before any kernel is decorated: the compiled cache follows every source file

__all__ = ["ConfigError"]
__version__ = "0.1.0"
