"""Bad sweep and tune files: every bad input of these families is refused by `balance sweep FILE` or
`balance tune FILE` in one line naming the file and the key, exit status 2, no traceback, and nothing
written (the folder is listed before and after); and a model tune over a space it has played through
stops and says so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sim.commands import main
from sim.design.files import MAX_GAMES
from sim.design.sweep import MAX_VARIANTS
from sim.design.tune_file import GROWTH, LEAST_TOLERANCE, MAX_DIMENSION_VALUES, MAX_RACED

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = (ROOT / "configs" / "kamakura" / "base.toml").as_posix()

SPACE = '"rules.order_chit_moves[1]" = {min = 0, max = 1}'


def tune_text(head: str = "", space: str = SPACE, tail: str = "") -> str:
    """A valid racing tune file (a 2-candidate space), with `head` lines replacing or adding top keys,
    `space` for its [space] and `tail` appended."""
    keys = {"base": f'"{KAMAKURA}"', "players": "2", "agents": '"random"', "seed": "4", "budget": "20000"}
    for line in filter(None, head.splitlines()):
        k, v = line.split("=", 1)
        keys[k.strip()] = v.strip()
    top = "\n".join(f"{k} = {v}" for k, v in keys.items())
    return f"{top}\n[space]\n{space}\n[target]\ntolerance = 0.1\n{tail}\n"


def sweep_text(head: str = "", grid: str = '"rules.tie_break" = ["last_in_order", "shared"]',
               tail: str = "") -> str:
    keys = {"base": f'"{KAMAKURA}"', "players": "[2]", "agents": '["random"]', "games": "10"}
    for line in filter(None, head.splitlines()):
        k, v = line.split("=", 1)
        keys[k.strip()] = v.strip()
    top = "\n".join(f"{k} = {v}" for k, v in keys.items())
    return f"{top}\n[grid]\n{grid}\n{tail}\n"


MODEL = '[search]\nmethod = "model"\nfirst_games = 10\nfinal_games = 20\nconfirm_games = 20\n'
BIG_GRID = "\n".join(f'"chits.red[{i}].points" = [1, 2, 3, 4]' for i in range(10))  # 4**10 points

# (case, command, file text, the key the refusal names, what it says)
CASES = [
    # a TOML date (or array, table, boolean) where a number goes
    ("tune budget a date", "tune", tune_text("budget = 1979-05-27"), "budget", "date/time"),
    ("tune growth a date", "tune", tune_text(tail="[racing]\ngrowth = 1979-05-27"), "racing.growth",
     "must be a number"),
    ("tune tolerance an array", "tune", tune_text().replace("tolerance = 0.1", "tolerance = [0.1]"),
     "target.tolerance", "must be a number"),
    ("tune eta a table", "tune", tune_text(tail="[racing]\neta = {x = 1}"), "racing.eta", "must be a number"),
    ("tune confidence a boolean", "tune", tune_text(tail="[racing]\nconfidence = true"), "racing.confidence",
     "must be a number"),
    ("tune length bound a date", "tune", tune_text(tail="length = {min = 1979-05-27}"),
     "target.length.min", "must be a number"),
    ("tune space max a date", "tune", tune_text(space='"rules.order_chit_moves[1]" = {min = 0, max = '
                                                      '1979-05-27}'),
     'space."rules.order_chit_moves[1]".max', "date/time"),
    ("tune constraint min a date", "tune",
     tune_text(tail='[[constraints]]\nsum = "rules.order_chit_moves[*]"\nmin = 1979-05-27'),
     "constraints[0].min", "must be a number"),
    ("tune search growth a date", "tune", tune_text(tail=MODEL + "growth = 1979-05-27"), "search.growth",
     "must be a number"),
    ("sweep games a date", "sweep", sweep_text("games = 1979-05-27"), "games", "date/time"),
    ("sweep seed a table", "sweep", sweep_text("seed = {a = 1}"), "seed", "got a table"),
    # nan and inf, and numbers too large to build
    *[(f"tune {key} {bad}", "tune", tune_text(tail=f"[racing]\n{key} = {bad}"), f"racing.{key}",
       "must be a finite number") for key in ("growth", "confidence", "eta") for bad in ("nan", "inf")],
    *[(f"tune search {key} {bad}", "tune", tune_text(tail=MODEL + f"{key} = {bad}"), f"search.{key}",
       "must be a finite number") for key in ("growth", "confidence") for bad in ("nan", "inf")],
    *[(f"tune tolerance {bad}", "tune", tune_text().replace("tolerance = 0.1", f"tolerance = {bad}"),
       "target.tolerance", "must be a finite number") for bad in ("nan", "inf", "-inf")],
    *[(f"tune length {end} {bad}", "tune", tune_text(tail=f"length = {{{end} = {bad}}}"),
       f"target.length.{end}", "must be a finite number")
      for end in ("min", "max") for bad in ("nan", "inf")],
    # factors whose next round of games would overflow a count (OverflowError before)
    *[(f"tune {key} 1e308", "tune", tune_text(tail=f"[racing]\n{key} = 1e308"), f"racing.{key}",
       f"must be in {GROWTH[0]}..{GROWTH[1]}") for key in ("growth", "eta")],
    ("tune search growth 1e308", "tune", tune_text(tail=MODEL + "growth = 1e308"), "search.growth",
     f"must be in {GROWTH[0]}..{GROWTH[1]}"),
    ("tune constraint bound nan", "tune",
     tune_text(tail='[[constraints]]\nsum = "rules.order_chit_moves[*]"\nmax = nan'), "constraints[0].max",
     "must be a finite number"),
    ("tune space max 10**30", "tune",
     tune_text(space='"rules.order_chit_moves[1]" = {min = 0, max = 1000000000000000000000000000000}'),
     'space."rules.order_chit_moves[1]"', f"at most {MAX_DIMENSION_VALUES:,}"),
    ("tune budget 10**30", "tune", tune_text("budget = 1000000000000000000000000000000"), "budget",
     f"1..{MAX_GAMES}"),
    ("tune final games 10**30", "tune",
     tune_text(tail="[racing]\nfinal_games = 1000000000000000000000000000000"), "racing.final_games",
     f"1..{MAX_GAMES}"),
    ("sweep games 10**10", "sweep", sweep_text("games = 10000000000"), "games", f"1..{MAX_GAMES}"),
    # once accepted though they cannot mean anything
    *[(f"tune tolerance {zero}", "tune", tune_text().replace("tolerance = 0.1", f"tolerance = {zero}"),
       "target.tolerance", f"must be at least {LEAST_TOLERANCE:g}") for zero in ("0", "0.0", "1e-9")],
    *[(f"tune count of a value never taken ({bounds})", "tune",
       tune_text(tail=f'[[constraints]]\ncount = "rules.order_chit_moves[*]"\nvalue = 7\n{bounds}'),
       "constraints[0].value", "7 is a value none of the counted keys takes")
      for bounds in ("max = 1", "min = 0")],
    ("sweep variants empty", "sweep",
     sweep_text().split("[grid]")[0] + "variants = []\n",
     "variants", "is empty"),
    *[(f"sweep variant named {name!r}", "sweep", sweep_text(tail=f'[[variants]]\nname = "{name}"\n'
                                                                 '"rules.voluntary_pass" = true'),
       "variants[0].name", "is empty") for name in ("", "  ")],
    # a constraint naming a key the base config does not have
    ("tune constraint unknown key", "tune",
     tune_text(tail='[[constraints]]\nsum = "rules.order_chit_movez"\nmin = 1'), "constraints[0].sum",
     "did you mean order_chit_moves?"),
    ("tune constraint by unknown key", "tune",
     tune_text(tail='[[constraints]]\nnondecreasing = "rules.order_chit_moves[*]"\nby = "rules.tie_breaks"'),
     "constraints[0].by", "did you mean tie_break?"),
    # a budget too small for one model trial; a confirmation of no games
    ("tune budget below one trial", "tune",
     tune_text("budget = 300", tail=MODEL.replace("final_games = 20", "final_games = 400")), "budget",
     "one trial played to the end 400"),
    ("tune model confirmation of 0 games", "tune", tune_text(tail=MODEL.replace("confirm_games = 20",
                                                                                "confirm_games = 0")),
     "search.confirm_games", "got 0"),
    # grids past the stated limits, counted before they are expanded
    ("sweep grid of a million points", "sweep", sweep_text(grid=BIG_GRID), "grid",
     f"at most {MAX_VARIANTS:,} variants"),
    # unknown keys in every table, with did-you-mean
    ("tune unknown top key", "tune", tune_text("budgett = 3"), "budgett", "did you mean budget?"),
    ("tune unknown search key in a race", "tune", tune_text(tail="[search]\nsamplr = \"tpe\""),
     "search.samplr", "did you mean sampler?"),
    ("tune search key a race ignores", "tune",
     tune_text(tail='[search]\nmethod = "racing"\nsampler = "tpe"'), "search.sampler", "would be ignored"),
    ("tune racing key a model search ignores", "tune", tune_text(tail=MODEL + "[racing]\ngrowth = 3"),
     "racing.growth", "would be ignored"),
    ("tune unknown racing key", "tune", tune_text(tail="[racing]\ngrowht = 3"), "racing.growht",
     "did you mean growth?"),
    ("tune unknown target key", "tune", tune_text(tail="tolerence = 0.1"), "target.tolerence",
     "did you mean tolerance?"),
    ("tune unknown length key", "tune", tune_text(tail="length = {mn = 3}"), "target.length.mn",
     "did you mean min?"),
    ("tune unknown space spec key", "tune", tune_text(space='"rules.order_chit_moves[1]" = {min = 0, '
                                                            'max = 1, stpe = 1}'),
     'space."rules.order_chit_moves[1]".stpe', "did you mean step?"),
    ("tune unknown constraint key", "tune",
     tune_text(tail='[[constraints]]\nsum = "rules.order_chit_moves[*]"\nmni = 1'), "constraints[0].mni",
     "did you mean min?"),
    ("sweep unknown top key", "sweep", sweep_text("gmaes = 3"), "gmaes", "did you mean games?"),
    # player counts the game is not for: the sweep (tune) file and its key, not the base config
    ("sweep players 7", "sweep", sweep_text("players = [7]"), "players[0]", "for 2 to 4 players, got 7"),
    ("sweep variant players 7", "sweep", sweep_text(tail='[[variants]]\nname = "x"\nplayers = [7]\n'
                                                        '"rules.tie_break" = "first_in_order"'),
     "variants[0].players[0]", "for 2 to 4 players, got 7"),
    ("tune players 7", "tune", tune_text("players = 7"), "players", "for 2 to 4 players, got 7"),
]


def listing(folder: Path) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)


@pytest.mark.parametrize("case, command, text, key, what", CASES, ids=[c[0] for c in CASES])
def test_bad_study_file_refused_in_one_line_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                            case: str, command: str, text: str, key: str,
                                                            what: str) -> None:
    path = tmp_path / f"{command}.toml"
    path.write_text(text)
    before = listing(tmp_path)
    code = main([command, str(path), "--out", str(tmp_path / "out"), "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"balance: {path}: {key}: ") and what in err, err
    assert listing(tmp_path) == before


def test_sweep_too_large_for_the_disk_refused_before_its_folder(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    """A sweep whose logs cannot fit is refused by its `games` before the sweep folder is made."""
    path = tmp_path / "sweep.toml"
    grid = '"rules.tie_break" = ["last_in_order", "first_in_order", "shared"]'
    path.write_text(sweep_text(f"games = {MAX_GAMES}\nplayers = [2, 3, 4]", grid=grid))
    before = listing(tmp_path)
    code = main(["sweep", str(path), "--out", str(tmp_path / "out"), "--jobs", "1"])
    err = capsys.readouterr().err
    if code == 0:  # pragma: no cover - a disk of more than 3.6 TB free
        pytest.skip("this disk holds the logs of 9 billion games")
    assert code == 2 and err.startswith(f"balance: {path}: games: ") and "GB free" in err, err
    assert len(err.strip().splitlines()) == 1 and listing(tmp_path) == before


def test_a_model_tune_that_has_played_its_space_through_stops_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Five candidates, a budget for hundreds of trials: the search stops once each is played as far as it
    goes, and search.json and the printed lines say so."""
    path = tmp_path / "tune.toml"
    path.write_text(tune_text("budget = 100000", space='"rules.order_chit_moves[1]" = {min = 0, max = 4}',
                              tail=MODEL + "startup_trials = 2\ncurve_checks = 1\ncurve_games = 20\n"))
    out = tmp_path / "out"
    assert main(["tune", str(path), "--out", str(out), "--jobs", "1"]) == 0
    printed = capsys.readouterr()
    summary = json.loads((out / "search.json").read_text())
    assert "the space is exhausted: each of its 5 candidates" in summary["stopped"]
    assert "space is exhausted" in printed.out
    assert summary["studies"]["model"]["spent"] <= 5 * 20


@pytest.mark.parametrize("command, limits", [
    ("sweep", [MAX_VARIANTS, "games at most 10^9"]),
    ("tune", [MAX_DIMENSION_VALUES, MAX_RACED, "game counts at most 10^9", "no nan or inf",
              f"growth and eta from {GROWTH[0]:g} to {GROWTH[1]:g}"])])
def test_the_limits_are_said_in_help(command: str, limits: list, capsys: pytest.CaptureFixture) -> None:
    assert MAX_GAMES == 10**9
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for limit in limits:
        assert (f"{limit:,}" if isinstance(limit, int) else limit) in text


def test_an_auto_tune_may_set_both_ways_the_space_picks_one(tmp_path: Path) -> None:
    """method = "auto" (the default) leaves the choice to the space's size, so [search] and [racing] keys
    are both welcome (the workbench writes both); only a method given by name refuses the other's keys."""
    from sim.design.tune_file import load_tune

    path = tmp_path / "auto.toml"
    path.write_text(tune_text(tail="[search]\nconfirm_games = 20\n[racing]\nconfirm_games = 20"))
    assert load_tune(path).method == "racing"
