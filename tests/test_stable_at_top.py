"""Stable at the top, decided (docs/howto/skill.md): under `--until-decided` a profile's two top levels play
on together, on the same deals, until every answer's change from one to the other is decided at its
margin; the plan says the games it needs; a sentence says which answers hold for strong play and which
still move."""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.change_verdicts import games_if_unchanged, stable_text, top_pair
from analysis.run_tally import read_run_tally
from analysis.verdicts import BEYOND, SMALL, TOO_FEW, UNDECIDED, WITHIN, Margins, Verdict, parse_margins
from sim import games
from sim.design.profile import DEFAULT_LEVELS, TOP_RUNG, default_levels, parse_levels
from tests.test_runner import KAMAKURA

ROOT = Path(__file__).resolve().parents[1]


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, cwd=ROOT)


def _verdict(key: str, status: str) -> Verdict:
    nan = math.nan
    return Verdict(key, "?", status, f"{key}: ...", value=nan, low=nan, high=nan, unit="pp", margin=0.02,
                   n=500)


# ---- the sentence --------------------------------------------------------------------------------------
def test_every_answer_held_says_the_two_levels_agree() -> None:
    """No stronger than the test: two levels equivalent within the margin, not "holds for strong play"."""
    said = stable_text([_verdict("seats", WITHIN), _verdict("start", SMALL)], "search", "expert")
    assert said == ("Stable at the top: every answer asked agrees: expert and search agree on the seats' win "
                    "rates and the start player's win rate within the margin.")
    assert "strong play" not in said


def test_what_moves_is_named_with_what_holds_and_what_is_open() -> None:
    said = stable_text([_verdict("seats", WITHIN), _verdict("start", BEYOND), _verdict("ties", UNDECIDED),
                        _verdict("length", "info")], "search", "expert")
    assert said == ("Not stable at the top: the start player's win rate still moves from expert to search "
                    "(changed beyond the margin), so stronger play may move it further; expert and search "
                    "agree on the seats' win rates within the margin; undecided: ties.")


def test_only_open_answers_say_more_games_would_decide_them() -> None:
    said = stable_text([_verdict("seats", UNDECIDED), _verdict("ties", TOO_FEW), _verdict("start", WITHIN)],
                       "search", "expert")
    assert said.startswith("Stable at the top: undecided for the seats' win rates and ties (more games of "
                           "expert and search would decide them); expert and search agree on the start "
                           "player's win rate")


def test_levels_that_played_other_deals_are_not_judged() -> None:
    assert "not judged" in stable_text([], "search", "expert")


# ---- the default levels --------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["kamakura", "sakura"])
def test_default_levels_end_with_expert_and_the_rung_above_it(game: str) -> None:
    spec = games.spec(game)
    offered = dataclasses.replace(spec, agents={**spec.agents, TOP_RUNG: spec.agents["expert"]})
    without = {k: v for k, v in spec.agents.items() if k != TOP_RUNG}
    assert default_levels(offered).split(",")[-2:] == ["expert", TOP_RUNG]
    assert default_levels(dataclasses.replace(spec, agents=without)) == DEFAULT_LEVELS
    assert [name for name, _ in parse_levels(None, spec)] == default_levels(spec).split(",")


# ---- the stage, on real runs ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("stable") / "profile"
    done = balance("profile", KAMAKURA, "--players", "3", "--levels", "random,greedy", "--until-decided",
                   "--games", "3000", "--questions", "seats,start", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done


def test_the_top_two_levels_play_on_together_to_the_same_deals(profile) -> None:
    out, done = profile
    line = next(line for line in done.stdout.splitlines() if line.startswith("until decided: "))
    paired = re.search(r"stable at the top (decided|undecided at the games cap) at ([\d,]+) paired games",
                       line)
    assert paired, line
    n = int(paired.group(2).replace(",", ""))
    top, second = read_run_tally(out / "greedy"), read_run_tally(out / "random")
    assert top.n_games == second.n_games == n
    assert top_pair(top, second) is not None  # the same deals, game by game
    assert "stable at the top (random -> greedy): until every answer's change is decided" in done.stderr
    assert "until decided: plan: were there no difference at all" in done.stderr


def test_the_sentence_is_printed_and_in_the_report(profile) -> None:
    out, done = profile
    sentences = [line for line in done.stdout.splitlines() if "stable at the top" in line.lower()
                 and not line.startswith("until decided")]
    assert len(sentences) == 1, done.stdout
    # random and greedy differ in far more than 2 pp of a seat's win rate: that moves
    assert sentences[0].startswith("Not stable at the top: the seats' win rates"), sentences[0]
    assert sentences[0] in (out / "report" / "index.html").read_text()


def test_the_plan_is_the_games_that_decide_every_change_were_it_zero(profile) -> None:
    out, _ = profile
    pair = top_pair(read_run_tally(out / "greedy"), read_run_tally(out / "random"))
    margins = parse_margins(None, "seats,start")
    planned = games_if_unchanged(pair, margins)
    assert planned >= 200
    wider = games_if_unchanged(pair, parse_margins("4", "seats,start"))
    assert wider < planned  # a wider margin is decided sooner
    # each question asked adds a family to decide, and a share of the error rate is split off for it
    only_start = games_if_unchanged(pair, Margins(asked=("start",)))
    every = games_if_unchanged(pair, Margins(asked=("seats", "start", "ties", "length")))
    assert only_start <= planned <= every
    # the start player alone is one sequence: the plan is where its equivalence half-width meets the margin
    from analysis.change_verdicts import _start_family

    fam = _start_family(pair, 3, 0.02, 0.05)
    assert only_start == max(200, fam.design.games_for(0.02, float(fam.sd[0])))


def test_run_again_plays_nothing(profile) -> None:
    out, _ = profile
    again = balance("profile", KAMAKURA, "--players", "3", "--levels", "random,greedy", "--until-decided",
                    "--games", "3000", "--questions", "seats,start", "--jobs", "1", "--out", str(out),
                    "--quiet")
    assert again.returncode == 0, again.stderr
    assert "0 games played" in again.stdout
