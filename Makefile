# Two entry points (see README): `make demo` and `make test`. Both set everything up first.
# The virtual environment is project-local (.venv) and installed from the frozen lock file.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system-deps side-venvs phoenix-venv nat-venv demo test test-slow test-all lint ui bench screenshots clean

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip==24.3.1"
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium, for the UI test that drives the Dagster webserver in a real browser.
system-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "note: chromium not installed (not root): the browser test will be skipped"; fi; }

# The real back ends the tests run (Phoenix server, NeMo Agent Toolkit), each in a venv of its own
# from its own frozen lock, so their pins never touch .venv. Rebuilt only when the lock changes.
.venv-%/.installed: requirements-%.lock
	test -x .venv-$*/bin/python || $(PY) -m venv .venv-$*
	.venv-$*/bin/python -m pip install -q -r $<
	sha256sum $< | cut -d' ' -f1 | tr -d '\n' > $@

phoenix-venv: .venv-phoenix/.installed
nat-venv: .venv-nat/.installed
side-venvs: phoenix-venv nat-venv

demo: setup
	$(BIN)/eval-pipeline demo

test: setup system-deps side-venvs
	$(BIN)/python -m pytest -n 2

test-slow: setup
	$(BIN)/python -m pytest -q -m slow -n 2

test-all: setup
	$(BIN)/python -m pytest -m "" 

lint: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

ui: setup
	DAGSTER_HOME=$${EVAL_PIPELINE_HOME:-$$PWD/.eval_pipeline}/dagster $(BIN)/eval-pipeline ui

bench: setup
	$(BIN)/python -m benchmarks ingest
	$(BIN)/python -m benchmarks score
	$(BIN)/python -m benchmarks gate
	$(BIN)/python -m benchmarks redact
	$(BIN)/python -m benchmarks serve

screenshots: setup system-deps
	EVAL_PIPELINE_SAVE_SCREENSHOTS=1 $(BIN)/python -m pytest eval_pipeline_tests/defs/test_ui_browser.py \
	  eval_pipeline_tests/report/test_report_browser.py

clean:
	rm -rf $(VENV) .venv-phoenix .venv-nat .eval_pipeline
