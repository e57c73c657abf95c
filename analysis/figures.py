"""Figures and their bounds as a page or a console line shows them, stated truthfully.

- a figure is rounded to its shown decimals and never printed as "-0.0" (`figure`);
- an interval's bounds are rounded outward (the low bound down, the high bound up), so the shown interval
  holds the computed one (`bounds`);
- a bound is never shown on or across a value it lies off (0, a margin): where rounding would make it touch,
  it gets one more decimal, then another ("2.04" for 2.0365 above a 2 pp margin, never "2.0"). A formatter
  that does not know the margin keeps its bounds off every whole and half unit (`GRID`), where the margins
  people set lie (2 pp, 1 point, 0.5 pp).

Values here are in the unit shown (percentage points, points): a caller multiplies a share by 100 first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: the spacing of the values a bound is kept off when its margin is not known: whole and half units
GRID = 0.5
#: the most decimals a bound is given to keep it off a value (beyond, it is so close that it is shown so)
MOST_DECIMALS = 4


def figure(x: float, decimals: int = 1, sign: bool = False) -> str:
    """`x` to `decimals` decimals (nearest), "+" before a positive one when `sign`; never "-0.0"."""
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf" if x < 0 else "nan"
    shown = round(x, decimals) + 0.0  # -0.0 + 0.0 is 0.0
    return f"{shown:+.{decimals}f}" if sign else f"{shown:.{decimals}f}"


def _rounded(x: float, decimals: int, up: bool) -> float:
    scale = 10.0 ** decimals
    scaled = round(x * scale, 9)  # 2.3 * 10 is 22.999999999999996: not a bound to push down to 2.2
    return ((math.ceil(scaled) if up else math.floor(scaled)) / scale) + 0.0


def _near(x: float, keep_off: Iterable[float] | None) -> list[float]:
    """The values `x` is kept off: `keep_off`, or (None) the grid points either side of it."""
    if keep_off is not None:
        return list(keep_off)
    below = math.floor(x / GRID) * GRID
    return [below, below + GRID]


def bound(x: float, up: bool, decimals: int = 1, keep_off: Iterable[float] | None = None,
          sign: bool = False, edges: Iterable[float] = ()) -> str:
    """One bound of an interval: `x` rounded up (a high bound, `up`) or down (a low one) at `decimals`,
    with more decimals (up to MOST_DECIMALS) while the rounded bound would touch or cross a value of
    `keep_off` that `x` itself lies off (None: the whole and half units, `GRID`); never "-0.0". A bound at
    one of `edges` (the ends of what the figure can be, where an interval is cut) is that edge to the
    nearest: rounded outward it would leave what the figure can be."""
    if not math.isfinite(x) or any(abs(x - e) <= 1e-9 * max(1.0, abs(e)) for e in edges):
        return figure(x, decimals, sign)
    offs = [k for k in _near(x, keep_off) if math.isfinite(k) and k != x]
    d = decimals
    while True:
        r = _rounded(x, d, up)
        if d >= MOST_DECIMALS or not any((x > k) != (r > k) or r == k for k in offs):
            break
        d += 1
    return f"{r:+.{d}f}" if sign else f"{r:.{d}f}"


def bounds(low: float, high: float, decimals: int = 1, keep_off: Iterable[float] | None = None,
           sign: bool = False, edges: Iterable[float] = ()) -> tuple[str, str]:
    """An interval's two bounds rounded outward (`bound`)."""
    offs = None if keep_off is None else list(keep_off)
    ends = list(edges)
    return (bound(low, False, decimals, keep_off=offs, sign=sign, edges=ends),
            bound(high, True, decimals, keep_off=offs, sign=sign, edges=ends))


def interval(low: float, high: float, decimals: int = 1, keep_off: Iterable[float] | None = None,
             sign: bool = False, edges: Iterable[float] = ()) -> str:
    """"[2.04, 4.6]": `bounds` in brackets."""
    lo, hi = bounds(low, high, decimals, keep_off=keep_off, sign=sign, edges=edges)
    return f"[{lo}, {hi}]"


#: the ends of a win rate's difference from a fair share 1/k (k = 1 to 8 players), in pp, either sign: -100/k
#: and 100 - 100/k, where a difference's interval is cut (`bound`'s edges); and a share's own, 0 and 100
SHARE_EDGES = tuple(sorted({e for k in range(1, 9) for x in (-100 / k, 100 - 100 / k) for e in (x, -x)}
                           | {0.0, 100.0}))


def whole_interval(low: float, high: float, sign: bool = False) -> str:
    """An interval of whole numbers (points, bonuses): "[+4, +6]"; an infinite bound said in words, "[at
    least +7]", "[at most -2]" ("[beyond the range either way]" for both)."""
    lo, hi = figure(low, 0, sign), figure(high, 0, sign)
    if math.isinf(low) and math.isinf(high):
        return "[beyond the range either way]"
    if math.isinf(high):
        return f"[at least {lo}]"
    if math.isinf(low):
        return f"[at most {hi}]"
    return f"[{lo}, {hi}]"
