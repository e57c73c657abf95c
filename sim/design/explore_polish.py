"""Polishing, between refining and confirming (docs/howto/explore.md, "Polishing"): a cell's refined
candidate that is near fair but not fair enough to be confirmed is improved by a short local search that
stays near its cell (`near_cell`).

Each step mutates the design `polish_children` times (each child moves `polish_changes` values chosen at
random one step along their dimension, then is repaired into the constraints as the search's designs are)
and plays every child on the same first `refine_games[0]` games of the file's seed sequence as its
parent's refined figures (common seeds: a child that changes two values plays most games as its parent
does, its luck on those seeds shared, so the two are compared far more precisely than on independent
games, and the parent's figure, flattered by having been chosen on those games, flatters the child alike;
judging each step on fresh games instead did worse, docs/howto/explore.md). The fairest child whose
measures stay near the cell replaces the parent when it is fairer; after `polish_steps` steps a changed
design plays on to the last refining round and becomes the cell's candidate when it is fairer there too.
The confirmation on fresh games still decides: polishing only chooses which designs are worth its games.

Every child is stored in the archive's table `refined` (its statistics by design and games), and each
cell's generator is seeded from the file's seed and the cell, so a killed explore resumes to the same
candidates without playing a stored child again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.design.explore import Explorer, derived_seed, figures_of, merge_measured
from sim.design.search_space import SearchSpace


def stats_at(explorer: Explorer, values: list[Any], games: int, have: dict[str, Any] | None = None,
             counted: bool = True) -> dict[str, Any] | None:
    """A design's statistics on games 0 .. games-1 of the file's seed: stored in `refined`, or played on
    from `have` (its statistics on its first games; None: from the first game) and stored; the games
    count as spent unless `counted` is False (games an earlier stage counted). None for a design the game
    or the constraints refuse."""
    key = explorer.design_key(values)
    if have is not None and have["games"] >= games:
        return have
    row = explorer.db.execute("SELECT stats FROM refined WHERE design = ? AND games = ?", (key, games))
    stored = row.fetchone()
    start = have["games"] if have else 0
    if stored:
        explorer.spent += (games - start) if counted else 0
        return json.loads(stored[0])
    rules, why = explorer.rules_of(values, f"{explorer.tune.file} (polishing)")
    if why:
        return None
    more = explorer.play(rules, start=start, count=games - start)
    explorer.spent += more["games"]
    stats = merge_measured(have, more) if have else more
    with explorer.db:
        explorer.db.execute("INSERT INTO refined VALUES (?, ?, ?)", (key, games, json.dumps(stats)))
    return stats


def neighbour(space: SearchSpace, values: list[Any], changes: int, rng: np.random.Generator) -> list[Any]:
    """`values` with `changes` dimensions (drawn without repeats) moved one step up or down their values,
    then repaired into the constraints."""
    out = list(values)
    for k in rng.choice(len(out), size=min(changes, len(out)), replace=False):
        options = space.dimensions[k].values
        i = options.index(out[k]) + int(rng.choice((-1, 1)))
        out[k] = options[min(max(i, 0), len(options) - 1)]
    return space.repair(out)


def position(space: SearchSpace, values: list[Any]) -> np.ndarray:
    """A design's point of the unit cube (each value's position among its dimension's values)."""
    return np.array([d.values.index(v) / max(1, len(d.values) - 1) for d, v in zip(space.dimensions, values,
                                                                                   strict=True)])


def polish_order(refined: dict[tuple[int, ...], dict], room: float, count: int, widths: Sequence[float],
                 measures: Sequence[str]) -> list[tuple[int, ...]]:
    """The cells polished: those whose candidate is beyond the confirmation's room (a candidate within it
    is tried as it is), the `count` first of them: first the cells no candidate within the room plays like
    (within one cell's `widths` in every measure: a new elite can only come from a cell that plays
    differently), then the others, each group fairest first (ties by cell)."""
    within = [r for r in refined.values() if r["seat_dev"] <= room]

    def covered(r: dict[str, Any]) -> bool:
        return any(all(abs(r[m] - w[m]) < width for m, width in zip(measures, widths, strict=True))
                   for w in within)

    beyond = [c for c, r in refined.items() if r["seat_dev"] > room]
    return sorted(beyond, key=lambda c: (covered(refined[c]), refined[c]["seat_dev"], c))[:count]


def polish(explorer: Explorer, refined: dict[tuple[int, ...], dict], ranges: Sequence[Sequence[float]],
           room: float) -> tuple[dict[tuple[int, ...], dict], list[dict[str, Any]]]:
    """The refined candidates with the polished cells' candidates replaced where polishing found a fairer
    design near the cell, and a record of every cell polished (before, after, steps that moved). The next
    cell is chosen after each one (`polish_order` on the candidates as they are then), so a cell that a
    newly polished design now plays like waits behind those no candidate covers."""
    s = explorer.settings
    if not s.polish or not s.refine_games:
        return refined, []
    out, records = dict(refined), []
    widths = [(hi - lo) / n for (lo, hi), n in zip(ranges, s.cells, strict=True)]
    done: set[tuple[int, ...]] = set()
    while len(done) < s.polish:
        left = [c for c in polish_order(out, room, len(out), widths, s.measures) if c not in done]
        if not left:
            break
        cell = left[0]
        done.add(cell)
        row, record = polish_cell(explorer, cell, refined[cell], ranges)
        records.append(record)
        if row is not None and row["seat_dev"] < out[cell]["seat_dev"]:
            out[cell] = {**row, "refined_in_cell": out[cell]["refined_in_cell"]}
            record["replaced"] = True
        explorer.say(f"polishing, cell {len(done)} of {s.polish}: {polished_text(record)}; "
                     f"{explorer.spent:,} of {explorer.tune.budget:,} games")
    return out, records


#: how far beyond its cell, in cell widths, a polished design may move in each measure: a child that moves
#: two values often changes the length by a turn, and cells one turn wide would then refuse most children
#: (docs/howto/explore.md, "Polishing"); the confirmation's distinctness rule still judges the elites
POLISH_SLACK = 0.5


def near_cell(measures: Sequence[float], cell: tuple[int, ...], ranges: Sequence[Sequence[float]],
              cells: Sequence[int], slack: float = POLISH_SLACK) -> bool:
    """Whether a design's measures lie in `cell` widened by `slack` of a cell's width on each side (an edge
    cell open beyond its range's end, as `cell_of` counts it)."""
    for m, c, (lo, hi), n in zip(measures, cell, ranges, cells, strict=True):
        width = (hi - lo) / n
        low = -np.inf if c == 0 else lo + (c - slack) * width
        high = np.inf if c == n - 1 else lo + (c + 1 + slack) * width
        if not low <= m < high:
            return False
    return True


def polished_text(record: dict[str, Any]) -> str:
    """"cell 6-2: 7.72 pp on 4,000 games -> 0.33 pp on 40,000 games (now its candidate)"."""
    after = (f"{100 * record['after']:.2f} pp on {record['after_games']:,} games" if record["moved"]
             else "no step moved")
    now = " (now its candidate)" if record["replaced"] else ""
    return (f"cell {'-'.join(map(str, record['cell']))}: {100 * record['before']:.2f} pp on "
            f"{record['before_games']:,} games -> {after}{now}")


def polish_cell(explorer: Explorer, cell: tuple[int, ...], candidate: dict[str, Any],
                ranges: Sequence[Sequence[float]]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """One cell's local search from its candidate: the polished design at the last refining round (None
    when no step moved), and the cell's record."""
    s, space = explorer.settings, explorer.space
    games = s.refine_games[0]
    rng = np.random.default_rng(derived_seed("explore-polish", explorer.tune.seed, *cell))
    x = position(space, candidate["design"])
    values = candidate["design"]
    parent = stats_at(explorer, values, games, counted=False)  # refining played and counted them
    dev = figures_of(parent)["seat_dev"]
    record = {"cell": list(cell), "before": candidate["seat_dev"], "before_games": candidate["games"],
              "first_round": dev, "moved": 0, "replaced": False}
    for _ in range(s.polish_steps):
        best = None
        for _ in range(s.polish_children):
            child = neighbour(space, values, s.polish_changes, rng)
            child_x = position(space, child)
            stats = None if child == values else stats_at(explorer, child, games)
            if stats is None:
                continue
            fig = figures_of(stats)
            if not near_cell([fig[m] for m in s.measures], cell, ranges, s.cells):
                continue
            if best is None or fig["seat_dev"] < best[0]:
                best = (fig["seat_dev"], child_x, child, stats)
        if best is not None and best[0] < dev:
            dev, x, values, parent = best
            record["moved"] += 1
    record["first_round_after"] = dev
    if not record["moved"]:
        return None, record
    final = stats_at(explorer, values, s.refine_games[-1], parent)
    fig = figures_of(final)
    record.update(after=fig["seat_dev"], after_games=final["games"], design=values)
    return {**candidate, **fig, "design": values, "solution": [float(v) for v in x], "games": final["games"],
            "stats": final, "polished": True}, record
