# Kakurega: `make run` sets everything up and starts the app; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed-requirements
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: run test bench install lint migrate clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "Kakurega needs Python 3.11 or newer; set PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)

# Reinstall only when requirements.txt changed, so a second `make run` starts in seconds.
$(INSTALLED): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

install: $(INSTALLED)

migrate: install
	$(BIN)/python manage.py bootstrap

# With REDIS_URL set (a shared Redis) only web and worker start; otherwise the embedded redis-server too.
run: migrate
	@echo "Kakurega: http://127.0.0.1:$(PORT)/  (Ctrl-C stops web, worker$(if $(REDIS_URL),, and the embedded Redis))"
	PATH="$(CURDIR)/$(BIN):$$PATH" KAKUREGA_PORT=$(PORT) exec $(BIN)/honcho -f Procfile.local start $(if $(REDIS_URL),web worker,)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

lint: install
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) var
