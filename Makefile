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

demo: $(STAMP)
	$(BIN)/balance simulate configs/kamakura/base.toml --players 3 --games 20000 --agents random --seed 1 --out runs/demo-kamakura-3p-random
	$(BIN)/balance simulate configs/kamakura/base.toml --players 3 --games 10000 --agents greedy --seed 1 --out runs/demo-kamakura-3p-greedy
	$(BIN)/balance simulate configs/sakura/base.toml --players 4 --games 20000 --agents random --seed 1 --out runs/demo-sakura-4p-random
	$(BIN)/balance simulate configs/sakura/base.toml --players 4 --games 10000 --agents greedy --seed 1 --out runs/demo-sakura-4p-greedy
	$(BIN)/balance summary runs/demo-kamakura-3p-random runs/demo-kamakura-3p-greedy runs/demo-sakura-4p-random runs/demo-sakura-4p-greedy
	@echo "run directories: runs/demo-kamakura-3p-random runs/demo-kamakura-3p-greedy runs/demo-sakura-4p-random runs/demo-sakura-4p-greedy"

test: $(STAMP)
	$(BIN)/ruff check sim analysis tests
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balance bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
