"""Component balance for the model search (docs/howto/tune.md): what each component kind is worth to its
holder, measured by the paired intervention of `balance values` (the game's values study, at the start of the
game), and kept as exact integer sufficient statistics so that a candidate's base games can be played in
chunks, stored in the study file after each stage, and resumed.

Per base game g and component c, the paired difference summed over the seats is
``D[g, c] = sum_j (share of j when j holds c) - (share of j when nobody does)``; divided by the number of
seats it is the "all" row of `analysis.causal_values.component_values` (the seat-averaged value). Win
shares are multiples of 1/SHARE_SCALE, so ``SHARE_SCALE * D`` is a whole number.

A kind is a set of components with equal attributes named by the study's `kinds` (every card with the
same two actions, say), or one component when it names none (a component that is already a kind: a chit
of one colour, icons, points and power). A kind's value is the mean of D over its (game, component)
pairs divided by the seats: a ratio estimator over base games, whose variance is the cluster-robust one
(base games are independent; the components of one game are not). Its statistics per kind are the
integer sums over games of m (components measured), S (their SHARE_SCALE * D), S^2, S*m and m^2.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analysis.stats import z_value
from analysis.tally import SHARE_SCALE  # win shares as whole numbers, as a run's chunk statistics count them
from sim.core.agent_spec import agent_arrays
from sim.core.game_spec import GameSpec
from sim.core.rng import game_seeds

_SUMS = ("games", "m", "s", "ss", "sm", "mm")


def kind_labels(components: Sequence[dict[str, Any]], kinds: Sequence[str]) -> list[str]:
    """Each component's kind as a designer reads it: its own label, or the attributes that make the kind."""
    if not kinds:
        return [str(c["component"]) for c in components]
    return [", ".join(f"{name} {c[name]}" for name in kinds) for c in components]


def play_values_chunk(spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, start: int,
                      count: int) -> dict[str, Any]:
    """Base games start .. start+count-1 of the values study at the start of the game (game i with the
    seed of (seed, i), as every other study), as sufficient statistics per kind (a worker)."""
    study = spec.values
    seating, params = agent_arrays([list(agents)], spec)
    out = study.run(rules, game_seeds(seed, start, count), seating[0], params[0], (0,), first_game=start)
    table = study.table(start, out)
    return statistics(table.to_pandas(), kind_labels(study.components(rules), study.kinds), rules.players)


def statistics(table, labels: Sequence[str], players: int) -> dict[str, Any]:
    """The sufficient statistics of a values table (values.parquet's rows, docs/howto/values.md) per kind;
    ``played`` is every game the table holds (each arm, and each base game itself)."""
    played = int((table["seat"].to_numpy() == 0).sum())
    t = table[(table["component"].to_numpy() >= 0) & (table["position"].to_numpy() == 0)]
    holder, seat = t["holder"].to_numpy(), t["seat"].to_numpy()
    keys = ["game_id", "component"]
    control = t[holder < 0].groupby(keys)["win_share"].agg(["sum", "size"])
    own = t[(holder == seat) & t["with_power"].to_numpy().astype(bool)].groupby(keys)["win_share"] \
        .agg(["sum", "size"])
    both = control.join(own, lsuffix="_control", rsuffix="_own", how="inner")
    both = both[(both["size_control"] == players) & (both["size_own"] == players)]  # every arm played
    d = np.rint(SHARE_SCALE * (both["sum_own"].to_numpy() - both["sum_control"].to_numpy())).astype(np.int64)
    game_ids = both.index.get_level_values("game_id").to_numpy()
    kind = np.asarray(labels, dtype=object)[both.index.get_level_values("component").to_numpy()]
    sums: dict[str, list[int]] = {}
    for label in dict.fromkeys(labels):  # every kind, in the components' order
        mine = kind == label
        g, per_game = np.unique(game_ids[mine], return_inverse=True)
        s = np.bincount(per_game, weights=d[mine], minlength=len(g)).astype(np.int64)
        m = np.bincount(per_game, minlength=len(g)).astype(np.int64)
        sums[label] = [len(g), int(m.sum()), int(s.sum()), int((s * s).sum()), int((s * m).sum()),
                       int((m * m).sum())]
    return {"base_games": int(table["game_id"].nunique()), "played": played, "kinds": sums}


def merge_values(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """Two sets of statistics of disjoint base games, combined exactly."""
    if not a:
        return {"base_games": b["base_games"], "played": b["played"], "kinds": dict(b["kinds"])}
    kinds = dict(a["kinds"])
    for label, sums in b["kinds"].items():
        kinds[label] = [x + y for x, y in zip(kinds.get(label, [0] * len(_SUMS)), sums, strict=True)]
    return {"base_games": a["base_games"] + b["base_games"], "played": a["played"] + b["played"],
            "kinds": kinds}


def kind_estimates(stats: dict[str, Any], players: int) -> list[tuple[str, float, float, int]]:
    """Each measured kind's (label, value, standard error, base games): the value is the win share its
    holder gains, seat-averaged; the error the cluster-robust one of the ratio estimator."""
    scale = SHARE_SCALE * players
    out = []
    for label, (n, m, s, ss, sm, mm) in stats["kinds"].items():
        if n == 0 or m == 0:
            continue
        value = s / (scale * m)
        if n > 1:
            resid = ss / scale ** 2 - 2 * value * sm / scale + value * value * mm  # sum_g (S_g - v m_g)^2
            se = math.sqrt(max(resid, 0.0) * n / (n - 1)) / m
        else:
            se = math.inf
        out.append((label, value, se, n))
    return out


def kind_values(stats: dict[str, Any], players: int, confidence: float = 0.95) -> list[dict[str, Any]]:
    """Each kind's value with bounds simultaneous over the kinds (normal, Bonferroni at
    ``1 - (1 - confidence) / kinds`` each), largest value first."""
    estimates = kind_estimates(stats, players)
    z = z_value(confidence, max(1, len(estimates)))
    rows = [{"kind": label, "value": value, "low": value - z * se, "high": value + z * se, "base_games": n}
            for label, value, se, n in estimates]
    return sorted(rows, key=lambda r: (-r["value"], r["kind"]))


def largest(stats: dict[str, Any] | None, players: int, confidence: float = 0.95) -> dict[str, Any] | None:
    """The kind worth most (the component-balance figure), with the largest upper bound of any kind
    (``high_any``: below the cap, no kind exceeds it at the confidence) and the largest lower bound
    (``low_any``: above the cap, some kind clearly exceeds it). None before any base game."""
    rows = kind_values(stats, players, confidence) if stats else []
    if not rows:
        return None
    return {**rows[0], "high_any": max(r["high"] for r in rows), "low_any": max(r["low"] for r in rows),
            "kinds": len(rows), "played": stats["played"], "base_games_all": stats["base_games"]}


def price(spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, base_games: int,
          path: str | os.PathLike[str]) -> tuple[dict[str, Any], int]:
    """A candidate's component kinds priced on its first `base_games` base games, kept in `path` (JSON,
    written whole and renamed into place), so a resumed race plays only the base games it lacks; kept
    statistics of another config, agents or seed are replaced. (statistics, games played now)."""
    path = Path(path)
    identity = {"config_hash": rules.config_hash, "agents": list(agents), "seed": seed}
    kept = None
    if path.is_file():
        stored = json.loads(path.read_text())
        kept = stored["stats"] if stored.get("identity") == identity else None
    have = kept["base_games"] if kept else 0
    if have >= base_games:
        return kept, 0
    part = play_values_chunk(spec, rules, agents, seed, start=have, count=base_games - have)
    stats = merge_values(kept, part)
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(json.dumps({"identity": identity, "stats": stats}))
    os.replace(tmp, path)
    return stats, part["played"]


def games_bound(components: int, players: int, base_games: int) -> int:
    """At most how many games `base_games` base games of a values study play: each component's control,
    one arm per seat and one powerless arm per seat, and the base game itself."""
    return base_games * (components * (2 * players + 1) + 1)
