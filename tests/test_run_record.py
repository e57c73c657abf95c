"""The run's manifest is one typed record (storage/run_record.py): read and written only by storage, read by
field everywhere else, and written back byte for byte as the toolkit has always written it.

The manifests in tests/data/manifests/ were written by the toolkit before the record existed (`balance
simulate` and `balance values`, a run marked as played until decided and extended, and a manifest of an
older version with its optional keys removed and a key this version does not know)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.errors import ConfigError
from storage.run_dir import RunDirectory, check_directory, load_manifest
from storage.run_parts import RECORDS, ChunkRecord
from storage.run_record import IDENTITY, KEYS, WRITTEN, RunManifest

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = Path(__file__).parent / "data" / "manifests"
#: what is searched for reads of a manifest by key: everything outside storage/
SEARCHED = ("sim", "analysis", "scripts")
#: keys only a run's manifest has: a read of one by key is a read of a manifest, whatever it is called
MANIFEST_ONLY_KEYS = {"config_hash", "resolved_agents", "rotate_seats", "games_asked", "games_finished",
                      "wall_time_s", "stopped_adaptively"}
#: JSON documents of the design studies that their code calls a manifest and reads by key, none of them a
#: run's manifest: (file, the expression that holds one) -> the document
STUDY_DOCUMENTS = {
    ("analysis/sweep_report.py", "manifest"): "sweep.json",
    ("analysis/ladder_report.py", "manifest"): "ladder.json",
    ("sim/design/ladder.py", "manifest"): "ladder.json",
    ("analysis/skill.py", "manifest"): "profile.json",
    ("analysis/skill.py", "profile.manifest"): "profile.json",
    ("sim/design/sheet.py", "manifest"): "sheet.json",
}
#: reads of a manifest-only key's name that are something else's: (file, key) -> whose
OTHER_KEYS = {("sim/core/expert_model.py", "config_hash"): "an expert model file's own metadata"}
_MANIFEST_NAME = re.compile(r"manifest", re.IGNORECASE)
#: the calls that return a run's manifest
READERS = {"load_manifest", "read_manifest", "checked_manifest"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _names_a_manifest(node: ast.expr) -> bool:
    """A name or attribute that says it is a manifest (`manifest`, `run.manifest`), or a call of a reader
    of one (`read_manifest()`)."""
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", getattr(node.func, "attr", None)) in READERS
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(_MANIFEST_NAME.search(name))


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a module or function, without those of the functions inside it."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo += ast.iter_child_nodes(node)
    return out


def _aliases(nodes: list[ast.AST], where: str) -> set[str]:
    """Names bound to a manifest in a scope (`m = run.manifest`, `m, est = run.manifest, ...`), not to a
    study's document."""
    out = set()
    for node in nodes:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = zip(target.elts, node.value.elts, strict=False) if isinstance(target, ast.Tuple) \
                and isinstance(node.value, ast.Tuple) else [(target, node.value)]
            for name, value in pairs:
                if isinstance(name, ast.Name) and _names_a_manifest(value) \
                        and (where, ast.unparse(value)) not in STUDY_DOCUMENTS:
                    out.add(name.id)
    return out


def _read_by_key(node: ast.AST, where: str, aliases: set[str]) -> bool:
    """Whether `node` reads a manifest by key (`key_reads`)."""
    holder = None
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        if node.slice.value in MANIFEST_ONLY_KEYS and (where, node.slice.value) not in OTHER_KEYS:
            return True
        holder = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        holder = node.func.value
    elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("json.loads", "json.load"):
        return "manifest" in ast.unparse(node)
    if holder is None or (where, ast.unparse(holder)) in STUDY_DOCUMENTS:
        return False
    return _names_a_manifest(holder) or (isinstance(holder, ast.Name) and holder.id in aliases)


def key_reads(source: str, where: str) -> list[str]:
    """Every read of a run's manifest by key in `source` (file `where`): a subscript by a string or a
    `.get()` of something named a manifest or bound to one in the same function, a subscript by a key only
    a manifest has, and manifest.json parsed as raw JSON. Each as "file:line source"."""
    tree = ast.parse(source)
    found = set()
    for scope in [tree, *(node for node in ast.walk(tree) if isinstance(node, _SCOPES))]:
        nodes = _own_nodes(scope)
        aliases = _aliases(nodes, where)
        found |= {node.lineno for node in nodes if _read_by_key(node, where, aliases)}
    lines = source.splitlines()
    return [f"{where}:{n} {lines[n - 1].strip()}" for n in sorted(found)]


def manifest_key_reads(root: Path = ROOT) -> list[str]:
    out = []
    for package in SEARCHED:
        for path in sorted((root / package).rglob("*.py")):
            out += key_reads(path.read_text(), str(path.relative_to(root)))
    return out


def test_no_manifest_is_read_by_key_outside_storage() -> None:
    """Readers outside storage/ use the record's fields (`manifest.players`), never keys
    (`manifest["players"]`, `manifest.get("seed")`), and never parse manifest.json themselves."""
    assert manifest_key_reads() == []


def test_every_exemption_is_still_needed() -> None:
    """Each study document and other key the search leaves alone is still read where it is listed."""
    for where, holder in STUDY_DOCUMENTS:
        source = (ROOT / where).read_text()
        assert f"{holder}[" in source or f"{holder}.get(" in source, (where, holder)
    for where, key in OTHER_KEYS:
        assert f'["{key}"]' in (ROOT / where).read_text(), (where, key)


def test_the_search_finds_what_it_looks_for() -> None:
    source = '''
m = run.manifest
a = m["game"]
b = run.manifest.get("seed")
c = summary["games_finished"]
d = json.loads((folder / "manifest.json").read_text())["components"]
e = load_manifest(path)["players"]
manifest = read_sweep_manifest(folder)
f = manifest["variants"]
g = run.manifest.players
h = record["stopped_adaptively"] = True
i = read_sweep_manifest(folder)["game"]
def other_scope(m):
    return m["mean"]
'''
    found = [line.split(" ", 1)[0] for line in key_reads(source, "analysis/sweep_report.py")]
    assert found == [f"analysis/sweep_report.py:{n}" for n in (3, 4, 5, 6, 7)]
    assert len(key_reads(source, "analysis/other.py")) == 6  # not a sweep's module: line 9 counts too


# ---- the record against the files --------------------------------------------------------------------
def _written(manifest: RunManifest, tmp_path: Path) -> bytes:
    tmp_path.mkdir(parents=True, exist_ok=True)
    RunDirectory(tmp_path).write_manifest(manifest)
    return (tmp_path / "manifest.json").read_bytes()


@pytest.mark.parametrize("name", ["simulate", "values", "adaptive", "old"])
def test_a_manifest_read_and_written_again_is_the_same_file(name: str, tmp_path: Path) -> None:
    path = MANIFESTS / f"{name}.json"
    once = _written(load_manifest(path), tmp_path / "once")
    assert once == path.read_bytes()
    assert _written(load_manifest(tmp_path / "once" / "manifest.json"), tmp_path / "twice") == once


def test_the_fields_read_what_the_files_hold() -> None:
    simulate, values, adaptive = (load_manifest(MANIFESTS / f"{n}.json") for n in ("simulate", "values",
                                                                                    "adaptive"))
    assert simulate.game == "kamakura" and simulate.players == 3 and simulate.agents == ("greedy", "random",
                                                                                         "random")
    assert simulate.study == "simulate" and simulate.positions is None and simulate.components is None
    assert not simulate.stopped_adaptively and simulate.games_finished == simulate.games_asked
    assert values.study == "values" and values.positions and values.components
    assert isinstance(values.components[0], dict)
    assert adaptive.stopped_adaptively and len(adaptive.sessions) == 2
    assert isinstance(simulate.sessions[0]["games_played"], int)


def test_an_old_manifest_lacking_keys_loads_with_their_defaults(tmp_path: Path) -> None:
    old = load_manifest(MANIFESTS / "old.json")
    assert (old.rotate_seats, old.config_hash, old.study, old.games_asked, old.games_finished) == \
        (False, None, "simulate", 0, 0)
    assert (old.sessions, old.wall_time_s, old.resolved_agents, old.positions, old.components) == \
        ((), 0.0, None, None, None)
    assert not old.stopped_adaptively and old.created is None and old.package_versions is None
    assert old.others == {"format": 1}  # a key this version does not know is kept as read
    # its identity is what the absence of a key has always meant: the study simulate, no positions, and
    # None for the others (so a run asked with seats not rotated is another run)
    assert old.identity() == {"game": "kamakura", "config_hash": None, "players": 3,
                              "agents": ["greedy", "random", "random"], "rotate_seats": None, "seed": 3,
                              "study": "simulate", "positions": None}
    # a key set by a writer is written, even at its default value
    grown = old.updated(games_finished=0, stopped_adaptively=True)
    assert {"games_finished", "stopped_adaptively"} <= set(json.loads(_written(grown, tmp_path)))


def test_a_new_record_writes_what_a_new_run_always_wrote() -> None:
    new = RunManifest(game="g", players=2, config={}, agents=["a", "b"], seed=1)
    assert new.agents == ("a", "b")  # a list given is held as a tuple
    assert set(new.to_json()) == WRITTEN
    assert WRITTEN | {"positions", "components", "stopped_adaptively", "looks", "models"} == set(KEYS)
    values = new.updated(positions=[0, 9], components=[{"component": "x"}], study="values")
    assert set(values.to_json()) == WRITTEN | {"positions", "components"}
    assert values.to_json()["positions"] == [0, 9]


def test_identity_is_compared_through_the_record(tmp_path: Path) -> None:
    """check_directory's refusals, key by key, as they have always read."""
    run = RunDirectory(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    on_disk = load_manifest(MANIFESTS / "simulate.json")
    run.write_manifest(on_disk)
    asked = RunManifest(**{key: getattr(on_disk, key) for key in (*IDENTITY, "config", "resolved_agents")})
    assert check_directory(run, asked, force=False) == on_disk
    with pytest.raises(ConfigError, match=r"made by a different run \(seed: run has 3, asked 4; "
                                          r"resolved_agents: run has \['greedy', 'random', 'random'\], "
                                          r"asked \['greedy', 'greedy', 'random'\]\)"):
        check_directory(run, asked.updated(seed=4, resolved_agents=["greedy", "greedy", "random"]), False)
    old = load_manifest(MANIFESTS / "old.json")  # without resolved agents: its agent strings must do
    run.write_manifest(old)
    assert old.differences(asked.updated(config_hash=None)) == {"rotate_seats": (None, False)}


# ---- any record -------------------------------------------------------------------------------------------
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                     | st.floats(allow_nan=False, allow_infinity=False),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=3), max_leaves=8)
_COUNT = st.integers(0, 10**12)
_OPTIONAL = {
    "rotate_seats": st.booleans(), "config_hash": st.text(max_size=16), "study": st.sampled_from(
        ["simulate", "values"]), "games_asked": _COUNT, "games_finished": _COUNT,
    "sessions": st.lists(st.dictionaries(st.text(max_size=8), _JSON, max_size=4), max_size=3),
    "wall_time_s": _COUNT | st.floats(0, 1e9), "resolved_agents": st.lists(st.text(max_size=12), max_size=4),
    "positions": st.none() | st.lists(st.integers(0, 60), max_size=4),
    "components": st.lists(st.dictionaries(st.text(max_size=8), _JSON, max_size=3), max_size=3),
    "stopped_adaptively": st.booleans(), "config_path": st.text(max_size=20),
    "created": st.floats(0, 2e9), "package_versions": st.dictionaries(st.text(max_size=8),
                                                                        st.text(max_size=8), max_size=3)}


@st.composite
def manifests(draw: st.DrawFn) -> dict:
    """A manifest's JSON object as the toolkit accepts it: the required keys, any of the optional ones,
    and keys no version knows."""
    players = draw(st.integers(1, 6))
    found = {"game": draw(st.text(min_size=1, max_size=10)), "players": players,
             "config": draw(st.dictionaries(st.text(max_size=8), _JSON, max_size=4)),
             "agents": draw(st.lists(st.text(max_size=10), min_size=players, max_size=players)),
             "seed": draw(st.integers(-(2**63), 2**63))}
    for key in draw(st.sets(st.sampled_from(sorted(_OPTIONAL)))):
        found[key] = draw(_OPTIONAL[key])
    unknown = st.text(max_size=10).filter(lambda k: k not in KEYS)
    return {**draw(st.dictionaries(unknown, _JSON, max_size=3)), **found}


@settings(deadline=None, max_examples=200)
@given(data=manifests())
def test_any_manifest_is_written_back_as_read(data: dict) -> None:
    record = RunManifest.from_json(data, Path("manifest.json"))
    text = json.dumps(record.to_json(), indent=2, sort_keys=True)
    assert text == json.dumps(data, indent=2, sort_keys=True)
    again = RunManifest.from_json(json.loads(json.dumps(record.to_json())), Path("manifest.json"))
    assert again == record


@settings(deadline=None, max_examples=100)
@given(data=manifests(), changes=st.fixed_dictionaries({}, optional={
    "games_finished": _COUNT, "stopped_adaptively": st.booleans(), "positions": _OPTIONAL["positions"],
    "sessions": _OPTIONAL["sessions"]}))
def test_an_updated_record_writes_its_changes(data: dict, changes: dict) -> None:
    record = RunManifest.from_json(data, Path("manifest.json")).updated(**changes)
    written = json.loads(json.dumps(record.to_json()))
    assert written == {**data, **changes}
    assert RunManifest.from_json(written, Path("manifest.json")).to_json() == record.to_json()


def test_the_chunk_record_is_typed_and_read_in_storage_only() -> None:
    """chunks.jsonl is read and written as `ChunkRecord`s by storage alone: a record survives its line, a
    line that is not one is refused, and no module above storage opens the file by its name."""
    record = ChunkRecord(0, 500, {"games": 500, "seats": 1500})
    assert ChunkRecord.parse(record.line()) == record
    for bad in ('{"start": 5, "end": 5, "rows": {"games": 0}}', '{"start": 0, "end": 5}', "[1, 2]",
                '{"start": 0, "end": 5, "rows": {"games": -1}}'):
        with pytest.raises(ValueError):
            ChunkRecord.parse(bad)
    root = Path(__file__).resolve().parents[1]
    naming = [str(path.relative_to(root)) for package in ("sim", "analysis")
              for path in (root / package).rglob("*.py")
              for node in ast.walk(ast.parse(path.read_text()))
              if isinstance(node, ast.Constant) and node.value == RECORDS]
    assert naming == []  # (a message may mention it in a sentence; no code opens it by name)


@pytest.mark.parametrize("looks", [["1000"], [0], [True], "1000"])
def test_looks_that_are_not_game_counts_are_refused_by_key(looks: object, tmp_path: Path) -> None:
    """A manifest's looks (the games in hand at each look of --until-decided) are whole numbers above 0."""
    data = {"game": "kamakura", "players": 2, "config": {}, "agents": ["a", "b"], "seed": 1, "looks": looks}
    with pytest.raises(ConfigError, match=r"looks: "):
        RunManifest.from_json(data, tmp_path / "manifest.json")
    assert RunManifest.from_json({**data, "looks": [1000, 1500]}, tmp_path / "m.json").looks == (1000, 1500)
