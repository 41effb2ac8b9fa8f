# The two commands of the README:
#   make bench   build, run the default sweep, write CSV + JSON + summary (.md) + PNG to results/
#   make test    Rust and Python tests (what .ci/run runs)
# Options: make bench ARGS="--quick"   make bench OUT=results/mine.csv

CARGO  ?= cargo
PYTHON ?= python3
VENV   := .venv
ARGS   ?=
OUT    := results/channel-bench-$(shell date -u +%Y%m%dT%H%M%SZ).csv

.PHONY: bench test rust-test python-test lint

bench: $(VENV)/installed
	$(CARGO) build --release --locked
	@# Plot whatever was recorded, even when some cells failed; then report the sweep's exit code.
	./target/release/channel-bench $(ARGS) --out $(OUT); status=$$?; \
	  if [ -s $(OUT) ]; then $(VENV)/bin/python plot.py $(OUT) || exit $$?; fi; exit $$status

test: rust-test python-test

# Twice: the normal build, then with the channels that hang and lose messages on purpose.
rust-test:
	$(CARGO) test --locked
	$(CARGO) test --locked --features faults

# test_plot.py runs the debug binary (`channel-bench cells`): built here if rust-test has not.
python-test: $(VENV)/installed
	$(CARGO) build --locked
	$(VENV)/bin/python -m pytest -q test_plot.py

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets --locked -- -D warnings
	$(CARGO) clippy --all-targets --locked --features faults -- -D warnings

# The plotting and test dependencies, in a virtual environment made once.
$(VENV)/installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@
