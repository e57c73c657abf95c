"""The ranges of the counts a user gives (games, players, seeds), as argparse types: one source for the
command line's options (sim.commands.options) and the workbench's request models (sim.workbench.requests),
so both refuse the same values in the same words."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def positive_float(most: float, what: str = "a number") -> Callable[[str], float]:
    """The argparse type of a factor or a time: a finite number above 0, at most `most` (nan and inf
    refused); `what` names it in the refusal ("a number of minutes")."""
    def factor(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not 0 < value <= most:  # nan fails this too
            ceiling = f"{most:,}" if isinstance(most, int) else f"{most:g}"
            raise argparse.ArgumentTypeError(f"must be above 0 and at most {ceiling}, got {text!r}")
        return value
    factor.__name__ = "factor"
    return factor


def positive_int(text: str) -> int:
    """The argparse type of a count (--jobs, --games, --rounds, ...): a whole number, at least 1."""
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def at_most(limit: int, why: str, lowest: int = 1) -> Callable[[str], int]:
    """The argparse type of a count with a ceiling (`why` says what exceeding it would exhaust): a whole
    number in [lowest, limit]. --help says the ceiling."""
    def count(text: str) -> int:
        value = _whole_number(text)
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {value}")
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:,} ({why}), got {value:,}")
        return value
    count.__name__ = "count"
    return count


#: ceilings of counts, each said in the option's help: games a run streams to disk in chunks (the chunks'
#: list alone would fill the memory past it), games held in memory at once, and seats
MOST_GAMES = 1_000_000_000
MOST_IN_MEMORY = 1_000_000
MOST_PLAYERS = 100
games_int = at_most(MOST_GAMES, "a run's chunks are listed in memory")
games_in_memory_int = at_most(MOST_IN_MEMORY, "every game is held in memory; `balance simulate` streams more")
players_int = at_most(MOST_PLAYERS, "no game seats more; each game's config says its own range")


def seed_int(text: str) -> int:
    """The argparse type of --seed: a whole number in [0, 2**63)."""
    value = _whole_number(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**63 - 1, got {value}")
    return value
