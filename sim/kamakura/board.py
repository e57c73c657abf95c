"""Fixed geometry of the Kamakura board and the exact swap-distance table behind R-8.

Cells are 0..15 row-major; lines 0..3 are rows, 4..7 columns, 8 the main and 9 the anti-diagonal
(docs/rules.md).

The R-8 question "can this player still gain a chit this turn?" needs, for a colour c, a line L and a target
count t, the fewest adjacent swaps that leave exactly t tiles of colour c in L. Only the cells holding colour
c matter for that (swapping two tiles of other colours never changes it), so the question lives on the
C(16,4) = 1820 placements of colour c's four tiles. On that graph the answer is an ordinary shortest-path
distance, and we tabulate it for every placement, line and target with one multi-source BFS per (line,
target): exact for any swap budget and a single lookup at play time. `matching_distance` below computes the
same number the textbook way (minimum-cost matching of tiles to cells on Manhattan distance, minimised over
target placements); the tests check the table against it.
"""

from itertools import combinations, permutations

import numpy as np
from numba import njit

N_CELLS = 16
N_LINES = 10
#: Colour names in colour-number order (0 red, 1 yellow, 2 green, 3 blue), as keys under ``[chits]``.
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
N_COLOURS = len(COLOURS)
COLOUR_LETTERS = "RYGB"

LINE_CELLS = np.array(
    [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15],
     [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15],
     [0, 5, 10, 15], [3, 6, 9, 12]],
    dtype=np.int64,
)
LINE_MASK = np.array([sum(1 << c for c in cells) for cells in LINE_CELLS.tolist()], dtype=np.int64)

# The 24 orthogonal swaps, ordered by (a, b) with a < b: this order is the order of legal actions.
SWAPS = np.array(
    sorted([(a, a + 1) for a in range(16) if a % 4 != 3] + [(a, a + 4) for a in range(12)]),
    dtype=np.int64,
)
N_SWAPS = len(SWAPS)

# Lines through each cell (2 or 3 of them), padded with -1.
CELL_LINES = np.full((N_CELLS, 3), -1, dtype=np.int64)
for _line, _cells in enumerate(LINE_CELLS.tolist()):
    for _cell in _cells:
        _k = int(np.argmax(CELL_LINES[_cell] < 0))
        CELL_LINES[_cell, _k] = _line

# Bitmask of the lines through each cell: a swap can only change the lines through its two cells.
CELL_LINE_MASK = np.array([sum(1 << int(line) for line in CELL_LINES[cell] if line >= 0)
                           for cell in range(16)], dtype=np.int64)

_UNREACHED = 127


@njit(cache=True)
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _build_tables(line_mask, swaps):
    """Index the 4-of-16 placements and BFS the swap distance for every (line, target count)."""
    mask_to_index = np.full(1 << 16, -1, dtype=np.int16)
    masks = np.empty(1820, dtype=np.int64)
    n = 0
    for m in range(1 << 16):
        if popcount(m) == 4:
            mask_to_index[m] = n
            masks[n] = m
            n += 1
    dist = np.full((1820, 10, 5), 127, dtype=np.int8)
    queue = np.empty(1820, dtype=np.int64)
    for line in range(10):
        for target in range(5):
            head = 0
            tail = 0
            for i in range(1820):
                if popcount(masks[i] & line_mask[line]) == target:
                    dist[i, line, target] = 0
                    queue[tail] = i
                    tail += 1
            while head < tail:
                i = queue[head]
                head += 1
                m = masks[i]
                for k in range(swaps.shape[0]):
                    a = swaps[k, 0]
                    b = swaps[k, 1]
                    if ((m >> a) & 1) != ((m >> b) & 1):
                        j = mask_to_index[m ^ ((1 << a) | (1 << b))]
                        if dist[j, line, target] == 127:
                            dist[j, line, target] = dist[i, line, target] + 1
                            queue[tail] = j
                            tail += 1
    return mask_to_index, masks, dist


MASK_TO_INDEX, PLACEMENTS, SWAP_DISTANCE = _build_tables(LINE_MASK, SWAPS)


@njit(cache=True)
def colour_masks(tiles, offset, out):
    """out[c] = bitmask of the cells holding colour c, for the 16 tiles at tiles[offset:offset + 16]."""
    out[0] = 0
    out[1] = 0
    out[2] = 0
    out[3] = 0
    for cell in range(16):
        out[tiles[offset + cell]] |= 1 << cell


def matching_distance(mask: int, line: int, target: int) -> int:
    """Reference for SWAP_DISTANCE: min over target placements of the min-cost tile-to-cell matching.

    Pure Python and slow; used by tests only.
    """
    tiles = [c for c in range(16) if mask >> c & 1]
    in_line = [int(c) for c in LINE_CELLS[line]]
    outside = [c for c in range(16) if c not in in_line]
    best = 10**9
    for inside_cells in combinations(in_line, target):
        for outside_cells in combinations(outside, 4 - target):
            cells = list(inside_cells) + list(outside_cells)
            for perm in permutations(cells):
                cost = sum(abs(t // 4 - p // 4) + abs(t % 4 - p % 4)
                           for t, p in zip(tiles, perm, strict=True))
                best = min(best, cost)
    return best
