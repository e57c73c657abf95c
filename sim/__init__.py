"""Monte Carlo balance toolkit: game engines, agents and self-play."""

from sim.errors import ConfigError

__all__ = ["ConfigError"]
__version__ = "0.1.0"
