"""`balance tune` over spaces too large to race (docs/howto/tune.md, docs/design/notes.md): a model-based
search with Optuna, racing on top, every finished stage kept in SQLite.

Why Optuna: its samplers are the well-kept versions of what a rule-tuner needs (TPE, CMA-ES, NSGA-II for
several objectives, random search as the baseline), its ask-and-tell interface lets our runner play the
games, and its RDB storage keeps the whole study in one SQLite file, so a tune killed and started again
resumes where it stopped.

How a trial goes (stages, racing on top, objectives, component balance), determinism and the
confirmation are described in docs/design/notes.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import IntDistribution

from sim.core.agent_spec import check_models, parse_agents
from sim.core.errors import ConfigError
from sim.design.component_balance import games_bound, largest, merge_values, play_values_chunk
from sim.design.files import validate
from sim.design.overrides import apply_overrides, path_text
from sim.design.search_space import SearchSpace
from sim.design.trial_games import GamePool, figures, merge
from sim.design.tune_file import Search, Target, Tune

STUDY_FILE = "study.db"
SEARCH_JSON = "search.json"
STUDY_NAMES = {"model": "search", "random": "random-baseline"}
#: the largest space whose candidates are listed to tell when every one is played (a racing tune's largest)
MAX_LISTED = 5000
#: a session stops when its sampler proposes this many candidates in a row that were played already and
#: play no further (a small space searched through, or a sampler settled on a few candidates): without it,
#: proposals that cost no games would never reach the budget
MAX_IDLE_TRIALS = 50


# ---- the study ----------------------------------------------------------------------------------------
def _derived_seed(*parts: Any) -> int:
    return int(hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:8], 16)


def _violation(attrs: dict[str, Any]) -> float:
    """A stored trial's total constraint violation (length, and the component cap when set): 0 feasible."""
    return float(sum(attrs.get("violation", [0.0])))


#: the violation of a fully played candidate the budget left unpriced: larger than any real one (a share)
UNPRICED = 1.0


def make_sampler(name: str, seed: int, startup: int, objectives: int):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=startup)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=max(8, startup))
    return optuna.samplers.RandomSampler(seed=seed)


def _uniform_step(d) -> int | None:
    """The step of an evenly spaced integer dimension (1 for one value), else None."""
    if not d.is_range:
        return None
    steps = {b - a for a, b in zip(d.values, d.values[1:], strict=False)}
    return steps.pop() if len(steps) == 1 else (1 if not steps else None)


def distributions(space: SearchSpace) -> dict[str, Any]:
    """One Optuna distribution per dimension: an integer range, or a choice by index."""
    out = {}
    for d in space.dimensions:
        step = _uniform_step(d)
        out[path_text(d.path)] = IntDistribution(d.values[0], d.values[-1], step=step) if step \
            else IntDistribution(0, len(d.values) - 1)
    return out


def point_values(space: SearchSpace, params: dict[str, Any]) -> list[Any]:
    """A sampled point as one value per dimension (choices by index)."""
    return [params[path_text(d.path)] if _uniform_step(d) else d.values[params[path_text(d.path)]]
            for d in space.dimensions]


def stats_of(attrs: dict[str, Any]) -> dict[str, Any] | None:
    """A stored trial's statistics so far (None before its first stage)."""
    return (attrs.get("progress") or {}).get("stats")


def played_of(attrs: dict[str, Any]) -> int:
    """The games a stored trial played itself so far."""
    return int((attrs.get("progress") or {}).get("played", 0))


@dataclass
class TrialRecord:
    number: int
    values: list[Any]
    games: int            # games this trial's figures rest on
    played: int           # games it played itself (0 when it reused an equal candidate's)
    objectives: list[float]
    low: float
    high: float
    length: float
    violation: float
    stopped_early: bool
    valid: bool = True
    why: str = ""
    #: with target.chit_cap: the component kind worth most (component_balance.largest), once priced
    chit: dict[str, Any] | None = None

    @classmethod
    def invalid(cls, number: int, values: list[Any], objectives: int, why: str) -> TrialRecord:
        """A candidate that broke a constraint or that the game refused: no game, infinite objectives."""
        return cls(number=number, values=values, games=0, played=0, objectives=[math.inf] * objectives,
                   low=math.inf, high=math.inf, length=math.nan, violation=math.inf, stopped_early=False,
                   valid=False, why=why)


@dataclass
class Playing:
    """A trial's candidate while the search plays it: what it is, and its games so far."""

    trial: Any                           # the Optuna trial
    values: list[Any]                    # one per dimension, repaired
    key: str                             # equal candidates share their games (and their values study's)
    rules: Any
    stats: dict[str, Any] | None = None  # sufficient statistics (trial_games), None before any game
    st: Any = None                       # their figures (a racing.Standing)
    own: int = 0                         # games this trial played itself
    stopped: bool = False                # racing or the budget stopped it before its last stage

    @property
    def games(self) -> int:
        return self.stats["games"] if self.stats else 0


class ModelSearch:
    """One session of a study (see the module docstring): restore what earlier sessions stored, finish a
    trial a kill interrupted, then propose and evaluate trials while the budget pays a first stage. A trial
    is evaluated in named steps: `candidate` (repair and validate the proposal), `play_stages` (racing on
    top), `check_incumbent`, `price` (the component cap) and `tell` (its objectives and constraints to
    Optuna, its record to `records`)."""

    def __init__(self, tune: Tune, out: Path, kind: str, say: Callable[[str], None],
                 budget: int | None = None) -> None:


        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.tune, self.kind, self.say = tune, kind, say
        self.space, self.search, self.target = tune.search_space, tune.search, tune.target
        assert self.space is not None and self.search is not None
        self.budget = budget if budget is not None else tune.budget
        search = self.search
        self.points = 1 if len(search.objectives) == 1 else search.confirm_points
        self.reserve = search.confirm_games * self.points  # the confirmation's games
        storage = optuna.storages.RDBStorage(f"sqlite:///{out / STUDY_FILE}")
        self.directions = ["minimize"] * len(search.objectives)
        self.study = optuna.create_study(study_name=STUDY_NAMES[kind], storage=storage,
                                         directions=self.directions, load_if_exists=True)
        self.sampler_name = "random" if kind == "random" else search.sampler
        self.schedule = search.schedule()
        self.full = full_games(search)  # the games a candidate's figures count at
        self.look = 1 - (1 - search.confidence) / len(self.schedule)
        self.dists = distributions(self.space)
        self.agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
        self.capped = self.target.chit_cap is not None
        self.values_study = None
        if self.capped:
            self.values_study = tune.spec.values
        self.per_base_game = 0.0  # the most games one priced base game cost so far: the values confirmation's
        self.pool: GamePool | None = None
        self.records: dict[int, TrialRecord] = {}
        self.by_candidate: dict[str, dict[str, Any]] = {}  # equal candidates share their games
        self.by_values: dict[str, dict[str, Any]] = {}     # and their values study's
        self.spent = 0
        self.started = time.perf_counter()
        self.seen: set[str] = set()       # the candidates proposed this session
        self.settled: set[str] = set()    # the ones that can play no further (played to the end, or idle)
        self.idle = 0                     # proposals in a row that played no game on a known candidate
        self.every: set[str] | None = None  # every candidate of a space small enough to list (once needed)
        self.stopped = ""                 # why the session stopped before its budget ran out

    # ---- the session -------------------------------------------------------------------------------------
    def run(self, jobs: int, backend: str, scheduler: str | None) -> dict[str, Any]:
        """Play the session's trials; the study's summary, with the games this session played."""
        self.pool = GamePool(jobs, backend, scheduler)
        try:
            self.restore()
            before = self.spent
            self.resume_running()
            while not self.stopped and self.spent + self.schedule[0] + self.reserve_now() <= self.budget:
                spent = self.spent
                trial = self.propose()
                self.evaluate(trial, None)
                self.report(trial.number)
                self.stopped = self.why_stop(self.records[trial.number], spent)
        finally:
            self.pool.close()
        if self.stopped:
            self.say(f"{self.kind} search stopped at {self.spent:,} of {self.budget:,} games: {self.stopped}")
        summary = _summary(kind=self.kind, sampler=self.sampler_name, spent=self.spent, budget=self.budget,
                           records=self.records, schedule=self.schedule, full=self.full)
        return summary | {"played_now": self.spent - before, "stopped": self.stopped}

    def why_stop(self, record: TrialRecord, spent: int) -> str:
        """Why the session stops after this trial ("" to go on): every candidate of a listable space
        played as far as it will go, or MAX_IDLE_TRIALS proposals in a row of candidates played already
        that played no game."""
        key = json.dumps(record.values, default=str)
        known = key in self.seen
        self.seen.add(key)
        played = self.spent > spent
        if played and record.valid and record.games < self.full:
            self.settled.discard(key)
        else:
            self.settled.add(key)
        self.idle = self.idle + 1 if known and not played else 0
        if self.idle and self.every is None and self.space.size() <= MAX_LISTED:
            repaired = (self.space.repair(list(p)) for p in itertools.product(*(d.values for d in
                                                                                 self.space.dimensions)))
            self.every = {json.dumps(v, default=str) for v in repaired if not self.space.violations(v)}
        if self.every is not None and self.every <= self.settled:
            return (f"the space is exhausted: each of its {len(self.every):,} candidates is played as far "
                    "as it goes")
        if self.idle >= MAX_IDLE_TRIALS:
            return (f"the sampler proposed {self.idle} candidates in a row that were played already "
                    "and played no game")
        return ""

    def restore(self) -> None:
        """What earlier sessions finished: their records, games spent, and statistics to share."""
        self.records.update(_stored_records(self.study, self.target, self.look))
        for frozen in self.study.get_trials(deepcopy=False):
            self.spent += played_of(frozen.user_attrs)
            if frozen.number in self.records and self.records[frozen.number].valid:
                key = json.dumps(self.records[frozen.number].values, default=str)
                self.by_candidate[key] = stats_of(frozen.user_attrs)
                kept = (frozen.user_attrs.get("progress") or {}).get("values")
                if kept:
                    self.by_values[key] = kept
                    self.per_base_game = max(self.per_base_game, kept["played"] / kept["base_games"])

    def resume_running(self) -> None:
        """A trial a kill interrupted, finished from its stored stages under its own number."""
        for frozen in self.study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
            self.say(f"resuming trial {frozen.number} from its stored stages")
            # a Trial handle on the stored running trial (Optuna has no public way to reopen one)
            self.evaluate(optuna.trial.Trial(self.study, frozen._trial_id), stats_of(frozen.user_attrs))

    def propose(self):
        """The next trial, from a sampler seeded by (tune seed, kind, trials so far)."""
        k = len(self.study.get_trials(deepcopy=False))
        self.study.sampler = make_sampler(self.sampler_name,
                                          _derived_seed("tune-sampler", self.tune.seed, self.kind, k),
                                          self.search.startup_trials, len(self.directions))
        return self.study.ask(self.dists)

    def report(self, number: int) -> None:
        """A progress line, every tenth trial and after each fully played one."""
        r = self.records[number]
        if not (number % 10 == 0 or r.games >= self.schedule[-1]):
            return
        best = best_record(self.records, self.full)
        self.say(f"{self.kind} trial {number}: {r.games:,} games"
                 + (f", seats {100 * r.objectives[0]:.2f} [{100 * r.low:.2f}, {100 * r.high:.2f}]"
                    if r.valid else f", invalid: {r.why}")
                 + (f", worth most: {r.chit['kind']} {round(100 * r.chit['value'], 1) + 0.0:+.1f} pp"
                    if r.chit else "")
                 + (" (stopped early)" if r.stopped_early else "")
                 + (f"; best {100 * best.objectives[0]:.2f} (trial {best.number})" if best else "")
                 + f"; {self.spent:,} of {self.budget:,} games, {time.perf_counter() - self.started:.0f} s")

    # ---- a trial -----------------------------------------------------------------------------------------
    def evaluate(self, trial, stats: dict[str, Any] | None) -> None:
        """Play a proposed trial (from `stats`, its stored stages, when resumed) and tell Optuna."""
        c = self.candidate(trial, stats)
        if c is None:
            return
        self.play_stages(c)
        self.check_incumbent(c)
        self.by_candidate[c.key] = c.stats
        self.tell(c)

    def candidate(self, trial, stats: dict[str, Any] | None) -> Playing | None:
        """The trial's repaired candidate with the games it already has (its own stored stages, or an equal
        candidate's); None when the candidate breaks a constraint or the game refuses it (recorded)."""
        values = self.space.repair(point_values(self.space, trial.params))
        key = json.dumps(values, default=str)
        trial.set_user_attr("values", values)
        rules, why = self.rules_of(values, trial.number)
        if why:
            self.refuse(trial, values, why)
            return None
        if stats is None and key in self.by_candidate:
            stats = dict(self.by_candidate[key])
        c = Playing(trial, values, key, rules, stats, own=played_of(trial.user_attrs))
        c.st = figures(stats, self.target, self.look) if stats else None
        return c

    def rules_of(self, values: list[Any], number: int) -> tuple[Any, str]:
        """(the game's rules of a candidate, "") or (None, why it is no candidate)."""
        broken = self.space.violations(values)
        if broken:
            return None, "breaks " + broken[0]
        overrides = {d.path: v for d, v in zip(self.space.dimensions, values, strict=True)}
        source = f"{self.tune.file} (trial {number})"
        try:
            config = apply_overrides(self.space.base, overrides, source)
            return validate(self.tune.spec, config, self.tune.players, source), ""
        except ConfigError as err:  # a candidate the game refuses: recorded, no game played
            return None, str(err)

    def refuse(self, trial, values: list[Any], why: str) -> None:
        """An invalid candidate: recorded with why, failed in the study, no game played."""
        trial.set_user_attr("invalid", why)
        self.records[trial.number] = TrialRecord.invalid(trial.number, values, len(self.directions), why)
        self.study.tell(trial.number, state=optuna.trial.TrialState.FAIL)

    def play_stages(self, c: Playing) -> None:
        """The stages the candidate lacks, until racing or the budget stops it."""
        for n in self.schedule:
            if c.stats and c.stats["games"] >= n:
                continue
            if (c.stats and c.st is not None and c.st.low > self.best_high(c.values)) \
                    or not self.affords_stage(c, n):
                c.stopped = True
                break
            self.play_to(c, n)

    def affords_stage(self, c: Playing, n: int) -> bool:
        """Whether the budget pays the stage to `n` games (always the first trial's), and, for a stage that
        ends the candidate's games, its pricing, leaving the confirmation's games."""
        pricing = self.pricing_bound(c.rules) if n == self.full else 0
        return not (self.spent + (n - c.games) + pricing + self.reserve_now() > self.budget and self.records)

    def play_to(self, c: Playing, n: int) -> None:
        """Bring the candidate to `n` games, and store its statistics and own games (one attribute, one
        write: never out of step)."""
        have = c.games
        c.stats = merge(c.stats, self.pool.play(self.tune.spec, c.rules, self.agents, self.tune.seed,
                                                start=have, count=n - have))
        self.spent += n - have
        c.own += n - have
        c.trial.set_user_attr("progress", {"stats": c.stats, "played": c.own})
        c.st = figures(c.stats, self.target, self.look)

    def check_incumbent(self, c: Playing) -> None:
        """The incumbent's check: a candidate that ends the stages better than every verified one plays on
        to `full` games before it counts, so the best is not a lucky draw of final_games."""
        if c.stopped or not self.schedule[-1] <= c.stats["games"] < self.full or self.violation(c.st) != 0 \
                or not c.st.value < min((r.objectives[0] for r in self.rivals(c.values)), default=math.inf):
            return
        pricing = self.pricing_bound(c.rules)
        if self.spent + (self.full - c.games) + pricing + self.reserve_now() > self.budget:
            c.stopped = True
        else:
            self.play_to(c, self.full)

    def tell(self, c: Playing) -> None:
        """The candidate's objectives and constraints (length, and the component cap once priced) to Optuna
        and to its record."""
        objs = self.objectives_of(c.values, c.st)
        v = self.violation(c.st)
        chit, v_chit = None, 0.0
        if self.capped and not c.stopped and c.stats["games"] >= self.full and v == 0:
            # racing on top: only a verified candidate that keeps the length is priced
            chit, v_chit = self.price(c)
        if self.sampler_name == "cmaes" and v + v_chit > 0:
            objs[0] += 1.0 + v + v_chit  # CMA-ES has no constraints: a violation costs more than any seat
        trial = c.trial
        trial.set_user_attr("violation", [v, v_chit] if self.capped else [v])
        trial.set_user_attr("chit", chit)
        trial.set_constraint("length", v)  # feasible at <= 0; TPE and NSGA-II sample with it
        if self.capped:
            trial.set_constraint("chits", v_chit)
        trial.set_user_attr("stopped_early", c.stopped)
        self.records[trial.number] = TrialRecord(
            number=trial.number, values=c.values, games=c.stats["games"], played=c.own, objectives=objs,
            low=c.st.low, high=c.st.high, length=c.st.length, violation=v + v_chit, stopped_early=c.stopped,
            chit=chit)
        self.study.tell(trial.number, objs if len(objs) > 1 else objs[0])

    # ---- the component cap -------------------------------------------------------------------------------
    def price(self, c: Playing) -> tuple[dict[str, Any] | None, float]:
        """A fully played candidate's component kinds by the values study (target.chit_cap): (the kind worth
        most, its worth over the cap; UNPRICED when the budget stopped the pricing first)."""
        kept = (c.trial.user_attrs.get("progress") or {}).get("values") or self.by_values.get(c.key)
        values_stats, played, c.stopped = self.price_kinds(c, kept)
        c.own += played
        if values_stats:
            self.by_values[c.key] = values_stats
        chit = largest(values_stats, self.tune.players, self.look) if not c.stopped else None
        return chit, max(chit["value"] - self.target.chit_cap, 0.0) if chit else UNPRICED

    def price_kinds(self, c: Playing, values_stats: dict[str, Any] | None) -> tuple[dict[str, Any] | None,
                                                                                   int, bool]:
        """The values study's base games the candidate lacks: (the statistics, games played now, whether the
        budget stopped it first). Stored with the trial."""
        have = values_stats["base_games"] if values_stats else 0
        need = self.search.values_games - have
        played = 0
        if need > 0:
            bound = games_bound(len(self.values_study.components(c.rules)), self.tune.players, need)
            if self.spent + bound + self.reserve_now() > self.budget:
                return values_stats, 0, True
            part = self.pool.play(self.tune.spec, c.rules, self.agents, self.tune.seed, start=have,
                                  count=need, worker=play_values_chunk, combine=merge_values, smallest=5)
            values_stats = merge_values(values_stats, part)
            played = part["played"]
            self.spent += played
            c.trial.set_user_attr("progress", {"stats": c.stats, "played": c.own + played,
                                               "values": values_stats})
        self.per_base_game = max(self.per_base_game, values_stats["played"] / values_stats["base_games"])
        return values_stats, played, False

    def pricing_bound(self, rules) -> int:
        """At most the games pricing a candidate costs (0 without a cap)."""
        if not self.capped:
            return 0
        return games_bound(len(self.values_study.components(rules)), self.tune.players,
                           self.search.values_games)

    # ---- figures -----------------------------------------------------------------------------------------
    def reserve_now(self) -> int:
        """The confirmation's games: the seats', and the values study's at the dearest priced candidate."""
        return self.reserve + math.ceil(self.per_base_game * self.search.confirm_values_games * self.points)

    def closeness(self, values: list[Any]) -> list[float]:
        """The objectives after `seats`: how far a candidate is from the base."""
        return [float(self.space.changes(values)) if name == "changes" else self.space.l1(values)
                for name in self.search.objectives[1:]]

    def objectives_of(self, values: list[Any], st) -> list[float]:
        return [st.value, *self.closeness(values)]

    def violation(self, st) -> float:
        """How far the mean length lies outside target.length (0 inside it, or with no range)."""
        if self.target.length is None or not math.isfinite(st.length):
            return 0.0
        lo, hi = self.target.length
        return max(lo - st.length, st.length - hi, 0.0)

    def rivals(self, values: list[Any]) -> list[TrialRecord]:
        """The verified feasible candidates no further from the base than `values` (all, with one
        objective): the ones a candidate must beat."""
        extra = self.closeness(values)
        return [r for r in self.records.values() if r.valid and r.games >= self.full and r.violation == 0
                and all(a <= b for a, b in zip(r.objectives[1:], extra, strict=True))]

    def best_high(self, values: list[Any]) -> float:
        """The upper bound of the best verified candidate that is no further from the base."""
        return min((r.high for r in self.rivals(values)), default=math.inf)


def run_search(tune: Tune, out: Path, kind: str, jobs: int, backend: str, scheduler: str | None,
               say: Callable[[str], None], budget: int | None = None) -> dict[str, Any]:
    """Run (or resume) the model-based search (kind "model") or the random baseline (kind "random") into
    ``out/study.db``; returns the study's summary (trials, curve, recommended points)."""
    return ModelSearch(tune, out, kind, say, budget).run(jobs, backend, scheduler)


def _summary(kind: str, sampler: str, spent: int, budget: int, records: dict[int, TrialRecord],
             schedule: list[int], full: int) -> dict[str, Any]:
    ordered = sorted(records.values(), key=lambda r: r.number)
    return {"kind": kind, "sampler": sampler, "spent": spent, "budget": budget,
            "records": [r.__dict__ for r in ordered], "record_objects": ordered,
            "curve": curve(records, full), "schedule": schedule, "verify_games": full}


def _stored_records(study, target: Target, look: float) -> dict[int, TrialRecord]:
    """The finished trials of a stored study as TrialRecords (complete ones with their figures, invalid
    candidates with why)."""
    out: dict[int, TrialRecord] = {}
    for frozen in study.get_trials(deepcopy=False):
        attrs = frozen.user_attrs
        if frozen.state == optuna.trial.TrialState.COMPLETE:
            st = figures(stats_of(attrs), target, look)
            out[frozen.number] = TrialRecord(
                number=frozen.number, values=attrs["values"], games=stats_of(attrs)["games"],
                played=played_of(attrs), objectives=list(frozen.values), low=st.low, high=st.high,
                length=st.length, violation=_violation(attrs), stopped_early=bool(attrs.get("stopped_early")),
                chit=attrs.get("chit"))
        elif frozen.state == optuna.trial.TrialState.FAIL and "values" in attrs:
            out[frozen.number] = TrialRecord.invalid(frozen.number, attrs["values"],
                                                     len(frozen.values or [0]), attrs.get("invalid", ""))
    return out


def read_records(tune: Tune, out: Path, kind: str) -> dict[str, Any]:
    """A stored study's summary without playing (empty when it was never run)."""
    empty = {"kind": kind, "sampler": "", "spent": 0, "budget": tune.budget, "records": [],
             "record_objects": [], "curve": [], "schedule": tune.search.schedule()}
    if not (out / STUDY_FILE).exists():
        return empty
    storage = optuna.storages.RDBStorage(f"sqlite:///{out / STUDY_FILE}")
    try:
        study = optuna.load_study(study_name=STUDY_NAMES[kind], storage=storage)
    except KeyError:
        return empty
    schedule = tune.search.schedule()
    records = _stored_records(study, tune.target, 1 - (1 - tune.search.confidence) / len(schedule))
    spent = sum(played_of(t.user_attrs) for t in study.get_trials(deepcopy=False))
    return _summary(kind=kind, sampler="random" if kind == "random" else tune.search.sampler, spent=spent,
                    budget=tune.budget, records=records, schedule=schedule, full=full_games(tune.search))


def full_games(search: Search) -> int:
    """The games a candidate's figures count at: the stages, then the incumbent's check."""
    return max(search.verify_games, search.schedule()[-1])


def best_record(records: dict[int, TrialRecord], full: int) -> TrialRecord | None:
    """The lowest seat objective among fully played candidates that meet the length constraint."""
    done = [r for r in records.values() if r.valid and r.games >= full and r.violation == 0]
    return min(done, key=lambda r: (r.objectives[0], r.number), default=None)


def curve(records: dict[int, TrialRecord], full: int) -> list[tuple[int, float]]:
    """(games spent so far, best seat objective so far among fully played feasible candidates), after each
    trial in order: the search's progress against its cost."""
    out, spent, best = [], 0, math.inf
    for r in sorted(records.values(), key=lambda r: r.number):
        spent += r.played
        if r.valid and r.games >= full and r.violation == 0:
            best = min(best, r.objectives[0])
        out.append((spent, best))
    return out


def pareto(records: Sequence[TrialRecord], full: int) -> list[TrialRecord]:
    """The fully played feasible candidates no other one beats on every objective, by the second
    objective (fewest changes first)."""
    done = [r for r in records if r.valid and r.games >= full and r.violation == 0]
    front = [r for r in done if not any(all(a <= b for a, b in zip(o.objectives, r.objectives, strict=True))
                                        and o.objectives != r.objectives for o in done)]
    unique: dict[str, TrialRecord] = {}
    for r in sorted(front, key=lambda r: (r.objectives[1:], r.objectives[0], r.number)):
        unique.setdefault(json.dumps(r.values, default=str), r)
    return list(unique.values())


def confirm_stats(tune: Tune, out: Path, values: list[Any], agents: str, games: int, seed: int, jobs: int,
                  backend: str, scheduler: str | None, priced: bool = False) -> tuple[dict[str, Any], int]:
    """A point's fresh confirmation games (``priced``: base games of the values study, pricing its
    component kinds), kept in the study file's confirmations (so a resumed tune replays none):
    (statistics, games played now)."""
    space = tune.search_space
    storage = optuna.storages.RDBStorage(f"sqlite:///{out / STUDY_FILE}")
    study = optuna.create_study(study_name="confirmations", storage=storage, load_if_exists=True)
    what = [values, agents, games, seed] + (["values"] if priced else [])
    key = hashlib.sha256(json.dumps(what, default=str).encode()).hexdigest()[:16]
    kept = study.user_attrs.get(key)
    if kept:
        return kept, 0
    overrides = {d.path: v for d, v in zip(space.dimensions, values, strict=True)}
    source = f"{tune.file} (confirmation)"
    rules = validate(tune.spec, apply_overrides(space.base, overrides, source), tune.players, source)
    specs = parse_agents(agents, tune.players, tune.spec)
    check_models(specs, tune.spec, tune.players, rules.config_hash)
    pool = GamePool(jobs, backend, scheduler)
    try:
        seating = tuple(str(a) for a in specs)
        if priced:
            stats = pool.play(tune.spec, rules, seating, seed, start=0, count=games, worker=play_values_chunk,
                              combine=merge_values, smallest=5)
        else:
            stats = pool.play(tune.spec, rules, seating, seed, start=0, count=games)
    finally:
        pool.close()
    study.set_user_attr(key, stats)
    return stats, stats["played"] if priced else games


def write_summary(out: Path, summary: dict[str, Any]) -> None:
    """search.json: written whole, then renamed into place."""
    tmp = out / f".tmp-{SEARCH_JSON}"
    tmp.write_text(json.dumps(summary, indent=2, default=_json))
    os.replace(tmp, out / SEARCH_JSON)


def _json(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Search | Target):
        return value.__dict__
    raise TypeError(f"not JSON: {type(value)}")
