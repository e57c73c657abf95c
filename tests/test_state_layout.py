"""The field counter that declares every game's state vector (sim/core/state_layout.py)."""

from __future__ import annotations

import numpy as np
import pytest

from sim import games
from sim.core.state_layout import Fields


def test_offsets_follow_declaration_order_and_the_size_is_asserted():
    f = Fields()
    assert (f.add("board", 16), f.add("turn"), f.add("hand", 5)) == (0, 16, 17)
    f.skip(2)
    assert f.add("log") == 24
    assert f.close(25) == 25
    with pytest.raises(RuntimeError):
        f.add("late")


def test_a_layout_of_another_size_is_refused():
    f = Fields()
    f.add("board", 16)
    with pytest.raises(AssertionError, match="16 entries, expected 17"):
        f.close(17)


def test_bad_declarations_are_refused():
    f = Fields()
    f.add("board", 16)
    with pytest.raises(ValueError, match="twice"):
        f.add("board")
    with pytest.raises(ValueError, match="positive length"):
        f.add("empty", 0)


def test_views_read_and_write_the_vector():
    f = Fields()
    f.add("board", 3)
    f.add("turn")
    f.close()
    v = np.zeros(4, dtype=np.int64)
    f.view(v, "board")[:] = [1, 2, 3]
    f.set(v, "turn", 9)
    assert v.tolist() == [1, 2, 3, 9] and f.get(v, "turn") == 9
    with pytest.raises(ValueError):
        f.get(v, "board")
    with pytest.raises(ValueError):
        f.set(v, "board", 1)


@pytest.mark.parametrize("name", games.names())
def test_every_game_declares_its_state_with_the_counter(name: str):
    """Each game's kernels export FIELDS, whose size is the STATE_SIZE the kernels allocate, with no two
    fields overlapping."""
    import importlib

    kernels = importlib.import_module(f"sim.{name}.kernels")
    fields = kernels.FIELDS
    assert fields.size == kernels.STATE_SIZE
    covered = np.zeros(kernels.STATE_SIZE, dtype=int)
    for offset, length in fields.offsets.values():
        covered[offset:offset + length] += 1
    assert covered.max() == 1
    state = games.load(name, players=games.spec(name).min_players).new_state(0)
    assert len(state.vector) == kernels.STATE_SIZE
