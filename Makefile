# progsim: `make demo` sets everything up and runs the default scenario; `make test` runs every test.
PYTHON ?= python3

.PHONY: setup demo test test-slow bench clean

setup:
	@scripts/setup.sh

demo: setup
	$(PYTHON) -m progsim scenario scenarios/default.yaml

test: setup
	cd build && ctest --output-on-failure
	$(PYTHON) -m mypy progsim
	$(PYTHON) -m pytest -q tests

# Long studies and large cross-checks, kept out of the default suite.
test-slow: setup
	$(PYTHON) -m pytest -q tests --run-slow

bench: setup
	$(PYTHON) scripts/benchmark.py

clean:
	rm -rf build
