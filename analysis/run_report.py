"""`balance report`: run directories -> index.html (tables and PNG charts), summary.json and CSVs.

Every figure is computed from the run directories' tables alone (analysis.runs). The sections of a game
come from its registry entry (`analysis.game_analysis.analysis_of`, in `analysis/<game>/report.py`);
the page itself is the kit of `analysis.page`. Several runs of a game are compared side by side: each table
gets one block of columns per run and charts overlay the runs.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis import charts
from analysis.causal_values import is_values_run, read_values_run
from analysis.change_verdicts import stable_at_top, stable_text
from analysis.game_analysis import analysis_of
from analysis.ladder_report import is_ladder, ladder_report_parts
from analysis.page import Section, leave_out_fixed_size
from analysis.report_page import label_runs, write_report
from analysis.run_tally import RunTally, read_run_tally
from analysis.skill import is_profile, profile_report_parts
from analysis.summary_text import agents_text
from analysis.values_report import values_section
from analysis.variants import variant_section
from analysis.verdict_section import profile_block, run_block, verdict_section, worth_block
from analysis.verdicts import (
    DEFAULT_MARGINS,
    JudgedSet,
    Margins,
    judged_rate,
    judged_sets,
    page_error,
    run_verdicts,
)
from analysis.worth_verdicts import worth_verdicts
from sim import games
from sim.core.errors import ConfigError
from storage.run_dir import check_out


def default_out(paths: list[str | os.PathLike[str]]) -> Path:
    """reports/<first run's folder name>, with "+<n>-more" for several runs."""
    names = [Path(p).resolve().name for p in paths]
    name = names[0] if len(names) == 1 else f"{names[0]}+{len(names) - 1}-more"
    return Path("reports") / name


def build_report(paths: list[str | os.PathLike[str]], out: str | os.PathLike[str] | None = None,
                 allow_partial: bool = False, jobs: int = 1, backend: str = "loky",
                 margins: Margins = DEFAULT_MARGINS, lead: list[Section] | None = None,
                 lead_sets: Sequence[JudgedSet] = ()) -> Path:
    """Read the runs (refusing bad directories first), compute every section, write the report. Each game's
    sections come from its registry entry (`GameAnalysis.sections`, in registry order); a ladder folder
    (`balance ladder`, holding ladder.json) adds its ladder section (analysis.ladder_report), a profile folder
    (`balance profile`, holding profile.json) its section "Balance by skill" (analysis.skill).

    A self-play run is read by parts (analysis.run_tally): each chunk's tally, `jobs` at a time (joblib's
    loky or dask `backend`), cached beside its parts and merged, so memory holds a chunk, not the run.
    `lead_sets`: the verdicts the `lead` sections judge, counted in the page-wide error rate."""
    refuse_out(Path(out) if out else default_out(paths))
    with charts.closing_new_figures():  # a refusal part-way leaves no figure open
        return _build(paths, out, allow_partial=allow_partial, jobs=jobs, backend=backend, margins=margins,
                      lead=lead, lead_sets=lead_sets)


def report_tallied(runs: list[RunTally], out: str | os.PathLike[str], margins: Margins = DEFAULT_MARGINS,
                   lead: list[Section] | None = None, lead_sets: Sequence[JudgedSet] = ()) -> Path:
    """The report build_report writes of self-play run directories, from their tallies already read (as
    `balance compare` judged them): the runs are not read again, so the page says what the verdicts read."""
    refuse_out(Path(out))
    with charts.closing_new_figures():
        return _build([], out, allow_partial=False, jobs=1, backend="loky", margins=margins, lead=lead,
                      tallied=runs, lead_sets=lead_sets)


def _build(paths: list[str | os.PathLike[str]], out: str | os.PathLike[str] | None, *, allow_partial: bool,
           jobs: int, backend: str, margins: Margins, lead: list[Section] | None,
           tallied: list[RunTally] | None = None, lead_sets: Sequence[JudgedSet] = ()) -> Path:
    """build_report's work, once the output folder is known to be writable (`tallied`: self-play runs
    already read, before those of `paths`)."""
    ladders = [ladder_report_parts(p, f"ladder_{i}") for i, p in enumerate(q for q in paths if is_ladder(q))]
    profiles = [profile_report_parts(p, f"skill_{i}")
                for i, p in enumerate(q for q in paths if is_profile(q) and not is_ladder(q))]
    values_runs = [read_values_run(p, allow_partial) for p in paths if is_values_run(p)]
    runs = [*(tallied or []), *(read_run_tally(p, allow_partial, jobs, backend) for p in paths
                                if not is_ladder(p) and not is_profile(p) and not is_values_run(p))]
    labels = label_runs(runs)
    sections: list[Section] = []
    summary: dict[str, Any] = {"runs": []}
    for spec in games.specs():  # registry order
        chosen = [(label, run) for label, run in zip(labels, runs, strict=True) if run.game == spec.name]
        if not chosen:
            continue
        game_sections, run_summaries = analysis_of(spec).sections(dict(chosen))
        leave_out_fixed_size(game_sections, dict(chosen))  # of runs played until decided
        sections += game_sections
        variants = variant_section(spec.vocabulary.title, dict(chosen), spec.vocabulary.length, jobs,
                                   backend)
        if variants is not None:
            sections.append(variants)
        summary["runs"] += run_summaries
    for label, run in zip(labels, runs, strict=True):
        for record in summary["runs"]:
            if record.get("label") == label:
                record["stopped_adaptively"] = run.manifest.stopped_adaptively
                if run.handicap is not None:
                    record["seat_handicap_points"] = run.handicap.to_dict(orient="records")
    named = {f"{r.path.name}" + (f" ({i + 1})" if len(values_runs) > 1 else ""): r
             for i, r in enumerate(values_runs)}
    if values_runs:
        values_sec, records = values_section(named)
        sections.insert(0, values_sec)  # the component worth leads: it is what a designer asks first
        summary["component_values"] = records
    if summary["runs"]:
        summary.update({k: v for k, v in summary["runs"][0].items() if k != "label"})
    for sec, ladder_runs, ladder_labels, record in ladders:
        sections.append(sec)
        runs, labels = runs + ladder_runs, labels + ladder_labels
        summary.setdefault("ladders", []).append(record)
    for sec, level_runs, level_labels, record in profiles:
        sections.append(sec)
        runs, labels = runs + level_runs, labels + level_labels
        summary.setdefault("profiles", []).append(record)
    if not runs and not values_runs and not ladders and not profiles:
        raise ConfigError("no run directory to report on")
    sections[:0] = [*(lead or []), _verdicts(runs, labels, margins, summary, profiles=profiles,
                                             values_runs=values_runs, lead=lead, lead_sets=lead_sets)]
    return write_report(sections, runs, labels, summary, Path(out) if out else default_out(paths),
                        values_runs=named)


def refuse_out(out: Path) -> None:
    """Refuse (ConfigError) a report folder where a file stands, at `out` or above it: checked before the
    runs are read, whose chunk statistics are cached as they are (analysis.parts), so that a refused
    report writes nothing."""
    for place in (out, *out.absolute().parents):
        if place.exists():
            if not place.is_dir():
                raise ConfigError(f"{place}: --out: a file stands there, not a folder; choose another --out")
            break
    # as every --out: a non-empty folder that is not a report (`--out /`, a run directory) is not written into
    check_out(out, "report folder", ("summary.json", "index.html"))


def _verdicts(runs: list, labels: list[str], margins: Margins, summary: dict[str, Any], *,
              profiles: list, values_runs: list, lead: list[Section] | None = None,
              lead_sets: Sequence[JudgedSet] = ()) -> Any:
    """The verdicts section of every self-play run (profile levels included) and, per profile, whether
    its answers are stable at the top; summary.json's ``verdicts``: label -> the verdict records, and each
    profile record's ``stable_at_top``. The page-wide error rate (analysis.verdicts.page_error, counting
    `lead_sets`, the sets the `lead` sections judge) is stated in the first lead section, else in this one."""
    blocks = []
    shown: list = []  # every verdict on the page: what its reading note may speak of
    rates: dict[str, list[float]] = {"runs": [], "values": [], "profiles": []}  # each judged set's rate
    summary["verdicts"] = {}
    for label, run in zip(labels, runs, strict=True):
        found = run_verdicts(run, margins)
        shown += found
        rates["runs"].append(judged_rate(found))
        blocks.append(run_block(label, run.game, agents_text(run.manifest), found))
        summary["verdicts"][label] = [v.record() for v in found]
    for values_run in values_runs:
        found = worth_verdicts(values_run, margins)
        shown += found
        rates["values"].append(judged_rate(found))
        blocks.append(worth_block(values_run.path.name, found))
        summary["verdicts"][values_run.path.name] = [v.record() for v in found]
    for sec, level_runs, level_labels, record in profiles:
        if len(level_runs) < 2:
            continue
        top, below = level_labels[-1].split("/")[-1], level_labels[-2].split("/")[-1]
        found = stable_at_top(level_runs[-1], level_runs[-2], margins)
        shown += found
        rates["profiles"].append(judged_rate(found))
        text = stable_text(found, top, below)
        sec.notes.insert(0, f"<b>{text}</b>")
        blocks.append(profile_block(sec, text, found))
        record["stable_at_top"] = {"text": text, "verdicts": [v.record() for v in found]}
    page = page_error([*lead_sets, *_judged_sets(rates)])
    if lead and not page.alone:
        lead[0].html.append(f"<p class='meta page-error'><b>{html.escape(page.sentence)}</b></p>")
    return verdict_section(blocks, margins, shown, sequences=bool(runs),
                           fixed_size=any(not run.manifest.stopped_adaptively for run in runs),
                           page=None if lead else page)


#: how the page names each kind of judged set: (one, several)
SET_WORDS = {"runs": ("run's own verdicts", "runs' own verdicts"),
             "values": ("values study's worth verdicts", "values studies' worth verdicts"),
             "profiles": ("profile's stable-at-the-top verdicts", "profiles' stable-at-the-top verdicts")}


def _judged_sets(rates: dict[str, list[float]]) -> list[JudgedSet]:
    """The report's judged sets, by kind: those judging something at their rate, those judging nothing
    (descriptions only) at 0."""
    return [s for kind, found in rates.items() for s in judged_sets(found, *SET_WORDS[kind])]
