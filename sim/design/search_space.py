"""A tune's search space beyond enumeration (docs/howto/tune.md): dimensions by dotted key, with wildcards
over whole arrays and tables, and constraints a candidate must meet.

A space key may name one value (``"rules.order_chit_moves[1]"``) or many at once with wildcards: ``[*]``
is every element of an array, ``*`` every key of a table, so ``"chits.*[*].points" = {min = 1, max = 10}``
gives each of the 40 chits its own dimension. Each dimension is an integer range (``min``, ``max``,
``step``) or a list of ``choices``.

Constraints (``[[constraints]]`` in the tune file), each over a key pattern that may also name values the
space does not search (they keep their base value):

- ``{sum = "chits.*[*].points", min = 95, max = 105}``: a linear bound on the sum (``min``/``max``, or
  ``equals``);
- ``{count = "cards[*].garden", value = "E+1", min = 16, max = 24}``: how many of the values equal one
  (``value`` may list several: how many are any of them);
- ``{nondecreasing = "chits.red[*].power", by = "chits.red[*].icons"}``: "the rarer, the stronger": a value
  may not fall as ``by`` rises (``by`` must not be searched; without ``by``, in array order).

A sampled point is first *repaired* into a candidate that meets every constraint (`repair`: order
constraints by sorting the sampled values into rank order, then sums and counts moved one step at a time
by the element whose change keeps every order), so a model-based sampler spends no games on an impossible
candidate; a constraint no candidate can meet is refused before any game (`check_feasible`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.core.config import (
    ANY_INDEX,
    WILD,
    KeyPath,
    did_you_mean,
    expand,
    fail,
    get_path,
    parse_key,
    parse_pattern,
    path_text,
)

# The wildcards (``[*]`` every element, ``*`` every key) and their expansion are sim.core.config's, because a
# config file's dotted keys take them too; they are re-exported here for the design layer.
__all__ = ["ANY_INDEX", "WILD", "Constraint", "Dimension", "SearchSpace", "expand", "parse_pattern",
           "read_constraints", "read_dimensions"]


# ---- the space -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dimension:
    """One searched value: its path and the values it may take (a range's values in order)."""

    path: KeyPath
    values: tuple[Any, ...]
    pattern: str  # the space key it came from, for messages

    @property
    def is_range(self) -> bool:
        return all(isinstance(v, int) and not isinstance(v, bool) for v in self.values) and \
            list(self.values) == sorted(self.values)


@dataclass(frozen=True)
class Constraint:
    kind: str                     # "sum", "count" or "nondecreasing"
    paths: tuple[KeyPath, ...]
    where: str                    # constraints[i], for messages
    low: float = -math.inf        # sum, count: the bounds
    high: float = math.inf
    value: Any = None             # count: the value counted
    ranks: tuple[float, ...] = ()  # nondecreasing: the rank of each path (its `by` value or its position)

    def counts(self, x: Any) -> bool:
        """Whether a value is one a count constraint counts (``value`` may list several)."""
        return x in self.value if isinstance(self.value, tuple) else x == self.value

    def describe(self) -> str:
        keys = f"{path_text(self.paths[0])} .. {path_text(self.paths[-1])}" if len(self.paths) > 1 \
            else path_text(self.paths[0])
        if self.kind == "nondecreasing":
            return f"{keys} non-decreasing in rank"
        what = f"count of {json.dumps(self.value)} in" if self.kind == "count" else "sum of"
        return f"{what} {keys} in [{_num(self.low)}, {_num(self.high)}]"


def _num(x: float) -> str:
    return str(int(x)) if math.isfinite(x) and float(x).is_integer() else str(x)


@dataclass(frozen=True)
class SearchSpace:
    dimensions: tuple[Dimension, ...]
    constraints: tuple[Constraint, ...] = ()
    base: Mapping[str, Any] = field(default_factory=dict)

    def size(self) -> int:
        """Value combinations before constraints."""
        return math.prod(len(d.values) for d in self.dimensions)

    def log10_size(self) -> float:
        return sum(math.log10(len(d.values)) for d in self.dimensions)

    def index(self) -> dict[KeyPath, int]:
        return {d.path: i for i, d in enumerate(self.dimensions)}

    def base_values(self) -> list[Any]:
        """Each dimension's value in the base config (None where the base leaves it out)."""
        out = []
        for d in self.dimensions:
            try:
                out.append(get_path(self.base, d.path))
            except (KeyError, IndexError, TypeError):
                out.append(None)
        return out

    def value_of(self, values: Sequence[Any], path: KeyPath) -> Any:
        """A path's value in a candidate: searched, or the base's."""
        i = self.index().get(path)
        return values[i] if i is not None else get_path(self.base, path)

    def violations(self, values: Sequence[Any]) -> list[str]:
        """The constraints a candidate breaks, described (empty: it meets them all)."""
        out = []
        for c in self.constraints:
            xs = [self.value_of(values, p) for p in c.paths]
            if c.kind == "sum":
                ok = c.low <= sum(xs) <= c.high
            elif c.kind == "count":
                ok = c.low <= sum(c.counts(x) for x in xs) <= c.high
            else:
                ok = all(xs[i] <= xs[j] for i in range(len(xs)) for j in range(len(xs))
                         if c.ranks[i] < c.ranks[j])
            if not ok:
                out.append(c.describe())
        return out

    def changes(self, values: Sequence[Any]) -> int:
        """How many searched values differ from the base config's."""
        return sum(v != b for v, b in zip(values, self.base_values(), strict=True))

    def l1(self, values: Sequence[Any]) -> float:
        """The L1 distance from the base over the numeric dimensions (a changed choice counts 1)."""
        total = 0.0
        for v, b in zip(values, self.base_values(), strict=True):
            if isinstance(v, int | float) and isinstance(b, int | float) and not isinstance(v, bool):
                total += abs(v - b)
            else:
                total += v != b
        return total

    # ---- repair --------------------------------------------------------------------------------------
    def repair(self, values: Sequence[Any]) -> list[Any]:
        """A candidate meeting every constraint, near ``values`` (deterministic). Order constraints first:
        the sampled values of an ordered group are sorted into its rank order; then each sum and count is
        moved into its bounds one step at a time, by the element whose change keeps every order. What
        cannot be repaired is left for `violations` to report."""
        out = list(values)
        where = self.index()
        for c in self.constraints:
            if c.kind == "nondecreasing":
                idx = [where[p] for p in c.paths if p in where]
                ranks = [c.ranks[k] for k, p in enumerate(c.paths) if p in where]
                order = sorted(range(len(idx)), key=lambda k: (ranks[k], k))
                for slot, v in zip(order, sorted(out[i] for i in idx), strict=True):
                    out[idx[slot]] = v
        for _ in range(4):  # later passes settle what one constraint's repair moved for another
            for c in self.constraints:
                if c.kind == "sum":
                    self._repair_sum(out, c)
                elif c.kind == "count":
                    self._repair_count(out, c)
        return out

    def _order_groups(self) -> list[tuple[list[int], list[float]]]:
        where = self.index()
        return [([where[p] for p in c.paths if p in where],
                 [c.ranks[k] for k, p in enumerate(c.paths) if p in where])
                for c in self.constraints if c.kind == "nondecreasing"]

    def _can_step(self, out: list[Any], i: int, up: bool, groups) -> bool:
        d = self.dimensions[i]
        pos = d.values.index(out[i])
        if (up and pos + 1 >= len(d.values)) or (not up and pos == 0):
            return False
        new = d.values[pos + 1] if up else d.values[pos - 1]
        for idx, ranks in groups:
            if i not in idx:
                continue
            r = ranks[idx.index(i)]
            for j, rj in zip(idx, ranks, strict=True):
                if (up and rj > r and out[j] < new) or (not up and rj < r and out[j] > new):
                    return False
        return True

    def _repair_sum(self, out: list[Any], c: Constraint) -> None:
        """Scale the searched values toward their bounds (an increasing map, so every order is kept) until
        the sum is about in range, then step elements one at a time, a pass over them all at a time, so
        the change is spread rather than piled on one element."""
        where = self.index()
        idx = [where[p] for p in c.paths if p in where and self.dimensions[where[p]].is_range]
        total = sum(self.value_of(out, p) for p in c.paths)
        if idx and not c.low <= total <= c.high:
            up = total < c.low
            target = c.low if up else c.high
            ends = [self.dimensions[i].values[-1 if up else 0] for i in idx]
            room = sum(abs(e - out[i]) for e, i in zip(ends, idx, strict=True))
            if room > 0:
                keep = max(0.0, 1 - abs(target - total) / room)  # the share of each gap to its end kept
                for e, i in zip(ends, idx, strict=True):
                    vs = self.dimensions[i].values
                    want = e + (out[i] - e) * keep
                    out[i] = min(vs, key=lambda v, w=want: (abs(v - w), v))
        groups = self._order_groups()
        rank = {i: r for g_idx, g_ranks in groups for i, r in zip(g_idx, g_ranks, strict=True)}
        total = sum(self.value_of(out, p) for p in c.paths)
        while not c.low <= total <= c.high:
            up = total < c.low
            moved = False
            # raise the highest-ranked first (lower the lowest-ranked), so orders are kept
            for i in sorted(idx, key=lambda i: (rank.get(i, 0), i), reverse=up):
                if c.low <= total <= c.high:
                    break
                if self._can_step(out, i, up, groups):
                    vs = self.dimensions[i].values
                    pos = vs.index(out[i])
                    new = vs[pos + 1] if up else vs[pos - 1]
                    total += new - out[i]
                    out[i] = new
                    moved = True
            if not moved:
                return

    def _count_excess(self, out: list[Any]) -> float:
        """How far the candidate's counts are outside their bounds, summed over the count constraints."""
        total = 0.0
        for c in self.constraints:
            if c.kind == "count":
                n = sum(c.counts(self.value_of(out, p)) for p in c.paths)
                total += max(c.low - n, n - c.high, 0)
        return total

    def _repair_count(self, out: list[Any], c: Constraint) -> None:
        """Change elements, from the end of the array (its start keeps what was sampled), into (or out of)
        the counted values; each change takes the value that leaves every count constraint least broken."""
        where = self.index()
        idx = [where[p] for p in c.paths if p in where]
        count = sum(c.counts(self.value_of(out, p)) for p in c.paths)
        for i in reversed(idx):
            if c.low <= count <= c.high:
                return
            raise_it = count < c.low
            if c.counts(out[i]) == raise_it:
                continue
            options = [v for v in self.dimensions[i].values if c.counts(v) == raise_it]
            if not options:
                continue

            def cost(v: Any, i: int = i) -> float:
                trial = list(out)
                trial[i] = v
                return self._count_excess(trial)

            out[i] = min(options, key=cost)
            count += 1 if raise_it else -1

    # ---- feasibility ---------------------------------------------------------------------------------
    def check_feasible(self, file: str) -> None:
        """Refuse, by file and constraint, a constraint no candidate can meet: bounds outside what the
        dimensions' ranges (and the fixed values) can reach, or an order the fixed values already break."""
        where = self.index()
        for c in self.constraints:
            if c.kind == "sum":
                lo = hi = 0.0
                for p in c.paths:
                    if p in where:
                        vs = self.dimensions[where[p]].values
                        lo, hi = lo + min(vs), hi + max(vs)
                    else:
                        v = get_path(self.base, p)
                        lo, hi = lo + v, hi + v
                if hi < c.low or lo > c.high:
                    fail(file, c.where, f"no candidate can meet it: the sum can only be {_num(lo)} to "
                                        f"{_num(hi)}, not in [{_num(c.low)}, {_num(c.high)}]")
            elif c.kind == "count":
                can = sum(1 for p in c.paths if (any(c.counts(v) for v in self.dimensions[where[p]].values)
                                                 if p in where else c.counts(get_path(self.base, p))))
                must = sum(1 for p in c.paths if (all(c.counts(v) for v in self.dimensions[where[p]].values)
                                                  if p in where else c.counts(get_path(self.base, p))))
                if can < c.low or must > c.high:
                    fail(file, c.where, f"no candidate can meet it: the count of {json.dumps(c.value)} can "
                                        f"only be {must} to {can}, not in [{_num(c.low)}, {_num(c.high)}]")
            else:
                fixed = [(c.ranks[k], get_path(self.base, p)) for k, p in enumerate(c.paths)
                         if p not in where]
                for ra, va in fixed:
                    for rb, vb in fixed:
                        if ra < rb and va > vb:
                            fail(file, c.where, "no candidate can meet it: values the space does not "
                                                f"search already fall as the rank rises ({va} before {vb})")
        starts = {"the base config": self.base_values(), "every value at its lowest":
                  [d.values[0] for d in self.dimensions], "every value at its highest":
                  [d.values[-1] for d in self.dimensions]}
        broken = {}
        for name, start in starts.items():
            if any(v not in d.values for v, d in zip(start, self.dimensions, strict=True)):
                continue  # the base may hold a value outside the space
            found = self.violations(self.repair(start))
            if not found:
                return
            broken[name] = found[0]
        name, what = next(iter(broken.items()))
        fail(file, "constraints", f"no candidate found that meets the constraints together: repaired from "
                                  f"{', '.join(broken)}, each breaks one (from {name}: {what})")


# ---- reading the tune file's parts ----------------------------------------------------------------------
def read_dimensions(table: Mapping[str, Any], base: Mapping[str, Any], file: str,
                    values_of: Any) -> tuple[Dimension, ...]:
    """The ``[space]`` table as dimensions; ``values_of(spec, where)`` reads one key's range or choices."""
    out: list[Dimension] = []
    for key, spec in table.items():
        where = f"space.{json.dumps(key)}"
        values = values_of(spec, where)
        paths = expand(key, base, file, where) if WILD in key else [parse_key(key, file, where)]
        out += [Dimension(p, values, key) for p in paths]
    if not out:
        fail(file, "space", "is empty: name at least one dotted key to search")
    seen: set[KeyPath] = set()
    for d in out:
        if d.path in seen:
            fail(file, "space", f"names {path_text(d.path)} twice")
        seen.add(d.path)
    return tuple(out)


def read_constraints(items: Any, dims: Sequence[Dimension], base: Mapping[str, Any],
                     file: str) -> tuple[Constraint, ...]:
    """``[[constraints]]`` as Constraints (see the module docstring), each checked for its keys and
    bounds; feasibility is `SearchSpace.check_feasible`'s."""
    if not isinstance(items, list):
        fail(file, "constraints", "must be an array of tables ([[constraints]])")
    reader = _ConstraintReader(file, base, {d.path: d for d in dims})
    return tuple(reader.read(item, f"constraints[{i}]") for i, item in enumerate(items))


_CONSTRAINT_KEYS = {"sum": {"sum", "min", "max", "equals"},
                    "count": {"count", "value", "min", "max", "equals"},
                    "nondecreasing": {"nondecreasing", "by"}}


class _ConstraintReader:
    """Reads one ``[[constraints]]`` table at a time against the base config and the searched values."""

    def __init__(self, file: str, base: Mapping[str, Any], searched: dict[KeyPath, Dimension]) -> None:
        self.file, self.base, self.searched = file, base, searched

    def read(self, item: Any, where: str) -> Constraint:
        file = self.file
        if not isinstance(item, dict):
            fail(file, where, "must be a table")
        kinds = [k for k in ("sum", "count", "nondecreasing") if k in item]
        if len(kinds) != 1:
            fail(file, where, 'needs exactly one of sum = "keys", count = "keys" or nondecreasing = "keys"')
        kind = kinds[0]
        allowed = _CONSTRAINT_KEYS[kind]
        for k in item:
            if k not in allowed:
                hint = did_you_mean(k, sorted(allowed))
                fail(file, f"{where}.{k}", f"unknown key for a {kind} constraint"
                     + (f"; {hint}" if hint else "") + f" (allowed: {', '.join(sorted(allowed))})")
        pattern = item[kind]
        if not isinstance(pattern, str):
            fail(file, f"{where}.{kind}", "must be a dotted key (wildcards allowed)")
        paths = tuple(expand(pattern, self.base, file, f"{where}.{kind}"))
        self.check_present(paths, f"{where}.{kind}")
        if kind == "nondecreasing":
            return Constraint(kind, paths, where, ranks=self.ranks(item, where, paths, pattern))
        low, high = self.bounds(item, where)
        if kind == "sum":
            self.check_summable(paths, where)
            return Constraint(kind, paths, where, low, high)
        if "value" not in item:
            fail(file, f"{where}.value", "missing: the value to count")
        value = item["value"]
        counted = Constraint(kind, paths, where, low, high,
                             value=tuple(value) if isinstance(value, list) else value)
        self.check_taken(counted, where)
        return counted

    def check_taken(self, c: Constraint, where: str) -> None:
        """A count constraint counts a value some key it runs over can take (searched, or kept from the
        base): counting a value none takes is always 0, a bound that cannot mean anything."""
        taken = []
        for p in c.paths:
            taken.extend(self.searched[p].values if p in self.searched else [get_path(self.base, p)])
        if not any(c.counts(x) for x in taken):
            seen = sorted({json.dumps(x, default=str) for x in taken}, key=lambda t: (len(t), t))
            shown = ", ".join(seen[:8]) + (", ..." if len(seen) > 8 else "")
            counted = json.dumps(c.value, default=str)
            fail(self.file, f"{where}.value", f"{counted} is a value none of the counted keys takes (they "
                 f"take {shown}): the count would always be 0")

    def ranks(self, item: dict[str, Any], where: str, paths: tuple[KeyPath, ...],
              pattern: str) -> tuple[float, ...]:
        """An order constraint's rank of each path: its ``by`` value (one the space keeps), or its
        position."""
        if "by" not in item:
            return tuple(float(r) for r in range(len(paths)))
        if not isinstance(item["by"], str):
            fail(self.file, f"{where}.by", "must be a dotted key (wildcards allowed)")
        by = expand(item["by"], self.base, self.file, f"{where}.by")
        self.check_present(by, f"{where}.by")
        if len(by) != len(paths):
            fail(self.file, f"{where}.by", f"names {len(by)} values for the {len(paths)} of {pattern!r}")
        if any(p in self.searched for p in by):
            fail(self.file, f"{where}.by", "ranks by a searched value; rank by values the space keeps")
        return tuple(float(get_path(self.base, p)) for p in by)

    def check_present(self, paths: Sequence[KeyPath], where: str) -> None:
        """Every value a constraint runs over that the space does not search is in the base config (a key
        it leaves at its default has no value to sum, count or rank by): refused naming it, with the
        nearest key the base has."""
        for p in paths:
            if p in self.searched:
                continue
            try:
                get_path(self.base, p)
            except (KeyError, IndexError, TypeError):
                parent = get_path(self.base, p[:-1])
                hint = did_you_mean(p[-1], parent) if isinstance(parent, Mapping) else ""
                fail(self.file, where, f"{path_text(p)} is not in the base config and the space does not "
                                       "search it" + (f"; {hint}" if hint else ""))

    def bounds(self, item: dict[str, Any], where: str) -> tuple[float, float]:
        """A sum's or count's (low, high): ``equals``, or ``min`` and/or ``max``."""
        file = self.file
        if "equals" in item and ("min" in item or "max" in item):
            fail(file, where, "give equals, or min and/or max, not both")
        for k in ("min", "max", "equals"):
            if k in item and (isinstance(item[k], bool) or not isinstance(item[k], int | float)):
                fail(file, f"{where}.{k}", f"must be a number, got {item[k]!r}")
            if k in item and not math.isfinite(item[k]):
                fail(file, f"{where}.{k}", f"must be a finite number, got {item[k]}")
        low = float(item.get("equals", item.get("min", -math.inf)))
        high = float(item.get("equals", item.get("max", math.inf)))
        if not any(k in item for k in ("min", "max", "equals")):
            fail(file, where, "needs min, max or equals")
        if low > high:
            fail(file, where, f"min {_num(low)} is above max {_num(high)}: no candidate can meet it")
        return low, high

    def check_summable(self, paths: tuple[KeyPath, ...], where: str) -> None:
        """Every value a sum runs over is a number (searched: each of its values; kept: the base's)."""
        for p in paths:
            d = self.searched.get(p)
            v = d.values if d else (get_path(self.base, p),)
            if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v):
                fail(self.file, f"{where}.sum", f"{path_text(p)} is not a number, so it cannot be summed")
