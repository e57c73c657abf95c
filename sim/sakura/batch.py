"""Batch self-play for Sakura: many games in one compiled call, results as arrays.

Game i is set up from seeds[i] (stream 0: deck shuffle and reshuffles) and its agents draw from stream 1
of the same seed, so a game's record depends on its seed and seating alone.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from sim.core.batching import batch_inputs, result_arrays
from sim.core.rng import rng_seeded
from sim.sakura.agents import AGENT_EXPERT, AGENT_MCTS, AGENT_SEARCH, agent_action
from sim.sakura.expert import expert_action
from sim.sakura.kernels import (
    BUMPS,
    END_REASON,
    LOG_BUMPS,
    LOG_CARD,
    LOG_GAINED,
    LOG_N,
    LOG_OWNER,
    LOG_RESOLVED,
    LOG_ROUND,
    LOG_SAKURA,
    LOG_TOKENS,
    MAX_PAINTERS,
    MAX_PLAYERS,
    N_ACTIONS_MAX,
    N_PAINTERS,
    PAINTER,
    PH_OVER,
    PHASE,
    PLAYERS,
    ROUND,
    TO_MOVE,
    TOKENS,
    apply_action,
    new_game,
    redeal_draws,
    winners,
)
from sim.sakura.mcts import N_PARAMS, mcts_action
from sim.sakura.search import search_action

if TYPE_CHECKING:
    from sim.sakura.params import SakuraRules

CARD_COLUMNS = 7   # game, round, painter (seat; players = court), card, resolved, bumps, tokens after
SAKURA_COLUMNS = 5  # game, round, sakura index, painter, tokens gained

#: The per-game result arrays play_batch fills, row g for game g; the names are run_batch's keys.
#: tokens and positions (final path index, the R-14 tie-break's input): (games, painters), the court
#: painter's in the last column with two players; winners (0/1): (games, players); other_winners: 1 where
#: the court painter won or shared the win (R-23, court_can_win), else 0; the rest: (games,).
BatchOut = namedtuple("BatchOut", ["tokens", "winners", "tie", "decided_by_tiebreak", "rounds", "end_reason",
                                   "bumps", "positions", "other_winners"])


@njit(cache=True)
def next_action(kind, s, rng, seat_params, buf):
    """The action of the seat to move, an agent of code `kind` with parameter row `seat_params` (the
    searching and learned agents read theirs; the others need none)."""
    if kind == AGENT_MCTS:
        return mcts_action(s, rng, seat_params)
    if kind == AGENT_EXPERT:
        return expert_action(s, rng, seat_params)
    if kind == AGENT_SEARCH:
        return search_action(s, rng, seat_params)
    return agent_action(kind, s, rng, buf)


@njit(cache=True, nogil=True)  # lets the runner's helper threads work while games play
def play_batch(first, seeds, args, agent_kinds, agent_params, out, card_log, sakura_log, counts,
               streams):
    """Play games first.. of seeds under `args` (kernels.KernelRules, as game.kernel_rules gives them) into
    `out` (a BatchOut); returns the index after the last game finished (less than len(seeds) when the
    logs are full: the caller grows them and calls again). counts = [card rows, sakura rows].
    agent_params[g, seat] holds a seat's parameter row (an MCTS seat's mcts.P_*, an expert seat's
    expert.E_* and model weights). streams = [play, draws]: the cards come from stream 0 of each game's
    seed and the agents draw from stream `play` (1 in every study); a `draws` stream other than 0 shuffles
    the deck left after the deal from that stream (kernels.redeal_draws). Other streams replay a deal with
    other play or other draws (the luck decomposition, sim/app/luck.py)."""
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    win = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for g in range(first, seeds.shape[0]):
        s = new_game(args, seeds[g])
        if streams[1] != 0:
            redeal_draws(s, rng_seeded(seeds[g], streams[1]))
        rng = rng_seeded(seeds[g], streams[0])
        c0 = counts[0]
        s0 = counts[1]
        while s[PHASE] != PH_OVER:
            round_before = s[ROUND]
            seat = s[TO_MOVE]
            kind = agent_kinds[g, seat]
            if kind == AGENT_MCTS or kind == AGENT_EXPERT or kind == AGENT_SEARCH:
                action = next_action(kind, s, rng, agent_params[g, seat], buf)
            else:  # no parameter row: taking its view at every move of random and greedy play showed
                action = agent_action(kind, s, rng, buf)
            apply_action(s, action)
            if (s[ROUND] != round_before or s[PHASE] == PH_OVER) and s[LOG_ROUND] == round_before:
                full = counts[0] + MAX_PAINTERS > card_log.shape[0]
                if full or counts[1] + MAX_PAINTERS > sakura_log.shape[0]:
                    counts[0] = c0  # out of room: drop this game's rows and replay it after growing
                    counts[1] = s0
                    return g
                for i in range(s[LOG_N]):
                    row = counts[0]
                    card_log[row, 0] = g
                    card_log[row, 1] = round_before
                    card_log[row, 2] = s[LOG_OWNER + i]
                    card_log[row, 3] = s[LOG_CARD + i]
                    card_log[row, 4] = s[LOG_RESOLVED + i]
                    card_log[row, 5] = s[LOG_BUMPS + i]
                    card_log[row, 6] = s[LOG_TOKENS + i]
                    counts[0] += 1
                if s[LOG_SAKURA] >= 0:
                    for p in range(s[N_PAINTERS]):
                        row = counts[1]
                        sakura_log[row, 0] = g
                        sakura_log[row, 1] = round_before
                        sakura_log[row, 2] = s[LOG_SAKURA]
                        sakura_log[row, 3] = p
                        sakura_log[row, 4] = s[LOG_GAINED + p]
                        counts[1] += 1
        tie, decided = winners(s, win)
        for seat in range(s[PLAYERS]):
            out.tokens[g, seat] = s[TOKENS + seat]
            out.winners[g, seat] = win[seat]
            out.positions[g, seat] = s[PAINTER + seat]  # final path index: the R-14 tie-break's input
        if s[N_PAINTERS] > s[PLAYERS]:  # the court painter's tokens, position and win
            out.tokens[g, s[PLAYERS]] = s[TOKENS + s[PLAYERS]]
            out.positions[g, s[PLAYERS]] = s[PAINTER + s[PLAYERS]]
            out.other_winners[g] = win[s[PLAYERS]]
        out.tie[g] = tie
        out.decided_by_tiebreak[g] = decided
        out.rounds[g] = s[ROUND]
        out.end_reason[g] = s[END_REASON]
        out.bumps[g] = s[BUMPS]
    return seeds.shape[0]


def run_batch(rules: SakuraRules, seeds: ArrayLike, seating: ArrayLike,
              params: ArrayLike | None = None, play_stream: int = 1,
              draw_stream: int = 0) -> dict[str, np.ndarray]:
    """Play one game per seed; seating is a (games, players) array of agent codes or one row for all,
    params the matching parameter rows ((games, players, n) or one (players, n) table, as
    sim/core/agent_spec.py agent_arrays builds them), needed only when a seat plays mcts or expert. tokens
    and positions have one more column than players when a court painter plays (two players), and
    other_winners marks the games it won or shared (R-23). `play_stream` and `draw_stream`: see
    play_batch (the defaults play every study's games)."""
    from sim.sakura.game import kernel_rules

    players = rules.players
    seeds, seating, params = batch_inputs(seeds, seating, players, params, N_PARAMS)
    games = len(seeds)
    painters = players + (1 if players == 2 else 0)
    out = BatchOut(
        tokens=np.zeros((games, painters), dtype=np.int64),
        rounds=np.zeros(games, dtype=np.int64),
        **result_arrays(games, players),
        bumps=np.zeros(games, dtype=np.int64),
        positions=np.zeros((games, painters), dtype=np.int64),
        other_winners=np.zeros(games, dtype=np.int64),
    )
    card_log = np.empty((max(1024, games * 64), CARD_COLUMNS), dtype=np.int32)  # rows past counts unused
    sakura_log = np.empty((max(256, games * 3 * painters + 64), SAKURA_COLUMNS), dtype=np.int32)
    counts = np.zeros(2, dtype=np.int64)
    args = kernel_rules(rules)
    done = 0
    while done < games:
        done = play_batch(done, seeds, args, seating, params, out, card_log, sakura_log, counts,
                          np.array([play_stream, draw_stream], dtype=np.int64))
        if done < games:
            card_log = np.concatenate([card_log, np.empty_like(card_log)])
            sakura_log = np.concatenate([sakura_log, np.empty_like(sakura_log)])
    result = out._asdict()
    result["cards_played"] = card_log[:counts[0]]
    result["sakura_scored"] = sakura_log[:counts[1]]
    return result
