"""`balance explore` against the obvious alternative at the same game budget: `runs` `balance tune` runs of
the explore file's space with different seeds (the explore's seed + 1 .. + runs), each at the explore's
budget divided by `runs`, keeping their fair recommendations. It counts, for each side, the confirmed fair
designs and the largest set of them that differ pairwise (mean length apart by at least LENGTH_GAP or tie
rate by at least TIES_GAP on their confirmation games: analysis.explore_report.distinct_pairs's rule).

    python scripts/explore_vs_tune.py EXPLORE_FILE [--runs 5] [--explore-out DIR] [--out DIR] [--jobs N]
        [--first-games 200] [--final-games 1600] [--confirm-games 20000] [--startup-trials 20]

(the last four set the tunes' [search] for a tiny test; at the defaults a tune's budget must be at least
22,000 games: its 20,000-game confirmation and ten 200-game first stages, which the validator checks).

The explore folder (default runs/explore/<stem>) must hold a finished explore (its summary.json). Each tune
file is written into --out (default runs/explore-vs-tune/<stem>/) with the explore file's base, players,
agents, [space], [[constraints]] and [target] copied from it (tomlkit) and a [search] table like
configs/tunes/kamakura-3p-chit-points.toml's; its tune runs into --out/tune-<seed>/ (skipped when finished).

Where a tune's figures come from: its search.json `recommended.confirm[<agents>]` (written by
sim/design/model_tune.py's Confirmations.with_agents: the confirmation's games, the largest seat deviation
with its simultaneous bounds, `met` and the statement; a mean length only when the tune has target.length,
and no tie rate: the model tune keeps sufficient statistics (games, win shares, length sums) in study.db's
"confirmations" study and writes no run directory for its confirmation). So
the recommendation's confirmation games are replayed (the same config, confirm seed and game numbers, so
the very same games; checked against the stored length and games) into tune-<seed>/confirm-replay/, a run
directory, and judged there as the explore judges its candidates: seats by the report's equivalence verdict
at the tolerance (fair: within the margin, or a small difference within it), length and ties with their
95% intervals (analysis.run_tally.read_run_tally, analysis.verdicts.run_verdicts, analysis.ties.tie_stats,
sim.design.explore_confirm.played_figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

import tomlkit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.explore_report import LENGTH_GAP, TIES_GAP, counted, distinct_pairs  # noqa: E402
from analysis.run_tally import read_run_tally  # noqa: E402
from analysis.ties import tie_stats  # noqa: E402
from analysis.verdicts import parse_margins, run_verdicts  # noqa: E402
from sim.app.runner import plan_run, simulate  # noqa: E402
from sim.design.explore import load_explore  # noqa: E402
from sim.design.explore_confirm import FAIR, played_figures  # noqa: E402
from sim.design.tune import confirm_seed  # noqa: E402
from sim.design.tune_file import load_tune  # noqa: E402
from storage.run_dir import RunDirectory  # noqa: E402

#: configs/tunes/kamakura-3p-chit-points.toml's [search], without its curve's extra checks (curve_checks = 1:
#: the only check is the confirmation itself; the checks never steer the search and are outside its budget)
SEARCH = {"method": "model", "sampler": "tpe", "first_games": 200, "growth": 2, "final_games": 1600,
          "confirm_games": 20000, "startup_trials": 20, "curve_checks": 1}
HEAD = ("description", "players", "agents", "skip_invalid")  # copied as they are (base: made absolute)
TABLES = ("space", "constraints", "target")  # copied textually
REPLAY = "confirm-replay"


# ---- the tune files --------------------------------------------------------------------------------------
def tune_text(explore_file: Path, seed: int, budget: int, search: dict[str, Any]) -> str:
    """The tune file of one run: the explore file's head, space, constraints and target, and `search`."""
    src = tomlkit.parse(explore_file.read_text())
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"`balance tune` over the space of {explore_file}, at a share of its budget "
                            "(written by scripts/explore_vs_tune.py)"))
    if "description" in src:
        doc["description"] = src["description"]
    base = Path(str(src["base"]))
    doc["base"] = str(base if base.is_absolute() else (explore_file.parent / base).resolve())
    for key in HEAD[1:]:
        if key in src:
            doc[key] = src[key]
    doc["seed"] = seed
    doc["budget"] = budget
    for key in TABLES:
        if key in src:
            doc[key] = src[key]
    table = tomlkit.table()
    table.update(search)
    doc["search"] = table
    return tomlkit.dumps(doc)


def write_tunes(explore_file: Path, out: Path, runs: int, search: dict[str, Any]) -> list[tuple[int, Path]]:
    """(seed, tune file) of every run, each written (only when changed) and read by the tune's validator
    (ConfigError when it refuses it, e.g. a budget that does not pay the search and its confirmation)."""
    tune, _ = load_explore(explore_file)
    budget = tune.budget // runs
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for seed in range(tune.seed + 1, tune.seed + runs + 1):
        path = out / f"tune-{seed}.toml"
        text = tune_text(explore_file, seed, budget, search)
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
        load_tune(path)
        files.append((seed, path))
    return files


def finished(folder: Path) -> bool:
    """A tune folder whose search and confirmation ended (search.json `state` done)."""
    summary = folder / "search.json"
    return summary.is_file() and json.loads(summary.read_text()).get("state") == "done"


def run_tune(path: Path, folder: Path, jobs: int) -> None:
    """`balance tune` of one file into its folder (a finished folder is skipped; a killed one resumes)."""
    if finished(folder):
        print(f"{folder}: finished, skipped", flush=True)
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                       os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-m", "sim", "tune", str(path), "--out", str(folder), "--jobs", str(jobs),
                    "--quiet"], check=True, cwd=ROOT, env=env)


# ---- a tune's recommendation -----------------------------------------------------------------------------
def replay(folder: Path, summary: dict[str, Any], games: int, jobs: int) -> Any:
    """The recommendation's confirmation games replayed into a run directory (the same config, seed and
    game numbers as model_search.confirm_stats's, so the same games); its tally."""
    plan = plan_run(summary["recommended_config"], summary["players"], summary["agents"],
                    confirm_seed(summary["seed"]), False)
    run_dir = folder / REPLAY
    manifest = RunDirectory(run_dir).read_manifest()
    force = manifest is not None and (manifest.config_hash, manifest.seed) != (plan.config_hash, plan.seed)
    simulate(plan, games, run_dir, jobs=jobs, force=force)
    return read_run_tally(run_dir)


def recommendation(seed: int, folder: Path, tolerance: float, jobs: int) -> dict[str, Any]:
    """One tune's row: games spent, its own verdict, and its confirmation games judged as the explore's."""
    s = json.loads((folder / "search.json").read_text())
    spent = sum(study["spent"] for study in s["studies"].values())
    row: dict[str, Any] = {"seed": seed, "folder": str(folder), "search_games": spent, "fair": False}
    rec = s.get("recommended")
    if rec is None:
        return {**row, "games": spent, "status": "no recommendation", "met": False, "n": 0}
    c = rec["confirm"][s["agents"]]
    tally = replay(folder, s, c["games"], jobs)
    seats, _, _, length = run_verdicts(tally, parse_margins(f"seats={100 * tolerance:g}"))
    figures = played_figures(seats, length, tie_stats(tally.common))
    same = int(tally.n_games) == c["games"] and math.isclose(figures["seat_dev"], c["value"], abs_tol=1e-9) \
        and (c["length"] is None or not math.isfinite(c["length"])
             or math.isclose(figures["length"], c["length"], abs_tol=1e-9))
    return {**row, "games": spent + c["games"], "n": int(tally.n_games), "values": rec["values"],
            "trial": rec["trial"], "met": c["met"], "statement": c["statement"], "status": seats.status,
            "fair": seats.status in FAIR, "confirmation": figures, "replay_matches": same,
            "tune_figures": {k: c[k] for k in ("games", "value", "low", "high", "length", "length_low",
                                               "length_high")},
            "slug": f"tune-{seed}"}


# ---- counting ----------------------------------------------------------------------------------------------
def unique(designs: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The designs with the same values (`key`) twice kept once, the first."""
    seen: dict[str, dict[str, Any]] = {}
    for d in designs:
        seen.setdefault(json.dumps(d[key], default=str), d)
    return list(seen.values())


def largest_distinct(designs: list[dict[str, Any]]) -> list[str]:
    """The slugs of the largest set of designs that differ pairwise by distinct_pairs's rule (brute force
    over subsets, largest first; the first such set in the designs' order)."""
    for k in range(len(designs), 1, -1):
        for subset in combinations(designs, k):
            if distinct_pairs(list(subset))["all_differ"]:
                return [d["slug"] for d in subset]
    return [d["slug"] for d in designs[:1]]


def explore_side(explore_out: Path) -> dict[str, Any]:
    """The explore folder's confirmed elites and their largest pairwise-distinct set."""
    summary = json.loads((explore_out / "summary.json").read_text())
    elites = unique(summary["elites"], "design")
    return {"folder": str(explore_out), "games": summary["games"], "budget": summary["budget"],
            "fair": len(elites), "distinct": largest_distinct(elites),
            "elites": [{"slug": e["slug"], "n": e["n"], "status": e["status"], **e["confirmation"]}
                       for e in elites]}


# ---- output ----------------------------------------------------------------------------------------------
def interval(c: dict[str, Any], key: str, scale: float = 1.0, digits: int = 1) -> str:
    return (f"{scale * c[key]:.{digits}f} [{scale * c[f'{key}_low']:.{digits}f}, "
            f"{scale * c[f'{key}_high']:.{digits}f}]")


def table(rows: list[dict[str, Any]]) -> str:
    """The tunes' rows as a markdown table."""
    lines = ["| seed | games spent | confirmed fair (seat verdict; tune's own) | length [95%] | ties % [95%] "
             "| largest seat dev. pp | n |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "confirmation" not in r:
            lines.append(f"| {r['seed']} | {r['games']:,} | no ({r['status']}) | - | - | - | 0 |")
            continue
        c = r["confirmation"]
        own = "met" if r["met"] else "not met"
        lines.append(f"| {r['seed']} | {r['games']:,} | {'yes' if r['fair'] else 'no'} ({r['status']}; "
                     f"{own}) | {interval(c, 'length')} | {interval(c, 'ties', 100)} | "
                     f"{100 * c['seat_dev']:.1f} | {r['n']:,} |")
    return "\n".join(lines)


def sentence(explore: dict[str, Any], tunes: dict[str, Any], runs: int) -> str:
    return (f"explore ({explore['games']:,} games): "
            f"{_side(explore, 'confirmed fair design', 'confirmed fair designs')}; "
            f"{runs} tunes at the same budget ({tunes['games']:,} games): "
            f"{_side(tunes, 'fair recommendation', 'fair recommendations')} (differ: mean length apart by >= "
            f"{LENGTH_GAP:g} or tie rate by >= {100 * TIES_GAP:g} pp, on confirmation games)")


def _side(side: dict[str, Any], one: str, many: str) -> str:
    """"4 confirmed fair designs, of which 4 differ pairwise", or "no fair recommendation"."""
    found = counted(side["fair"], one, many)
    return found if not side["fair"] else f"{found}, of which {len(side['distinct'])} differ pairwise"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--explore-out", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    for key in ("first_games", "final_games", "confirm_games", "startup_trials"):
        parser.add_argument(f"--{key.replace('_', '-')}", type=int, default=SEARCH[key],
                            help=f"the tunes' search.{key} (default {SEARCH[key]:,}; lower for a tiny test)")
    args = parser.parse_args()
    file = args.file.resolve()
    out = args.out or Path("runs") / "explore-vs-tune" / file.stem
    explore_out = args.explore_out or Path("runs") / "explore" / file.stem
    search = {**SEARCH, **{k: getattr(args, k) for k in ("first_games", "final_games", "confirm_games",
                                                         "startup_trials")}}
    tolerance = load_explore(file)[0].target.tolerance
    rows = []
    for seed, path in write_tunes(file, out, args.runs, search):
        run_tune(path, out / f"tune-{seed}", args.jobs)
        rows.append(recommendation(seed, out / f"tune-{seed}", tolerance, args.jobs))
    fair = unique([r for r in rows if r["fair"]], "values")
    tunes = {"games": sum(r["games"] for r in rows), "fair": len(fair), "distinct": largest_distinct(fair)}
    explore = explore_side(explore_out)
    text = f"{table(rows)}\n\n{sentence(explore, tunes, args.runs)}.\n"
    for r in rows:
        if r.get("replay_matches") is False:
            text += (f"\nWarning: tune {r['seed']}'s replayed confirmation differs from its stored one "
                     f"(n or seat deviation): its figures are of other games.\n")
    print(text)
    result = {"explore_file": str(file), "runs": args.runs, "search": search, "tolerance": tolerance,
              "length_gap": LENGTH_GAP, "ties_gap": TIES_GAP, "tunes": rows, "tunes_count": tunes,
              "explore": explore, "text": text}
    (out / "explore_vs_tune.json").write_text(json.dumps(result, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
