"""The command line: results on good input; one-line refusals, exit 2 and no traceback on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "kamakura" / "base.toml"


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_study_prints_seat_win_rates_with_sample_size() -> None:
    run = balance("study", str(BASE), "--players", "3", "--games", "400", "--agents", "random", "--seed", "3")
    assert run.returncode == 0, run.stderr
    assert "n = 400 games" in run.stdout
    rows = [line for line in run.stdout.splitlines() if line.strip().startswith(("0 ", "1 ", "2 "))]
    assert len(rows) == 3 and all("%" in row and "[" in row for row in rows)


def seat_column(text: str) -> list[int]:
    """The seat numbers of a printed seat table: the rows after the header whose first word is a number."""
    lines = text.splitlines()
    headers = (["seat", "agent"], ["seat", "agents"])
    start = next(i for i, line in enumerate(lines) if line.split()[:2] in headers)
    seats = []
    for line in lines[start + 1:]:
        first = line.split()[:1]
        if not first or not first[0].isdigit():
            break
        seats.append(int(first[0]))
    return seats


def test_seats_are_counted_from_zero_where_people_read_them(tmp_path: Path) -> None:
    """`summary` and `study` number seats 0..P-1 like the report, `play`, the configs and
    the tables, and say that seat 0 starts."""
    out = tmp_path / "run"
    made = balance("simulate", str(BASE), "--players", "3", "--games", "60", "--agents", "random",
                   "--out", str(out))
    assert made.returncode == 0, made.stderr
    summary = balance("summary", str(out))
    study = balance("study", str(BASE), "--players", "3", "--games", "60", "--agents", "random")
    for run in (summary, study):
        assert run.returncode == 0, run.stderr
        assert seat_column(run.stdout) == [0, 1, 2] and "seat 0 starts" in run.stdout


def test_study_same_seed_same_output() -> None:
    args = ("study", str(BASE), "--players", "2", "--games", "300", "--agents", "greedy,random",
            "--seed", "9")
    a, b = balance(*args), balance(*args)
    assert a.returncode == 0, a.stderr
    timing_free = [line for line in a.stdout.splitlines() if "games/s" not in line]
    assert timing_free == [line for line in b.stdout.splitlines() if "games/s" not in line]


def test_agent_list_must_fit_the_seats() -> None:
    run = balance("study", str(BASE), "--players", "4", "--games", "30", "--agents", "greedy,random")
    assert run.returncode == 2 and "one agent for every seat" in run.stderr


BAD_CONFIGS = {
    "unknown key": ("[rules]\ncolour_blind = true\n", "rules.colour_blind"),
    "nine greens": (None, "chits.green"),
    "icons 5": (None, "chits.red[0].icons"),
    "short order chits": ("[rules]\norder_chit_moves = [0, 2]\n", "rules.order_chit_moves"),
    "bad layout": ('[rules]\nlayout = "RRRRRYGBGBYYBGYB"\n', "rules.layout"),
    "bad tie break": ('[rules]\ntie_break = "coin_flip"\n', "rules.tie_break"),
    "syntax": ("[rules\n", "TOML syntax error"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_refused_by_key_exit_2_no_traceback(case: str, tmp_path: Path) -> None:
    override, key = BAD_CONFIGS[case]
    path = tmp_path / "variant.toml"
    if override is not None:
        path.write_text(f'extends = "{BASE.as_posix()}"\n{override}')
    else:
        text = BASE.read_text()
        if case == "nine greens":
            marker = "green = [\n"
            start = text.index(marker) + len(marker)
            text = text[:start] + text[text.index("\n", start) + 1:]
        else:
            text = text.replace("{icons = 1, points = 1, power = 1}", "{icons = 5, points = 1, power = 1}", 1)
        path.write_text(text)
    run = balance("study", str(path), "--players", "3", "--games", "10")
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert key in run.stderr and "variant.toml" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, fragment", [
    (("--players", "5"), "players"),
    (("--players", "3", "--agents", "wizard"), "unknown agent 'wizard'"),
    (("--players", "3", "--agents", "random:depth=3"), "no parameter 'depth'"),
    (("--players", "3", "--games", "0"), "--games"),
])
def test_bad_arguments_refused(args: tuple[str, ...], fragment: str) -> None:
    run = balance("study", str(BASE), *args)
    assert run.returncode == 2 and fragment in run.stderr and "Traceback" not in run.stderr


def test_missing_config_file_refused() -> None:
    run = balance("study", "configs/kamakura/nope.toml", "--players", "3")
    assert run.returncode == 2 and "nope.toml" in run.stderr and "Traceback" not in run.stderr


def test_bench_json_reports_both_paths() -> None:
    run = balance("bench", "--json", "--scale", "0.02", "--repeats", "1")
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    assert figures["kamakura_random_games_per_s"] > 0 and figures["kamakura_api_games_per_s"] > 0
    assert figures["kamakura_players"] == 3 and figures["sakura_players"] == 4
    assert figures["sakura_random_games_per_s"] > 0 and figures["sakura_api_games_per_s"] > 0
    # strong play's cost, measured in the same run: expert and mcts self-play and their ratio
    for name, iters in (("kamakura", 1000), ("sakura", 2000)):
        if f"{name}_expert_selfplay_games_per_s" in figures or name == "kamakura":
            expert = figures[f"{name}_expert_selfplay_games_per_s"]
            mcts = figures[f"{name}_mcts{iters}_selfplay_games_per_s"]
            assert expert > 0 and mcts > 0
            assert figures[f"{name}_expert_over_mcts{iters}"] == pytest.approx(expert / mcts, rel=0.05)
    for name in ("kamakura", "sakura"):  # random play through the other libraries' APIs, in the same run
        for api in ("openspiel", "pettingzoo"):
            assert figures[f"{name}_{api}_random_games_per_s"] > 0
    search = figures["sakura_search_selfplay_games_per_s"]  # the rung above expert
    assert search > 0 and figures["sakura_search_cost_over_expert"] == pytest.approx(
        figures["sakura_expert_selfplay_games_per_s"] / search, rel=0.05)
    # where strong play costs most: expert and search at each game's most players (Sakura 6, Kamakura 4)
    for name, most in (("sakura", 6), ("kamakura", 4)):
        for agent in ("expert", "search"):
            assert figures[f"{name}_{agent}_selfplay_games_per_s_{most}p"] > 0
            assert figures[f"{name}_strong_selfplay_games_per_repeat"][f"{agent}_{most}p"] >= 1


SAKURA = ROOT / "configs" / "sakura" / "base.toml"
SAKURA_BAD = {
    "unknown key": ("[board]\nrivers = 2\n", "board.rivers"),
    "sakura not increasing": ("[board]\nsakura = [12, 28, 20]\n", "board.sakura[2]"),
    "sakura off the path": ("[board]\nsakura = [12, 20, 31]\n", "board.sakura[2]"),
    "torii after first sakura": ("[board]\ntorii = 13\n", "board.torii"),
    "bridge off the path": ("[board]\nbridges = [8, 16, 24, 40]\n", "board.bridges[3]"),
    "unknown variant": ('[rules]\ntwo_player_variant = "solo"\n', "rules.two_player_variant"),
    "59 cards": (None, "cards"),
}


@pytest.mark.parametrize("case", sorted(SAKURA_BAD))
def test_bad_sakura_config_refused_by_key(case: str, tmp_path: Path) -> None:
    override, key = SAKURA_BAD[case]
    path = tmp_path / "variant.toml"
    if override is not None:
        path.write_text(f'extends = "{SAKURA.as_posix()}"\n{override}')
    else:
        text = SAKURA.read_text()
        path.write_text(text[:text.rindex("[[cards]]")])
    run = balance("study", str(path), "--players", "4", "--games", "10")
    assert run.returncode == 2 and run.stdout == ""
    assert "Traceback" not in run.stderr and key in run.stderr and "variant.toml" in run.stderr


def test_sakura_players_out_of_range_refused() -> None:
    for players in ("1", "7"):
        run = balance("study", str(SAKURA), "--players", players)
        assert run.returncode == 2 and "players" in run.stderr and "Traceback" not in run.stderr


def test_sakura_study_prints_seat_win_rates() -> None:
    run = balance("study", str(SAKURA), "--players", "4", "--games", "500", "--agents", "greedy,random")
    assert run.returncode == 2  # two agents for four seats
    run = balance("study", str(SAKURA), "--players", "4", "--games", "500", "--seed", "2", "--agents",
                  "random")
    assert run.returncode == 0 and "n = 500 games" in run.stdout and "Sakura study" in run.stdout
