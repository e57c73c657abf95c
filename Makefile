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
	$(BIN)/balance study configs/kamakura/base.toml --players 3 --games 10000 --agents random --seed 1
	$(BIN)/balance study configs/kamakura/base.toml --players 3 --games 10000 --agents greedy --seed 1
	$(BIN)/balance study configs/sakura/base.toml --players 4 --games 20000 --agents random --seed 1
	$(BIN)/balance study configs/sakura/base.toml --players 4 --games 10000 --agents greedy --seed 1

test: $(STAMP)
	$(BIN)/ruff check sim analysis tests
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balance bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
