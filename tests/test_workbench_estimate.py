"""The workbench says what "Show fair alternatives" will cost before it starts: its games and
their time at the chosen level on the draft (each level's pace measured on the draft, as the skill choice
shows it), and a cheaper level when that is more than a few minutes; a bad field is a 400 at the field,
never a 500, and nothing is started or left written."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from sim.workbench import jobs as jobs_module
from sim.workbench.estimates import LONG_SECONDS, estimate, levels_of
from sim.workbench.exploring import EXPLORE_DEFAULTS, default_budget
from sim.workbench.server import COOKIE, Settings, make_app
from sim.workbench.workspace import Workspace
from tests.test_workbench_explore import _ask, _recorded

TOKEN = "t" * 32
COSTS = {"greedy": {"games_per_s": 2000.0}, "expert": {"games_per_s": 20.0}, "search": {"games_per_s": 1.0}}


@pytest.fixture
def bench(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs_module.Jobs, "_launch", _recorded)
    with TestClient(make_app(Settings(Workspace(tmp_path / "ws"), TOKEN, jobs=2, skill_seconds=0.01)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        assert client.post("/drafts", json={"start": "shipped:kamakura/base.toml", "players": 3,
                                             "draft": "d.toml"}).status_code == 200
        yield client, tmp_path / "ws"


def test_the_estimate_is_the_games_over_the_slowest_seats_pace_and_offers_greedy_when_long() -> None:
    slow = estimate(220_400, "expert", COSTS, workers=2)
    assert slow["seconds"] == pytest.approx(220_400 / 40) and slow["long"]
    assert slow["cheaper"]["agents"] == "greedy" and slow["cheaper"]["seconds"] == pytest.approx(55.1)
    assert "220,400 games at expert: about 1.5 h on 2 worker(s)" in slow["text"]
    assert "at greedy the same 220,400 games take about 55 s" in slow["text"]
    quick = estimate(2_000, "greedy", COSTS, workers=2)
    assert quick["seconds"] < LONG_SECONDS and not quick["long"] and quick["cheaper"] is None
    mixed = estimate(1_000, "expert,greedy,greedy", COSTS, workers=1)
    assert mixed["seconds"] == pytest.approx(50)  # a game goes at its slowest player
    assert levels_of("mcts:iters=50,c=0.2,greedy") == ["mcts", "greedy"]
    unknown = estimate(1_000, "random", COSTS, workers=1)
    assert unknown["seconds"] is None and "not measured" in unknown["text"]


def test_the_default_fair_alternatives_at_expert_say_their_hours_and_offer_greedy(bench) -> None:
    client, ws = bench
    response = client.post("/explore/estimate", json=_ask("d.toml", agents="expert", tolerance=2))
    answer = response.json()
    assert response.status_code == 200 and answer["ok"], answer
    assert answer["games"] == default_budget(EXPLORE_DEFAULTS) and answer["agents"] == "expert"
    assert answer["seconds"] > LONG_SECONDS and answer["long"], answer  # 220,400 expert games: hours
    assert answer["cheaper"]["agents"] == "greedy" and answer["cheaper"]["seconds"] < answer["seconds"]
    assert answer["text"].startswith(f"{answer['games']:,} games at expert: about ")
    # nothing started, nothing written
    assert not list((ws / ".workbench/jobs").glob("explore-*")) and not list(ws.glob("tunes/*"))
    started = client.post("/explore", json=_ask("d.toml", agents="expert", tolerance=2)).json()
    assert started["ok"] and started["estimate"]["games"] == answer["games"], started


@pytest.mark.parametrize("more, field, words", [
    ({"budget": -5}, "budget", "budget: must be at least 1"),
    ({"agents": "nobody"}, "agents", "nobody"),
    ({"tolerance": 70}, "tolerance", "tolerance: percentage points of win rate"),
    ({"explore": {"confirm_games": 10}}, "explore", "explore.confirm_games: 10 games give no verdict"),
    ({"players": 9}, "players", "players"),
])
def test_a_bad_field_of_the_estimate_is_a_400_at_the_field(bench, more, field, words) -> None:
    client, ws = bench
    response = client.post("/explore/estimate", json=_ask("d.toml", **more))
    answer = response.json()
    assert response.status_code == 400 and answer["field"] == field and words in answer["message"], answer
    assert not list((ws / ".workbench/jobs").glob("explore-*")) and not list(ws.glob("tunes/*"))


def test_the_page_says_the_estimate_and_offers_the_faster_level_before_starting(tmp_path) -> None:
    """In Debian's chromium: "Show fair alternatives" at expert says its time first and starts nothing; the
    faster level is offered as a button beside starting at expert anyway."""
    import os
    import shutil
    from pathlib import Path

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    from tests.test_workbench import Server
    from tests.test_workbench_stated import open_draft

    server = Server(tmp_path / "ws")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            open_draft(page, server, "estimate.toml")
            page.select_option("#agents", "expert")
            page.click("#fix summary")  # the "Fix it" panel opens
            page.fill(".tune-space tbody tr:first-child .tune-pattern", "rules.order_chit_moves[1]")
            page.fill(".tune-space tbody tr:first-child .tune-min", "0")
            page.fill(".tune-space tbody tr:first-child .tune-max", "4")
            page.click("[data-action=explore]")
            page.wait_for_selector("#explore-estimate button", timeout=120_000)
            said = page.inner_text("#explore-estimate")
            shots = os.environ.get("ESTIMATE_SHOT")
            if shots:
                page.locator("#fix").screenshot(path=str(Path(shots, "explore-estimate.png")))
            buttons = page.locator("#explore-estimate button").all_inner_texts()
            browser.close()
        assert said.startswith("This will take long: ") and "games at expert: about" in said, said
        assert buttons[0].startswith("Start at greedy (about ") and buttons[-1].startswith("Start at expert")
        status, jobs = server.call("/jobs")
        assert status == 200 and "explore-" not in str(jobs), jobs  # nothing started
    finally:
        server.stop()
