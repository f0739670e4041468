# `make test` works on a fresh machine: it creates .venv, installs the pinned CPU torch
# first (so no dependency can pull a multi-GB CUDA build), then the package with its
# train and dev extras, then runs ruff and the test suite.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed

.PHONY: install test lint bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(TORCH)
	$(PY) -m pip install -q -e '.[train,dev]' $(TORCH)
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(PY) -m pytest -q -n 2 tests

bench: $(STAMP)
	$(PY) benchmarks/env_throughput.py

clean:
	rm -rf $(VENV) build dist *.egg-info
