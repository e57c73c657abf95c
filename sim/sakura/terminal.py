"""Sakura in the terminal (`balance play`): one seat's observation as text, for a person at the keyboard.

Hands are hidden: a human seat is shown its `observe` view (never another hand, the deck order or a
selection before the reveal); the cards chosen in a round are announced only once they are revealed, each
with its two actions. A round's resolution is then told step by step: each card's garden half and painter
half, who moved from where to where, bumps and the token they cost, the tokens at a cherry tree and the
line-up after it. The steps are read from the kernels' own record of the round (kernels.LOG_STEP_*: the
position after every half card), not worked out again here, so what is told is what the engine did.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.sakura import kernels as K

F = K.FIELDS

GARDEN_TEXT = {"E+1": "Emperor forward 1", "E+2": "Emperor forward 2", "E-1": "Emperor back 1",
               "E+-1": "Emperor forward or back 1", "closest-2": "closest painter back 2",
               "furthest+2": "furthest painter forward 2"}
PAINTER_TEXT = {"P+1": "forward 1", "P+2": "forward 2", "P+3": "forward 3", "P+-1": "forward or back 1",
                "P+-2": "forward or back 2", "P+-3": "forward or back 3", "leapfrog": "leapfrog",
                "count": "count"}
CHOICES = ("E+-1", "P+-1", "P+-2", "P+-3")


def card_text(cards: dict[int, tuple[str, str]], order: int) -> str:
    """A card with both its actions: ``12 [Emperor forward 1 | painter forward 2]``."""
    garden, painter = cards[order]
    return f"{order} [{GARDEN_TEXT[garden]} | painter {PAINTER_TEXT[painter]}]"


def _cards(d: dict) -> dict[int, tuple[str, str]]:
    return {order: (garden, painter) for order, garden, painter in d["cards"]}


def sakura_view(obs: dict, agents: list[str]) -> str:
    """What one Sakura seat may know (an `observe` dict): the path, positions, tokens, its own hand and
    the cards revealed; other selections only as made or not."""
    cards = _cards(obs)
    trees = ", ".join(f"{pos}{' (scored)' if done else ''}" for pos, done in zip(obs["sakura"], obs["scored"],
                                                                                 strict=True))
    lines = [f"Sakura, round {obs['round']}, phase {obs['phase']}: seat {obs['to_move']} to move "
             f"(you see seat {obs['seat']}'s view)",
             f"  path: gate 0, spaces 1 to {obs['path_length']}; Emperor at {obs['emperor']}; "
             f"cherry trees at "
             f"{trees}; deck {obs['deck_size']} cards"]
    for seat in range(obs["players"]):
        chosen = obs["selected"][seat]
        pick = (card_text(cards, chosen) if chosen is not None
                else ("chosen, hidden" if obs["has_selected"][seat] else "-"))
        lines.append(f"  seat {seat} ({agents[seat]}): painter at {obs['painters'][seat]}, "
                     f"{obs['tokens'][seat]} tokens, {obs['hand_sizes'][seat]} cards; this round: {pick}")
    if obs.get("court"):
        court = obs["court"]
        lines.append(f"  court painter: at {court['painter']}, {court['tokens']} tokens"
                     + (f"; this round: {card_text(cards, court['card'])}" if court["card"] is not None
                        else ""))
    if obs["pending"]:
        waiting = ", ".join(f"{card_text(cards, order)} of {_who(owner, obs['players'])}"
                            for order, owner in obs["pending"])
        lines.append(f"  to resolve, in order: {waiting}"
                     + (f" ({obs['choosing']} half waiting)" if obs.get("choosing") else ""))
    if obs["phase"] == "select" and obs["to_move"] == obs["seat"]:  # the menu below lists the cards in full
        hand = ", ".join(str(order) for order in obs["hand"])
        lines.append(f"  your hand: {hand} (the legal actions below give each card's actions)")
    else:
        hand = ", ".join(card_text(cards, order) for order in obs["hand"])
        lines.append(f"  your hand: {hand or 'empty'}")
    return "\n".join(lines)


# ---- the resolution, step by step ----------------------------------------------------------------------
def _who(painter: int, players: int) -> str:
    return "the court painter" if painter == players else f"seat {painter}"


def _piece(painter: int, players: int) -> str:
    """A painter as a piece on the path: ``seat 1's painter``, ``the court painter``."""
    return "the court painter" if painter == players else f"seat {painter}'s painter"


def _position(v: np.ndarray, step: int) -> tuple[int, np.ndarray, np.ndarray, int]:
    """(Emperor, painters, tokens, bumps so far in the game) after resolution step `step` of the logged
    round (-1: as its resolution began)."""
    n = K.MAX_PAINTERS
    if step < 0:
        return (F.get(v, "log_start_emperor"), F.view(v, "log_start_painter"),
                F.view(v, "log_start_tokens"), F.get(v, "log_start_bumps"))
    return (int(F.view(v, "log_step_emperor")[step]), F.view(v, "log_step_painter")[step * n:(step + 1) * n],
            F.view(v, "log_step_tokens")[step * n:(step + 1) * n], int(F.view(v, "log_step_bumps")[step]))


def _steps_done(v: np.ndarray) -> int:
    """Resolution steps (half cards) done in the round `v` is resolving, or logged for its last round."""
    if F.get(v, "phase") == K.PH_CHOOSE:
        return 2 * F.get(v, "pend_pos") + F.get(v, "half")
    return 2 * int(F.view(v, "log_resolved")[:F.get(v, "log_n")].sum())


def _moves(prev: tuple, now: tuple, painters: int, players: int) -> list[str]:
    """What changed between two recorded positions: the Emperor's move, the painter's (a half card moves
    at most one painter, docs/rules.md Cards), and a bump with the token it cost."""
    emperor0, pos0, tok0, bumps0 = prev
    emperor1, pos1, tok1, bumps1 = now
    out = []
    if emperor1 != emperor0:
        out.append(f"Emperor {emperor0} -> {emperor1}")
    for p in range(painters):
        if pos1[p] == pos0[p]:
            continue
        text = f"{_piece(p, players)} {pos0[p]} -> {pos1[p]}"
        if bumps1 > bumps0:
            text += (f" (bumped: loses a token, {tok1[p]} left)" if tok1[p] < tok0[p]
                     else " (bumped: no token left to lose)")
        out.append(text)
    return out or ["nobody moves"]


def resolution_lines(before: np.ndarray, after: np.ndarray, players: int,
                     cards: dict[int, tuple[str, str]]) -> list[str]:
    """The steps of a round's resolution done between `before` and `after` (state vectors)."""
    resolving = F.get(before, "round")
    if F.get(after, "log_round") != resolving:
        return []  # no card of this round has resolved yet (a selection, or a tactical pick pending)
    choosing = F.get(before, "phase") == K.PH_CHOOSE
    first = 2 * F.get(before, "pend_pos") + F.get(before, "half") if choosing else 0
    last = _steps_done(after)
    painters = F.get(before, "n_painters")
    lines = [f"  round {resolving} resolves, cards in order number:"] if first == 0 and last > 0 else []
    for step in range(first, last):
        slot, half = divmod(step, 2)
        card = int(F.view(after, "log_card")[slot])
        owner = int(F.view(after, "log_owner")[slot])
        garden, painter = cards[card]
        action = GARDEN_TEXT[garden] if half == 0 else f"{_piece(owner, players)} {PAINTER_TEXT[painter]}"
        if (garden if half == 0 else painter) in CHOICES:
            action += ", " + ("forward" if F.view(after, "log_step_forward")[step] else "back")
        head = f"    card {card} of {_who(owner, players)}: " if half == 0 else "      then "
        moves = _moves(_position(after, step - 1), _position(after, step), painters, players)
        if moves == ["nobody moves"] and half == 1:
            moves = [f"the painter stays at {int(_position(after, step)[1][owner])}"]
        lines.append(f"{head}{action}: " + "; ".join(moves))
    if F.get(after, "phase") != K.PH_CHOOSE:  # the round's resolution is over
        lines += _round_end(after, last, painters, players)
    return lines


def _round_end(v: np.ndarray, done: int, painters: int, players: int) -> list[str]:
    """A cherry tree scored (tokens, the cards discarded unresolved, the line-up), or the round's end."""
    k = F.get(v, "log_sakura")
    if k < 0:
        return []
    tree = int(F.view(v, "sakura")[k])
    gained = F.view(v, "log_gained")
    awards = ", ".join(f"{_who(p, players)} +{int(gained[p])}" for p in np.argsort(-gained[:painters],
                                                                                   kind="stable")
                       if gained[p] > 0)
    lines = [f"    the Emperor reaches the cherry tree at {tree} for the first time: "
             f"tokens {awards or 'to nobody'}"]
    unresolved = [int(F.view(v, "log_card")[i]) for i in range(done // 2, F.get(v, "log_n"))]
    if unresolved:
        lines.append("    discarded unresolved: " + ", ".join(f"card {c}" for c in unresolved))
    if F.get(v, "phase") == K.PH_OVER:
        lines.append("    the last cherry tree has scored: the game ends (no line-up)")
        return lines
    _, pos, _, _ = _position(v, done - 1)
    now = F.view(v, "painter")
    moved = [f"{_piece(p, players)} {pos[p]} -> {now[p]}" for p in range(painters) if now[p] != pos[p]]
    lines.append("    line-up behind the closest: " + (", ".join(moved) if moved else "nobody moves"))
    return lines


class SakuraTerminal:
    """The `balance play` view of Sakura (the interface every game's terminal view has; sim/app/play)."""

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

    def label(self, game: Any, state: Any, action: str) -> str:
        """A card action with the card's two halves; forward/back as they are."""
        words = action.split()
        if len(words) == 2 and words[0] in ("play", "court"):
            return f"{words[0]} {card_text(_cards(game.to_dict(state)), int(words[1]))}"
        return action

    def groups(self, game: Any, state: Any, actions: list[str]) -> list[tuple[str, list[str]]]:
        """One group: the cards of the hand, or the two directions of a forward-or-back half."""
        d = game.to_dict(state)
        if d["phase"] == "choose":
            return [(f"which way ({d['choosing']} half of card {d['pending'][0][0]})", actions)]
        court = actions and actions[0].startswith("court ")
        return [("play a card for the court painter" if court else "play a card", actions)]

    def narrate(self, game: Any, before: Any, after: Any, agents: list[str]) -> list[str]:
        """The steps of the round's resolution this move set off (none for a hidden selection)."""
        d = game.to_dict(before)
        lines = resolution_lines(before.vector, after.vector, d["players"], _cards(d))
        a = game.to_dict(after)
        if lines and not game.is_over(after) and a["round"] != d["round"]:
            lines.append(f"  round {a['round']}: everybody draws back to 5 cards")
        return lines


VIEW = SakuraTerminal()
