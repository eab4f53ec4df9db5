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
	$(VENV)/bin/ruff format --check .

# The instance lives in the workdir: copy the project's dagster.yaml there, and point the code
# location at the same workdir so the UI shows (and writes) the data `make run` produced.
ui: $(STAMP)
	mkdir -p $(WORKDIR)/dagster_home && cp dagster.yaml $(WORKDIR)/dagster_home/dagster.yaml
	TRAJECTORY_PLATFORM_WORKDIR=$(abspath $(WORKDIR)) DAGSTER_HOME=$(abspath $(WORKDIR))/dagster_home \
		$(VENV)/bin/dagster dev -h 127.0.0.1 -p 3000 -m trajectory_platform.definitions
