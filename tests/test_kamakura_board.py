"""The R-8 swap-distance table is exact: it equals the minimum-cost matching of tiles to cells."""

from __future__ import annotations

import numpy as np

from sim.kamakura.board import (
    LINE_CELLS,
    MASK_TO_INDEX,
    PLACEMENTS,
    SWAP_DISTANCE,
    SWAPS,
    matching_distance,
)


def test_geometry() -> None:
    assert len(SWAPS) == 24 and all(b - a in (1, 4) for a, b in SWAPS)
    assert sorted(LINE_CELLS[8].tolist()) == [0, 5, 10, 15]
    assert sorted(LINE_CELLS[9].tolist()) == [3, 6, 9, 12]
    assert len(PLACEMENTS) == 1820 and all(MASK_TO_INDEX[m] == i for i, m in enumerate(PLACEMENTS))


def test_table_matches_min_cost_matching_on_a_sample() -> None:
    """R-8 exactness: BFS over placements == min-cost matching on Manhattan distance (350 entries)."""
    rng = np.random.default_rng(2026)
    for _ in range(350):
        i, line, target = rng.integers(1820), rng.integers(10), rng.integers(5)
        assert SWAP_DISTANCE[i, line, target] == matching_distance(int(PLACEMENTS[i]), int(line), int(target))


def test_far_targets_need_many_swaps() -> None:
    """Distances beyond any bounded search: all four tiles in the far corner block, target 4 in row 0."""
    corner = sum(1 << c for c in (10, 11, 14, 15))
    assert SWAP_DISTANCE[MASK_TO_INDEX[corner], 0, 4] == matching_distance(corner, 0, 4) == 14
    assert SWAP_DISTANCE.max() == 14
