# Two commands a newcomer needs: `make run` and `make test`. Each creates .venv first if missing.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
WORKDIR ?= workdir
# Self-improvement rounds after the graph (0: off; each round trains and scores again, minutes more).
ROUNDS ?= 0
# pytest workers of `make test` (pytest-xdist): one per logical CPU; 0 runs the suite in one process
# (for a debugger, `print`, or to rule out an interaction between tests).
TEST_WORKERS ?= logical

.PHONY: setup run test lint ui sandbox-tool browser-tool

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first: the CPU wheel on disk. A plain `torch` would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[test,deploy]"
	touch $(STAMP)

# $(call apt-need,COMMAND,PACKAGE,WHAT FOR[,MORE]): the Debian package that provides COMMAND,
# installed through apt when running as root; otherwise a clear message naming the install
# command (and MORE, a further shell command writing to stderr), and the target fails.
apt-need = command -v $(1) >/dev/null || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then echo "installing $(2) ($(3)) ..." >&2; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; else echo "$(2) is required ($(3)): run 'sudo apt-get install $(2)'" >&2; $(4) exit 1; fi; }

# Untrusted workspace code only runs inside bubblewrap (docs/verification.md), and replay and
# the differential check run in a git checkout made inside it. Without bubblewrap only the loudly
# named opt-out runs.
sandbox-tool:
	@[ "$$TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX" = 1 ] || $(call apt-need,bwrap,bubblewrap,the sandbox for untrusted code,echo "(or set TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX=1 to run workspace code UNCONFINED)" >&2;)
	@$(call apt-need,git,git,replay and the differential check run in a git checkout)

# The UI tests drive headless Chromium (Debian's package; Playwright's own browser download
# needs a network this project does not assume).
browser-tool:
	@$(call apt-need,chromium,chromium,headless browser for the UI tests: tests/dagster/test_dagster_browser.py)

setup: $(STAMP) sandbox-tool

run: $(STAMP) sandbox-tool
	$(VENV)/bin/trajectory-platform run --workdir $(WORKDIR) --rounds $(ROUNDS)

# Lint, types (the domain packages, strict) and the suite: what CI runs on a fresh clone. The suite
# runs on every core (it has to fit 15 minutes on two); worksteal hands an idle worker the queued
# tests of a busy one, so a long test near the end does not leave the other core waiting.
test: $(STAMP) sandbox-tool browser-tool lint
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The instance lives in the workdir: copy the project's dagster.yaml there, and point the code
# location at the same workdir so the UI shows (and writes) the data `make run` produced.
ui: $(STAMP) sandbox-tool
	mkdir -p $(WORKDIR)/dagster_home && cp dagster.yaml $(WORKDIR)/dagster_home/dagster.yaml
	TRAJECTORY_PLATFORM_WORKDIR=$(abspath $(WORKDIR)) DAGSTER_HOME=$(abspath $(WORKDIR))/dagster_home \
		$(VENV)/bin/dagster dev -h 127.0.0.1 -p 3000 -m trajectory_platform.definitions
