"""The workbench says what "Show fair alternatives" will cost before it starts: each plan it offers (the level
the search plays at, the level an alternative is judged fair at, the level it is checked at), its games at
each level and their time on this machine (each level's pace measured on the draft, as the skill choice
shows it), the plan that finishes in minutes first; a bad field is a 400 at the field, never a 500, and
nothing is started or left written."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from sim.workbench import jobs as jobs_module
from sim.workbench import server as server_module
from sim.workbench.estimates import levels_of, pace, staged_estimate
from sim.workbench.exploring import (
    MINUTES,
    SEARCH_GAMES,
    Plan,
    default_budget,
    explore_table,
    offered,
    plans,
    stages,
)
from sim.workbench.server import COOKIE, Settings, make_app
from sim.workbench.workspace import Workspace
from tests.test_workbench_explore import _ask, _recorded

TOKEN = "t" * 32
#: self-play games a second on one worker, as a slow machine might measure them
RATES = {"greedy": 2000.0, "expert": 100.0, "search": 10.0, "mcts": 0.5}
COSTS = {level: {"games_per_s": rate} for level, rate in RATES.items()}
LEVELS = ["greedy", "mcts", "expert", "search"]


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """A workbench whose jobs are recorded, not run, and whose levels play at RATES on this machine."""
    monkeypatch.setattr(jobs_module.Jobs, "_launch", _recorded)
    monkeypatch.setattr(server_module, "selfplay_rate", lambda _spec, _rules, level, *_, **__: RATES[level])
    with TestClient(make_app(Settings(Workspace(tmp_path / "ws"), TOKEN, jobs=2, skill_seconds=0.01)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        assert client.post("/drafts", json={"start": "shipped:kamakura/base.toml", "players": 3,
                                             "draft": "d.toml"}).status_code == 200
        yield client, tmp_path / "ws"


def test_a_staged_estimate_adds_each_levels_games_over_its_pace_in_the_designers_words() -> None:
    one = staged_estimate([("expert", 220_400)], COSTS, workers=2)
    assert one["seconds"] == pytest.approx(220_400 / 200) and one["games"] == 220_400
    assert one["text"] == "about 18 min on this machine: 220,400 games of expert play"
    three = staged_estimate([("greedy", 120_000), ("expert", 100_400), ("search", 3_000)], COSTS, workers=2)
    assert three["seconds"] == pytest.approx(120_000 / 4000 + 100_400 / 200 + 3_000 / 20)
    assert three["text"] == ("about 11 min on this machine: 120,000 games of greedy play, 100,400 of expert "
                             "play and 3,000 of search play")
    assert pace("expert,greedy,greedy", COSTS) == 100.0  # a game goes at its slowest player
    assert levels_of("mcts:iters=50,c=0.2,greedy") == ["mcts", "greedy"]
    unknown = staged_estimate([("random", 1_000)], COSTS, workers=1)
    assert unknown["seconds"] is None and "not known" in unknown["text"]


def test_the_plans_search_at_the_fastest_level_and_judge_at_the_chosen_one() -> None:
    quick, smaller, thorough, lighter = plans("expert", LEVELS)
    assert (quick.search, quick.judge, quick.witness) == ("greedy", "expert", "search")
    assert (smaller.search, smaller.judge, smaller.witness, smaller.smaller) == ("greedy", "expert", "search",
                                                                                True)
    assert smaller.words == ("searched with greedy, judged fair at expert, one alternative at most, it "
                             "checked at search")
    assert explore_table({}, smaller)["elites"] == 1 and explore_table({"elites": 2}, smaller)["elites"] == 2
    assert (thorough.search, thorough.judge, thorough.witness) == ("expert", "expert", "search")
    assert (lighter.search, lighter.judge, lighter.witness) == ("greedy", "greedy", "expert")
    assert lighter.words == "searched and judged fair at greedy, each alternative checked at expert"
    assert quick.words == "searched with greedy, judged fair at expert, each alternative checked at search"
    alone = plans("greedy", LEVELS)
    assert [(p.search, p.judge, p.witness) for p in alone] == [("greedy", "greedy", "expert")]
    slow = {p.name: p for p in plans("search", LEVELS)}
    assert (slow["lighter"].judge, slow["lighter"].witness) == ("expert", "search")
    assert (slow["quick"].judge, slow["quick"].witness) == ("search", "")
    off = {p.name: p for p in plans("mcts", LEVELS)}  # off the ladder: judged at the level people play
    assert (off["lighter"].judge, off["lighter"].witness, off["quick"].witness) == ("expert", "mcts", "")
    assert [p.name for p in plans("expert,greedy,greedy", LEVELS)] == ["quick", "smaller", "thorough"]


def test_the_plan_that_finishes_in_minutes_is_offered_first() -> None:
    def guessed(skill: str) -> list[str]:
        out = []
        for plan in plans(skill, LEVELS):
            table = explore_table({}, plan)
            out.append((plan, staged_estimate(stages(table, default_budget(table), plan), COSTS, 2)))
        return [p.name for p, _ in offered(out, skill)]
    # at expert: the quick plan about 12 min, then the lighter (2 min), smaller (6 min) and thorough (22 min)
    assert guessed("expert") == ["quick", "lighter", "smaller", "thorough"]
    assert guessed("search") == ["lighter", "smaller", "quick", "thorough"]
    fits = Plan("a", "greedy", "expert")
    assert [p.name for p, _ in offered([(Plan("b", "expert", "expert"), {"seconds": 60.0}),
                                        (fits, {"seconds": MINUTES - 1})], "expert")][0] == "b"
    assert [p.name for p, _ in offered([(Plan("lighter", "greedy", "greedy"), {"seconds": 60.0}),
                                        (fits, {"seconds": MINUTES - 1})], "expert")][0] == "a"


def test_the_stages_are_the_search_the_judging_and_the_check() -> None:
    plan = Plan("quick", "greedy", "expert", "search")
    table = explore_table({}, plan)
    budget = default_budget(table)
    assert stages(table, budget, plan) == [("greedy", SEARCH_GAMES), ("expert", 12 * 1700 + 20_000 * 4),
                                           ("search", 3 * 1000)]
    same = Plan("thorough", "expert", "expert")
    table = explore_table({}, same)
    assert stages(table, default_budget(table), same) == [("expert", SEARCH_GAMES + 12 * 1700 + 20_000 * 4)]


def test_the_estimate_lists_the_plans_the_one_in_minutes_first_and_starts_nothing(bench) -> None:
    client, ws = bench
    response = client.post("/explore/estimate", json=_ask("d.toml", agents="expert", tolerance=2))
    answer = response.json()
    assert response.status_code == 200 and answer["ok"], answer
    first, *rest = answer["plans"]
    assert (first["search"], first["judge"], first["witness"]) == ("greedy", "expert", "search")
    assert answer["plan"] == first["name"] and first["fits"] and first["seconds"] <= MINUTES
    assert answer["why_first"] == ""
    assert [p["name"] for p in rest] == ["lighter", "smaller", "thorough"]
    assert [p["seconds"] for p in rest] == sorted(p["seconds"] for p in rest)
    assert first["text"].startswith("about ") and " on this machine: 120,000 games of greedy play, " in \
        first["text"]
    assert first["budget"] == default_budget(explore_table({}, Plan("q", "greedy", "expert", "search")))
    # nothing started, nothing written
    assert not list((ws / ".workbench/jobs").glob("explore-*")) and not list(ws.glob("tunes/*"))
    started = client.post("/explore", json=_ask("d.toml", agents="expert", tolerance=2)).json()
    assert started["ok"] and started["plan"] == first["name"], started
    assert started["estimate"]["games"] == first["games"]


@pytest.mark.parametrize("more, field, words", [
    ({"budget": -5}, "budget", "budget: must be at least 1"),
    ({"agents": "nobody"}, "agents", "nobody"),
    ({"tolerance": 70}, "tolerance", "tolerance: percentage points of win rate"),
    ({"explore": {"confirm_games": 10}}, "explore", "explore.confirm_games: 10 games give no verdict"),
    ({"players": 9}, "players", "players"),
    ({"plan": "fastest"}, "plan", "plan: 'fastest' is no plan offered at greedy (offered: quick)"),
    ({"plan": "smaller"}, "plan", "plan: 'smaller' is no plan offered at greedy"),
    ({"keep": ["shiny"]}, "keep", "keep: 'shiny' is no rule of Kamakura's design"),
])
def test_a_bad_field_of_the_estimate_is_a_400_at_the_field(bench, more, field, words) -> None:
    client, ws = bench
    response = client.post("/explore/estimate", json=_ask("d.toml", **more))
    answer = response.json()
    assert response.status_code == 400 and answer["field"] == field and words in answer["message"], answer
    assert not list((ws / ".workbench/jobs").glob("explore-*")) and not list(ws.glob("tunes/*"))


def test_when_the_chosen_level_takes_long_a_plan_judged_below_it_that_fits_comes_first(bench,
                                                                                       monkeypatch) -> None:
    """A busy machine: expert at 20 games/s a worker. Judged at expert, the quick plan takes about 45 min,
    the smaller one 24; judged at greedy and checked at expert, minutes: that one is offered first, the
    others after it. At 40 games/s the smaller plan judged at expert fits, and comes first."""
    client, _ = bench
    monkeypatch.setitem(RATES, "expert", 20.0)
    answer = client.post("/explore/estimate", json=_ask("d.toml", agents="expert", tolerance=2)).json()
    first, *rest = answer["plans"]
    assert (first["name"], first["judge"], first["witness"], first["fits"]) == ("lighter", "greedy", "expert",
                                                                               True)
    assert [p["name"] for p in rest] == ["smaller", "quick", "thorough"] and not any(p["fits"] for p in rest)
    assert answer["why_first"] == ("Judged at expert, every plan takes more than 15 min on this machine now; "
                                   "the first judges at greedy and checks each alternative at expert.")
    monkeypatch.setitem(RATES, "expert", 40.0)  # less busy: the smaller plan judged at expert fits
    client.app.app.state.workbench.level_paces.clear()  # measured again
    answer = client.post("/explore/estimate", json=_ask("d.toml", agents="expert", tolerance=2)).json()
    assert [p["name"] for p in answer["plans"]] == ["smaller", "lighter", "quick", "thorough"], answer
    assert answer["plans"][0]["fits"] and not answer["plans"][2]["fits"]
    assert answer["why_first"] == ("Wanting more alternatives, the search takes more than 15 min on this "
                                   "machine now; the first wants one.")
