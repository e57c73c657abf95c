"""What the per-call arrays of one Kamakura `greedy_plan` cost (docs/design/notes.md, Kamakura speed): a
compiled loop making the same 27 arrays, of the same shapes, that one greedy plan makes
(planner.powers_at_hand, line_bounds, _search_plans with its memo of line claims, _write_row, write_plan,
greedy_plan's row), timed per iteration. Read against the ~38 us of a whole plan
(scripts/profile_kamakura_expert.py).

    python scripts/kamakura_alloc_cost.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from numba import njit

SIZES = (11, 11, 10, 10, 10, 10, 11, 10, 4, 16, 4, 4, 22, 8, 1, 64, 11, 16, 4, 4, 18, 10, 8)


@njit
def _allocs(n, sizes):
    total = 0
    for _ in range(n):
        for size in sizes:
            a = np.zeros(size, dtype=np.int64)
            total += a[0]
        total += np.full(12, -1, dtype=np.int64)[0] + np.full(5, -1, dtype=np.int64)[0]
        total += np.array([-1, 0, 0], dtype=np.int64)[0]
        total += np.full((10, 35, 2), -2, dtype=np.int64)[0, 0, 0]  # the search's memo
    return total


def main() -> None:
    sizes = np.array(SIZES, dtype=np.int64)
    _allocs(10, sizes)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        _allocs(200_000, sizes)
        times.append((time.perf_counter() - start) / 200_000 * 1e6)
    print(f"{len(SIZES) + 4} arrays of one greedy_plan: {statistics.median(times):.2f} us "
          f"(median of 5; {', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
