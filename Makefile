# Two entry points (see README): `make demo` and `make test`. Both set everything up first.
# The virtual environment is project-local (.venv) and installed from the frozen lock file.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-all lint ui bench screenshots clean

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip==24.3.1"
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(BIN)/eval-pipeline demo

test: setup
	$(BIN)/python -m pytest -m "not slow and not browser"

test-all: setup
	$(BIN)/python -m pytest -m "" 

lint: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

ui: setup
	DAGSTER_HOME=$${EVAL_PIPELINE_HOME:-$$PWD/.eval_pipeline}/dagster $(BIN)/eval-pipeline ui

bench: setup
	$(BIN)/eval-pipeline bench ingest
	$(BIN)/eval-pipeline bench score
	$(BIN)/eval-pipeline bench gate

screenshots: setup
	$(BIN)/python -m pytest -m browser eval_pipeline_tests/defs/test_ui_browser.py

clean:
	rm -rf $(VENV) .eval_pipeline
