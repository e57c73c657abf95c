"""What the readable API of both games shares: strings in, new states out, over the kernels' codes.

A game subclass names its kernels module and state class, how action codes read as strings, and when a
state is over; legality and effects stay in the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class KernelState:
    """A position: a game's kernel state vector. Treat as immutable; `KernelGame.apply` returns a new
    one. Equal when the vectors are equal (a game may narrow this, e.g. to leave a log area out)."""

    vector: np.ndarray = field(repr=False)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and np.array_equal(self.vector, other.vector)

    def __hash__(self) -> int:
        return hash(self.vector.tobytes())


class KernelGame:
    name = ""
    kernels: Any = None        # the game's kernels module: new_game, legal_actions, apply_action, TO_MOVE
    state_type: Any = None     # the game's frozen state class wrapping a vector
    max_actions = 0            # buffer size for legal_actions

    def __init__(self, rules) -> None:
        self.rules = rules
        self.players = rules.players
        self._kernel_rules = self.kernel_rules(rules)

    # ---- per game -------------------------------------------------------------------------------------
    @staticmethod
    def kernel_rules(rules) -> tuple:
        """The rules as the game's kernels take them (a namedtuple of plain values and arrays)."""
        raise NotImplementedError

    @staticmethod
    def action_to_string(code: int) -> str:
        raise NotImplementedError

    @staticmethod
    def action_from_string(action: str) -> int:
        raise NotImplementedError

    def is_over(self, s) -> bool:
        raise NotImplementedError

    def result(self, s) -> dict[str, Any]:
        raise NotImplementedError

    # ---- shared ---------------------------------------------------------------------------------------
    def new_state(self, seed: int = 0):
        """A fresh game after setup; every shuffle is seeded by `seed`."""
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        return self.state_type(self.kernels.new_game(self._kernel_rules, np.uint64(seed)))

    def legal_action_codes(self, s) -> np.ndarray:
        buf = np.empty(self.max_actions, dtype=np.int64)
        n = self.kernels.legal_actions(s.vector, buf)
        return buf[:n].copy()

    def legal_actions(self, s) -> list[str]:
        """Legal actions as strings, in a stable order (the kernels' code order)."""
        return [self.action_to_string(int(c)) for c in self.legal_action_codes(s)]

    def apply(self, s, action: str):
        """A new state after `action`; `s` is unchanged; an illegal action raises ValueError."""
        return self.apply_code(s, self.action_from_string(action), action)

    def apply_code(self, s, code: int, shown: str | None = None):
        if code not in self.legal_action_codes(s):
            shown = shown or self.action_to_string(code)
            if self.is_over(s):
                raise ValueError(f"illegal action {shown!r}: the game is over")
            raise ValueError(f"illegal action {shown!r} for seat {self.to_move(s)}; "
                             f"legal: {', '.join(self.legal_actions(s))}")
        v = s.vector.copy()
        self.kernels.apply_action(v, code)
        return self.state_type(v)

    def to_move(self, s) -> int:
        return int(s.vector[self.kernels.TO_MOVE])

    def returns(self, s) -> list[float]:
        """Win share per seat (OpenSpiel's `returns`): 1/k to each of k winners, 0 before the end."""
        winners = self.result(s)["winners"]
        share = 1.0 / len(winners) if winners else 0.0
        return [share if seat in winners else 0.0 for seat in range(self.players)]
