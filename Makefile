# progsim: `make demo` sets everything up and runs the default scenario; `make test` runs every test.
PYTHON ?= python3

.PHONY: setup demo test test-slow bench gallery measure measure-interference calibrate validate clean

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

# The teaching gallery: small cases under every mechanism, side by side, on a static page (open gallery/index.html).
gallery: setup
	$(PYTHON) -m progsim gallery scenarios/teaching -o gallery

# Overlap heatmaps of this machine: measure them with the real MPI libraries, calibrate the platforms on them, and
# hold the simulated heatmaps against the measured ones (and the literature's cases). Run measure and calibrate on
# an idle machine; validate prints a verdict per case and exits 1 if one fails.
measure: setup
	scripts/measure_heatmaps.sh

# Memory contention between a shared-memory transfer and a STREAM kernel, on Open MPI (about 30 s).
measure-interference: setup
	$(PYTHON) -m progsim measure --interference --library openmpi --sizes 16MiB,64MiB --repetitions 7 \
		--csv validation/interference/measured/openmpi-shm.csv

calibrate: setup
	scripts/calibrate_local.sh

validate: setup
	$(PYTHON) -m progsim validate --case validation/overlap --report validation/overlap/report.md \
		--figure validation/overlap/report.png
	$(PYTHON) -m progsim validate-interference validation/interference/cases \
		--report validation/interference/report.md --figure validation/interference/report.png

clean:
	rm -rf build
