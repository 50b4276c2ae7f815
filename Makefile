# Two commands for a fresh machine: `make demo` and `make test`.
# Each creates the virtual environment and installs ubreg into it when missing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ubreg-installed
DEMO_STAMP := $(VENV)/.ubreg-demo-installed
DOCS_STAMP := $(VENV)/.ubreg-docs-installed

.PHONY: demo test test-fast lint bench bench-smoke reports-html docs clean

$(STAMP): setup.cfg setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	$(BIN)/python -m ubreg precompile
	touch $(STAMP)

# the documentation tools (the docs extra), in the same .venv
$(DOCS_STAMP): setup.cfg setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

# the demo needs ubreg and its dependencies only (no test or lint extras)
$(DEMO_STAMP): setup.cfg setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m ubreg precompile
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/ubreg demo

# on every core (pytest-xdist: one worker process per core); the tests that time
# themselves or send signals share one worker (their xdist_group "timing").
# PYTHONDONTWRITEBYTECODE is emptied (an empty value is unset) for the tests: with it,
# every worker and every interpreter a test starts compiles ubreg and rewrites the test
# modules' asserts again (collection 20 s -> 10 s a worker; __pycache__ is ignored by git)
XDIST := -n auto --dist loadgroup

test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q $(XDIST)

# everything but the tests marked slow (a cluster, a browser, whole reports, simulations)
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q $(XDIST) -m "not slow"

# ruff on the package, the tests and the benchmarks (ruff.toml); mypy on the package
# (setup.cfg's [mypy]: check_untyped_defs; the public API's modules fully annotated)
lint: $(STAMP)
	$(BIN)/ruff check ubreg tests benchmarks
	$(BIN)/mypy ubreg

# every benchmark at full size (tens of minutes; a quiet machine): figures printed and
# written to benchmarks/results/<name>.json; bench_peers.py's peers (LightGBM, XGBoost,
# glum: the bench extra) are installed first (bench-smoke reports them "not installed")
bench: $(STAMP)
	$(BIN)/python benchmarks/bench_uls.py --n 1000000
	$(BIN)/python benchmarks/bench_udt.py --n 1000000 --depths 8,none --criteria gini,entropy,matsushita
	$(BIN)/python benchmarks/bench_boost.py --skip-gbc
	$(BIN)/python benchmarks/bench_boost.py --families --tempered-t -1 0.25 0.75 0.9 0.995 1.005 1.5 --repeats 5
	$(BIN)/python benchmarks/bench_gnnb.py
	$(BIN)/python benchmarks/bench_online.py
	$(BIN)/python benchmarks/bench_dask.py --method uls,udt,uboost
	$(BIN)/python benchmarks/bench_import.py
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_peers.py

bench-smoke: $(STAMP)
	$(BIN)/python benchmarks/bench_uls.py --smoke
	$(BIN)/python benchmarks/bench_udt.py --smoke
	$(BIN)/python benchmarks/bench_boost.py --smoke
	$(BIN)/python benchmarks/bench_boost.py --smoke --families --tempered-t -1 1.005 1.5
	$(BIN)/python benchmarks/bench_gnnb.py --smoke
	$(BIN)/python benchmarks/bench_online.py --smoke
	$(BIN)/python benchmarks/bench_dask.py --smoke
	$(BIN)/python benchmarks/bench_multiclass.py --smoke
	$(BIN)/python benchmarks/bench_import.py --smoke
	$(BIN)/python benchmarks/bench_peers.py --smoke

# the replication reports as HTML pages, from their stored .md/.csv (nothing is re-run)
reports-html: $(STAMP)
	$(BIN)/python reports/render_html.py

# the documentation site, docs/_build/html/index.html: Sphinx with every warning an error;
# runs the vignettes (docs/_ext/ubreg_docs.py)
docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) build *.egg-info
