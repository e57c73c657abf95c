"""Sakura's fixed vocabulary and limits, in the kernels' code order: the action ids (the index is the
engine's code), the tie-break rules, the two-player variants, the bump readings and the sizes the state is
laid out for. The kernels read them at compile time, so this module imports nothing: it is part of the
compiled kernels' sources (sim/core/numba_cache.py) while the config validation in params.py is not.
"""

#: Garden action ids (docs/rules.md, R-11); the index is the engine's code.
GARDEN_ACTIONS: tuple[str, ...] = ("E+1", "E+2", "E-1", "E+-1", "closest-2", "furthest+2")
#: Painter action ids (docs/rules.md, R-11); the index is the engine's code.
PAINTER_ACTIONS: tuple[str, ...] = ("P+1", "P+2", "P+3", "P+-1", "P+-2", "P+-3", "leapfrog", "count")
TIE_BREAKS: tuple[str, ...] = ("closest_to_emperor", "shared")
VARIANTS: tuple[str, ...] = ("court", "tactical")  # two-player game
#: R-15 / R-21: where a painter bumped by its own move counts its three spaces back from.
BUMP_FROM: tuple[str, ...] = ("emperor", "painter")
MIN_PLAYERS, MAX_PLAYERS = 2, 6
DECK_SIZE = 60  # order numbers 1..60, once each
#: the state holds this many trees (a config may place fewer)
MAX_SAKURA = 8
