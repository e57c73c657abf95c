"""`balance bench`: engine and agent throughput on this machine, every figure measured in the same run.

Each figure is the median of several timed repeats after a warm-up (numba compiles on first call); the
batch figures run on one core (the kernels are single-threaded). Every registered game is timed at its
spec's `bench_players`: random and greedy self-play through the batch path, random play through the
readable API, random play through OpenSpiel's and PettingZoo's APIs where the game has those adapters
(sim/core/interop_bench.py: each measured when its optional extra is installed), and whatever the game's
own bench module adds (its search, sim/<game>/bench.py). For a game with an expert it also says what a
designer waits for: the games and seconds that decide the seat questions at a 2 percentage-point margin in
expert self-play (`seat_question`).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from analysis.tally import SHARE_SCALE
from analysis.verdicts import Margins, about, duration
from sim import games
from sim.app.until_decided import games_if_no_difference
from sim.core.agent_spec import agent_arrays
from sim.core.interop_bench import interop_figures, interop_lines
from sim.core.rng import game_seeds, new_rng

#: the margin of the seat questions whose time `balance bench` reports (a share: 2 percentage points)
SEAT_MARGIN = 0.02


def _median_rate(run: Callable[[int], None], games: int, repeats: int) -> float:
    rates = []
    for rep in range(repeats):
        start = time.perf_counter()
        run(rep)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def play_api_game(game, policy_class, seed: int) -> None:
    """One random-agent game through the readable API (strings in, new states out)."""
    state = game.new_state(seed)
    policy = policy_class(new_rng(seed, 1))
    while not game.is_over(state):
        state = game.apply(state, policy.choose(game, state))


def _measure(spec: games.GameSpec, scale: float, repeats: int) -> dict:
    name, players = spec.name, spec.bench_players
    game = spec.game_class(spec.default_rules(players))
    run_batch, policy_class = spec.run_batch, spec.policies["random"]
    rules = game.rules
    random, greedy = spec.agents["random"].code, spec.agents["greedy"].code
    batch_games = max(10, int(20000 * scale))
    greedy_games = max(5, int(500 * scale))
    api_games = max(2, int(20 * scale))
    run_batch(rules, game_seeds(0, 0, 4), [random] * players)  # compile, or load the cache
    run_batch(rules, game_seeds(0, 0, 4), [greedy] * players)
    play_api_game(game, policy_class, 0)

    def batch(kind: int, games: int) -> Callable[[int], None]:
        return lambda rep: run_batch(rules, game_seeds(rep + 1, 0, games), [kind] * players)

    def api(rep: int) -> None:
        for seed in game_seeds(rep + 1, 0, api_games):
            play_api_game(game, policy_class, int(seed))

    out = _strong_selfplay(spec, rules, scale, repeats)
    if f"{name}_expert_selfplay_games_per_s" in out:
        out.update(seat_question(name, players, out[f"{name}_expert_selfplay_games_per_s"], _cores()))
    random_rate = _median_rate(batch(random, batch_games), batch_games, repeats)
    api_rate = _median_rate(api, api_games, repeats)
    greedy_rate = _median_rate(batch(greedy, greedy_games), greedy_games, repeats)
    return {
        **out,
        f"{name}_random_games_per_s": round(random_rate, 1),
        f"{name}_api_games_per_s": round(api_rate, 2),
        f"{name}_batch_over_api": round(random_rate / api_rate, 1),
        f"{name}_greedy_games_per_s": round(greedy_rate, 1),
        f"{name}_players": players,
        f"{name}_games_per_repeat": {"random_batch": batch_games, "random_api": api_games,
                                     "greedy_batch": greedy_games},
    }


def _strong_selfplay(spec: games.GameSpec, rules, scale: float, repeats: int) -> dict:
    """Self-play games per second of the `expert` agent, of the `mcts` agent at its defaults and of the
    `search` agent at its defaults where the game has one (one core), and of expert and search at the
    game's most players too, where strong play costs most, timed in alternation within each repeat so that
    a busy spell of a shared machine falls on all, and their ratios: what strong play costs. Empty for a
    game without an expert."""
    if "expert" not in spec.agents:
        return {}

    name, players, most = spec.name, spec.bench_players, spec.max_players
    iters = int(spec.agents["mcts"].params["iters"][1])
    sizes = {("expert", players): max(4, int(60 * scale)), ("mcts", players): max(1, int(3 * scale))}
    if "search" in spec.agents:
        sizes["search", players] = max(1, int(6 * scale))
    if most > players:
        sizes.update({(agent, most): max(1, n * players // most) for (agent, _), n in sizes.items()
                      if agent != "mcts"})
    rates = {key: [] for key in sizes}
    tables = {key: rules if key[1] == players else spec.default_rules(key[1]) for key in sizes}
    arrays = {key: agent_arrays([[key[0]] * key[1]] * sizes[key], spec) for key in sizes}
    for key, (kinds, params) in arrays.items():  # compile, or load the cache
        spec.run_batch(tables[key], game_seeds(0, 0, 1), kinds[:1], params[:1])
    for rep in range(repeats):
        for key, (kinds, params) in arrays.items():
            start = time.perf_counter()
            spec.run_batch(tables[key], game_seeds(rep + 1, 0, sizes[key]), kinds, params)
            rates[key].append(sizes[key] / (time.perf_counter() - start))
    median = {key: statistics.median(found) for key, found in rates.items()}
    expert, mcts = median["expert", players], median["mcts", players]
    out = {f"{name}_{agent}_selfplay_games_per_s_{most}p": round(rate, 3)
           for (agent, n), rate in median.items() if n == most and most > players}
    if ("search", players) in median:
        search = median["search", players]
        out.update({f"{name}_search_selfplay_games_per_s": round(search, 3),
                    f"{name}_search_cost_over_expert": round(expert / search, 1)})
    return {**out, f"{name}_expert_selfplay_games_per_s": round(expert, 2),
            f"{name}_mcts{iters}_selfplay_games_per_s": round(mcts, 3),
            f"{name}_expert_over_mcts{iters}": round(expert / mcts, 1),
            f"{name}_strong_selfplay_games_per_repeat": {f"{agent}_{n}p" if n != players else agent: games
                                                         for (agent, n), games in sizes.items()}}


def _cores() -> int:
    """The worker processes `balance simulate` starts by default (its --jobs: the machine's cores)."""
    return os.cpu_count() or 1


def seat_question_games(players: int, margin: float = SEAT_MARGIN) -> int:
    """The games in all `--until-decided` plans for a self-play run at `players` were there no difference
    (sim/app/until_decided.games_if_no_difference: the seats' family, Bonferroni over the seats, each
    equivalence interval inside +-margin): its rule applied to the tally of games in which every
    seat wins exactly its fair share, each game won outright (no ties), so each seat's win share has the
    sd of a win or a loss, sqrt(f (1 - f)); ties would lower it a little, and the games with it."""
    n = SHARE_SCALE * 1000  # a multiple of every player count up to 7: whole wins at the fair share
    wins = n // players
    common = {"games": n, "seat_games": np.full(players, n), "sizes": {players: n},
              "seat_units": [wins * SHARE_SCALE] * players,
              "seat_squares": [wins * SHARE_SCALE ** 2] * players}
    return games_if_no_difference(common, Margins(seats=margin, start=margin))


def seat_question(name: str, players: int, games_per_s: float, cores: int,
                  margin: float = SEAT_MARGIN) -> dict:
    """The time to decide the seat questions (are the seats fair, does the start player gain) within
    `margin` in self-play at `games_per_s` on one core: the games `seat_question_games` plans, and the
    seconds on one core and on `cores` (simulate's default --jobs), assuming every core plays at the one-core
    rate (the workers share nothing; their start-up and the tally are not counted)."""
    need = seat_question_games(players, margin)
    return {f"{name}_seat_question_games": need,
            f"{name}_seat_question_seconds_one_core": round(need / games_per_s, 1),
            f"{name}_seat_question_seconds_all_cores": round(need / (games_per_s * cores), 1),
            "seat_question_margin_pp": round(100 * margin, 6), "seat_question_cores": cores}


def seat_question_lines(figures: dict) -> list[str]:
    """`seat_question`'s figures in a designer's words, one line a game that has them."""
    named = [spec for spec in games.specs() if f"{spec.name}_seat_question_games" in figures]
    if not named:
        return []
    cores = figures["seat_question_cores"]
    lines = [f"  Time to decide the seat questions in expert self-play (is every seat's win rate within "
             f"{figures['seat_question_margin_pp']:g} percentage points",
             "  of the fair share, and the start player's?), as --until-decided plans it were there no "
             "difference:"]
    for spec in named:
        name = spec.name
        title = f"{spec.vocabulary.title} ({figures[f'{name}_players']} players)"
        lines.append(f"    {title:<20}: about {about(figures[f'{name}_seat_question_games']):,} games, "
                     f"{duration(figures[f'{name}_seat_question_seconds_one_core'])} on one core, "
                     f"{duration(figures[f'{name}_seat_question_seconds_all_cores'])} on {cores} "
                     f"core{'s' if cores != 1 else ''}")
    lines += [f"    ({cores} core{'s' if cores != 1 else ''}: `balance simulate`'s default --jobs here, "
              "assuming each core plays at the one-core rate above;",
              "    a real difference near the margin takes longer, one far from it less)"]
    return lines


def search_rate(search: Callable[[np.ndarray, np.ndarray, int], object], vector: np.ndarray, iters: int,
                repeats: int) -> float:
    """Median iterations per second of fresh searches from one position (after a warm-up search); the
    games' bench modules time their searches with it."""
    search(vector, new_rng(0, 1), 10)

    def run(rep: int) -> None:
        search(vector, new_rng(rep + 1, 1), iters)

    return _median_rate(run, iters, repeats)


def run_bench(scale: float = 1.0, repeats: int = 5) -> dict:
    figures: dict = {"repeats": repeats}
    for spec in games.specs():
        figures.update(_measure(spec, scale, repeats))
    for spec in games.specs():
        if spec.bench is not None:
            rules = spec.default_rules(spec.bench_players)
            figures.update(spec.bench.figures(rules, scale, repeats, search_rate))
        figures.update(interop_figures(spec, max(2, int(20 * scale)), repeats))
    figures["machine"] = (f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
                          f"numba {numba.__version__}, numpy {np.__version__}")
    return figures


def _most_players_lines(spec: games.GameSpec, figures: dict) -> list[str]:
    """The strong levels' self-play at the game's most players, where it costs most."""
    most, strong = spec.max_players, figures.get(f"{spec.name}_strong_selfplay_games_per_repeat", {})
    lines = []
    for agent in ("expert", "search"):
        rate = figures.get(f"{spec.name}_{agent}_selfplay_games_per_s_{most}p")
        if rate is not None:
            label = f"{agent} self-play, {most} players"
            lines.append(f"  {'':<22} {label:<20}: {rate:>10,.2f} games/s "
                         f"({strong[f'{agent}_{most}p']} games a repeat)")
    return lines


def format_bench(figures: dict) -> str:
    lines = [f"balance bench: median of {figures['repeats']} repeats, one core ({figures['machine']})"]
    for spec in games.specs():
        name = spec.name
        per = figures[f"{name}_games_per_repeat"]
        title = f"{spec.vocabulary.title} ({figures[f'{name}_players']} players)"
        lines += [
            f"  {title:<22} random, batch path  : {figures[f'{name}_random_games_per_s']:>10,.0f} games/s "
            f"({per['random_batch']} games a repeat)",
            f"  {'':<22} random, readable API: {figures[f'{name}_api_games_per_s']:>10,.1f} games/s "
            f"({per['random_api']} games a repeat; "
            f"batch is {figures[f'{name}_batch_over_api']:,.0f}x faster)",
            f"  {'':<22} greedy, batch path  : {figures[f'{name}_greedy_games_per_s']:>10,.0f} games/s "
            f"({per['greedy_batch']} games a repeat)",
        ]
        if f"{name}_expert_selfplay_games_per_s" in figures:
            iters = int(spec.agents["mcts"].params["iters"][1])
            strong = figures[f"{name}_strong_selfplay_games_per_repeat"]
            lines += [
                f"  {'':<22} expert self-play    : {figures[f'{name}_expert_selfplay_games_per_s']:>10,.1f} "
                f"games/s ({strong['expert']} games a repeat)",
                f"  {'':<22} mcts:iters={iters} self-play: "
                f"{figures[f'{name}_mcts{iters}_selfplay_games_per_s']:>7,.2f} games/s "
                f"({strong['mcts']} games a repeat; the expert is "
                f"{figures[f'{name}_expert_over_mcts{iters}']:,.0f}x faster)",
            ]
        if f"{name}_search_selfplay_games_per_s" in figures:
            lines.append(f"  {'':<22} search self-play    : "
                         f"{figures[f'{name}_search_selfplay_games_per_s']:>10,.2f} games/s "
                         f"({strong['search']} games a repeat; "
                         f"{figures[f'{name}_search_cost_over_expert']:,.1f}x the expert's cost)")
        lines += _most_players_lines(spec, figures)
    for spec in games.specs():
        if spec.bench is not None:
            lines += spec.bench.lines(figures)
        lines += interop_lines(spec.name, spec.vocabulary.title, figures)
    return "\n".join(lines + seat_question_lines(figures))
