# Every target a new user needs on a fresh machine. `.venv` is built from pyproject.toml when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

# Both games at their default configs; greedy agents (random ones say little about real play).
DEMO_RUNS := runs/demo-kamakura-3p runs/demo-kamakura-4p runs/demo-sakura-4p
# What each Kamakura chit kind is worth, by paired intervention (a short run; the default is 900 base games)
DEMO_VALUES := runs/demo-values-kamakura-3p
demo: $(STAMP)
	$(BIN)/balance simulate configs/kamakura/base.toml --players 3 --games 30000 --agents greedy --seed 1 --out runs/demo-kamakura-3p
	$(BIN)/balance simulate configs/kamakura/base.toml --players 4 --games 30000 --agents greedy --seed 1 --out runs/demo-kamakura-4p
	$(BIN)/balance simulate configs/sakura/base.toml --players 4 --games 30000 --agents greedy --seed 1 --out runs/demo-sakura-4p
	$(BIN)/balance values configs/kamakura/base.toml --players 3 --agents greedy --games 150 --seed 1 --quiet --out $(DEMO_VALUES) > /dev/null
	$(BIN)/balance summary $(DEMO_RUNS)
	$(BIN)/balance report $(DEMO_VALUES) $(DEMO_RUNS) --out reports/demo
	@echo "run directories: $(DEMO_VALUES) $(DEMO_RUNS); report: reports/demo/index.html"

test: $(STAMP)
	$(BIN)/ruff check sim analysis tests
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balance bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
