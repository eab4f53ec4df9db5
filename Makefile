# Two commands a newcomer needs: `make run` and `make test`. Each creates .venv first if missing.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
WORKDIR ?= workdir
# Self-improvement rounds after the graph (0: off; each round trains and scores again, minutes more).
ROUNDS ?= 0

.PHONY: setup run test lint ui sandbox-tool browser-tool

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first: the CPU wheel on disk. A plain `torch` would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[test,deploy]"
	touch $(STAMP)

# Untrusted workspace code only runs inside bubblewrap (docs/verification.md). Installed through
# apt when running as root; otherwise a clear message (or the loudly named opt-out) is needed.
sandbox-tool:
	@command -v bwrap >/dev/null || [ "$$TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX" = 1 ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing bubblewrap (the sandbox for untrusted code) ..." >&2; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "bubblewrap (bwrap) is required to sandbox untrusted code: run 'sudo apt-get install bubblewrap'" >&2; \
	    echo "(or set TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX=1 to run workspace code UNCONFINED)" >&2; exit 1; \
	  fi; }
	@command -v git >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing git (replay and the differential check run in a git checkout) ..." >&2; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git >/dev/null; \
	  else \
	    echo "git is required: replay and the differential check run in a git checkout: run 'sudo apt-get install git'" >&2; \
	    exit 1; \
	  fi; }

# The UI tests drive headless Chromium (Debian's package; Playwright's own browser download
# needs a network this project does not assume). Installed through apt when running as root.
browser-tool:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium (headless browser for the UI tests) ..." >&2; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is required by the UI tests (tests/dagster/test_dagster_browser.py): run 'sudo apt-get install chromium'" >&2; \
	    exit 1; \
	  fi; }

setup: $(STAMP) sandbox-tool

run: $(STAMP) sandbox-tool
	$(VENV)/bin/trajectory-platform run --workdir $(WORKDIR) --rounds $(ROUNDS)

# Lint, types (the domain packages, strict) and the suite: what CI runs on a fresh clone.
test: $(STAMP) sandbox-tool browser-tool lint
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -p no:cacheprovider

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The instance lives in the workdir: copy the project's dagster.yaml there, and point the code
# location at the same workdir so the UI shows (and writes) the data `make run` produced.
ui: $(STAMP) sandbox-tool
	mkdir -p $(WORKDIR)/dagster_home && cp dagster.yaml $(WORKDIR)/dagster_home/dagster.yaml
	TRAJECTORY_PLATFORM_WORKDIR=$(abspath $(WORKDIR)) DAGSTER_HOME=$(abspath $(WORKDIR))/dagster_home \
		$(VENV)/bin/dagster dev -h 127.0.0.1 -p 3000 -m trajectory_platform.definitions
