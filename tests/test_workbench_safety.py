"""The workbench never loses a designer's file and never answers 500: bodies checked by their
declared models, drafts written only when the workbench wrote them, job records checked before they are
followed, and a fuzz of every POST route. The app is served in-process (Starlette's test client) and a
job's command is recorded, not run: what is under test is the API, not the games."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from analysis.questions import QUESTIONS
from sim.app.bounds import MOST_GAMES, MOST_IN_MEMORY, MOST_PLAYERS
from sim.workbench import jobs as jobs_module
from sim.workbench.requests import BODIES, MOST_TEXT
from sim.workbench.server import COOKIE, Settings, Workbench, make_app
from sim.workbench.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "t" * 32
BASE = "shipped:kamakura/base.toml"
POSTS = list(BODIES)


def _recorded(self, job) -> None:
    """Jobs._launch without the command: the job is recorded, as finished."""
    job.status, job.finished, job.returncode = jobs_module.FINISHED, time.time(), 0
    self.jobs[job.id] = job
    self._save(job)


@pytest.fixture
def bench(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs_module.Jobs, "_launch", _recorded)
    ws = tmp_path / "ws"
    with TestClient(make_app(Settings(Workspace(ws), TOKEN, skill_seconds=0.01)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        yield client, ws


def _post(client: TestClient, route: str, body) -> tuple[int, dict]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = client.post(route, content=raw, headers={"content-type": "application/json"})
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, {"text": response.text}


def _open(client: TestClient, name: str = "d.toml", players: int = 3) -> None:
    status, answer = _post(client, "/drafts", {"start": BASE, "draft": name, "players": players})
    assert status == 200 and answer["ok"], answer


def _files(folder: Path) -> dict[str, str]:
    """Every file under `folder` with a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- item 1: a body that is not a JSON object --------------------------------------------------------------
@pytest.mark.parametrize("raw", [b"{", b"[]", b"null", b"3", b"", b"\xff\xfe{}", b"[" * 100_000, b'"x"'],
                         ids=["broken", "list", "null", "number", "empty", "not-utf8", "deep", "string"])
def test_a_body_that_is_not_a_json_object_is_refused_on_every_post_route(bench, raw: bytes) -> None:
    client, ws = bench
    before = _files(ws)
    for route in POSTS:
        status, answer = _post(client, route, raw)
        assert status == 400, (route, answer)
        assert answer["message"].startswith("request: "), answer
    assert _files(ws) == before


# ---- item 2: numbers that are not finite, rows that are not rows -----------------------------------------
@pytest.mark.parametrize("route, body, field", [
    ("/run", b'{"draft": "d.toml", "players": Infinity, "agents": "greedy"}', "players"),
    ("/values", b'{"draft": "d.toml", "players": 3, "agents": "greedy", "base_games": NaN}', "base_games"),
    ("/tune", b'{"draft": "d.toml", "players": 3, "agents": "greedy", "space": [{"pattern": '
              b'"chits.blue[*].points", "min": "nan", "max": 5}]}', "tune"),
    ("/tune", b'{"draft": "d.toml", "players": 3, "agents": "greedy", "space": [{"pattern": '
              b'"chits.blue[*].points", "min": 1, "max": "inf"}]}', "tune"),
    ("/tune", b'{"draft": "d.toml", "players": 3, "agents": "greedy", "space": "chits"}', "tune"),
    ("/tune", b'{"draft": "d.toml", "players": 3, "agents": "greedy", "space": [3]}', "tune")])
def test_numbers_that_are_not_finite_and_rows_that_are_not_rows_are_refused_at_the_field(bench, route, body,
                                                                                        field) -> None:
    client, ws = bench
    _open(client)
    before = _files(ws)
    status, answer = _post(client, route, body)
    assert status == 400 and answer["field"] == field, answer
    assert _files(ws) == before


# ---- items 3-5: drafts --------------------------------------------------------------------------------
def test_opening_a_draft_checks_the_players_before_writing_it(bench) -> None:
    client, ws = bench
    status, answer = _post(client, "/drafts", {"start": BASE, "draft": "d.toml", "players": 9})
    assert status == 400 and answer["field"] == "players", answer
    assert "players" in answer["message"] and not (ws / "d.toml").exists()


@pytest.mark.parametrize("name, text", [
    ("notes.toml", 'title = "my notes"\n'),
    ("my-variant.toml", f'extends = "{ROOT}/configs/kamakura/base.toml"\n\n[rules]\n'
                        'order_chit_moves = [0, 1, 2, 3]\n')])
def test_reset_and_open_never_replace_a_file_the_workbench_did_not_write(bench, name: str, text: str) -> None:
    client, ws = bench
    (ws / name).write_text(text)
    for reset in (True, False):
        ask = {"start": BASE, "draft": name, "players": 3, "reset": reset}
        status, answer = _post(client, "/drafts", ask)
        assert status == 400 and "will not overwrite it" in answer["message"], answer
        assert (ws / name).read_text() == text
    status, answer = _post(client, "/edit", {"draft": name, "players": 3, "key": "rules.tie_break",
                                            "value": "shared"})
    assert status == 400 and (ws / name).read_text() == text


def test_a_draft_the_workbench_wrote_resets_but_not_once_changed_outside_it(bench) -> None:
    client, ws = bench
    _open(client)
    fresh = (ws / "d.toml").read_text()
    assert _post(client, "/edit", {"draft": "d.toml", "players": 3, "key": "rules.tie_break",
                                   "value": "shared"})[0] == 200
    assert _post(client, "/drafts", {"start": BASE, "draft": "d.toml", "players": 3, "reset": True})[0] == 200
    assert (ws / "d.toml").read_text() == fresh
    (ws / "d.toml").write_text(fresh + "# the designer's own note\n")  # edited in a text editor
    status, answer = _post(client, "/drafts", {"start": BASE, "draft": "d.toml", "players": 3, "reset": True})
    assert status == 400 and "changed outside it" in answer["message"]
    assert (ws / "d.toml").read_text().endswith("# the designer's own note\n")


def test_an_edit_writes_exactly_what_was_validated(bench) -> None:
    client, ws = bench
    _open(client)
    import tomllib

    before = tomllib.loads((ws / "d.toml").read_text())
    status, answer = _post(client, "/edit", {"draft": "d.toml", "players": 3, "key": "chits", "value": "{}"})
    after = tomllib.loads((ws / "d.toml").read_text())
    assert after == before, answer  # merged, as it was checked: an empty table changes nothing
    status, answer = _post(client, "/edit", {"draft": "d.toml", "players": 3, "key": "chits.blue[0].points",
                                            "value": "3"})
    assert status == 200, answer  # the draft is still one the command line accepts
    assert tomllib.loads((ws / "d.toml").read_text())["chits"]["blue"][0]["points"] == 3


# ---- item 6: what the command line refuses, the page refuses ---------------------------------------------
RUN = {"draft": "d.toml", "players": 3, "agents": "greedy", "seed": 0, "games": 1000}


@pytest.mark.parametrize("route, change, field, said", [
    ("/edit", {"key": "description", "value": "a\0b"}, "description", "has a null byte"),
    ("/run", {"games": 10**12}, "games", "must be at most 1,000,000,000"),
    ("/values", {"base_games": 10**12}, "base_games", "must be at most 1,000,000,000"),
    ("/run", {"seed": 2**63}, "seed", "must be between 0 and 2**63 - 1"),
    ("/compare", {"start": "shipped:sakura/base.toml"}, "start", "compare a draft with a start of its own"),
    ("/tune", {"budget": 1, "space": [{"pattern": "rules.order_chit_moves[1]", "min": 0, "max": 4}]},
     "budget", "budget: 1 game is too few: round 1")])
def test_the_page_refuses_what_the_command_line_refuses(bench, route, change, field, said) -> None:
    client, ws = bench
    _open(client)
    before = _files(ws)
    status, answer = _post(client, route, {**RUN, "start": BASE, **change})
    assert status == 400 and answer["field"] == field and said in answer["message"], answer
    assert _files(ws) == before
    assert not (ws / "tunes").exists()  # a refused tune leaves no folder behind


# ---- the tune form's rows: a refusal names the row and the input at fault ------------------------------
BLANK = {"pattern": "", "min": "", "max": ""}  # an empty row, as the page sends it


def _row(pattern: str, low=None, high=None) -> dict:
    """A tune row; a bound left None is left out."""
    return {k: v for k, v in {"pattern": pattern, "min": low, "max": high}.items() if v is not None}


BLUE = "chits.blue[*].points"
ORDER = "rules.order_chit_moves[1]"


@pytest.mark.parametrize("space, row, inputs, said", [
    ([_row(BLUE, "nan", "8"), BLANK, BLANK], 1, ["min"],
     "tune row 1, min: input should be a finite number, got 'nan'"),
    ([BLANK, _row(BLUE, "1", "x")], 2, ["max"], "tune row 2, max: input should be a valid number"),
    ([BLANK, _row("x" * 10_001, 1, 2)], 2, ["pattern"], "tune row 2, pattern"),
    ([_row(BLUE, 1)], 1, ["max"], f"tune row 1 ({BLUE}), max: each row needs a min and a max"),
    ([_row(BLUE, 1, 8), _row(f" {BLUE}", 2, 3)], 2, ["pattern"],
     f"tune row 2 ({BLUE}): row 1 tunes these values already"),
    ([BLANK, BLANK, BLANK], 1, ["pattern"], "tune: name at least one value to tune"),
    # found by `balance tune`'s check of the tune file, said in the form's words
    ([_row(BLUE, 1, 8), _row("chits.purple[*].points", 1, 8)], 2, ["pattern"],
     "tune row 2 (chits.purple[*].points): chits.purple is not in the base"),
    ([BLANK, _row("nothing.here", 1, 8)], 2, ["pattern"],
     "tune row 2 (candidate nothing.here = 1): nothing: unknown key"),
    ([_row("rules", 1, 2)], 1, ["pattern"], "rules: must be a table"),
    ([_row(BLUE, 8, 1)], 1, ["max"], f"tune row 1 ({BLUE}), max: must be an integer >= 8, got 1"),
    ([_row(BLUE, 1.5, 8)], 1, ["min"], f"tune row 1 ({BLUE}), min: must be an integer, got a float (1.5)"),
    ([BLANK, _row(BLUE, -100, 8)], 2, ["min"],
     "tune row 2 (every searched value at its lowest, repaired): chits.blue[0].points: must be an"),
    ([_row(BLUE, 1, 900)], 1, ["max"],
     "tune row 1 (every searched value at its highest, repaired): chits.blue[0].points: must be an"),
    ([_row(ORDER, 0, 4), _row("chits.blue[0].points", -1, 3)], 2, ["min"],
     f"tune row 2 (candidate {ORDER} = 0, chits.blue[0].points = -1): chits.blue[0].points: must be"),
    ([_row(BLUE, 1, 8), _row("chits.blue[0].points", 1, 2)], 2, ["pattern"],
     "tune row 2: space: names chits.blue[0].points twice"),
    ([_row(ORDER, 0, 10**6)], 1, ["min", "max"], "is 1,000,001 values; a space key takes at most 10,000")])
def test_a_refused_tune_row_names_its_row_and_input(bench, space, row, inputs, said) -> None:
    client, ws = bench
    _open(client)
    before = _files(ws)
    status, answer = _post(client, "/tune", {**RUN, "space": space})
    assert status == 400 and answer["field"] == "tune", answer
    assert answer["at"] == {"row": row, "inputs": inputs}, answer
    assert said in answer["message"] and "skip_invalid" not in answer["message"], answer
    assert str(ws) not in answer["message"]  # not the workbench's own tune file, which is gone
    assert _files(ws) == before and not (ws / "tunes").exists()


def test_a_budget_too_small_is_refused_at_the_budget(bench) -> None:
    client, ws = bench
    _open(client)
    space = [{"pattern": "rules.order_chit_moves[1]", "min": "0", "max": "4"}, BLANK, BLANK]
    status, answer = _post(client, "/tune", {**RUN, "space": space, "budget": 1})
    assert status == 400 and answer["field"] == "budget" and "at" not in answer, answer
    assert answer["message"].startswith("budget: 1 game is too few: round 1 (5 candidates"), answer


def test_the_pages_tune_body_with_empty_rows_is_accepted(bench) -> None:
    """The page sends every row of the tune form, the empty ones with their blank texts (min "", max ""):
    they are no rows, not numbers refused (which refused every tune the page sent with a row left empty)."""
    client, ws = bench
    _open(client)
    page = {**RUN, "games": 2000, "questions": ["seats"], "until_decided": False, "base_games": None,
            "space": [{"pattern": "rules.order_chit_moves[1]", "min": "0", "max": "4"}, BLANK, BLANK],
            "budget": 40000, "budget_unit": "games", "tolerance": "2"}
    status, answer = _post(client, "/tune", page)
    assert status == 200 and answer["ok"], answer
    tune = next((ws / "tunes").glob("*.toml")).read_text()
    assert '"rules.order_chit_moves[1]"' in tune and "min = 0" in tune and "max = 4" in tune


# ---- item 7: job records -----------------------------------------------------------------------------
def _record(**change) -> dict:
    record = {"id": "simulate-20261205-120000-1", "kind": "simulate",
              "args": ["simulate", "d.toml", "--out", "runs/x"], "outs": ["runs/x"], "started": 1.0e9,
              "status": "stopped", "finished": 1.0e9 + 5, "error": "", "returncode": -15,
              "about": {"config": "d.toml", "players": 3, "agents": "greedy", "seed": 0, "games": 100}}
    return {**record, **change}


@pytest.mark.parametrize("change", [
    {"started": "yesterday"}, {"outs": ["/etc"]}, {"args": ["simulate", "d.toml", "--out", "/etc/x"]},
    {"outs": ["runs/../../x"]}, {"about": {"config": "d.toml"}}, {"kind": "rm"}, {"id": "../x"}])
def test_a_damaged_job_record_is_listed_as_damaged_and_never_followed(tmp_path, monkeypatch, change) -> None:
    monkeypatch.setattr(jobs_module.Jobs, "_launch", _recorded)
    ws = Workspace(tmp_path / "ws")
    (ws.jobs / "simulate-20261205-120000-1.json").write_text(json.dumps(_record(**change)))
    with TestClient(make_app(Settings(ws, TOKEN)), raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        listing = client.get("/jobs")
        assert listing.status_code == 200 and "damaged" in listing.text
        card = client.get("/jobs/simulate-20261205-120000-1")
        assert card.status_code == 200 and "damaged record" in card.json()["html"]
        status, answer = _post(client, "/jobs/simulate-20261205-120000-1/resume", {})
        assert status == 400 and "damaged" in answer["message"]
    assert [p.name for p in ws.jobs.iterdir()] == ["simulate-20261205-120000-1.json"]  # nothing run


def test_a_job_record_this_workbench_wrote_is_read_back_whole(tmp_path) -> None:
    ws = Workspace(tmp_path / "ws")
    (ws.jobs / "simulate-20261205-120000-1.json").write_text(json.dumps(_record()))
    job = jobs_module.read_record(ws.jobs / "simulate-20261205-120000-1.json", ws)
    assert job.status == "stopped" and job.outs == ["runs/x"] and job.about["players"] == 3


# ---- item 8: the server's own options ----------------------------------------------------------------
@pytest.mark.parametrize("options, said", [
    (["--host", ""], "--host: empty"), (["--workspace", ""], "--workspace: empty"),
    (["--host", "no.such.host.invalid"], "--host: 'no.such.host.invalid' is no address of this machine")])
def test_the_workbench_refuses_an_empty_or_unknown_address_or_folder_and_makes_nothing(tmp_path, options,
                                                                                       said) -> None:
    args = ["workbench", "--workspace", str(tmp_path / "ws"), "--port", "0", *options]
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(f"balance: {said}"), done.stderr
    assert "Traceback" not in done.stderr and list(tmp_path.iterdir()) == []


# ---- the fuzz: generated requests on every POST route -------------------------------------------------
# Most draws are a valid request of the route with exactly one field changed (an odd value, another type, a
# boundary such as the command line's ceilings, or the field removed), so the change is what the server
# meets past the parts of the body it would refuse first; then valid requests as they are, any JSON and
# bytes that are no JSON. The suite draws a fixed set (derandomized, FUZZ_REQUESTS of them, 150 by default);
# FUZZ_FRESH=1 draws new ones from a seed it prints (FUZZ_SEED=<seed> draws them again). With -s the
# module ends by printing the counts per route and outcome.
FUZZ_REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "150"))
FUZZ_FRESH = os.environ.get("FUZZ_FRESH", "") not in ("", "0")
FUZZ_SEED = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**32)) if FUZZ_FRESH else None
AGAIN = f"(FUZZ_FRESH=1 FUZZ_SEED={FUZZ_SEED} draws it again)" if FUZZ_FRESH else "(derandomized)"
COUNTS: dict[str, dict[str, dict[str, int]]] = {"routes": {}, "kinds": {}}

_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                     st.sampled_from(["d.toml", "greedy", BASE, "shipped:sakura/base.toml", "chits",
                                      "../d.toml", "chits.blue[*].points", "rules.tie_break", "add", "set",
                                      "seats", "3",
                                      "nan", "inf", "1e999", "\0", "minutes"]))
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=8), inner, max_size=4), max_leaves=12)

LONG = "x" * MOST_TEXT
TOO_LONG = LONG + "x"
_COUNTS = [0, 1, 2, 1000, MOST_IN_MEMORY, MOST_IN_MEMORY + 1, MOST_GAMES, MOST_GAMES + 1, -1, 2**63, 2**64,
           "1000", "1e3", 1000.0, 1000.5, True, None]
#: each field's values at and past its edges, and near-valid ones
EDGES: dict[str, list] = {
    "players": [0, 1, 2, 4, 5, 6, MOST_PLAYERS, MOST_PLAYERS + 1, -1, 2**63, "3", " 3", 3.0, 3.5, True, None],
    "seed": [0, 1, 2**63 - 1, 2**63, -1, "7", 7.0, 7.5, None],
    "games": _COUNTS, "base_games": _COUNTS, "budget": _COUNTS,
    "draft": ["d.toml", "e.toml", "D.toml", "d.TOML", "d", "../d.toml", "/etc/passwd", ".d.toml", "runs",
              "tunes/x.toml", "x" * 95 + ".toml", "x" * 96 + ".toml", "x" * 201, "", None, "d.toml\0"],
    "start": [BASE, "shipped:kamakura/tie-shared.toml", "shipped:kamakura/random-layout.toml",
              "shipped:sakura/base.toml", "workspace:d.toml", "workspace:e.toml", "workspace:../d.toml",
              "shipped:kamakura/../../etc/passwd", "kamakura/base.toml", "", None],
    "agents": ["greedy", "expert", "mcts", "random", "greedy,greedy,greedy", "greedy,expert",
               "greedy,greedy,greedy,greedy", "mcts:iterations=1000000000", "greedy:x=1", "expert:depth=-1",
               "", " greedy", "greedy;rm", "a" * 200, "a" * 201, None],
    "questions": [None, [], ["seats"], list(QUESTIONS), ["nope"], [""], "seats,ties", "", ["seats"] * 100,
                  ["x" * 41], [3]],
    "until_decided": [True, False, "yes", "true", 1, 2, None],
    "reset": [True, False, "true", 1, None],
    "key": ["rules.tie_break", "rules.voluntary_pass", "rules", "chits", "chits.blue[0].points",
            "chits.blue[10].points", "chits.blue[*].points", "chits.blue[0]", "game", "description",
            "extends", "", None, TOO_LONG],
    "value": ["shared", "first_in_order", "3", "-5", "801", "1e999", "nan", "{}", "[]", '"x"', "true",
              "[1, 2]", "{points = 2}", "a\0b", "", LONG, TOO_LONG, None],
    "pattern": [BLUE, "chits.*[*].points", "chits.*[*].power", "*", "[*]", "chits.blue[*]", "rules.*",
                "chits.purple[*].points", "", None, TOO_LONG],
    "operation": ["set", "add", "", "mul", None],
    "tolerance": [0, 0.001, 2, "2", 49.99, 50, -1, 1e308, "2pp", None],
    "budget_unit": ["games", "minutes", "hours", "", None],
    "job": ["x", "../x", "tune-20261205-120000-1", "", None, TOO_LONG],
    "elite": ["7-2", "elite-7-2", "0", "../x", "7-2-1-0-5", "", None, 3, TOO_LONG],
    "explore": [{}, {"games": -1}, {"games": 2**70}, {"confirm_games": 10}, {"refine_games": 1},
                {"tries": 0, "elites": 10**6}, {"batch": "4"}, {"games": 1.5}, {"nope": 1}, "x", None, [],
                {"witness_games": 10}, {"witness_games": 200}],
    "plan": ["quick", "thorough", "lighter", "", "fastest", None, 3, TOO_LONG],
    "keep": [None, [], ["rising"], ["total"], ["rising", "total"], ["nope"], "rising,total", "", [3],
             ["rising"] * 101, TOO_LONG],
    "space": [[], [BLANK] * 3, [BLANK] * 200, [BLANK] * 201, [_row(ORDER, 0, 4), _row(BLUE, 1, 8)],
              [_row(f"rules.order_chit_moves[{i}]", 0, 4) for i in range(1, 4)], [_row(ORDER, 0, 4)] * 2,
              "chits", {"pattern": ORDER}, [None]],
}
#: a tune row's inputs at and past their edges
ROW_EDGES: dict[str, list] = {
    "pattern": [BLUE, ORDER, "chits.blue[0].points", "chits.purple[*].points", "nothing.here", "rules",
                "description", "chits.*[*].points", "[", "", " ", TOO_LONG, None, 3],
    "min": [0, -1, 1, 4, 8, 800, 801, 1.5, "1", "", "nan", "inf", -(10**30), 10**30, 1e308, None, True, []],
}
ROW_EDGES["max"] = ROW_EDGES["min"]


def _valid(route: str, jobs: dict[str, str]) -> st.SearchStrategy:
    """A valid request of `route` on the fuzz's workspace (its draft d.toml, for three players)."""
    opt = {"questions": st.sampled_from([["seats"], ["seats", "ties"], list(QUESTIONS)]),
           "until_decided": st.booleans(), "seed": st.integers(0, 2**63 - 1), "games": st.integers(1, 10**6)}
    run = st.fixed_dictionaries({k: st.just(v) for k, v in {**RUN, "start": BASE}.items() if k not in opt},
                                optional=opt)  # seed and games left out: their defaults
    if route == "/drafts":
        drafts, players = st.sampled_from(["d.toml", "e.toml"]), st.sampled_from([2, 3, 4])
        return st.fixed_dictionaries({"start": st.just(BASE), "draft": drafts, "players": players},
                                     optional={"reset": st.booleans()})
    if route == "/edit":
        key = st.sampled_from([("rules.tie_break", "shared"), ("rules.tie_break", "last_in_order"),
                               ("rules.voluntary_pass", "true"), ("description", "fuzzed"),
                               ("chits.blue[0].points", "3"), ("chits.blue[0].points", "2")])
        bulk = st.sampled_from([("set", "2"), ("set", "4"), ("add", "0")])
        return st.one_of(
            key.map(lambda kv: {"draft": "d.toml", "players": 3, "key": kv[0], "value": kv[1]}),
            bulk.map(lambda ov: {"draft": "d.toml", "players": 3, "pattern": BLUE, "operation": ov[0],
                                 "value": ov[1]}))
    if route == "/values":
        base = st.sampled_from([None, 100, 2000])
        return st.tuples(run, base).map(lambda rb: {**rb[0], "base_games": rb[1]})
    if route == "/tune":
        space = st.sampled_from([[_row(ORDER, 0, 4)], [_row(ORDER, "0", "4"), BLANK, BLANK],
                                 [BLANK, _row(BLUE, 1, 8), BLANK], [_row(ORDER, 1, 3), _row(BLUE, 2, 6)]])
        return st.tuples(run, space, st.sampled_from([30000, 40000]), st.sampled_from([2, "2", 1.5])).map(
            lambda t: {**t[0], "space": t[1], "budget": t[2], "budget_unit": "games", "tolerance": t[3]})
    if route == "/explore":
        space = st.sampled_from([[_row(ORDER, 0, 4)], [BLANK, _row(BLUE, 1, 8), BLANK]])
        return st.tuples(run, space, st.sampled_from([None, 300000]), st.sampled_from([2, "2", 25])).map(
            lambda t: {**t[0], "space": t[1], "budget": t[2], "tolerance": t[3]})
    if route == "/apply":
        return st.just({"job": jobs["tune"], "players": 3})
    return run  # /run, /compare


def _one_field_changed(route: str, jobs: dict[str, str]) -> st.SearchStrategy:
    """A valid request of `route` with exactly one field changed: to a value at or past its edges, to any
    JSON, or removed; for the tune form's rows, one input of a row."""
    @st.composite
    def changed(draw) -> dict:
        body = dict(draw(_valid(route, jobs)))
        key = draw(st.sampled_from(sorted(set(BODIES[route].model_fields) | set(body))), label="field")
        edges = [*EDGES.get(key, []), *([jobs["simulate"]] if key == "job" else [])]
        hows = ["edge"] * 2 * bool(edges) + ["odd"] + ["removed"] * (key in body) + ["row"] * (key == "space")
        how = draw(st.sampled_from(hows))
        if how == "removed":
            del body[key]
        elif how == "edge":
            body[key] = draw(st.sampled_from(edges))
        elif how == "odd":
            body[key] = draw(_json)
        else:
            rows = [dict(r) for r in body["space"]]
            i = draw(st.integers(0, len(rows) - 1))
            column = draw(st.sampled_from(sorted(ROW_EDGES)))
            if draw(st.booleans()):
                rows[i][column] = draw(st.sampled_from(ROW_EDGES[column]))
            else:
                rows[i].pop(column, None)
            body["space"] = rows
        event(f"{route} changed {key} ({how})")
        return body
    return changed()


def _bodies(route: str, jobs: dict[str, str]) -> st.SearchStrategy:
    """(kind, body) for `route`: mostly a valid request with one field changed, some valid ones as they
    are, any JSON, and bytes: any, or a valid request's JSON cut short."""
    def cut(body_at: tuple[dict, int]) -> bytes:
        text = json.dumps(body_at[0]).encode()
        return text[:body_at[1] % max(1, len(text))]
    kinds = {"changed": _one_field_changed(route, jobs), "valid": _valid(route, jobs), "json": _json,
             "bytes": st.one_of(st.binary(max_size=64),
                                st.tuples(_valid(route, jobs), st.integers(0, 10**6)).map(cut))}
    weights = ["changed"] * 12 + ["valid"] * 4 + ["json"] * 2 + ["bytes"] * 2
    return st.sampled_from(weights).flatmap(lambda kind: kinds[kind].map(lambda body: (kind, body)))


def _tree(folder: Path) -> dict[str, str]:
    """Every file and folder under `folder`: a file by the hash of its bytes and its modification time (a
    refusal that rewrote a file as it was has still written it), a folder as one."""
    def seen(p: Path) -> str:
        if p.is_dir() and not p.is_symlink():
            return "dir"
        held = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "other"
        return f"{held} {p.lstat().st_mtime_ns}"
    return {str(p.relative_to(folder)): seen(p) for p in sorted(folder.rglob("*"))}


def _outcome(status: int) -> str:
    return {2: "accepted 2xx", 4: "refused 4xx", 5: "5xx"}.get(status // 100, str(status))


def _fresh(test):
    """The test with the fresh draws' seed, under FUZZ_FRESH."""
    return seed(FUZZ_SEED)(test) if FUZZ_FRESH else test


@_fresh
@settings(max_examples=FUZZ_REQUESTS, deadline=None, derandomize=not FUZZ_FRESH, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_requests_never_get_a_5xx_and_a_refusal_writes_nothing(fuzzed, data) -> None:
    client, ws, outside, jobs = fuzzed
    route = data.draw(st.sampled_from(POSTS), label="route")
    kind, body = data.draw(_bodies(route, jobs), label="kind, body")
    before = _tree(ws)
    status, answer = _post(client, route, body)
    outcome = _outcome(status)
    for table, name in (("routes", route), ("kinds", kind)):
        row = COUNTS[table].setdefault(name, {})
        row[outcome] = row.get(outcome, 0) + 1
    event(f"{route} {outcome}")  # also per route and answer (pytest --hypothesis-show-statistics)
    assert status < 500, (AGAIN, route, body, answer)
    if status >= 400:
        assert _tree(ws) == before, (AGAIN, route, body, answer)
        assert answer.get("message"), (AGAIN, answer)
    assert [p.name for p in outside.iterdir()] == ["ws"], AGAIN  # nothing written beside the workspace


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """One workspace for the whole fuzz, with a draft the workbench wrote and two jobs (recorded, not
    run): a simulate and a tune whose recommendation (one chit's points) can be applied."""
    patch = pytest.MonkeyPatch()
    patch.setattr(jobs_module.Jobs, "_launch", _recorded)
    outside = tmp_path_factory.mktemp("fuzz")
    ws = outside / "ws"
    with TestClient(make_app(Settings(Workspace(ws), TOKEN, skill_seconds=0.01)),
                    raise_server_exceptions=False) as client:
        client.cookies.set(COOKIE, TOKEN)
        _open(client)
        jobs = {kind: _post(client, f"/{kind}", {**RUN, "space": [_row(ORDER, 0, 4)]})[1]["job"]
                for kind in ("run", "tune")}
        jobs["simulate"] = jobs.pop("run")
        out = ws / json.loads((ws / ".workbench/jobs" / f"{jobs['tune']}.json").read_text())["outs"][0]
        out.mkdir(parents=True)
        (out / "tune.json").write_text(json.dumps({"statement": "Target met (fuzz)", "met": True}))
        recommended = tomlkit.parse((ws / "d.toml").read_text())
        recommended["chits"]["blue"][0]["points"] = 5
        (out / "recommended.toml").write_text(tomlkit.dumps(recommended))
        status, answer = _post(client, "/apply", {"job": jobs["tune"], "players": 3})
        assert status == 200 and answer["changed"] == 1, answer  # a valid apply
        yield client, ws, outside, jobs
    patch.undo()


@pytest.fixture(scope="module", autouse=True)
def say_the_counts():
    """After the module, with -s: the fuzz's requests per route and per kind of draw, by outcome."""
    yield
    if COUNTS["routes"]:
        total = sum(sum(row.values()) for row in COUNTS["routes"].values())
        accepted = sum(row.get("accepted 2xx", 0) for row in COUNTS["routes"].values())
        draws = f"fresh, seed {FUZZ_SEED}" if FUZZ_FRESH else "derandomized"
        said = {"requests": total, "accepted_share": round(accepted / total, 3), "draws": draws, **COUNTS}
        print("\nfuzzed requests:", json.dumps(said, sort_keys=True))


# ---- at the field, in a browser --------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_every_form_shows_a_refusal_at_its_field(tmp_path) -> None:
    """The run form's games, the tune form's rows and the draft's name: each refusal beside its field."""
    from playwright.sync_api import sync_playwright

    ws = tmp_path / "ws"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "workbench", "--workspace", str(ws), "--port", "0",
                             "--jobs", "1"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    url = next(m.group(1) for line in proc.stdout if (m := re.search(r"(http://\S+/\?token=\S+)", line)))
    said = "document.querySelector('[data-error-for={}]').textContent.length > 0"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url)
            page.fill("#draft", "d.toml")
            page.click("[data-action=open]")
            page.wait_for_selector("#editor fieldset")
            page.fill("#games", str(10**12))
            page.click("#run-button")
            page.wait_for_function(said.format("games"))
            shown = page.inner_text("[data-error-for=games]")
            assert shown.startswith("games: must be at most 1,000,000,000"), shown
            assert "invalid" in page.get_attribute("#games", "class")
            page.fill("#games", "2000")
            _tune_rows_refused_at_their_inputs(page, said)
            (ws / "notes.toml").write_text('title = "mine"\n')
            page.fill("#draft", "notes.toml")
            page.click("[data-action=reset]")
            page.wait_for_function(said.format("draft"))
            assert "will not overwrite it" in page.inner_text("[data-error-for=draft]")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(30)
    assert (ws / "notes.toml").read_text() == 'title = "mine"\n'


def _marked(page) -> list[str]:
    """The tune form's inputs marked invalid, as "row column" ("1 min"), and "budget" if it is."""
    return page.evaluate("""() => [
        ...[...document.querySelectorAll('.tune-space tbody tr')].flatMap((row, i) =>
            [...row.querySelectorAll('[data-column].invalid')].map((el) => `${i + 1} ${el.dataset.column}`)),
        ...(document.querySelector('#budget').classList.contains('invalid') ? ['budget'] : [])]""")


def _tune_rows_refused_at_their_inputs(page, said: str) -> None:
    """A refused tune row: its message in the tune form's slot, and exactly the input at fault marked (a
    bad min, then a pattern that names nothing, found by `balance tune`'s check of the tune file); a budget
    too small to pay the race: the budget marked. The empty third row is no row."""
    shown = "document.querySelector('[data-error-for={}]').textContent.includes({!r})"
    page.click("#fix summary")
    rows = page.locator(".tune-space tbody tr")
    rows.nth(0).locator(".tune-pattern").fill("chits.blue[*].points")
    rows.nth(0).locator(".tune-min").fill("nan")
    rows.nth(0).locator(".tune-max").fill("8")
    page.click("#tune-button")
    page.wait_for_function(said.format("tune"))
    shown_at_tune = page.inner_text("[data-error-for=tune]")
    assert shown_at_tune == "tune row 1, min: input should be a finite number, got 'nan'"
    assert _marked(page) == ["1 min"]
    rows.nth(0).locator(".tune-min").fill("1")
    rows.nth(1).locator(".tune-pattern").fill("chits.purple[*].points")
    rows.nth(1).locator(".tune-min").fill("1")
    rows.nth(1).locator(".tune-max").fill("8")
    page.click("#tune-button")
    page.wait_for_function(shown.format("tune", "chits.purple is not in the base config"))
    assert _marked(page) == ["2 pattern"]
    if shots := os.environ.get("WORKBENCH_SCREENSHOTS"):  # a folder: see it as a designer does
        page.locator("#fix").screenshot(path=Path(shots, "tune-row-refused.png"))
    for column in ("pattern", "min", "max"):
        rows.nth(1).locator(f".tune-{column}").fill("")
    rows.nth(0).locator(".tune-pattern").fill("rules.order_chit_moves[1]")
    rows.nth(0).locator(".tune-min").fill("0")
    rows.nth(0).locator(".tune-max").fill("4")
    page.fill("#budget", "1")
    page.click("#tune-button")
    page.wait_for_function(shown.format("budget", "1 game is too few: round 1"))
    assert page.inner_text("[data-error-for=tune]") == "" and _marked(page) == ["budget"]
    if shots:
        page.locator("#fix").screenshot(path=Path(shots, "tune-budget-refused.png"))
    page.fill("#budget", "40000")


def test_a_job_that_ends_while_it_is_looked_at_is_answered_as_running(tmp_path) -> None:
    """The job's look is taken while its command still writes its last chunk, and the command ends before
    the answer is put together: the answer keeps the status the look was taken at (running), so the page
    asks again and gets the finished look, rather than stopping on a short count marked finished."""
    bench = Workbench(Settings(Workspace(tmp_path / "ws"), TOKEN))
    job = jobs_module.Job("simulate-1", "simulate", ["simulate", "d.toml"], ["runs/d"], time.time(),
                          about={"config": "d.toml", "players": 3, "agents": "greedy", "seed": 1,
                                 "games": 1000, "until_decided": False, "questions": ["seats"], "had": 0,
                                 "had_each": [0]})
    bench.jobs.jobs[job.id] = job
    look = bench.looks.view

    def ending(j: jobs_module.Job):
        view = look(j)
        j.status = jobs_module.FINISHED  # the command ends just after the look
        return view

    bench.looks.view = ending
    answer = bench._job_answer(job)
    assert answer["active"] and answer["busy"] and answer["status"] == jobs_module.RUNNING  # polled again
    bench.looks.view = look
    again = bench._job_answer(job)
    assert not again["active"] and not again["busy"] and again["status"] == jobs_module.FINISHED
