# Every target a new user needs on a fresh machine. `.venv` is built from pyproject.toml when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench docs findings clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m sim.commands.compile_kernels  # numba's cache, once: the first run does not compile
	touch $(STAMP)

# Both games at their default configs. Kamakura with 3 players as a skill profile: greedy and the strong
# `expert` agent on the same deals, side by side in the report with the section "Balance by skill"; then
# greedy runs of 4-player Kamakura and Sakura, and what each Kamakura chit kind is worth by paired
# intervention (a short run; the default is 900 base games).
DEMO_PROFILE := runs/demo-profile-kamakura-3p
DEMO_RUNS := runs/demo-kamakura-4p runs/demo-sakura-4p
DEMO_VALUES := runs/demo-values-kamakura-3p
demo: $(STAMP)
	$(BIN)/balance profile configs/kamakura/base.toml --players 3 --levels greedy,expert --games 2000 --seed 1 --out $(DEMO_PROFILE) --quiet
	$(BIN)/balance simulate configs/kamakura/base.toml --players 4 --games 20000 --agents greedy --seed 1 --out runs/demo-kamakura-4p
	$(BIN)/balance simulate configs/sakura/base.toml --players 4 --games 20000 --agents greedy --seed 1 --out runs/demo-sakura-4p
	$(BIN)/balance values configs/kamakura/base.toml --players 3 --agents greedy --games 150 --seed 1 --quiet --out $(DEMO_VALUES) > /dev/null
	$(BIN)/balance summary $(DEMO_PROFILE)/greedy $(DEMO_PROFILE)/expert $(DEMO_RUNS)
	$(BIN)/balance report $(DEMO_VALUES) $(DEMO_PROFILE) $(DEMO_RUNS) --out reports/demo
	@echo "run directories: $(DEMO_PROFILE)/greedy $(DEMO_PROFILE)/expert $(DEMO_VALUES) $(DEMO_RUNS); report: reports/demo/index.html"

test: $(STAMP)
	$(BIN)/ruff check sim analysis storage tests scripts
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balance bench

# docs/findings.md from the commands behind its figures (scripts/findings.py: a few hours of games on two
# cores; an interrupted run resumes) and the agents and configs that made them, which
# tests/test_findings_identity.py compares with the current ones. JOBS=1 leaves a core free.
JOBS ?= 2
findings: $(STAMP)
	$(BIN)/python scripts/findings.py --jobs $(JOBS)

# The documentation site (mkdocs.yml, docs/): open site/index.html; the commands page comes from the parser
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .pytest_cache build site *.egg-info
