"""Never lose a designer's file, fuzzed: where a command writes (`--out` at a designer's folder,
a file, a run, `~`), what it reads (a run's or a config's file swapped for a FIFO, a device, a folder or a
link), the numbers its arithmetic works with (margins, minutes, growth, tolerance), values that cannot mean
anything (an empty agents list, a count of a value never taken, an empty variants list) and a config's
keys and extends chains. Every call is accepted, changing files only inside its output folder, or refused
in one line with nothing written; no traceback, no call past BOUND seconds. The same contract and counts
as tests/test_fuzz_inputs.py (FUZZ_FRESH=1 and FUZZ_EXAMPLES there apply here too)."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest
import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.commands import main
from tests.test_fuzz_inputs import CONFIGS, EXAMPLES, FUZZ, RESULTS, SMALL_SWEEP, SMALL_TUNE, run_balance

KAMAKURA = CONFIGS[0]
#: draws per family here: the suite keeps these few (each may play a handful of games); FUZZ_EXAMPLES
#: raises them with the rest
FEW = EXAMPLES if os.environ.get("FUZZ_EXAMPLES") else 15
SMALL = ["--players", "3", "--agents", "random", "--jobs", "1"]


@pytest.fixture(scope="module")
def template_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("template") / "run"
    assert main(["simulate", str(KAMAKURA), "--players", "3", "--games", "6", "--agents", "random",
                 "--jobs", "1", "--chunk-size", "2", "--out", str(folder), "--quiet"]) == 0
    assert main(["summary", str(folder)]) == 0
    return folder


def _files(folder: Path) -> dict[str, Path]:
    """A sweep file, a tune file and the base they name, in `folder`."""
    shutil.copy(KAMAKURA, folder / "base.toml")
    (folder / "sweep.toml").write_text(SMALL_SWEEP)
    (folder / "tune.toml").write_text(SMALL_TUNE)
    return {"sweep": folder / "sweep.toml", "tune": folder / "tune.toml", "base": folder / "base.toml"}


def _writer(command: str, run: Path, files: dict[str, Path]) -> list[str]:
    """`command`'s arguments before --out, all tiny."""
    return {"simulate": ["simulate", str(KAMAKURA), *SMALL, "--games", "3", "--quiet"],
            "values": ["values", str(KAMAKURA), *SMALL, "--games", "2", "--positions", "0", "--quiet"],
            "compare": ["compare", str(KAMAKURA), str(KAMAKURA), *SMALL, "--games", "12"],
            "report": ["report", str(run)],
            "sweep": ["sweep", str(files["sweep"]), "--jobs", "1", "--quiet"],
            "tune": ["tune", str(files["tune"]), "--jobs", "1", "--quiet"],
            "profile": ["profile", str(KAMAKURA), "--players", "3", "--games", "6", "--levels",
                        "random,greedy", "--jobs", "1"],
            "ladder": ["ladder", "kamakura", "--players", "3", "--games", "4", "--iters", "none",
                       "--no-expert", "--jobs", "1", "--quiet"]}[command]


WRITERS = ["simulate", "values", "compare", "report", "sweep", "tune", "profile", "ladder"]
#: where --out points: (the text given, with {w} the watched folder; what is put there first)
TARGETS = ["fresh", "empty", "foreign", "file", "run", "home sub", "home", "own", "inside foreign", "dot",
           "dot dot", "the config's folder"]


#: the --out targets that hold a designer's (or the system's) files: always refused
FOREIGN = {"foreign", "file", "home", "dot", "dot dot", "the config's folder"}


def _target(kind: str, folder: Path, run: Path) -> tuple[str, Path]:
    """The --out text for `kind` and the folder it names (what an accepted call may change)."""
    designs = folder / "designs"
    if kind in ("foreign", "inside foreign", "the config's folder"):
        designs.mkdir(exist_ok=True)
        (designs / "my-variant.toml").write_text("# a designer's file\n")
    if kind == "empty":
        (folder / "empty").mkdir()
    if kind == "file":
        (folder / "notes.txt").write_text("a designer's notes\n")
    if kind == "home":
        (folder / "home").mkdir(exist_ok=True)
        (folder / "home" / ".profile").write_text("# theirs\n")
    named = {"fresh": "new", "empty": "empty", "foreign": "designs", "file": "notes.txt", "run": "run",
             "home sub": "home/out", "home": "home", "own": "own", "inside foreign": "designs/out",
             "dot": ".", "dot dot": "..", "the config's folder": "designs"}[kind]
    text = {"home sub": "~/out", "home": "~"}.get(kind, str(folder / named) if kind != "dot dot" else "..")
    return text, (folder / named).resolve() if kind != "dot dot" else folder.parent


@settings(FUZZ, max_examples=FEW * 2)
@given(command=st.sampled_from(WRITERS), kind=st.sampled_from(TARGETS))
def test_every_out_writes_only_its_folder_or_is_refused(tmp_path_factory, template_run, command, kind):
    folder = tmp_path_factory.mktemp("out")
    shutil.copytree(template_run, folder / "run")
    files = _files(_mkdir(folder / "files"))
    text, target = _target(kind, folder, folder / "run")
    argv = [*_writer(command, folder / "run", files), "--out", text]
    first = run_balance(argv, "out", folder, outputs=(target,))[0] if kind == "own" else None
    code, said = run_balance(argv, "out", folder, outputs=(target,) if target.is_relative_to(folder) else ())
    if kind in FOREIGN:  # a folder of someone else's files, or a file: refused before anything is played
        assert code == 2, f"--out {text} was written: balance {' '.join(argv)}"
    if first is not None:  # the command's own earlier output is written again
        assert code == first, said


def _mkdir(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    return path


# ---- files that are not regular --------------------------------------------------------------------------
ODD_FILES = ["fifo", "dev zero", "dev null", "folder", "link to folder", "dangling link", "link loop"]


def _make_odd(path: Path, how: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if how == "fifo":
        os.mkfifo(path)
    elif how == "dev zero":
        path.symlink_to("/dev/zero")
    elif how == "dev null":
        path.symlink_to("/dev/null")
    elif how == "folder":
        path.mkdir()
    elif how == "link to folder":
        path.symlink_to(path.parent)
    elif how == "dangling link":
        path.symlink_to(path.parent / "no-such-file")
    elif how == "link loop":
        path.symlink_to(path)


@settings(FUZZ, max_examples=FEW * 2)
@given(which=st.integers(0, 10**6), how=st.sampled_from(ODD_FILES),
       command=st.sampled_from(["summary", "report", "resume"]))
def test_a_run_file_that_is_not_regular_is_refused_or_not_needed(tmp_path_factory, template_run, which, how,
                                                                 command):
    folder = tmp_path_factory.mktemp("oddrun")
    run = folder / "run"
    shutil.copytree(template_run, run)
    files = sorted(p for p in run.rglob("*") if p.is_file() and p.name != ".lock")
    _make_odd(files[which % len(files)], how)
    argv = {"summary": ["summary", str(run)], "report": ["report", str(run), "--out", str(folder / "rep")],
            "resume": ["simulate", str(KAMAKURA), "--players", "3", "--games", "6", "--agents", "random",
                       "--jobs", "1", "--chunk-size", "2", "--out", str(run), "--quiet"]}[command]
    run_balance(argv, "odd run file", folder, outputs=(run, folder / "rep"))


@settings(FUZZ, max_examples=FEW * 2)
@given(how=st.sampled_from(ODD_FILES), where=st.sampled_from(["config", "extends", "sweep base", "tune base",
                                                              "sweep", "tune"]))
def test_a_config_that_is_not_regular_is_refused_by_name(tmp_path_factory, how, where):
    folder = tmp_path_factory.mktemp("oddconfig")
    files = _files(_mkdir(folder / "files"))
    child = folder / "files" / "child.toml"
    child.write_text('extends = "base.toml"\n')
    odd = {"config": files["base"], "extends": files["base"], "sweep base": files["base"],
           "tune base": files["base"], "sweep": files["sweep"], "tune": files["tune"]}[where]
    _make_odd(odd, how)
    out = folder / "out"
    argv = {"config": ["simulate", str(files["base"]), *SMALL, "--games", "3", "--quiet", "--out", str(out)],
            "extends": ["simulate", str(child), *SMALL, "--games", "3", "--quiet", "--out", str(out)],
            "sweep base": ["sweep", str(files["sweep"]), "--jobs", "1", "--quiet", "--out", str(out)],
            "tune base": ["tune", str(files["tune"]), "--jobs", "1", "--quiet", "--out", str(out)],
            "sweep": ["sweep", str(files["sweep"]), "--jobs", "1", "--quiet", "--out", str(out)],
            "tune": ["tune", str(files["tune"]), "--jobs", "1", "--quiet", "--out", str(out)]}[where]
    code, _ = run_balance(argv, "odd config file", folder, outputs=(out,))
    assert code == 2, f"{where} as {how} was read: balance {' '.join(argv)}"


# ---- the numbers a run's arithmetic works with -------------------------------------------------------------
NUMBER_WORDS = ["1e-300", "5e-324", "1e308", "1e309", "-0", "0", "nan", "inf", "-inf", "0.01", "99.99", "100",
                "1e-6", "1e6", "1000001", "2", "0.5", "seats=1e-300", "start=1e308", "length=0", "worth=1e-7",
                "seats=2,worth=nan", "2pp", "1e-2pp", "9" * 400]
numbers = st.one_of(st.sampled_from(NUMBER_WORDS), st.floats().map(repr),
                    st.floats(min_value=1e-9, max_value=1e9).map(lambda x: f"{x:g}"))


@settings(FUZZ, max_examples=FEW * 3)
@given(option=st.sampled_from(["--margin", "--minutes"]), value=numbers,
       command=st.sampled_from(["simulate", "compare", "profile", "report", "summary"]))
def test_a_margin_or_minutes_of_any_size_is_used_or_refused(tmp_path_factory, template_run, option, value,
                                                            command):
    folder = tmp_path_factory.mktemp("numbers")
    shutil.copytree(template_run, folder / "run")
    out = folder / "out"
    cap = ["--games", "30", "--seed", "3"]
    argv = {"simulate": ["simulate", str(KAMAKURA), *SMALL, *cap, "--until-decided", "--quiet"],
            "compare": ["compare", str(KAMAKURA), str(KAMAKURA), *SMALL, *cap],
            "profile": ["profile", str(KAMAKURA), "--players", "3", "--levels", "random,greedy",
                        "--jobs", "1", *cap, "--until-decided"],
            "report": ["report", str(folder / "run")], "summary": ["summary", str(folder / "run")]}[command]
    if command in ("report", "summary") and option == "--minutes":
        option = "--margin"
    if command not in ("summary",):
        argv += ["--out", str(out)]
    run_balance([*argv, option, value], "margin and minutes", folder, outputs=(out, folder / "run"))


MODEL_TUNE = SMALL_TUNE.replace("budget = 200", "budget = 400").split("[racing]")[0] + """[search]
method = "model"
first_games = 10
final_games = 20
confirm_games = 20
verify_games = 20
curve_checks = 1
curve_games = 10
"""
TUNE_NUMBERS = ["racing.growth", "racing.eta", "racing.confidence", "target.tolerance", "search.growth",
                "search.confidence", "target.chit_cap"]
toml_numbers = st.one_of(st.sampled_from(["0", "0.0", "1e-300", "1e308", "nan", "inf", "-1", "1", "1.01",
                                          "100", "100.5", "0.0001", "0.99999", "5e-324"]),
                         st.floats(allow_nan=False, allow_infinity=False).map(repr))


@settings(FUZZ, max_examples=FEW * 2)
@given(key=st.sampled_from(TUNE_NUMBERS), value=toml_numbers)
def test_a_tune_factor_of_any_size_is_used_or_refused(tmp_path_factory, key, value):
    folder = tmp_path_factory.mktemp("tunenumbers")
    files = _files(_mkdir(folder / "files"))
    table, name = key.split(".")
    text = SMALL_TUNE if table != "search" else MODEL_TUNE  # racing reads [racing], a model [search]
    document = tomlkit.parse(text)
    document.setdefault(table, tomlkit.table())[name] = tomlkit.parse(f"x = {value}")["x"]
    files["tune"].write_text(tomlkit.dumps(document))
    out = folder / "out"
    run_balance(["tune", str(files["tune"]), "--jobs", "1", "--quiet", "--out", str(out)], "tune numbers",
                folder, outputs=(out,))


# ---- what cannot mean anything -----------------------------------------------------------------------------
AGENT_TEXTS = ["", " ", ",", "random,", ",random", "human", "human,human",
               "random,random,random,random,random", "mcts:iters=0", "greedy:x=1", "\x00", "random\nrandom",
               "RANDOM", "random:"]


@settings(FUZZ, max_examples=FEW)
@given(agents=st.one_of(st.sampled_from(AGENT_TEXTS), st.text(max_size=12)),
       players=st.sampled_from(["2", "3"]))
def test_play_with_any_agents_plays_or_refuses(tmp_path_factory, agents, players):
    folder = tmp_path_factory.mktemp("play")
    run_balance(["play", "kamakura", "--players", players, "--agents", agents, "--seed", "1"], "play agents",
                folder, outputs=(), stdin="q\n")


counted = st.one_of(st.integers(-2, 12), st.sampled_from(['"x"', "1.5", "[1, 2]", "[]", "true", "nan"]))


@settings(FUZZ, max_examples=FEW * 2)
@given(value=counted, bounds=st.sampled_from(["", "min = 0", "max = 0", "min = 1", "max = 3", "equals = 2",
                                              "min = 3\nmax = 1"]),
       variants=st.sampled_from(["", "variants = []", 'name = ""', 'name = " "', 'name = "a"', 'name = "\\n"',
                                 "dup"]),
       kind=st.sampled_from(["tune", "sweep"]))
def test_a_count_or_variant_that_cannot_mean_anything_is_refused(tmp_path_factory, value, bounds, variants,
                                                                 kind):
    folder = tmp_path_factory.mktemp("meaning")
    files = _files(_mkdir(folder / "files"))
    if kind == "tune":
        files["tune"].write_text(SMALL_TUNE + f'\n[[constraints]]\ncount = "rules.order_chit_moves[*]"\n'
                                              f"value = {value}\n{bounds}\n")
    else:
        text = SMALL_SWEEP
        if variants == "variants = []":
            text = text.split("[grid]")[0] + "variants = []\n"
        elif variants == "dup":
            text += '\n[[variants]]\nname = "a"\n"rules.voluntary_pass" = true\n' * 2
        elif variants:
            text += f'\n[[variants]]\n{variants}\n"rules.voluntary_pass" = true\n'
        files["sweep"].write_text(text)
    out = folder / "out"
    run_balance([kind, str(files[kind]), "--jobs", "1", "--quiet", "--out", str(out)], "meaningless values",
                folder, outputs=(out,))


# ---- a config's keys and extends chains ------------------------------------------------------------------
def _leaf_keys(config: dict) -> list[str]:
    keys = []
    for colour, chits in config.get("chits", {}).items():
        keys += [f"chits.{colour}[{i}].{k}" for i in range(len(chits)) for k in chits[i]]
    keys += [f"rules.{k}" for k in config.get("rules", {})]
    return keys


def _misspell(key: str, at: int, how: str) -> str:
    parts = key.replace("[", ".[").split(".")
    i = at % len(parts)
    word = parts[i]
    if word.startswith("[") or not word:
        return key
    j = at % len(word)
    word = {"drop": word[:j] + word[j + 1:], "double": word[:j] + word[j] + word[j:],
            "swap": word[:j] + word[j + 1:j + 2] + word[j:j + 1] + word[j + 2:], "upper": word.upper()}[how]
    parts[i] = word
    return ".".join(parts).replace(".[", "[")


@settings(FUZZ, max_examples=FEW * 2)
@given(pick=st.integers(0, 10**6), at=st.integers(0, 10**6), how=st.sampled_from(["drop", "double", "swap",
                                                                                  "upper", "none"]),
       value=st.sampled_from(["1", "0", "-1", "nan", '"x"', "[]", "{}", "true"]),
       chain=st.sampled_from([0, 1, 3, 99, 100, 101, 250]),
       target=st.sampled_from(["ok", "newline", "tab", "empty", "self", "folder", "missing", "fifo"]))
def test_a_dotted_key_or_extends_chain_is_read_or_refused_in_one_line(tmp_path_factory, pick, at, how, value,
                                                                      chain, target):
    folder = tmp_path_factory.mktemp("keys")
    base = tomllib.loads(KAMAKURA.read_text())
    keys = _leaf_keys(base)
    key = keys[pick % len(keys)]
    key = key if how == "none" else _misspell(key, at, how)
    shutil.copy(KAMAKURA, folder / "c0.toml")
    for i in range(1, chain + 1):
        (folder / f"c{i}.toml").write_text(f'extends = "c{i - 1}.toml"\n')
    parent = {"ok": f"c{chain}.toml", "newline": "c0.toml\\nx", "tab": "c0\\t.toml", "empty": "",
              "self": "top.toml", "folder": "sub", "missing": "nope.toml", "fifo": "pipe.toml"}[target]
    if target == "folder":
        (folder / "sub").mkdir()
    if target == "fifo":
        os.mkfifo(folder / "pipe.toml")
    (folder / "top.toml").write_text(f'extends = "{parent}"\n{json.dumps(key)} = {value}\n')
    out = folder / "out"
    run_balance(["simulate", str(folder / "top.toml"), *SMALL, "--games", "2", "--quiet", "--out", str(out)],
                "config keys and extends", folder, outputs=(out,))


# ---- a dead scheduler -----------------------------------------------------------------------------------
@settings(FUZZ, max_examples=max(3, FEW // 3))
@given(address=st.one_of(st.integers(1, 20).map(lambda port: f"tcp://127.0.0.1:{port}"),
                         st.sampled_from(["tcp://", "nonsense", "tcp://127.0.0.1:0", "tcp://[::1]:1",
                                          "tcp://127.0.0.1:99999", "inproc://x"])),
       out_exists=st.booleans())
def test_a_dead_scheduler_is_refused_leaving_no_lock(tmp_path_factory, address, out_exists):
    folder = tmp_path_factory.mktemp("dask")
    out = folder / "run"
    if out_exists:
        out.mkdir()
    run_balance(["simulate", str(KAMAKURA), "--players", "3", "--games", "3", "--agents", "random", "--quiet",
                 "--backend", "dask", "--scheduler", address, "--out", str(out)], "dead scheduler", folder,
                outputs=(out,))
    assert not (out / ".lock").exists() or (out / "manifest.json").exists()


@pytest.fixture(scope="module", autouse=True)
def say_the_counts():
    """After the module, with -s: each family's inputs and outcomes (the closing note quotes them)."""
    yield
    print("\nfuzzed inputs:", json.dumps(RESULTS, sort_keys=True))
