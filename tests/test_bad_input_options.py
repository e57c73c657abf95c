"""Bad configs and options: every bad config, agent parameter, model file and numeric option is
refused with exit status 2 and no traceback, before anything is written; a refusal of ours is one line
naming the file (or option) and the key. Run in-process (`sim.commands.main`), in an empty folder whose
listing must not change. None of these plays a game, so none compiles a kernel."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from sim import games
from sim.commands import main
from sim.commands.options import check_jobs, cores
from sim.core.config import MAX_DEPTH, path_text

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {name: ROOT / "configs" / name / "base.toml" for name in games.names()}
KAMAKURA = str(CONFIGS["kamakura"])


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def refuse(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `balance argv` in `folder`; assert exit 2, one line, no traceback, nothing written; the line."""
    before = listing(folder)
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's refusals (sim.commands.OneLineParser)
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert listing(folder) == before
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance"), err
    return lines[0]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder (default run directories would appear here)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def study(config: str | Path, players: int = 3, *more: str) -> list[str]:
    return ["study", str(config), "--players", str(players), "--games", "10", "--agents", "random", *more]


# ---- configs ---------------------------------------------------------------------------------------------

def write(folder: Path, name: str, text: str) -> Path:
    path = folder.parent / name  # beside the working folder, whose listing is compared
    path.write_text(text)
    return path


@pytest.mark.parametrize("value", ['["kamakura"]', '{name = "kamakura"}', "3", "true", "1979-05-27"])
def test_game_of_a_wrong_type(value: str, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(here, "game.toml", f"game = {value}\n")
    assert refuse(study(bad), here, capsys).startswith(f"balance: {bad}: game: must be one of kamakura")


def test_extends_loop_of_symlinks(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = here.parent / "loop1.toml", here.parent / "loop2.toml"
    one.symlink_to(two)
    two.symlink_to(one)
    child = write(here, "child.toml", 'extends = "loop1.toml"\ngame = "kamakura"\n')
    line = refuse(study(child), here, capsys)
    assert line.startswith(f"balance: {child}: extends: ") and "loop of symbolic links" in line
    assert "loop of symbolic links" in refuse(study(one), here, capsys)


@pytest.mark.parametrize("text, key", [
    ('description = "a\\u0000b"', "description"),
    ('extends = "base\\u0000.toml"', "extends"),
    ('[rules]\n"tie\\u0000break" = "last_in_order"', 'rules."tie\\u0000break"'),
])
def test_null_bytes_in_a_config(text: str, key: str, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(here, "nul.toml", f'game = "kamakura"\n{text}\n')
    assert refuse(study(bad), here, capsys) == f"balance: {bad}: {key}: has a null byte"


def test_null_byte_in_the_config_path(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refuse(study("a\0b.toml"), here, capsys) == "balance: a\0b.toml: the path has a null byte"


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "{a = " * 3000 + "1" + "}" * 3000,
                                   "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2)])
def test_nesting_thousands_deep(value: str, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(here, "deep.toml", f'game = "kamakura"\nx = {value}\n')
    line = refuse(study(bad), here, capsys)
    assert line.startswith(f"balance: {bad}: ") and "nested too deeply" in line


WRONG = {"array": "[1, 2]", "table": "{a = 1}", "date": "1979-05-27", "bool": "true", "string": '"x"',
         "nan": "nan", "inf": "inf", "-inf": "-inf"}


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    return {list: "array", dict: "table", str: "string"}.get(type(value), "number")


def _leaves(node: object, path: tuple = ()) -> list[tuple]:
    """Every key path of a config (the first two elements of each array), with its value."""
    out = [(path, node)] if path else []
    items = node.items() if isinstance(node, dict) else enumerate(node[:2]) if isinstance(node, list) else []
    for key, value in items:
        out += _leaves(value, (*path, key))
    return out


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _wrong_type_cases() -> list[tuple[str, tuple, str]]:
    cases = []
    for game, config in CONFIGS.items():
        for path, value in _leaves(tomllib.loads(config.read_text())):
            cases += [(game, path, kind) for kind in WRONG if kind != _kind(value)
                      and not (kind == "string" and path == ("game",))]
    return cases


@pytest.mark.parametrize("game, path, kind", _wrong_type_cases(),
                         ids=lambda x: path_text(x) if isinstance(x, tuple) else str(x))
def test_every_key_of_a_wrong_toml_type(game: str, path: tuple, kind: str, here: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The family: each key of the shipped base config, given an array, table, date, boolean, string, nan
    or inf where it holds something else, is refused by file and key (the key or the table holding it)."""
    config = tomllib.loads(CONFIGS[game].read_text())
    node = config
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = "@@"
    text = "".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in config.items())
    bad = write(here, "wrong.toml", text.replace('"@@"', WRONG[kind]))
    line = refuse(study(bad, games.spec(game).min_players), here, capsys)
    assert line.startswith(f"balance: {bad}: ")
    named = [path_text(path[:n]) for n in range(1, len(path) + 1)]
    assert any(f": {key}" in line or f": {key}[" in line for key in named), line


# ---- agent parameters -------------------------------------------------------------------------------------

def _numeric_params() -> list[tuple[str, str, str]]:
    return [(game.name, agent, key) for game in games.specs() for agent, kind in game.agents.items()
            for key, (of, _) in kind.params.items() if of in (int, float)]


@pytest.mark.parametrize("game, agent, key", _numeric_params())
def test_every_numeric_agent_parameter_has_a_documented_range(game: str, agent: str, key: str) -> None:
    kind = games.spec(game).agents[agent]
    assert kind.lowest[key] < kind.highest[key]
    page = (ROOT / "docs" / "reference" / "agents.md").read_text()
    assert "<!-- agent-params -->" in page  # the hook writes the ranges there (docs/hooks.py)


@pytest.mark.parametrize("game, agent, key", _numeric_params())
@pytest.mark.parametrize("past", ["highest", "2**63", "10**25", "nan", "inf"])
def test_agent_parameters_past_their_range(game: str, agent: str, key: str, past: str, here: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    kind = games.spec(game).agents[agent]
    value = {"highest": str(kind.params[key][0](kind.highest[key] + 1)), "2**63": str(2**63),
             "10**25": str(10**25)}.get(past, past)
    line = refuse(study(CONFIGS[game], games.spec(game).min_players)[:-1] + [f"{agent}:{key}={value}"],
                  here, capsys)
    assert line.startswith(f"balance: --agents: {agent}:{key} must be "), line


@pytest.mark.parametrize("game", games.names())
def test_two_billion_iterations_write_no_run(game: str, here: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Was a MemoryError after manifest.json and the lock were written."""
    out = here / "run"
    line = refuse(["simulate", str(CONFIGS[game]), "--players", str(games.spec(game).min_players),
                   "--games", "10", "--agents", "mcts:iters=2000000000", "--out", str(out), "--jobs", "1"],
                  here, capsys)
    assert "mcts:iters must be at most" in line and not out.exists()


def test_ladder_iterations_past_the_range(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refuse(["ladder", "kamakura", "--players", "3", "--iters", "25,2000000000", "--jobs", "1"], here,
                  capsys)
    assert line.startswith("balance: --iters: iteration counts must be at most 100000")


# ---- model files -----------------------------------------------------------------------------------------

def expert_study(model: str | Path) -> list[str]:
    return ["study", KAMAKURA, "--players", "3", "--games", "10", "--agents", f"expert:model={model}"]


def test_a_fifo_model_is_refused_not_read(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = here.parent / "model.fifo"
    os.mkfifo(fifo)
    line = refuse(expert_study(fifo), here, capsys)
    assert line == f"balance: {fifo}: not a model file (not a regular file)"


SHIPPED = json.loads((ROOT / "sim" / "kamakura" / "models" / "expert-3p.json").read_text())


def _model_cases() -> list[tuple[str, object]]:
    wrong: dict[str, list[object]] = {
        "format": ["1", True, None, [1]], "game": [3, ["kamakura"], None],
        "players": ["three", 3.0, True, None, 0],
        "features": ["bias", {"a": 1}, [1, 2]], "weights": ["1", {"a": 1}, [True] * 2, [10**400]],
        "config": [3, []], "config_hash": [3, None], "training": [[], "x"], "strength": [3, "x"]}
    return [(key, value) for key, values in wrong.items() for value in values] + [
        (key, "<missing>") for key in ("format", "game", "players", "features", "weights", "config_hash")]


@pytest.mark.parametrize("key, value", _model_cases(), ids=str)
def test_model_keys_of_a_wrong_type_or_missing(key: str, value: object, here: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = dict(SHIPPED)
    if value == "<missing>":
        del data[key]
    else:
        data[key] = value
    model = here.parent / "model.json"
    model.write_text(json.dumps(data))
    line = refuse(expert_study(model), here, capsys)
    assert line.startswith(f"balance: {model}: ") and key in line, line


# ---- numeric options --------------------------------------------------------------------------------------

HEADS = {
    "study": ["study", KAMAKURA, "--players", "3"],
    "simulate": ["simulate", KAMAKURA, "--players", "3"],
    "values": ["values", KAMAKURA, "--players", "3"],
    "compare": ["compare", KAMAKURA, KAMAKURA, "--players", "3"],
    "ladder": ["ladder", "kamakura", "--players", "3"],
    "profile": ["profile", KAMAKURA, "--players", "3"],
    "train": ["train", "kamakura", "--players", "3"],
    "bench": ["bench"],
    "play": ["play", "kamakura"],
    "workbench": ["workbench"],
}
OPTIONS = [("study", "--games"), ("study", "--seed"), ("simulate", "--games"), ("simulate", "--chunk-size"),
           ("simulate", "--jobs"), ("values", "--games"), ("compare", "--games"), ("ladder", "--games"),
           ("profile", "--games"), ("profile", "--values-games"), ("train", "--games"), ("train", "--rounds"),
           ("train", "--strength-games"), ("bench", "--scale"), ("bench", "--repeats"), ("bench", "--games"),
           ("workbench", "--jobs")] + [
    (command, "--players") for command in ("study", "simulate", "values", "compare", "ladder", "profile",
                                           "train", "play")]


@pytest.mark.parametrize("command, option", OPTIONS)
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "10" * 15, "", "x"])
def test_numeric_options_refuse_nan_inf_negative_huge(command: str, option: str, value: str, here: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    line = refuse([*HEADS[command], option, value], here, capsys)
    assert option in line, line


ZERO_MEANS_NOTHING = [c for c in OPTIONS if c[1] not in ("--strength-games", "--seed")]


@pytest.mark.parametrize("command, option", ZERO_MEANS_NOTHING)
def test_zero_is_refused_where_it_means_nothing(command: str, option: str, here: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert option in refuse([*HEADS[command], option, "0"], here, capsys)


def test_study_games_held_in_memory_are_capped(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refuse(["study", KAMAKURA, "--players", "3", "--games", "1000000000"], here, capsys)
    assert "--games: must be at most 1,000,000" in line


def test_jobs_past_the_cores(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = here / "run"
    line = refuse(["simulate", KAMAKURA, "--players", "3", "--games", "10", "--agents", "random",
                   "--jobs", "1000", "--out", str(out)], here, capsys)
    assert line.startswith(f"balance: --jobs: at most {cores()} (the cores here), got 1000")
    check_jobs(1000, "tcp://cluster:8786")  # a cluster's workers run them: any number goes
    check_jobs(cores(), None)


@pytest.mark.parametrize("command", ["simulate", "values", "ladder", "train", "compare", "profile"])
def test_empty_out_is_refused(command: str, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "--out: must name a path" in refuse([*HEADS[command], "--out", ""], here, capsys)


def test_bench_scale_nan_inf_zero_negative(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("nan", "inf", "-inf", "0", "-2", "1e9"):
        assert "--scale" in refuse(["bench", "--scale", value], here, capsys)
    from sim.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert "at most 100" in " ".join(sub.choices["bench"].format_help().split())


# ---- bounds of the numbers a run's arithmetic works with (never lose a designer's file) ------------------

MINUTES_HEADS = {"simulate": HEADS["simulate"], "compare": HEADS["compare"], "profile": HEADS["profile"]}


@pytest.mark.parametrize("command", sorted(MINUTES_HEADS))
@pytest.mark.parametrize("value", ["1e308", "nan", "0", "-1", "1e-400"])
def test_minutes_past_the_bound_refused(command: str, value: str, here: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """--minutes 1e308 made the time left infinite, and a count of games from it an OverflowError."""
    line = refuse([*MINUTES_HEADS[command], "--until-decided", "--minutes", value], here, capsys)
    assert "--minutes" in line, line


@pytest.mark.parametrize("command", ["simulate", "compare", "profile", "report", "summary", "values"])
def test_margin_and_minutes_bounds_are_said_in_help(command: str) -> None:
    from analysis.verdicts import MARGIN_PP, MARGIN_UNITS
    from sim.app.until_decided import MOST_MINUTES
    from sim.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = " ".join(sub.choices[command].format_help().split())
    assert f"from {MARGIN_PP[0]:g} to below {MARGIN_PP[1]:g}" in text
    assert f"from {MARGIN_UNITS[0]:g} to {MARGIN_UNITS[1]:g}" in text
    if command in MINUTES_HEADS:
        assert f"at most {MOST_MINUTES:,}" in text


@pytest.mark.parametrize("value", ["1e-300", "0.001", "5e-324"])
@pytest.mark.parametrize("argv", [[*HEADS["simulate"], "--until-decided"], HEADS["compare"],
                                  [*HEADS["profile"], "--until-decided"], ["report", "RUN"],
                                  ["summary", "RUN"]],
                         ids=["simulate", "compare", "profile", "report", "summary"])
def test_a_margin_below_its_floor_refused(argv: list[str], value: str, here: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """`report RUN --margin 1e-300` (and simulate --until-decided, compare, profile) was a traceback: the
    games a margin that small asks for overflow. The margin is refused before a run is read or played."""
    line = refuse([*argv, "--margin", value], here, capsys)
    assert "--margin" in line and "from 0.01" in line, line
