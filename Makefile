# Kakurega: `make run` sets everything up and starts the app; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed-requirements
INSTALLED_DEV := $(VENV)/.installed-requirements-dev
PORT ?= 8000
PYTEST_ARGS ?=
# pytest-xdist processes for `make test`: one per physical core, at most 4 (tests/conftest.py says why);
# TEST_WORKERS=0 runs the suite in one process (a debugger, -x, reading one failure's output).
TEST_WORKERS ?= auto

.PHONY: run test bench install install-dev lint migrate clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "Kakurega needs Python 3.11 or newer; set PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a requirements file changed, so a second `make run` starts in seconds. The app runs on
# requirements.txt; the tests and linters add requirements-dev.txt.
$(INSTALLED): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

$(INSTALLED_DEV): requirements-dev.txt $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

install: $(INSTALLED)

install-dev: $(INSTALLED_DEV)

migrate: install
	$(BIN)/python manage.py bootstrap

# With REDIS_URL set (a shared Redis) only web and worker start; otherwise the embedded redis-server too.
run: migrate
	@echo "Kakurega: http://127.0.0.1:$(PORT)/  (Ctrl-C stops web, worker$(if $(REDIS_URL),, and the embedded Redis))"
	PATH="$(CURDIR)/$(BIN):$$PATH" KAKUREGA_PORT=$(PORT) exec $(BIN)/honcho -f Procfile.local start $(if $(REDIS_URL),web worker,)

test: install-dev
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=25 $(PYTEST_ARGS)

bench: install-dev
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# ruff, the architecture contracts of pyproject.toml (import-linter: docs/architecture.md), and the manual in docs/
# built strict into a throw-away folder (a broken link or anchor fails).
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	@site=$$(mktemp -d) && trap 'rm -rf "$$site"' EXIT && \
	  $(BIN)/mkdocs build --strict --quiet --site-dir "$$site" && echo "mkdocs build --strict: docs/ has no broken link"

clean:
	rm -rf $(VENV) var
