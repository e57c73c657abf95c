"""`balance play`: one game in the terminal, human seats against agents, to check the rules by hand.

Every move goes through the readable API (games.load, legal_actions, apply), so what a person sees accepted
or refused is exactly what the engine does. A human seat is shown what that seat may know (the game's
terminal view, sim/<game>/terminal.py: everything in an open game, only its own observation in a game of
hidden hands, with simultaneous choices announced once revealed) and the legal actions, numbered; it answers
with a number or the action string. The agents are the API policies of sim/<game>/policies.py, seeded from
the game's seed, so a game is replayed by giving the same seed and the same answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim import games
from sim.agent_spec import load_agent_model, parse_agents, policy_params
from sim.rng import new_rng

HUMAN = "human"
QUIT = ("q", "quit", "exit")


@dataclass
class Seat:
    agent: str
    policy: Any | None  # None: a person answers


def make_seats(game: str, players: int, agents: str, seed: int) -> list[Seat]:
    """One Seat per player; refuses unknown agents (ConfigError) before the game starts."""
    policies = games.spec(game).policies
    seats = []
    for seat, spec in enumerate(parse_agents(agents, players, game, extra_names=(HUMAN,))):
        if spec.name == HUMAN:
            seats.append(Seat(HUMAN, None))
            continue
        load_agent_model(spec, game, players)  # a bad model file is refused before the game starts
        params = policy_params(spec, game) if games.spec(game).agents[spec.name].params else {}
        seats.append(Seat(str(spec), policies[spec.name](new_rng(seed, 100 + seat), **params)))
    return seats


# ---- the game ------------------------------------------------------------------------------------------
def _ask(actions: list[str], read: Callable[[str], str], write: Callable[[str], None]) -> str | None:
    """A legal action from the person at the keyboard (by number or by name); None to stop."""
    write("  legal: " + "  ".join(f"{i}) {a}" for i, a in enumerate(actions, start=1)))
    while True:
        try:
            answer = read("> ").strip()
        except EOFError:
            return None
        if answer.lower() in QUIT:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        if answer in actions:
            return answer
        write(f"  not a legal action: {answer!r}; answer 1-{len(actions)}, an action as listed, or q")


def play_game(game: str, players: int, agents: str, seed: int, config: str | None = None,
              read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> dict | None:
    """Play one game; returns g.result at the end, or None when a person stopped it."""
    g = games.load(game, config=config, players=players)
    view = games.spec(game).terminal  # what a person at a seat may see, and which choices stay hidden
    seats = make_seats(game, players, agents, seed)
    names = [seat.agent for seat in seats]
    s = g.new_state(seed=seed)
    write(f"{game}, {players} players, seed {seed} (the same seed and answers replay this game): "
          + ", ".join(f"seat {i} {seat.agent}" for i, seat in enumerate(seats)))
    chosen: list[str] = []  # hidden choices (simultaneous selections), shown only once revealed
    while not g.is_over(s):
        seat = g.to_move(s)
        player = seats[seat]
        if player.policy is None:
            write(view.show(g, s, seat, names))
            action = _ask(g.legal_actions(s), read, write)
            if action is None:
                write("game stopped")
                return None
        else:
            action = player.policy.choose(g, s)
        if view.is_secret(action):
            chosen.append(f"seat {seat} {action}")
            if player.policy is not None:
                write(f"  seat {seat} ({player.agent}) chose a card")
        elif player.policy is not None:
            write(f"  seat {seat} ({player.agent}): {action}")
        before, s = s, g.apply(s, action)
        if chosen and view.reveals(g, before, s):
            write("  revealed: " + ", ".join(chosen))
            chosen = []
    result = g.result(s)
    final = view.final(g, s, names)
    if final:
        write(final)
    winners = ", ".join(f"seat {w} ({seats[w].agent})" for w in result["winners"])
    write(f"game over: scores {result['scores']}; winner(s): {winners}")
    return result
