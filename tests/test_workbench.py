"""`balance workbench` (docs/howto/workbench.md): drafts validated as the command line validates them,
requests held to the workspace and the token, runs that fail or find their directory locked, a restart that
resumes, and the designer's loop end to end in Debian's chromium (driven by Playwright through its
executable_path)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from sim import games
from sim.core.errors import ConfigError
from sim.workbench import drafts
from sim.workbench.workspace import Refused, Workspace, checked_name
from storage.run_lock import RunLock

ROOT = Path(__file__).resolve().parents[1]


# ---- drafts and names, no server -------------------------------------------------------------------------
def test_a_draft_of_a_variant_is_one_file_with_the_base_comments_and_the_variant_values(tmp_path):
    ws = Workspace(tmp_path)
    draft = drafts.create(ws.start("shipped:kamakura/tie-shared.toml"), ws.draft("mine.toml"))
    text = draft.path.read_text()
    assert "extends" not in draft.config
    assert draft.config["rules"]["tie_break"] == "shared"
    assert "# R-9: who wins a tie" in text and "# R-3: the chit set" in text  # base.toml's comments kept
    _, merged, rules = games.load_config(draft.path, 3)
    expected = games.load_config(ROOT / "configs/kamakura/tie-shared.toml", 3)[2]
    assert rules.config_hash == expected.config_hash  # the same config as the file it started from


def test_bulk_edit_lowers_every_blue_chit_by_one_point(tmp_path):
    ws = Workspace(tmp_path)
    draft = drafts.create(ws.start("shipped:kamakura/base.toml"), ws.draft("d.toml"))
    before = [c["points"] for c in draft.config["chits"]["blue"]]
    draft.edit(drafts.bulk_edit(draft, "chits.blue[*].points", "add", "-1"), players=3)
    again = drafts.Draft.read(draft.path, draft.spec)  # written to the file
    assert [c["points"] for c in again.config["chits"]["blue"]] == [p - 1 for p in before]
    assert [c["points"] for c in again.config["chits"]["red"]] == [c["points"] for c in
                                                                   draft.config["chits"]["red"]]


@pytest.mark.parametrize("key, value", [("chits.blue[0].points", "-3"), ("rules.tie_break", "nobody"),
                                        ("rules.order_chit_moves", "[0, 2]"), ("rules.voluntary_pass", "3")])
def test_a_refused_edit_says_what_the_command_line_says_and_changes_nothing(tmp_path, monkeypatch, key,
                                                                          value):
    ws = Workspace(tmp_path)
    draft = drafts.create(ws.start("shipped:kamakura/base.toml"), ws.draft("d.toml"))
    before = draft.path.read_text()
    with pytest.raises(Refused) as refused:
        draft.edit(drafts.field_edit(draft, key, value), players=3)
    assert refused.value.field == key
    assert draft.path.read_text() == before
    # the same value written by hand into the file, then read as `balance simulate` reads it
    bad = tmp_path / "hand"
    bad.mkdir()
    (bad / "d.toml").write_text(before.replace(_line(before, key), _line(before, key, value), 1))
    monkeypatch.chdir(bad)
    with pytest.raises(ConfigError) as cli:
        games.load_config("d.toml", 3)
    assert str(refused.value) == str(cli.value)


def _line(text: str, key: str, value: str | None = None) -> str:
    """The line of `text` that sets `key` (a rules key or a chit's points), or that line with `value`."""
    if key.startswith("chits"):
        line = next(x for x in text.splitlines() if x.strip().startswith("{icons = 1, points = 2"))
        return line if value is None else line.replace("points = 2", f"points = {value}")
    name = key.split(".")[-1]
    line = next(x for x in text.splitlines() if x.startswith(f"{name} = "))
    shown = f'"{value}"' if name == "tie_break" else value
    return line if value is None else f"{name} = {shown}"


def test_a_sakura_draft_edits_its_deck_with_choices_and_the_command_lines_refusals(tmp_path):
    from sim.workbench.form import groups

    ws = Workspace(tmp_path)
    draft = drafts.create(ws.start("shipped:sakura/base.toml"), ws.draft("deck.toml"))
    cards = next(g for g in groups(draft.config, draft.spec) if g.title == "cards")
    assert cards.columns == ["order", "garden", "painter"] and len(cards.rows) == 60
    assert "furthest+2" in cards.rows[0][1].choices and "leapfrog" in cards.rows[0][2].choices
    draft.edit(drafts.field_edit(draft, "cards[2].garden", "E-1"), players=4)
    assert drafts.Draft.read(draft.path, draft.spec).config["cards"][2]["garden"] == "E-1"
    with pytest.raises(Refused, match=r"deck.toml: board.sakura\[1\]: .*increasing"):
        draft.edit(drafts.field_edit(draft, "board.sakura", "[20, 12, 28]"), players=4)


@pytest.mark.parametrize("name", ["../x.toml", "/etc/passwd", ".hidden.toml", "a/b.toml", "x..toml", ""])
def test_a_name_with_a_path_in_it_is_refused(name):
    with pytest.raises(Refused, match="paths are refused"):
        checked_name(name, "config", ".toml")


# ---- the server -------------------------------------------------------------------------------------------
class Server:
    """`balance workbench` in a child process on a free port."""

    def __init__(self, workspace: Path, *more: str) -> None:
        self.workspace = workspace
        args = ["workbench", "--workspace", str(workspace), "--port", "0", "--jobs", "2", *more]
        self.proc = subprocess.Popen([sys.executable, "-m", "sim", *args], stdout=subprocess.PIPE, text=True)
        for line in self.proc.stdout:
            found = re.search(r"(http://\S+)/\?token=(\S+)", line)
            if found:
                self.base, self.token = found.groups()
                break

    @property
    def url(self) -> str:
        return f"{self.base}/?token={self.token}"

    def call(self, path: str, body: dict | None = None, token: str | None = "") -> tuple[int, dict | str]:
        token = self.token if token == "" else token
        sep = "&" if "?" in path else "?"
        url = f"{self.base}{path}" + (f"{sep}token={token}" if token else "")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as err:
            status, text = err.code, err.read().decode()
        try:
            return status, json.loads(text)
        except json.JSONDecodeError:
            return status, text

    def wait(self, job: str, until=lambda view: not view["active"], limit: float = 600) -> dict:
        end = time.time() + limit
        while time.time() < end:
            status, view = self.call(f"/jobs/{job}")
            assert status == 200, view
            if until(view):
                return view
            time.sleep(0.5)
        raise AssertionError(f"job {job} did not get there in {limit} s: {view['status']}")

    def stop(self) -> str:
        """Ctrl-C: the server stops its runs and itself, cleanly."""
        self.proc.send_signal(signal.SIGINT)
        out = self.proc.communicate(timeout=60)[0]
        assert self.proc.returncode == 0 and "workbench stopped" in out
        return out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("workspace"))
    yield srv
    srv.stop()


def _draft(server: Server, name: str = "base-draft.toml") -> str:
    start = {"start": "shipped:kamakura/base.toml", "players": 3, "draft": name}
    status, body = server.call("/drafts", start)
    assert status == 200 and body["ok"], body
    return body["draft"]


def test_a_request_without_the_token_is_refused(server):
    assert server.call("/", token=None)[0] == 403
    assert server.call("/jobs", token="not-the-token")[0] == 403
    assert server.call("/jobs", token=server.token)[0] == 200


def test_a_request_naming_a_path_outside_the_workspace_is_refused(server, tmp_path):
    outside = tmp_path / "secret.toml"
    outside.write_text('game = "kamakura"\n')
    for body in ({"start": f"workspace:{outside}", "players": 3},
                 {"start": "shipped:kamakura/../../../etc/passwd", "players": 3},
                 {"start": "shipped:kamakura/base.toml", "players": 3, "draft": "../escaped.toml"}):
        status, answer = server.call("/drafts", body)
        assert status == 400 and "refused" in answer["message"], answer
    assert not (server.workspace.parent / "escaped.toml").exists()
    status, answer = server.call("/edit", {"draft": str(outside), "players": 3, "key": "game", "value": "x"})
    assert status == 400 and "paths are refused" in answer["message"]
    assert server.call("/download/..%2Fsecret.toml")[0] in (400, 404)
    assert outside.read_text() == 'game = "kamakura"\n'


def test_a_run_on_a_locked_run_directory_is_refused_naming_the_holder(server):
    draft = _draft(server, "locked.toml")
    body = {"draft": draft, "players": 3, "agents": "greedy", "seed": 5, "games": 300}
    hash8 = games.load_config(server.workspace / draft, 3)[2].config_hash[:8]
    folder = server.workspace / "runs" / f"locked-{hash8}-3p-greedy-seed5"
    with RunLock(folder):  # another tab's run, or a terminal's
        status, answer = server.call("/run", body)
    assert status == 400, answer
    assert "another balance process is writing this run" in answer["message"]
    assert f"pid {os.getpid()}" in answer["message"]


def test_the_server_keeps_serving_after_a_failing_run(server):
    draft = _draft(server, "failing.toml")
    hash8 = games.load_config(server.workspace / draft, 3)[2].config_hash[:8]
    (server.workspace / "runs").mkdir(exist_ok=True)
    (server.workspace / "runs" / f"failing-{hash8}-3p-greedy-seed0").write_text("a file where a run goes")
    status, answer = server.call("/run", {"draft": draft, "players": 3, "agents": "greedy", "seed": 0,
                                          "games": 300})
    assert status == 200, answer
    view = server.wait(answer["job"])
    assert view["status"] == "failed"
    assert "is a file, not a run directory" in view["html"]
    assert server.call("/jobs")[0] == 200
    status, answer = server.call("/run", {"draft": draft, "players": 3, "agents": "greedy", "seed": 1,
                                          "games": 300})
    assert status == 200 and server.wait(answer["job"])["status"] == "finished"


def test_a_run_until_decided_stops_by_itself_when_every_verdict_is_decided(server):
    draft = _draft(server, "until.toml")
    status, answer = server.call("/run", {"draft": draft, "players": 3, "agents": "greedy", "seed": 3,
                                          "games": 50000, "until_decided": True})
    assert status == 200, answer
    view = server.wait(answer["job"])
    assert view["status"] == "finished" and view["games"] < 50000
    assert "--until-decided" in view["html"] and "undecided" not in view["html"]
    log = (server.workspace / ".workbench/jobs" / f"{answer['job']}.log").read_text()
    assert "until decided: every verdict decided" in log


def test_a_stopped_run_keeps_its_games_and_resumes(server):
    draft = _draft(server, "stopped.toml")
    status, answer = server.call("/run", {"draft": draft, "players": 3, "agents": "greedy", "seed": 4,
                                          "games": 12000})
    view = server.wait(answer["job"], until=lambda view: view["games"] > 0)
    status, stopped = server.call(f"/jobs/{answer['job']}/stop", {})
    assert status == 200
    view = server.wait(answer["job"])
    assert view["status"] == "stopped" and 0 < view["games"] < 12000
    status, again = server.call(f"/jobs/{answer['job']}/resume", {})
    done = server.wait(again["job"])
    assert done["games"] == 12000, done["html"]


def test_a_run_of_the_same_config_and_seed_finds_its_games_and_takes_away_its_tables(server):
    draft = _draft(server, "again.toml")
    ask = {"draft": draft, "players": 3, "agents": "greedy", "seed": 6, "games": 500}
    first = server.wait(server.call("/run", ask)[1]["job"])
    assert first["status"] == "finished" and first["games"] == 500
    job = server.call("/run", ask)[1]["job"]
    server.wait(job)
    log = (server.workspace / ".workbench/jobs" / f"{job}.log").read_text()
    assert "0 games played (500 were already there)" in log
    with urllib.request.urlopen(f"{server.base}/tables/{job}.zip?token={server.token}") as response:
        names = zipfile.ZipFile(io.BytesIO(response.read())).namelist()
    assert "summary.json" in names and "tables/kamakura_seats.csv" in names
    assert (server.workspace / "reports" / job / "index.html").is_file()  # the report the tables come from


def test_a_budget_in_minutes_needs_a_run_to_know_the_pace(server):
    draft = _draft(server, "minutes.toml")
    status, answer = server.call("/tune", {"draft": draft, "players": 3, "agents": "greedy", "seed": 0,
                                           "budget": 2, "budget_unit": "minutes", "tolerance": 2,
                                           "space": [{"pattern": "chits.blue[*].points", "min": 1,
                                                      "max": 8}]})
    assert status == 400 and answer["field"] == "budget" and "run it first" in answer["message"]


def test_the_page_loads_nothing_from_elsewhere(server):
    from sim.workbench import views

    root = Path(views.__file__).parent
    for path in [*root.glob("templates/*.html"), *root.glob("static/*")]:
        assert not re.search(r"(src|href)=[\"']?(https?:)?//", path.read_text()), path


def test_an_invalid_agent_or_draft_runs_nothing(server):
    draft = _draft(server, "agents.toml")
    status, answer = server.call("/run", {"draft": draft, "players": 3, "agents": "grredy", "seed": 0,
                                          "games": 300})
    assert status == 400 and answer["field"] == "agents"
    status, answer = server.call("/run", {"draft": draft, "players": 9, "agents": "greedy", "seed": 0,
                                          "games": 300})
    assert status == 400 and "players" in answer["message"]
    assert not list((server.workspace / "runs").glob("agents-*"))


def test_values_on_request_rank_the_components_against_their_face(server):
    draft = _draft(server, "values.toml")
    status, answer = server.call("/values", {"draft": draft, "players": 3, "agents": "greedy", "seed": 0,
                                             "base_games": 150})
    assert status == 200, answer
    view = server.wait(answer["job"])
    assert view["status"] == "finished", view["html"]
    assert "worth-chart" in view["html"] and "Components:" in view["html"]
    assert re.search(r"(over|under)-valued|priced right", view["html"])


def test_a_tune_recommends_values_that_apply_to_the_draft(server):
    draft = _draft(server, "tuned.toml")
    ask = {"draft": draft, "players": 3, "agents": "greedy", "seed": 0, "tolerance": 2,
           "space": [{"pattern": "chits.blue[*].points", "min": 1, "max": 8}]}
    status, answer = server.call("/tune", {**ask, "budget": 3000})
    assert status == 400 and answer["field"] == "budget" and "give at least" in answer["message"]
    status, answer = server.call("/tune", {**ask, "budget": 9000})
    assert status == 200, answer
    view = server.wait(answer["job"])
    assert view["status"] == "finished" and "The recommendation" in view["html"], view["html"]
    assert re.search(r"Target (met|missed) with 95% confidence", view["html"])
    status, applied = server.call("/apply", {"job": answer["job"], "players": 3})
    assert status == 200 and applied["changed"] > 0
    recommended = games.load_config(server.workspace / "runs/tunes" / Path(_tune_out(view["html"])).name /
                                    "recommended.toml", 3)[1]
    assert games.load_config(server.workspace / draft, 3)[1]["chits"] == recommended["chits"]


def _tune_out(html: str) -> str:
    return re.search(r"--out (runs/tunes/\S+)", html).group(1)


# ---- the questions asked ----------------------------------------------------------------------------------
def _args(server: Server, job: str) -> list[str]:
    return json.loads((server.workspace / ".workbench/jobs" / f"{job}.json").read_text())["args"]


def _asked(args: list[str]) -> str:
    return args[args.index("--questions") + 1]


def test_the_form_offers_the_questions_with_seats_ticked(server):
    cookie = {"cookie": f"balance_workbench={server.token}"}  # the page's own requests carry the cookie
    request = urllib.request.Request(f"{server.base}/", headers=cookie)
    with urllib.request.urlopen(request) as response:
        page = response.read().decode()
    boxes = re.findall(r'<input type="checkbox" name="questions"\s+value="(\w+)"( checked)?>', page)
    assert boxes == [("seats", " checked"), ("start", ""), ("ties", ""), ("length", "")]
    assert "until the ticked questions are decided" in page


def test_the_questions_ticked_go_to_the_command_line_and_its_verdicts(server):
    draft = _draft(server, "asked.toml")
    ask = {"draft": draft, "players": 3, "agents": "greedy", "seed": 8, "games": 300}
    status, answer = server.call("/run", {**ask, "questions": ["length", "seats", "seats"],
                                          "until_decided": True})
    assert status == 200, answer
    assert _asked(_args(server, answer["job"])) == "seats,length"  # the order of analysis.questions
    view = server.wait(answer["job"])
    assert view["status"] == "finished", view["html"]
    assert "--questions seats,length" in view["html"] and "judged: seats, length" in view["html"]
    assert "(a description, not judged: --questions start judges it)" in view["html"]  # not asked: described
    assert "verdict-seats\"><span class='status status-info'" not in view["html"]  # asked: judged
    # without --until-decided, simulate judges nothing (it refuses --questions): the cards judge them
    status, answer = server.call("/run", {**ask, "seed": 9, "questions": ["start"]})
    assert status == 200 and "--questions" not in _args(server, answer["job"])
    view = server.wait(answer["job"])
    assert view["status"] == "finished" and "judged: start" in view["html"], view["html"]
    assert "verdict-seats\"><span class='status status-info'" in view["html"]  # not asked: described
    status, answer = server.call("/compare", {**ask, "start": "shipped:kamakura/base.toml", "seed": 9})
    assert status == 200 and _asked(_args(server, answer["job"])) == "seats"  # none given: the default
    server.wait(answer["job"])


def test_a_compare_until_decided_asks_the_ticked_questions(server):
    draft = _draft(server, "asked-compare.toml")
    status, answer = server.call("/compare", {"draft": draft, "start": "shipped:kamakura/base.toml",
                                              "players": 3, "agents": "greedy", "seed": 0, "games": 20000,
                                              "until_decided": True, "questions": ["start", "seats"]})
    assert status == 200, answer
    args = _args(server, answer["job"])
    assert args[0] == "compare" and "--until-decided" in args
    assert _asked(args) == "seats,start"
    view = server.wait(answer["job"])
    assert view["status"] == "finished"
    # stopped on its own: the status line counts the games it played, not what the runs' own (unasked
    # for a comparison) verdicts would need
    line = _text(re.search(r'<p class="progress">(.*?)</p>', view["html"], re.S).group(1))
    assert f"games of {view['games']:,} each" in line, line
    # the draft is the base itself: every paired game came out alike, so the compare says so and gives no
    # fairness verdict (no "unchanged within the margin" from intervals that cannot tell)
    changes = view["html"].split('class="verdicts changes"')[1].split("</ul>")[0]
    badges = re.findall(r"<span class='status status-\w+'>([^<]+)</span>", changes)
    assert badges == ["description"], badges
    assert "paired games differ" in changes and "unchanged within the margin" not in changes


@pytest.mark.parametrize("questions, said", [
    ([], "questions: tick at least one question to judge (seats, start, ties, length)"),
    (["seats", "lenght"], "--questions: unknown question 'lenght' (did you mean length?); known: "),
    (7, "questions: input should be a valid list, got 7")])
def test_a_run_asking_no_question_or_an_unknown_one_is_refused_at_the_field(server, questions, said):
    draft = _draft(server, "refused-questions.toml")
    for kind in ("/run", "/compare"):
        status, answer = server.call(kind, {"draft": draft, "start": "shipped:kamakura/base.toml",
                                            "players": 3, "agents": "greedy", "seed": 0, "games": 300,
                                            "questions": questions})
        assert status == 400, answer
        assert answer["field"] == "questions" and answer["message"].startswith(said), answer
    assert not list((server.workspace / "runs").glob("*refused-questions-*"))  # nothing played


# ---- what the page counts -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A run directory of 400 greedy games in two chunks."""
    out = tmp_path_factory.mktemp("played") / "run"
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", str(ROOT / "configs/kamakura/base.toml"),
                           "--players", "3", "--agents", "greedy", "--games", "400", "--chunk-size", "200",
                           "--jobs", "1", "--seed", "11", "--out", str(out), "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def _running(workspace: Path, job_id: str, kind: str, outs: list[str], about: dict) -> None:
    """A job record as the workbench writes it, of a command still running (its run directories' locks
    are held by the test, as a command an earlier server started holds them)."""
    record = {"id": job_id, "kind": kind, "args": [kind], "outs": outs, "started": time.time() - 30,
              "status": "running", "about": {"config": "d.toml", "players": 3, "agents": "greedy", "seed": 11,
                                             "games": 1000, "until_decided": False, "had": 0, **about}}
    (workspace / ".workbench/jobs").mkdir(parents=True, exist_ok=True)
    (workspace / ".workbench/jobs" / f"{job_id}.json").write_text(json.dumps(record))


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _card_and_line(server: Server, job: str) -> tuple[dict, str, str]:
    """A job's answer to the page's poll, its status line and its line in the runs list (both as text)."""
    status, view = server.call(f"/jobs/{job}")
    assert status == 200, view
    line = _text(re.search(r'<p class="progress">(.*?)</p>', view["html"], re.S).group(1))
    listing = view.get("list") or server.call("/jobs")[1]
    row = _text(re.search(rf'<tr[^>]*>\s*<td><a [^>]*data-job="{job}".*?</tr>', listing, re.S).group(0))
    return view, line, row


def test_the_status_line_the_runs_list_and_the_cards_count_the_same_games_while_they_land(tmp_path, played):
    ws = tmp_path / "ws"
    shutil.copytree(played, ws / "runs/sim-x")
    shutil.copytree(played, ws / "runs/compare-x/base")  # the base config played first: the draft has none
    _running(ws, "simulate-20261205-120000-1", "simulate", ["runs/sim-x"], {})
    _running(ws, "compare-20261205-120000-1", "compare", ["runs/compare-x/base", "runs/compare-x/variant"],
             {"folder": "runs/compare-x", "start": "base"})
    runs = ws / "runs"
    with RunLock(runs / "sim-x"), RunLock(runs / "compare-x/base"), RunLock(runs / "compare-x/variant"):
        srv = Server(ws)
        try:
            view, line, row = _card_and_line(srv, "simulate-20261205-120000-1")
            assert view["active"] and view["busy"]
            n = {int(x.replace(",", "")) for x in re.findall(r"n = ([\d,]+) games", view["html"])}
            assert n == {400}  # every card of the run: its tally's games
            assert "running 400 games of 1,000" in line and "400 games of 1,000" in row, (line, row)
            view, line, row = _card_and_line(srv, "compare-20261205-120000-1")
            base_card = view["html"].split('<div class="run">')[1]
            assert re.search(r"n = 400 games", base_card), base_card
            assert view["counts"] == [400, 0]
            for said in (line, row):
                assert "start 400 · draft 0 games of 1,000 each" in said, (line, row)
        finally:
            srv.stop()


def test_a_restarted_server_lists_the_interrupted_run_and_resumes_it(tmp_path):
    first = Server(tmp_path / "ws")
    draft = _draft(first)
    status, answer = first.call("/run", {"draft": draft, "players": 3, "agents": "greedy", "seed": 2,
                                         "games": 12000})
    job = answer["job"]
    first.wait(job, until=lambda view: view["games"] > 0)
    first.stop()  # Ctrl-C: the server stops its runs
    second = Server(tmp_path / "ws")
    try:
        status, listing = second.call("/jobs")
        assert job in listing and ("stopped" in listing or "interrupted" in listing)
        status, answer = second.call(f"/jobs/{job}/resume", {})
        assert status == 200, answer
        view = second.wait(answer["job"])
        assert view["status"] == "finished" and view["games"] == 12000
    finally:
        second.stop()


def test_runs_play_on_the_dask_cluster_at_scheduler(tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        srv = Server(tmp_path / "ws", "--scheduler", cluster.scheduler_address)
        try:
            draft = _draft(srv)
            ask = {"draft": draft, "players": 3, "agents": "greedy", "seed": 0, "games": 1000}
            view = srv.wait(srv.call("/run", ask)[1]["job"])
            assert view["status"] == "finished" and view["games"] == 1000, view["html"]
            assert f"--backend dask --scheduler {cluster.scheduler_address}" in view["html"]
            view = srv.wait(srv.call("/compare", {**ask, "start": "shipped:kamakura/base.toml"})[1]["job"])
            assert view["status"] == "finished" and "--backend dask" in view["html"], view["html"]
        finally:
            srv.stop()


# ---- the designer's loop in a browser ----------------------------------------------------------------------
CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_designers_loop_in_a_browser(server, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        page.goto(server.url)
        page.select_option("#start", "shipped:kamakura/base.toml")
        page.fill("#draft", "fewer-blue.toml")
        page.click("[data-action=open]")
        page.fill("#bulk-pattern", "chits.blue[*].points")
        page.select_option("#bulk-operation", "add")
        page.fill("#bulk-value", "-1")
        page.click("[data-action=bulk]")
        page.wait_for_function("document.querySelector('[data-error-for=bulk]')?.textContent"
                               ".includes('10 value(s) changed')")
        assert page.input_value('[data-key="chits.blue[9].points"]') == "7"
        # an invalid edit: refused at its field with the command line's message, nothing written
        page.fill('[data-key="chits.red[0].points"]', "-5")
        page.keyboard.press("Tab")
        page.wait_for_selector('[data-key="chits.red[0].points"].invalid')
        message = page.inner_text("fieldset:has([data-key='chits.red[0].points']) .group-error")
        assert message == "fewer-blue.toml: chits.red[0].points: must be an integer in 0..800, got -5"
        page.click("[data-action=open]")  # the editor again, from the file
        page.wait_for_selector('[data-key="chits.red[0].points"]:not(.invalid)')
        assert page.input_value('[data-key="chits.red[0].points"]') == "1"
        # run 2,000 greedy games and watch the seat rates and a verdict appear
        page.select_option("#agents", "greedy")
        page.fill("#games", "2000")
        page.click("#run-button")
        page.wait_for_selector(".seat-chart", timeout=300_000)
        page.wait_for_selector(".verdict-seats .status", timeout=300_000)
        page.wait_for_selector(".job-head[data-active=no]", timeout=300_000)
        _first_screen_holds(page)
        command = page.text_content(".commands pre").strip().splitlines()[-1]
        run_job = page.get_attribute(".job-head", "data-job")
        # compare with the base on the same seeds
        page.click("#compare-button")
        page.wait_for_selector(".changes li", timeout=300_000)
        page.wait_for_selector(".job-head[data-active=no]", timeout=300_000)
        assert "Seat gap: " in page.inner_text(".changes") and "seat win rate" in page.inner_text(".changes")
        with page.expect_download() as download:
            page.click("#download-toml")
        toml = tmp_path / "fewer-blue.toml"
        download.value.save_as(toml)
        browser.close()
    assert "# R-9: who wins a tie" in toml.read_text()  # the starting file's comments kept
    _same_tables_from_the_command_line(server, run_job, command, toml, tmp_path)


def _first_screen_holds(page) -> None:
    """At 1,400 x 900 the editor and the verdicts start on the first screen."""
    for selector in ("#editor fieldset", ".verdict-seats"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] < 900 and box["x"] < 1400, (selector, box)


def _same_tables_from_the_command_line(server: Server, job: str, command: str, toml: Path,
                                       tmp_path: Path) -> None:
    """`balance simulate` on the downloaded TOML (saved in tmp_path), with the command the page showed
    (another --out), plays the tables of the workbench's run."""
    assert command.startswith("balance simulate fewer-blue.toml ")
    args = command.split()[1:]
    out_at = args.index("--out")
    ours = server.workspace / args[out_at + 1]
    args[out_at + 1] = str(tmp_path / "again")
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for table in ("games", "players", "events"):
        a = pd.read_parquet(ours / f"{table}.parquet")
        b = pd.read_parquet(tmp_path / "again" / f"{table}.parquet")
        pd.testing.assert_frame_equal(a, b)
