"""What made a page of measured figures (docs/findings.md): the identity of each agent and config behind it,
so a test can tell when the figures no longer describe the code (tests/test_findings_identity.py).

An agent's identity is its spec with every parameter written out (`agent_spec.resolved`: defaults
included, so a new default such as the expert's `settle` changes it) and the sha256 of the model file it
plays, if any. A config's identity is a hash of its merged table (`extends` resolved; comments and layout
ignored). Nothing here plays a game: the identities come from the agent registry and the files.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: an identity block: {"agents": {"kamakura 3p expert": {...}}, "configs": {"configs/...": "hash"}}
Block = dict[str, dict[str, Any]]


def agent_key(game: str, players: int, agent: str) -> str:
    """How a block names one agent use: "kamakura 3p expert"."""
    return f"{game} {players}p {agent}"


def agent_identity(game: str, players: int, agent: str) -> dict[str, str]:
    """One agent's identity as it plays `game` with `players` seats: `resolved` (every parameter, defaults
    included) and, for an agent that plays a model file, the file's `model_sha256`."""
    from sim import games
    from sim.core import expert_model
    from sim.core.agent_spec import parse_spec, resolved

    spec = games.spec(game)
    parsed = parse_spec(agent, spec)
    out = {"resolved": resolved(parsed, spec, players)}
    if spec.agents[parsed.name].features:
        path = expert_model.model_path(str(parsed.params.get("model", "")), game, players)
        out["model_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def config_identity(path: str | os.PathLike[str]) -> str:
    """A hash of a game config's merged table (its `extends` chain resolved), or of a sweep or tune file's
    table; `path` is relative to the repository's root."""
    from sim.core.config import load_toml

    full = ROOT / path
    with open(full, "rb") as handle:
        table = tomllib.load(handle)
    if "game" in table or "extends" in table:
        table = load_toml(full)[0]
    return hashlib.sha256(json.dumps(table, sort_keys=True, default=str).encode()).hexdigest()[:16]


def identities(agents: list[tuple[str, int, str]], configs: list[str]) -> Block:
    """The identity block of a page made with these agent uses (game, players, agent) and config files."""
    return {"agents": {agent_key(*use): agent_identity(*use) for use in agents},
            "configs": {path: config_identity(path) for path in configs}}


def differences(recorded: Block, current: Block) -> list[str]:
    """What differs between a recorded block and the current one, one line per agent or config field."""
    lines = []
    for group in ("agents", "configs"):
        old, new = recorded.get(group, {}), current.get(group, {})
        for key in sorted(set(old) | set(new)):
            if key not in new:
                lines.append(f"{group}: {key} is recorded on the page but no longer used")
            elif key not in old:
                lines.append(f"{group}: {key} is used but not recorded on the page")
            elif isinstance(new[key], dict) and isinstance(old[key], dict):
                was, now = old[key], new[key]
                fields = sorted(f for f in set(was) | set(now) if was.get(f) != now.get(f))
                lines += [f"{group}: {key}: {f} was {was.get(f)!r}, now {now.get(f)!r}" for f in fields]
            elif old[key] != new[key]:
                lines.append(f"{group}: {key} was {old[key]!r}, now {new[key]!r}")
    return lines


BLOCK_START = "<!-- identity:"
BLOCK_END = "-->"


def render_block(block: Block) -> str:
    """The block as a page holds it: an HTML comment of JSON (the site does not show it)."""
    return (f"{BLOCK_START} what made these figures, written by `make findings`; "
            "tests/test_findings_identity.py compares it with the current agents and configs\n"
            f"{json.dumps(block, indent=1, sort_keys=True)}\n{BLOCK_END}")


def read_block(text: str) -> Block | None:
    """The block of a page (render_block's), or None when it has none or it is not JSON."""
    start = text.find(BLOCK_START)
    if start < 0:
        return None
    body = text[text.find("\n", start) + 1:]
    end = body.find(BLOCK_END)
    try:
        block = json.loads(body[:end]) if end >= 0 else None
    except json.JSONDecodeError:
        return None
    return block if isinstance(block, dict) else None


def stale(text: str, current: Block, page: str = "docs/findings.md") -> str | None:
    """None when the page's block equals `current`; else what differs, ending in what to do."""
    recorded = read_block(text)
    if recorded is None:
        return f"{page} has no identity block: run `make findings`"
    lines = differences(recorded, current)
    if not lines:
        return None
    return (f"{page}'s figures were made by other agents or configs than the current ones:\n  "
            + "\n  ".join(lines) + "\nrun `make findings` to measure them again")
