"""docs/findings.md was measured by the current agents on the current configs: its identity block (written by
`make findings`, scripts/findings.py) equals what scripts/findings_identity.py computes now, so a
retrained model, a new default parameter (the expert's `settle`) or a change of how an agent plays makes
this test fail with "run `make findings`" instead of leaving stale figures on the page."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # the page's own tools: scripts/findings*.py

from findings_identity import agent_identity, read_block, render_block, stale  # noqa: E402

PAGE = ROOT / "docs" / "findings.md"


def _script():
    """scripts/findings.py as a module: the steps the page is made with and their identities."""
    import findings

    return findings


@pytest.fixture(scope="module")
def recorded() -> dict:
    block = read_block(PAGE.read_text())
    assert block is not None, "docs/findings.md has no identity block: run `make findings`"
    return block


def test_the_page_records_every_agent_and_config_the_script_uses(recorded: dict) -> None:
    current = _script().identity_block(_script().steps())
    assert set(recorded["agents"]) == set(current["agents"]), \
        "the page's agents are not scripts/findings.py's: run `make findings`"
    assert set(recorded["configs"]) == set(current["configs"]), \
        "the page's configs are not scripts/findings.py's: run `make findings`"


def test_the_page_was_made_by_the_current_agents_and_configs() -> None:
    script = _script()
    message = stale(PAGE.read_text(), script.identity_block(script.steps()))
    if message:
        pytest.fail(message)


def _page_with(block: dict) -> str:
    return "# Findings\n\nSeat 2 wins 28.0%.\n\n" + render_block(block) + "\n"


def test_a_changed_model_hash_makes_the_page_stale(recorded: dict) -> None:
    old = copy.deepcopy(recorded)
    old["agents"]["kamakura 3p expert"]["model_sha256"] = "0" * 64
    message = stale(_page_with(old), recorded)
    assert message is not None and "run `make findings`" in message
    assert "kamakura 3p expert: model_sha256" in message
    assert stale(_page_with(recorded), recorded) is None  # the same block: nothing to say


def test_a_new_default_parameter_makes_the_page_stale(recorded: dict) -> None:
    """The expert before `settle` existed: its resolved spec lacked the parameter."""
    old = copy.deepcopy(recorded)
    entry = old["agents"]["kamakura 3p expert"]
    entry["resolved"] = entry["resolved"].replace("settle=0.5,", "")
    message = stale(_page_with(old), recorded)
    assert message is not None and "kamakura 3p expert: resolved" in message and "make findings" in message


def test_a_changed_config_or_agent_list_makes_the_page_stale(recorded: dict) -> None:
    old = copy.deepcopy(recorded)
    old["configs"]["configs/kamakura/base.toml"] = "ffffffffffffffff"
    del old["agents"]["kamakura 4p greedy"]
    message = stale(_page_with(old), recorded)
    assert "configs: configs/kamakura/base.toml was 'ffffffffffffffff'" in message
    assert "agents: kamakura 4p greedy is used but not recorded" in message


def test_a_page_without_a_block_is_stale(recorded: dict) -> None:
    assert "no identity block" in stale("# Findings\n\nSeat 2 wins 28.0%.\n", recorded)
    assert read_block("<!-- identity: x\nnot json\n-->") is None


def test_the_identity_follows_the_agent() -> None:
    """Another parameter value, or another model file, is another identity (and no games are hashed
    under the default's name)."""
    base = agent_identity("kamakura", 3, "expert")
    settled = agent_identity("kamakura", 3, "expert:settle=0")
    assert settled["resolved"] != base["resolved"] and "settle=0.0" in settled["resolved"]
    assert json.dumps(base) != json.dumps(settled)


def test_the_pages_demo_commands_are_make_demos() -> None:
    """The page quotes `make demo`'s verdicts: each of its demo steps is a command of the Makefile's demo
    target (the same arguments; the Makefile adds only --out and --quiet)."""
    makefile = (ROOT / "Makefile").read_text()
    demo = makefile[makefile.index("\ndemo:"):makefile.index("\ntest:")]
    for step in _script().steps():
        if step.name.startswith("demo-"):
            assert f"$(BIN)/{step.shown()} " in demo, f"{step.shown()} is not make demo's"
