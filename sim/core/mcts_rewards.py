"""Terminal rewards of the MCTS agents, per player in [0, 1] (compiled; shared by both games)."""

from numba import njit


@njit(cache=True)
def lead_rewards(values, players, scale, out):
    """Each player's lead over the best other player (points, tokens), `scale` of it spanning the whole
    range: 0.5 for level, clipped at 0 and 1."""
    for p in range(players):
        best_other = -(1 << 62)
        for q in range(players):
            if q != p and values[q] > best_other:
                best_other = values[q]
        r = 0.5 + (values[p] - best_other) / (2.0 * scale)
        out[p] = 0.0 if r < 0.0 else (1.0 if r > 1.0 else r)


@njit(cache=True)
def win_rewards(win, players, out):
    """1 to the winner; a win shared by k players gives each 1/k."""
    n_win = 0
    for p in range(players):
        n_win += win[p]
    for p in range(players):
        out[p] = win[p] / n_win if n_win > 0 else 0.0
