"""Ratings of a ladder's levels (docs/explanation/statistics.md): one Plackett-Luce log-strength per level,
fitted from all the ladder's games at once, with a 95% interval.

**Model.** A game is a ranking of its seats. Under Plackett-Luce a seat whose level is l has strength
w = exp(theta_l), and the chance of a game's order is the product, place by place, of the chance that the
seat placed there is chosen from the seats not placed yet: w_seat / (sum of w over those seats). Several
seats of one game hold the same level (one seat of the higher level against N-1 of the lower): each seat is
its own item and the seats of a level share its parameter, so a level held by k seats not yet placed counts
k times in the denominator (`choice_sets` writes each place as such a choice from a multiset of levels).

**Order of a game's seats.** By win share first (the winner, or the winners of a shared win, ahead of the
others even when a tie-break on equal scores decided it), then by score. Seats equal in both are tied: a
shared win, or equal scores behind the winner. A game whose win went to no seat (a neutral painter that
a game lets win) is ordered by score alone. **Ties** follow Breslow's rule (the same product-of-choices
likelihood as the Cox model's, where it handles tied times): each seat of a tied group counts as chosen
from all the seats not placed ahead of it, the others of its group included, so a tie is read as evidence
that the tied levels are alike (a two-player tie counts as a half win to each side, with the weight of
two games). Ties cannot be written as a strict ranking; as choices they can, which is why the fit takes
top-1 choices.

**Unit and anchor.** A rating is a natural-log strength relative to the anchor, which is 0 with no
interval: the lowest level of the strongly connected group that holds the top level (below), which is the
lowest level (random) whenever every level can be rated. A level rated d above another wins a game against
N-1 seats of that other with chance e^d / (e^d + N - 1) (`win_share_against`): for two players the logistic
1 / (1 + e^-d), so d = 1 is 73%, d = 2 is 88%; for three players d = 1 is 58% against the fair 33%.

**Fit.** `choix.ilsr_top1` (iterative Luce spectral ranking, Maystre and Grossglauser 2015), whose fixed
point is the maximum-likelihood estimate. It is right with repeated items: its Markov chain adds one rate
per occurrence of a loser, and the self-loop a repeated winner adds cancels in the generator, so the fixed
point solves the likelihood equations of the multiset model (checked against a direct maximisation in
tests/test_ladder_ratings.py). choix's `opt_*` functions are not: their gradient adds into repeated indices
with numpy's fancy `+=`, which keeps only one of them.

**Interval.** Wald, rating +- 1.96 standard errors, on the log-strength scale, with the cluster-robust
(sandwich) covariance I^-1 (sum over clusters g of s_g s_g') I^-1 x G / (G - 1): I is the observed Fisher
information of the Plackett-Luce likelihood at the estimate (the anchor's parameter held at 0), s_g the
score summed over cluster g, G the number of clusters. A cluster is a game index (``game_id``): a ladder
played with ``--same-deals`` plays the same seeds in every step, so game i of every step shares its deal,
and those games are the independent unit; with fresh deals per step (the default) they are independent, and
clustering independent games keeps the interval valid. A game's seats are never split. The sandwich keeps
the interval honest where shared deals tie steps together and where a full ranking is less informative
than the model says.

**When no rating exists.** The maximum-likelihood estimate exists only when the levels' "finished ahead
of" graph is strongly connected (Hunter 2004): if a level finished ahead of every seat of the level below
in every game, no finite rating puts the two on one scale. Such a ladder is fitted per strongly connected
group of levels, and the scale is that of the group holding the top level (the last one played), since the
strong levels are the ones a designer reads: its lowest level is the anchor. The levels outside that group
(in a ladder, below it: greedy beats random in every game of many games) get no rating (NaN), a ``scale``
saying where they lie and a note saying why; a gain between two levels of one group is still given.

Pure functions: `game_places` (seats -> seats with their place), `choice_sets` (places -> the choices),
`fit_levels` (seats -> ratings and covariance), `ladder_ratings` (seats and the ladder's steps -> one row per
level, with the gain over the level below and that gain as a win share), `anchor_level` (that table -> the
level rated 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import choix
import numpy as np
import pandas as pd
from scipy.sparse.csgraph import connected_components
from scipy.stats import norm

Z95 = float(norm.ppf(0.975))
#: the columns of the seats table `fit_levels` and `ladder_ratings` read: one row per seat of a game; a
#: game is (step, game_id), a cluster of dependent games is a game_id (the same seed in every step)
SEAT_COLUMNS = ("step", "game_id", "level", "score", "win_share")
RATING_COLUMNS = ("level", "rating", "se", "ci_low", "ci_high", "games", "below", "gain", "gain_low",
                  "gain_high", "players", "share_vs_below", "share_low", "share_high", "scale", "note")
#: a level's ``scale``: the anchor (rated 0), rated on its scale, or without a rating: below it (a level
#: above finished ahead of it in every game), above it (the reverse), off it (not connected otherwise), or
#: not played
ANCHOR, ON, BELOW, ABOVE, OFF, UNPLAYED = ("anchor", "rated", "below the scale", "above the scale",
                                           "off the scale", "not played")
#: why a level has no rating (`_no_rating`): the rung to the level above it splits the groups ...
AHEAD = BELOW + (": {upper} finished ahead of every {lower} player in every game, so no finite rating puts "
                 "{lower} on {upper}'s scale")
BEHIND = ABOVE + (": {upper} finished behind every {lower} player in every game, so no finite rating puts "
                  "{lower} on {upper}'s scale")
NEVER = OFF + ": it never played {upper}, so no game puts it on {upper}'s scale"
#: ... or the level above it has no rating either
UNDER = "{scale}: {upper} above it has none"
APART = OFF + ": its games do not connect it both ways with the levels rated from {anchor}"


def win_share_against(gain: float | np.ndarray, players: int | np.ndarray) -> np.ndarray:
    """The chance that one seat rated `gain` above the others wins a game against `players` - 1 of them:
    e^gain / (e^gain + players - 1) (Plackett-Luce's first place)."""
    gain = np.asarray(gain, dtype=float)
    return 1.0 / (1.0 + (np.asarray(players, dtype=float) - 1.0) * np.exp(-gain))


def game_places(seats: pd.DataFrame) -> pd.DataFrame:
    """`seats` (SEAT_COLUMNS) ordered by game and place, with ``place``: 1 + the number of seats of the
    same game strictly ahead of it (ahead: a larger win share, or the same win share and a larger score);
    tied seats share a place."""
    frame = seats.reset_index(drop=True)
    share = frame["win_share"].to_numpy(dtype=float)
    score = frame["score"].to_numpy(dtype=float)
    game = frame.groupby(["step", "game_id"], sort=True).ngroup().to_numpy()
    order = np.lexsort((-score, -share, game))
    frame = frame.iloc[order].reset_index(drop=True)
    game, share, score = game[order], share[order], score[order]
    first = np.ones(len(frame), dtype=bool)  # the first row of a game, or of a new (share, score)
    first[1:] = (game[1:] != game[:-1]) | (share[1:] != share[:-1]) | (score[1:] != score[:-1])
    position = np.arange(len(frame))
    game_start = np.maximum.accumulate(np.where(np.r_[True, game[1:] != game[:-1]], position, 0))
    group_start = np.maximum.accumulate(np.where(first, position, 0))
    return frame.assign(place=group_start - game_start + 1)


@dataclass
class Choices:
    """A ladder's games as top-1 choices: choice c picks a seat of level ``chosen[c]`` from the multiset
    of levels ``counts[c]`` (how many seats of each level were not placed ahead of it, the chosen one
    included); ``cluster[c]`` is its game's game_id."""

    chosen: np.ndarray  # (choices,) level index
    counts: np.ndarray  # (choices, levels) seats of each level in the set
    cluster: np.ndarray  # (choices,) game_id

    def top1(self, keep: np.ndarray, local: np.ndarray) -> list[tuple[int, list[int]]]:
        """The choices `keep` (a mask) as choix's top-1 data over the levels renumbered by `local` (level
        index -> item): (winner, losers), the losers a list with one entry per seat."""
        kinds, which = np.unique(np.column_stack([self.chosen[keep], self.counts[keep]]), axis=0,
                                 return_inverse=True)  # a ladder has few kinds of choice: build each once
        made = []
        for kind in kinds:
            counts = kind[1:].copy()
            counts[kind[0]] -= 1
            made.append((int(local[kind[0]]), [int(local[lv]) for lv in np.repeat(np.arange(len(counts)),
                                                                                  counts)]))
        return [made[i] for i in which.reshape(-1)]


def choice_sets(places: pd.DataFrame, levels: list[str]) -> Choices:
    """The Plackett-Luce choices of `game_places`' output (Breslow's rule for ties: a seat is chosen from
    every seat not placed strictly ahead of it). A choice from one seat (the last place) says nothing and
    is left out; seats whose level is not in `levels` are refused (ValueError)."""
    index = {name: i for i, name in enumerate(levels)}
    unknown = sorted(set(places["level"].astype(str)) - set(index))
    if unknown:
        raise ValueError(f"seats of levels not in the ladder: {', '.join(unknown)}")
    game = places.groupby(["step", "game_id"], sort=False).ngroup().to_numpy()
    n_games, n_levels = int(game.max()) + 1 if len(game) else 0, len(levels)
    slot = places.groupby(game).cumcount().to_numpy()
    width = int(slot.max()) + 1 if len(slot) else 0
    level = np.full((n_games, width), -1)
    place = np.full((n_games, width), np.iinfo(np.int64).max)
    level[game, slot] = [index[str(x)] for x in places["level"]]
    place[game, slot] = places["place"].to_numpy()
    cluster = np.zeros(n_games, dtype=np.int64)
    cluster[game] = places["game_id"].to_numpy(dtype=np.int64)
    valid = level >= 0
    onehot = (level[:, :, None] == np.arange(n_levels)).astype(np.int64)  # (games, seats, levels)
    in_set = valid[:, None, :] & (place[:, None, :] >= place[:, :, None])  # [g, j, k]: k in j's set
    counts = np.einsum("gjk,gkl->gjl", in_set.astype(np.int64), onehot)
    keep = valid & (in_set.sum(axis=2) > 1)
    return Choices(level[keep], counts[keep], np.broadcast_to(cluster[:, None], level.shape)[keep])


@dataclass
class LevelFit:
    """`fit_levels`' result: ``ratings`` (level, rating, se, ci_low, ci_high, games; ``group``, the level's
    strongly connected group, and ``relative``, its rating against the lowest level of its group),
    ``cov`` (levels x levels, the sandwich covariance of ``relative``; NaN between groups) and ``anchor``
    (the index of the level rated 0: the lowest of the group that holds the top level played)."""

    ratings: pd.DataFrame
    cov: pd.DataFrame
    behind: pd.DataFrame  # levels x levels: [a, b] whether a seat of a ever finished behind a seat of b
    anchor: int


def _groups(choices: Choices, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Each level's strongly connected group of the "finished behind" graph (an edge from each level of a
    choice's set to the chosen one), and that graph."""
    present = (choices.counts > 0).astype(np.int64)
    chosen = np.zeros((len(choices.chosen), n_levels), dtype=np.int64)
    chosen[np.arange(len(choices.chosen)), choices.chosen] = 1
    behind = (present.T @ chosen) > 0
    np.fill_diagonal(behind, False)
    return connected_components(behind, directed=True, connection="strong")[1], behind


def _fit_group(choices: Choices, members: np.ndarray, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
    """The ratings (members[0] at 0) and their sandwich covariance over the choices whose whole set lies
    in `members`."""
    inside = np.zeros(n_levels, dtype=bool)
    inside[members] = True
    keep = ~((choices.counts > 0) & ~inside).any(axis=1)
    local = np.full(n_levels, -1)
    local[members] = np.arange(len(members))
    theta = choix.ilsr_top1(len(members), choices.top1(keep, local), max_iter=10_000, tol=1e-10)
    theta = theta - theta[0]
    counts = choices.counts[keep][:, members].astype(float)
    weights = counts * np.exp(theta)
    p = weights / weights.sum(axis=1, keepdims=True)  # each level's chance of being chosen, per choice
    score = -p
    score[np.arange(len(p)), local[choices.chosen[keep]]] += 1.0
    info = np.diag(p.sum(axis=0)) - p.T @ p  # the observed information: sum of diag(p) - p p'
    _, cluster = np.unique(choices.cluster[keep], return_inverse=True)
    g = int(cluster.max()) + 1
    per_cluster = np.zeros((g, len(members)))
    np.add.at(per_cluster, cluster, score)
    bread = np.linalg.inv(info[1:, 1:])
    meat = per_cluster[:, 1:].T @ per_cluster[:, 1:]
    cov = np.zeros((len(members), len(members)))
    cov[1:, 1:] = bread @ meat @ bread * (g / (g - 1) if g > 1 else np.nan)
    return theta, cov


def fit_levels(seats: pd.DataFrame, levels: list[str]) -> LevelFit:
    """One rating per level of `levels` (weakest first) from the seats of all the games (SEAT_COLUMNS),
    with its 95% interval (the module's docstring says how). The ratings are those of the strongly
    connected group that holds the last level played, anchored at that group's lowest level (rated 0): the
    first level when the graph is whole. A level in no game, or outside that group, has NaN rating and
    interval. The order of the games does not matter."""
    n_levels = len(levels)
    choices = choice_sets(game_places(seats), levels)
    group, behind = _groups(choices, n_levels)
    relative = np.full(n_levels, np.nan)
    cov = np.full((n_levels, n_levels), np.nan)
    played = np.zeros(n_levels, dtype=bool)
    played[[levels.index(x) for x in set(seats["level"].astype(str))]] = True
    for g in np.unique(group):
        members = np.flatnonzero((group == g) & played)
        if len(members) >= 2:
            relative[members], cov[np.ix_(members, members)] = _fit_group(choices, members, n_levels)
    top = int(np.flatnonzero(played)[-1])
    anchored = (group == group[top]) & played
    anchor = int(np.flatnonzero(anchored)[0])
    relative[anchor], cov[anchor, anchor] = 0.0, 0.0  # a group of one level is its own anchor
    rating = np.where(anchored, relative, np.nan)  # a rating on another group's scale is not shown
    se = np.where(anchored, np.sqrt(np.clip(np.diag(cov), 0.0, None)), np.nan)  # -1e-17 is 0
    games = seats.drop_duplicates(["step", "game_id", "level"])["level"].astype(str).value_counts()
    ratings = pd.DataFrame({"level": levels, "rating": rating, "se": se, "ci_low": rating - Z95 * se,
                            "ci_high": rating + Z95 * se,
                            "games": [int(games.get(x, 0)) for x in levels], "group": group,
                            "relative": relative})
    return LevelFit(ratings, pd.DataFrame(cov, index=levels, columns=levels),
                    pd.DataFrame(behind, index=levels, columns=levels), anchor)


def _no_rating(fit: LevelFit, levels: list[str], i: int,
               notes: dict[int, tuple[str, str]]) -> tuple[str, str]:
    """Where level i lies off the scale, and why in words (AHEAD, BEHIND, NEVER, UNDER, APART): not played;
    or the rung to the level above it splits the groups (that level finished ahead of every seat of it in
    every game, or behind; or they never met); or it shares its group with the level above, which has no
    rating either. `notes`: those of the levels above it, found first."""
    if fit.ratings["games"].iloc[i] == 0:
        return UNPLAYED, UNPLAYED
    group = fit.ratings["group"].to_numpy()
    if i > fit.anchor or i + 1 >= len(levels):  # not below the anchor's group: no rung explains it
        return OFF, APART.format(anchor=levels[fit.anchor])
    lower, upper = levels[i], levels[i + 1]
    if group[i + 1] == group[i]:
        scale = notes[i + 1][0] if i + 1 in notes else OFF
        return scale, UNDER.format(scale=scale, upper=upper)
    upper_behind, lower_behind = bool(fit.behind.iloc[i + 1, i]), bool(fit.behind.iloc[i, i + 1])
    if lower_behind and not upper_behind:
        return BELOW, AHEAD.format(upper=upper, lower=lower)
    if upper_behind and not lower_behind:
        return ABOVE, BEHIND.format(upper=upper, lower=lower)
    if not upper_behind:
        return OFF, NEVER.format(upper=upper)
    return OFF, APART.format(anchor=levels[fit.anchor])


def ladder_ratings(seats: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """The ladder's ratings, one row per level (weakest first, from `steps`: analysis.ladder_report's
    `steps_frame`) with RATING_COLUMNS: ``rating`` (against the anchor: `fit_levels`) with ``se`` and its
    95% interval ``ci_low``, ``ci_high``; ``games`` it played; ``below`` the level it played
    against; ``gain`` its rating minus that level's, with its 95% interval ``gain_low``, ``gain_high``;
    ``share_vs_below`` that gain as the win share of one seat of it against ``players`` - 1 seats of the
    level below (`win_share_against`), with ``share_low``, ``share_high``; ``scale`` (ANCHOR, ON, or where
    a level without a rating lies: BELOW, ABOVE, OFF, UNPLAYED) and ``note``, why a rating is missing.
    `seats`: SEAT_COLUMNS, ``level`` the level's name (as in `steps`)."""
    levels = [str(steps["lower"].iloc[0]), *(str(x) for x in steps["higher"])]
    fit = fit_levels(seats, levels)
    table = fit.ratings.drop(columns=["group", "relative"])
    relative = fit.ratings["relative"].to_numpy()
    group = fit.ratings["group"].to_numpy()
    rows: list[dict] = []
    notes: dict[int, tuple[str, str]] = {}
    for i in reversed(range(len(levels))):  # from the top, where the scale is
        row = {"below": "", "gain": np.nan, "gain_low": np.nan, "gain_high": np.nan, "players": np.nan,
               "share_vs_below": np.nan, "share_low": np.nan, "share_high": np.nan, "note": ""}
        if i > 0:
            below, players = levels[i - 1], int(steps["players"].iloc[i - 1])
            row.update(below=below, players=players)
            if group[i] == group[i - 1] and not np.isnan(relative[i]):
                gain = relative[i] - relative[i - 1]
                var = fit.cov.iloc[i, i] + fit.cov.iloc[i - 1, i - 1] - 2 * fit.cov.iloc[i, i - 1]
                half = Z95 * float(np.sqrt(max(var, 0.0)))
                shares = win_share_against(np.array([gain, gain - half, gain + half]), players)
                row.update(gain=gain, gain_low=gain - half, gain_high=gain + half,
                           share_vs_below=shares[0], share_low=shares[1], share_high=shares[2])
        row["scale"] = ANCHOR if i == fit.anchor else ON
        if np.isnan(table["rating"].iloc[i]):
            row["scale"], row["note"] = notes[i] = _no_rating(fit, levels, i, notes)
        rows.append(row)
    return pd.concat([table, pd.DataFrame(rows[::-1])], axis=1)[list(RATING_COLUMNS)]


def anchor_level(ratings: pd.DataFrame) -> str:
    """The level rated 0 in `ladder_ratings`' table."""
    return str(ratings.loc[ratings["scale"] == ANCHOR, "level"].iloc[0])
