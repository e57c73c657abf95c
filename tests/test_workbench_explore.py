"""The workbench's "Show fair alternatives" (sim/workbench/exploring.py, docs/howto/explore.md): a real
`balance explore` started from the page's forms runs to its end, its card lists the confirmed elites (each
with its sentence, its changes from the draft and an Apply button) or says why there are none, an elite
applied sets its file's values in the draft, and every bad field is refused with a 4xx that names it (never
a 500), nothing started."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import tomllib
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sim import games
from sim.core.config import get_path, parse_key
from sim.workbench import jobs as jobs_module
from sim.workbench.exploring import EXPLORE_DEFAULTS, Plan, default_budget, explore_table
from sim.workbench.server import COOKIE, Settings, make_app
from sim.workbench.workspace import Refused, Workspace
from tests.test_workbench import Server, _draft

#: the tune form's rows: the order-chit moves of seats 1 and 2 and the blue chits' points
SPACE = [{"pattern": "rules.order_chit_moves[1]", "min": 0, "max": 4},
         {"pattern": "rules.order_chit_moves[2]", "min": 0, "max": 4},
         {"pattern": "chits.blue[*].points", "min": 1, "max": 8}]
#: a tiny explore: 40 games a design in batches of 4, 4 designs refined to 80 games, at most 2 candidates
#: confirmed on 400 fresh games (a 25 pp tolerance: 400 games decide that much), each elite checked at
#: expert on 200, about 2,600 games in all
TINY = {"games": 40, "batch": 4, "elites": 2, "refine": 4, "refine_games": 80, "confirm_games": 400,
        "witness_games": 200, "tries": 2}
TINY_BUDGET = 40 * (1 + 4 * 5) + 4 * (80 - 40) + 400 * (1 + 2) + 2 * 200
#: the plan the page offers first at greedy: searched and judged at greedy, each elite checked at expert
QUICK = Plan("quick", "greedy", "greedy", "expert")
TOKEN = "t" * 32
ROOT = Path(__file__).resolve().parents[1]


def _ask(draft: str, **more) -> dict:
    return {"draft": draft, "players": 3, "agents": "greedy", "seed": 0, "tolerance": 25, "space": SPACE,
            **more}


@pytest.fixture(scope="module")
def explored(tmp_path_factory) -> tuple[Server, str, str, dict]:
    """A workbench whose tiny explore of a 3-player draft has run to its end: (server, draft, job, view).
    Its commands run in the workspace, so a relative PYTHONPATH (`PYTHONPATH=.`) is made absolute: they
    run this checkout's code, not another installed one."""
    paths = [str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), *paths]))
        server = Server(tmp_path_factory.mktemp("workspace"))
    try:
        draft = _draft(server, "alternatives.toml")
        status, answer = server.call("/explore", _ask(draft, budget=TINY_BUDGET, explore=TINY))
        assert status == 200, answer
        view = server.wait(answer["job"], limit=300)
        yield server, draft, answer["job"], view
    finally:
        server.stop()


def test_an_explore_from_the_page_lists_its_elites_with_their_sentences(explored):
    server, draft, job, view = explored
    assert view["status"] == "finished", view["html"]
    out = re.search(r"--out (runs/explore/\S+)", view["html"]).group(1)
    summary = json.loads((server.workspace / out / "summary.json").read_text())
    tune_file = server.workspace / "tunes" / f"{Path(out).name}.toml"
    assert tomllib.loads(tune_file.read_text())["explore"] == explore_table(TINY, QUICK)  # the page's
    assert summary["elites"], summary["tried"]  # 25 pp on 400 fresh games: the fairest are confirmed
    assert view["games"] == summary["games"] and f"of {summary['budget']:,}" in view["html"]  # all spent
    for e in summary["elites"]:
        cell = "-".join(str(c) for c in e["cell"])
        assert f'data-elite="{cell}"' in view["html"] and f"Cell {cell}" in view["html"]
        said = e["sentence"].removeprefix(f"{e['slug']}: ").split(" [")[0]
        assert said.replace("->", "-&gt;") in view["html"]  # its sentence, as explore wrote it
    assert "seats fair within the 25 pp tolerance" in view["html"]
    for e in summary["elites"]:  # each says the level it was judged at, and its check at the level above
        assert f"fair at greedy</span> (within 25 pp, n = {e['n']:,}); searched with greedy" in view["html"]
        assert f"checked at expert on {e['witness']['n']:,} fresh games</span>" in view["html"]
        # the draft's rules kept: a colour's points rise with its icons, the chits' total within 5 of 100
        chits = games.load_config(server.workspace / out / f"{e['slug']}.toml", 3)[1]["chits"]
        blue = sorted((c["icons"], c["points"]) for c in chits["blue"])
        assert [p for _, p in blue] == sorted(p for _, p in blue), blue
        assert 95 <= sum(c["points"] for colour in chits.values() for c in colour) <= 105
    k = len(summary["elites"])
    assert f"{k} fair alternative{'' if k == 1 else 's'} <span" in view["html"] and "(s)" not in view["html"]
    assert re.search(r"<td>(rules\.order_chit_moves\[[12]\]|chits\.blue\[\d\]\.points)</td>", view["html"])
    report = re.search(r'href="(files/runs/explore/[^"]+/report/index.html)"', view["html"]).group(1)
    status, page = server.call(f"/{report}")
    assert status == 200 and "fair design" in page
    assert re.search(r"batch \d+: \d+ designs \(\d+ new\), [\d,]+ of [\d,]+ games",
                     (server.workspace / ".workbench/jobs" / f"{job}.log").read_text())


def test_applying_an_elite_sets_its_files_values_in_the_draft(explored):
    server, draft, job, view = explored
    out = re.search(r"--out (runs/explore/\S+)", view["html"]).group(1)
    elite = sorted((server.workspace / out).glob("elite-*.toml"))[-1]
    keys = {k: v for k, v in tomllib.loads(elite.read_text()).items() if k not in ("extends", "description")}
    before = games.load_config(server.workspace / draft, 3)[1]
    differ = [k for k, v in keys.items() if get_path(before, parse_key(k, "", "")) != v]
    assert differ  # the elite changes the draft
    status, applied = server.call("/apply", {"job": job, "elite": elite.stem.removeprefix("elite-"),
                                             "players": 3})
    assert status == 200 and applied["changed"] == len(differ), applied
    after = games.load_config(server.workspace / draft, 3)[1]
    assert {k: get_path(after, parse_key(k, "", "")) for k in keys} == keys
    assert after["chits"]["red"] == before["chits"]["red"]  # nothing else changed
    card = server.call(f"/jobs/{job}")[1]["html"]
    assert "The draft already holds this alternative" in card
    status, again = server.call("/apply", {"job": job, "elite": "99-99", "players": 3})
    assert status == 400 and again["field"] == "elite" and "no elite of this explore" in again["message"]


def test_an_explore_that_confirms_nothing_says_why_in_words(explored):
    """At 1 pp no candidate leaves room for 400 fresh games' interval: none is tried, and the card says so
    with the search's fairest design, as the summary has it."""
    server, _, _, _ = explored
    draft = _draft(server, "strict.toml")
    status, answer = server.call("/explore", _ask(draft, tolerance=1, budget=TINY_BUDGET, explore=TINY))
    assert status == 200, answer
    view = server.wait(answer["job"], limit=300)
    assert view["status"] == "finished", view["html"]
    out = re.search(r"--out (runs/explore/\S+)", view["html"]).group(1)
    summary = json.loads((server.workspace / out / "summary.json").read_text())
    assert not summary["elites"] and "No fair alternative" in view["html"]
    best = summary["best"]
    said = re.search(r'<p class="explore-none">(.*?)</p>', view["html"], re.S).group(1)
    assert said.startswith("No design was confirmed fair within the 1 pp tolerance: ")
    assert f"{100 * best['seat_dev']:.1f} pp off" in said and f"on {best['games']:,} games" in said
    assert summary["room"] <= 0 and "interval on 400 fresh games is wider than the 1 pp tolerance" in said
    assert 'data-action="apply-elite"' not in view["html"]
    status, refused = server.call("/apply", {"job": answer["job"], "elite": "0-0", "players": 3})
    assert status == 400 and refused["field"] == "elite" and "none was confirmed" in refused["message"]


def test_the_card_of_a_finished_explore_with_elites_as_a_designer_sees_it(explored):
    """A screenshot of the card in Debian's chromium (saved as fairalt-card.png when FAIRALT_SHOT names a
    folder), the Apply button clicked: the editor shows the elite's values."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    server, draft, job, _ = explored
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(server.url)
        page.select_option("#start", "shipped:kamakura/base.toml")
        page.fill("#draft", draft)
        page.click("[data-action=open]")
        page.wait_for_selector("#editor fieldset")
        page.click(f"[data-action=show][data-job='{job}']")
        page.wait_for_selector(".explore-elites")
        shots = os.environ.get("FAIRALT_SHOT")
        if shots:
            page.locator("#live").screenshot(path=str(Path(shots, "fairalt-card.png")))
        assert "fair alternative" in page.inner_text(".explore-elites h3")
        browser.close()


# ---- refusals, no game ------------------------------------------------------------------------------------
def _recorded(self, job) -> None:
    """Jobs._launch without the command: the job is recorded, as finished."""
    job.status, job.finished, job.returncode = jobs_module.FINISHED, time.time(), 0
    self.jobs[job.id] = job
    self._save(job)


@pytest.fixture
def bench(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs_module.Jobs, "_launch", _recorded)
    with TestClient(make_app(Settings(Workspace(tmp_path / "ws"), TOKEN, skill_seconds=0.01)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        status = client.post("/drafts", json={"start": "shipped:kamakura/base.toml", "players": 3,
                                              "draft": "d.toml"}).status_code
        assert status == 200
        yield client, tmp_path / "ws"


def test_the_default_explore_keeps_its_reserve_and_is_accepted(bench):
    client, ws = bench
    answer = client.post("/explore", json=_ask("d.toml", tolerance=2)).json()
    assert answer["ok"], answer
    written = tomllib.loads(next((ws / "tunes").glob("explore-*.toml")).read_text())
    table = {**EXPLORE_DEFAULTS, "judge": "greedy", "witness": "expert"}
    assert written["explore"] == table and written["budget"] == default_budget(table)
    assert written["target"]["tolerance"] == 0.02 and written["base"] == "../d.toml"


@pytest.mark.parametrize("more, field, words", [
    ({"budget": -5}, "budget", "budget: must be at least 1"),
    ({"budget": 1000}, "budget", "give at least"),
    ({"explore": {"games": -3}}, "explore", "explore.games: must be an integer"),
    ({"explore": {"confirm_games": 10}}, "explore", "explore.confirm_games: 10 games give no verdict"),
    ({"explore": {"tries": -1}}, "explore", "explore.tries: must be an integer"),
    ({"explore": "lots"}, "explore", "explore: input should be a valid dictionary"),
    ({"tolerance": 70}, "tolerance", "tolerance: percentage points of win rate"),
    ({"space": []}, "tune", "name at least one value to vary"),
    ({"space": [{"pattern": "chits.purple[*].points", "min": 1, "max": 8}]}, "tune",
     "tune row 1 (chits.purple[*].points): chits.purple is not in the base config"),
    ({"agents": "nobody"}, "agents", "nobody"),
])
def test_a_bad_explore_field_is_refused_at_the_field_and_starts_nothing(bench, more, field, words):
    client, ws = bench
    response = client.post("/explore", json=_ask("d.toml", **more))
    answer = response.json()
    assert response.status_code == 400 and answer["field"] == field and words in answer["message"], answer
    assert not list((ws / ".workbench/jobs").glob("explore-*")) and not list(ws.glob("tunes/*"))


def test_applying_an_elite_is_refused_for_another_job_or_an_unknown_elite(bench):
    client, ws = bench
    tune = client.post("/tune", json=_ask("d.toml", budget=40000, tolerance=2)).json()["job"]
    explore = client.post("/explore", json=_ask("d.toml")).json()["job"]
    before = (ws / "d.toml").read_text()
    for body, field, words in [({"job": tune, "elite": "7-2"}, "job", "is a tune, not an explore"),
                               ({"job": explore}, "elite", "name the elite"),
                               ({"job": explore, "elite": "7-2"}, "elite", "no elite of this explore"),
                               ({"job": explore, "elite": "../../x"}, "elite", "no elite of this explore"),
                               ({"job": explore, "elite": 3}, "elite", "input should be a valid string"),
                               ({"job": "nope", "elite": "7-2"}, None, "no such job")]:
        response = client.post("/apply", json={**body, "players": 3})
        answer = response.json()
        assert response.status_code == 400 and answer["field"] == field and words in answer["message"], answer
    assert (ws / "d.toml").read_text() == before


@pytest.mark.parametrize("route, outs", [("/tune", "runs/tunes"), ("/explore", "runs/explore")])
def test_a_study_never_writes_over_a_file_already_there(bench, route, outs):
    """A designer's file (or an output folder) at the name the next study would take is left as it is: the
    study takes the next free name."""
    client, ws = bench
    body = _ask("d.toml", budget=40000 if route == "/tune" else None, tolerance=2)
    first = client.post(route, json=body).json()
    assert first["ok"], first
    taken = sorted((ws / "tunes").glob("*.toml"))
    stem = re.sub(r"-\d+$", "", taken[-1].stem)
    mine = ws / "tunes" / f"{stem}-2.toml"
    mine.write_text("# the designer's own notes\n")
    (ws / outs / f"{stem}-3").mkdir(parents=True)
    second = client.post(route, json=body).json()
    assert second["ok"], second
    assert mine.read_text() == "# the designer's own notes\n"
    assert (ws / "tunes" / f"{stem}-4.toml").is_file()


@pytest.mark.parametrize("route", ["/tune", "/explore"])
def test_a_study_whose_job_is_refused_leaves_no_file(bench, monkeypatch, route):
    client, ws = bench

    def busy(*_args, **_kwargs):
        raise Refused("runs: another job writes there", "job")

    monkeypatch.setattr(jobs_module.Jobs, "start", busy)
    body = _ask("d.toml", budget=40000 if route == "/tune" else None, tolerance=2)
    response = client.post(route, json=body)
    assert response.status_code == 400 and "another job" in response.json()["message"]
    assert not list(ws.glob("tunes/*.toml"))
