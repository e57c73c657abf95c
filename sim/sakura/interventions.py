"""What a card in the starting hand is worth, by paired intervention (docs/howto/values.md): for each card and
seed, a control deal in which the card is in no starting hand, and one arm per seat in which that seat holds
it in place of a random card of its hand (the displaced card takes the card's place in the deck, so the deck
stays a permutation of the 60). Every arm plays on with the same agent generator.

The control is the seed's own deal, except when the card was dealt to a hand: then it is swapped with a
uniformly drawn card of the draw pile first. Draws (generator streams 16 + card of the seed) are the same in
every arm, so the arms differ in exactly one swap: the card against a random card of the seat's hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from numba import njit

from sim.core.batching import batch_inputs
from sim.core.log_tables import arms_table
from sim.core.rng import rng_below, rng_seeded
from sim.sakura.batch import next_action
from sim.sakura.codes import GARDEN_ACTIONS, PAINTER_ACTIONS
from sim.sakura.kernels import (
    DECK,
    DECK_N,
    HAND,
    HAND_N,
    HAND_SIZE,
    MAX_PLAYERS,
    N_ACTIONS_MAX,
    N_PAINTERS,
    PAINTER,
    PH_OVER,
    PHASE,
    TO_MOVE,
    TOKENS,
    apply_action,
    new_game,
    winners,
)
from sim.sakura.mcts import N_PARAMS

if TYPE_CHECKING:
    from sim.sakura.params import SakuraRules

#: the positions measured: the start (a starting hand)
POSITIONS = (0,)
_PICK_STREAM = 16


def components(rules: SakuraRules) -> list[dict]:
    """The cards a values run prices, in `component` index order (order number): label, card, garden and
    painter action (the run manifest's ``components``)."""
    return [{"component": f"card {order} ({GARDEN_ACTIONS[g]}, {PAINTER_ACTIONS[p]})", "card": int(order),
             "garden": GARDEN_ACTIONS[g], "painter": PAINTER_ACTIONS[p]} for order, g, p in rules.cards]


@njit(cache=True)
def _sort_hand(s, seat):
    base = HAND + seat * HAND_SIZE
    n = s[HAND_N + seat]
    for i in range(1, n):
        j = i
        while j > 0 and s[base + j - 1] > s[base + j]:
            tmp = s[base + j]
            s[base + j] = s[base + j - 1]
            s[base + j - 1] = tmp
            j -= 1


@njit(cache=True)
def _find(s, card, players):
    """Where `card` is: (seat, slot) in a hand, or (-1, deck index)."""
    for seat in range(players):
        for i in range(s[HAND_N + seat]):
            if s[HAND + seat * HAND_SIZE + i] == card:
                return seat, i
    for i in range(s[DECK_N]):
        if s[DECK + i] == card:
            return -1, i
    return -2, -1


@njit(cache=True)
def _swap_into_deck(s, seat, slot, deck_index):
    """Exchange hand card (seat, slot) with deck card deck_index, keeping the hand sorted."""
    at = HAND + seat * HAND_SIZE + slot
    tmp = s[at]
    s[at] = s[DECK + deck_index]
    s[DECK + deck_index] = tmp
    _sort_hand(s, seat)


@njit(cache=True)
def control_deal(base, card, players, pick):
    """The control arm of `card`: a copy of the dealt position `base` in which the card is in no starting
    hand: dealt to one, it is swapped with a card of the draw pile drawn with `pick` (play_values skips a
    card the deck lacks before asking)."""
    control = base.copy()
    seat, slot = _find(control, card, players)
    draw = rng_below(pick, control[DECK_N])  # drawn in every case: the same draws in every deal
    if seat >= 0:
        _swap_into_deck(control, seat, slot, draw)
    return control


@njit(cache=True)
def treated_deal(control, card, players, holder, slot):
    """A treatment arm: a copy of `control` in which `holder` holds `card` in place of its hand's card in
    sorted position `slot`, which takes the card's place in the draw pile."""
    a = control.copy()
    _, deck_index = _find(a, card, players)
    _swap_into_deck(a, holder, slot % a[HAND_N + holder], deck_index)
    return a


@njit(cache=True)
def _play_on(s, rng, kinds_row, params_row, buf):
    while s[PHASE] != PH_OVER:
        seat = s[TO_MOVE]
        apply_action(s, next_action(kinds_row[seat], s, rng, params_row[seat], buf))


@njit(cache=True, nogil=True)
def play_values(seeds, rules, agent_kinds, agent_params, out_tokens, out_shares, out_at, available, base_out):
    """The paired arms of every (game, card): out_tokens / out_shares / out_at (final path index)
    [g, card - 1, arm, seat] for arm 0 (control) and 1 + seat (that seat holds the card);
    available[g, card - 1] = 1 where the arms were played (a card the deck lacks is not); base_out[g, seat]
    = (tokens, win share, final path index) of the seed's own deal, played with no intervention."""
    players = rules.players
    n_cards = rules.cards.shape[0]
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for g in range(seeds.shape[0]):
        base = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        for c in range(n_cards):
            card = rules.cards[c, 0]
            if _find(base, card, players)[0] == -2 or base[DECK_N] == 0:
                continue  # not in this deck, or nothing left to swap with
            pick = rng_seeded(seeds[g], _PICK_STREAM + card)
            control = control_deal(base, card, players, pick)
            available[g, c] = 1
            slot_drawn = rng_below(pick, HAND_SIZE)
            for arm in range(1 + players):
                a = control.copy() if arm == 0 else treated_deal(control, card, players, arm - 1, slot_drawn)
                r = rng.copy()
                _play_on(a, r, agent_kinds[g], agent_params[g], buf)
                winners(a, win)
                n_win = 0
                for p in range(a[N_PAINTERS]):  # the court painter too under R-23 (court_can_win)
                    n_win += win[p]
                for p in range(players):
                    out_tokens[g, c, arm, p] = a[TOKENS + p]
                    out_shares[g, c, arm, p] = win[p] / n_win if n_win else 0.0
                    out_at[g, c, arm, p] = a[PAINTER + p]
        _play_on(base, rng, agent_kinds[g], agent_params[g], buf)  # the seed's own deal, as dealt
        winners(base, win)
        n_win = 0
        for p in range(base[N_PAINTERS]):  # the court painter too under R-23 (court_can_win)
            n_win += win[p]
        for p in range(players):
            base_out[g, p, 0] = base[TOKENS + p]
            base_out[g, p, 1] = win[p] / n_win if n_win else 0.0
            base_out[g, p, 2] = base[PAINTER + p]


# ---- Python face ---------------------------------------------------------------------------------------
def run_values(rules: SakuraRules, seeds: np.ndarray, seating: np.ndarray, params: np.ndarray | None = None,
               positions: tuple[int, ...] = POSITIONS, first_game: int = 0) -> dict[str, np.ndarray]:
    """Play the paired arms of every card for one base deal per seed; seating and params as
    batch.run_batch takes them. Only the start is measured (positions must be (0,))."""
    from sim.sakura.game import kernel_rules

    if tuple(positions) != POSITIONS:
        raise ValueError("Sakura values are measured at the start only (a starting hand)")
    players = rules.players
    seeds, seating, params = batch_inputs(seeds, seating, players, params, N_PARAMS)
    args = kernel_rules(rules)
    n_cards = args.cards.shape[0]
    shape = (len(seeds), n_cards, 1 + players, players)
    out = {"tokens": np.zeros(shape, dtype=np.int64), "shares": np.zeros(shape),
           "at": np.zeros(shape, dtype=np.int64), "available": np.zeros(shape[:2], dtype=np.int8),
           "base": np.zeros((len(seeds), players, 3))}
    play_values(seeds, args, seating, params, out["tokens"], out["shares"], out["at"], out["available"],
                out["base"])
    return out


def values_table(first_game: int, out: dict[str, np.ndarray]) -> pa.Table:
    """One row per (game, card, arm, seat) played: ``game_id, position (0), component (card index), holder
    (-1: nobody), with_power (true), seat, score (tokens), win_share, painter_at`` (the final path index,
    the R-14 tie-break's input). Each seed's own deal follows as rows with component -1
    (sim.core.log_tables.arms_table)."""
    games, n_cards, n_arms, players = out["tokens"].shape
    g, c, a = np.nonzero(np.broadcast_to(out["available"][:, :, None].astype(bool), (games, n_cards, n_arms)))
    rows = len(g)
    rep = lambda x: np.repeat(x, players)  # noqa: E731 (one row per seat)
    columns = {
        "game_id": rep(first_game + g),
        "position": np.zeros(rows * players, dtype=np.int64),
        "component": rep(c),
        "holder": rep(a - 1),
        "with_power": np.ones(rows * players, dtype=bool),
        "seat": np.tile(np.arange(players), rows),
        "score": out["tokens"][g, c, a].reshape(-1),
        "win_share": out["shares"][g, c, a].reshape(-1),
        "painter_at": out["at"][g, c, a].reshape(-1),
    }
    base = out["base"]
    return arms_table(columns, first_game, base[:, :, 0].astype(np.int64), base[:, :, 1],
                      painter_at=base[:, :, 2].astype(np.int64))
