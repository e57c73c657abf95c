"""The stages of `balance explore` after the search (docs/howto/explore.md): refine, confirm, write.

Why two more stages: a design's figures in the search rest on its `games` games, at which a seat's win
share has a standard error of a few pp, and the cells' best designs are picked on those very games, so
their seat deviations are flattered. Refining plays the fairest cells' designs on (the same seed sequence
continued: game `games`, `games + 1`, ..., so the figures stay common-seed and exact), and only their
refined figures choose what is confirmed. Confirming replays each candidate, and the base config once, on
fresh seeds (a seed derived from the file's) as ordinary run directories (OUT/confirm/<name>, resumable,
readable by `balance report`), and judges them as `balance compare BASE ELITE` does (sim.app.compare
.judge_runs) with the seats judged as the report's seat question judges them (analysis.verdicts): an elite
is offered only when its seats are fair within the tolerance by an equivalence test, never because a
difference was not significant.

The candidates are tried in order of distinctness: the fairest refined design first, then each time the one
farthest (measures scaled to their ranges) from the elites confirmed so far, skipping one that plays like
a confirmed elite (within one cell's width in every measure), until `elites` are confirmed or `tries`
candidates were tried.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analysis.explore_report import distinct_pairs, measured_text, write_explore_report
from analysis.game_analysis import analysis_of
from analysis.run_tally import RunTally, read_run_tally
from analysis.seats import start_player_advantage
from analysis.sequences import ALPHA, DECIDED, MIN_GAMES, family
from analysis.ties import tie_stats
from analysis.verdicts import SMALL, STATUS_WORDS, WITHIN, parse_margins, pp, pp_interval, run_verdicts
from sim.app.compare import judge_runs
from sim.app.expert_check import check_expert, check_json, check_of_json
from sim.app.runner import plan_run, simulate
from sim.core.errors import ConfigError
from sim.design.explore import (
    FIGURES,
    SUMMARY,
    Explorer,
    Settings,
    best_by_cell,
    cell_of,
    derived_seed,
    figures_of,
    open_archive,
)
from sim.design.explore_polish import polish, stats_at
from sim.design.overrides import apply_overrides, dump_toml, format_value, path_text
from sim.design.tune_file import Tune
from storage.backends import StudyCluster
from storage.run_dir import RunDirectory, mark_stopped_adaptively

CONFIRM = "confirm"
#: the seat verdicts that offer an elite: every seat's equivalence interval within the tolerance
FAIR = (WITHIN, SMALL)


# ---- refining --------------------------------------------------------------------------------------------
def refine_pool(designs: Sequence[dict[str, Any]], settings: Settings, ranges: Sequence[Sequence[float]],
                judged: bool = False) -> list[tuple[tuple[int, ...], dict[str, Any]]]:
    """What refining plays on: the `refine_per_cell` fairest distinct designs of every cell (a cell's
    fairest by a point estimate on a few hundred games is often a lucky one, its runner-up the fairer),
    the `refine` fairest of them (ties to the earlier design), as (cell, design) in that order. `judged`
    (refining at another level than the search's): every cell's fairest, then every cell's second, ...,
    so the pool covers the cells the search filled rather than the designs fairest at its level."""
    per_cell: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    seen: set[str] = set()
    def order(r: dict[str, Any]) -> tuple:
        return r["seat_dev"], r["iteration"], r["slot"]

    for r in sorted((r for r in designs if r["valid"]), key=order):
        key = json.dumps(r["design"], default=str)
        cell = cell_of([r[m] for m in settings.measures], ranges, settings.cells)
        if key in seen or len(per_cell.setdefault(cell, [])) >= settings.refine_per_cell:
            continue
        seen.add(key)
        per_cell[cell].append(r)
    if judged:  # the search's fairness says little at another level: every cell's fairest first
        ranked = sorted(per_cell.items(), key=lambda cr: order(cr[1][0]))
        pool = [(c, rows[k]) for k in range(settings.refine_per_cell) for c, rows in ranked if k < len(rows)]
        return pool[:settings.refine]
    pool = [(c, r) for c, rows in per_cell.items() for r in rows]
    return sorted(pool, key=lambda cr: order(cr[1]))[:settings.refine]


def judged_ranges(settings: Settings, ranges: Sequence[Sequence[float]]) -> list[tuple[float, float]]:
    """The ranges of the cells read at the judge's level: explore.judge_ranges where given, else the
    search's."""
    given = settings.judge_ranges or (None,) * len(ranges)
    return [tuple(g or r) for g, r in zip(given, ranges, strict=True)]


def refine(explorer: Explorer, designs: Sequence[dict[str, Any]],
           ranges: Sequence[Sequence[float]]) -> dict[tuple[int, ...], dict]:
    """The designs of `refine_pool` played on in rounds, to each of `refine_games` games in all (the same
    seed sequence, continued), the fairest half of a round going on to the next (successive halving: the
    games go where they can still change a ranking), each stored in the archive's table `refined` as it
    ends (a kill loses one design's games). Each cell's candidate is its design refined furthest, the
    fairest of those, with its refined figures (`games`, `search` its search figures, `refined_in_cell`
    how many of the cell's designs were refined)."""
    def order(cr: tuple[tuple[int, ...], dict]) -> tuple:
        return cr[1]["seat_dev"], cr[1]["iteration"], cr[1]["slot"]

    pool = refine_pool(designs, explorer.settings, ranges, judged=bool(explorer.level))
    if explorer.level and explorer.settings.refine_games:  # at the judge's level from the first game
        current = [(cell, {**r, "search": _search_figures(r), "stats": None}) for cell, r in pool]
    else:
        current = [(cell, _refined_row(r, r["stats"])) for cell, r in pool]
    latest = list(current)  # every design at its last round, in the pool's order
    for k, games in enumerate(explorer.settings.refine_games):
        if k:
            current = sorted(current, key=order)[:max(1, len(current) // 2)]
        current = [(cell, _refined_row(r, _refined_stats(explorer, r, games))) for cell, r in current]
        at = {_key(r): (cell, r) for cell, r in current}
        latest = [at.get(_key(r), (cell, r)) for cell, r in latest]
        explorer.say(f"refining, round {k + 1} of {len(explorer.settings.refine_games)}: {len(current)} "
                     f"designs to {games:,} games; {explorer.spent:,} of {explorer.tune.budget:,} games")
    out: dict[tuple[int, ...], dict] = {}
    judged = judged_ranges(explorer.settings, ranges)
    for cell, row in latest:
        if explorer.level and row["stats"] is not None:  # a cell is where a design plays, judged
            cell = cell_of([row[m] for m in explorer.settings.measures], judged, explorer.settings.cells)
        held = out.get(cell)
        count = held["refined_in_cell"] + 1 if held else 1
        if held is None or (-row["games"], row["seat_dev"]) < (-held["games"], held["seat_dev"]):
            out[cell] = row
        out[cell]["refined_in_cell"] = count
    return dict(sorted(out.items()))


def _key(r: dict[str, Any]) -> str:
    return json.dumps(r["design"], default=str)


def _search_figures(r: dict[str, Any]) -> dict[str, Any]:
    return r.get("search") or {k: r[k] for k in ("games", *FIGURES)}


def _refined_row(r: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    """A design's row at `stats`: its refined figures, keeping its search figures under `search`."""
    return {**r, **figures_of(stats), "games": stats["games"], "stats": stats, "search": _search_figures(r)}


def confirm_room(tolerance: float, players: int, games: int) -> float:
    """The largest refined seat deviation that leaves room for a confirmation: the tolerance less the
    half-width of the seats' equivalence interval at `games` games with every seat at the fair share (the
    seat verdict's family, analysis.verdicts.seat_family, at the error rate it has when the seats alone are
    asked). A candidate beyond it would be undecided on its confirmation games even were its refined figure
    its true one; 0 or below: no candidate can be confirmed."""
    fair = 1 / players
    sd = math.sqrt(fair * (1 - fair))
    fam = family(np.zeros(players), np.full(players, sd), np.full(players, float(games)), tolerance, ALPHA,
                 sd_design=sd, within=(-fair, 1 - fair))
    return tolerance - float(fam.eq_high[0])


def _refined_stats(explorer: Explorer, r: dict[str, Any], games: int) -> dict[str, Any]:
    """A design's statistics at `games` games: stored, or its games so far (None: none yet at this level)
    and the next ones' (explore_polish.stats_at); a design the archive holds must still play."""
    stats = stats_at(explorer, r["design"], games, r["stats"])
    if stats is None:
        _, why = explorer.rules_of(r["design"], f"{explorer.tune.file} (refining)")
        raise ConfigError(f"{explorer.tune.file}: a design of the archive no longer plays ({why})")
    return stats


# ---- candidates and their order --------------------------------------------------------------------------
def slug_of(cell: Sequence[int]) -> str:
    return "elite-" + "-".join(str(i) for i in cell)


def scaled(r: dict[str, Any], settings: Settings, ranges: Sequence[Sequence[float]]) -> np.ndarray:
    """A design's measures scaled to their ranges (clipped to [0, 1])."""
    return np.array([min(1.0, max(0.0, (r[m] - lo) / (hi - lo)))
                     for m, (lo, hi) in zip(settings.measures, ranges, strict=True)])


def next_candidate(left: dict[tuple[int, ...], dict], confirmed: Sequence[dict], settings: Settings,
                   ranges: Sequence[Sequence[float]]) -> tuple[int, ...] | None:
    """The next cell to confirm: with no elite confirmed yet the fairest refined design; else the one
    farthest (Euclidean, measures scaled to their ranges) from the confirmed elites' confirmation
    figures; ties to the lower cell; None when none is left."""
    if not left:
        return None
    if not confirmed:
        return min(left, key=lambda c: (left[c]["seat_dev"], c))
    points = [scaled(e["confirmation"], settings, ranges) for e in confirmed]

    def distance(c: tuple[int, ...]) -> float:
        p = scaled(left[c], settings, ranges)
        return min(float(np.linalg.norm(p - q)) for q in points)
    return max(sorted(left), key=lambda c: (distance(c), [-i for i in c]))


def plays_like(r: dict[str, Any], confirmed: Sequence[dict], settings: Settings,
               ranges: Sequence[Sequence[float]]) -> str:
    """The confirmed elite `r` plays like (within one cell's width of its confirmation figures in every
    measure), or ""."""
    widths = [(hi - lo) / n for (lo, hi), n in zip(ranges, settings.cells, strict=True)]
    for e in confirmed:
        if all(abs(r[m] - e["confirmation"][m]) < w for m, w in zip(settings.measures, widths, strict=True)):
            return e["slug"]
    return ""


# ---- confirming ------------------------------------------------------------------------------------------
class Confirmer:
    """The confirmation stage: the base config's run once, then each candidate's, judged against it."""

    def __init__(self, tune: Tune, settings: Settings, out: Path, jobs: int, say: Callable[[str], None],
                 spent_before: int = 0, cluster: StudyCluster | None = None):
        self.tune, self.settings, self.out, self.jobs, self.say = tune, settings, out, jobs, say
        self.cluster = cluster  # the explore's Dask cluster (None: `jobs` processes here)
        self.seed = derived_seed("explore-confirm", tune.seed)
        self.agents = settings.judge or tune.agents
        self.margins = parse_margins(f"seats={100 * tune.target.tolerance:g}")
        self.room = confirm_room(tune.target.tolerance, tune.players, settings.confirm_games)
        self.played = 0
        self.counted = spent_before  # the games before confirming, and the confirmations' so far
        self.base_dir = out / CONFIRM / "base"
        self.skipped: list[dict] = []  # candidates left untried: within a cell's width of a confirmed elite
        self.tallies: list[Any] = []  # the base's run and each candidate's, as judged (for the report)

    def play(self, config: str | os.PathLike[str], run_dir: Path, games: int | None = None,
             agents: str = "") -> None:
        """A config's confirmation games (to `games`, default confirm_games; by `agents`, default the
        confirmation's) into its run directory (resumed; replaced when it holds another config's, seed's or
        agents' games)."""
        plan = plan_run(config, self.tune.players, agents or self.agents, self.seed, False)
        manifest = RunDirectory(run_dir).read_manifest()
        force = manifest is not None and (manifest.config_hash, manifest.seed, tuple(manifest.agents)) != \
            (plan.config_hash, plan.seed, tuple(plan.agents))
        done = simulate(plan, games or self.settings.confirm_games, run_dir, jobs=self.jobs, force=force,
                        cluster=self.cluster)
        self.played += done.played

    def run(self, refined: dict[tuple[int, ...], dict], ranges: Sequence[Sequence[float]]) -> list[dict]:
        """Try the candidates in order (module docstring): every one tried, confirmed or not, in order."""
        left = {c: r for c, r in refined.items() if r["seat_dev"] <= self.room}
        tried: list[dict] = []
        confirmed: list[dict] = []
        while len(confirmed) < self.settings.elites and len(tried) < self.settings.tries:
            cell = next_candidate(left, confirmed, self.settings, ranges)
            if cell is None:
                break
            r = left.pop(cell)
            like = plays_like(r, confirmed, self.settings, ranges)
            if like:
                self.skipped.append({"slug": slug_of(cell), "plays_like": like, "seat_dev": r["seat_dev"],
                                     **{m: r[m] for m in self.settings.measures}})
                continue
            if not tried:
                self.play(self.tune.base, self.base_dir)
                self.counted += self.settings.confirm_games
            record = self.confirm(cell, r)
            tried.append(record)
            if record["confirmed"]:
                confirmed.append(record)
        return tried

    def confirm(self, cell: tuple[int, ...], r: dict[str, Any]) -> dict[str, Any]:
        """One candidate's confirmation games, judged: its record (figures, verdicts, why not offered)."""
        slug = slug_of(cell)
        config = self.out / CONFIRM / f"{slug}.toml"
        write_config(self.tune, config, r["design"], f"candidate {slug} of `balance explore {self.tune.file}`"
                     " (confirmation games in the folder beside it).")
        run_dir = self.out / CONFIRM / slug
        for games in confirm_rounds(self.settings.confirm_games):
            self.play(config, run_dir, games)
            base, variant, _, changes = judge_runs(self.base_dir, run_dir, self.margins)
            seats, _, _, length = run_verdicts(variant, self.margins)
            if seats.status in DECIDED:
                break
        if games < self.settings.confirm_games:
            mark_stopped_adaptively(run_dir)
        self.tallies = (self.tallies or [base]) + [variant]
        ok = seats.status in FAIR
        tol = f"{100 * self.tune.target.tolerance:g} pp"
        record = {"cell": list(cell), "slug": slug, "iteration": r["iteration"], "slot": r["slot"],
                  "design": r["design"], "changes": changes_text(self.tune, r["design"]), "run": str(run_dir),
                  "n": int(variant.n_games), "confirmed": ok, "status": seats.status,
                  "confirmation": played_figures(seats, length, variant),
                  "refined": {k: r[k] for k in ("games", *FIGURES)}, "search": r["search"],
                  "verdicts": [seats.record(), *(v.record() for v in changes)]}
        far = record["confirmation"]
        record["reason"] = "" if ok else (
            f"seats {STATUS_WORDS.get(seats.status, seats.status)} at the {tol} tolerance: the largest "
            f"deviation seat {far['seat']} {pp(far['deviation'])} "
            f"{pp_interval(far['deviation_low'], far['deviation_high'], self.tune.target.tolerance)}, "
            f"n = {record['n']:,}")
        self.counted += record["n"]
        self.say(f"confirmation of {slug} on {record['n']:,} fresh games: "
                 f"{'fair' if ok else 'not offered'} ({seats.status}); largest seat deviation "
                 f"{pp(far['deviation'])}; {self.counted:,} of {self.tune.budget:,} games")
        return record


    def witness(self, elites: Sequence[dict[str, Any]]) -> None:
        """Each confirmed elite replayed at the level above the judge's (`witness`, e.g. search) on the same
        fresh seeds, to `witness_games` at most, its own seats judged as the report judges them (stopping
        at the first deciding look): its record's `witness`. The elite stays offered either way (it is fair
        at the level judged); the verdict is shown beside it, saying whether the fairness holds above."""
        agents = self.settings.witness
        for e in elites if agents else ():
            run_dir = self.out / CONFIRM / f"at-{agents.replace(',', '-').replace(':', '-')}" / e["slug"]
            for games in confirm_rounds(self.settings.witness_games):
                self.play(self.out / CONFIRM / f"{e['slug']}.toml", run_dir, games, agents)
                variant = read_run_tally(run_dir)
                seats, _, _, length = run_verdicts(variant, self.margins)
                if seats.status in DECIDED:
                    break
            if games < self.settings.witness_games:
                mark_stopped_adaptively(run_dir)
            e["witness"] = {"agents": agents, "run": str(run_dir), "n": int(variant.n_games),
                            "status": seats.status, "fair": seats.status in FAIR,
                            "confirmation": played_figures(seats, length, variant)}
            self.counted += e["witness"]["n"]
            self.say(f"{e['slug']} at {agents} on {e['witness']['n']:,} fresh games: seats {seats.status}; "
                     f"{self.counted:,} of {self.tune.budget:,} games")


def check_models(tune: Tune, out: Path, elites: Sequence[dict[str, Any]], agents: str, *, jobs: int = 1,
                 say: Callable[[str], None] = print) -> None:
    """Each elite's check that a level judging it with a learned model (expert) is still strong on it
    (sim.app.expert_check): its record's `model_checks` (the model's identity and the figures); a weak one
    is said, and its sentence carries it. An elite whose level plays no model, or plays a model fitted
    for it, gets an empty list."""
    for e in elites:
        checks = check_expert(out / CONFIRM / f"{e['slug']}.toml", tune.players, agents, jobs,
                              derived_seed("explore-model-check", tune.seed))
        e["model_checks"] = [check_json(c) for c in checks]
        for c in checks:
            if c.weak:
                say(f"{e['slug']}: {c.sentence()}")


def played_figures(seats: Any, length: Any, run: RunTally) -> dict[str, Any]:
    """A candidate's figures on its confirmation games, from the report's verdicts and tally of its `run`:
    every measure (mean length, tie rate, the start player's edge over the fair share, lead changes per
    game where the game counts them) with its 95% interval, as the search figures them, and its seat
    farthest from the fair share with the interval that decided the seat verdict (the equivalence interval
    when fair, else the shown one)."""
    far = max(seats.detail["seats"], key=lambda s: (abs(s["difference"]), -s["seat"]))
    eq = seats.status in FAIR
    ties, start = tie_stats(run.common), start_player_advantage(run.common)
    leads = analysis_of(run.spec).run_lead_changes
    lead = leads(run.own) if leads is not None else dict.fromkeys(("mean", "ci_low", "ci_high"))
    return {"length": length.value, "length_low": length.low, "length_high": length.high,
            "ties": ties["top_tied_rate"], "ties_low": ties["top_tied_ci_low"],
            "ties_high": ties["top_tied_ci_high"], "start_player": start["value"],
            "start_player_low": start["ci_low"], "start_player_high": start["ci_high"],
            "lead_changes": lead["mean"], "lead_changes_low": lead["ci_low"],
            "lead_changes_high": lead["ci_high"],
            "seat": far["seat"], "seat_dev": abs(far["difference"]),
            "deviation": far["difference"], "deviation_low": far["equivalence_low" if eq else "ci_low"],
            "deviation_high": far["equivalence_high" if eq else "ci_high"]}


def confirm_rounds(games: int) -> list[int]:
    """The games a candidate's confirmation is judged at: a quarter, half and all of `games` (each at least
    MIN_GAMES). The seat verdict's intervals are confidence sequences, valid however often they are looked
    at, so a candidate stops at the first look that decides its seats (fair, or unfair) and the games it
    would not need go to the next candidate."""
    return sorted({max(MIN_GAMES, games // 4), max(MIN_GAMES, games // 2), games})


# ---- the elites ------------------------------------------------------------------------------------------
def changes_of(tune: Tune, values: Sequence[Any]) -> list[tuple[Any, Any, Any]]:
    """(path, value, base value) of every key a design changes."""
    space = tune.search_space
    return [(d.path, v, b) for d, v, b in zip(space.dimensions, values, space.base_values(), strict=True)
            if v != b]


def changes_text(tune: Tune, values: Sequence[Any], shown: int = 4) -> str:
    """"chits.red[0].points 3 -> 5; ... and 12 more" (the first `shown` changed keys)."""
    parts = [f"{path_text(k)} {format_value(b)} -> {format_value(v)}" for k, v, b in changes_of(tune, values)]
    if not parts:
        return "nothing (the base config)"
    return "; ".join(parts[:shown]) + (f" and {len(parts) - shown} more" if len(parts) > shown else "")


def write_config(tune: Tune, path: Path, values: Sequence[Any], header: str) -> int:
    """A design as a config file at `path` that `extends` the base config and sets only the keys it
    changes (dotted keys, docs/reference/configs.md), `header` at its top: the keys changed."""
    changed = {p: v for p, v, _ in changes_of(tune, values)}
    apply_overrides(tune.search_space.base, changed, tune.file)  # refused here, not by a later simulate
    base_desc = str(tune.search_space.base.get("description") or "")
    table = {"extends": os.path.relpath(os.path.abspath(tune.base), os.path.abspath(path.parent)),
             "description": (base_desc + " | " if base_desc else "") + f"explored: {path.stem}",
             **{path_text(p): v for p, v in changed.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_toml(table, header))
    return len(changed)


def elite_sentence(tune: Tune, e: dict[str, Any], agents: str, measures: Sequence[str] = ()) -> str:
    """A confirmed elite in a sentence: what it changes and how it plays on its confirmation games (length,
    ties, and the other `measures`), each figure with its 95% interval and n."""
    c, unit = e["confirmation"], tune.spec.vocabulary.length
    others = measured_text(c, measures)
    return (f"{e['slug']}: changes {changes_text(tune, e['design'])}. On {e['n']:,} fresh games ({agents}): "
            f"plays {c['length']:.1f} {unit} [{c['length_low']:.1f}, {c['length_high']:.1f}], top score "
            f"tied in {100 * c['ties']:.1f}% [{100 * c['ties_low']:.1f}, {100 * c['ties_high']:.1f}]"
            f"{others}; seats fair within the {100 * tune.target.tolerance:g} pp tolerance (equivalence "
            f"test), the largest deviation seat {c['seat']} {pp(c['deviation'])} "
            f"{pp_interval(c['deviation_low'], c['deviation_high'], tune.target.tolerance)}; "
            f"n = {e['n']:,} games."
            f"{witness_sentence(tune, e)}{model_sentence(e)}")


def model_sentence(e: dict[str, Any]) -> str:
    """" The expert's model may not hold here: <the check's sentence>" for a weak check, else ""."""
    weak = [check_of_json(c) for c in e.get("model_checks") or []]
    return "".join(f" The {c.agent}'s model may not hold here: {c.sentence()}" for c in weak if c.weak)


def witness_sentence(tune: Tune, e: dict[str, Any]) -> str:
    """" At search: seats fair within ... (n = ...)." when the elite was replayed at the witness level."""
    if "witness" not in e:
        return ""
    a, c = e["witness"], e["witness"]["confirmation"]
    tol = f"{100 * tune.target.tolerance:g} pp"
    return (f" At {a['agents']}: seats {STATUS_WORDS.get(a['status'], a['status'])} (the {tol} tolerance), "
            f"the largest deviation seat {c['seat']} {pp(c['deviation'])} "
            f"{pp_interval(c['deviation_low'], c['deviation_high'], tune.target.tolerance)}; "
            f"plays {c['length']:.1f} "
            f"{tune.spec.vocabulary.length}, top score tied in {100 * c['ties']:.1f}%; n = {a['n']:,} games.")


def write_elites(tune: Tune, out: Path, elites: Sequence[dict], agents: str,
                 measures: Sequence[str] = ()) -> None:
    """Each confirmed elite as OUT/elite-<cell>.toml with its sentence at the top (earlier sessions'
    elite files replaced); adds `file`, `changed` and `sentence` to each record."""
    for old in out.glob("elite-*.toml"):
        old.unlink()
    for e in elites:
        e["sentence"] = elite_sentence(tune, e, agents, measures)
        path = out / f"{e['slug']}.toml"
        header = (f"{e['slug']} of `balance explore {tune.file}` ({tune.players} players; batch "
                  f"{e['iteration']}, design {e['slot']}).\n{e['sentence']}")
        e["changed"] = write_config(tune, path, e["design"], header)
        e["file"] = str(path)


# ---- the whole explore -----------------------------------------------------------------------------------
def default_out(tune_file: str | os.PathLike[str]) -> Path:
    return Path("runs") / "explore" / Path(tune_file).stem


def run_explore(tune: Tune, settings: Settings, out: Path, jobs: int = 1, force: bool = False,
                say: Callable[[str], None] = print, cluster: StudyCluster | None = None) -> dict[str, Any]:
    """Explore (or resume) into `out`: search, refine, confirm, write the elites, the summary and the
    report; the summary. `cluster`: the explore's one Dask cluster (storage.backends.StudyCluster), every
    stage's games played on it; None: on `jobs` processes here."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: is a file, not a folder")
    db = open_archive(tune, settings, out, force)
    explorer = Explorer(tune, settings, db, say)
    try:
        designs = explorer.run(jobs, cluster=cluster)
        search_games = explorer.spent
        ranges = search_ranges = explorer.current_ranges()
        best = best_by_cell(designs, settings, ranges)
        explorer.judge_level()
        refined = refine(explorer, designs, ranges) if settings.refine else {}
        if explorer.level:  # from here the cells are read at the judge's level
            ranges = judged_ranges(settings, ranges)
        refine_spent = explorer.spent - search_games
        room = confirm_room(tune.target.tolerance, tune.players, settings.confirm_games) \
            if settings.confirm_games else 0.0
        refined, polished = polish(explorer, refined, ranges, room)
    finally:
        explorer.close()
        db.close()
    confirmer = Confirmer(tune, settings, out, jobs, say, spent_before=explorer.spent, cluster=cluster)
    tried = confirmer.run(refined, ranges) if settings.confirm_games else []
    elites = [t for t in tried if t["confirmed"]]
    confirmer.witness(elites)
    check_models(tune, out, elites, confirmer.agents, jobs=jobs, say=say)
    write_elites(tune, out, elites, confirmer.agents, settings.measures)
    summary = _summary(tune, settings, out, designs, best=best, ranges=search_ranges)
    summary.update(search_games=search_games, refine_games=refine_spent,
                   polish_games=explorer.spent - search_games - refine_spent, polished=polished,
                   confirm_games=settings.confirm_games + sum(t["n"] for t in tried) if tried else 0,
                   played_now=explorer.played_now + confirmer.played, confirm_seed=confirmer.seed,
                   confirm_agents=confirmer.agents, judge_agents=confirmer.agents, search_agents=tune.agents,
                   witness=settings.witness,
                   also_games=sum(e["witness"]["n"] for e in elites if "witness" in e), refined=len(refined),
                   room=confirmer.room, refined_designs=sum(r["refined_in_cell"] for r in refined.values()),
                   candidates=sum(r["seat_dev"] <= confirmer.room for r in refined.values()),
                   fairest_judged=fairest_refined(refined),
                   tried=tried, skipped=confirmer.skipped, elites=elites, distinct=distinct_pairs(elites),
                   judge_ranges=ranges, progress=progress(designs, settings, search_ranges))
    summary["games"] = (summary["search_games"] + summary["refine_games"] + summary["polish_games"]
                        + summary["confirm_games"] + summary["also_games"])
    summary["report"] = str(write_explore_report(summary, out / "report", confirmer.tallies,
                                                 ["base", *(t["slug"] for t in tried)] if tried else []))
    tmp = out / f".{SUMMARY}.tmp"
    tmp.write_text(json.dumps(summary, indent=1, default=str) + "\n")
    os.replace(tmp, out / SUMMARY)
    return summary


def fairest_refined(refined: dict[tuple[int, ...], dict]) -> dict[str, Any] | None:
    """The fairest design refining (and polishing) found, at the level judged: its cell, largest seat
    deviation with its 95% interval (Bonferroni over the seats) and games (None: nothing refined)."""
    if not refined:
        return None
    cell, r = min(refined.items(), key=lambda cr: (cr[1]["seat_dev"], cr[0]))
    return {"slug": slug_of(cell), "games": r["games"],
            **{k: r[k] for k in ("seat_dev", "seat_dev_low", "seat_dev_high", "length", "ties")}}


def progress(designs: Sequence[dict], settings: Settings,
             ranges: Sequence[Sequence[float]]) -> list[dict[str, Any]]:
    """After each batch of the search: the games spent (the base's included), the cells filled and the
    best largest seat deviation so far (point estimates of the search's games)."""
    out, filled, spent, best = [], set(), settings.games, math.inf
    batches = sorted({r["iteration"] for r in designs})
    for it in batches:
        for r in (r for r in designs if r["iteration"] == it):
            spent += r["played"]
            if r["valid"]:
                filled.add(cell_of([r[m] for m in settings.measures], ranges, settings.cells))
                best = min(best, r["seat_dev"])
        out.append({"batch": it, "games": spent, "cells_filled": len(filled), "best_seat_dev": best})
    return out


def _summary(tune: Tune, settings: Settings, out: Path, designs: Sequence[dict], *, best: dict,
             ranges: Sequence[Sequence[float]]) -> dict[str, Any]:
    """The search's part of the summary: designs, coverage, the fairest design, every cell's best."""
    valid = [r for r in designs if r["valid"]]
    top = min(valid, key=lambda r: (r["seat_dev"], r["iteration"], r["slot"])) if valid else None
    return {"file": tune.file, "out": str(out), "game": tune.spec.name, "players": tune.players,
            "agents": tune.agents, "unit": tune.spec.vocabulary.length, "designs": len(designs),
            "valid": len(valid),
            "distinct_designs": len({json.dumps(r["design"], default=str) for r in valid}),
            "budget": tune.budget, "cells_filled": len(best), "cells": math.prod(settings.cells),
            "cell_counts": list(settings.cells), "measures": list(settings.measures), "ranges": ranges,
            "tolerance": tune.target.tolerance, "settings": {k: getattr(settings, k) for k in (
                "games", "batch", "iso_sigma", "focus", "elites", "refine", "refine_per_cell", "refine_games",
                "polish", "polish_steps", "polish_children", "polish_changes", "confirm_games", "tries")},
            "best": {k: top[k] for k in ("iteration", "slot", "design", "games", *FIGURES)} if top else None,
            "cells_best": [{"cell": list(c), "seat_dev": r["seat_dev"], "games": r["games"],
                            **{m: r[m] for m in settings.measures}} for c, r in sorted(best.items())]}
