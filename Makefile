# The two commands of the README:
#   make bench   build, run the default sweep, write CSV + JSON (machine) + summary (.md) + report (.html)
#                to results/, then the PNG plot when Python can be had (Rust alone is enough to measure)
#   make test    Rust and Python tests (what .ci/run runs)
# Options: make bench ARGS="--quick"   make bench OUT=results/mine.csv
# Also:    make plot CSV=results/X.csv   the PNG of one CSV (needs Python 3 with venv)
#          make answer CSV=results/X.csv [SFU=results/Y.csv]  the reference runs' summary, cells, report
#                                    and README short answers

CARGO  ?= cargo
PYTHON ?= python3
VENV   := .venv
ARGS   ?=
OUT    := results/channel-bench-$(shell date -u +%Y%m%dT%H%M%SZ).csv
BIN    := $(or $(CARGO_TARGET_DIR),target)/release/channel-bench

.PHONY: bench plot answer readme-block test rust-test python-test lint

# Refuses first, before building, when a file named after OUT exists (OUT itself, or a file the
# sweep or the plot writes beside it, such as X.md or X.png) and ARGS has no --force: exit 2,
# nothing written. Then plots whatever was recorded, even when some cells failed, but not after
# a usage error (exit 2: the binary refused and measured nothing); the exit code is the sweep's.
bench:
	@case " $(ARGS) " in *" --force "*) ;; *) for taken in $(basename $(OUT)).*; do \
	  if [ -e "$$taken" ] || [ -L "$$taken" ]; then \
	    echo "error: make bench: $$taken already exists (OUT=$(OUT) writes the files named $(basename $(OUT)).*): choose another OUT, or pass ARGS=\"... --force\" to replace them" >&2; \
	    exit 2; fi; done;; esac
	$(CARGO) build --release --locked
	$(BIN) $(ARGS) --out $(OUT); status=$$?; \
	  if [ $$status -ne 2 ] && [ -s $(OUT) ]; then $(MAKE) --no-print-directory plot CSV=$(OUT) || true; fi; exit $$status

# The PNG beside CSV; when no venv can be made or pip cannot install, one line says what was
# skipped and how to get it (the HTML report beside the CSV already has the plots).
plot:
	@if [ -z "$(CSV)" ]; then echo "plot: give the CSV: make plot CSV=results/X.csv"; exit 2; fi
	@mkdir -p target
	@if $(MAKE) --no-print-directory $(VENV)/installed >target/venv.log 2>&1; then \
	  $(VENV)/bin/python plot.py $(PLOTFLAGS) $(CSV); \
	else \
	  echo "plot: skipped $(basename $(CSV)).png: no Python venv with matplotlib ($(PYTHON) -m venv or pip failed, see target/venv.log); the plots are in $(basename $(CSV)).html; for the PNG install Python 3 with venv and run: make plot CSV=$(CSV)"; \
	fi

# The reference runs' summary (.md), cells (.cells.json) and report (.html) beside each CSV, and
# README.md's short answers between their markers, and the PNGs the README shows under them,
# regenerated: CSV= the default sweep's, SFU= a `channel-bench sfu` run's (either or both); then
# `make test` checks they agree. Each may list other machines' runs after the reference run
# (CSV="results/X.csv other/a.csv"): the README's answer reads them beside it, per machine.
answer:
	@if [ -z "$(CSV)$(SFU)" ]; then echo "answer: give the reference run: make answer CSV=results/X.csv [SFU=results/Y.csv]"; exit 2; fi
	$(CARGO) build --release --locked
	@for csv in $(firstword $(CSV)) $(firstword $(SFU)); do \
	  $(BIN) summary --force $$csv >/dev/null && $(BIN) cells --force $$csv && $(BIN) report --force $$csv || exit 1; \
	done
	@mkdir -p target
	@if [ -n "$(CSV)" ]; then $(MAKE) --no-print-directory readme-block RUN="$(CSV)" BLOCK=summary; fi
	@if [ -n "$(SFU)" ]; then $(MAKE) --no-print-directory readme-block RUN="$(SFU)" BLOCK=sfu; fi
	@for csv in $(firstword $(CSV)) $(firstword $(SFU)); do $(MAKE) --no-print-directory plot CSV=$$csv PLOTFLAGS=--force || exit 1; done

# README.md's block between `<!-- BEGIN channel-bench BLOCK --short RUN -->` and
# `<!-- END channel-bench BLOCK -->` replaced by `channel-bench summary --short RUN` (RUN: one
# CSV, or several of several machines, the reference run first).
readme-block:
	$(BIN) summary --short $(RUN) >target/short-answer.md
	awk -v csv="$(RUN)" -v block="$(BLOCK)" -v answer=target/short-answer.md \
	  '$$0 ~ "^<!-- BEGIN channel-bench " block " --short " { print "<!-- BEGIN channel-bench " block " --short " csv " -->"; \
	     while ((getline line < answer) > 0) print line; skip = 1; next } \
	   $$0 ~ "^<!-- END channel-bench " block " -->" { skip = 0 } \
	   !skip' README.md >target/README.md
	cp target/README.md README.md

test: rust-test python-test

# The tests that need the channels that hang and lose messages on purpose, on a build with them
# (the unit tests and the three test files that use them), then every test on the normal build.
FAULT_TESTS := --lib --test faults --test slowdown --test sfu

rust-test:
	$(CARGO) test --locked --features faults $(FAULT_TESTS)
	$(CARGO) test --locked

# test_plot.py runs the debug binary (`channel-bench cells`), the one the Rust tests run: built
# here as `cargo test` builds it, unless rust-test has (then nothing is left to build; a plain
# `cargo build` would build it again under another profile).
python-test: $(VENV)/installed
	$(CARGO) test --locked --no-run --quiet
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
