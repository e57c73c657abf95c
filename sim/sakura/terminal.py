"""Sakura in the terminal (`balance play`): one seat's observation as text, for a person at the keyboard.

Hands are hidden: a human seat is shown its `observe` view (never another hand, the deck order or a
selection before the reveal); the cards chosen in a round are announced only once they are revealed.
"""

from __future__ import annotations

from typing import Any


def _card(cards: dict[int, tuple[str, str]], order: int) -> str:
    garden, painter = cards[order]
    return f"{order} [{garden} {painter}]"


def sakura_view(obs: dict, agents: list[str]) -> str:
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
        lines.append(f"  seat {seat} ({agents[seat]}): painter at {obs['painters'][seat]}, "
                     f"{obs['tokens'][seat]} tokens, {obs['hand_sizes'][seat]} cards; this round: {pick}")
    if obs.get("court"):
        lines.append(f"  court painter: {obs['court']}")
    if obs["pending"]:
        waiting = ", ".join(f"{_card(cards, order)} of seat {seat}" for order, seat in obs["pending"])
        lines.append(f"  to resolve, in order: {waiting}"
                     + (f" ({obs['choosing']} half waiting)" if obs.get("choosing") else ""))
    lines.append("  your hand: " + ", ".join(_card(cards, order) for order in obs["hand"]))
    return "\n".join(lines)


class SakuraTerminal:
    """The `balance play` view of Sakura (the interface every game's terminal view has)."""

    def show(self, game: Any, state: Any, seat: int, agents: list[str]) -> str:
        """What the person at `seat` may see before choosing: that seat's observation."""
        return sakura_view(game.observe(state, seat), agents)

    def final(self, game: Any, state: Any, agents: list[str]) -> str | None:
        """Under court_can_win (R-23) the court painter may win or share the win: say so, since the
        winners line names seats only."""
        result = game.result(state)
        if not result.get("court_wins"):
            return None
        court = game.to_dict(state)["court"]
        shared = " (shared)" if result["winners"] else ""
        return f"the court painter wins{shared} with {court['tokens']} tokens (R-23, court_can_win)"

    def is_secret(self, action: str) -> bool:
        """A card selection (a seat's own or the court painter's) stays hidden until the reveal."""
        return action.startswith(("play ", "court "))

    def reveals(self, game: Any, before: Any, after: Any) -> bool:
        """The round's selections are revealed once resolution starts, a round ends, or the game does."""
        if game.is_over(after):
            return True
        now = game.to_dict(after)
        return now["phase"] != "select" or now["round"] != game.to_dict(before)["round"]


VIEW = SakuraTerminal()
