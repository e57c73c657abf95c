"""`balance explore TUNE_FILE` (docs/howto/explore.md): many fair designs, not one. The tune file's space is
searched by quality-diversity, and every design it plays is kept in an archive of cells by how it plays
(its measures: game length, tie rate, the start player's edge, lead changes), the fairest design of each
cell its elite.

Why pyribs: a maintained implementation of MAP-Elites and its successors (GridArchive, emitters, a Scheduler
with ask/tell), so our runner plays the games and the search is theirs, seeded end to end.

Why MAP-Elites with the Iso+LineDD operator (IsoLineEmitter) for fairness: a budget buys tens of batches
of a few dozen designs, and the spaces have tens of integer dimensions. CMA-ME's covariance needs many
generations to learn in 40 dimensions, and it ranks designs by their improvement of a cell, which at a few
hundred games a design is mostly noise; Iso+LineDD mutates elites and crosses them along the line between
two, needs no ranking, and a step of a few values moves a design on the integer grid at once. With `focus`
below 1 the mutated elite is drawn from the fairest share of the elites only (FocusedIsoLineEmitter): fair
designs are rare, and children of fair parents are fairer on average.

Why CMA-ME as well, for `reach` designs of each batch (CubeEvolutionStrategyEmitter, separable CMA-ES with
the two-stage improvement ranker): that ranker puts a design that fills a new cell before any other, so
its distribution walks towards the cells not yet filled, where Iso+LineDD stays among the fair designs it
has and the lengths they play (docs/howto/explore.md, "Reach", measures both on the shipped example).

The stages after the search (refining the fairest designs on more of the same seeds, confirming the most
distinct on fresh seeds with `balance compare`'s verdicts, the elites and the report) are
sim/design/explore_confirm.py's.

A solution is a point of [0, 1]^d (one coordinate a dimension, its value's position among the dimension's
values), so one step size suits dimensions of every length; it becomes a design by rounding to the nearest
value, then the tune's repair into the constraints (SearchSpace.repair), as the tune's model search does.
Every design plays the same `games` games (rng.game_seeds of the file's seed: common seeds), so designs
differ by their rules alone, and a design played before is not played again.

The archive (SQLite, written a batch at a time in one transaction) holds every design evaluated, with its
figures and their 95% intervals; a kill loses at most the batch in play, and the same command again replays
the stored batches through the scheduler (same asks, checked; no game) and goes on, ending with the same
archive as a run never killed. The games are split across --jobs, and the scheduler is told in batch order,
so --jobs does not change the archive.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ribs.archives import GridArchive
from ribs.emitters import EvolutionStrategyEmitter, IsoLineEmitter
from ribs.schedulers import Scheduler

from analysis.game_analysis import analysis_of
from analysis.sequences import MIN_GAMES
from analysis.stats import Z95, seat_deviation, wilson_interval
from sim.core.agent_spec import parse_agents
from sim.core.config import (
    check_unknown_keys,
    did_you_mean,
    expect_int,
    expect_list,
    expect_str,
    expect_table,
    fail,
    load_toml,
)
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.component_balance import SHARE_SCALE
from sim.design.files import check_agents, games_count, validate
from sim.design.overrides import apply_overrides, path_text
from sim.design.search_space import SearchSpace
from sim.design.trial_games import GamePool, batch_stats, merge, play_batch
from sim.design.tune_file import (
    Racing,
    Tune,
    check_corners,
    number,
    read_head,
    read_space,
    read_target,
)
from storage.backends import StudyCluster

# ---- the file --------------------------------------------------------------------------------------------
#: the explore file's top-level keys: a tune file's, with [explore] for [search] and [racing]
FILE_KEYS = ("base", "description", "players", "agents", "seed", "budget", "space", "target", "skip_invalid",
             "constraints", "explore")
EXPLORE_KEYS = ("measures", "cells", "ranges", "games", "batch", "reach", "reach_sigma", "iso_sigma", "focus",
                "elites", "refine", "refine_per_cell", "refine_games", "polish", "polish_steps",
                "polish_children", "polish_changes", "confirm_games", "judge", "judge_ranges", "witness",
                "witness_games", "tries")
#: the [explore] keys of the stages after the search (refining, confirming, the elites): not part of the
#: archive's identity, so changing them goes on from the archive
AFTER_SEARCH = ("elites", "refine", "refine_per_cell", "refine_games", "polish", "polish_steps",
                "polish_children", "polish_changes", "confirm_games", "judge", "judge_ranges", "witness",
                "witness_games", "tries")
#: keys of earlier versions, refused with what replaced them
RENAMED = {"confirm_agents": "judge", "confirm_also": "witness"}
#: the level people play, at which an elite must be fair unless the file names another (explore.judge)
JUDGE = "expert"
#: the level above it, at which each elite is checked and the verdict shown beside it (explore.witness)
WITNESS = "search"
#: the measures a design's games give, each with what it is (docs/howto/explore.md)
MEASURES = {"length": "mean game length, in the game's own unit",
            "ties": "share of games whose top score is shared before the tie-break",
            "start_player": "the start seat's win share minus the fair share 1/players",
            "lead_changes": "mean times a game's lead changes hands (a game whose batch keeps its scores "
                            "turn by turn: analysis.game_analysis.GameAnalysis.lead_changes)"}
#: measures designers ask for that an explore cannot give yet, with why
NOT_YET = {"component_spread": "it needs a values study of every design (balance values), which an explore "
                               "does not play yet"}
DEFAULT_MEASURES = ("length", "ties")


@dataclass(frozen=True)
class Settings:
    """The ``[explore]`` table: what the cells measure and how finely, and what a design costs."""

    measures: tuple[str, ...] = DEFAULT_MEASURES
    cells: tuple[int, ...] = (10, 10)
    #: each measure's (low, high); None: from the base config's own figures (`default_range`)
    ranges: tuple[tuple[float, float] | None, ...] = (None, None)
    games: int = 400    # games a design plays, on the same seeds as every other design
    batch: int = 24     # designs asked of the scheduler at a time
    reach: int = 0      # of them, asked of CMA-ME's improvement emitter, which moves to unfilled cells
    reach_sigma: float = 0.1  # its first step in the unit cube
    iso_sigma: float = 0.08  # Iso+LineDD's isotropic step in the unit cube (ISO_SIGMA)
    focus: float = 1.0  # the fairest share of the elites that are mutated (FocusedIsoLineEmitter)
    elites: int = 6     # distinct fair designs written as configs
    refine: int = 24    # the fairest cells whose design plays on to refine_games before confirmation
    refine_per_cell: int = 2  # of them, the fairest distinct designs of a cell at most
    #: games in all of a refined design after each round (common seeds, continuing); each round after the
    #: first plays on the fairest half of the round before (successive halving); (): no refining
    refine_games: tuple[int, ...] = (4000,)
    polish: int = 0     # cells whose candidate is polished (sim/design/explore_polish.py); 0: none
    polish_steps: int = 4  # steps of a cell's local search
    polish_children: int = 8  # children a step plays
    polish_changes: int = 2  # values a child moves one step
    confirm_games: int = 20000  # fresh games of each candidate and of the base (0: no confirmation)
    #: the level an elite must be fair at: refining, polishing and confirming play at it (the search plays
    #: at the file's `agents`, which may be cheaper)
    judge: str = JUDGE
    #: the measures' ranges of the cells read at the judge's level (None: the search's), which may play
    #: the same designs far longer or shorter than the search's level
    judge_ranges: tuple[tuple[float, float] | None, ...] = ()
    witness: str = WITNESS  # the level above, each elite checked at it, its verdict beside ("": none)
    witness_games: int = 1000  # fresh games of each elite at the witness level, at most
    tries: int = 12     # candidates confirmed at most (default twice the elites)

    def reserve(self) -> int:
        """The games the budget keeps for the stages after the search: every refined design's further
        games and the confirmation of the base and of every candidate tried, at most."""
        refining, count, before = 0, self.refine, self.games
        for games in self.refine_games:
            refining, count, before = refining + count * (games - before), max(1, count // 2), games
        if self.polish and self.refine_games:
            first, last = self.refine_games[0], self.refine_games[-1]
            refining += self.polish * (self.polish_steps * self.polish_children * first + last - first)
        also = self.witness_games * self.elites if self.witness else 0
        return refining + (self.confirm_games * (1 + self.tries) + also if self.confirm_games else 0)


def load_explore(path: str | os.PathLike[str]) -> tuple[Tune, Settings]:
    """Read and validate an explore file (ConfigError naming the file and the key) before any game: the
    tune's head, space, constraints and target.tolerance (sim/design/tune_file.py), and ``[explore]``."""
    file = os.fspath(path)
    data, _ = load_toml(file)
    for key in ("search", "racing"):
        if key in data:
            fail(file, key, "is a table of `balance tune`, which `balance explore` does not read (its "
                            "settings go in [explore])")
    fields, skip_invalid = read_head(data, file, FILE_KEYS)
    target = read_target(data.get("target", {}), file, fields["spec"])
    for key, value in (("length", target.length), ("chit_cap", target.chit_cap)):
        if value is not None:
            fail(file, f"target.{key}", "is not read by `balance explore`, whose [target] takes tolerance "
                 "only" + (" (the length is a measure: name it in explore.measures, its range in "
                           "explore.ranges)" if key == "length" else ""))
    space = read_space(data, file, fields["base_config"])
    check_corners(space, fields["spec"], fields["players"], file, skip_invalid)
    settings = read_settings(data.get("explore", {}), file, fields["players"], fields["spec"])
    check_budget(settings, file, fields["budget"])
    tune = Tune(file=file, **fields, space=tuple((d.path, d.values) for d in space.dimensions), target=target,
                racing=Racing(), candidates=(), method="explore", search_space=space)
    return tune, settings


def read_settings(table: Any, file: str, players: int, spec: GameSpec) -> Settings:
    """The ``[explore]`` table, every key checked (the agents for `players` seats of `spec`'s game)."""
    t = expect_table(table, file, "explore")
    for old, new in RENAMED.items():
        if old in t:
            fail(file, f"explore.{old}", f"was renamed: give explore.{new} (the level "
                 + ("an elite must be fair at)" if new == "judge" else "above, each elite checked at it)"))
    check_unknown_keys(t, EXPLORE_KEYS, file, "explore")
    d = Settings()
    measures = _measures(t.get("measures", list(d.measures)), file, spec)
    cells = _cells(t.get("cells", [10] * len(measures)), file, measures)
    ranges = _ranges(t.get("ranges", {}), file, measures)
    games = games_count(t.get("games", d.games), file, "explore.games", 2)
    batch = expect_int(t.get("batch", d.batch), file, "explore.batch", 1, 1000)
    reach = expect_int(t.get("reach", d.reach), file, "explore.reach", 0, batch - 1)
    reach_sigma = number(t.get("reach_sigma", d.reach_sigma), file, "explore.reach_sigma", 0.001, 1.0)
    iso_sigma = number(t.get("iso_sigma", d.iso_sigma), file, "explore.iso_sigma", 0.001, 1.0)
    focus = number(t.get("focus", d.focus), file, "explore.focus", 0.01, 1.0)
    elites = expect_int(t.get("elites", min(d.elites, math.prod(cells))), file, "explore.elites", 1,
                        math.prod(cells))
    settings = Settings(measures=measures, cells=cells, ranges=ranges, games=games, batch=batch,
                        reach=reach, reach_sigma=reach_sigma, iso_sigma=iso_sigma, focus=focus, elites=elites,
                        judge_ranges=_ranges(t.get("judge_ranges", {}), file, measures,
                                             "explore.judge_ranges"),
                        **_after_search(t, file, elites, games))
    for key in ("judge", "witness"):
        if getattr(settings, key):
            check_agents(file, f"explore.{key}", getattr(settings, key), players, spec)
    return settings


def check_budget(settings: Settings, file: str, budget: int) -> None:
    """The budget must pay for the base's games, one batch and what refining and confirming may spend."""
    games, batch = settings.games, settings.batch
    need = games * (1 + batch) + settings.reserve()
    if budget < need:
        fail(file, "budget", f"{budget:,} games do not pay for the base config's {games:,} games, one "
                             f"batch of {batch} designs at {games:,} each and the {settings.reserve():,} "
                             "kept for refining and confirming; give at least "
                             f"{need:,}, or lower explore.games, explore.batch, explore.refine, "
                             "explore.polish, explore.confirm_games or explore.tries")


def _after_search(t: dict[str, Any], file: str, elites: int, games: int) -> dict[str, Any]:
    """The keys of the stages after the search: refining (games in all of a refined design: 0, or more
    than explore.games) and confirming."""
    refine = expect_int(t.get("refine", 4 * elites), file, "explore.refine", 0, 10_000)
    per_cell = expect_int(t.get("refine_per_cell", Settings.refine_per_cell), file, "explore.refine_per_cell",
                          1, 10_000)
    refine_games = _refine_rounds(t.get("refine_games", max(games, Settings.refine_games[0])), file, games)
    polish = {key: expect_int(t.get(key, getattr(Settings, key)), file, f"explore.{key}", lo, 1000)
              for key, lo in (("polish", 0), ("polish_steps", 1), ("polish_children", 1),
                              ("polish_changes", 1))}
    confirm_games = expect_int(t.get("confirm_games", Settings.confirm_games), file, "explore.confirm_games",
                               0, 10_000_000)
    if 0 < confirm_games < MIN_GAMES:
        fail(file, "explore.confirm_games", f"{confirm_games:,} games give no verdict (at least {MIN_GAMES}; "
                                            "0: no confirmation)")
    judge = expect_str(t.get("judge", JUDGE), file, "explore.judge") or JUDGE
    witness = expect_str(t.get("witness", WITNESS), file, "explore.witness")
    if witness and not confirm_games and "witness" in t:
        fail(file, "explore.witness", "needs a confirmation (explore.confirm_games is 0)")
    witness_games = expect_int(t.get("witness_games", Settings.witness_games), file, "explore.witness_games",
                               MIN_GAMES, 10_000_000)
    tries = expect_int(t.get("tries", 2 * elites), file, "explore.tries", 1, 10_000)
    return {"refine": refine, "refine_per_cell": per_cell, "refine_games": refine_games, **polish,
            "confirm_games": confirm_games, "judge": judge, "witness": witness if confirm_games else "",
            "witness_games": witness_games, "tries": tries}


def _refine_rounds(value: Any, file: str, games: int) -> tuple[int, ...]:
    """explore.refine_games: one count (0: no refining) or a list of rising counts, each above
    explore.games (a refined design plays on from its search games)."""
    key = "explore.refine_games"
    if not isinstance(value, list):
        count = expect_int(value, file, key, 0, 10_000_000)
        rounds = (count,) if count else ()
    else:
        rounds = tuple(expect_int(v, file, f"{key}[{k}]", 1, 10_000_000) for k, v in enumerate(value))
        if not rounds or any(b <= a for a, b in zip(rounds, rounds[1:], strict=False)):
            fail(file, key, f"{value} must be a list of rising game counts, e.g. [4000, 16000]")
    if rounds and rounds[0] < games:
        fail(file, key, f"{rounds[0]:,} is below explore.games ({games:,}): a refined design plays on from "
                        "its search games (0: no refining)")
    return rounds


def _measures(value: Any, file: str, spec: GameSpec) -> tuple[str, ...]:
    names = expect_list(value, file, "explore.measures")
    counted = [m for m in MEASURES if m != "lead_changes" or analysis_of(spec).lead_changes is not None]
    if not names:
        fail(file, "explore.measures", f"must name at least one of {', '.join(MEASURES)}")
    for i, name in enumerate(names):
        where = f"explore.measures[{i}]"
        name = expect_str(name, file, where)
        if name in NOT_YET:
            fail(file, where, f"{name!r} is not available yet: {NOT_YET[name]} (available: "
                              f"{', '.join(MEASURES)})")
        if name not in MEASURES:
            hint = did_you_mean(name, list(MEASURES), quote=True)
            fail(file, where, f"unknown measure {name!r}" + (f"; {hint}" if hint else "")
                 + f" (available: {', '.join(counted)})")
        if name not in counted:
            fail(file, where, f"{name!r} is not available for {spec.name}: its games keep no score after "
                              f"each turn or round, so a lead change cannot be counted (available: "
                              f"{', '.join(counted)})")
    if len(set(names)) < len(names):
        fail(file, "explore.measures", "names a measure twice")
    return tuple(names)


def _cells(value: Any, file: str, measures: tuple[str, ...]) -> tuple[int, ...]:
    counts = expect_list(value, file, "explore.cells")
    if len(counts) != len(measures):
        fail(file, "explore.cells", f"lists {len(counts)} count(s) for {len(measures)} measure(s) "
                                    f"({', '.join(measures)}): give one a measure, e.g. cells = "
                                    f"{[10] * len(measures)}")
    cells = tuple(expect_int(c, file, f"explore.cells[{i}]", 1, 1000) for i, c in enumerate(counts))
    if math.prod(cells) > 100_000:
        fail(file, "explore.cells", f"{math.prod(cells):,} cells; at most 100,000")
    return cells


def _ranges(value: Any, file: str, measures: tuple[str, ...],
            table_name: str = "explore.ranges") -> tuple[tuple[float, float] | None, ...]:
    table = expect_table(value, file, table_name)
    for key in table:
        if key in MEASURES and key not in measures:
            fail(file, f"{table_name}.{key}", f"is not one of explore.measures ({', '.join(measures)})")
    check_unknown_keys(table, measures, file, table_name)
    out: list[tuple[float, float] | None] = []
    for name in measures:
        if name not in table:
            out.append(None)
            continue
        where = f"{table_name}.{name}"
        pair = expect_list(table[name], file, where)
        if len(pair) != 2:
            fail(file, where, f"must be [min, max], got {len(pair)} value(s)")
        share = name == "ties"
        lo, hi = (number(x, file, f"{where}[{i}]", 0.0 if share else -1e9, 1.0 if share else 1e9)
                  for i, x in enumerate(pair))
        if lo >= hi:
            fail(file, where, f"min {lo:g} must be below max {hi:g}")
        out.append((lo, hi))
    return tuple(out)


# ---- a design's games and figures ------------------------------------------------------------------------
def play_measured(spec: GameSpec, rules: Any, agents: tuple[str, ...], seed: int, start: int,
                  count: int) -> dict[str, Any]:
    """A design's games start .. start+count-1 as exact statistics: the tune's (trial_games.batch_stats),
    how many had their top score shared, and, for a game that counts them, the sum and the sum of squares
    of each game's lead changes (a worker)."""
    batch = play_batch(spec, rules, agents, seed, start, count)
    stats = {**batch_stats(spec, batch, len(agents)), "ties": int(np.asarray(batch["tie"]).sum())}
    count_leads = analysis_of(spec).lead_changes
    if count_leads is not None:
        leads = np.asarray(count_leads(batch), dtype=np.int64)
        stats.update(leads=int(leads.sum()), leads_sq=int((leads * leads).sum()))
    return stats


def merge_measured(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """Two `play_measured` statistics of disjoint games, combined exactly (the lead changes when both
    count them: an archive's games from before they were counted do not)."""
    out = {**merge(a, b), "ties": (a["ties"] if a else 0) + b["ties"]}
    if "leads" in b and (a is None or "leads" in a):
        out.update({k: (a[k] if a else 0) + b[k] for k in ("leads", "leads_sq")})
    return out


def figures_of(stats: dict[str, Any]) -> dict[str, float]:
    """A design's figures with their 95% intervals from its statistics: the objective (the largest seat
    deviation from 1/players, its interval Wilson's with Bonferroni over the seats), mean length (normal),
    tie rate (Wilson) and the start player's edge over the fair share (Wilson)."""
    n = stats["games"]
    wins = [w / SHARE_SCALE for w in stats["wins"]]
    fair = 1 / len(wins)
    dev = seat_deviation(wins, n, 0.95)
    mean = stats["length_sum"] / n
    var = max(0.0, (stats["length_sq"] - n * mean * mean) / (n - 1)) if n > 1 else math.inf
    half = Z95 * math.sqrt(var / n)
    ties = wilson_interval(stats["ties"], n)
    start = wilson_interval(wins[0], n)
    return {"seat_dev": dev["value"], "seat_dev_low": dev["low"], "seat_dev_high": dev["high"],
            "length": mean, "length_low": mean - half, "length_high": mean + half,
            "ties": stats["ties"] / n, "ties_low": ties[0], "ties_high": ties[1],
            "start_player": wins[0] / n - fair, "start_player_low": start[0] - fair,
            "start_player_high": start[1] - fair, **_lead_figures(stats)}


def _lead_figures(stats: dict[str, Any]) -> dict[str, float | None]:
    """Mean lead changes per game with its normal 95% interval; None where the games did not count them."""
    n = stats["games"]
    if "leads" not in stats:
        return dict.fromkeys(("lead_changes", "lead_changes_low", "lead_changes_high"))
    mean = stats["leads"] / n
    var = max(0.0, (stats["leads_sq"] - n * mean * mean) / (n - 1)) if n > 1 else math.inf
    half = Z95 * math.sqrt(var / n)
    return {"lead_changes": mean, "lead_changes_low": mean - half, "lead_changes_high": mean + half}


def default_range(measure: str, base: dict[str, float], players: int) -> tuple[float, float]:
    """A measure's range when the file gives none, from the base config's figures: its length +-30%, tie
    rates from 0 to three times its own (at least 0.1), lead changes from 0 to twice its own (at least 1),
    and the start player's edge within half the fair share either way. A design beyond a range counts in
    the edge cell."""
    if measure == "length":
        return (math.floor(0.7 * base["length"]), math.ceil(1.3 * base["length"]))
    if measure == "ties":
        return (0.0, min(1.0, round(max(0.1, 3 * base["ties"]), 2)))
    if measure == "lead_changes":
        return (0.0, max(1.0, math.ceil(2 * base["lead_changes"])))
    return (-0.5 / players, 0.5 / players)


# ---- the archive on disk ---------------------------------------------------------------------------------
ARCHIVE = "archive.db"
MANIFEST = "manifest.json"
SUMMARY = "summary.json"
FIGURES = tuple(figures_of({"games": 2, "wins": [1, 1], "length_sum": 2, "length_sq": 2, "ties": 0,
                            "leads": 0, "leads_sq": 0}))
_COLUMNS = ("iteration", "slot", "solution", "design", "valid", "why", "games", "played", "objective",
            *FIGURES, "stats")
_SCHEMA = ("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
           "CREATE TABLE IF NOT EXISTS designs (iteration INTEGER NOT NULL, slot INTEGER NOT NULL, solution "
           "TEXT NOT NULL, design TEXT NOT NULL, valid INTEGER NOT NULL, why TEXT NOT NULL, games INTEGER "
           "NOT NULL, played INTEGER NOT NULL, objective REAL, "
           + ", ".join(f"{c} REAL" for c in FIGURES) + ", stats TEXT, PRIMARY KEY (iteration, slot))",
           "CREATE TABLE IF NOT EXISTS refined (design TEXT NOT NULL, games INTEGER NOT NULL, stats TEXT NOT "
           "NULL, PRIMARY KEY (design, games))")


def identity(tune: Tune, settings: Settings) -> dict[str, Any]:
    """What the archive's designs and their figures depend on: changing any of it makes a stored archive
    another explore's (the budget and the elites are not in it: a larger budget goes on from the archive)."""
    space = tune.search_space
    return {"game": tune.spec.name, "base_config": space.base, "players": tune.players, "agents": tune.agents,
            "seed": tune.seed, "dims": [[path_text(d.path), list(d.values)] for d in space.dimensions],
            "constraints": [c.describe() for c in space.constraints],
            "explore": {k: v for k, v in asdict(settings).items()
                        if k not in AFTER_SEARCH and not (k in REACH_KEYS and not settings.reach)},
            "algorithm": {"emitter": "FocusedIsoLineEmitter", "line_sigma": LINE_SIGMA,
                          **({"reach": REACH_ES} if settings.reach else {})}}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def open_archive(tune: Tune, settings: Settings, out: Path, force: bool) -> sqlite3.Connection:
    """The archive of `out`, made for this explore: a new one, or one a run of the same explore left
    (refused when another explore made it, unless `force`, which starts it again)."""
    ident = identity(tune, settings)
    digest = _digest(ident)
    about = {"command": "balance explore", "file": tune.file,
             "file_sha256": hashlib.sha256(Path(tune.file).read_bytes()).hexdigest(),
             "identity": digest, "what": ident}
    path = out / MANIFEST
    if path.is_file():
        try:
            old = json.loads(path.read_text()).get("identity")
        except (json.JSONDecodeError, AttributeError):
            old = None
        if old != digest:
            if not force:
                raise ConfigError(f"{out}: holds the archive of another explore (its file, space, seed or "
                                  "[explore] differ); give another --out, or --force to start it again")
            for name in (ARCHIVE, MANIFEST, SUMMARY):
                (out / name).unlink(missing_ok=True)
            for folder in ("confirm", "report"):  # another explore's confirmation runs and report
                shutil.rmtree(out / folder, ignore_errors=True)
            for old_elite in out.glob("elite-*.toml"):
                old_elite.unlink()
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(about, indent=1, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)
    db = sqlite3.connect(out / ARCHIVE)
    for statement in _SCHEMA:
        db.execute(statement)
    have = {row[1] for row in db.execute("PRAGMA table_info(designs)")}
    for column in FIGURES:  # an archive from before a figure was kept (lead changes): NULL in its rows
        if column not in have:
            db.execute(f"ALTER TABLE designs ADD COLUMN {column} REAL")
    db.commit()
    return db


def read_designs(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every stored design in batch order, as a dict of the archive's columns (solution, design and stats
    decoded)."""
    rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM designs ORDER BY iteration, slot").fetchall()
    out = []
    for row in rows:
        r = dict(zip(_COLUMNS, row, strict=True))
        for key in ("solution", "design", "stats"):
            r[key] = json.loads(r[key]) if r[key] is not None else None
        out.append(r)
    return out


def _store_batch(db: sqlite3.Connection, rows: Sequence[dict[str, Any]]) -> None:
    """One batch's designs, in one transaction: a kill leaves the batch whole or absent."""
    with db:
        db.executemany(f"INSERT INTO designs ({', '.join(_COLUMNS)}) "
                       f"VALUES ({', '.join('?' * len(_COLUMNS))})",
                       [tuple(json.dumps(r[c]) if c in ("solution", "design", "stats") else r[c]
                              for c in _COLUMNS) for r in rows])


# ---- the search ------------------------------------------------------------------------------------------
#: Iso+LineDD's steps in the unit cube: an isotropic step of about one value in a ten-value dimension, and
#: a step along the line between two elites of a fifth of their distance (Vassiliades & Mouret 2018's)
ISO_SIGMA = 0.08
LINE_SIGMA = 0.2
#: the evolution strategy of the `reach` emitter (CMA-ME, Fontaine et al. 2020, with the improvement ranker):
#: separable CMA-ES, whose diagonal covariance adapts in the few generations a budget buys where the full
#: covariance of tens of dimensions would not; and the keys that are part of an archive only when it is on
#: (an archive made before `reach` existed resumes unchanged)
REACH_ES = "sep_cma_es"
REACH_KEYS = ("reach", "reach_sigma")
#: the objective told to pyribs for a design that breaks a constraint or that the game refuses: below any
#: real one (minus a seat deviation, which is above -1)
INVALID_OBJECTIVE = -1.0
#: the search ends after this many batches in a row with no new design
STUCK_BATCHES = 10


def derived_seed(*parts: Any) -> int:
    """A seed derived from the file's seed and a name (each generator its own stream)."""
    return int(hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:15], 16)


def start_point(space: SearchSpace) -> np.ndarray:
    """The base config as a point of the unit cube (a value outside a dimension: its nearest, or its
    first)."""
    point = []
    for d, v in zip(space.dimensions, space.base_values(), strict=True):
        if v in d.values:
            i = d.values.index(v)
        elif d.is_range and isinstance(v, int | float):
            i = min(range(len(d.values)), key=lambda k, v=v: abs(d.values[k] - v))
        else:
            i = 0
        point.append(i / (len(d.values) - 1) if len(d.values) > 1 else 0.0)
    return np.array(point, dtype=np.float64)


def values_at(space: SearchSpace, x: Sequence[float]) -> list[Any]:
    """A point of the unit cube as a design: each coordinate rounded to the nearest of its dimension's
    values, then repaired into the constraints as the tune's model search repairs a proposal."""
    raw = []
    for d, xi in zip(space.dimensions, x, strict=True):
        i = int(np.clip(np.rint(float(xi) * (len(d.values) - 1)), 0, len(d.values) - 1))
        raw.append(d.values[i])
    return space.repair(raw)


class FocusedIsoLineEmitter(IsoLineEmitter):
    """Iso+LineDD whose mutated elite x_i is drawn from the fairest `focus` share of the archive's elites
    (by objective; at least one), the elite x_j whose line it steps along from all of them: the children
    stay near the fairest designs found and spread across the cells along the lines to the others. Why:
    designs within a tolerance of a few pp are rare in a space of tens of dimensions (in the shipped
    example's archives about one design in twenty is within 3 pp), and plain Iso+LineDD mutates every cell's
    elite alike, spending most games near designs 10 pp off. focus = 1 is plain Iso+LineDD."""

    def __init__(self, archive: GridArchive, focus: float, **kwargs: Any) -> None:
        super().__init__(archive, **kwargs)
        self.focus = focus

    def ask(self) -> np.ndarray:
        if self.archive.empty or self.focus >= 1.0:
            return super().ask()
        data = self.archive.data()
        order = np.lexsort((data["index"], -data["objective"]))  # fairest first; ties by cell
        best = data["solution"][order[:max(1, math.ceil(self.focus * len(order)))]]
        elites = best[self._rng.integers(len(best), size=self.batch_size)]
        others = data["solution"][self._rng.integers(len(order), size=self.batch_size)]
        iso = self._rng.normal(scale=self.iso_sigma, size=elites.shape)
        line = self._rng.normal(scale=self.line_sigma, size=(self.batch_size, 1))
        return self._clip(elites + iso + line * (others - elites))


class CubeEvolutionStrategyEmitter(EvolutionStrategyEmitter):
    """CMA-ME's emitter whose points are clipped into the unit cube. Why not the ES's own bounds: it
    resamples a point until every one of its tens of coordinates falls inside, which near the cube's faces
    may take very many tries or never end; a point beyond a face is the design on that face anyway
    (`values_at` rounds each coordinate to its nearest value)."""

    def ask(self) -> np.ndarray:
        return np.clip(super().ask(), 0.0, 1.0)


def make_scheduler(tune: Tune, settings: Settings, ranges: Sequence[tuple[float, float]]) -> Scheduler:
    """MAP-Elites with Iso+LineDD and, with `reach`, CMA-ME's emitter (see the module docstring), every
    generator seeded from the file's seed: Iso+LineDD's first designs are the base config and uniform points
    of the cube, its later ones mutate the archive's elites; the ES samples around the base first."""
    space = tune.search_space
    dim = len(space.dimensions)
    archive = GridArchive(solution_dim=dim, dims=list(settings.cells), ranges=list(ranges),
                          seed=derived_seed("explore-archive", tune.seed), dtype=np.float64)
    rng = np.random.default_rng(derived_seed("explore-start", tune.seed))
    iso_batch = settings.batch - settings.reach
    first = np.vstack([start_point(space)[None], rng.uniform(0.0, 1.0, size=(iso_batch - 1, dim))])
    emitters: list[Any] = [FocusedIsoLineEmitter(archive, settings.focus, iso_sigma=settings.iso_sigma,
                                                  line_sigma=LINE_SIGMA, initial_solutions=first,
                                                  bounds=[(0.0, 1.0)] * dim, batch_size=iso_batch,
                                                  seed=derived_seed("explore-emitter", tune.seed))]
    if settings.reach:
        emitters.append(CubeEvolutionStrategyEmitter(archive, x0=start_point(space),
                                                     sigma0=settings.reach_sigma, ranker="2imp", es=REACH_ES,
                                                     batch_size=settings.reach,
                                                     seed=derived_seed("explore-reach", tune.seed)))
    return Scheduler(archive, emitters)


class Explorer:
    """One session of an explore: replay the stored batches through the scheduler, then ask, play and tell
    batches while the budget pays for one more."""

    def __init__(self, tune: Tune, settings: Settings, db: sqlite3.Connection,
                 say: Callable[[str], None]) -> None:
        self.tune, self.settings, self.db, self.say = tune, settings, db, say
        self.space = tune.search_space
        self.agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
        self.search_agents = self.agents
        self.level = ""  # "" while the stages play at the search's agents; else the judge's agents
        self.known: dict[str, dict[str, Any]] = {}  # a design's key -> its statistics (played once)
        self.spent = 0
        self.played_now = 0
        self.pool: GamePool | None = None

    def run(self, jobs: int, cluster: StudyCluster | None = None) -> list[dict[str, Any]]:
        """Play the session's search (the pool stays open for the stages after it: `close`); every design
        of the archive, in batch order. `cluster`: the explore's Dask cluster, else `jobs` processes."""
        self.pool = GamePool(jobs, cluster=cluster)
        try:
            base = self.base_figures()
            ranges = self.ranges(base)
            scheduler = make_scheduler(self.tune, self.settings, ranges)
            iteration = self.replay(scheduler)
            step = self.settings.batch * self.settings.games
            while self.spent + step <= self.tune.budget - self.settings.reserve() and not self.stuck():
                iteration += 1
                self.step(scheduler, iteration)
        except BaseException:
            self.close()
            raise
        return read_designs(self.db)

    def judge_level(self) -> None:
        """Play from now on at the judge's level (explore.judge): refining and polishing choose what is
        confirmed there, on the same seed sequence, so designs stay compared on common seeds."""
        judged = tuple(str(a) for a in parse_agents(self.settings.judge, self.tune.players, self.tune.spec))
        self.level = "" if judged == self.search_agents else ",".join(judged)
        self.agents = judged

    def design_key(self, values: Sequence[Any]) -> str:
        """A design's key in the archive's table `refined`: at the judge's level when it is not the
        search's, so the two levels' statistics of one design are never merged."""
        if not self.level:
            return json.dumps(list(values), default=str)
        return json.dumps({"at": self.level, "design": list(values)}, default=str)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def stuck(self) -> bool:
        """Whether the last STUCK_BATCHES batches played no new design (each asked only designs played
        before, which costs no game): the search has stopped moving, and the budget would never run out."""
        rows = self.db.execute("SELECT SUM(played) FROM designs GROUP BY iteration ORDER BY iteration DESC "
                               "LIMIT ?", (STUCK_BATCHES,)).fetchall()
        return len(rows) == STUCK_BATCHES and not any(played for (played,) in rows)

    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def base_figures(self) -> dict[str, float]:
        """The base config's figures on the designs' games (stored once; they set the default ranges)."""
        stats = self.meta("base_stats")
        if stats is None:
            rules = validate(self.tune.spec, dict(self.space.base), self.tune.players, self.tune.base)
            stats = self.play(rules)
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('base_stats', ?)", (json.dumps(stats),))
        self.spent += stats["games"]
        return figures_of(stats)

    def ranges(self, base: dict[str, float]) -> list[tuple[float, float]]:
        ranges = [given or default_range(m, base, self.tune.players)
                  for m, given in zip(self.settings.measures, self.settings.ranges, strict=True)]
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('ranges', ?)", (json.dumps(ranges),))
        return ranges

    def play(self, rules: Any, start: int = 0, count: int | None = None) -> dict[str, Any]:
        """Games start .. start+count-1 (default: the designs' games) of the file's seed, on the pool."""
        stats = self.pool.play(self.tune.spec, rules, self.agents, self.tune.seed, start=start,
                               count=count or self.settings.games, worker=play_measured,
                               combine=merge_measured, smallest=10)
        self.played_now += stats["games"]
        return stats

    def replay(self, scheduler: Scheduler) -> int:
        """Tell the scheduler the stored batches again (no game), checking each ask matches what was
        stored; the last stored iteration."""
        rows = read_designs(self.db)
        iterations = sorted({r["iteration"] for r in rows})
        for it in iterations:
            batch = [r for r in rows if r["iteration"] == it]
            asked = scheduler.ask()
            stored = np.array([r["solution"] for r in batch], dtype=np.float64)
            if asked.shape != stored.shape or not np.array_equal(asked, stored):
                raise ConfigError(f"{self.db_path()}: batch {it} does not replay (written by another "
                                  "version of the search?); give --force to start the explore again")
            for r in batch:
                if r["valid"] and r["played"]:
                    self.known[json.dumps(r["design"], default=str)] = r["stats"]
                self.spent += r["played"]
            self.tell(scheduler, batch)
        if iterations:
            self.say(f"resumed: {len(rows)} designs in {len(iterations)} batches, {self.spent:,} games")
        return iterations[-1] if iterations else 0

    def db_path(self) -> str:
        return self.db.execute("PRAGMA database_list").fetchone()[2]

    def tell(self, scheduler: Scheduler, batch: Sequence[dict[str, Any]]) -> None:
        objective = [r["objective"] if r["valid"] else INVALID_OBJECTIVE for r in batch]
        lows = [low for low, _ in self.current_ranges()]
        measures = [[r[m] for m in self.settings.measures] if r["valid"] else lows for r in batch]
        scheduler.tell(np.array(objective, dtype=np.float64), np.array(measures, dtype=np.float64))

    def current_ranges(self) -> list[tuple[float, float]]:
        return [tuple(r) for r in self.meta("ranges")]

    def step(self, scheduler: Scheduler, iteration: int) -> None:
        """Ask a batch, play its new designs, store the batch whole, tell it in order."""
        asked = scheduler.ask()
        rows = [self.evaluate(iteration, slot, x) for slot, x in enumerate(asked)]
        _store_batch(self.db, rows)
        self.tell(scheduler, rows)
        valid = [r for r in rows if r["valid"]]
        best = min((r["seat_dev"] for r in valid), default=math.nan)
        self.say(f"batch {iteration}: {len(rows)} designs ({sum(r['played'] > 0 for r in rows)} new), "
                 f"{self.spent:,} of {self.tune.budget:,} games; best largest seat deviation this batch "
                 f"{100 * best:.1f} pp")

    def evaluate(self, iteration: int, slot: int, x: np.ndarray) -> dict[str, Any]:
        """One asked point: its design, and its figures (played now, or a design played before)."""
        values = values_at(self.space, x)
        row: dict[str, Any] = {"iteration": iteration, "slot": slot, "solution": [float(v) for v in x],
                               "design": values, "valid": 0, "why": "", "games": 0, "played": 0,
                               "objective": None, "stats": None, **dict.fromkeys(FIGURES)}
        rules, why = self.rules_of(values, f"{self.tune.file} (batch {iteration}, design {slot})")
        if why:
            return {**row, "why": why}
        key = json.dumps(values, default=str)
        stats = self.known.get(key)
        if stats is None:
            stats = self.known[key] = self.play(rules)
            row["played"] = stats["games"]
            self.spent += stats["games"]
        figures = figures_of(stats)
        return {**row, **figures, "valid": 1, "games": stats["games"], "objective": -figures["seat_dev"],
                "stats": stats}

    def rules_of(self, values: list[Any], source: str) -> tuple[Any, str]:
        """(the game's rules of a design, "") or (None, why it is no design)."""
        broken = self.space.violations(values)
        if broken:
            return None, "breaks " + broken[0]
        overrides = {d.path: v for d, v in zip(self.space.dimensions, values, strict=True)}
        try:
            return validate(self.tune.spec, apply_overrides(self.space.base, overrides, source),
                            self.tune.players, source), ""
        except ConfigError as err:
            return None, str(err)


# ---- cells and elites ------------------------------------------------------------------------------------
def cell_of(measures: Sequence[float], ranges: Sequence[tuple[float, float]],
            cells: Sequence[int]) -> tuple[int, ...]:
    """A design's cell: each measure's slice of its range (one beyond the range counts in the edge cell,
    as pyribs' GridArchive counts it)."""
    out = []
    for m, (lo, hi), n in zip(measures, ranges, cells, strict=True):
        out.append(int(np.clip(np.floor((m - lo) / (hi - lo) * n), 0, n - 1)))
    return tuple(out)


def best_by_cell(designs: Sequence[dict[str, Any]], settings: Settings,
                 ranges: Sequence[tuple[float, float]]) -> dict[tuple[int, ...], dict[str, Any]]:
    """Each filled cell's fairest design (smallest largest seat deviation; the first found on a tie)."""
    best: dict[tuple[int, ...], dict[str, Any]] = {}
    for r in designs:
        if not r["valid"]:
            continue
        cell = cell_of([r[m] for m in settings.measures], ranges, settings.cells)
        if cell not in best or r["seat_dev"] < best[cell]["seat_dev"]:
            best[cell] = r
    return best
