"""Regenerate docs/findings.md: run the seeded `balance` commands behind every figure of the page, then fill
the page (scripts/findings.md.j2, through scripts/findings_page.py) from their outputs and record what
made them: each agent's and config's identity (scripts/findings_identity.py), which
tests/test_findings_identity.py compares with the current code.

    make findings                                   # or: python scripts/findings.py --jobs 2
    python scripts/findings.py --render-only        # refill the page from the finished runs
    python scripts/findings.py --list               # the commands

Every command is seeded, so the figures are the same at any --jobs; a finished run is resumed, not played
again (the commands' own rule), so an interrupted regeneration continues where it stopped. The steps are
the page's single list of commands: the page shows them as a designer would type them.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a file: this tree's sim and analysis, not an installed copy

from findings_identity import identities  # noqa: E402

PAGE = ROOT / "docs" / "findings.md"
TEMPLATE = ROOT / "scripts" / "findings.md.j2"
CHART = ROOT / "docs" / "kamakura-chit-values.png"
KAMAKURA, SAKURA = "configs/kamakura/base.toml", "configs/sakura/base.toml"
CHIT_TUNE = "configs/tunes/kamakura-3p-chit-points.toml"
#: each level's cap at each table of the balance sheets: what the search rung plays in about an hour of
#: one core (docs/findings.md gives each sheet's wall time)
SHEET_GAMES = {"kamakura": 20000, "sakura": 4000}


@dataclass(frozen=True)
class Step:
    """One `balance` command of the page: its name, its arguments as the page shows them (no --out,
    --jobs, --quiet) and the folder under the output directory it writes."""

    name: str
    args: tuple[str, ...]
    folder: str

    def shown(self) -> str:
        """The command as the page shows it."""
        return "balance " + shlex.join(self.args)

    def argv(self, out: Path, jobs: int) -> list[str]:
        """The command as this script runs it: this tree's code, into `out`, replacing a run that other
        agents or configs made (--force), else resuming it."""
        return [sys.executable, "-m", "sim", *self.args, "--out", str(out / self.folder), "--jobs", str(jobs),
                "--quiet", "--force"]


def steps() -> list[Step]:
    """Every command behind the page, cheapest first. The three demo commands are `make demo`'s (the
    Makefile holds them too; tests/test_findings_identity.py checks they agree)."""
    k3 = (KAMAKURA, "--players", "3")
    return [
        Step("demo-profile", ("profile", *k3, "--levels", "greedy,expert", "--games", "2000", "--seed", "1"),
             "demo-profile-kamakura-3p"),
        Step("demo-sakura", ("simulate", SAKURA, "--players", "4", "--games", "20000", "--agents", "greedy",
                             "--seed", "1"), "demo-sakura-4p"),
        Step("demo-values", ("values", *k3, "--agents", "greedy", "--games", "150", "--seed", "1"),
             "demo-values-kamakura-3p"),
        Step("profile-4p", ("profile", KAMAKURA, "--players", "4", "--levels", "greedy,expert", "--games",
                            "2000", "--seed", "1"), "profile-kamakura-4p"),
        Step("values-kamakura", ("values", *k3, "--agents", "greedy"), "values-kamakura-3p"),
        Step("values-sakura", ("values", SAKURA, "--players", "4", "--agents", "greedy"), "values-sakura-4p"),
        Step("sweep-kamakura", ("sweep", "configs/sweeps/kamakura-readings.toml"), "sweep-kamakura-readings"),
        Step("sweep-sakura", ("sweep", "configs/sweeps/sakura-readings.toml"), "sweep-sakura-readings"),
        Step("sweep-voluntary-pass", ("sweep", "configs/sweeps/kamakura-voluntary-pass.toml"),
             "sweep-kamakura-voluntary-pass"),
        Step("tune-chit-points", ("tune", CHIT_TUNE), "tune-chit-points"),
        Step("tune-chit-points-random", ("tune", CHIT_TUNE, "--baseline", "random"), "tune-chit-points"),
        Step("tune-order-chits", ("tune", "configs/tunes/kamakura-4p-order-chits.toml"), "tune-order-chits"),
        Step("tune-order-chits-shared", ("tune", "configs/tunes/kamakura-4p-order-chits-shared-ties.toml"),
             "tune-order-chits-shared-ties"),
        Step("sheet-kamakura", ("sheet", KAMAKURA, "--games", str(SHEET_GAMES["kamakura"]), "--seed", "1"),
             "sheet-kamakura"),
        Step("sheet-sakura", ("sheet", SAKURA, "--games", str(SHEET_GAMES["sakura"]), "--seed", "1"),
             "sheet-sakura"),
    ]


#: the reports the page reads: name -> the steps' folders it covers (the demo's verdicts, as `make demo`'s
#: report gives them; the Kamakura values report's chart)
REPORTS = {"demo": ("demo-profile-kamakura-3p", "demo-sakura-4p", "demo-values-kamakura-3p"),
           "values-kamakura-3p": ("values-kamakura-3p",)}


def _option(args: tuple[str, ...], name: str, default: str = "") -> str:
    return args[args.index(name) + 1] if name in args else default


def _toml(path: str | Path) -> dict:
    with open(ROOT / path, "rb") as handle:
        return tomllib.load(handle)


def _game(config: str | Path) -> str:
    """The game a config plays (its `game` key, through its `extends` chain)."""
    from sim.core.config import load_toml

    return str(load_toml(ROOT / config)[0]["game"])


def _base(study: str) -> str:
    """A sweep or tune file's base config, relative to the repository's root."""
    path = (ROOT / study).parent / str(_toml(study)["base"])
    return str(path.resolve().relative_to(ROOT))


def uses(step: Step) -> tuple[list[tuple[str, int, str]], list[str]]:
    """The agents (game, players, agent) a step plays and the config files it reads (a sweep's or tune's
    base included), from its arguments and files."""
    command, first = step.args[0], step.args[1]
    if command in ("sweep", "tune"):
        table, base = _toml(first), _base(first)
        game = _game(base)
        players = table["players"] if isinstance(table["players"], list) else [table["players"]]
        agents = table["agents"] if isinstance(table["agents"], list) else [table["agents"]]
        agents += [a for a in [table.get("search", {}).get("confirm_agents", "")] if a]
        return [(game, int(p), a) for p in players for a in agents], [first, base]
    if command == "sheet":  # every player count, at the game's two strongest levels (sim/design/sheet.py)
        from sim import games
        from sim.design.sheet import top_levels

        spec = games.spec(_game(first))
        levels = top_levels(spec, _option(step.args, "--levels") or None).split(",")
        counts = range(spec.min_players, spec.max_players + 1)
        return [(spec.name, n, a) for n in counts for a in levels], [first]
    game, players = _game(first), int(_option(step.args, "--players"))
    levels = _option(step.args, "--levels") if command == "profile" else _option(step.args, "--agents")
    return [(game, players, a) for a in levels.split(",")], [first]


def identity_block(plan: list[Step]) -> dict:
    """The identities of every agent and config the plan uses (scripts/findings_identity.py; no game is
    played)."""
    agents, configs = [], []
    for step in plan:
        a, c = uses(step)
        agents += [x for x in a if x not in agents]
        configs += [x for x in c if x not in configs]
    return identities(agents, configs)


def run(plan: list[Step], out: Path, jobs: int) -> None:
    """Run each step, then the reports; a failing command stops here with its status."""
    commands = [(s.name, s.argv(out, jobs)) for s in plan]
    commands += [(f"report-{name}", [sys.executable, "-m", "sim", "report", *(str(out / f) for f in folders),
                                     "--out", str(out / "reports" / name), "--jobs", str(jobs)])
                 for name, folders in REPORTS.items()]
    begun = time.monotonic()
    for name, argv in commands:
        print(f"findings: {name}: {shlex.join(argv[3:])}", flush=True)
        start = time.monotonic()
        done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            raise SystemExit(f"findings: {name} failed (status {done.returncode}); the page is unchanged")
        print(f"findings: {name}: {time.monotonic() - start:.0f} s", flush=True)
    print(f"findings: every command done in {time.monotonic() - begun:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes of each command (default 1)")
    parser.add_argument("--out", default="runs/findings", help="where the runs go (default runs/findings)")
    parser.add_argument("--only", default="", help="run only these steps (comma-separated names)")
    parser.add_argument("--render-only", action="store_true", help="run nothing: refill the page")
    parser.add_argument("--list", action="store_true", help="print the steps and exit")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    plan, out = steps(), (ROOT / args.out).resolve()
    if args.list:
        print("\n".join(f"{s.name}: {s.shown()}" for s in plan))
        return 0
    only = set(filter(None, args.only.split(",")))
    if only - {s.name for s in plan}:
        unknown = ", ".join(sorted(only - {s.name for s in plan}))
        parser.error(f"--only: no step {unknown} (--list names them)")
    if not args.render_only:
        run([s for s in plan if not only or s.name in only], out, args.jobs)
    from findings_page import render  # scripts/findings_page.py: the page from the runs' outputs

    PAGE.write_text(render(out, TEMPLATE, plan, identity_block(plan), chart=CHART))
    print(f"findings: wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
