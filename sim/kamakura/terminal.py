"""Kamakura in the terminal (`balance play`): the whole position as text, for a person at the keyboard.

Kamakura is open information, so a human seat is shown everything: the board as a 4x4 grid, each line's
chits, what each seat owns and scores, order chits and the turn so far. Cells and chits are told apart by
their notation: a cell is its plain number on the grid (0-15, the numbers `swap a b` takes), a chit is
``#id`` with its colour letter (``#12 G``, the number `gain` and `use` take).
"""

from __future__ import annotations

from typing import Any

LINE_NAMES = [f"row {r}" for r in range(4)] + [f"col {c}" for c in range(4)] + ["diagonal", "anti-diag"]
COLOURS = "RYGB"
COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
POWER_WORDS = {"R": "extra swaps", "Y": "extra gains", "G": "fewer tiles needed", "B": ""}


def plural(n: int, word: str) -> str:
    """``1 point``, ``2 points``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def chit_text(c: dict) -> str:
    """A chit in the ``#id`` notation: id, colour letter, icons, points and power (``#12 G 2i 3p +2``)."""
    power = f" +{c['power']}" if c["power"] else ""
    return f"#{c['id']} {COLOURS[c['id'] // 10]} {c['icons']}i {c['points']}p{power}"


def board_grid(board: str) -> list[str]:
    """The 4x4 board as a grid: each cell its number and its tile's colour letter."""
    lines = ["  board (cell number and tile colour):",
             "           " + "".join(f"col {c}   " for c in range(4)).rstrip()]
    for row in range(4):
        cells = "".join(f"{4 * row + col:>5} {board[4 * row + col]}  " for col in range(4))
        lines.append(f"    row {row} {cells.rstrip()}")
    return lines


def kamakura_view(d: dict, agents: list[str], over: bool = False) -> str:
    """The whole Kamakura position (open information): the board grid, chits per line, what each seat
    owns and scores, order chits, and the turn so far."""
    scores = [0] * d["players"]
    owned: list[list[str]] = [[] for _ in range(d["players"])]
    for c in d["chits"]:
        if c["owner"] is not None:
            scores[c["owner"]] += c["points"]
            owned[c["owner"]].append(chit_text(c) + (" (spent)" if c["spent"] else ""))
    lines = [f"Kamakura, after {plural(d.get('turn', 0), 'turn')}: game over" if over
             else f"Kamakura, turn {d.get('turn', 0) + 1}: seat {d['to_move']} to move"]
    lines += board_grid(d["board"])
    ts = d.get("turn_state") or {}
    if ts:
        lines.append(f"  this turn: {plural(ts['swaps_left'], 'swap')} left, {ts['gains_done']} of "
                     f"{plural(ts['gains_allowed'], 'gain')} made" + (f" in {LINE_NAMES[ts['gain_line']]}"
                                                                      if ts.get("gain_line") is not None
                                                                      else ""))
    lines.append("  chits on the board (#id colour, i icons = tiles needed, p points, +power):")
    for line in range(10):
        here = [chit_text(c) for c in d["chits"] if c["owner"] is None and c["id"] % 10 == line]
        if here:
            lines.append(f"    {LINE_NAMES[line]:<10} " + "   ".join(here))
    for seat in range(d["players"]):
        order = d["order_moves"][seat]
        if d["passed"][seat]:
            state = "passed"
        elif order == 0:
            state = "order chit: no moves"  # the start player's chit (and any 0) has no effect
        else:
            state = "order chit spent" if d["order_spent"][seat] else f"order chit: {plural(order, 'move')}"
        lines.append(f"  seat {seat} ({agents[seat]}): {plural(scores[seat], 'point')}, {state}; owns "
                     + (", ".join(owned[seat]) or "nothing"))
    return "\n".join(lines)


def action_label(d: dict, action: str) -> str:
    """An action with what it acts on: the two cells' colours of a swap, the chit of a gain or a use."""
    words = action.split()
    if words[0] == "swap":
        a, b = int(words[1]), int(words[2])
        return f"{action} ({d['board'][a]}|{d['board'][b]})"
    if words[0] in ("gain", "use") and words[1].isdigit():
        chit = d["chits"][int(words[1])]
        what = chit_text(chit)
        if words[0] == "gain":
            return f"{action} ({what}, {LINE_NAMES[chit['id'] % 10]})"
        word = POWER_WORDS[COLOURS[chit["id"] // 10]]
        return f"{action} ({what}: {word})" if word else f"{action} ({what})"
    if action == "use order":
        return "use order (order chit: extra swaps)"
    return action


GROUPS = (("swap two adjacent cells", ("swap",)), ("gain a chit", ("gain",)),
          ("use a power", ("use",)), ("end the turn", ("end", "pass")))


def action_groups(actions: list[str]) -> list[tuple[str, list[str]]]:
    """The legal actions by kind, in the order of `GROUPS`; every action is in exactly one group."""
    out = []
    for title, kinds in GROUPS:
        mine = [a for a in actions if a.split()[0] in kinds]
        if mine:
            out.append((title, mine))
    missed = [a for a in actions if a.split()[0] not in {k for _, kinds in GROUPS for k in kinds}]
    if missed:
        out.append(("other", missed))
    return out


class KamakuraTerminal:
    """The `balance play` view of Kamakura (the interface every game's terminal view has; sim/app/play)."""

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

    def label(self, game: Any, state: Any, action: str) -> str:
        """The action with what it acts on, in this position."""
        return action_label(game.to_dict(state), action)

    def groups(self, game: Any, state: Any, actions: list[str]) -> list[tuple[str, list[str]]]:
        """The legal actions by kind."""
        return action_groups(actions)

    def narrate(self, game: Any, before: Any, after: Any, agents: list[str]) -> list[str]:
        """What a move did beyond itself: the turn passing to the next seat, points gained."""
        a, b = game.to_dict(before), game.to_dict(after)
        lines = []
        for chit_before, chit_after in zip(a["chits"], b["chits"], strict=True):
            if chit_before["owner"] is None and chit_after["owner"] is not None:
                lines.append(f"  seat {chit_after['owner']} gains {chit_text(chit_after)}: "
                             f"{plural(chit_after['points'], 'point')}")
        if not game.is_over(after) and b["to_move"] != a["to_move"]:
            lines.append(f"  seat {a['to_move']}'s turn ends; seat {b['to_move']} to move")
        return lines


VIEW = KamakuraTerminal()
