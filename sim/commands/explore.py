"""`balance explore TUNE_FILE`: many fair designs, not one. Quality-diversity search over a tune file's space
(sim/design/explore.py) into an archive that lasts and resumes, and the most distinct designs within the
tolerance written as configs."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from analysis import figures
from analysis.explore_report import counted, fairest_text, pairs_text
from sim.commands.options import RunOptions, add_run_options, examples, study_backend
from sim.design.explore import load_explore
from sim.design.explore_confirm import default_out, run_explore
from sim.design.explore_plan import plan_text
from sim.design.explore_polish import polished_text

PARSER = examples("balance explore configs/tunes/kamakura-3p-chit-points-explore.toml",
                  "balance explore my-explore.toml --jobs 2 --out runs/explore/mine")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tune_file",
                        help="TOML tune file with an [explore] table (docs/howto/explore.md): base, players, "
                             "agents, seed, budget (games), [space], [[constraints]], [target].tolerance")
    add_run_options(parser, jobs=True, **study_backend("explore"),
                    out="explore folder: archive.db, manifest.json, summary.json, elite-*.toml (default: "
                        "runs/explore/<tune file name>)",
                    force="start again a folder that holds another explore's archive",
                    quiet="no line per batch")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = RunOptions.from_args(args)
    options.check_backend()
    tune, settings = load_explore(args.tune_file)
    out = Path(options.out) if options.out else default_out(args.tune_file)
    if not options.quiet and options.backend != "dask":  # a cluster's workers are not this machine's
        options.say()(plan_text(tune, settings, options.jobs or 1))
    with options.cluster() as cluster:
        summary = run_explore(tune, settings, out, jobs=options.jobs or 1, force=options.force,
                              say=options.say(), cluster=cluster)
    print(summary_text(summary, tune.spec.vocabulary.length, time.perf_counter() - started))
    return 0


def summary_text(s: dict, unit: str, seconds: float) -> str:
    """What an explore found, in a few lines: its spending by stage, its coverage, its fairest design in
    the search, the candidates confirmed or not, and the elites."""
    lines = [f"{s['designs']:,} designs evaluated ({s['distinct_designs']:,} distinct, "
             f"{s['designs'] - s['valid']} refused); games: {s['search_games']:,} searching + "
             f"{s['refine_games']:,} refining + {s.get('polish_games', 0):,} polishing + "
             f"{s['confirm_games']:,} confirming = {s['games']:,} of a "
             f"{s['budget']:,} budget ({s['played_now']:,} played now in {seconds:.1f} s)",
             f"cells filled: {s['cells_filled']} of {s['cells']} "
             f"({100 * s['cells_filled'] / s['cells']:.0f}% coverage; measures {', '.join(s['measures'])})"]
    b = s["best"]
    if b:
        off = figures.interval(100 * b["seat_dev_low"], 100 * b["seat_dev_high"],
                               keep_off=(0.0, 100 * s["tolerance"]))  # never on the tolerance it lies off
        lines.append(f"search's fairest (at {s.get('search_agents') or s['agents']}): largest seat deviation "
                     f"{figures.figure(100 * b['seat_dev'])} pp "
                     f"{off} "
                     f"(95%, {b['games']:,} games; batch {b['iteration']}, "
                     f"design {b['slot']}), {b['length']:.1f} {unit}, top score tied in "
                     f"{100 * b['ties']:.1f}%")
    tol = 100 * s["tolerance"]
    lines += [f"polished {polished_text(p)}" for p in s.get("polished", [])]
    judge = s.get("judge_agents") or s["agents"]
    lines.append(f"refined {s['refined_designs']} designs of {s['refined']} cells at {judge}; "
                 f"{s['candidates']} cells' fairest within {100 * s['room']:.2f} pp by their refined point "
                 f"estimates (the {tol:g} pp "
                 f"tolerance less the confirmation's interval); {len(s['tried'])} tried on fresh games:")
    lines += [f"  {t['slug']}: {'fair' if t['confirmed'] else 'not offered: ' + t['reason']}"
              for t in s["tried"]]
    if s["elites"]:
        d = s["distinct"]
        lines.append(f"{counted(len(s['elites']), 'elite', 'elites')}, fair at {judge} within the {tol:g} pp "
                     f"tolerance on fresh games. {pairs_text(d, unit)}")
        lines += [f"  {e['file']}: {e['sentence']}" for e in s["elites"]]
    else:
        lines.append(f"no design confirmed fair at {judge} within the {tol:g} pp tolerance.{fairest_text(s)}")
    lines.append(f"archive: {s['out']}/archive.db; report: {s['report']}")
    return "\n".join(lines)
