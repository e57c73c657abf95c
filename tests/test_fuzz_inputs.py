"""Bad input never crashes, hangs or writes.

Hypothesis mutates what a designer hands `balance`: a config (a value of the wrong type, NaN, a huge number,
a date, a key removed or misspelt), an option of a command (odd numbers, empty strings, agent parameters),
the files of a run directory (cut, garbage, odd JSON, deleted) and a sweep or tune file, all at tiny sizes,
and runs the command in-process. Every outcome must be one of: accepted (exit 0), or refused (exit 2) in
one line with nothing written anywhere under the test's folder. An exception escaping `main` is a traceback
the user would see; a call past BOUND seconds is a hang. The draws are derandomized, so the suite
tries the same inputs on every run and a failure reproduces; FUZZ_FRESH=1 draws new ones (hypothesis
prints the seed of a failure) and FUZZ_EXAMPLES sets the draws per family:
`FUZZ_FRESH=1 FUZZ_EXAMPLES=100 pytest tests/test_fuzz_inputs.py tests/test_fuzz_writers.py -s`.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import io
import json
import math
import os
import shutil
import signal
import tomllib
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.commands import main

ROOT = Path(__file__).resolve().parents[1]
BOUND = 60  # seconds: far above any tiny run here; past it a call counts as a hang
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))  # inputs per family: the file runs in about a minute
FRESH = os.environ.get("FUZZ_FRESH") == "1"  # new draws rather than the suite's fixed ones

ODD = [math.nan, math.inf, -math.inf, -1, 0, 1, 0.5, 2**63, 10**30, "", "x", "nan", True, [], [1, "a"], {},
       {"a": 1}, datetime.date(2020, 1, 1), "a\x00b", [[[[[1]]]]]]
ODD_WORDS = ["", "x", "nan", "inf", "-1", "0", "0.5", "1e30", "10000000000", "2000000000", "-0", " 3",
             "3,", "a:b=c", "\x00", "9" * 40]
FUZZ = settings(deadline=None, max_examples=EXAMPLES, derandomize=not FRESH,
                suppress_health_check=list(HealthCheck))
RESULTS: dict[str, dict[str, int]] = {}  # family -> outcome -> count, for the closing note


#: what libraries keep in the home folder, not the tool: matplotlib writes its font list to ~/.cache or
#: ~/.config/matplotlib the first time a process draws, wherever HOME points
LIBRARY_CACHES = ("home/.cache", "home/.config")


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so a broad `except Exception` cannot swallow it."""


def _alarm(signum, frame):
    raise Hang()


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file()
                                                 else "dir")
            for p in sorted(folder.rglob("*")) if not p.is_symlink()}


def run_balance(argv: list[str], family: str, watched: Path, outputs: tuple[Path, ...] | None = None,
                stdin: str = "") -> tuple[int, str]:
    """main(argv) with a time bound; asserts the outcome's contract and counts it under `family`. With
    `outputs`, an accepted call may change files only inside them. The home folder (`~`) is
    watched/home, so a write there is seen too; `stdin` is what a person would type."""
    home = watched / "home"
    home.mkdir(exist_ok=True)
    before = _tree(watched)
    err = io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, BOUND)
    try:  # in the watched folder: a relative path an odd option makes lands there too
        with (contextlib.chdir(watched), contextlib.redirect_stderr(err),
              contextlib.redirect_stdout(io.StringIO()), _home(home), _stdin(stdin)):
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse's refusals
                code = stop.code if isinstance(stop.code, int) else 2
    except Hang:
        pytest.fail(f"no answer within {BOUND} s: balance {' '.join(argv)}")
    except Exception as exc:  # noqa: BLE001 - any escape is a traceback the user would see
        pytest.fail(f"traceback ({type(exc).__name__}: {exc}) from: balance {' '.join(argv)}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    said = err.getvalue()
    assert code in (0, 2), f"exit {code} from balance {' '.join(argv)}: {said}"
    if code == 2:
        assert len(said.strip().splitlines()) == 1, f"not one line: balance {' '.join(argv)}: {said}"
        assert "Traceback" not in said
        assert _tree(watched) == before, f"a refusal wrote files: balance {' '.join(argv)}: {said}"
    if code == 0 and outputs is not None:
        after = _tree(watched)
        inside = [out.relative_to(watched).as_posix() for out in outputs]
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        strays = sorted(k for k in changed if not any(k == o or k.startswith(o + "/") for o in inside)
                        and not k.startswith(LIBRARY_CACHES))
        assert not strays, f"wrote outside its output {inside}: {strays[:5]}: balance {' '.join(argv)}"
    outcome = "refused" if code == 2 else "accepted"
    RESULTS.setdefault(family, {}).setdefault(outcome, 0)
    RESULTS[family][outcome] += 1
    return code, said


@contextlib.contextmanager
def _home(folder: Path):
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(folder)
    try:
        yield
    finally:
        os.environ["HOME"] = old if old is not None else ""


@contextlib.contextmanager
def _stdin(text: str):
    import sys

    old, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = old


def _leaves(table, prefix=()):
    """Every key path of a parsed TOML document (tables and arrays walked)."""
    items = table.items() if isinstance(table, dict) else enumerate(table)
    for key, value in items:
        yield (*prefix, key)
        if isinstance(value, (dict, list)):
            yield from _leaves(value, (*prefix, key))


def _mutate(document: dict, path: tuple, how: str, value) -> dict:
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if how == "delete" and isinstance(parent, dict):
        del parent[last]
    elif how == "misspell" and isinstance(parent, dict):
        parent[f"{last}x"] = parent.pop(last)
    else:
        parent[last] = value
    return document


def _dump(document: dict) -> str:
    try:
        return tomlkit.dumps(document)
    except (TypeError, ValueError):  # a value TOML cannot hold (an array of mixed kinds in some versions)
        return tomlkit.dumps({k: v for k, v in document.items() if not isinstance(v, list)})


mutation = st.tuples(st.integers(0, 10**6), st.sampled_from(["value", "value", "delete", "misspell"]),
                     st.sampled_from(ODD))


def _mutated_file(source: Path, pick: tuple, folder: Path) -> Path:
    document = tomllib.loads(source.read_text())
    index, how, value = pick
    paths = list(_leaves(document))
    _mutate(document, paths[index % len(paths)], how, value)
    target = folder / source.name
    target.write_text(_dump(document))
    for sibling in source.parent.glob("*.toml"):  # a sweep's or tune's base, by its relative name
        if sibling != source and not (folder / sibling.name).exists():
            shutil.copy(sibling, folder / sibling.name)
    return target


CONFIGS = [ROOT / "configs/kamakura/base.toml", ROOT / "configs/sakura/base.toml"]


@FUZZ
@given(config=st.sampled_from(CONFIGS), pick=mutation, players=st.sampled_from(["2", "3", "4"]))
def test_a_mutated_config_is_played_or_refused_without_writing(tmp_path_factory, config, pick, players):
    folder = tmp_path_factory.mktemp("config")
    path = _mutated_file(config, pick, folder)
    run_balance(["simulate", str(path), "--players", players, "--games", "3", "--agents", "random",
                 "--jobs", "1", "--seed", "1", "--out", str(folder / "run"), "--quiet"], "config", folder,
                outputs=(folder / "run",))


BASE_ARGV = {
    "simulate": ["simulate", "{config}", "--players", "3", "--games", "3", "--agents", "random",
                 "--jobs", "1", "--seed", "1", "--out", "{out}", "--quiet"],
    "values": ["values", "{config}", "--players", "3", "--games", "2", "--agents", "random", "--jobs", "1",
               "--positions", "0", "--out", "{out}", "--quiet"],
    "compare": ["compare", "{config}", "{config}", "--players", "3", "--games", "20", "--agents", "random",
                "--jobs", "1", "--out", "{out}"],
}
# an odd value in one parameter of an agent kept cheap by the others (an accepted value plays a few games)
AGENT_WORDS = ["mcts:iters={w},horizon=1", "expert:width={w},deep=1", "expert:horizon={w},width=2",
               "mcts:iters=2,horizon={w}", "greedy:{w}", "{w}", "random,random,{w}"]


@FUZZ
@given(command=st.sampled_from(sorted(BASE_ARGV)), slot=st.integers(0, 50), word=st.sampled_from(ODD_WORDS),
       agents=st.sampled_from([None, *AGENT_WORDS]))
def test_an_odd_option_is_refused_without_writing(tmp_path_factory, command, slot, word, agents):
    folder = tmp_path_factory.mktemp("option")
    argv = [a.format(config=CONFIGS[0], out=folder / "out") for a in BASE_ARGV[command]]
    values = [i for i, a in enumerate(argv)
              if i > 0 and argv[i - 1].startswith("--") and not a.startswith("--")]
    if agents is not None:
        argv[argv.index("--agents") + 1] = agents.format(w=word)
    else:
        argv[values[slot % len(values)]] = word
    out = folder / argv[argv.index("--out") + 1]  # the odd word may be --out's own value
    run_balance(argv, "option", folder, outputs=(out,))


@pytest.fixture(scope="module")
def template_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("template") / "run"
    assert main(["simulate", str(CONFIGS[0]), "--players", "3", "--games", "6", "--agents", "random",
                 "--jobs", "1", "--chunk-size", "2", "--out", str(folder), "--quiet"]) == 0
    assert main(["summary", str(folder)]) == 0  # fills the summaries cache, which is mutated too
    return folder


def _damage(path: Path, how: str, at: int, value) -> None:
    data = path.read_bytes() if path.is_file() else b""
    if how == "cut":
        path.write_bytes(data[: at % max(len(data), 1)])
    elif how == "garbage":
        path.write_bytes(bytes((at * 7919 + i * 104729) % 256 for i in range(64)))
    elif how == "json":
        path.write_text(json.dumps(value, default=str) if not isinstance(value, float) or math.isfinite(value)
                        else str(value))
    elif how == "append":
        path.write_bytes(data + b"\n{not json\n")
    elif how == "delete":
        path.unlink()


@FUZZ
@given(which=st.integers(0, 10**6), how=st.sampled_from(["cut", "garbage", "json", "append", "delete"]),
       at=st.integers(0, 10**6), value=st.sampled_from(ODD), command=st.sampled_from(["summary", "report"]))
def test_a_damaged_run_directory_is_refused_by_name_or_read(tmp_path_factory, template_run, which, how, at,
                                                            value, command):
    folder = tmp_path_factory.mktemp("damaged")
    run = folder / "run"
    shutil.copytree(template_run, run)
    files = sorted(p for p in run.rglob("*") if p.is_file() and p.name != ".lock")
    _damage(files[which % len(files)], how, at, value)
    argv = (["summary", str(run)] if command == "summary"
            else ["report", str(run), "--out", str(folder / "rep")])
    run_balance(argv, "run directory", folder, outputs=(run, folder / "rep"))  # summary caches in the run


SMALL_SWEEP = """description = "fuzz"
base = "base.toml"
players = [2, 3]
agents = ["random"]
games = 4
seed = 1

[grid]
"rules.tie_break" = ["last_in_order", "shared"]
"""
SMALL_TUNE = """description = "fuzz"
base = "base.toml"
players = 3
agents = "random"
seed = 1
budget = 200

[space]
"rules.order_chit_moves[1]" = {min = 0, max = 2}

[target]
tolerance = 0.2

[racing]
first_games = 10
growth = 2
final_games = 40
"""


@FUZZ
@given(kind=st.sampled_from(["sweep", "tune"]), pick=mutation)
def test_a_mutated_sweep_or_tune_file_runs_or_is_refused_without_writing(tmp_path_factory, kind, pick):
    folder = tmp_path_factory.mktemp(kind)
    source = folder / "source"
    source.mkdir()
    (source / f"{kind}.toml").write_text(SMALL_SWEEP if kind == "sweep" else SMALL_TUNE)
    shutil.copy(CONFIGS[0], source / "base.toml")
    work = folder / "work"
    work.mkdir()
    path = _mutated_file(source / f"{kind}.toml", pick, work)
    run_balance([kind, str(path), "--jobs", "1", "--quiet", "--out", str(folder / "out")], kind, folder,
                outputs=(folder / "out",))


@pytest.fixture(scope="module", autouse=True)
def say_the_counts():
    """After the module, with -s: each family's inputs and outcomes (the closing note quotes them)."""
    yield
    print("\nfuzzed inputs:", json.dumps(RESULTS, sort_keys=True))
