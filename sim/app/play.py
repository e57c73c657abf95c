"""`balance play`: one game in the terminal, human seats against agents, to check the rules by hand.

Every move goes through the readable API (games.load, legal_actions, apply), so what a person sees accepted
or refused is exactly what the engine does. A human seat is shown what that seat may know (the game's
terminal view, sim/<game>/terminal.py: everything in an open game, only its own observation in a game of
hidden hands, with simultaneous choices announced once revealed) and the legal actions, grouped by kind
and numbered in columns; it answers with a number or the action string. After every move the view says
what the engine did, step by step where one move sets off several (a round of simultaneous cards), so a rule
can be checked by hand. The agents are the API policies of sim/<game>/policies.py, seeded from the game's
seed, so a game is replayed by giving the same seed and the same answers.

A game's terminal view (`GameSpec.terminal`) answers: ``show`` (what a seat sees), ``final`` (the end),
``is_secret`` and ``reveals`` (hidden choices), ``label`` (an action with what it does), ``groups`` (the
legal actions by kind) and ``narrate`` (what a move did).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.core.agent_spec import load_agent_model, parse_agents, policy_params
from sim.core.game_spec import GameSpec
from sim.core.rng import new_rng

HUMAN = "human"
QUIT = ("q", "quit", "exit")
OPPONENT = "mcts"  # the default agent of every seat but the first


@dataclass
class Seat:
    agent: str
    policy: Any | None  # None: a person answers


def default_agents(players: int) -> str:
    """The person in seat 0 and the default opponent in every other seat, for any player count."""
    return ",".join([HUMAN] + [OPPONENT] * (players - 1))


def make_seats(game: GameSpec, players: int, agents: str | None, seed: int) -> list[Seat]:
    """One Seat per player; refuses unknown agents (ConfigError) before the game starts. ``agents`` None:
    `default_agents`."""
    policies = game.policies
    seats = []
    chosen = default_agents(players) if agents is None else agents  # "" is refused by parse_agents
    for seat, spec in enumerate(parse_agents(chosen, players, game,
                                             extra_names=(HUMAN,))):
        if spec.name == HUMAN:
            seats.append(Seat(HUMAN, None))
            continue
        load_agent_model(spec, game, players)  # a bad model file is refused before the game starts
        params = policy_params(spec, game) if game.agents[spec.name].params else {}
        seats.append(Seat(str(spec), policies[spec.name](new_rng(seed, 100 + seat), **params)))
    return seats


# ---- the menu ------------------------------------------------------------------------------------------
def in_columns(entries: list[str], width: int, indent: str = "    ") -> list[str]:
    """Entries laid out in as many equal columns as fit in ``width``, filled down each column first."""
    if not entries:
        return []
    cell = max(len(e) for e in entries) + 3
    columns = max(1, (width - len(indent)) // cell)
    rows = -(-len(entries) // columns)
    return [indent + "".join(entries[c * rows + r].ljust(cell) for c in range(columns)
                             if c * rows + r < len(entries)).rstrip()
            for r in range(rows)]


def menu(groups: list[tuple[str, list[str]]], label: Callable[[str], str],
         width: int) -> tuple[list[str], list[str]]:
    """The numbered menu of legal actions: (the actions in their numbering, 1 first; the lines to print).
    Each group gets a heading and its actions in columns."""
    numbered: list[str] = []
    lines = ["  legal actions (answer a number or the action as written):"]
    for title, actions in groups:
        entries = []
        for action in actions:
            numbered.append(action)
            entries.append(f"{len(numbered):>2}) {label(action)}")
        lines.append(f"   {title}:")
        lines += in_columns(entries, width)
    return numbered, lines


def _ask(groups: list[tuple[str, list[str]]], label: Callable[[str], str], read: Callable[[str], str],
         write: Callable[[str], None], width: int) -> str | None:
    """A legal action from the person at the keyboard (by number or by name); None to stop."""
    actions, lines = menu(groups, label, width)
    write("\n".join(lines))
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


# ---- the game ------------------------------------------------------------------------------------------
def play_game(game: GameSpec, players: int, agents: str | None, seed: int, config: str | None = None,
              read: Callable[[str], str] = input, write: Callable[[str], None] = print,
              width: int | None = None) -> dict | None:
    """Play one game of `game`; returns g.result at the end, or None when a person stopped it. ``width``:
    the menu's line width (default: the terminal's, at most 120)."""
    g = game.game_class(game.load_rules(config, players))  # what games.load gives
    view = game.terminal  # what a person at a seat may see, and which choices stay hidden
    seats = make_seats(game, players, agents, seed)
    names = [seat.agent for seat in seats]
    width = width or min(120, shutil.get_terminal_size((100, 24)).columns)
    s = g.new_state(seed=seed)
    write(f"{game.name}, {players} players, seed {seed} (the same seed and answers replay this game): "
          + ", ".join(f"seat {i} {seat.agent}" for i, seat in enumerate(seats)))
    chosen: list[str] = []  # hidden choices (simultaneous selections), shown only once revealed
    while not g.is_over(s):
        seat = g.to_move(s)
        player = seats[seat]
        if player.policy is None:
            write(view.show(g, s, seat, names))
            legal = g.legal_actions(s)
            action = _ask(view.groups(g, s, legal), lambda a, s=s: view.label(g, s, a), read, write, width)
            if action is None:
                write("game stopped")
                return None
        else:
            action = player.policy.choose(g, s)
        if view.is_secret(action):
            chosen.append(f"seat {seat} {view.label(g, s, action)}")
            if player.policy is not None:
                write(f"  seat {seat} ({player.agent}) chose a card")
        elif player.policy is not None:
            write(f"  seat {seat} ({player.agent}): {view.label(g, s, action)}")
        before, s = s, g.apply(s, action)
        if chosen and view.reveals(g, before, s):
            write("  revealed: " + ", ".join(chosen))
            chosen = []
        for line in view.narrate(g, before, s, names):
            write(line)
    result = g.result(s)
    final = view.final(g, s, names)
    if final:
        write(final)
    winners = ", ".join(f"seat {w} ({seats[w].agent})" for w in result["winners"])
    write(f"game over: scores {result['scores']}; winner(s): {winners}")
    return result
