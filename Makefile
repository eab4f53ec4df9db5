# Two commands a newcomer needs: `make run` and `make test`. Each creates .venv first if missing.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
WORKDIR ?= workdir

.PHONY: setup run test lint ui

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first: the CPU wheel on disk. A plain `torch` would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/trajectory-platform run --workdir $(WORKDIR)

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider

lint: $(STAMP)
	$(VENV)/bin/ruff check .

ui: $(STAMP)
	DAGSTER_HOME=$(abspath $(WORKDIR))/dagster_home $(VENV)/bin/dagster dev -m trajectory_platform.definitions
