"""The workbench says how a job went truthfully: a finished job's progress bar is full
whatever share of its budget it spent, a reopened draft keeps the skill it was played at, and a successful
Apply reads as a success (green), a refused one as an error (red). The server through Starlette's test
client (jobs recorded as finished, no command run); the page in Debian's chromium."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests import test_workbench_explore

SPACE = [{"pattern": "rules.order_chit_moves[1]", "min": 0, "max": 4}]
#: the fixture: a workbench whose jobs are recorded as finished, not run (its draft d.toml of Kamakura, 3p)
bench = test_workbench_explore.bench
CHROMIUM = shutil.which("chromium")


def open_draft(page, server, name: str) -> None:
    """The workbench's page at `server`, a draft of the shipped Kamakura base named `name` opened."""
    page.goto(server.url)
    page.select_option("#start", "shipped:kamakura/base.toml")
    page.fill("#draft", name)
    page.click("[data-action=open]")
    page.wait_for_selector("#editor fieldset")


def _run_body(**more) -> dict:
    return {"draft": "d.toml", "players": 3, "agents": "greedy", "seed": 0, "games": 100, **more}


def test_a_finished_explore_that_spent_part_of_its_budget_shows_a_full_bar(bench) -> None:
    """An explore that ended having spent 24,000 of its 30,000 games: its bar stood at 80% (the games of the
    budget); a finished job is done, so the bar is full, and the line still says what it spent."""
    client, ws = bench
    answer = client.post("/explore", json={**_run_body(), "tolerance": 2, "space": SPACE}).json()
    assert answer["ok"], answer
    view = client.get(f"/jobs/{answer['job']}").json()
    out = re.search(r"--out (runs/explore/[^\s<]+)", view["html"]).group(1)
    (ws / out).mkdir(parents=True, exist_ok=True)
    (ws / out / "summary.json").write_text(json.dumps({"elites": [], "games": 24_000, "budget": 30_000,
                                                       "tolerance": 0.02, "tried": [], "best": None}))
    view = client.get(f"/jobs/{answer['job']}").json()
    assert view["status"] == "finished"
    bar = re.search(r'<progress max="(\d+)" value="(\d+)"', view["html"])
    assert bar, view["html"]
    assert int(bar.group(2)) == int(bar.group(1)) > 0, bar.group(0)
    assert "24,000 games of 30,000" in view["html"]


def test_a_reopened_draft_says_the_skill_it_was_played_at(bench) -> None:
    """Opening a draft again (a reloaded page) answers with the skill of its newest job, which the page
    keeps instead of its default (expert); a draft never played has none."""
    client, _ = bench
    assert client.post("/drafts", json={"start": "shipped:kamakura/base.toml", "players": 3,
                                        "draft": "d.toml"}).json()["skill"] is None
    assert client.post("/run", json=_run_body()).json()["ok"]
    again = client.post("/drafts", json={"start": "shipped:kamakura/base.toml", "players": 3,
                                         "draft": "d.toml"}).json()
    assert again["ok"] and again["skill"] == "greedy"
    assert client.get("/editor?draft=d.toml&players=3").json()["skill"] == "greedy"


# ---- the page in a browser -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from tests.test_workbench import Server

    srv = Server(tmp_path_factory.mktemp("workspace"))
    yield srv
    srv.stop()


def _color(page, selector: str) -> tuple[int, ...]:
    text = page.eval_on_selector(selector, "e => getComputedStyle(e).color")
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_an_applied_change_reads_as_a_success_and_a_refusal_as_an_error(server, tmp_path) -> None:
    """The Apply answer of the server (routed here: a recommendation applied, then one refused) in the
    run message: green when it was applied (it was red, as an error), red when refused."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        open_draft(page, server, "applied.toml")
        answers = [{"ok": True, "draft": "applied.toml", "changed": 2},
                   {"ok": False, "field": "job", "message": "job: no recommendation to apply"}]
        page.route("**/apply*", lambda route: route.fulfill(status=200, content_type="application/json",
                                                             body=json.dumps(answers.pop(0))))
        page.evaluate("apply('tune-1')")
        page.wait_for_function("document.querySelector('#run-message').textContent.includes('set in')")
        assert page.inner_text("#run-message") == "2 value(s) of the recommendation set in applied.toml"
        green = _color(page, "#run-message")
        page.locator("#right").screenshot(path=str(tmp_path / "applied.png"))
        assert green[1] > green[0] and green[1] > green[2], green  # .ok: #26622b
        page.evaluate("apply('tune-1')")
        page.wait_for_function("document.querySelector('#run-message').textContent"
                               ".includes('no recommendation')")
        red = _color(page, "#run-message")
        assert red[0] > red[1] and red[0] > red[2], red  # .error: #a61b1b
        browser.close()


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_draft_reopened_in_a_new_page_keeps_its_skill(server) -> None:
    """A draft played at greedy, the page loaded again (its skill choice back at expert) and the draft
    opened: the choice says greedy again (it said expert)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        open_draft(page, server, "skilled.toml")
        page.select_option("#agents", "greedy")
        page.fill("#games", "50")
        page.click("#run-button")
        page.wait_for_selector(".job-head[data-active=no]", timeout=300_000)
        page.goto(server.url)
        assert page.input_value("#agents") == "expert"  # a new page starts at the default
        page.select_option("#start", "shipped:kamakura/base.toml")
        page.fill("#draft", "skilled.toml")
        page.click("[data-action=open]")
        page.wait_for_selector("#editor fieldset")
        assert page.input_value("#agents") == "greedy"
        browser.close()
