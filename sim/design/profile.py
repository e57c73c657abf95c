"""`balance profile CONFIG --players N`: balance by skill (docs/howto/skill.md).

The same game played by better and worse players: for each level of ``--levels`` (``--agents`` strings for
one seat, default ``greedy,mcts:iters=250,expert``) every seat plays that level (self-play; the seats are
identical, so no rotation is needed) for G games into its own run directory ``OUT/<level slug>/``
(``mcts:iters=250`` -> ``mcts-iters-250``) through `sim.app.runner.simulate`. Every level plays with the same
``--seed``, so game i has the same deal at every level (the seed of (seed, i)): the levels differ only in
how well the players play, and the report compares them game by game (paired, `analysis.skill`).

With ``--values`` each level also gets a `balance values` run, ``OUT/<level slug>-values/`` (the same seed,
``--values-games`` base games, default the game's registry entry), so the report compares what each
component is worth at each level too.

The profile resumes like a ladder: a finished level is not played again, an interrupted one plays only
its missing games. ``OUT/profile.json`` lists the game, players, config, seed, games and levels; the
report (``OUT/report/``) is computed from the run directories' logs alone.

With ``--until-decided`` each level is played in rounds until every headline verdict of its run is decided
at the margins (sim/app/until_decided.py), G games being the cap of each level (and ``--minutes`` each
level's time cap); the levels may then end at different numbers of games, and the report pairs the games
played at every level. Run again, a decided level plays nothing.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.change_verdicts import (
    CHANGE_WORDS,
    change_verdicts,
    games_if_unchanged,
    pair_with_looks,
    stable_at_top,
    stable_text,
    tiebreak_judged,
)
from analysis.paired import same_games
from analysis.run_report import build_report
from analysis.run_tally import read_run_tally
from analysis.skill import PROFILE_MANIFEST, format_profile, read_profile
from analysis.summary_text import agents_text
from analysis.verdicts import DEFAULT_MARGINS, MIN_GAMES, duration
from sim import games
from sim.app.plain_run import first_batch, warmer
from sim.app.runner import RunPlan, plan_run, prestart_workers, simulate
from sim.app.until_decided import (
    RunJudge,
    RunsCost,
    UntilDecidedResult,
    check_caps,
    first_probe,
    first_round,
    play_until_decided,
)
from sim.app.values_run import plan_values
from sim.core.agent_spec import agent_arrays, parse_spec, resolved
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from storage.backends import StudyCluster
from storage.run_dir import RunDirectory, check_directory, mark_stopped_adaptively, read_json_object

DEFAULT_LEVELS = "greedy,mcts:iters=250,expert"
#: the rung above expert, added to the default levels of a game whose registry offers it
TOP_RUNG = "search"
DEFAULT_GAMES = 2000  # a 95% interval of about +-2 points on a seat's win rate near 1/3


@dataclass(frozen=True)
class Level:
    """One skill level: its agent string, its run directory, and (with --values) its values run."""

    name: str  # the agent string, normalised (`mcts:iters=250`)
    slug: str  # its folder name (`mcts-iters-250`)
    plan: RunPlan
    out: Path
    values_plan: RunPlan | None = None
    values_out: Path | None = None


@dataclass
class ProfileResult:
    out: Path
    levels: list[Level]
    played: int = 0
    skipped: int = 0
    values_played: int = 0
    report: Path | None = None
    text: str = ""
    seconds: float = 0.0
    #: with until_decided: each level's `sim.app.until_decided.UntilDecidedResult`, by level name
    until: dict[str, Any] = field(default_factory=dict)
    #: with until_decided: the stable-at-the-top stage's UntilDecidedResult (the two top levels, paired)
    stable: Any = None


def split_levels(text: str) -> list[str]:
    """``greedy,mcts:iters=250,c=0.2,expert`` -> ["greedy", "mcts:iters=250,c=0.2", "expert"]: a part with a
    ``=`` and no ``:`` is a further parameter of the level before it (as in ``--agents``)."""
    parts: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if "=" in part and ":" not in part and parts:
            parts[-1] += "," + part
        else:
            parts.append(part)
    return parts


def default_levels(game: GameSpec) -> str:
    """The default levels of a game: greedy, MCTS, expert and, where the game offers it, the search rung
    above expert (the top two are the ones "stable at the top" compares)."""
    return DEFAULT_LEVELS + (f",{TOP_RUNG}" if TOP_RUNG in game.agents else "")


def level_slug(agent: str) -> str:
    """The folder name of a level: its agent string with every run of other characters turned into one
    ``-`` (``mcts:iters=250`` -> ``mcts-iters-250``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", agent).strip("-.") or "level"


def parse_levels(text: str | None, game: GameSpec) -> list[tuple[str, str]]:
    """(name, slug) of each level of ``--levels`` (ConfigError on an unknown agent or parameter, a level
    given twice, fewer than two levels). Levels are compared by what they resolve to, so ``mcts`` and
    ``mcts:iters=1000`` (its default) are the same level."""
    text = default_levels(game) if text is None else text
    levels, seen, slugs = [], {}, {}
    for part in split_levels(text):
        if not part:
            raise ConfigError(f"--levels: an empty level in {text!r}")
        try:
            spec = parse_spec(part, game)
        except ConfigError as err:
            raise ConfigError(f"--levels: {str(err).removeprefix('--agents: ')}") from None
        name, full = str(spec), resolved(spec, game)
        if full in seen:
            raise ConfigError(f"--levels: {name!r} is the same level as {seen[full]!r}")
        slug = level_slug(name)
        if slug in slugs:
            raise ConfigError(f"--levels: {name!r} and {slugs[slug]!r} would share the folder {slug!r}")
        seen[full], slugs[slug] = name, name
        levels.append((name, slug))
    if len(levels) < 2:
        raise ConfigError(f"--levels: give at least two levels to compare, got {text!r}")
    return levels


def default_out(game: str, config: str | os.PathLike[str], players: int) -> Path:
    """runs/profiles/<game>-<config stem>-<N>p."""
    return Path("runs") / "profiles" / f"{game}-{Path(config).stem}-{players}p"


def read_profile_manifest(out: Path) -> dict | None:
    path = out / PROFILE_MANIFEST
    if not path.is_file():
        return None

    return read_json_object(path, "profile manifest", ("levels",))


def _check_level_dir(path: Path, plan: RunPlan, force: bool) -> None:
    """Refuse, before any game, a level's folder that holds something else (with --force a different run
    is left for `simulate` to replace; a folder that is no run directory is refused even then)."""
    run_dir = RunDirectory(path, plan.tables)
    if force and run_dir.read_manifest() is not None:
        return
    check_directory(run_dir, plan.identity(), force=False)


def _finished(path: Path, plan: RunPlan, games_asked: int) -> bool:
    """The folder holds this very run (its identity) with its first `games_asked` games finished: nothing
    to play. A different run (left by --force for `simulate` to replace) is not finished."""
    run_dir = RunDirectory(path, plan.tables)
    try:
        same = check_directory(run_dir, plan.identity(), force=False) is not None
    except ConfigError:
        return False
    return same and run_dir.finished_games() >= games_asked


def plan_profile(config: str | os.PathLike[str], players: int, levels: str | None = None, seed: int = 0,
                 out: str | os.PathLike[str] | None = None, force: bool = False, values: bool = False,
                 values_games: int | None = None) -> tuple[Path, list[Level]]:
    """Validate everything (ConfigError on anything wrong, before any game or file) and plan the levels."""
    if values_games is not None and not values:
        raise ConfigError("--values-games: only used with --values")
    # the game is the config's (its `game` key), as for `balance simulate`; the config and the player
    # count are validated before the levels are read
    spec, _, rules = games.load_config(config, players)
    game = spec.name
    parsed = parse_levels(levels, spec)
    if values and spec.values is None:
        raise ConfigError(f"--values: `balance values` knows no components of {game}")
    out = Path(out) if out else default_out(game, config, players)
    planned = []
    for name, slug in parsed:
        plan = plan_run(config, players, name, seed, rotate_seats=False)  # every seat plays the level
        try:  # the agents as the kernels get them: what only a worker would find (a missing model file)
            agent_arrays(plan.seating(0, 1), plan.spec)  # is refused now, not after the earlier levels played
        except ConfigError as err:
            raise ConfigError(f"--levels: {name}: {err}") from None
        values_plan = values_out = None
        if values:
            values_plan, values_out = plan_values(config, players, name, seed, None), out / f"{slug}-values"
        planned.append(Level(name=name, slug=slug, plan=plan, out=out / slug, values_plan=values_plan,
                             values_out=values_out))
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: --out is a file, not a profile folder")
    old = read_profile_manifest(out)
    if old is None and out.is_dir() and any(out.iterdir()) and not force:
        raise ConfigError(f"{out}: --out is a non-empty folder that is not a profile (no "
                          f"{PROFILE_MANIFEST}); choose another --out, or --force to write into it")
    if old is not None and not force:
        ours = {"game": game, "players": players, "config_hash": rules.config_hash, "seed": seed}
        differs = [k for k, v in ours.items() if old.get(k) != v]
        if differs:
            shown = "; ".join(f"{k}: profile has {old.get(k)!r}, asked {ours[k]!r}" for k in differs)
            raise ConfigError(f"{out}: made by a different profile ({shown}); use another --out, or --force "
                              "to replace its runs")
    for level in planned:
        _check_level_dir(level.out, level.plan, force)
        if level.values_plan is not None and level.values_out is not None:
            _check_level_dir(level.values_out, level.values_plan, force)
    return out, planned


def profile_manifest(out: Path, levels: list[Level], games_asked: int, values_games: int | None,
                     until_decided: bool = False) -> dict:
    """What profile.json holds: the profile's identity and, per level, its agent and folders (relative);
    with until_decided, `games` is each level's cap and ``until_decided`` is true."""
    plan = levels[0].plan
    until = {"until_decided": True} if until_decided else {}
    return {"study": "profile", "game": plan.game, "config": plan.config_path,
            "config_hash": plan.config_hash, "players": plan.players, "seed": plan.seed, "games": games_asked,
            **until, "values_games": values_games,
            "levels": [{"name": lv.name, "agent": lv.name, "slug": lv.slug,
                        "resolved_agent": lv.plan.resolved_agents[0],
                        "run_dir": os.path.relpath(lv.out, out),
                        "values_dir": os.path.relpath(lv.values_out, out) if lv.values_out else None}
                       for lv in levels]}


def run_profile(config: str | os.PathLike[str], players: int, levels: str | None = None,
                games: int = DEFAULT_GAMES, jobs: int = 1, seed: int = 0,
                out: str | os.PathLike[str] | None = None, force: bool = False,
                say: Callable[[str], None] = print, values: bool = False,
                values_games: int | None = None, until_decided: bool = False, minutes: float | None = None,
                margins: Any = None, deadline: float | None = None, report: bool = True,
                cluster: StudyCluster | None = None) -> ProfileResult:
    """Plan (refusing bad input before any game), play every unfinished level (and values run), write
    profile.json and the report (OUT/report/); every game on `cluster` (storage.backends.StudyCluster,
    the study's one Dask cluster) when given, else on `jobs` processes here. With `until_decided` every
    level plays until its verdicts at `margins` (analysis.verdicts.Margins, default the defaults) are
    decided, `games` and `minutes` its caps; `margins` are the report's too. `deadline` (time.monotonic,
    with until_decided; the sheet's): the stages (each level, then the two top levels together) share the
    time up to it, each taking an even share of what is left when it starts, in place of `minutes`.
    `report`: False leaves OUT/report/ out (the sheet writes one report of all its tables)."""
    started = time.perf_counter()
    margins = margins or DEFAULT_MARGINS
    if until_decided:
        check_caps(games, minutes)
    elif minutes is not None:
        raise ConfigError("--minutes: only used with --until-decided")
    out, planned = plan_profile(config, players, levels=levels, seed=seed, out=out, force=force,
                                values=values, values_games=values_games)
    spec = planned[0].plan.spec
    base_games = None
    if values:
        base_games = values_games or _registry_values_games(spec)
    _write_manifest(out, profile_manifest(out, planned, games, base_games, until_decided))
    result = ProfileResult(out, planned)
    if jobs > 1 and cluster is None and (until_decided or not _all_finished(planned, games, base_games)):
        prestart_workers(jobs, spec)
    order = list(enumerate(planned, 1))
    top_first = until_decided and deadline is not None and len(planned) >= 2
    if top_first:  # under a shared time cap the dear top level plays first, and the levels below it no
        order = [order[-1], *order[:-1]]  # further than it reached: pairing the top two then costs nothing
    for step, (i, level) in enumerate(order):
        label = f"[{i}/{len(planned)}] {level.name}"
        if until_decided:
            stages_left = len(planned) - step + (len(planned) >= 2)
            cap = games
            if top_first and level is not planned[-1]:
                reached = RunDirectory(planned[-1].out, planned[-1].plan.tables).finished_games()
                cap = max(MIN_GAMES, min(games, reached))
                if cap < games:
                    say(f"{label}: no further than the {reached:,} games {planned[-1].name} reached in its "
                        "time, so that the two play the same deals at no further cost")
            done = _until_decided(level, cap, _share(minutes, deadline, stages_left), margins=margins,
                                  jobs=jobs, force=force, say=say, label=label, cluster=cluster)
            result.until[level.name] = done
            result.played += done.played
            result.skipped += done.played == 0
        elif _finished(level.out, level.plan, games):
            result.skipped += 1
            say(f"{label}: finished already ({level.out})")
        else:
            res = _play_level(level, games, jobs=jobs, force=force, say=say, label=label, cluster=cluster)
            result.played += res.played
            say(f"{label}: {res.played:,} games in {res.seconds:.1f} s ({level.out})")
        if level.values_plan is not None and level.values_out is not None and base_games is not None:
            if _finished(level.values_out, level.values_plan, base_games):
                say(f"{label} values: finished already ({level.values_out})")
                continue
            res = simulate(level.values_plan, base_games, level.values_out, jobs=jobs, force=force,
                           cluster=cluster)
            result.values_played += res.played
            say(f"{label} values: {res.played:,} base games in {res.seconds:.1f} s ({level.values_out})")
    if until_decided and len(planned) >= 2:
        result.stable = _stable_until_decided(planned[-1], planned[-2], games, _share(minutes, deadline, 1),
                                              margins=margins, jobs=jobs, force=force, say=say,
                                              cluster=cluster)
        result.played += result.stable.played

    result.report = build_report([out], out / "report", margins=margins) if report else None
    result.text = format_profile(read_profile(out)) + "\n" + _stable_sentence(planned, margins)
    result.seconds = time.perf_counter() - started
    return result


def _write_manifest(out: Path, manifest: dict) -> None:
    """OUT/profile.json, written only when it changes (a profile run again leaves it as it was)."""
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(manifest, indent=2)
    path = out / PROFILE_MANIFEST
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def _all_finished(planned: list[Level], games: int, base_games: int | None) -> bool:
    """Whether every level's run (and values run, with `base_games`) holds its games: nothing to play."""
    todo = [(lv.plan, lv.out, games) for lv in planned]
    if base_games is not None:
        todo += [(lv.values_plan, lv.values_out, base_games) for lv in planned]
    return all(_finished(o, p, n) for p, o, n in todo)


def _backend(cluster: StudyCluster | None) -> str:
    """The backend the runs play on: dask on a study's cluster, else loky (sim.app.plain_run.warmer)."""
    return "loky" if cluster is None else "dask"


def _play_level(level: Level, games: int, *, jobs: int, force: bool, say: Callable[[str], None],
                label: str, cluster: StudyCluster | None = None) -> Any:
    """Play one level to `games` games: its first games timed, and when the rest takes long its plan and
    progress lines said (sim.app.plain_run). The runner's result, counting every game played now."""
    started = time.perf_counter()

    def play_to(n: int, chunk: int | None = None, progress: Any = None) -> Any:
        return simulate(level.plan, n, level.out, jobs=jobs, force=force, chunk_size=chunk, progress=progress,
                        cluster=cluster)

    runs = [RunDirectory(level.out, level.plan.tables)]
    first = first_batch(lambda n, chunk: play_to(n, chunk).played, runs, games,
                        smallest_chunk=level.plan.smallest_chunk(), jobs=jobs, who=agents_text(level.plan),
                        label=label, say=say,
                        warm=warmer(level.plan, jobs, _backend(cluster), say))
    res = play_to(games, progress=first.progress)
    res.played += first.played
    res.seconds = time.perf_counter() - started
    return res


def _until_decided(level: Level, cap: int, minutes: float | None, margins: Any, jobs: int, force: bool,
                   say: Callable[[str], None], label: str, cluster: StudyCluster | None = None) -> Any:
    """Play one level in rounds until its run's verdicts are decided (sim/app/until_decided.py)."""
    judge = RunJudge(level.out, margins)
    say(f"{label}: until every verdict is decided at its margin (cap {cap:,} games"
        + (f" or {minutes:g} min" if minutes is not None else "") + f"; {level.out})")
    try:
        done = play_until_decided(lambda n: simulate(level.plan, n, level.out, jobs=jobs, force=force,
                                                     cluster=cluster).played,
                                  judge, cap, minutes, say, first=first_round(level.plan.smallest_chunk()),
                                  plan=judge.plan, cost=RunsCost([(level.out, level.plan.tables)], jobs),
                                  probe=first_probe(level.plan.smallest_chunk(), minutes),
                                  warm=warmer(level.plan, jobs, _backend(cluster), say))
    finally:  # looked at after every round, even when interrupted
        mark_stopped_adaptively(level.out)
    verdict = "decided" if done.decided else f"undecided at the {done.reason}"
    say(f"{label}: {verdict} at {done.games:,} games, {done.played:,} played now in {done.seconds:.1f} s "
        f"({level.out})")
    return done


def _stable_sentence(planned: list[Level], margins: Any) -> str:
    """Which answers the two top levels agree on and which still move: their paired verdicts."""
    top, second = planned[-1], planned[-2]
    found = stable_at_top(read_run_tally(top.out), read_run_tally(second.out), margins)
    return stable_text(found, top.name, second.name)


class StableJudge:
    """The stable-at-the-top verdicts of a profile's two top levels, read afresh at every look; `plan` is
    the games that would decide them were nothing to change from one level to the other."""

    def __init__(self, top: Level, second: Level, margins: Any) -> None:
        self.top, self.second, self.margins = top, second, margins
        self.pair: dict[str, Any] | None = None
        self.tiebreak = False  # whether the ties question judges what the tie-break does (tiebreak_judged)

    def __call__(self) -> list:
        """A look: the paired verdicts now, intersected with those of the looks both levels record, and
        this look recorded in both manifests (RunManifest.looks)."""
        top, second = read_run_tally(self.top.out), read_run_tally(self.second.out)
        if not same_games(top, second):  # play_to brings both to the same games: a damaged level's parts
            raise ConfigError(f"{self.top.out} and {self.second.out}: the two top levels hold different "
                              "games after playing to the same number; run the profile again to mend them")
        self.pair, looks = pair_with_looks(top, second)
        unit = top.spec.vocabulary.length
        self.tiebreak = tiebreak_judged(top, second)
        verdicts = change_verdicts(second.common, top.common, self.pair, unit, self.margins, fairer=False,
                                   looks=looks, tiebreak=self.tiebreak)
        mark_stopped_adaptively(self.top.out, self.second.out, looks=(int(self.pair["games"]),))
        return verdicts

    def plan(self) -> int | None:
        return games_if_unchanged(self.pair, self.margins, self.tiebreak) if self.pair is not None else None


def _stable_until_decided(top: Level, second: Level, cap: int, minutes: float | None, margins: Any, jobs: int,
                          force: bool, say: Callable[[str], None],
                          cluster: StudyCluster | None = None) -> Any:
    """Play the two top levels on the same deals, in rounds, until every answer's change from the second
    to the top is decided at its margin: which answers the two top levels agree on and which still move."""

    def play_to(games: int) -> int:
        have = max(RunDirectory(level.out, level.plan.tables).finished_games() for level in (top, second))
        target = max(games, have)  # both levels to the same games: the same deals, paired
        return sum(simulate(level.plan, target, level.out, jobs=jobs, force=force, cluster=cluster).played
                   for level in (second, top))

    judge = StableJudge(top, second, margins)
    label = f"stable at the top ({second.name} -> {top.name})"
    say(f"{label}: until every answer's change is decided at its margin (cap {cap:,} games"
        + (f" or {minutes:.2g} min" if minutes is not None else "") + ")")
    # each level at its own pace, measured on its own games: the top level's are the dear ones
    cost = RunsCost([(second.out, second.plan.tables), (top.out, top.plan.tables)], jobs, paired=True)
    runs = [RunDirectory(level.out, level.plan.tables) for level in (second, top)]
    held = [run.finished_games() for run in runs]
    fill = cost(0) if minutes is not None and held[0] != held[1] else None
    if fill is not None and fill > 60 * minutes:  # the levels cannot even be paired in the time
        lagging = (second, top)[held.index(min(held))]
        say(f"{label}: not played: bringing {lagging.name} from {min(held):,} to {max(held):,} games, so "
            f"that both levels play the same deals, would take about {duration(fill)}, past the time cap "
            f"({minutes:.2g} min)")
        return UntilDecidedResult(games=min(held), verdicts=[], reason="time cap")
    try:
        done = play_until_decided(play_to, judge, cap, minutes, say,
                                  first=first_round(top.plan.smallest_chunk()), plan=judge.plan,
                                  words=CHANGE_WORDS, cost=cost)
    finally:  # looked at after every round, even when interrupted
        mark_stopped_adaptively(top.out, second.out)
    verdict = "decided" if done.decided else f"undecided at the {done.reason}"
    say(f"{label}: {verdict} at {done.games:,} paired games, {done.played:,} played now in "
        f"{done.seconds:.1f} s")
    return done


def _share(minutes: float | None, deadline: float | None, stages_left: int) -> float | None:
    """A stage's time cap: `minutes`, or with a `deadline` an even share of the time left among the
    stages left (at least a second: a level is judged on its first timed batch at the least)."""
    if deadline is None:
        return minutes
    return float(f"{max(1.0, (deadline - time.monotonic()) / max(1, stages_left)) / 60:.3g}")


def _registry_values_games(spec: GameSpec) -> int:
    """The game's own default number of base games of a values run (its registry entry)."""
    study = spec.values
    if study is None:  # plan_profile refused --values already
        raise ConfigError(f"--values: `balance values` knows no components of {spec.name}")
    return study.games
