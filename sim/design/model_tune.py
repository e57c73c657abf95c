"""`balance tune` by model-based search (tune files whose space is too large to race, or that say
``method = "model"``): run the study (sim/design/model_search.py), confirm the recommended points on fresh
games, write ``recommended.toml``, ``search.json`` and the report.

The statement rests on the confirmation games alone: the search's own figures favour the candidates it
chose on them. Its curve of best objective found does too, so each study's best so far is also measured on
fresh games at k/curve_checks of the budget (sim/design/curve_checks.py). A model search tries a tiny
share of a space of billions, so it never says that no candidate meets the target: only whether the one
it recommends does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from analysis.search_report import build_search_report
from sim.core.errors import ConfigError
from sim.design.component_balance import kind_values, largest
from sim.design.curve_checks import check_curves
from sim.design.model_search import (
    SEARCH_JSON,
    STUDY_FILE,
    STUDY_NAMES,
    best_record,
    confirm_stats,
    full_games,
    pareto,
    read_records,
    run_search,
    write_summary,
)
from sim.design.overrides import apply_overrides, path_text
from sim.design.trial_games import figures
from sim.design.tune import candidate_config_text, confirm_seed
from sim.design.tune_file import Candidate, Tune
from storage.run_lock import RunLock

#: search keys that measure the finished search and never change its games (the curve's checks)
MEASURE_ONLY = ("curve_checks", "curve_games")


def identity(tune: Tune) -> str:
    """What the study's games depend on: changing any of it makes the stored trials another study's."""
    space = tune.search_space
    text = json.dumps({"base": space.base, "players": tune.players, "agents": tune.agents, "seed": tune.seed,
                       "dims": [[path_text(d.path), list(d.values)] for d in space.dimensions],
                       "constraints": [c.describe() for c in space.constraints],
                       "search": {k: v for k, v in asdict(tune.search).items() if k not in MEASURE_ONLY},
                       "target": asdict(tune.target)},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _points(records: list, tune: Tune) -> list:
    full = full_games(tune.search)
    if len(tune.search.objectives) == 1:
        best = best_record({r.number: r for r in records}, full)
        return [best] if best else []
    front = pareto(records, full)
    k = tune.search.confirm_points
    if len(front) <= k:
        return front
    picks = sorted({round(i * (len(front) - 1) / (k - 1)) for i in range(k)}) if k > 1 else [0]
    return [front[i] for i in picks]


def _candidate(tune: Tune, values: list[Any], slug: str) -> Candidate:
    space = tune.search_space
    changed = {d.path: v for d, v, b in zip(space.dimensions, values, space.base_values(), strict=True)
               if v != b}
    config = apply_overrides(space.base, changed, tune.file)
    return Candidate(slug, tuple(values), changed, config)


def statement(judged, tune: Tune, agents: str, chit: dict[str, Any] | None = None) -> tuple[bool, str]:
    """The confirmation's verdict on the target from its fresh games alone: seats and length
    (``judged``, a Standing) and, with a cap, the component kinds (``chit``, component_balance.largest:
    bounds simultaneous over the kinds)."""
    tol, cap = tune.target.tolerance, tune.target.chit_cap
    pct = f"{100 * tune.search.confidence:g}%"
    figures_text = (f"largest seat deviation {100 * judged.value:.2f} percentage points, {pct} upper bound "
                    f"{100 * judged.high:.2f} (tolerance {100 * tol:g}) on {judged.games:,} fresh games "
                    f"with {agents}")
    if tune.target.length is not None:
        figures_text += (f"; mean length {judged.length:.1f} [{judged.length_low:.1f}, "
                         f"{judged.length_high:.1f}]")
    met, missed = judged.high < tol and judged.feasible == "yes", judged.low > tol or judged.feasible == "no"
    if cap is not None:
        if chit is None:
            figures_text += "; no component kind could be priced"
            met = False
        else:
            figures_text += (f"; the kind worth most, {chit['kind']}, adds {100 * chit['value']:.1f} pp "
                             f"to its holder's win rate, and no kind more than {100 * chit['high_any']:.1f} "
                             f"at {pct} over all {chit['kinds']} kinds (cap {100 * cap:g}; "
                             f"{chit['base_games_all']:,} fresh base games, {chit['played']:,} games)")
            met = met and chit["high_any"] <= cap
            missed = missed or chit["low_any"] > cap
    if met:
        return True, f"Target met with {pct} confidence: {figures_text}."
    if missed:
        return False, f"Target missed with {pct} confidence by the recommended config: {figures_text}."
    return False, f"Target not shown at {pct}: {figures_text}."


def why_nothing(summary: dict[str, Any], tune: Tune) -> str:
    """Why a finished search recommends nothing: no candidate played every stage, or none that did met
    the constraints (the length range, the component cap)."""
    full = full_games(tune.search)
    study = summary["studies"].get("model") or next(iter(summary["studies"].values()), {})
    done = [r for r in study.get("records", []) if r["valid"] and r["games"] >= full]
    stopped = f" (the search stopped early: {summary['stopped']})" if summary.get("stopped") else ""
    if not done:
        return f"no candidate was played to the end{stopped}: raise the budget"
    limits = [w for w, on in (("outside the length range", tune.target.length is not None),
                              ("over the component cap", tune.target.chit_cap is not None)) if on]
    return (f"none of the {len(done)} candidates played to the end met the constraints (each was "
            f"{' or '.join(limits)}){stopped}: raise the budget, or loosen the target")


def run_model_tune(tune: Tune, out: Path, jobs: int, backend: str, scheduler: str | None, baseline: str,
                   force: bool, report: bool, say: Callable[[str], None]) -> dict[str, Any]:
    """Search (or, with ``baseline = "random"``, the random baseline), confirm, write the results."""
    started = time.perf_counter()
    kind = "random" if baseline == "random" else "model"
    with RunLock(out):
        ident = identity(tune)
        _claim(tune, out, ident, force)
        result = run_search(tune, out, kind, jobs, backend, scheduler=scheduler, say=say)
        studies = {k: (result if k == kind else read_records(tune, out, k)) for k in STUDY_NAMES}
        main = studies["model"] if studies["model"]["records"] else studies["random"]
        fresh = Confirmations(tune, out, jobs, backend, scheduler, say=say, played=result["played_now"])
        agent_sets = [tune.agents] + ([tune.search.confirm_agents] if tune.search.confirm_agents else [])
        confirmed = [fresh.point(r, main["kind"], agent_sets) for r in _points(main["record_objects"], tune)]
        # the baseline's best on the same fresh games, so the two searches compare on confirmed figures
        baseline_best = _baseline_best(studies, tune) if main["kind"] == "model" else None
        baseline_confirmed = fresh.point(baseline_best, "random", [tune.agents]) \
            if baseline_best is not None else None
        checks = check_curves(tune, {k: v["record_objects"] for k, v in studies.items() if v["records"]},
                              full_games(tune.search), fresh.measure)
        rec = None
        if confirmed:
            rec = min(confirmed, key=lambda e: (not e["confirm"][tune.agents]["met"],
                                                e["confirm"][tune.agents]["value"]))
        summary = {**_tune_fields(tune, ident, fresh.cseed),
                   "studies": {k: {key: v[key] for key in ("kind", "sampler", "spent", "budget", "records",
                                                           "curve", "schedule")}
                               for k, v in studies.items() if v["records"]},
                   "confirmed": confirmed, "recommended": rec, "baseline_confirmed": baseline_confirmed,
                   "curve_checks": checks, "seconds": time.perf_counter() - started,
                   "played_now": fresh.played, "stopped": result.get("stopped", "")}
        if rec is not None:
            summary.update(_write_recommended(tune, out, rec))
        write_summary(out, summary)
        if report:
            summary["report"] = os.fspath(build_search_report(out))
    return summary


def _claim(tune: Tune, out: Path, ident: str, force: bool) -> None:
    """The tune folder for this study: a study of another identity is refused (or with force removed,
    with its report); until the first search ends, search.json marks the folder as searching (a finished
    summary stays readable meanwhile)."""
    known = out / SEARCH_JSON
    if (out / STUDY_FILE).exists():
        old = json.loads(known.read_text()).get("identity") if known.is_file() else None
        if old != ident:
            if not force:
                raise ConfigError(f"{out}: holds a study of another tune file, space, seed or agents "
                                  "(search.json's identity differs); choose another --out or pass "
                                  "--force")
            (out / STUDY_FILE).unlink()
            shutil.rmtree(out / "report", ignore_errors=True)
    if not known.is_file() or not (out / STUDY_FILE).exists():
        write_summary(out, {"identity": ident, "tune_file": tune.file, "state": "searching"})


def _baseline_best(studies: dict[str, dict[str, Any]], tune: Tune):
    """The random baseline's best verified candidate (None when it has none, or did not run)."""
    if not studies["random"]["records"]:
        return None
    return best_record({r.number: r for r in studies["random"]["record_objects"]}, full_games(tune.search))


class Confirmations:
    """Fresh games on the confirmation's seed (model_search.confirm_stats: kept in the study file, so a
    resumed tune replays none): the recommended points' and the curve's checks, counting the games played
    now in `played`."""

    def __init__(self, tune: Tune, out: Path, jobs: int, backend: str, scheduler: str | None,
                 say: Callable[[str], None], played: int) -> None:

        self.tune, self.out, self.say, self.played = tune, out, say, played
        self.pool = {"jobs": jobs, "backend": backend, "scheduler": scheduler}
        self.cseed = confirm_seed(tune.seed)

    def stats(self, values: list[Any], agents: str, games: int, priced: bool = False) -> dict[str, Any]:
        stats, now = confirm_stats(self.tune, self.out, values, agents, games=games, seed=self.cseed,
                                   priced=priced, **self.pool)
        self.played += now
        return stats

    def measure(self, values: list[Any], games: int):
        """A candidate's Standing on `games` fresh games with the search's agents (a curve check)."""
        stats = self.stats(values, self.tune.agents, games)
        return figures(stats, self.tune.target, self.tune.search.confidence)

    def point(self, r, study: str, agent_sets: list[str]) -> dict[str, Any]:
        """A recommended point (a TrialRecord of `study`) confirmed with each agent set."""
        entry = {"trial": r.number, "study": study, "values": r.values, "objectives": r.objectives,
                 "search_games": r.games, "confirm": {}}
        for agents in agent_sets:
            entry["confirm"][agents] = self.with_agents(r.values, agents)
            self.say(f"confirmation of {study} trial {r.number} with {agents}: "
                     f"{entry['confirm'][agents]['statement']}")
        return entry

    def with_agents(self, values: list[Any], agents: str) -> dict[str, Any]:
        """A point's confirmation figures and verdict with one agent set (with a cap, its component kinds
        priced on fresh base games)."""
        tune, confidence = self.tune, self.tune.search.confidence
        st = figures(self.stats(values, agents, tune.search.confirm_games), tune.target, confidence)
        chit, kinds = None, []
        if tune.target.chit_cap is not None:
            priced = self.stats(values, agents, tune.search.confirm_values_games, priced=True)
            chit = largest(priced, tune.players, confidence)
            kinds = kind_values(priced, tune.players, confidence)
        met, text = statement(st, tune, agents, chit)
        return {"games": st.games, "value": st.value, "low": st.low, "high": st.high, "wins": st.wins,
                "length": st.length, "length_low": st.length_low, "length_high": st.length_high,
                "chit": chit, "kinds": kinds, "met": met, "statement": text}


def _tune_fields(tune: Tune, ident: str, cseed: int) -> dict[str, Any]:
    """search.json's description of the tune: identity, file, game, seeds, budget, search, target, space."""
    space = tune.search_space
    return {
        "identity": ident, "state": "done", "tune_file": tune.file, "base": tune.base, "game": tune.game,
        "players": tune.players, "agents": tune.agents, "seed": tune.seed, "confirm_seed": cseed,
        "budget": tune.budget, "description": tune.description, "search": asdict(tune.search),
        "target": asdict(tune.target),
        "space": {"dimensions": len(space.dimensions), "log10_candidates": space.log10_size(),
                  "keys": sorted({d.pattern for d in space.dimensions}),
                  "constraints": [c.describe() for c in space.constraints]},
    }


def _write_recommended(tune: Tune, out: Path, rec: dict[str, Any]) -> dict[str, Any]:
    """recommended.toml, a standalone config with the statement; the summary's fields that name it."""
    cand = _candidate(tune, rec["values"], f"trial-{rec['trial']}")
    text, _ = candidate_config_text(tune, cand, rec["confirm"][tune.agents]["statement"])
    (out / "recommended.toml").write_text(text)
    return {"recommended_label": cand.label() or "the base config unchanged", "changes": len(cand.overrides),
            "recommended_config": os.fspath(out / "recommended.toml")}
