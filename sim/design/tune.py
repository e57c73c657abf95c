"""`balance tune`: search a declared space of config values for the one that best meets a balance target
racing the candidates so that clearly worse ones stop early.

The file is read by sim/design/tune_file.py, the race's decisions are pure functions in sim/design/racing.py,
and this module plays the candidates and writes the tune folder. The format, the objective and
the race are described in docs/design/notes.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from joblib.externals.loky import get_reusable_executor

from analysis import figures
from analysis.runs import read_table
from analysis.seats import seat_win_rates
from analysis.tune_report import build_tune_report
from sim.app.runner import RunPlan, plan_rules, simulate
from sim.core.agent_spec import check_models, parse_agents
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.component_balance import games_bound, kind_estimates, price
from sim.design.files import finished_games, validate, write_if_changed
from sim.design.overrides import dump_toml, path_text
from sim.design.racing import RaceResult, Standing, race, standing, verdict
from sim.design.tune_file import Candidate, Target, Tune, load_tune
from storage.run_dir import RunDirectory, check_directory, check_out, load_manifest

TUNE_MANIFEST = "tune.json"


# ---- figures of a run ----------------------------------------------------------------------------------
def run_standing(slug: str, run_dir: str | os.PathLike[str], games: int, target: Target,
                 confidence: float, *, spec: GameSpec, priced: dict[str, Any] | None = None) -> Standing:
    """A candidate's standing from its run directory's first `games` games (of `spec`'s game), and with a
    cap from the statistics `priced` of its component kinds (sim/design/component_balance.py)."""
    manifest = load_manifest(Path(run_dir) / "manifest.json")
    players = read_table(run_dir, "players")
    players = players[players["game_id"] < games]
    seats = seat_win_rates(players)
    n = int(seats["games"].max())
    length = None
    if target.length is not None:
        g = read_table(run_dir, "games")
        values = g.loc[g["game_id"] < games, spec.vocabulary.length].to_numpy(dtype=float)
        length = (float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else math.inf)
    chits = None
    if target.chit_cap is not None and priced is not None:
        estimates = kind_estimates(priced, manifest.players)
        chits = [(label, value, se) for label, value, se, _ in estimates]
    return standing(slug, seats["wins"].to_numpy(), n, target, confidence, length=length, chits=chits)


PRICED = "component_values.json"  # a candidate's priced kinds, beside its run's parts


def _play(plan: RunPlan, games: int, out: str, slug: str, target: Target, confidence: float, jobs: int = 1,
          force: bool = False, values_games: int = 0) -> tuple[str, int, Standing]:
    """Play a candidate up to `games` (resuming its run directory), and with `values_games` price its
    component kinds on that many base games of the values study (same seed: paired across candidates);
    return its standing (a worker)."""
    played = 0
    if force or finished_games(Path(out)) < games:
        played = simulate(plan, games, out, jobs=jobs, force=force).played
    priced = None
    if values_games:
        priced, now = price(plan.spec, plan_rules(plan), plan.agents, plan.seed, base_games=values_games,
                            path=Path(out) / PRICED)
        played += now
    return slug, played, run_standing(slug, out, games, target, confidence, spec=plan.spec, priced=priced)


def _play_task(task: dict[str, Any]) -> tuple[str, int, Standing]:
    """`_play` of one task's keyword arguments (a loky worker's call)."""
    return _play(**task)


# ---- the tune --------------------------------------------------------------------------------------------
@dataclass
class TuneResult:
    out: Path
    recommended: Candidate
    config_file: Path
    report: Path | None
    met: bool
    statement: str
    race_games: int
    confirm_games: int
    exhaustive_games: int
    played: int
    seconds: float
    rounds: list[dict[str, Any]] = field(default_factory=list)


def confirm_seed(seed: int) -> int:
    """The confirmation run's seed: fresh games, derived from the tune's seed."""
    return int(hashlib.sha256(f"balance-tune-confirm:{seed}".encode()).hexdigest()[:15], 16)


def candidate_config_text(tune: Tune, cand: Candidate, note: str = "",
                          command: str = "tune") -> tuple[str, dict[str, Any]]:
    """A candidate's config as standalone TOML and as the table `simulate` will read from it; `command`:
    the `balance` command that found it (tune, or explore)."""
    header = (f"Candidate {cand.slug} of `balance {command} {tune.file}` ({tune.players} players, agents "
              f"{tune.agents}).\n= {tune.base} with {cand.label() or 'nothing changed'}.\n"
              "Standalone: `balance simulate` accepts this file as it is." + (f"\n{note}" if note else ""))
    config = dict(cand.config)
    desc = str(config.get("description") or "")
    found = "tuned" if command == "tune" else "explored"
    config["description"] = (desc + " | " if desc else "") + f"{found}: {cand.label() or 'the base'}"
    config = {"game": config.pop("game"), "description": config.pop("description"), **config}
    text = dump_toml(config, header)
    return text, tomllib.loads(text)


def _plan(tune: Tune, config: dict[str, Any], path: Path, seed: int) -> RunPlan:
    rules = validate(tune.spec, config, tune.players, os.fspath(path))
    specs = parse_agents(tune.agents, tune.players, tune.spec)
    check_models(specs, tune.spec, tune.players, rules.config_hash, path)
    agents = tuple(str(a) for a in specs)
    return RunPlan(spec=tune.spec, config_path=os.fspath(path), config=config, config_hash=rules.config_hash,
                   players=tune.players, agents=agents, rotate_seats=False, seed=seed)


def default_out(tune_file: str | os.PathLike[str]) -> Path:
    return Path("runs") / "tunes" / Path(tune_file).stem


def run_tune(tune_file: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, jobs: int = 1,
             report: bool = True, force: bool = False, say: Callable[[str], None] = print) -> TuneResult:
    """Validate the tune file, race the candidates, confirm the recommendation, write the config and the
    report. A second run with the same file and folder replays nothing that finished."""
    started = time.perf_counter()
    tune = load_tune(tune_file)
    out = Path(out) if out else default_out(tune_file)
    _check_out(out)
    check_budget(tune)
    plans = _write_candidates(tune, out, force)
    result = _race(tune, out, plans, jobs, say)
    cand = {c.slug: c for c in tune.candidates}[result.winner]
    confirm, confirm_played = _confirm(tune, out, cand, jobs, say)
    met, statement = _verdict(tune, result, confirm)
    counts = _game_counts(tune, out, result, confirm)
    rec_path = out / "recommended.toml"
    text, _ = candidate_config_text(tune, cand, f"{statement}")
    rec_path.write_text(text)
    state = {**_tune_header(tune), "candidates": _candidate_rows(tune, result),
             "rounds": result.rounds, "recommended": cand.slug, "recommended_label": cand.label(),
             "race_final": _standing_dict(result.standings[result.winner]),
             "confirm": _standing_dict(confirm), "met": met, "statement": statement, **counts,
             "recommended_config": os.fspath(rec_path)}
    (out / TUNE_MANIFEST).write_text(json.dumps(state, indent=2, default=_json))
    page = None
    if report:
        page = build_tune_report(out)
    return TuneResult(out=out, recommended=cand, config_file=rec_path, report=page, met=met,
                      statement=statement, race_games=counts["race_games"],
                      confirm_games=counts["confirm_games"], exhaustive_games=counts["exhaustive_games"],
                      played=result.played + confirm_played, seconds=time.perf_counter() - started,
                      rounds=result.rounds)


def _check_out(out: Path) -> None:
    """Refuse an --out that is a file, or a non-empty folder that is not a tune folder (the rule of every
    --out, storage.run_dir.check_out)."""
    check_out(out, "tune folder", (TUNE_MANIFEST,))


def check_budget(tune: Tune) -> None:
    """Refuse a budget that cannot pay round 1 and the confirmation (with a cap, and their pricing)."""
    racing, target = tune.racing, tune.target
    first_round = len(tune.candidates) * racing.first_games + racing.confirm_games
    if target.chit_cap is not None:  # a bound on the pricing of round 1 and of the confirmation
        study = tune.spec.values
        kinds = [len(study.components(validate(tune.spec, c.config, tune.players, tune.file)))
                 for c in tune.candidates]
        first_round += sum(games_bound(k, tune.players, racing.values_at(racing.first_games)) for k in kinds)
        first_round += games_bound(max(kinds), tune.players, racing.confirm_values_games)
    if first_round > tune.budget:
        games = f"{tune.budget:,} game" + ("" if tune.budget == 1 else "s")
        priced = " with their pricing" if target.chit_cap is not None else ""
        raise ConfigError(f"{tune.file}: budget: {games} is too few: round 1 ({len(tune.candidates)} "
                          f"candidates x {racing.first_games:,} games) and the confirmation "
                          f"({racing.confirm_games:,}){priced} need {first_round:,}; give at least that")


def _write_candidates(tune: Tune, out: Path, force: bool) -> dict[str, RunPlan]:
    """Every candidate's run plan; once all are made, their run directories checked (refused, or with
    force replaced) and their standalone configs written."""
    plans: dict[str, RunPlan] = {}
    texts: dict[str, str] = {}
    for cand in tune.candidates:
        texts[cand.slug], config = candidate_config_text(tune, cand)
        plans[cand.slug] = _plan(tune, config, out / "configs" / f"{cand.slug}.toml", tune.seed)
    for cand in tune.candidates:  # every plan made first: refuse (or with force, replace) only then
        check_directory(RunDirectory(out / "candidates" / cand.slug), plans[cand.slug].identity(),
                        force=force)
    (out / "configs").mkdir(parents=True, exist_ok=True)
    (out / "candidates").mkdir(exist_ok=True)
    for slug, text in texts.items():
        write_if_changed(out / "configs" / f"{slug}.toml", text)
    return plans


class CandidatePlays:
    """The race's play function (racing.PlayFn): brings candidates to their games in their run
    directories, and with a cap prices them, on a pool of `jobs` loky workers when jobs > 1."""

    def __init__(self, tune: Tune, out: Path, plans: dict[str, RunPlan], jobs: int) -> None:
        self.tune, self.out, self.plans = tune, out, plans
        self.executor = None
        if jobs > 1:
            self.executor = get_reusable_executor(max_workers=jobs)

    def task(self, slug: str, games: int) -> dict[str, Any]:
        racing = self.tune.racing
        return {"plan": self.plans[slug], "games": games, "out": os.fspath(self.out / "candidates" / slug),
                "slug": slug, "target": self.tune.target, "confidence": racing.look_confidence(), "jobs": 1,
                "force": False,
                "values_games": racing.values_at(games) if self.tune.target.chit_cap is not None else 0}

    def __call__(self, tasks: list[tuple[str, int]]) -> list[tuple[str, int, Standing]]:
        calls = [self.task(s, n) for s, n in tasks]
        if self.executor is None or len(calls) == 1:
            return [_play_task(c) for c in calls]
        return list(self.executor.map(_play_task, calls))

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def _race(tune: Tune, out: Path, plans: dict[str, RunPlan], jobs: int, say: Callable[[str], None]):
    """Race the candidates within the budget the confirmation (and its pricing) leaves."""
    racing = tune.racing
    plays = CandidatePlays(tune, out, plans, jobs)
    pricing = PricingCost(tune, plans) if tune.target.chit_cap is not None else None
    try:
        return race([c.slug for c in tune.candidates], plays, racing,
                    tune.budget - racing.confirm_games - (pricing.confirmation() if pricing else 0),
                    say=say, tolerance=tune.target.tolerance, extra=pricing)
    finally:
        plays.close()


def _confirm(tune: Tune, out: Path, cand: Candidate, jobs: int,
             say: Callable[[str], None]) -> tuple[Standing | None, int]:
    """Fresh games of the recommended config (forced: they replace an earlier recommendation's): its
    standing (None with no confirmation) and the games played now."""
    racing = tune.racing
    if not racing.confirm_games:
        return None, 0
    cseed = confirm_seed(tune.seed)
    _, config = candidate_config_text(tune, cand)
    plan = _plan(tune, config, out / "configs" / f"{cand.slug}.toml", cseed)
    confirm_dir = os.fspath(out / "confirm")
    manifest = RunDirectory(confirm_dir).read_manifest()
    force = manifest is not None and (manifest.config_hash, manifest.seed) != (plan.config_hash, plan.seed)
    _, played, confirm = _play(plan, racing.confirm_games, confirm_dir, cand.slug, tune.target,
                               confidence=racing.confidence, jobs=jobs, force=force,
                               values_games=racing.confirm_values_games if tune.target.chit_cap is not None
                               else 0)
    tol = (100 * tune.target.tolerance,)  # never shown on the tolerance it lies off
    shown = figures.interval(100 * confirm.low, 100 * confirm.high, 2, keep_off=tol)
    say(f"confirmation: {cand.slug} on {racing.confirm_games:,} fresh games (seed {cseed}): deviation "
        f"{figures.figure(100 * confirm.value, 2)} {shown} pp")
    return confirm, played


def _verdict(tune: Tune, result: RaceResult, confirm: Standing | None) -> tuple[bool, str]:
    """Whether the target is met, and the statement: on the confirmation's games, else the race's."""
    judged = confirm or result.standings[result.winner]
    met, statement = verdict(judged, tune.target, list(result.standings.values()), tune.racing.confidence,
                             looks=len(tune.racing.schedule()), limit=result.limited_by,
                             names={c.slug: c.label() for c in tune.candidates})
    if confirm is None:
        statement += " (judged on the race's own games, with no confirmation run: they favour the winner)"
    return met, statement


def _game_counts(tune: Tune, out: Path, result: RaceResult, confirm: Standing | None) -> dict[str, int]:
    """The games spent (race, with its pricing, and confirmation) against an exhaustive grid at the same
    per-candidate sample size: every candidate as many games as the recommended one's figures rest on
    (its race games, or its confirmation games when more)."""
    race_games = result.total + (_priced_games(out, tune.candidates) if tune.target.chit_cap is not None
                                 else 0)
    confirm_games = tune.racing.confirm_games if confirm else 0
    per_candidate = max(result.games[result.winner], confirm_games)
    return {"race_games": race_games, "confirm_games": confirm_games,
            "total_games": race_games + confirm_games,
            "exhaustive_games": len(tune.candidates) * per_candidate,
            "games_per_candidate_exhaustive": per_candidate}


def _tune_header(tune: Tune) -> dict[str, Any]:
    """tune.json's description of the tune: its file, game, seeds, space, target and racing."""
    return {
        "tune_file": tune.file, "base": tune.base, "game": tune.game, "players": tune.players,
        "agents": tune.agents, "seed": tune.seed, "confirm_seed": confirm_seed(tune.seed),
        "budget": tune.budget, "description": tune.description,
        "space": [{"key": path_text(p), "values": list(v)} for p, v in tune.space],
        "target": asdict(tune.target), "racing": asdict(tune.racing), "schedule": tune.racing.schedule(),
        "invalid": [list(x) for x in tune.invalid],
    }


def _candidate_rows(tune: Tune, result: RaceResult) -> list[dict[str, Any]]:
    """tune.json's candidates: games raced, the round and reason each was dropped, its last standing."""
    return [{"slug": c.slug, "label": c.label(), "values": list(c.values), "games": result.games[c.slug],
             "dropped_round": result.dropped.get(c.slug, (None, ""))[0],
             "dropped_why": result.dropped.get(c.slug, (None, ""))[1],
             **_standing_dict(result.standings.get(c.slug))} for c in tune.candidates]


class PricingCost:
    """The race's charge for pricing (target.chit_cap): ``cost(slug, have, n)`` bounds the games that
    bringing a candidate's values study from `have` to `n` games' worth adds (component_balance.games_bound);
    `confirmation` the bound for the confirmation's base games at the dearest candidate."""

    def __init__(self, tune: Tune, plans: dict[str, RunPlan]) -> None:
        study = tune.spec.values
        self.kinds = {slug: len(study.components(plan_rules(plan))) for slug, plan in plans.items()}
        self.players, self.racing = tune.players, tune.racing

    def __call__(self, slug: str, have: int, n: int) -> int:
        before = games_bound(self.kinds[slug], self.players, self.racing.values_at(have)) if have else 0
        return games_bound(self.kinds[slug], self.players, self.racing.values_at(n)) - before

    def confirmation(self) -> int:
        return games_bound(max(self.kinds.values()), self.players, self.racing.confirm_values_games)


def _priced_games(out: Path, candidates) -> int:
    """The games the race's pricing played, from each candidate's kept statistics."""
    total = 0
    for cand in candidates:
        path = out / "candidates" / cand.slug / PRICED
        if path.is_file():
            total += json.loads(path.read_text())["stats"]["played"]
    return total


def _standing_dict(s: Standing | None) -> dict[str, Any]:
    if s is None:
        return {}
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(s).items()}


def _json(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON: {type(value)}")

