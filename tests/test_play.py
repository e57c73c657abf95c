"""`balance play` (API.md): a person plays against agents in the terminal (sim/app/play.py).

The person is a scripted list of answers here. Checked: a whole game of each game completes through the
readable API; bad answers are refused and asked again; q and a closed input stop the game; the same seed
and answers replay the same game; a Sakura human never sees another seat's card before the reveal; bad
agents are refused by the command with exit status 2.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable

import pytest

from sim import ConfigError, games
from sim.agent_spec import parse_spec
from sim.app.play import make_seats, play_game, policy_params
from sim.kamakura.terminal import kamakura_view
from tests.kamakura_helpers import ROOT


class Person:
    """Answers from a script, then a fixed answer (or end of input when None)."""

    def __init__(self, script: Iterable[str] = (), then: str | None = "1") -> None:
        self.script = list(script)
        self.then = then
        self.asked = 0

    def __call__(self, prompt: str) -> str:
        self.asked += 1
        if self.script:
            return self.script.pop(0)
        if self.then is None:
            raise EOFError
        return self.then


def transcript(game: str, players: int, agents: str, seed: int,
               person: Person) -> tuple[dict | None, list[str]]:
    lines: list[str] = []
    result = play_game(game, players, agents, seed, read=person, write=lines.append)
    return result, lines


@pytest.mark.parametrize("game, players, agents", [("kamakura", 2, "human,greedy"),
                                                   ("kamakura", 3, "random,human,mcts:iters=20"),
                                                   ("sakura", 3, "greedy,human,mcts:iters=50"),
                                                   ("sakura", 2, "human")])
def test_a_whole_game_is_played_to_its_result(game, players, agents):
    person = Person()
    result, lines = transcript(game, players, agents, 3, person)
    assert result is not None and result["over"] and result["winners"]
    assert person.asked > 0 and lines[-1].startswith("game over: scores")


def test_the_same_seed_and_answers_replay_the_game():
    first = transcript("kamakura", 2, "human,mcts:iters=30", 5, Person())[1]
    again = transcript("kamakura", 2, "human,mcts:iters=30", 5, Person())[1]
    other = transcript("kamakura", 2, "human,mcts:iters=30", 6, Person())[1]
    assert first == again and first != other


def test_bad_answers_are_refused_and_asked_again():
    """A number out of range, a word that is no action, an action not legal now: each is refused with the
    range shown, and the next good answer (a number or the action as listed) is played."""
    person = Person(["0", "99", "jump", "gain 39", "swap 0 1"], then="q")
    result, lines = transcript("kamakura", 2, "human,greedy", 1, person)
    refusals = [line for line in lines if line.startswith("  not a legal action")]
    assert len(refusals) == 4 and all("answer 1-" in line for line in refusals)
    assert result is None and lines[-1] == "game stopped"
    # the accepted `swap 0 1` shows in the next view's board
    views = [line for line in lines if line.startswith("Kamakura, turn")]  # one write a view
    assert len(views) == 2 and views[1].splitlines()[1].split()[:2] == ["Y0", "R1"]


def test_closed_input_stops_the_game():
    result, lines = transcript("sakura", 2, "human,greedy", 1, Person(then=None))
    assert result is None and lines[-1] == "game stopped"


def test_a_sakura_human_sees_no_card_before_it_is_revealed():
    """Agents' selections are announced as 'chose a card' and named only in the 'revealed' line after the
    round's last selection; the views are the human seat's observation."""
    _, lines = transcript("sakura", 4, "greedy,human,mcts:iters=50,random", 7, Person())
    assert not [line for line in lines if re.search(r"\): (play|court) \d+", line)]
    assert any("chose a card" in line for line in lines)
    revealed = [line for line in lines if line.startswith("  revealed: ")]
    assert revealed and all(len(re.findall(r"seat \d play \d+", line)) == 4 for line in revealed)
    views = [line for line in lines if line.startswith("Sakura, round")]
    assert views and all("you see seat 1's view" in view and "your hand: " in view for view in views)


def test_agents_without_a_person_play_on_their_own():
    def no_person(prompt: str) -> str:
        raise AssertionError("nobody should be asked")

    result = play_game("kamakura", 3, "greedy,random,mcts:iters=10", 2, read=no_person, write=lambda _: None)
    assert result is not None and result["over"]


def test_mcts_parameters_reach_the_policy():
    params = policy_params(parse_spec("mcts:iters=7,rollout=random,tree=actions", "kamakura"), "kamakura")
    assert params["iters"] == 7 and params["rollout"] == 0 and params["tree"] == 1
    assert set(params) == set(games.spec("kamakura").agents["mcts"].params)
    seats = make_seats("sakura", 2, "human,mcts:c=0.3", 0)
    assert seats[0].policy is None and seats[1].policy.params["c"] == 0.3


def test_unknown_agents_are_refused_naming_human_among_the_known():
    with pytest.raises(ConfigError, match="robot.*human"):
        make_seats("kamakura", 2, "human,robot", 0)


def test_the_kamakura_view_shows_the_whole_position():
    g = games.load("kamakura", players=2)
    agents = [seat.agent for seat in make_seats("kamakura", 2, "human,greedy", 0)]
    view = kamakura_view(g.to_dict(g.new_state(seed=0)), agents)
    assert "seat 0 to move" in view and "order chit: 2 move(s)" in view
    assert sum(line.startswith("    row ") or line.startswith("    col ") for line in view.splitlines()) == 8


def balance(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=600)


def test_the_command_plays_from_standard_input_and_refuses_bad_agents():
    run = balance("play", "kamakura", "--agents", "human,greedy", "--seed", "3", stdin="1\n" * 400)
    assert run.returncode == 0 and "game over: scores" in run.stdout, run.stderr
    bad = balance("play", "sakura", "--players", "3", "--agents", "human,robot,greedy")
    assert bad.returncode == 2 and "robot" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert "Traceback" not in bad.stderr
