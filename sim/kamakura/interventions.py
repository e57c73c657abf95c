"""What holding a chit is worth, by paired intervention (docs/howto/values.md): from a position reached by
play, one chit of a kind is taken off the board and either given to a seat (a treatment arm) or held by nobody
(the control), and the game is played on from the same state with the same agent generator in every arm.

Arms of one (game, position, kind): the control (holder -1); each seat holding it (holder = seat); and, for a
kind with a power, one seat holding it with its power removed (`with_power` false), which prices the power
against the same points (at the first position only, where a power has the whole game to act). One seat
rather than each keeps the cost at 2 games a kind; the seat is the base game id modulo the players, so over
a run every seat holds it equally often (a draw per game gave 569 / 575 / 656) and the mean is the seat
average. A chit
held by nobody has owner NO_ONE: off the board (kernels test `owner != -1`)
and scoring for no seat (kernels score `owner >= 0`), so a 0-point chit with no power leaves every arm's game
identical to the control's, and its value is exactly 0.

Positions are turn counts: 0 is the start of the game; t > 0 the start of turn t + 1 of the game as the
agents played it from the seed (the same game `balance simulate` logs). A (game, position, kind) is left out
when the game ended before that turn, no chit of the kind is on the board then, or taking it would empty
the board.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from numba import njit

from sim.core.batching import batch_inputs
from sim.core.log_tables import arms_table
from sim.core.rng import rng_below, rng_seeded
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.batch import MAX_HISTORY, _seat_trees, next_plan, remember
from sim.kamakura.board import COLOURS
from sim.kamakura.kernels import (
    CHITS_LEFT,
    ICONS,
    LAST_TURN,
    MAX_PLAYERS,
    N_ACTIONS,
    N_CHITS,
    OVER,
    OWNER,
    PLAYERS,
    POINTS,
    POWER,
    TO_MOVE,
    TURN,
    apply_action,
    new_game,
    scores,
    winners,
)
from sim.kamakura.uct import M_VALID, N_PARAMS, ROOT

if TYPE_CHECKING:
    from sim.kamakura.params import KamakuraRules

#: What play_values fills: scores, shares and last_turns [game, position, kind, arm, seat] (see there),
#: available [game, position, kind], and each seed's own game's base_scores / base_shares / base_last
#: [game, seat]. The last turns let a report re-score under R-20's `last_to_play` (analysis.causal_values).
ValuesOut = namedtuple("ValuesOut", ["scores", "shares", "last_turns", "available", "base_scores",
                                     "base_shares", "base_last"])

NO_ONE = -2  # owner of a chit taken off the board for the control arm
#: the positions measured by default: the start, and the start of turns 10 and 19 (after 9 and 18 turns)
POSITIONS = (0, 9, 18)
_PICK_STREAM = 16  # generator streams 16.. of a game's seed pick the chit of each (position, kind)
LATER_EVERY = 2  # positions after the start are measured in every second base game
TO_THE_END = np.int64(-1)  # _play_on's stop_turn for a game played out: int64, not a literal (uct.ROOT)


def chit_kinds(rules: KamakuraRules) -> np.ndarray:
    """The distinct chits of the config, int64[K, 4] of (colour, icons, points, power), sorted: every
    differing attribute makes its own kind, so one changed chit is a kind of its own."""
    rows = {(colour, int(i), int(p), int(w)) for colour, chits in enumerate(rules.chits)
            for i, p, w in chits}
    return np.array(sorted(rows), dtype=np.int64).reshape(-1, 4)


def kind_labels(kinds: np.ndarray) -> list[str]:
    """A designer's name for each kind: 'blue 4 (8 pts)', 'red 2 (2 pts, power 2)'."""
    return [f"{COLOURS[c]} {i} ({p} pt{'s' if p != 1 else ''}{f', power {w}' if w else ''})"
            for c, i, p, w in kinds]


def components(rules: KamakuraRules) -> list[dict]:
    """The kinds a values run prices, in `component` index order: label, colour, icons, points, power and
    how many chits of the config are of the kind (the run manifest's ``components``)."""
    kinds = chit_kinds(rules)
    counts = {}
    for colour, chits in enumerate(rules.chits):
        for i, p, w in chits:
            counts[(colour, int(i), int(p), int(w))] = counts.get((colour, int(i), int(p), int(w)), 0) + 1
    return [{"component": label, "colour": COLOURS[c], "icons": int(i), "points": int(p), "power": int(w),
             "count": counts[(int(c), int(i), int(p), int(w))]}
            for label, (c, i, p, w) in zip(kind_labels(kinds), kinds, strict=True)]


@njit(cache=True)
def _play_on(s, rng, kinds_row, params_row, trees, history, stop_turn, plan, buf):
    """Play on from `s` with generator `rng` until the game is over or, with stop_turn >= 0, until
    stop_turn turns are finished (a turn's last action ends it, so `s` is then at a turn's start). Search
    trees start fresh: every arm of an intervention starts from the same nothing."""
    n_history = ROOT  # int64 from the start (uct.ROOT)
    for seat in range(MAX_PLAYERS):
        trees.meta[seat, M_VALID] = 0
    while s[OVER] == 0:
        if stop_turn >= 0 and s[TURN] >= stop_turn:
            return
        seat = s[TO_MOVE]
        n_plan = next_plan(s, rng, kinds_row[seat], params_row[seat], trees, history, n_history, plan, buf)
        for i in range(n_plan):
            apply_action(s, plan[i])
            n_history = remember(history, n_history, plan[i], trees)
            if s[OVER] == 1 or (stop_turn >= 0 and s[TURN] >= stop_turn):
                break


@njit(cache=True)
def _pick_chit(s, kind, pick):
    """A chit of `kind` (colour, icons, points, power) still on the board, drawn uniformly with `pick`;
    -1 when there is none."""
    n = 0
    for chit in range(N_CHITS):
        if (s[OWNER + chit] == -1 and chit // 10 == kind[0] and s[ICONS + chit] == kind[1]
                and s[POINTS + chit] == kind[2] and s[POWER + chit] == kind[3]):
            n += 1
    if n == 0:
        return -1
    chosen = rng_below(pick, n)
    for chit in range(N_CHITS):
        if (s[OWNER + chit] == -1 and chit // 10 == kind[0] and s[ICONS + chit] == kind[1]
                and s[POINTS + chit] == kind[2] and s[POWER + chit] == kind[3]):
            if chosen == 0:
                return chit
            chosen -= 1
    return -1


@njit(cache=True, nogil=True)
def play_values(seeds, rules, kinds, positions, agent_kinds, agent_params, out, measure_later, power_seat):
    """The paired arms of every (game, position, kind), into `out` (a ValuesOut): scores[g, p, k, arm, seat]
    and shares (the seat's win share under the configured tie-break) for arm 0 (control), 1 + seat (that
    seat holds the chit) and 1 + players + seat (holds it without its power: kinds with a power, first
    position, seat power_seat[g] only; arms not played stay NaN); available[g, p, k] = 1 where the arms
    were played; base_scores / base_shares[g, seat]: the seed's own game, played on to its end with no
    intervention. Positions after the start are measured only where measure_later[g] is 1."""
    players = rules.players
    n_arms = 1 + 2 * players
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    trees = _seat_trees(agent_kinds, agent_params, players, rules.voluntary)
    history = np.empty(MAX_HISTORY, dtype=np.int64)
    for g in range(seeds.shape[0]):
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)  # the agents' stream, as in batch.play_batch
        for p in range(positions.shape[0]):
            _play_on(s, rng, agent_kinds[g], agent_params[g], trees, history, positions[p], plan, buf)
            if s[OVER] == 1 or s[TURN] != positions[p] or s[CHITS_LEFT] < 2:
                continue
            if positions[p] > 0 and measure_later[g] == 0:
                continue  # positions after the start: every LATER_EVERY-th base game (run_values)
            for k in range(kinds.shape[0]):
                pick = rng_seeded(seeds[g], _PICK_STREAM + p * kinds.shape[0] + k)
                chit = _pick_chit(s, kinds[k], pick)
                if chit < 0:
                    continue
                out.available[g, p, k] = 1
                stripped = 1 + players + power_seat[g]  # the one seat holding it powerless
                for arm in range(n_arms):
                    if arm > players and (kinds[k, 3] == 0 or p > 0 or arm != stripped):
                        continue  # powers: at the first position, one seat (rotated) a game
                    a = s.copy()
                    r = rng.copy()
                    a[OWNER + chit] = NO_ONE if arm == 0 else (arm - 1) % players
                    if arm > players:
                        a[POWER + chit] = 0
                    a[CHITS_LEFT] -= 1
                    _play_on(a, r, agent_kinds[g], agent_params[g], trees, history, TO_THE_END, plan, buf)
                    _result(a, score, win, out.scores[g, p, k, arm], out.shares[g, p, k, arm],
                            out.last_turns[g, p, k, arm])
        # the game itself
        _play_on(s, rng, agent_kinds[g], agent_params[g], trees, history, TO_THE_END, plan, buf)
        _result(s, score, win, out.base_scores[g], out.base_shares[g], out.base_last[g])


@njit(cache=True)
def _result(s, score, win, scores_out, shares_out, last_out):
    """A finished game's scores, win shares (the configured tie-break, R-9) and each seat's last turn
    (R-20) into the three rows."""
    scores(s, score)
    winners(s, score, win)
    n_win = 0
    for seat in range(s[PLAYERS]):
        n_win += win[seat]
    for seat in range(s[PLAYERS]):
        scores_out[seat] = score[seat]
        shares_out[seat] = win[seat] / n_win
        last_out[seat] = s[LAST_TURN + seat]


# ---- Python face ---------------------------------------------------------------------------------------
def run_values(rules: KamakuraRules, seeds: np.ndarray, seating: np.ndarray, params: np.ndarray | None = None,
               positions: tuple[int, ...] = POSITIONS, first_game: int = 0) -> dict[str, np.ndarray]:
    """Play the paired arms of every kind (chit_kinds) at every position for one base game per seed;
    seating and params as batch.run_batch takes them. Returns kinds, positions, scores, shares, available
    (see play_values)."""
    from sim.kamakura.game import kernel_rules

    players = rules.players
    seeds, seating, params = batch_inputs(seeds, seating, players, params, N_PARAMS)
    kinds = chit_kinds(rules)
    pos = np.asarray(positions, dtype=np.int64)
    shape = (len(seeds), len(pos), len(kinds), 1 + 2 * players, players)
    out_scores = np.zeros(shape, dtype=np.int64)
    out_shares = np.full(shape, np.nan)
    last_turns = np.full(shape, -1, dtype=np.int64)
    available = np.zeros(shape[:3], dtype=np.int8)
    base_scores = np.zeros((len(seeds), players), dtype=np.int64)
    base_shares = np.zeros((len(seeds), players))
    # The start is measured in every base game, later positions in every LATER_EVERY-th (by its index in
    # the run, so the same games whatever the chunking): the start is the headline, and the later
    # positions would otherwise cost a third of the run.
    game_ids = first_game + np.arange(len(seeds))
    later = (game_ids % LATER_EVERY == 0).astype(np.int8)
    power_seat = (game_ids % players).astype(np.int64)  # rotated: every seat holds it equally often
    out = ValuesOut(scores=out_scores, shares=out_shares, last_turns=last_turns, available=available,
                    base_scores=base_scores, base_shares=base_shares,
                    base_last=np.full((len(seeds), players), -1, dtype=np.int64))
    play_values(seeds, kernel_rules(rules), kinds, pos, seating, params, out, later, power_seat)
    return {"kinds": kinds, "positions": pos, **out._asdict()}


def values_table(first_game: int, out: dict[str, np.ndarray]) -> pa.Table:
    """The values table of base games first_game..: one row per (game, position, kind, arm, seat) played,
    with ``game_id, position, component, holder (-1: nobody), with_power, seat, score, win_share,
    last_turn`` (the seat's final turn, R-20); `component` indexes the run's kinds (manifest
    ``components``)."""
    scores_, shares, available = out["scores"], out["shares"], out["available"]
    games, n_pos, n_kinds, n_arms, players = scores_.shape
    keep = available[:, :, :, None].astype(bool) & ~np.isnan(shares[..., 0])  # the arms played
    g, p, k, a = np.nonzero(keep)
    rows = len(g)
    seat = np.tile(np.arange(players), rows)
    rep = lambda x: np.repeat(x, players)  # noqa: E731 (one row per seat)
    holder = np.where(a == 0, -1, (a - 1) % players)
    columns = {
        "game_id": rep(first_game + g),
        "position": rep(out["positions"][p]),
        "component": rep(k),
        "holder": rep(holder),
        "with_power": rep(a <= players),
        "seat": seat,
        "score": scores_[g, p, k, a].reshape(-1),
        "win_share": shares[g, p, k, a].reshape(-1),
        "last_turn": out["last_turns"][g, p, k, a].reshape(-1),  # R-20 re-scoring
    }
    return arms_table(columns, first_game, out["base_scores"], out["base_shares"], last_turn=out["base_last"])

