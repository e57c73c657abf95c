"""The workbench's web app, on Starlette: the page, the editor's edits, the jobs and the downloads.

Why Starlette: a small, well-kept ASGI toolkit whose requests, responses, static files and test client are
all a page of server-rendered HTML needs; the page's own script is a few hundred lines with no library,
so nothing is fetched from the network (Panel would bring Bokeh's client and its websocket protocol for
what is here a form and a table that refresh).

Every request must carry the secret token the command printed (in the address, which sets a cookie for
the page's own requests); files are named by bare names (sim.workbench.workspace), never by paths.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http import cookies
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from analysis.questions import DEFAULT_QUESTIONS, QUESTIONS, parse_questions
from sim.app.bounds import MOST_GAMES
from sim.app.skill_cost import SKILLS, selfplay_rate, skill_levels, skill_rates
from sim.app.values_run import VALUES_TABLES
from sim.core.agent_spec import parse_agents
from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.design.tune_file import LEAST_TOLERANCE
from sim.workbench import views
from sim.workbench.drafts import Draft, bulk_edit, create, field_edit
from sim.workbench.estimates import cores, levels_of, staged_estimate
from sim.workbench.exploring import (
    MINUTES,
    Plan,
    default_budget,
    elite_config,
    explore_table,
    offered,
    overhead,
    plans,
    stages,
    why_first,
    write_explore_file,
)
from sim.workbench.jobs import Job, Jobs
from sim.workbench.keeping import Kept, applying, chosen, said
from sim.workbench.requests import Apply, Edit, ExploreAsk, OpenDraft, RunAsk, SkillsAsk, TuneAsk, parsed
from sim.workbench.status import JobView, Looks, finished_games
from sim.workbench.tuning import Dimension, differences, outcome, write_tune_file
from sim.workbench.workspace import Refused, Workspace, checked_name

COOKIE = "balance_workbench"
#: what a request's agents may hold (then checked by the game's agent table)
_AGENTS = re.compile(r"[A-Za-z0-9_,:=.+-]{1,200}")


@dataclass
class Settings:
    """How the command started the workbench: its folder, the secret, and how runs play."""

    workspace: Workspace
    token: str
    jobs: int | None = None
    scheduler: str | None = None
    #: how long each skill level's cost is measured on a draft (at least one game each)
    skill_seconds: float = 0.3


class TokenGuard:
    """ASGI middleware: a request without the token (in `?token=` or the page's cookie) is refused with
    403; a request that brings it in the address gets the cookie, so the page's own requests carry it."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode())
        header = dict(scope.get("headers", [])).get(b"cookie", b"").decode()
        jar = cookies.SimpleCookie(header)
        in_query = query.get("token", [""])[0] == self.token
        if not in_query and (COOKIE not in jar or jar[COOKIE].value != self.token):
            response = Response("refused: this workbench needs the token of the address it printed\n",
                                status_code=403, media_type="text/plain")
            return await response(scope, receive, send)

        async def send_with_cookie(message: dict) -> Awaitable[None]:
            if in_query and message["type"] == "http.response.start":
                value = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", value.encode())]
            return await send(message)

        return await self.app(scope, receive, send_with_cookie)


def refusal(err: Refused | ConfigError) -> JSONResponse:
    """The answer to a refused request: its message, the field it is shown at and (for a row of a form)
    where in the field."""
    answer = {"ok": False, "message": str(err), "field": getattr(err, "field", None)}
    if getattr(err, "at", None):
        answer["at"] = err.at
    return JSONResponse(answer, status_code=400)


def _dimensions(space: list[Any]) -> list[Dimension]:
    """The tune form's rows that name values to tune (empty ones skipped), each with its row on the form;
    a row without its min or max, or naming the values of an earlier row again, is refused at the row."""
    out: list[Dimension] = []
    for n, row in enumerate(space, start=1):
        pattern = row.pattern.strip()
        if not pattern:
            continue
        if row.min is None or row.max is None:
            which = "min" if row.min is None else "max"
            raise Refused(f"tune row {n} ({pattern}), {which}: each row needs a min and a max", "tune",
                          {"row": n, "inputs": [which]})
        earlier = next((d.row for d in out if d.pattern == pattern), None)
        if earlier is not None:  # else the later row's range would silently replace the earlier one
            raise Refused(f"tune row {n} ({pattern}): row {earlier} tunes these values already", "tune",
                          {"row": n, "inputs": ["pattern"]})
        whole = lambda x: int(x) if x == int(x) else x  # noqa: E731 (points are integers)
        out.append(Dimension(pattern, whole(row.min), whole(row.max), n))
    return out


def _share(value: Any) -> float:
    """The tune form's tolerance, typed in percentage points of win rate (2), as the tune file's share."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise Refused(f"tolerance: a number of percentage points is needed, e.g. 2, got {value!r}",
                      "tolerance") from None
    least = LEAST_TOLERANCE * 100  # the tune file's own floor, in the form's percentage points
    if not least <= x < 50:
        raise Refused(f"tolerance: percentage points of win rate from {least:g} to below 50, got {x:g}",
                      "tolerance")
    return x / 100


def _check_start(start: Any, players: int, ws: Workspace) -> None:
    """Refuse a starting config that is not valid for `players`, as a run of it would be refused."""
    try:
        start.spec.rules(load_toml(start.path)[0], players, ws.relative(start.path))
    except ConfigError as err:
        raise Refused(str(err), "players") from None


def _questions(ask: RunAsk) -> tuple[str, ...]:
    """The questions a run or compare request asks (its ticked boxes, a list of names; absent: the
    command line's default), checked by `analysis.questions.parse_questions` as `--questions` is; none
    ticked is refused, since a run then judges nothing."""
    ticked = list(DEFAULT_QUESTIONS) if ask.questions is None else ask.questions
    if isinstance(ticked, str):
        ticked = ticked.split(",")
    ticked = [w for w in ticked if w.strip()]
    if not ticked:
        raise Refused(f"questions: tick at least one question to judge ({', '.join(QUESTIONS)})", "questions")
    try:
        return parse_questions(",".join(ticked))
    except ConfigError as err:
        raise Refused(str(err), "questions") from None


def _int(body: dict, key: str, lo: int = 0) -> int:
    try:
        value = int(body.get(key))
    except (TypeError, ValueError):
        raise Refused(f"{key}: a whole number is needed, got {body.get(key)!r}", key) from None
    if value < lo:
        raise Refused(f"{key}: must be at least {lo}, got {value}", key)
    return value


@dataclass
class ExploreAsked:
    """An explore request as checked: the draft, the run (players, the chosen skill as `agents`, seed,
    tolerance), the rows, the job's name, the design rules the rows touch and those kept, and (once
    estimated) the plans offered, each with its estimate, in the page's order."""

    draft: Draft
    run: dict[str, Any]
    dimensions: list[Dimension]
    name: str
    rules: list[Kept]
    kept: list[Kept]
    offered: list[tuple[Plan, dict[str, Any]]] = field(default_factory=list)


def _public(guess: dict[str, Any]) -> dict[str, Any]:
    """A plan's estimate as an answer gives it: games, seconds, words, stages and budget (not its table)."""
    return {k: v for k, v in guess.items() if k != "table"}


def _offer(plan: Plan, guess: dict[str, Any]) -> dict[str, Any]:
    """A plan as the page offers it: its name, words and levels, its estimate, and whether it finishes in
    minutes."""
    fits = guess["seconds"] is not None and guess["seconds"] <= MINUTES
    return {"name": plan.name, "words": plan.words, "search": plan.search, "judge": plan.judge,
            "witness": plan.witness, "fits": fits, **_public(guess)}


def _rules(asked: ExploreAsked) -> list[dict[str, Any]]:
    """The design rules the rows touch, as the page lists them: name, words, and whether each is kept."""
    kept = {k.name for k in asked.kept}
    return [{"name": k.name, "words": k.words, "kept": k.name in kept} for k in asked.rules]


class Workbench:
    """The routes, over one workspace and its jobs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.ws = settings.workspace
        self.jobs = Jobs(self.ws)
        self.looks = Looks(self.ws)
        self.skill_costs: dict[tuple[str, str, int], dict] = {}  # (game, config hash, players) -> rates
        self.level_paces: dict[tuple[str, str, int], dict] = {}  # the same, of the levels estimates measured

    # ---- the page and the editor -------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        if "token" in request.query_params:  # TokenGuard set the cookie: an address without the secret
            return RedirectResponse("./", status_code=303)
        return HTMLResponse(views.page(str(self.ws.root), self.ws.starts()))

    def draft(self, name: str) -> Draft:
        path = self.ws.draft(name)
        if not path.is_file():
            raise Refused(f"config: {name} is not in the workspace; open it from a starting config", "draft")
        start = next((s for s in self.ws.starts() if s.path == path), None)
        if start is None:
            raise Refused(f"config: {name} does not name a game the workbench knows (its game key)", "draft")
        return Draft.read(path, start.spec)

    async def open_draft(self, request: Request) -> Response:
        """Create the draft from its start (or keep the one there, unless `reset`), then its editor. The
        players are checked first, and a file the workbench did not write is never replaced."""
        ask = parsed(await request.body(), OpenDraft)
        start = self.ws.start(ask.start)
        name = ask.draft or f"{start.path.stem}-draft.toml"
        path = self.ws.draft(name)
        _check_start(start, ask.players, self.ws)  # before anything is written
        if path.exists():
            self.ws.check_owned(path, "reset" if ask.reset else "open")
        if ask.reset or not path.exists():
            self.ws.write_draft(path, create(start, path, write=False).text)
        return await self.editor_of(name, ask.players)

    async def editor_of(self, name: str, players: int) -> Response:
        draft = self.draft(name)
        try:
            draft.check(draft.config, players)
            problem = None
        except Refused as err:
            problem = str(err)
        return JSONResponse({"ok": problem is None, "draft": name, "message": problem,
                             "html": views.editor(draft, players, problem), "skill": self.draft_skill(name)})

    def draft_skill(self, name: str) -> str | None:
        """The skill the draft was last played at: its newest job's agents when every seat plays one
        level (the page's skill choice keeps it when the draft is opened again), else None."""
        for job in self.jobs.listed():
            agents = str(job.about.get("agents") or "")
            if job.about.get("config") == name and agents in SKILLS:
                return agents
        return None

    async def editor(self, request: Request) -> Response:
        q = request.query_params
        return await self.editor_of(q.get("draft", ""), _int(dict(q), "players", 1))

    async def edit(self, request: Request) -> Response:
        """One field's edit, or (with `pattern`) a bulk edit; validated before anything is written."""
        ask = parsed(await request.body(), Edit)
        draft = self.draft(ask.draft)
        self.ws.check_owned(draft.path, "edit")
        if ask.pattern is not None:
            changes = bulk_edit(draft, ask.pattern, ask.operation, ask.value)
        else:
            changes = field_edit(draft, ask.key or "", ask.value)
        self._write_edit(draft, changes, ask.players)
        return JSONResponse({"ok": True, "changed": len(changes)})

    def _write_edit(self, draft: Draft, changes: dict, players: int) -> None:
        """Write `changes` to the draft once the result is valid, as the workbench's own file."""
        self.ws.write_draft(draft.path, draft.edited(changes, players))

    async def skills(self, request: Request) -> Response:
        """What each skill level costs on the draft for these players: self-play games per second,
        measured once per config and player count (sim/app/skill_cost.py)."""
        ask = parsed(await request.body(), SkillsAsk)
        draft = self.draft(ask.draft)
        rules = draft.check(draft.config, ask.players)
        key = (draft.spec.name, rules.config_hash, ask.players)
        if key not in self.skill_costs:
            self.skill_costs[key] = await run_in_threadpool(skill_rates, draft.spec, rules, ask.players,
                                                            self.settings.skill_seconds)
        return JSONResponse({"ok": True, "draft": ask.draft, "players": ask.players,
                             "skills": self.skill_costs[key]})

    async def download(self, request: Request) -> Response:
        path = self.draft(request.path_params["name"]).path
        return FileResponse(path, media_type="application/toml", filename=path.name)

    # ---- runs -------------------------------------------------------------------------------------
    def _run_options(self, ask: RunAsk, draft: Draft) -> tuple[int, str, int, list[str]]:
        """players, agents, seed and the game-count options of a run request, checked as the command
        line would check them (the counts' ranges by the request's model)."""
        players = ask.players
        draft.check(draft.config, players)
        agents = ask.agents
        if not _AGENTS.fullmatch(agents):
            raise Refused(f"agents: {agents!r} is not an agent list like greedy or expert,greedy,greedy",
                          "agents")
        try:
            parse_agents(agents, players, draft.spec)
        except ConfigError as err:
            raise Refused(str(err), "agents") from None
        counts = ["--until-decided", "--games", str(ask.games)] if ask.until_decided else [
            "--games", str(ask.games)]
        return players, agents, ask.seed, counts

    def _workers(self, cluster: bool = True) -> list[str]:
        """The options that say where a command's games run: --jobs, and the Dask cluster when the
        workbench was given one (`cluster`: unless the command can only play here)."""
        s = self.settings
        return [*(["--jobs", str(s.jobs)] if s.jobs else []),
                *(["--backend", "dask", "--scheduler", s.scheduler] if s.scheduler and cluster else [])]

    def _job_name(self, draft: Draft, players: int, agents: str, seed: int, prefix: str = "", vs: str = "",
                  suffix: str = "", kind: str = "run") -> str:
        """The folder name of a job on `draft`: the draft's file and config hash (`vs` the starting config it
        is compared with), players, skill and seed, the agents' commas made underscores; refused (naming
        `kind`) when it is no folder name."""
        config_hash = draft.check(draft.config, players).config_hash
        against = f"-vs-{vs}" if vs else ""
        name = f"{prefix}{draft.path.stem}-{config_hash[:8]}{against}-{players}p-{agents}-seed{seed}{suffix}"
        return checked_name(name.replace(",", "_"), kind)

    async def run(self, request: Request) -> Response:
        ask = parsed(await request.body(), RunAsk)
        draft = self.draft(ask.draft)
        players, agents, seed, counts = self._run_options(ask, draft)
        questions = _questions(ask)
        out = f"runs/{self._job_name(draft, players, agents, seed)}"
        asking = ["--questions", ",".join(questions)] if ask.until_decided else []  # (the cards
        # judge the questions asked either way; simulate takes --questions only to know when to stop)
        args = ["simulate", draft.path.name, "--players", str(players), "--agents", agents, "--seed",
                str(seed), "--out", out, *counts, *asking, *self._workers(), "--quiet"]
        had = finished_games(self.ws.root / out)
        about = {"config": draft.path.name, "players": players, "agents": agents, "seed": seed,
                 "games": ask.games, "until_decided": ask.until_decided,
                 "questions": list(questions), "had": had, "had_each": [had]}
        job = self.jobs.start("simulate", args, [out], about)
        return JSONResponse({"ok": True, "job": job.id})

    async def compare(self, request: Request) -> Response:
        """The draft against its starting config on the same seeds (`balance compare`)."""
        ask = parsed(await request.body(), RunAsk)
        draft = self.draft(ask.draft)
        start = self.ws.start(ask.start)
        if start.spec.name != draft.spec.name:
            raise Refused(f"start: {start.label} is a {start.spec.name} config and {draft.path.name} a "
                          f"{draft.spec.name} one: compare a draft with a start of its own game", "start")
        players, agents, seed, counts = self._run_options(ask, draft)
        _check_start(start, players, self.ws)
        questions = _questions(ask)
        folder = f"runs/{self._job_name(draft, players, agents, seed, prefix='compare-', vs=start.path.stem)}"
        args = ["compare", self.ws.relative(start.path), draft.path.name, "--players", str(players),
                "--agents", agents, "--seed", str(seed), "--out", folder, *counts, "--questions",
                ",".join(questions), *self._workers(), "--quiet"]
        outs = [f"{folder}/base", f"{folder}/variant"]
        had = [finished_games(self.ws.root / o) for o in outs]
        about = {"config": draft.path.name, "start": start.label, "players": players, "agents": agents,
                 "seed": seed, "games": ask.games, "until_decided": ask.until_decided,
                 "questions": list(questions), "folder": folder, "had": min(had), "had_each": had}
        job = self.jobs.start("compare", args, outs, about)
        return JSONResponse({"ok": True, "job": job.id})

    async def values(self, request: Request) -> Response:
        """What each component of the draft is worth (`balance values`), played on request."""
        ask = parsed(await request.body(), RunAsk)
        draft = self.draft(ask.draft)
        if draft.spec.values is None:
            raise Refused(f"{draft.spec.name} has no values study", "values")
        players, agents, seed, _ = self._run_options(ask, draft)
        base = ask.base_games or draft.spec.values.games
        out = f"runs/{self._job_name(draft, players, agents, seed, prefix='values-')}"
        args = ["values", draft.path.name, "--players", str(players), "--agents", agents, "--seed", str(seed),
                "--games", str(base), "--out", out, *self._workers(), "--quiet"]
        about = {"config": draft.path.name, "players": players, "agents": agents, "seed": seed,
                 "games": base, "until_decided": False,
                 "had": finished_games(self.ws.root / out, VALUES_TABLES)}
        job = self.jobs.start("values", args, [out], about)
        return JSONResponse({"ok": True, "job": job.id})

    async def tune(self, request: Request) -> Response:
        """A tune of the components the designer picked, within their ranges (`balance tune`)."""
        ask = parsed(await request.body(), TuneAsk)
        draft = self.draft(ask.draft)
        players, agents, seed, _ = self._run_options(ask, draft)
        dimensions = _dimensions(ask.space)
        budget = self._budget(ask, draft, players, agents)
        tolerance = _share(ask.tolerance)
        name = self._free_name(self._job_name(draft, players, agents, seed, kind="tune"), "runs/tunes")
        tune_file = self.ws.root / "tunes" / f"{name}.toml"
        run = {"players": players, "agents": agents, "seed": seed, "budget": budget}
        tune = write_tune_file(tune_file, draft, run, dimensions, tolerance)
        out = f"runs/tunes/{name}"
        args = ["tune", f"tunes/{name}.toml", "--out", out, *self._workers(tune.method == "model")]
        about = {"config": draft.path.name, "players": players, "agents": agents, "seed": seed,
                 "games": budget, "until_decided": False, "had": 0}
        return self._start_with_file("tune", args, out, about, tune_file)

    async def explore(self, request: Request) -> Response:
        """Fair alternatives to the draft: `balance explore` of the tune form's values within their ranges,
        with the page's [explore] defaults (sim.workbench.exploring), for distinct designs with fair seats,
        played as the plan the request names (none: the first `/explore/estimate` offers) and keeping the
        rules of the game's design it names (sim.workbench.keeping). The answer carries the estimate."""
        ask = parsed(await request.body(), ExploreAsk)
        asked = self._explore_asked(ask)
        plan, guess = await self._explore_plans(ask, asked)
        explore_file = self.ws.root / "tunes" / f"{asked.name}.toml"
        self._write_explore(explore_file, asked, plan, guess)
        out = f"runs/explore/{asked.name}"
        args = ["explore", f"tunes/{asked.name}.toml", "--out", out, *self._workers(cluster=False)]
        run = asked.run
        about = {"config": asked.draft.path.name, "players": run["players"], "agents": run["agents"],
                 "seed": run["seed"], "games": guess["budget"], "until_decided": False, "had": 0,
                 "estimate_s": guess["seconds"], "plan": plan.words,
                 "kept": said(asked.kept) or ("Kept: nothing (its rules unticked)" if asked.rules else "")}
        answer = self._start_with_file("explore", args, out, about, explore_file)
        return JSONResponse({**json.loads(bytes(answer.body)), "estimate": _public(guess), "plan": plan.name})

    async def explore_estimate(self, request: Request) -> Response:
        """What "Show fair alternatives" would cost, before it starts: each plan the page offers (its
        levels, games and their time on this machine at each level's pace measured on this draft), the one
        that finishes in minutes first, and the rules of the game's design the rows touch, each kept or not.
        The request is checked as `/explore` checks it (a 400 at the field), and nothing is started or left
        written."""
        ask = parsed(await request.body(), ExploreAsk)
        asked = self._explore_asked(ask)
        plan, guess = await self._explore_plans(ask, asked)
        checked = self.ws.root / "tunes" / f".estimate-{asked.name}.toml"
        try:
            self._write_explore(checked, asked, plan, guess)
        finally:
            checked.unlink(missing_ok=True)
        return JSONResponse({"ok": True, "draft": ask.draft, "players": asked.run["players"],
                             "agents": asked.run["agents"], "plan": plan.name, **_public(guess),
                             "plans": [_offer(p, g) for p, g in asked.offered], "rules": _rules(asked),
                             "why_first": why_first(asked.offered, asked.run["agents"]),
                             "kept": said(asked.kept)})

    def _explore_asked(self, ask: ExploreAsk) -> ExploreAsked:
        """An explore request checked field by field: the draft, the run (players, the chosen skill as
        agents, seed, tolerance), the space, the job's free name and the design rules kept."""
        draft = self.draft(ask.draft)
        players, agents, seed, _ = self._run_options(ask, draft)
        dimensions = _dimensions(ask.space)
        tolerance = _share(ask.tolerance)
        named = self._job_name(draft, players, agents, seed, prefix="explore-", kind="explore")
        name = self._free_name(named, "runs/explore")
        run = {"players": players, "agents": agents, "seed": seed, "tolerance": tolerance}
        rules = applying(draft.spec, draft.config, [d.pattern for d in dimensions])
        kept = chosen(rules, draft.spec, ask.keep)
        return ExploreAsked(draft, run, dimensions, name, rules=rules, kept=kept)

    async def _explore_plans(self, ask: ExploreAsk, asked: ExploreAsked) -> tuple[Plan, dict[str, Any]]:
        """The plans offered at the chosen skill, each with its table, budget and estimate, in the order the
        page offers them (`asked.offered`), and the one the request names (none: the first); an unknown
        name is refused at the field."""
        draft, players, skill = asked.draft, asked.run["players"], asked.run["agents"]
        candidates = plans(skill, skill_levels(draft.spec))
        levels = {lv for p in candidates for lv in (p.search, p.judge, p.witness) if lv}
        costs = await self._paces(draft, players, levels)
        guesses = []
        for plan in candidates:
            table = explore_table(ask.explore.model_dump(), plan)
            budget = ask.budget if ask.budget is not None else default_budget(table)
            guess = staged_estimate(stages(table, budget, plan), costs, self.settings.jobs or cores(),
                                    overhead(table, budget))
            guesses.append((plan, {**guess, "budget": budget, "table": table}))
        asked.offered = offered(guesses, skill)
        if ask.plan is None:
            return asked.offered[0]
        found = next((pg for pg in asked.offered if pg[0].name == ask.plan), None)
        if found is None:
            names = ", ".join(p.name for p, _ in asked.offered)
            raise Refused(f"plan: {ask.plan!r} is no plan offered at {skill} (offered: {names})", "plan")
        return found

    def _write_explore(self, path: Path, asked: ExploreAsked, plan: Plan, guess: dict[str, Any]) -> None:
        """The explore file of the plan at `path`, checked as `balance explore` checks it; a kept rule no
        design can meet is refused at `keep`, with the rules the page offers to untick."""
        run = {**asked.run, "agents": plan.search, "budget": guess["budget"]}
        try:
            write_explore_file(path, asked.draft, run, asked.dimensions, guess["table"], kept=asked.kept)
        except Refused as err:
            if err.field == "keep":
                err.at = {**(err.at or {}), "offered": _rules(asked)}
            raise

    async def _paces(self, draft: Draft, players: int, levels: set[str]) -> dict[str, dict[str, Any]]:
        """Each of `levels`' self-play pace on the draft for `players` (the skill choice's figures, else
        measured once per config and player count here); a level that cannot play here stays unknown. A
        pace once used stays: the skill choice's figures arriving later do not change the next estimate."""
        rules = draft.check(draft.config, players)
        key = (draft.spec.name, rules.config_hash, players)
        costs = {**self.skill_costs.get(key, {}), **self.level_paces.get(key, {})}
        wanted = {lv for agents in levels for lv in levels_of(agents)} & set(draft.spec.agents)
        for level in sorted(wanted):
            if not costs.get(level, {}).get("games_per_s"):
                try:
                    rate = await run_in_threadpool(selfplay_rate, draft.spec, rules, level, players,
                                                   seconds=self.settings.skill_seconds)
                except ConfigError:
                    continue  # a level that cannot play here (no model): its pace stays unknown
                costs[level] = {"games_per_s": rate}
        self.level_paces[key] = costs
        return costs

    def _free_name(self, name: str, outs: str) -> str:
        """`name` with the first "-<k>" (from the job count on) whose study file in tunes/ and output folder
        under `outs` are both free: a new study never writes over a file or folder already there."""
        k = len(self.jobs.jobs) + 1
        root = self.ws.root
        while (root / "tunes" / f"{name}-{k}.toml").exists() or (root / outs / f"{name}-{k}").exists():
            k += 1
        return f"{name}-{k}"

    def _start_with_file(self, kind: str, args: list[str], out: str, about: dict[str, Any],
                         study_file: Path) -> Response:
        """Start a tune's or an explore's job on the study file this request wrote; the file is removed
        when the job is refused, so a refusal leaves nothing written."""
        try:
            job = self.jobs.start(kind, args, [out], about)
        except Refused:
            study_file.unlink(missing_ok=True)
            raise
        return JSONResponse({"ok": True, "job": job.id})

    def _budget(self, ask: TuneAsk, draft: Draft, players: int, agents: str) -> int:
        """The tune's budget in games: as given, or minutes at the pace of this draft's last finished run
        with the same players and skill (within the command line's ceiling of games)."""
        if ask.budget_unit == "games":
            return ask.budget
        runs = [j for j in self.jobs.listed() if j.kind == "simulate" and j.status == "finished"
                and j.about.get("config") == draft.path.name and j.about.get("players") == players
                and j.about.get("agents") == agents and j.finished]
        if not runs:
            raise Refused("budget: minutes need this draft's pace; run it first with the same players and "
                          "skill, or give the budget in games", "budget")
        job = runs[0]
        rate = (job.about["games"] - job.about.get("had", 0)) / max(1e-9, job.finished - job.started)
        return min(MOST_GAMES, max(1, int(ask.budget * 60 * rate)))

    async def apply(self, request: Request) -> Response:
        """Set the finished tune's recommended values, or the values of the explore's elite the request
        names, in the draft (validated like any edit)."""
        ask = parsed(await request.body(), Apply)
        job = self.jobs.get(ask.job)
        if ask.elite is not None and job.kind != "explore":
            raise Refused(f"job: {job.id} is a {job.kind}, not an explore: it has no elite {ask.elite!r} "
                          "to apply", "job")
        if job.kind == "explore" and not ask.elite:
            raise Refused(f"elite: name the elite of {job.id} to apply, by its cell (e.g. \"7-2\")", "elite")
        if job.kind == "explore" and job.active:
            raise Refused(f"job: {job.id} is still running; its elites come when it ends", "job")
        draft = self.draft(str(job.about.get("config", "")))
        self.ws.check_owned(draft.path, "apply")
        folder = self.ws.root / job.outs[0]
        if job.kind == "explore":
            changes = differences(draft.config, elite_config(folder, ask.elite or ""))
        else:
            found = outcome(folder, draft.config) if job.kind == "tune" else None
            if found is None:
                raise Refused(f"{job.id}: no recommendation to apply", "tune")
            changes = found.changes
        self._write_edit(draft, {path: new for path, (_, new) in changes.items()}, ask.players)
        return JSONResponse({"ok": True, "changed": len(changes), "draft": draft.path.name})

    def _looks(self, shown: JobView | None = None) -> list[JobView]:
        """Every job's look, the newest first; `shown`, the look of the job on the page, stands for its
        job, so that the page's card and its line in the list are one look."""
        return [shown if shown and shown.job is job else self.looks.view(job) for job in self.jobs.listed()]

    def _job_answer(self, job: Job) -> dict[str, Any]:
        # the status before the look: a job that ends while it is looked at is answered as still running
        # (its look may lack its last chunk), so the page looks once more, never stopping at a short count
        active, status = job.active, job.status
        view = self.looks.view(job)
        listed = self._looks(view)
        return {"ok": True, "active": active, "status": status, "games": view.games,
                "counts": view.counts, "busy": active or any(v.job.active for v in listed),
                "html": views.job(view, str(self.ws.root)), "list": views.job_list(listed)}

    async def job(self, request: Request) -> Response:
        """The card of a job, with the runs list of the same moment (the page refreshes both together,
        every second while any job runs)."""
        job = self.jobs.get(request.path_params["job"])
        return JSONResponse(await run_in_threadpool(self._job_answer, job))

    async def job_list(self, request: Request) -> Response:
        return HTMLResponse(views.job_list(await run_in_threadpool(self._looks)))

    async def stop(self, request: Request) -> Response:
        return JSONResponse({"ok": True, "job": self.jobs.stop(request.path_params["job"]).id})

    async def resume(self, request: Request) -> Response:
        job = self.jobs.resume(request.path_params["job"])
        return JSONResponse({"ok": True, "job": job.id})

    # ---- take it away ------------------------------------------------------------------------------
    def _report(self, job_id: str) -> Path:
        """The job's full report (`balance report` of its run directories), made once the job has ended."""
        job = self.jobs.get(job_id)
        if job.active:
            raise Refused(f"{job_id}: still running; the report is made when it ends")
        folder = self.ws.root / "reports" / job.id
        if not (folder / "index.html").is_file():
            args = [sys.executable, "-m", "sim", "report", *job.outs, "--out", self.ws.relative(folder)]
            done = subprocess.run(args, cwd=self.ws.root, capture_output=True, text=True)
            if done.returncode:
                raise Refused(done.stderr.strip() or "balance report failed")
        return folder

    async def report(self, request: Request) -> Response:
        folder = await run_in_threadpool(self._report, request.path_params["job"])
        return RedirectResponse(f"../files/reports/{folder.name}/index.html", status_code=303)

    async def tables(self, request: Request) -> Response:
        folder = await run_in_threadpool(self._report, request.path_params["job"])
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted([*(folder / "tables").glob("*.csv"), folder / "summary.json"]):
                if path.is_file():
                    archive.write(path, path.relative_to(folder))
        return Response(buffer.getvalue(), media_type="application/zip",
                        headers={"content-disposition": f'attachment; filename="{folder.name}-tables.zip"'})


def _refusing(endpoint: Callable) -> Callable:
    """The endpoint with a refusal answered as JSON (status 400), not an error page."""
    async def wrapped(request: Request) -> Response:
        try:
            return await endpoint(request)
        except (Refused, ConfigError) as err:
            return refusal(err)
    return wrapped


def make_app(settings: Settings) -> TokenGuard:
    bench = Workbench(settings)
    reports, runs = settings.workspace.root / "reports", settings.workspace.runs
    reports.mkdir(exist_ok=True)
    runs.mkdir(exist_ok=True)
    routes = [Route("/", _refusing(bench.index)),
              Route("/drafts", _refusing(bench.open_draft), methods=["POST"]),
              Route("/editor", _refusing(bench.editor)),
              Route("/edit", _refusing(bench.edit), methods=["POST"]),
              Route("/download/{name}", _refusing(bench.download)),
              Route("/run", _refusing(bench.run), methods=["POST"]),
              Route("/compare", _refusing(bench.compare), methods=["POST"]),
              Route("/values", _refusing(bench.values), methods=["POST"]),
              Route("/tune", _refusing(bench.tune), methods=["POST"]),
              Route("/explore", _refusing(bench.explore), methods=["POST"]),
              Route("/explore/estimate", _refusing(bench.explore_estimate), methods=["POST"]),
              Route("/apply", _refusing(bench.apply), methods=["POST"]),
              Route("/skills", _refusing(bench.skills), methods=["POST"]),
              Route("/jobs", _refusing(bench.job_list)),
              Route("/jobs/{job}", _refusing(bench.job)),
              Route("/jobs/{job}/stop", _refusing(bench.stop), methods=["POST"]),
              Route("/jobs/{job}/resume", _refusing(bench.resume), methods=["POST"]),
              Route("/report/{job}", _refusing(bench.report)),
              Route("/tables/{job}.zip", _refusing(bench.tables)),
              Mount("/static", StaticFiles(packages=[("sim.workbench", "static")])),
              Mount("/files/reports", StaticFiles(directory=reports)),
              Mount("/files/runs", StaticFiles(directory=runs))]
    app = Starlette(routes=routes, lifespan=_lifespan(bench))
    app.state.workbench = bench
    return TokenGuard(app, settings.token)


def _lifespan(bench: Workbench) -> Callable:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(bench.jobs.shutdown)  # the server stops: so do its runs (resumable)
    return lifespan
