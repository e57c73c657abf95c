"""`balance play` (docs/howto/play.md): a person plays against agents in the terminal (sim/app/play.py).

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
from sim.app.play import make_seats, play_game, policy_params
from sim.core.agent_spec import parse_spec
from sim.kamakura.terminal import kamakura_view
from tests.kamakura_helpers import ROOT
from tests.sakura_helpers import make_state


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
    result = play_game(games.spec(game), players, agents, seed, read=person, write=lines.append)
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
    assert len(views) == 2 and views[1].splitlines()[3].split()[:6] == ["row", "0", "0", "Y", "1", "R"]


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

    result = play_game(games.spec("kamakura"), 3, "greedy,random,mcts:iters=10", 2, read=no_person,
                       write=lambda _: None)
    assert result is not None and result["over"]


def test_mcts_parameters_reach_the_policy():
    kamakura = games.spec("kamakura")
    params = policy_params(parse_spec("mcts:iters=7,rollout=random,tree=actions", kamakura), kamakura)
    assert params["iters"] == 7 and params["rollout"] == 0 and params["tree"] == 1
    assert set(params) == set(games.spec("kamakura").agents["mcts"].params)
    seats = make_seats(games.spec("sakura"), 2, "human,mcts:c=0.3", 0)
    assert seats[0].policy is None and seats[1].policy.params["c"] == 0.3


def test_unknown_agents_are_refused_naming_human_among_the_known():
    with pytest.raises(ConfigError, match="robot.*human"):
        make_seats(games.spec("kamakura"), 2, "human,robot", 0)


def test_the_kamakura_view_draws_the_board_as_a_grid_with_cells_and_chits_told_apart():
    """The board is a 4x4 grid of cell numbers 0-15 with their tiles' colours (the numbers
    `swap a b` takes); chits are `#id` with their colour (the numbers `gain` and `use` take), so no cell
    reads like a chit; counts agree in number ("1 point", "2 moves")."""
    g = games.load("kamakura", players=2)
    d = g.to_dict(g.new_state(seed=0))
    agents = [seat.agent for seat in make_seats(games.spec("kamakura"), 2, "human,greedy", 0)]
    lines = kamakura_view(d, agents).splitlines()
    assert "seat 0 to move" in lines[0]
    assert "order chit: 2 moves" in "\n".join(lines) and "order chit: no moves" in "\n".join(lines)
    grid = [line.split() for line in lines if re.fullmatch(r"    row \d( +\d+ [RYGB]){4}", line)]
    assert len(grid) == 4
    for row, words in enumerate(grid):
        cells = words[2:]
        assert [int(n) for n in cells[0::2]] == [4 * row + col for col in range(4)]
        assert "".join(cells[1::2]) == d["board"][4 * row:4 * row + 4]
    chit_lines = [line for line in lines if re.match(r"    (row|col|diag|anti)", line) and "#" in line]
    assert len(chit_lines) == 10
    shown = [int(m) for line in chit_lines for m in re.findall(r"#(\d+) [RYGB] \d+i \d+p", line)]
    assert sorted(shown) == list(range(40))
    assert not re.search(r"\b[RYGB]\d", "\n".join(lines)) and " 1 points" not in "\n".join(lines)


def menu_of(lines: list[str]) -> tuple[list[str], dict[int, str]]:
    """The first menu in a transcript: its group headings and number -> entry text."""
    start = next(i for i, line in enumerate(lines) if line.startswith("  legal actions"))
    headings, entries = [], {}
    for line in lines[start].splitlines()[1:] if "\n" in lines[start] else lines[start + 1].splitlines():
        if re.fullmatch(r"   \S.*:", line):
            headings.append(line.strip().rstrip(":"))
        for number, text in re.findall(r"(\d+)\) (.+?)(?= {2,}\d+\)|$)", line.strip()):
            entries[int(number)] = text.strip()
    return headings, entries


def test_legal_actions_are_grouped_by_kind_and_listed_in_columns(monkeypatch):
    """Kamakura's ~40 opening actions: grouped (swaps, gains), several per line, numbered 1..n in the
    legal-actions order of each group, every legal action once, each with what it acts on; answering a
    number plays that entry. The terminal is 100 columns wide (the menu fits its width, and a test worker
    has no terminal of its own)."""
    monkeypatch.setenv("COLUMNS", "100")
    g = games.load("kamakura", players=2)
    s = g.new_state(seed=3)
    legal = g.legal_actions(s)
    _, lines = transcript("kamakura", 2, "human,greedy", 3, Person(["25"], then="q"))
    headings, entries = menu_of(lines)
    assert headings == ["swap two adjacent cells", "gain a chit"]
    assert sorted(entries) == list(range(1, len(legal) + 1))
    assert [text.split(" (")[0] for _, text in sorted(entries.items())] == legal
    menu_lines = lines[lines.index(next(x for x in lines if x.startswith("  legal actions")))].splitlines()
    assert len(menu_lines) < len(legal) / 2  # columns: well under one line an action
    assert re.fullmatch(r"swap 0 1 \([RYGB]\|[RYGB]\)", entries[1])
    gain = entries[25]
    assert re.fullmatch(r"gain (\d+) \(#\1 [RYGB] \d+i \d+p( \+\d+)?, (row|col|diagonal|anti-diag).*\)", gain)
    chit = int(gain.split()[1])
    after = [line for line in lines if line.startswith("Kamakura, turn")][1]
    assert f"#{chit} " not in after.split("chits on the board")[1].split("seat 0")[0]  # gained: off the board


def test_default_agents_fit_the_player_count():
    """`balance play GAME --players N` without --agents: the person in seat 0, mcts in the N-1 others."""
    for game, players in [("kamakura", 4), ("sakura", 3), ("sakura", 6)]:
        seats = make_seats(games.spec(game), players, None, 0)
        assert [seat.agent.split(":")[0] for seat in seats] == ["human"] + ["mcts"] * (players - 1)
        assert seats[0].policy is None and all(seat.policy is not None for seat in seats[1:])


def narrated(d: dict, *actions: str) -> list[str]:
    """What `balance play` says after each of `actions`, applied from the state dict `d` (3 players)."""
    g = games.load("sakura", players=d["players"])
    view = games.spec("sakura").terminal
    s, lines = g.from_dict(d), []
    for action in actions:
        before, s = s, g.apply(s, action)
        lines += view.narrate(g, before, s, ["a", "b", "c"][:d["players"]])
    return lines


def test_a_sakura_round_is_told_step_by_step_with_bumps_tokens_and_line_up():
    """Seat 2's card completes the round: card 1 (Emperor +1, painter +2) moves the Emperor 10 -> 11, and
    seat 0's painter at 9 bumps into him (R-15: three empty spaces back from 11, its own space counting:
    8) and loses a token; card 10 takes the Emperor onto the cherry tree at 12, which stops him (R-12)
    while the card's painter half is still done (seat 1: 7 -> 9, skipping seat 0 on 8); the tree pays
    3/2/1, seat 2 ranked third alone on the gate (R-13), card 12 is discarded unresolved, and the line-up
    (R-18) moves nobody: seat 0 already stands behind the closest, seat 2 stays on the gate."""
    d = make_state(3, emperor=10, painters=[9, 7, 0], selected={0: 1, 1: 10}, hands={2: [12]}, round=4)
    assert narrated(d, "play 12") == [
        "  round 4 resolves, cards in order number:",
        "    card 1 of seat 0: Emperor forward 1: Emperor 10 -> 11",
        "      then seat 0's painter forward 2: seat 0's painter 9 -> 8 (bumped: loses a token, 4 left)",
        "    card 10 of seat 1: Emperor forward 1: Emperor 11 -> 12",
        "      then seat 1's painter forward 1: seat 1's painter 7 -> 9",
        "    the Emperor reaches the cherry tree at 12 for the first time: tokens seat 1 +3, seat 0 +2, "
        "seat 2 +1",
        "    discarded unresolved: card 12",
        "    line-up behind the closest: nobody moves",
        "  round 5: everybody draws back to 5 cards"]


def test_a_forward_or_back_choice_splits_the_story_where_the_owner_answers():
    """Card 6 (Emperor forward or back 1) of seat 0 waits for its owner: the move that completes the
    selections tells nothing (nothing has resolved), the answer tells the garden half with the direction
    taken, then the rest; the Emperor moving back onto a painter bumps that painter (R-15); a painter with
    no token loses none."""
    d = make_state(3, emperor=10, painters=[9, 0, 0], tokens=[0, 5, 5], selected={0: 6, 1: 10},
                   hands={2: [12]})
    assert narrated(d, "play 12") == []
    lines = narrated(d, "play 12", "back")
    assert lines[0] == "  round 1 resolves, cards in order number:"
    assert lines[1] == "    card 6 of seat 0: Emperor forward or back 1, back: Emperor 10 -> 9; " \
                       "seat 0's painter 9 -> 6 (bumped: no token left to lose)"
    assert lines[2].startswith("      then seat 0's painter ")
    assert lines[3].startswith("    card 10 of seat 1")


def test_the_told_moves_chain_from_each_position_to_the_next():
    """Over whole scripted games at 2, 3 and 6 players: every told move starts where the piece was last
    told to be (from the start: Emperor on the torii, painters on the gate), the court painter's too, and
    the line-ups. So the story misses no move and invents none."""
    for players, agents in [(2, "human,greedy"), (3, "human,greedy,random"),
                            (6, "human,greedy,random,greedy,random,greedy")]:
        result, lines = transcript("sakura", players, agents, 11, Person(then="1"))
        assert result is not None
        g = games.load("sakura", players=players)
        emperor, where = g.to_dict(g.new_state(seed=11))["emperor"], {}
        told = 0
        for line in lines:
            for who, a, b in re.findall(r"(seat \d|the court painter)(?:'s painter)? (\d+) -> (\d+)", line):
                assert where.get(who, 0) == int(a), line
                where[who] = int(b)
                told += 1
            for a, b in re.findall(r"Emperor (\d+) -> (\d+)", line):
                assert emperor == int(a), line
                emperor = int(b)
        assert told > 10


def balance(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=600)


def test_the_command_plays_from_standard_input_and_refuses_bad_agents():
    """Scripted standard input through `balance play` itself: Kamakura shows the grid, the grouped menu
    and what the agents gained; Sakura at 3 players with the default agents shows the revealed cards with
    their actions and each round step by step."""
    run = balance("play", "kamakura", "--agents", "human,greedy", "--seed", "3", stdin="1\n" * 400)
    assert run.returncode == 0 and "game over: scores" in run.stdout, run.stderr
    out = run.stdout
    assert "board (cell number and tile colour):" in out and "   swap two adjacent cells:" in out
    assert re.search(r"seat 1 \(greedy\): gain \d+ \(#\d+ ", out) and re.search(r"  seat 1 gains #\d+ ", out)
    run = balance("play", "sakura", "--players", "3", "--seed", "3", stdin="1\n" * 400)
    assert run.returncode == 0 and "game over: scores" in run.stdout, run.stderr
    out = run.stdout
    assert "seat 0 human, seat 1 mcts, seat 2 mcts" in out and "path: gate 0, spaces 1 to 30" in out
    assert re.search(r"revealed: seat 0 play \d+ \[(Emperor|closest|furthest)[^]]* \| painter [^]]+\]", out)
    assert re.search(r"    card \d+ of seat \d: .*\n      then seat \d's painter ", out)
    assert "the Emperor reaches the cherry tree at 12 for the first time: tokens" in out
    bad = balance("play", "sakura", "--players", "3", "--agents", "human,robot,greedy")
    assert bad.returncode == 2 and "robot" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert "Traceback" not in bad.stderr
