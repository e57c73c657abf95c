"""The workbench's skill choice says what each level costs: the levels the games offer,
the rung above expert among them, each with its self-play games per second measured on the draft."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from sim import games
from sim.app.skill_cost import SKILLS, selfplay_rate, skill_levels, skill_rates
from sim.workbench.server import COOKIE, Settings, make_app
from sim.workbench.workspace import Workspace

TOKEN = "t" * 32
BASE = "shipped:kamakura/base.toml"


@pytest.fixture
def client(tmp_path):
    with TestClient(make_app(Settings(Workspace(tmp_path / "ws"), TOKEN, skill_seconds=0.05)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        yield client


def _post(client: TestClient, route: str, body: dict) -> tuple[int, dict]:
    response = client.post(route, content=json.dumps(body).encode(),
                           headers={"content-type": "application/json"})
    return response.status_code, response.json()


def test_every_level_a_game_offers_is_measured_on_its_config() -> None:
    spec = games.spec("kamakura")
    rules = spec.default_rules(3)
    rates = skill_rates(spec, rules, 3, seconds=0.05)
    assert list(rates) == skill_levels(spec) and set(rates) <= set(SKILLS)
    for level, cost in rates.items():
        assert cost["games_per_s"] > 0 and cost["label"].startswith(SKILLS[level]), cost
    assert rates["greedy"]["games_per_s"] > rates["expert"]["games_per_s"]  # stronger play costs more
    if "search" in rates:
        assert rates["search"]["games_per_s"] < rates["expert"]["games_per_s"]


def test_a_rate_is_at_least_one_game_and_at_most_the_cap() -> None:
    spec = games.spec("sakura")
    rate = selfplay_rate(spec, spec.default_rules(4), "greedy", 4, seconds=0.0)  # no time: still one game
    assert rate > 0


def test_the_page_offers_the_levels_and_asks_what_they_cost(client) -> None:
    page = client.get("/").text
    offered = {name for spec in games.specs() for name in spec.agents}
    for name, words in SKILLS.items():
        assert (f'value="{name}"' in page) == (name in offered)
        if name in offered:
            assert words in page


def test_the_skills_route_measures_the_draft_once_per_config_and_players(client, monkeypatch) -> None:
    measured = []

    def counted(*args, **kwargs):
        measured.append(args[2])  # the players
        return skill_rates(*args, **kwargs)

    monkeypatch.setattr("sim.workbench.server.skill_rates", counted)  # patched where the route calls it
    status, opened = _post(client, "/drafts", {"start": BASE, "draft": "d.toml", "players": 3})
    assert status == 200 and opened["ok"], opened
    status, first = _post(client, "/skills", {"draft": "d.toml", "players": 3})
    assert status == 200 and set(first["skills"]) == set(skill_levels(games.spec("kamakura")))
    assert all(c["games_per_s"] > 0 and "on this config" in c["label"] for c in first["skills"].values())
    _, again = _post(client, "/skills", {"draft": "d.toml", "players": 3})
    assert again["skills"] == first["skills"] and measured == [3]  # once per config and players
    _post(client, "/skills", {"draft": "d.toml", "players": 4})
    assert measured == [3, 4]
    _, edited = _post(client, "/edit", {"draft": "d.toml", "players": 3, "key": "chits.blue[0].points",
                                       "value": "5"})
    assert edited["ok"], edited
    _post(client, "/skills", {"draft": "d.toml", "players": 3})
    assert measured == [3, 4, 3]  # another config: measured anew


@pytest.mark.parametrize("body, field", [
    ({"draft": "d.toml", "players": 0}, "players"),
    ({"draft": "nope.toml", "players": 3}, "draft"),
    ({"players": 3}, "draft"),
    ({"draft": "d.toml", "players": "three"}, "players"),
])
def test_a_bad_skills_request_is_refused_at_its_field(client, body: dict, field: str) -> None:
    _post(client, "/drafts", {"start": BASE, "draft": "d.toml", "players": 3})
    status, answer = _post(client, "/skills", body)
    assert 400 <= status < 500 and answer["field"] == field, answer
