"""State vectors declared once: a field counter hands out offsets, so no offset is typed by hand.

A game's kernels module declares its state fields in order::

    _f = Fields()
    BOARD = _f.add("board", 16)
    START_BOARD = _f.add("start_board", 16)
    ...
    STATE_SIZE = _f.close(389)   # asserts the size the layout was designed for

The offsets are plain int globals, which numba compiles as constants; ``Fields.view`` gives the readable
API named slices of a vector (``fields.view(v, "board")``) instead of hand-written ``v[OFF:OFF + n]``.
"""

from __future__ import annotations

import numpy as np


class Fields:
    """Offsets of the named fields of one flat state vector, in declaration order."""

    def __init__(self) -> None:
        self.offsets: dict[str, tuple[int, int]] = {}  # name -> (offset, length)
        self.size = 0
        self._closed = False

    def add(self, name: str, length: int = 1) -> int:
        """Append a field of `length` entries; returns its offset."""
        if self._closed:
            raise RuntimeError(f"field {name!r} added after the layout was closed")
        if name in self.offsets:
            raise ValueError(f"field {name!r} declared twice")
        if length < 1:
            raise ValueError(f"field {name!r} needs a positive length, got {length}")
        offset = self.size
        self.offsets[name] = (offset, length)
        self.size += length
        return offset

    def skip(self, length: int) -> None:
        """Leave `length` entries unused (kept so that a layout keeps its historical offsets)."""
        self.size += length

    def close(self, expected: int | None = None) -> int:
        """End the layout and return its size; `expected` asserts it (a layout change is deliberate)."""
        if expected is not None and self.size != expected:
            raise AssertionError(f"state layout has {self.size} entries, expected {expected}")
        self._closed = True
        return self.size

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The entries of field `name` in `vector` (a numpy view: writing to it writes the vector)."""
        offset, length = self.offsets[name]
        return vector[offset:offset + length]

    def get(self, vector: np.ndarray, name: str) -> int:
        """A one-entry field's value as a Python int."""
        offset, length = self.offsets[name]
        if length != 1:
            raise ValueError(f"field {name!r} has {length} entries; use view()")
        return int(vector[offset])

    def set(self, vector: np.ndarray, name: str, value: int) -> None:
        """Write a one-entry field."""
        offset, length = self.offsets[name]
        if length != 1:
            raise ValueError(f"field {name!r} has {length} entries; write through view()")
        vector[offset] = value
