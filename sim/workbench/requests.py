"""The workbench's request bodies, each a declared model: what a route reads, of which type, in which range.

Why pydantic: every body is checked against one declaration before a route touches it (types, finite
numbers, lengths), each failure names its field, and the same declarations give the routes' JSON schema
(`schemas`), which the fuzz test of the API draws bodies from. The ranges are the command line's own: a
count is checked by the argparse type of its option (sim.app.bounds), so the page and the command
line refuse the same values with the same words.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from sim.app.bounds import games_int, players_int, seed_int
from sim.workbench.workspace import Refused

#: the largest request body read (a tune form with every chit's row is a few kilobytes)
MOST_BODY_BYTES = 1_000_000
#: the longest text a field takes (a description, a typed value, a pattern)
MOST_TEXT = 10_000


def _option(check: Callable[[str], Any]) -> Callable[[Any], Any]:
    """A validator that checks a value as the command line's option type `check` does, with its words."""
    def validate(value: Any) -> Any:
        try:
            return check(str(value))
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
    return validate


def _listed(value: Any) -> Any:
    """A list of names may come as one comma-separated string, as on the command line."""
    return value.split(",") if isinstance(value, str) else value


Text = Annotated[str, Field(max_length=MOST_TEXT)]
Name = Annotated[str, Field(max_length=200)]
Players = Annotated[int, AfterValidator(_option(players_int))]
Seed = Annotated[int, AfterValidator(_option(seed_int))]
Games = Annotated[int, AfterValidator(_option(games_int))]


class Body(BaseModel):
    """Every body: a JSON object; keys no route reads are ignored, numbers must be finite."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


class OpenDraft(Body):
    start: Name = ""
    draft: Name | None = None
    players: Players = 2
    reset: bool = False


class Edit(Body):
    """One field's edit (`key`), or a bulk edit (`pattern`, `operation`)."""

    draft: Name
    players: Players
    key: Text | None = None
    value: Text = ""
    pattern: Text | None = None
    operation: Literal["set", "add", ""] = ""


class RunAsk(Body):
    """A run, a comparison or a values study of a draft: the run form."""

    draft: Name
    start: Name = ""
    players: Players
    agents: Annotated[str, Field(max_length=200)] = ""
    seed: Seed = 0
    games: Games = 2000
    until_decided: bool = False
    questions: Annotated[list[Annotated[str, Field(max_length=40)]] | None, BeforeValidator(_listed)] = None
    base_games: Games | None = None


def _blank_is_none(value: Any) -> Any:
    """A row's min or max left empty on the page (it sends the text of each input) is no value."""
    return None if isinstance(value, str) and not value.strip() else value


Bound = Annotated[float | None, BeforeValidator(_blank_is_none)]


class TuneRow(Body):
    """One row of the tune form; the page sends every row, the empty ones too (all three inputs blank)."""

    pattern: Text = ""
    min: Bound = None
    max: Bound = None


class TuneAsk(RunAsk):
    """The "fix it" form: the run form, the values to tune and their ranges, the budget and the target."""

    space: list[TuneRow] = Field(default_factory=list, max_length=200)
    budget: Annotated[int, AfterValidator(_option(games_int))] = 30000
    budget_unit: Literal["games", "minutes"] = "games"
    tolerance: float = 2.0  # percentage points of win rate (the server checks its range)


class ExploreTable(Body):
    """The [explore] keys a request may set instead of the page's defaults (sim.workbench.exploring); each
    is checked by `balance explore`'s own reading of the file, which names the key."""

    games: int | None = None
    batch: int | None = None
    elites: int | None = None
    refine: int | None = None
    refine_per_cell: int | None = None
    refine_games: int | None = None
    confirm_games: int | None = None
    witness_games: int | None = None
    tries: int | None = None


class ExploreAsk(RunAsk):
    """"Show fair alternatives": the run form, the tune form's values and ranges and its tolerance; the
    budget in games (none: the page's default, sim.workbench.exploring.default_budget); the plan, by the
    name the estimate offered it under (none: the first offered); the rules of the game's design kept, by
    name (none: every one the rows touch; an empty list: none)."""

    space: list[TuneRow] = Field(default_factory=list, max_length=200)
    budget: Annotated[int, AfterValidator(_option(games_int))] | None = None
    tolerance: float = 2.0  # percentage points of win rate (the server checks its range)
    explore: ExploreTable = Field(default_factory=ExploreTable)
    plan: Name | None = None
    keep: Annotated[list[Name] | None, BeforeValidator(_listed), Field(max_length=100)] = None


class SkillsAsk(Body):
    """What each skill level costs on a draft, for a number of players."""

    draft: Name
    players: Players


class Apply(Body):
    """Apply a finished tune's recommendation, or (`elite`: its cell, e.g. "7-2") an explore's elite."""

    job: Name
    players: Players
    elite: Name | None = None


Model = TypeVar("Model", bound=Body)


def parsed(raw: bytes, model: type[Model]) -> Model:
    """The body `raw` read as `model`; Refused, naming the field, when it is not one."""
    if len(raw) > MOST_BODY_BYTES:
        raise Refused(f"request: the body is {len(raw):,} bytes; at most {MOST_BODY_BYTES:,} are read")
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise Refused(f"request: the body is not JSON ({type(err).__name__}); send a JSON object") from None
    if not isinstance(data, dict):
        raise Refused(f"request: the body must be a JSON object of the form's fields, got {_kind(data)}")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise refusal(err) from None


def refusal(err: ValidationError) -> Refused:
    """The first failure of a body, as the page shows it: beside the field it names."""
    first = err.errors(include_url=False)[0]
    loc = [str(part) for part in first["loc"] if "[" not in str(part)]  # not a union member's tag
    field = loc[0] if loc else "request"
    where = field if len(loc) < 2 else f"{field}[{loc[1]}]" + "".join(f".{p}" for p in loc[2:])
    at = None
    if field == "space" and len(loc) >= 2 and loc[1].isdigit():  # the form's words: its rows from 1
        where = f"tune row {int(loc[1]) + 1}" + "".join(f", {p}" for p in loc[2:])
        at = {"row": int(loc[1]) + 1}  # the row, and its input when the failure is one of them
        if len(loc) >= 3 and loc[2] in TuneRow.model_fields:
            at["inputs"] = [loc[2]]
    shown = "tune" if field == "space" else field
    if first["type"] == "value_error":  # the command line's own words, which say what was given
        return Refused(f"{where}: {first['msg'].removeprefix('Value error, ')}", shown, at)
    got = repr(first.get("input"))
    got = got if len(got) <= 60 else got[:57] + "..."
    what = first["msg"]
    return Refused(f"{where}: {what[0].lower()}{what[1:]}, got {got}", shown, at)


def _kind(data: Any) -> str:
    return {type(None): "nothing", list: "a list", str: "a string", bool: "true or false"}.get(
        type(data), "a number")


#: each POST route's body, for the routes' schema and the fuzz test
BODIES: dict[str, type[Body]] = {"/drafts": OpenDraft, "/edit": Edit, "/run": RunAsk, "/compare": RunAsk,
                                 "/values": RunAsk, "/tune": TuneAsk, "/explore": ExploreAsk, "/apply": Apply,
                                 "/skills": SkillsAsk}


def schemas() -> dict[str, dict[str, Any]]:
    """Each POST route's body as a JSON schema."""
    return {route: model.model_json_schema() for route, model in BODIES.items()}
