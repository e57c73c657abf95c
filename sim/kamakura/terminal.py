"""Kamakura in the terminal (`balance play`): the whole position as text, for a person at the keyboard.

Kamakura is open information, so a human seat is shown everything: the board with cell numbers, each
line's chits, what each seat owns and scores, order chits and the turn so far.
"""

from __future__ import annotations

from typing import Any

LINE_NAMES = [f"row {r}" for r in range(4)] + [f"col {c}" for c in range(4)] + ["diagonal", "anti-diag"]
COLOURS = "RYGB"


def _chit(c: dict) -> str:
    power = f" +{c['power']}" if c["power"] else ""
    return f"{COLOURS[c['id'] // 10]}{c['id']} {c['icons']}i/{c['points']}p{power}"


def kamakura_view(d: dict, agents: list[str], over: bool = False) -> str:
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
        lines.append(f"  seat {seat} ({agents[seat]}): {scores[seat]} points, {state}; owns "
                     + (", ".join(owned[seat]) or "nothing"))
    return "\n".join(lines)


class KamakuraTerminal:
    """The `balance play` view of Kamakura (the interface every game's terminal view has)."""

    def show(self, game: Any, state: Any, seat: int, agents: list[str]) -> str:
        """What the person at `seat` may see before choosing: here, everything."""
        return kamakura_view(game.to_dict(state), agents)

    def final(self, game: Any, state: Any, agents: list[str]) -> str | None:
        """The position at the end of the game."""
        return kamakura_view(game.to_dict(state), agents, over=True)

    def is_secret(self, action: str) -> bool:
        """Whether an action is hidden from the others until revealed (never, in Kamakura)."""
        return False

    def reveals(self, game: Any, before: Any, after: Any) -> bool:
        """Whether the secret actions chosen so far are revealed by the move from `before` to `after`."""
        return False


VIEW = KamakuraTerminal()
