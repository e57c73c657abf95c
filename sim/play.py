"""`balance play`: one game in the terminal, human seats against agents, to check the rules by hand.

Every move goes through the readable API (games.load, legal_actions, apply), so what a person sees
accepted or refused is exactly what the engine does. A human seat is shown what that seat may know
(Kamakura: everything; Sakura: `observe`, so never another hand, the deck order or an unrevealed
selection) and the legal actions, numbered; it answers with a number or the action string. The agents
are the API policies of sim/<game>/policies.py, seeded from the game's seed, so a game is replayed by
giving the same seed and the same answers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim import games
from sim.agent_spec import MCTS_PARAMS, AgentSpec, mcts_row, parse_agents
from sim.rng import new_rng

HUMAN = "human"
QUIT = ("q", "quit", "exit")
LINE_NAMES = [f"row {r}" for r in range(4)] + [f"col {c}" for c in range(4)] + ["diagonal", "anti-diag"]
COLOURS = "RYGB"


@dataclass
class Seat:
    agent: str
    policy: Any | None  # None: a person answers


def policy_params(spec: AgentSpec, game: str) -> dict[str, float | int]:
    """The keyword parameters of an API MctsPolicy for an `mcts` spec (choices by index)."""
    row = mcts_row(spec, game)
    return {key: (float(value) if kind is float else int(value))
            for (key, (kind, _)), value in zip(MCTS_PARAMS[game].items(), row, strict=True)}


def make_seats(game: str, players: int, agents: str, seed: int) -> list[Seat]:
    """One Seat per player; refuses unknown agents (ConfigError) before the game starts."""
    policies = importlib.import_module(f"sim.{game}.policies").POLICIES
    seats = []
    for seat, spec in enumerate(parse_agents(agents, players, game, extra_names=(HUMAN,))):
        if spec.name == HUMAN:
            seats.append(Seat(HUMAN, None))
            continue
        params = policy_params(spec, game) if spec.name == "mcts" else {}
        seats.append(Seat(str(spec), policies[spec.name](new_rng(seed, 100 + seat), **params)))
    return seats


# ---- views ---------------------------------------------------------------------------------------------
def _chit(c: dict) -> str:
    power = f" +{c['power']}" if c["power"] else ""
    return f"{COLOURS[c['id'] // 10]}{c['id']} {c['icons']}i/{c['points']}p{power}"


def kamakura_view(d: dict, seats: list[Seat], over: bool = False) -> str:
    """The whole Kamakura position (open information): board with cell numbers, chits per line, what
    each seat owns and scores, order chits, and the turn so far."""
    scores = [0] * d["players"]
    owned: list[list[str]] = [[] for _ in range(d["players"])]
    for c in d["chits"]:
        if c["owner"] is not None:
            scores[c["owner"]] += c["points"]
            owned[c["owner"]].append(_chit(c) + (" (spent)" if c["spent"] else ""))
    lines = [f"Kamakura, after {d.get('turn', 0)} turns: game over" if over
             else f"Kamakura, turn {d.get('turn', 0) + 1}: seat {d['to_move']} to move"]
    for row in range(4):
        cells = "  ".join(f"{d['board'][4 * row + col]}{4 * row + col:<2}" for col in range(4))
        lines.append(f"  {cells}")
    ts = d.get("turn_state") or {}
    if ts:
        lines.append(f"  this turn: {ts['swaps_left']} swap(s) left, {ts['gains_done']} of "
                     f"{ts['gains_allowed']} gain(s) made" + (f" in {LINE_NAMES[ts['gain_line']]}"
                                                              if ts.get("gain_line") is not None else ""))
    lines.append("  chits on the board (colour+id icons/points +power):")
    for line in range(10):
        here = [_chit(c) for c in d["chits"] if c["owner"] is None and c["id"] % 10 == line]
        if here:
            lines.append(f"    {LINE_NAMES[line]:<10} " + "   ".join(here))
    for seat in range(d["players"]):
        order = d["order_moves"][seat]
        state = "passed" if d["passed"][seat] else ("order chit spent" if d["order_spent"][seat]
                                                     else f"order chit: {order} move(s)")
        lines.append(f"  seat {seat} ({seats[seat].agent}): {scores[seat]} points, {state}; owns "
                     + (", ".join(owned[seat]) or "nothing"))
    return "\n".join(lines)


def _card(cards: dict[int, tuple[str, str]], order: int) -> str:
    garden, painter = cards[order]
    return f"{order} [{garden} {painter}]"


def sakura_view(obs: dict, seats: list[Seat]) -> str:
    """What one Sakura seat may know (an `observe` dict): the path, positions, tokens, its own hand and
    the cards revealed; other selections only as made or not."""
    cards = {order: (garden, painter) for order, garden, painter in obs["cards"]}
    trees = ", ".join(f"{pos}{' (scored)' if done else ''}" for pos, done in zip(obs["sakura"], obs["scored"],
                                                                                 strict=True))
    lines = [f"Sakura, round {obs['round']}, phase {obs['phase']}: seat {obs['to_move']} to move "
             f"(you see seat {obs['seat']}'s view)",
             f"  path 0 (gate) to {obs['path_length'] - 1}; Emperor at {obs['emperor']}; cherry trees at "
             f"{trees}; deck {obs['deck_size']} cards"]
    for seat in range(obs["players"]):
        chosen = obs["selected"][seat]
        pick = (_card(cards, chosen) if chosen is not None
                else ("chosen, hidden" if obs["has_selected"][seat] else "-"))
        lines.append(f"  seat {seat} ({seats[seat].agent}): painter at {obs['painters'][seat]}, "
                     f"{obs['tokens'][seat]} tokens, {obs['hand_sizes'][seat]} cards; this round: {pick}")
    if obs.get("court"):
        lines.append(f"  court painter: {obs['court']}")
    if obs["pending"]:
        waiting = ", ".join(f"{_card(cards, order)} of seat {seat}" for order, seat in obs["pending"])
        lines.append(f"  to resolve, in order: {waiting}"
                     + (f" ({obs['choosing']} half waiting)" if obs.get("choosing") else ""))
    lines.append("  your hand: " + ", ".join(_card(cards, order) for order in obs["hand"]))
    return "\n".join(lines)


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
    seats = make_seats(game, players, agents, seed)
    s = g.new_state(seed=seed)
    write(f"{game}, {players} players, seed {seed} (the same seed and answers replay this game): "
          + ", ".join(f"seat {i} {seat.agent}" for i, seat in enumerate(seats)))
    chosen: list[str] = []  # Sakura: this round's selections, shown only once revealed
    while not g.is_over(s):
        seat = g.to_move(s)
        player = seats[seat]
        if player.policy is None:
            write(kamakura_view(g.to_dict(s), seats) if game == "kamakura"
                  else sakura_view(g.observe(s, seat), seats))
            action = _ask(g.legal_actions(s), read, write)
            if action is None:
                write("game stopped")
                return None
        else:
            action = player.policy.choose(g, s)
        secret = game == "sakura" and action.startswith(("play ", "court "))
        if secret:
            chosen.append(f"seat {seat} {action}")
            if player.policy is not None:
                write(f"  seat {seat} ({player.agent}) chose a card")
        elif player.policy is not None:
            write(f"  seat {seat} ({player.agent}): {action}")
        before = g.to_dict(s)["round"] if game == "sakura" else 0
        s = g.apply(s, action)
        if chosen and (g.is_over(s) or g.to_dict(s)["phase"] != "select" or g.to_dict(s)["round"] != before):
            write("  revealed: " + ", ".join(chosen))
            chosen = []
    result = g.result(s)
    if game == "kamakura":
        write(kamakura_view(g.to_dict(s), seats, over=True))
    winners = ", ".join(f"seat {w} ({seats[w].agent})" for w in result["winners"])
    write(f"game over: scores {result['scores']}; winner(s): {winners}")
    return result
