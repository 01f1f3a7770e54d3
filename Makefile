# The README's two commands are `make demo` and `make test`; both set up .venv on their own.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench bench-large bench-levels bots pyc clean browser sandbox langs

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,dask]'
	touch $(STAMP)

bots:
	$(MAKE) -s -C bots/c
	$(MAKE) -s -C bots/ismcts

# arena's modules byte-compiled once. Where PYTHONDONTWRITEBYTECODE is set (as on our CI machine), Python
# reads .pyc files but never writes them, so every `arena` process and every Python bot that imports arena
# would compile its modules again at start: 0.15-0.2 s of CPU each, a minute or more over the test suite.
pyc: $(STAMP)
	$(PY) -m compileall -q arena > /dev/null

# Debian packages a fresh machine may lack, installed when we can (root with apt): bubblewrap, the sandbox
# every bot runs in (without it bots run unsandboxed after a loud warning; docs/SECURITY.md), chromium
# for the report's browser test, and the runtimes of the bots in other languages (tests that need one skip
# themselves, saying why, without it).
define apt_install
	@command -v $(1) >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null) || \
	  echo "note: $(2) could not be installed; see docs/SECURITY.md and the skipped tests"; }
endef

sandbox:
	$(call apt_install,bwrap,bubblewrap)

browser:
	$(call apt_install,chromium,chromium)

# The runtimes of tests/bots/langs (tests/test_langs.py skips a language, naming it, without its runtime).
langs:
	$(call apt_install,javac,default-jdk-headless)
	$(call apt_install,tclsh,tcl)
	$(call apt_install,ruby,ruby)
	$(call apt_install,perl,perl)

demo: $(STAMP) bots pyc sandbox
	$(VENV)/bin/arena run tournaments/demo.yaml

# Style and types first: a ruff or mypy error fails `make test` before any test runs. The tests then run on
# two pytest-xdist workers, a whole file to each (a file's module-scoped server or browser is started once),
# the files with slow tests first (tests/conftest.py orders them; --no-loadscope-reorder keeps that order);
# most of a test's time is spent waiting on bots and subprocesses, so two workers keep two CPUs busy. Three
# were 10% faster on a warm tree and no faster on a fresh clone, and two of the six suites they ran failed
# where the extra contention disturbed a test (both mended; docs/PERFORMANCE.md): not kept. Tests share no
# state across files: tmp folders, ports (0), uid blocks and cgroups are per process.
# `make test PYTEST_WORKERS=` runs them in one process.
PYTEST_WORKERS ?= -n 2 --dist loadfile --no-loadscope-reorder
test: lint bots pyc sandbox browser langs
	$(PY) -m pytest -q $(PYTEST_WORKERS)

lint: $(STAMP)
	$(VENV)/bin/ruff check arena tests bench
	$(VENV)/bin/mypy arena

# The yardstick of row 1 is the PyPI package schnapsen; its own requirements (click==8.1.8, flask,
# scikit-learn) would break sqlite-utils, and its engine needs none of them: it goes into bench/out/site
# with --no-deps, outside the venv. docs/PERFORMANCE.md explains the table.
bench: $(STAMP)
	test -f bench/out/site/schnapsen/game.py || $(PY) -m pip install --quiet --disable-pip-version-check \
	  --no-deps --target bench/out/site 'schnapsen==0.0.5'
	$(MAKE) -s -C bench
	$(PY) bench/run.py
	$(PY) bench/sandbox_bench.py
	$(PY) bench/sealed_bench.py
	$(PY) bench/twins_bench.py
	$(PY) -c 'import trueskill' 2>/dev/null || $(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(PY) bench/ladder_sim.py
	$(PY) bench/ladder_pages.py

# 20 trivial C bots, 19,000 matches scheduled, as many played as fit in five minutes, then the report:
# bytes per match, render time, peak RSS, ratings time (docs/PERFORMANCE.md, "The large tournament").
bench-large: $(STAMP) sandbox
	$(MAKE) -s -C bench
	$(PY) bench/large.py

# The house levels (arena/levels.py), each against the one below: 4 x 200 matches and 40 for Level 6, one at a time,
# about an hour (too long for `make bench`); the figures go into arena/levels.py, bots/README.md, PERFORMANCE.md.
bench-levels: $(STAMP) bots
	$(PY) bench/levels_bench.py

clean:
	rm -rf $(VENV) reports/*/ .pytest_cache
