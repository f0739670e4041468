# `make test` works on a fresh machine: it creates .venv, installs the pinned CPU torch
# first (so no dependency can pull a multi-GB CUDA build), then the package with its
# train, dev, web and onnx extras, then runs ruff, import-linter, the docs build and the test suite.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed
VENV_EXTRAS := train,dev,web,onnx
BENCH_VENV := .bench-venv

.PHONY: install test lint bench train clean

# A venv $(1) with the package and its extras $(2): the CPU torch first, and pinned again beside
# the extras, so that no dependency swaps it (.venv, .rllib-venv and .interop-venv are made this way).
define venv_with_extras
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install -q --upgrade pip "setuptools>=77" wheel
	$(1)/bin/python -m pip install -q $(TORCH)
	$(1)/bin/python -m pip install -q -e '.[$(2)]' $(TORCH)
	touch $(1)/.installed
endef

$(STAMP): pyproject.toml Makefile
	$(call venv_with_extras,$(VENV),$(VENV_EXTRAS))

install: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# make test: ruff, the import contracts (layers, no cycles, ray only in learning.rllib, nothing
# imports benchmarks/; read from the source folders laid out as the installed package beside
# benchmarks/, build/imports), the docs site
# built strictly, then the test suite (which also runs every code block of the docs).
test: $(STAMP) lint
	mkdir -p build/imports/braincards
	for d in envs training checkpoints; do ln -sfn $(CURDIR)/$$d build/imports/braincards/$$d; done
	ln -sfn $(CURDIR)/benchmarks build/imports/benchmarks
	PYTHONPATH=build/imports $(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -q -d build/site
	$(PY) -m pytest -q -n 2 tests

# The browser tests (tests/serve) drive Debian's chromium through Playwright (Playwright's own
# browser download is not used). `make test` never installs anything outside .venv: without
# chromium it skips the browser tests, saying so in one line. `make chromium` installs it with
# apt (as root), printing first the packages it will add (no recommended extras).
.PHONY: chromium
chromium:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium is installed: $$(command -v chromium)"; \
	elif [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
		echo "make chromium installs Debian's chromium with apt-get as root: run 'sudo make chromium'" \
			"or 'sudo apt-get install --no-install-recommends chromium'"; exit 1; \
	else \
		apt-get update -q >/dev/null || exit 1; \
		pkgs=$$(apt-get install -s -q --no-install-recommends chromium | awk '/^Inst /{print $$2}'); \
		echo "make chromium: apt-get will install $$(echo $$pkgs | wc -w) packages for the browser" \
			"tests:" $$pkgs; \
		apt-get install -y -q --no-install-recommends chromium; \
	fi

# The main job: Oh My Brain, 2 players, PPO from a fresh network against a pool of the heuristic,
# random play and its own snapshots (the shipped oh_my_brain/ppo_2p's recipe, about 2 minutes on
# 2 idle cores). It prints the learner where PPO started, at its best and at its end beside the
# heuristic, what PPO changed, and the recipe's documented range over seeds. Output in
# runs/<config>-seed0/. TRAIN_CONFIG=the_brain/train_3p_quick is the documented second step:
# The Brain's 3-player team cloned from greedy, then PPO (about 4.5 minutes).
TRAIN_CONFIG ?= configs/oh_my_brain/train_2p.yaml
train: $(STAMP)
	$(VENV)/bin/braincards train $(TRAIN_CONFIG) --out runs/$(basename $(notdir $(TRAIN_CONFIG)))-seed0 --eval-workers 2

# The throughput benchmark compares with PettingZoo's own classic games, which need
# pettingzoo[classic]: it lives in a separate venv, never in the package's dependencies.
$(BENCH_VENV)/.installed: pyproject.toml Makefile
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install -q -e . "pettingzoo[classic]"
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/env_throughput.py

# Ray RLlib scale-out (issue 10): ray[rllib] pins one gymnasium version, so it lives in its
# own venv and `make test` never installs it. Same order as above: the CPU torch first.
RLLIB_VENV := .rllib-venv
RLLIB_EXTRAS := rllib,train,dev

.PHONY: test-rllib

$(RLLIB_VENV)/.installed: pyproject.toml Makefile
	$(call venv_with_extras,$(RLLIB_VENV),$(RLLIB_EXTRAS))

test-rllib: $(RLLIB_VENV)/.installed
	$(RLLIB_VENV)/bin/python -m pytest -q --durations=5 tests/rllib

# The envs inside other libraries (TorchRL, Tianshou, OpenSpiel; docs/interop/): the interop extra
# in its own venv, so the core install stays light. Same order: the CPU torch first, and torch
# pinned again beside the extra so no library swaps it.
INTEROP_VENV := .interop-venv
INTEROP_EXTRAS := interop,train,dev

.PHONY: test-interop

$(INTEROP_VENV)/.installed: pyproject.toml Makefile
	$(call venv_with_extras,$(INTEROP_VENV),$(INTEROP_EXTRAS))

test-interop: $(INTEROP_VENV)/.installed
	$(INTEROP_VENV)/bin/python -m pytest -q --durations=5 -n 2 tests/interop

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(RLLIB_VENV) $(INTEROP_VENV) build dist *.egg-info
