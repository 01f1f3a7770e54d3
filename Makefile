# The README's two commands are `make demo` and `make test`; both set up .venv on their own.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench bots clean browser

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

bots:
	$(MAKE) -s -C bots/c

# The report's browser test needs Debian's chromium; install it when we can (root with apt), otherwise
# the test skips itself and says why.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "note: chromium not installed; the browser test will be skipped"; }

demo: $(STAMP) bots
	$(VENV)/bin/arena run tournaments/demo.yaml

test: $(STAMP) bots browser
	$(PY) -m pytest -q

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

clean:
	rm -rf $(VENV) reports/*/ .pytest_cache
