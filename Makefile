# ecmsketch: every target does its own set-up (venv, Python deps, sbt launcher, jar) idempotently.
PY       ?= python3
VENV     := .venv
VPY      := $(VENV)/bin/python
SBT      := scripts/sbt
JAR      := python/ecmsketch/jars/ecmsketch.jar
SCALA_SRC := $(shell find jvm/src/main -name '*.scala' 2>/dev/null) build.sbt project/build.properties
PYSPARK_VERSION := 4.0.1

.PHONY: all setup jar test test-scala test-python demo bench paper sql-examples clean

all: test

$(VENV)/.deps: pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "pyspark==$(PYSPARK_VERSION)" py4j numpy pytest "JPype1>=1.5"
	# Spark Connect client deps (tests/test_connect.py runs the wrappers under Connect)
	$(VPY) -m pip install -q "pandas>=2.0.0" "pyarrow>=11.0.0" "grpcio>=1.67.0" "grpcio-status>=1.67.0" "googleapis-common-protos>=1.65.0"
	touch $@

# bench-only Python deps (plots), not package deps
$(VENV)/.bench-deps: $(VENV)/.deps
	$(VPY) -m pip install -q matplotlib
	touch $@

$(JAR): $(SCALA_SRC)
	$(SBT) package
	mkdir -p $(dir $(JAR))
	cp target/ecmsketch.jar $(JAR)

$(VENV)/.installed: $(VENV)/.deps $(JAR) pyproject.toml
	$(VPY) -m pip install -q --no-deps -e .
	touch $@

setup: $(VENV)/.installed

jar: $(JAR)

test: setup
	$(SBT) test
	$(VPY) -m pytest -q --durations=25 tests

test-scala: setup
	$(SBT) test

test-python: setup
	$(VPY) -m pytest -q --durations=25 tests

demo: setup
	$(VPY) examples/demo.py

sql-examples: setup
	$(VPY) sql-examples/run.py

bench: setup $(VENV)/.bench-deps
	$(SBT) "Test/runMain ecmsketch.bench.CoreBench"
	$(VPY) bench/spark_bench.py
	$(VPY) bench/query_bench.py
	$(VPY) bench/group_bench.py
	$(SBT) "Test/runMain ecmsketch.bench.AsyncBench"
	$(VPY) bench/async_bench.py
	# dyadic ECM-sketches (issue 9): core updates/s at universe_bits 16 and 32; in Spark, build speed,
	# quantiles beside approx_percentile, top-k recall
	$(SBT) "Test/runMain ecmsketch.bench.DyadicBench"
	$(VPY) bench/dyadic_bench.py
	$(SBT) "Test/runMain ecmsketch.decayed.DecayedBench speed" "Test/runMain ecmsketch.decayed.DecayedBench constant 40 0.1"
	$(VPY) bench/decayed_bench.py
	# issue 14: the Python path (buffered single adds, add_many from numpy) beside probstructs and sketch_oxide
	# when installed (optional: $(VPY) -m pip install probstructs sketch-oxide); ECM-EH vs Sl-CM at equal memory
	$(VPY) bench/python_bench.py
	$(SBT) "Test/runMain ecmsketch.bench.sliding.SlidingBench" "Test/runMain ecmsketch.bench.sliding.SplitBench"
	$(VPY) bench/sliding_figures.py
	# streaming state over 10,000 micro-batches with 5 % late rows (issue 13 §1): the state-store cycle,
	# then a real streaming run of 200 micro-batches beside it
	$(SBT) "Test/runMain ecmsketch.bench.StreamingBench"
	$(VPY) bench/streaming_bench.py

# the ECM-sketch paper's experiments (issue 12 §2): PaperBench (Scala, synthetic streams of the
# published shape) writes bench/results/paper/*.json, then every bench/paper/exp_*.py plots into
# docs/figures/paper_*.png and writes its tables (docs/EXPERIMENTS.md explains them)
# (PAPER_ARGS="--scale 0.05" for a quick check, "--plot-only" to redraw from the JSON)
PAPER_ARGS ?=
paper: setup $(VENV)/.bench-deps
	$(VPY) bench/paper/run_all.py $(PAPER_ARGS)

clean:
	rm -rf target project/target $(JAR) $(VENV) .pytest_cache
