"""`balance compare BASE VARIANT --players N`: did the change make the game fairer?

Both configs are played by the same agents on the same seeds (game i of each is dealt from the seed of
(seed, i)), each into its own run directory (OUT/base, OUT/variant: resumable and locked like `balance
simulate`), and every headline question's change is judged as a paired verdict in words
(analysis.change_verdicts). The report (OUT/report) opens with the comparison: `run_compare` plays and judges,
and hands back the text of the verdicts as soon as they are decided; `write_compare_report` writes the report
after, from the same tallies (docs/design/notes.md, "The compare walk").
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.change_verdicts import (
    CHANGE_WORDS,
    COMPARE_NAMES,
    change_verdicts,
    compare_split,
    fairness_lead,
    level_text,
    pair_with_looks,
)
from analysis.readings import rule_readings
from analysis.run_report import report_tallied
from analysis.run_tally import read_run_tally
from analysis.summary_text import agents_text
from analysis.verdict_section import comparison_section
from analysis.verdicts import (
    JudgedSet,
    PageError,
    judged_rate,
    judged_sets,
    judged_split,
    page_error,
    parse_margins,
    run_verdicts,
    seconds_per_game,
    split_text,
)
from sim.app.expert_check import check_plan, say_checks
from sim.app.plain_run import first_batch, warmer
from sim.app.runner import interrupted, plan_run, prestart_workers, simulate
from sim.app.until_decided import (
    DEFAULT_CAP,
    RunsCost,
    check_caps,
    first_probe,
    first_round,
    play_until_decided,
)
from sim.core.errors import ConfigError, Interrupted
from storage.run_dir import RunDirectory, check_out, mark_stopped_adaptively

DEFAULT_GAMES = 2000


@dataclass(frozen=True)
class CompareRequest:
    """What `balance compare` is asked: the two configs, how they are played and judged (the command's
    options, without argparse)."""

    base: str                        # the base config file
    variant: str                     # the variant config file (the same game)
    players: int
    agents: str = "expert"
    games: int | None = None         # each config's games (default DEFAULT_GAMES; until_decided: the cap)
    seed: int = 0
    jobs: int | None = None          # worker processes (default: the cores)
    backend: str = "loky"            # how chunks run: loky processes, or dask
    scheduler: str | None = None     # with dask: the scheduler's address (default: a local cluster)
    out: str | None = None           # the compare folder (default: `default_out`)
    force: bool = False              # replace run directories made by a different run
    until_decided: bool = False      # play both in rounds until every verdict is decided
    minutes: float | None = None     # with until_decided: the time cap
    margin: str | None = None        # --margin's text (analysis.verdicts.parse_margins)
    questions: str | None = None     # --questions' text (analysis.questions.parse_questions)
    model_check: bool = True         # check a model on a config it was not trained on (sim.app.expert_check)


@dataclass
class Comparison:
    """What `run_compare` found: both runs' folders, the verdicts and the text printed; the report's page
    once `write_compare_report` has written it."""

    out: Path
    verdicts: list = field(default_factory=list)
    text: str = ""
    report: Path | None = None
    played: int = 0
    margins: Any = None
    pair: Any = field(default=None, repr=False)  # the runs and the tallies the verdicts read (`_Pair`)


def default_out(base: str, variant: str, players: int, agents: str, seed: int) -> Path:
    name = f"{Path(base).stem}-vs-{Path(variant).stem}-{players}p-{agents}-seed{seed}"
    return Path("runs") / "compare" / re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)


def config_changes(base: dict[str, Any], variant: dict[str, Any]) -> list[str]:
    """The config keys whose values differ, as "key: base -> variant" (dotted keys, list items [i])."""
    def flat(value: Any, prefix: str = "") -> dict[str, Any]:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k, v in value.items():
                if k not in ("description", "extends"):
                    out.update(flat(v, f"{prefix}.{k}" if prefix else k))
            return out
        if isinstance(value, list) and value and isinstance(value[0], dict):
            out = {}
            for i, v in enumerate(value):
                out.update(flat(v, f"{prefix}[{i}]"))
            return out
        return {prefix: value}

    def shown(value: Any) -> str:
        return "(none)" if value is None else json.dumps(value)

    a, b = flat(base), flat(variant)
    return [f"{k}: {shown(a.get(k))} -> {shown(b.get(k))}" for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)]


#: with --minutes, the seconds of the cap kept aside for the report written after the last round (two runs'
#: sections and the comparison: 8 to 12 s here on a busy machine), at most a quarter of the cap
REPORT_SECONDS = 12.0


def run_compare(ask: CompareRequest, say: Any) -> Comparison:
    """Plan both runs (refusing bad input before any game), play them and judge the changes: the verdicts
    and their text, before any report is built (`write_compare_report` writes it, from the same tallies)."""
    margins = parse_margins(ask.margin, ask.questions)
    games = ask.games
    if ask.until_decided:
        games = games or DEFAULT_CAP
        check_caps(games, ask.minutes)
    elif ask.minutes is not None:
        raise ConfigError("--minutes: only used with --until-decided")
    games = games or DEFAULT_GAMES
    base = plan_run(ask.base, ask.players, ask.agents, ask.seed, False)
    variant = plan_run(ask.variant, ask.players, ask.agents, ask.seed, False)
    if base.game != variant.game:
        raise ConfigError(f"{ask.variant}: a {variant.game} config cannot be compared with {ask.base}, "
                          f"a {base.game} config")
    jobs = ask.jobs or os.cpu_count() or 1
    out = Path(ask.out) if ask.out else default_out(ask.base, ask.variant, ask.players, ask.agents, ask.seed)
    check_out(out, "compare folder", ("base/manifest.json", "variant/manifest.json", "report/summary.json"))
    if ask.backend == "loky":
        prestart_workers(jobs, base.spec)
    for plan in (base, variant) if ask.model_check else ():
        say_checks(check_plan(plan, jobs, say), say)
    pair = _Pair(base, variant, out, jobs, ask)
    try:
        return _compared(pair, margins, games, say)
    except KeyboardInterrupt:  # while playing, judging between rounds or writing the report
        raise pair.interrupted() from None


def _compared(pair: _Pair, margins: Any, games: int, say: Any) -> Comparison:
    """Play the pair (to `games`, or until decided with `games` the cap) and judge it."""
    ask, out = pair.ask, pair.out
    base, variant = pair.plans["base"], pair.plans["variant"]
    result = Comparison(out, margins=margins, pair=pair)
    if ask.until_decided:
        try:
            cost = RunsCost([(out / name, plan.tables) for name, plan in pair.plans.items()], pair.jobs)
            done = play_until_decided(pair.play_to, lambda: pair.judge(margins, look=True), games,
                                      ask.minutes, say,
                                      first=first_round(base.smallest_chunk()), words=CHANGE_WORDS,
                                      cost=cost, probe=first_probe(base.smallest_chunk(), ask.minutes),
                                      reserve=min(REPORT_SECONDS, 15 * (ask.minutes or 0)),
                                      warm=warmer(base, pair.jobs, ask.backend, say))
        finally:  # looked at after every round, even when interrupted: only its sequences stay valid
            mark_stopped_adaptively(*(out / name for name in pair.plans))
        result.played = done.played
    else:
        runs = [RunDirectory(out / name, plan.tables) for name, plan in pair.plans.items()]
        first = first_batch(pair.play_to, runs, games, smallest_chunk=base.smallest_chunk(), jobs=pair.jobs,
                            who=agents_text(base), label="compare", say=say,
                            warm=warmer(base, pair.jobs, ask.backend, say))
        result.played = first.played + pair.play_to(games, progress=first.progress)
    result.verdicts = pair.judge(margins)  # (read again: the manifests now say how it stopped)
    result.text = _text(ask, base, variant, pair, result.verdicts)
    return result


def write_compare_report(result: Comparison) -> Path:
    """The comparison's report (OUT/report, opening with the comparison) from the tallies its verdicts
    read: its page."""
    pair = result.pair
    try:
        result.report = _report(pair, result.verdicts, result.margins, result.out,
                                _changes(pair.plans["base"], pair.plans["variant"]))
    except KeyboardInterrupt:  # while writing the report: the games are kept all the same
        raise pair.interrupted() from None
    return result.report


class _Pair:
    """The two runs of a comparison, played to the same number of games and judged together."""

    def __init__(self, base: Any, variant: Any, out: Path, jobs: int, ask: CompareRequest) -> None:
        self.plans = {"base": base, "variant": variant}
        self.out, self.jobs, self.ask = out, jobs, ask
        self.played = 0
        self.last: tuple[Any, Any, dict[str, Any]] = ()  # the tallies of the last look (`judge`)

    def play_to(self, games: int, chunk: int | None = None, progress: Any = None) -> int:
        """Play both runs to `games` games (in chunks of `chunk`; `progress(games)` as each lands)."""
        played = 0
        for name, plan in self.plans.items():
            played += simulate(plan, games, self.out / name, jobs=self.jobs, backend=self.ask.backend,
                               scheduler=self.ask.scheduler, force=self.ask.force, chunk_size=chunk,
                               progress=progress).played
        self.played += played
        return played

    def interrupted(self) -> Interrupted:
        """What Ctrl-C says of the pair: the games both runs kept, and how to go on."""
        kept = {name: RunDirectory(self.out / name, plan.tables).finished_total()
                for name, plan in self.plans.items()}
        return interrupted(sum(kept.values()), self.out,
                           f" (base {kept['base']:,}, variant {kept['variant']:,})")

    def judge(self, margins: Any, look: bool = False) -> list:
        """The verdicts of both runs as they are; `look`: a look of --until-decided, recorded in both
        manifests (RunManifest.looks) so that every later verdict is intersected with this one's."""
        base, variant, pair, verdicts = judge_folder(self.out, margins)
        self.last = base, variant, pair
        if look:
            mark_stopped_adaptively(*(self.out / name for name in self.plans), looks=(int(pair["games"]),))
        return verdicts


def reading_changes(base: Any, variant: Any) -> str:
    """The rules the originals leave open (docs/rules.md's readings) that the two runs read differently, as
    "tie_break = shared (base: last_in_order)"; "" when they read them alike."""
    b, v = rule_readings(base), rule_readings(variant)
    return "; ".join(f"{k} = {v.get(k)} (base: {b.get(k)})" for k in sorted(set(b) | set(v))
                     if b.get(k) != v.get(k))


def _changes(base: Any, variant: Any) -> list[str]:
    return config_changes(base.config, variant.config)


def _text(ask: CompareRequest, base: Any, variant: Any, pair: _Pair, verdicts: list) -> str:
    b, v, p = pair.last  # the tallies `judge` read
    head = (f"compare: {ask.base} (base) with {ask.variant} (variant): {base.game}, {ask.players} "
            f"players, {agents_text(b.manifest)}, seed {ask.seed}, {int(p['games']):,} games each on the "
            "same seeds (paired game by game)")
    changes = _changes(base, variant)
    what = "; ".join(changes) if changes else "nothing (the same rules)"
    lines = [head, f"  what the variant changes: {what}"]
    readings = reading_changes(b, v)
    if readings:
        lines.append(f"  the variant reads the original rules differently ({readings}): the changes below "
                     "are that reading's, not a new rule's")
    margins = parse_margins(ask.margin, ask.questions)
    own = [run_verdicts(run, margins)[0] for run in (b, v)]
    lead = fairness_lead(*own, verdicts, level_text(b.manifest.agents))
    lines += [f"  {lead}"] if lead else []
    lines += [f"  {verdict.sentence}" for verdict in verdicts]
    lines += own_seat_lines(own)
    lines.append(f"  {compare_error_text(ask)}")
    page = compare_page_error(sum(compare_split(margins, ask.players).values()), own)
    if not page.alone:  # else the line above says it all
        lines.append(f"  {page.sentence}")
    return "\n".join(lines)


def own_seat_lines(own: list[Any]) -> list[str]:
    """Each config's own seats verdict (the base's, then the variant's: its run on its own,
    analysis.verdicts.run_verdicts), so that a change that left both unfair, or both fair, is said as such
    beside the change; with its run's own error rate, or as a description when the seats are not asked."""
    lines = []
    for name, seats in zip(("base", "variant"), own, strict=True):
        rate = judged_rate([seats])
        said = f"its own {100 * rate:.3g}% error rate" if rate else "a description, not judged"
        lines.append(f"  The {name} on its own ({said}): {seats.sentence}")
    return lines


def compare_page_error(rate: float, own: list[Any]) -> PageError:
    """What `balance compare` prints in all: the comparison's verdicts at `rate` and each config's own
    seats verdict (`own`) at its run's rate, added up (analysis.verdicts.page_error)."""
    rates = [judged_rate([seats]) for seats in own]
    sets = [JudgedSet("the comparison", rate)]
    sets += judged_sets(rates, "config's own seats verdict", "configs' own seats verdicts")
    return page_error(sets, where="Above,")


def compare_error_text(ask: CompareRequest) -> str:
    """How to read the intervals, and the comparison's error rate split over its asked questions."""
    split = compare_split(parse_margins(ask.margin, ask.questions), ask.players)
    return ("(intervals are confidence sequences of the paired per-game changes, valid however often the "
            "runs were looked at, simultaneous within each question; the chance that any of the comparison's "
            f"verdicts is wrong is at most {split_text(split, COMPARE_NAMES)}; descriptions carry their own "
            "95% intervals; --questions and --margin choose what is judged and against what)")


def _report(pair: _Pair, verdicts: list, margins: Any, out: Path, changes: list[str]) -> Path:
    """The report of both runs' tallies as the last look read them (`_Pair.last`), opening with the
    comparison."""
    base, variant, _ = pair.last
    own = [run_verdicts(run, margins)[0] for run in (base, variant)]
    answer = fairness_lead(*own, verdicts, level_text(base.manifest.agents))
    lead = comparison_section(verdicts, changes, pair.plans["base"].game, answer=answer)
    compared = JudgedSet("the comparison", sum(judged_split(verdicts).values()))
    return report_tallied([base, variant], out / "report", margins=margins, lead=[lead], lead_sets=[compared])


def judge_folder(out: Path, margins: Any) -> tuple[Any, Any, dict[str, Any], list]:
    """A compare folder's two runs (OUT/base, OUT/variant) read and judged as `balance compare` judges
    them: (base tally, variant tally, pair sums, change verdicts)."""
    return judge_runs(out / "base", out / "variant", margins)


def judge_runs(base_dir: Path, variant_dir: Path, margins: Any) -> tuple[Any, Any, dict[str, Any], list]:
    """Two run directories played on the same seeds, read and judged as `balance compare` judges its
    pair (`judge_folder` for a compare folder; `balance explore` confirms its elites against one base run
    this way): (base tally, variant tally, pair sums, change verdicts)."""
    base, variant = read_run_tally(base_dir), read_run_tally(variant_dir)
    unit = base.spec.vocabulary.length
    pair, looks = pair_with_looks(variant, base)
    paces = [seconds_per_game(run.manifest) for run in (base, variant)]
    pace = sum(paces) if all(paces) else None  # both configs are played
    return base, variant, pair, change_verdicts(base.common, variant.common, pair, unit, margins=margins,
                                                pace=pace, looks=looks)
