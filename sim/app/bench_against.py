"""`balance bench --against REV`: this tree's bench and another git revision's, side by side in one run.

The other revision is checked out in a temporary git worktree (`git worktree add --detach`, removed
afterwards whatever happens: an error, Ctrl-C) and benched there with this same interpreter, its sources
alone on PYTHONPATH and its own numba cache inside the worktree. Both trees are warmed up first, untimed
(the other one compiles every kernel: minutes). Then each repeat runs `python -m sim bench --json
--repeats 1` once in each tree, the order flipping every repeat, so that a busy spell of a shared machine
falls on both alike. Every figure both benches print is reported as the two medians and their ratio
(current / other); an old revision prints fewer or other keys, and those are listed, not compared.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sim.core.errors import ConfigError, RunFailed

#: the folder that holds the `sim` package being run (its tree is "current")
SOURCE_ROOT = Path(__file__).resolve().parents[2]
#: numeric keys of a bench's output that are settings or counts, not measurements: never compared
SETTING_KEYS = ("repeats", "seat_question_cores", "seat_question_margin_pp")
SETTING_ENDS = ("_players", "_per_repeat", "_per_search", "_question_games")
#: the untimed warm-up's scale: every kernel compiles (or loads) whatever the scale
WARM_SCALE = 0.01


def _git(root: Path, args: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise ConfigError("--against: needs git, and no `git` command is on the PATH") from None


def checkout_of(source: Path = SOURCE_ROOT) -> tuple[Path, Path]:
    """The git checkout that holds `source` (the folder of the `sim` being run) and `source`'s path inside
    it; ConfigError when it is not in one."""
    done = _git(source, ["rev-parse", "--show-toplevel"])
    if done.returncode != 0:
        raise ConfigError(f"--against: the toolkit at {source} is not in a git checkout, so there is no "
                          f"other revision to build")
    top = Path(done.stdout.strip()).resolve()
    return top, source.resolve().relative_to(top)


def resolve(root: Path, rev: str) -> str:
    """The commit `rev` names in the checkout at `root` (any git revision: a hash, HEAD~3, a branch);
    ConfigError in one line when git does not know it."""
    done = _git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"])
    if rev.startswith("-") or done.returncode != 0 or not done.stdout.strip():
        raise ConfigError(f"--against: git does not know the revision {rev!r} in {root}")
    return done.stdout.strip()


@contextmanager
def temporary_worktree(root: Path, commit: str) -> Iterator[Path]:
    """A detached worktree of `commit` in a fresh temporary folder, removed (with everything made in it)
    and pruned from the checkout's list on leaving, also on an error or Ctrl-C."""
    holder = Path(tempfile.mkdtemp(prefix="balance-bench-against-"))
    tree = holder / "tree"
    try:
        done = _git(root, ["worktree", "add", "--detach", str(tree), commit])
        if done.returncode != 0:
            raise RunFailed(f"--against: git could not check out {commit[:12]}: "
                            f"{_last_line(done.stderr)}")
        yield tree
    finally:
        _git(root, ["worktree", "remove", "--force", str(tree)])
        shutil.rmtree(holder, ignore_errors=True)
        _git(root, ["worktree", "prune"])


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(nothing on stderr)"


def bench_env(source: Path, cache: Path | None = None) -> dict[str, str]:
    """The environment a tree's bench runs in: its sources alone on PYTHONPATH and, for the other tree,
    numba's cache inside it (`cache`); the current tree keeps this process's cache."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def run_bench_once(source: Path, env: dict[str, str], scale: float, label: str) -> dict:
    """One `python -m sim bench --json --repeats 1` in the tree at `source`, with this interpreter; its
    figures. RunFailed (one line: the last of its stderr) when it fails."""
    cmd = [sys.executable, "-m", "sim", "bench", "--json", "--repeats", "1", "--scale", repr(scale)]
    done = subprocess.run(cmd, cwd=source, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RunFailed(f"--against: the bench of {label} failed (exit {done.returncode}): "
                        f"{_last_line(done.stderr)}")
    start = done.stdout.find("{")
    try:
        figures, _ = json.JSONDecoder().raw_decode(done.stdout[max(start, 0):])
    except json.JSONDecodeError:
        raise RunFailed(f"--against: the bench of {label} printed no JSON object") from None
    return figures


def alternate(run_current: Callable[[], dict], run_other: Callable[[], dict], repeats: int,
              say: Callable[[str], None] = lambda line: None) -> tuple[list[dict], list[dict]]:
    """`repeats` runs of each, alternating, the other first in even repeats and the current first in odd
    ones (a slow drift of the machine's load then falls on both); the current's and the other's figures."""
    runs: dict[str, list[dict]] = {"current": [], "other": []}
    for rep in range(repeats):
        order = ("other", "current") if rep % 2 == 0 else ("current", "other")
        for side in order:
            runs[side].append((run_current if side == "current" else run_other)())
        say(f"bench --against: repeat {rep + 1} of {repeats} done")
    return runs["current"], runs["other"]


def figure_keys(figures: dict) -> list[str]:
    """The measured figures of a bench's output, in its order: numbers, not settings (`SETTING_KEYS`,
    `SETTING_ENDS`)."""
    return [key for key, value in figures.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
            and key not in SETTING_KEYS and not key.endswith(SETTING_ENDS)]


def compare_figures(current: list[dict], other: list[dict]) -> dict[str, Any]:
    """Each figure every run of both sides has: both sides' runs, medians and their ratio (current /
    other; None when the other's median is 0), and the ratio within each repeat (runs paired in order: their
    spread shows the machine's noise); and the figures only one side has, by name."""
    def keys(runs: list[dict]) -> list[str]:
        found = [figure_keys(run) for run in runs]
        return [key for key in found[0] if all(key in f for f in found[1:])] if found else []

    mine, theirs = keys(current), keys(other)
    figures = {}
    for key in (k for k in mine if k in theirs):
        a = statistics.median(run[key] for run in current)
        b = statistics.median(run[key] for run in other)
        paired = [round(c[key] / o[key], 3) for c, o in zip(current, other, strict=False) if o[key]]
        figures[key] = {"current": a, "other": b, "ratio": round(a / b, 3) if b else None,
                        "current_runs": [run[key] for run in current],
                        "other_runs": [run[key] for run in other], "paired_ratios": paired}
    return {"figures": figures, "only_current": [k for k in mine if k not in theirs],
            "only_other": [k for k in theirs if k not in mine]}


def _number(value: float) -> str:
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"


def format_against(result: dict[str, Any]) -> str:
    """The comparison as a table: one row a figure both have (the two medians, their ratio), then the
    figures only one side printed."""
    rev = result["against"]
    rows = result["figures"]
    width = max((len(key) for key in rows), default=6)
    lines = [f"balance bench --against {rev} ({result['against_commit'][:12]}): median of "
             f"{result['repeats']} alternating runs of each tree, --scale {result['scale']:g}, one core",
             f"  current: {result['current_tree']}",
             f"  {'figure':<{width}}  {'current':>12}  {rev[:12]:>12}  {'current/' + rev[:12]:>14}  "
             f"within a repeat"]
    for key, row in rows.items():
        ratio = f"{row['ratio']:.3f}" if row["ratio"] is not None else "-"
        paired = row["paired_ratios"]
        spread = f"{min(paired):.2f} to {max(paired):.2f}" if paired else "-"
        lines.append(f"  {key:<{width}}  {_number(row['current']):>12}  {_number(row['other']):>12}  "
                     f"{ratio:>14}  {spread}")
    lines += ["  (ratio: a games/s or it/s figure above 1 means the current tree is faster, a seconds figure "
              "below 1;",
              "  within a repeat: the lowest and highest ratio of the two trees' runs in one repeat, the "
              "machine's noise)"]
    for side, name in (("only_current", "the current tree"), ("only_other", rev)):
        if result[side]:
            lines += textwrap.wrap(f"only in {name} (not compared): {', '.join(result[side])}", 108,
                                   initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines)


def _current_tree(root: Path) -> str:
    head = _git(root, ["rev-parse", "--short=12", "HEAD"]).stdout.strip() or "(no commit)"
    dirty = _git(root, ["status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    return f"{root} at {head}" + (" with uncommitted changes" if dirty else "")


def bench_against(rev: str, scale: float, repeats: int, say: Callable[[str], None],
                  source: Path = SOURCE_ROOT) -> dict[str, Any]:
    """Build `rev` in a temporary worktree, warm both trees up, run their benches `repeats` times each in
    alternation and compare the figures (`compare_figures`). ConfigError before anything is made when
    there is no checkout or git does not know `rev`."""
    root, inside = checkout_of(source)
    commit = resolve(root, rev)
    current_env = bench_env(source)
    with temporary_worktree(root, commit) as tree:
        other_source = tree / inside
        other_env = bench_env(other_source, cache=tree / ".numba-cache")
        say(f"bench --against: {rev} ({commit[:12]}) checked out in {tree}; warming it up, untimed "
            f"(numba compiles its kernels afresh: this takes minutes)")
        run_bench_once(other_source, other_env, WARM_SCALE, rev)
        say("bench --against: warming the current tree up, untimed")
        run_bench_once(source, current_env, WARM_SCALE, "the current tree")
        current, other = alternate(lambda: run_bench_once(source, current_env, scale, "the current tree"),
                                   lambda: run_bench_once(other_source, other_env, scale, rev),
                                   repeats, say)
    return {"against": rev, "against_commit": commit, "current_tree": _current_tree(root), "scale": scale,
            "repeats": repeats, **compare_figures(current, other)}
