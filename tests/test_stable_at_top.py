"""Stable at the top, decided (docs/howto/skill.md): under `--until-decided` a profile's two top levels play
on together, on the same deals, until every answer's change from one to the other is decided at its
margin; the plan says the games it needs; a sentence says which answers the two levels agree on within the
margin and which still move. The tie-break is judged on what it does at both levels, deal by deal."""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.change_verdicts import (
    change_verdicts,
    games_if_unchanged,
    stable_text,
    tiebreak_judged,
    top_pair,
)
from analysis.kamakura.ties import win_shares
from analysis.paired import pair_sums, per_game, shared_shares
from analysis.run_tally import read_run_tally
from analysis.tally import SHARE_SCALE, hist
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


# ---- the tie-break, judged on what it does ---------------------------------------------------------------
#: two levels' final scores on the same four deals (3 seats), under last_in_order (R-9): the highest tied
#: seat wins
TOP_SCORES = [(10, 5, 3), (8, 2, 8), (6, 6, 6), (1, 9, 4)]
BELOW_SCORES = [(7, 7, 1), (3, 9, 2), (2, 5, 5), (4, 0, 9)]


def _frame(scores: list[tuple[int, ...]]) -> pd.DataFrame:
    """A level's per-game frame (analysis.paired.per_game) with its shares re-scored with tied wins shared."""
    score = np.array(scores, dtype=float)
    n, k = score.shape
    players = pd.DataFrame({"game_id": np.repeat(np.arange(n), k), "seat": np.tile(np.arange(k), n),
                            "win_share": win_shares(score, None, "last_in_order").reshape(-1),
                            "score": score.reshape(-1)})
    tied = (score == score.max(axis=1, keepdims=True)).sum(axis=1) > 1
    games = pd.DataFrame({"game_id": np.arange(n), "tie": tied, "decided_by_tiebreak": tied,
                          "turns": np.full(n, 30)})
    return per_game(games, players, "turns", shared_shares(players, win_shares, {}))


def test_the_pair_sums_hold_the_tie_breaks_effect_and_its_change_game_by_game() -> None:
    """e = a seat's share under the rule minus with tied wins shared, by hand:
    top:   game 0 no tie (0, 0, 0); game 1 seats 0 and 2 tied, 2 wins (-1/2, 0, +1/2); game 2 all three tied,
           2 wins (-1/3, -1/3, +2/3); game 3 no tie (0, 0, 0);
    below: game 0 seats 0 and 1 tied, 1 wins (-1/2, +1/2, 0); game 1 no tie (0, 0, 0); game 2 seats 1 and 2
           tied, 2 wins (0, -1/2, +1/2); game 3 no tie (0, 0, 0);
    top minus below: (+1/2, -1/2, 0), (-1/2, 0, +1/2), (-1/3, +1/6, +1/6), (0, 0, 0)."""
    t = pair_sums(_frame(TOP_SCORES), _frame(BELOW_SCORES))["tiebreak"]
    half, third, sixth = SHARE_SCALE // 2, SHARE_SCALE // 3, SHARE_SCALE // 6
    assert t["games"].tolist() == [4, 4, 4]
    assert t["variant"].tolist() == [-half - third, -third, half + 2 * third]
    assert t["base"].tolist() == [-half, half - half, half]
    assert t["change"].tolist() == [half - half - third, -half + sixth, half + sixth]
    assert t["change_squares"].tolist() == [half**2 + half**2 + third**2, half**2 + sixth**2,
                                            half**2 + sixth**2]


def _same_ties_other_seats(n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both levels tie the top score on the same fifth of the deals, but the top level's ties are between
    seats 0 and 2 (seat 2 wins) and the level below's between seats 0 and 1 (seat 1 wins): the tie rate
    does not change, what the tie-break does to seats 1 and 2 changes by 10 pp each."""
    top, below = [], []
    for g in range(n):
        alone = [3, 3, 3]
        alone[g % 3] = 9
        top.append((9, 1, 9) if g % 5 == 0 else tuple(alone))
        below.append((9, 9, 1) if g % 5 == 0 else tuple(alone))
    return _frame(top), _frame(below)


def test_the_tie_break_at_the_top_is_judged_on_what_it_does_not_on_how_often_ties_happen() -> None:
    top, below = _same_ties_other_seats(2000)
    pair = pair_sums(top, below)
    common = [{"games": len(f), "ties": np.array([int(f["tie"].sum()), int(f["tie"].sum()), 0]),
               "length": hist(f["length"].to_numpy())} for f in (below, top)]
    margins = Margins(asked=("seats", "start", "ties"))
    judged = {v.key: v for v in change_verdicts(*common, pair, "turns", margins, fairer=False, tiebreak=True)}
    assert judged["tiebreak"].status == BEYOND  # seats 1 and 2: 10 pp apart
    assert judged["tiebreak"].detail["alpha"] == pytest.approx(0.05 / 3)  # the ties question's share
    assert judged["ties"].status == "info" and "what the tie-break does is the judged answer" in \
        judged["ties"].sentence
    said = stable_text(list(judged.values()), "search", "expert")
    # the seats move too: a tied game's winner is another seat at each level
    assert said.startswith("Not stable at the top: the seats' win rates and what the tie-break does still "
                           "move from expert to search (changed beyond the margin)")
    # judged on the tie rate instead (as before), the same games would have read "agree"
    by_rate = {v.key: v for v in change_verdicts(*common, pair, "turns", margins, fairer=False)}
    assert by_rate["ties"].status == WITHIN and "tiebreak" not in by_rate
    # the plan counts the tie-break's family (it varies game by game), not the tie rate's (it never does)
    ties = Margins(asked=("ties",))
    assert games_if_unchanged(pair, ties, tiebreak=True) > games_if_unchanged(pair, ties)


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


def test_each_levels_tie_break_effect_in_the_pair_is_its_runs_own(profile) -> None:
    """The pair sums' effect of each level is what that level's own run re-scores (its report's tally, under
    analysis.verdicts.tie_verdict), game by game on the same deals."""
    out, _ = profile
    top, second = read_run_tally(out / "greedy"), read_run_tally(out / "random")
    assert tiebreak_judged(top, second)  # Kamakura's rule of record is last_in_order, not shared
    pair = top_pair(top, second)
    for run, side in ((top, "variant"), (second, "base")):
        own = -run.own["rescore"]["rules"]["shared"]["change"]  # the configured rule minus shared
        assert pair["tiebreak"][side].tolist() == own.tolist()
    assert pair["tiebreak"]["games"].tolist() == [top.n_games] * 3
