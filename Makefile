# ecmsketch: every target does its own set-up (venv, Python deps, sbt launcher, jars) idempotently.
#
# Spark versions (docs/guide/spark-versions.md): the wheel ships one jar per Scala binary version,
# ecmsketch_2.12.jar (Spark 3.5) and ecmsketch_2.13.jar (Spark 4.0 .. 4.3), cross-built by sbt.
# The main venv (.venv) has the newest tested pyspark; .venv-<major.minor> have the others.
# `make test` runs the full Python suite on the newest and the `matrix` subset on the oldest;
# `make test-matrix` runs the full suite on every tested version.
PY       ?= python3
SBT      := scripts/sbt
JARDIR   := python/ecmsketch/jars
JARS     := $(JARDIR)/ecmsketch_2.12.jar $(JARDIR)/ecmsketch_2.13.jar
# the sources of the jar: the core and spark projects (build.sbt)
SCALA_SRC := $(shell find jvm/core/src/main jvm/spark/src/main -type f 2>/dev/null) build.sbt project/build.properties
# newest tested pyspark (the main venv), oldest, and the whole tested range
PYSPARK_VERSION := 4.3.0
PYSPARK_OLDEST  := 3.5.9
PYSPARK_MATRIX  := 3.5.9 4.0.1 4.3.0
VENV     := .venv
VPY      := $(VENV)/bin/python
# the venv of a pyspark version: the main one for the newest, .venv-<major.minor> for the others
venv_of = $(if $(filter $(1),$(PYSPARK_VERSION)),$(VENV),.venv-$(basename $(1)))

.PHONY: all setup jar test test-scala test-python test-oldest test-oldest-setup test-matrix demo bench paper sql-examples sql-reference clean

all: test

# pyspark 3.5 ships no Spark Connect server (pyspark 4 does): tests/test_connect.py adds its jar,
# spark-connect_2.12, fetched with Maven like the sbt launcher. 3.5.7 is the newest 3.5 patch of it
# that the registry serves; it runs on Spark 3.5.9.
CONNECT_35_JAR := .tools/spark-connect_2.12-3.5.7.jar

# pyspark 3.5 needs numpy < 2; the newest pyarrow and pandas need numpy 2 (and pyspark 3.5 predates pandas 3)
PY35_PINS := "pyarrow>=11,<18" "pandas>=1.5,<2.3"

# bench-only Python deps (plots; probstructs and sketch_oxide, the Python path's comparisons, are
# optional: bench/python_bench.py skips what did not install), not package deps
$(VENV)/.bench-deps: $(VENV)/.deps
	$(VPY) -m pip install -q matplotlib
	$(VPY) -m pip install -q probstructs sketch-oxide || echo "probstructs / sketch-oxide not installed: python_bench skips them"
	touch $@

# $(1): venv directory, $(2): pyspark version. pyspark[connect] brings the Spark Connect client
# dependencies of that version (tests/test_connect.py runs the wrappers under Connect).
define venv_rules
$(1)/.deps: pyproject.toml
	$(PY) -m venv $(1)
	$(1)/bin/python -m pip install -q --upgrade pip
	$(1)/bin/python -m pip install -q "pyspark[connect]==$(2)" py4j numpy pytest "JPype1>=1.5" $(if $(filter 3.%,$(2)),$(PY35_PINS))
	touch $$@

$(1)/.installed: $(1)/.deps $(JARS) pyproject.toml $(if $(filter 3.%,$(2)),$(CONNECT_35_JAR))
	$(1)/bin/python -m pip install -q --no-deps -e .
	touch $$@
endef
$(foreach v,$(PYSPARK_MATRIX),$(eval $(call venv_rules,$(call venv_of,$(v)),$(v))))

$(CONNECT_35_JAR):
	mkdir -p .tools
	mvn -q -B dependency:copy -Dartifact=org.apache.spark:spark-connect_2.12:3.5.7 -DoutputDirectory=.tools

$(JARS) &: $(SCALA_SRC)
	$(SBT) +package
	mkdir -p $(JARDIR)
	cp target/ecmsketch_2.12.jar target/ecmsketch_2.13.jar $(JARDIR)/

setup: $(VENV)/.installed

jar: $(JARS)

# Scala: every suite on 2.13 (Spark 4.0.1); the 2.12 build (Spark 3.5) is compiled for its jar and
# tested end to end from Python (its own Scala suites run in `make test-scala` and `make test-matrix`,
# to keep CI well under 30 minutes). Python: the whole suite on the newest pyspark, the `matrix`
# subset on the oldest.
test: setup test-oldest-setup
	$(SBT) test
	$(VPY) -m pytest -q --durations=25 tests
	$(call venv_of,$(PYSPARK_OLDEST))/bin/python -m pytest -q -m matrix tests

test-scala: setup
	$(SBT) +test

# tests/test_integrity.py compares the bytes of the Scala 2.12 and 2.13 jars: it takes each line's
# Scala library from the pyspark venvs, so the oldest one (Spark 3.5, Scala 2.12) is set up too
test-python: setup test-oldest-setup
	$(VPY) -m pytest -q --durations=25 tests

test-oldest-setup: $(call venv_of,$(PYSPARK_OLDEST))/.installed

# the `matrix` subset (every SQL function once, configure/register, Connect) on the oldest pyspark
test-oldest: test-oldest-setup
	$(call venv_of,$(PYSPARK_OLDEST))/bin/python -m pytest -q -m matrix tests

# every Scala suite on both Scala lines, then the whole Python suite on every tested pyspark
test-matrix: $(foreach v,$(PYSPARK_MATRIX),$(call venv_of,$(v))/.installed)
	$(SBT) +test
	set -e; for v in $(PYSPARK_MATRIX); do \
	  case "$$v" in $(PYSPARK_VERSION)) d=$(VENV);; *) d=.venv-$${v%.*};; esac; \
	  echo "== pyspark $$v ($$d)"; start=$$(date +%s); \
	  $$d/bin/python -m pytest -q tests; \
	  echo "== pyspark $$v: $$(( $$(date +%s) - start )) s"; \
	done

demo: setup
	$(VPY) examples/demo.py

sql-examples: setup
	$(VPY) sql-examples/run.py

# docs/reference/sql.md from the signature table's specs (tests/test_sql_reference.py checks it is current)
sql-reference: setup
	$(VPY) docs/gen_sql_reference.py

bench: setup $(VENV)/.bench-deps
	$(SBT) "bench/runMain ecmsketch.bench.CoreBench"
	$(VPY) bench/spark_bench.py
	$(VPY) bench/query_bench.py
	$(VPY) bench/group_bench.py
	$(SBT) "bench/runMain ecmsketch.bench.AsyncBench"
	$(VPY) bench/async_bench.py
	# dyadic ECM-sketches: core updates/s at universe_bits 16 and 32; in Spark, build speed,
	# quantiles beside approx_percentile, top-k recall
	$(SBT) "bench/runMain ecmsketch.bench.DyadicBench"
	$(VPY) bench/dyadic_bench.py
	$(SBT) "bench/runMain ecmsketch.decayed.DecayedBench speed" "bench/runMain ecmsketch.decayed.DecayedBench constant 40 0.1"
	$(VPY) bench/decayed_bench.py
	# windowed quantiles and top-k (quantile_agg, top_k_agg) beside kll_sketch_agg_double and approx_top_k:
	# sizes, certified and measured errors per range, build speed at 10^6 and 10^7 rows, and the figure
	# docs/figures/windowed-error-vs-range.png
	$(VPY) bench/windowed_bench.py
	# the Python path (buffered single adds, add_many from numpy) beside probstructs and sketch_oxide
	# (optional bench deps, installed above when the registry has them); ECM-EH vs Sl-CM at equal memory
	$(VPY) bench/python_bench.py
	$(SBT) "bench/runMain ecmsketch.bench.sliding.SlidingBench" "bench/runMain ecmsketch.bench.sliding.SplitBench"
	$(VPY) bench/sliding_figures.py
	# streaming state over 10,000 micro-batches with 5 % late rows: the state-store cycle,
	# then a real streaming run of 200 micro-batches beside it
	$(SBT) "bench/runMain ecmsketch.bench.StreamingBench"
	$(VPY) bench/streaming_bench.py
	# format version 4's checksum: encode and decode with the CRC32C share, and ecm_agg beside
	# count_min_sketch (CHECKSUM_BASELINE=dir with an older ecmsketch_2.13.jar: both jars, alternating)
	$(VPY) bench/checksum_bench.py $(if $(CHECKSUM_BASELINE),--baseline $(CHECKSUM_BASELINE))

# the ECM-sketch paper's experiments: PaperBench (Scala, synthetic streams of the
# published shape) writes bench/results/paper/*.json, then every bench/paper/exp_*.py plots into
# docs/figures/paper_*.png and writes its tables (docs/design/EXPERIMENTS.md explains them)
# (PAPER_ARGS="--scale 0.05" for a quick check, "--plot-only" to redraw from the JSON)
PAPER_ARGS ?=
paper: setup $(VENV)/.bench-deps
	$(VPY) bench/paper/run_all.py $(PAPER_ARGS)

clean:
	rm -rf target project/target jvm/core/target jvm/spark/target jvm/bench/target $(JARS) $(VENV) $(foreach v,$(PYSPARK_MATRIX),$(call venv_of,$(v))) .pytest_cache
