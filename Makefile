# StateGraph — build, test, demo, bench, install.
#
#   make                  C library (static + shared, in build/) and the Swift package;
#                         installs nothing
#   make help             this list
#   make deps             install what the build and the tests need (apt-get, when missing)
#   make demo             build and run the demo
#   make check            quick tests: the C tests and `swift test` (a few minutes)
#   make test             every test below, as CI runs it (20+ minutes); installs what
#                         each needs when it is missing
#     test-layers         the core's files call only downward (sg_internal.h's list)
#     test-c              C tests (Tests/CoreTests)
#     test-c-asan         the same under ASan + UBSan
#     test-c-valgrind     the same under valgrind memcheck
#     test-c-tsan         the C threads tests under TSan
#     test-interleave     the interleaving checker, 2,000 schedules per scenario
#     test-examples       the C spreadsheet example, output compared
#     test-install        install, build through pkg-config (shared, static), uninstall
#     test-swift          swift test
#     test-docs           make docs
#     test-consumer       examples/consumer, a package using ours as an app does
#     test-swift-syntax-range  the macro tests on the lowest and highest swift-syntax
#     test-leaks          the Swift tests under LeakSanitizer
#     test-tsan           the Swift stress tests under TSan
#     test-bench          every benchmark workload once, results checked
#     test-fuzz           libFuzzer on the C core for TEST_FUZZ_SECONDS
#   make docs             DocC site of the library products (build/docs/site)
#   make bench            benchmarks (release build)
#   make bench-compare REF=<commit> [PAIRS=3 FILTER=text SECOND_THREAD=1]  the same at REF and now, side by side
#   make examples         the C spreadsheet example
#   make interleave [INTERLEAVE_SCHEDULES=200000]  a long run of the interleaving checker
#   make fuzz [FUZZ_SECONDS=60]                    a long fuzzing run
#   make soak [SOAK_SECONDS=60 SOAK_THREADS=4]     threads churning nodes; RSS must stay flat
#   make install [PREFIX=/usr/local]               library, header and stategraph.pc
#   make uninstall [PREFIX=/usr/local]
#   make clean

PREFIX  ?= /usr/local
CC      ?= cc
CORE     := CSources/StateGraphCore
HEADER   := $(CORE)/include/stategraph.h
# The version is the header's (SG_VERSION_STRING, SG_VERSION_MAJOR).
VERSION := $(shell sed -n 's/^\#define SG_VERSION_STRING "\(.*\)"$$/\1/p' $(HEADER))
SOMAJOR := $(shell sed -n 's/^\#define SG_VERSION_MAJOR \([0-9]*\)$$/\1/p' $(HEADER))

CORE_SRC := $(wildcard $(CORE)/*.c)
CORE_HDR := $(wildcard $(CORE)/*.h $(CORE)/include/*.h)
BUILD    := build
GLIB_CFLAGS = $(shell pkg-config --cflags glib-2.0)
GLIB_LIBS   = $(shell pkg-config --libs glib-2.0)
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration
CORE_CFLAGS = $(WARN) $(CFLAGS) -I$(CORE)/include $(GLIB_CFLAGS)
# Sanitizer builds (C tests, interleaving checker, fuzzer).
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TSAN_FLAGS := -O1 -g -fsanitize=thread

STATIC := $(BUILD)/libstategraph.a
SHARED := $(BUILD)/libstategraph.so.$(VERSION)
C_TESTS := $(wildcard Tests/CoreTests/*.c)
SWIFT   ?= swift

# ---------------------------------------------------------------- system packages
#
# The build needs GLib and pkg-config; the tests add valgrind, python3, GCC's
# LeakSanitizer runtime and clang's libFuzzer; the demo uses Graphviz when it is there.
# Only `make deps`, `make demo` and the test targets install anything, with apt-get (the
# machines this runs on are Debian or Ubuntu, as root); elsewhere install them yourself
# (macOS: `brew install glib pkg-config`).

# $(call apt_install,PACKAGES): the one apt-get command.
apt_install = { echo "installing $(1)"; apt-get update -qq && \
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; }

.PHONY: all help deps glib-check deps-glib deps-valgrind deps-python deps-lsan deps-graphviz

all: core swift

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps: deps-glib deps-valgrind deps-python deps-lsan fuzz-deps

# Building never installs: without GLib it says what to do.
glib-check:
	@pkg-config --exists glib-2.0 || { echo "GLib not found (pkg-config glib-2.0):" \
	  "run 'make deps' (Debian/Ubuntu) or 'brew install glib pkg-config' (macOS)" >&2; exit 1; }

deps-glib:
	@pkg-config --exists glib-2.0 || $(call apt_install,libglib2.0-dev pkg-config)

deps-valgrind:
	@command -v valgrind >/dev/null || $(call apt_install,valgrind)

deps-python:
	@command -v python3 >/dev/null || $(call apt_install,python3)

deps-lsan:
	@ldconfig -p | grep -q 'liblsan\.so\.0 ' || $(call apt_install,liblsan0)

# Optional: the demo renders its graph with Graphviz when it can, and writes the DOT
# file alone when it cannot.
deps-graphviz:
	@command -v dot >/dev/null || $(call apt_install,graphviz) 2>/dev/null || \
	  echo "graphviz not installed: the demo will write the DOT file only"

.PHONY: core swift demo check test test-layers test-c test-c-asan test-c-valgrind test-c-tsan test-swift \
        test-tsan interleave test-interleave bench bench-compare test-bench install uninstall clean

core: glib-check $(STATIC) $(SHARED)

$(BUILD)/obj/%.o: $(CORE)/%.c $(CORE_HDR) | $(BUILD)/obj
	$(CC) $(CORE_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/obj $(BUILD)/asan:
	mkdir -p $@

$(STATIC): $(patsubst $(CORE)/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
	ar rcs $@ $^

$(SHARED): $(patsubst $(CORE)/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
	$(CC) -shared -Wl,-soname,libstategraph.so.$(SOMAJOR) -o $@ $^ $(GLIB_LIBS) -lpthread
	ln -sf libstategraph.so.$(VERSION) $(BUILD)/libstategraph.so.$(SOMAJOR)
	ln -sf libstategraph.so.$(VERSION) $(BUILD)/libstategraph.so

swift: glib-check
	$(SWIFT) build

# Timing needs a release build; the CI smoke run only checks results, so a
# debug build (much quicker to compile) serves it.
bench: glib-check
	cd Benchmarks && $(SWIFT) run -c release StateGraphBenchmarks

test-bench: deps-glib
	cd Benchmarks && $(SWIFT) run StateGraphBenchmarks --quick

# Every workload at REF and at the working tree, runs alternated, ratios side by side
# (Benchmarks/README.md).
bench-compare: deps-glib deps-python
	SWIFT="$(SWIFT)" python3 Benchmarks/compare.py "$(REF)" --pairs $(or $(PAIRS),3) \
	  $(if $(FILTER),--filter "$(FILTER)") $(if $(SAMPLES),--samples $(SAMPLES)) \
	  $(if $(SECOND_THREAD),--second-thread)

# A debug build: the demo prints the same, and a first build skips the optimiser's pass
# over swift-syntax (the macro plugin's dependency), most of a release build's time.
demo: deps-glib deps-graphviz
	@echo "building the demo (debug; a first build compiles swift-syntax for the macros: 2-3 minutes)"
	$(SWIFT) build --product StateGraphDemo
	@echo "running the demo"
	@"$$($(SWIFT) build --show-bin-path)/StateGraphDemo"

# ---------------------------------------------------------------- tests

# The C tests build the core from source with its scheduling points (see
# CSources/StateGraphCore/testing.c), so tests can order threads inside it;
# the installed library (make core) has none.
TEST_CORE   = -DSG_SCHEDULING_POINTS -I$(CORE)/include -I$(CORE) -ITests/Support $(GLIB_CFLAGS)
TEST_DEPS   = $(C_TESTS) Tests/CoreTests/harness.h $(CORE_SRC) $(CORE_HDR) $(wildcard Tests/Support/*.h)

$(BUILD)/core-tests: $(TEST_DEPS) | $(BUILD)/obj
	$(CC) $(WARN) $(CFLAGS) $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-asan: $(TEST_DEPS) | $(BUILD)/asan
	$(CC) $(WARN) $(ASAN_FLAGS) $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-tsan: $(TEST_DEPS) | $(BUILD)/obj
	$(CC) $(WARN) $(TSAN_FLAGS) $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

# GLib's slice allocator is invisible to TSan: use plain malloc under it.
test-c-tsan: deps-glib $(BUILD)/core-tests-tsan
	SG_TEST_QUICK=1 G_SLICE=always-malloc TSAN_OPTIONS=halt_on_error=1 $(BUILD)/core-tests-tsan threads

# The interleaving checker (docs/core-protocol.md): every scenario under
# INTERLEAVE_SCHEDULES seeded schedules, with ASan and UBSan.
INTERLEAVE_SCHEDULES ?= 200000
$(BUILD)/interleave: Tests/Interleave/checker.c Tests/CoreTests/model.c $(TEST_DEPS) | $(BUILD)/asan
	$(CC) $(WARN) $(ASAN_FLAGS) $(TEST_CORE) Tests/Interleave/checker.c Tests/CoreTests/model.c \
	  $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

interleave: deps-glib $(BUILD)/interleave
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/interleave $(INTERLEAVE_SCHEDULES)

test-interleave: deps-glib $(BUILD)/interleave
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/interleave 2000

# The core's files call only their own layer and those listed above it in sg_internal.h.
test-layers: core
	Tests/CoreTests/check-layers.sh $(BUILD)/obj $(CORE)

test-c: deps-glib core $(BUILD)/core-tests
	$(BUILD)/core-tests

test-c-asan: deps-glib $(BUILD)/core-tests-asan
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/core-tests-asan

test-c-valgrind: deps-glib deps-valgrind core $(BUILD)/core-tests
	SG_TEST_QUICK=1 valgrind --quiet --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	  --max-stackframe=100000000 $(BUILD)/core-tests

test-swift: deps-glib
	$(SWIFT) test

test-tsan: deps-glib
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --filter Stress

# The quick loop while working on a change.
check: test-c test-swift

test: test-layers test-c test-c-asan test-c-valgrind test-c-tsan test-interleave test-examples test-install \
      test-swift test-docs test-consumer test-swift-syntax-range test-leaks test-tsan test-bench \
      test-fuzz

# ---------------------------------------------------------------- fuzzing, soak, leaks

FUZZ_CC           ?= clang
FUZZ_SECONDS      ?= 60
TEST_FUZZ_SECONDS ?= 30
FUZZ_SRC  := $(wildcard Tests/Fuzz/*.c)
FUZZ_BIN  := $(BUILD)/fuzz/fuzz-core
FUZZ_LD   := $(shell command -v ld.lld >/dev/null 2>&1 && echo -fuse-ld=lld)
FUZZ_ARGS  = -max_len=512 -timeout=10 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/
SOAK_SECONDS ?= 60
SOAK_THREADS ?= 4
# StorageProcessTests, *IntoASecondProcess: they start a second test process, and
# CycleTests, WriteLoopTests are exit tests: their child processes would inherit the preload.
# Stress: the stress suites start thousands of threads, which crash LeakSanitizer's own
# thread registry (they run under TSan in test-tsan).
LEAK_SKIP := StorageProcessTests|IntoASecondProcess|TypedIdentifierCompileTimeTests|CycleTests|WriteLoopTests|Stress

.PHONY: fuzz-deps fuzz test-fuzz soak test-leaks

# libFuzzer comes with clang (the Swift toolchain's has it); otherwise install
# Debian's clang and its runtime libraries.
fuzz-deps: deps-glib
	@echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	  $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null || \
	  $(call apt_install,clang libclang-rt-14-dev)

$(FUZZ_BIN): $(FUZZ_SRC) Tests/Fuzz/fuzz.h $(CORE_SRC) $(CORE_HDR) | fuzz-deps
	mkdir -p $(@D)/corpus $(@D)/artifacts
	$(FUZZ_CC) $(FUZZ_LD) -std=c11 -fsanitize=fuzzer $(ASAN_FLAGS) \
	  -I$(CORE)/include -I$(CORE) $(GLIB_CFLAGS) $(FUZZ_SRC) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

# Starts from the inputs kept in Tests/Fuzz/corpus (read only) and what
# earlier runs found (build/fuzz/corpus, where new inputs go); a failing
# input is written to build/fuzz/artifacts/. Replay one with
# `FUZZ_TRACE=1 build/fuzz/fuzz-core build/fuzz/artifacts/crash-...`.
fuzz: $(FUZZ_BIN)
	$(FUZZ_BIN) $(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus Tests/Fuzz/corpus

test-fuzz: $(FUZZ_BIN)
	$(MAKE) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

$(BUILD)/soak: Tests/Soak/soak.c $(STATIC)
	$(CC) $(WARN) $(CFLAGS) -I$(CORE)/include Tests/Soak/soak.c $(STATIC) $(GLIB_LIBS) -lpthread -o $@

soak: deps-glib core $(BUILD)/soak
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_THREADS=$(SOAK_THREADS) $(BUILD)/soak

# The Swift test binary that `make test-swift` built, run with GCC's
# LeakSanitizer preloaded (no rebuild) and the suppressions in Tests/Leaks.
# Skipped: the suites that start other processes (they would inherit the
# preload and report the compiler's memory).
test-leaks: deps-glib deps-lsan
	$(SWIFT) build --build-tests
	SG_DIFF_COUNT=2000 LD_PRELOAD=$$(ldconfig -p | awk '/liblsan\.so\.0 /{print $$NF; exit}') \
	  LSAN_OPTIONS=exitcode=23:print_suppressions=0:suppressions=$(CURDIR)/Tests/Leaks/lsan-suppressions.txt \
	  $$($(SWIFT) build --show-bin-path)/StateGraphPackageTests.xctest --testing-library swift-testing \
	  --skip '$(LEAK_SKIP)'

# ---------------------------------------------------------------- examples

SPREADSHEET_SRC := $(wildcard examples/spreadsheet/*.c)
SPREADSHEET     := $(BUILD)/examples/spreadsheet

.PHONY: examples test-examples test-install

examples: core $(SPREADSHEET)

$(SPREADSHEET): $(SPREADSHEET_SRC) $(wildcard examples/spreadsheet/*.h) $(STATIC)
	mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -I$(CORE)/include $(SPREADSHEET_SRC) $(STATIC) $(GLIB_LIBS) -lpthread -lm -o $@

# Runs the spreadsheet on every examples/spreadsheet/tests/*.sheet and
# compares its output with the .expected file next to it.
test-examples: deps-glib examples
	examples/spreadsheet/tests/run.sh $(SPREADSHEET)

# make install into a temporary prefix, build a program through pkg-config
# (shared and static), run it, make uninstall, and check nothing is left.
test-install: deps-glib core
	MAKE="$(MAKE)" Tests/CoreTests/install/test-install.sh

# ---------------------------------------------------------------- documentation, consumer
#
# make docs fails on any DocC warning, an undocumented public symbol, or an article code
# block that no test compiles. test-consumer builds examples/consumer, which depends on
# this checkout by path and pins swift-syntax to a release other than the one the main
# build resolves; its output must match expected-output.txt.

DOCC        ?= $(shell command -v docc 2>/dev/null || echo "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/docc")
DOC_MODULES := StateGraph StateGraphNormalization TypedIdentifier
DOCS        := $(BUILD)/docs

.PHONY: docs test-docs test-consumer test-swift-syntax-range

# Symbol graphs come from the debug build (`make test` has just made it). Each module is
# converted on its own with --warnings-as-errors, then the archives are merged into one
# site with a landing page listing the three.
docs: glib-check
	python3 docs/check-doc-snippets.py
	rm -rf $(DOCS) && mkdir -p $(DOCS)
	$(SWIFT) package dump-symbol-graph --emit-extension-block-symbols > $(DOCS)/symbolgraph.log 2>&1 || \
	  { cat $(DOCS)/symbolgraph.log; exit 1; }
	python3 docs/check-doc-coverage.py "$$($(SWIFT) build --show-bin-path)/../symbolgraph" $(DOC_MODULES)
	set -e; symbols="$$($(SWIFT) build --show-bin-path)/../symbolgraph"; for module in $(DOC_MODULES); do \
	  mkdir -p $(DOCS)/symbols/$$module; \
	  cp "$$symbols/$$module.symbols.json" $$(ls "$$symbols"/$$module@*.symbols.json 2>/dev/null) $(DOCS)/symbols/$$module/; \
	  "$(DOCC)" convert Sources/$$module/$$module.docc --additional-symbol-graph-dir $(DOCS)/symbols/$$module \
	    --output-path $(DOCS)/$$module.doccarchive --fallback-display-name $$module \
	    --fallback-bundle-identifier org.stategraph.$$module --transform-for-static-hosting --warnings-as-errors \
	    > $(DOCS)/$$module.doccarchive.log 2>&1 || { cat $(DOCS)/$$module.doccarchive.log; exit 1; }; \
	  if grep -q '^warning' $(DOCS)/$$module.doccarchive.log; then cat $(DOCS)/$$module.doccarchive.log; exit 1; fi; \
	done
	"$(DOCC)" merge $(foreach m,$(DOC_MODULES),$(DOCS)/$(m).doccarchive) --output-path $(DOCS)/site \
	  --synthesized-landing-page-name StateGraph > $(DOCS)/merge.log 2>&1 || { cat $(DOCS)/merge.log; exit 1; }
	@echo "docs: $$(find $(DOCS)/site/data/documentation -name '*.json' | wc -l) pages," \
	  "$$(cat $(DOCS)/*.doccarchive.log $(DOCS)/merge.log | grep -c '^warning') warnings, in $(DOCS)/site" \
	  "(python3 -m http.server -d $(DOCS)/site, then open http://localhost:8000/documentation/)"

test-docs: deps-glib deps-python docs

test-consumer: deps-glib
	SWIFT="$(SWIFT)" examples/consumer/check.sh

test-swift-syntax-range: deps-glib
	SWIFT="$(SWIFT)" Tests/SwiftSyntaxRange/check.sh

# ---------------------------------------------------------------- install

LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# Static and shared library (real name, soname and link-time symlinks), the
# header, and stategraph.pc. DESTDIR stages the files for packaging: paths
# inside stategraph.pc stay those of PREFIX.
install: core
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libstategraph.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libstategraph.so.$(SOMAJOR)
	ln -sf libstategraph.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libstategraph.so
	install -m 644 $(CORE)/include/stategraph.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' stategraph.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/stategraph.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/stategraph.pc

# Removes exactly what install put there; directories stay (they may be shared).
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libstategraph.a $(DESTDIR)$(LIBDIR)/libstategraph.so \
	  $(DESTDIR)$(LIBDIR)/libstategraph.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libstategraph.so.$(VERSION) \
	  $(DESTDIR)$(INCLUDEDIR)/stategraph.h $(DESTDIR)$(PKGCONFIGDIR)/stategraph.pc

clean:
	rm -rf $(BUILD)
