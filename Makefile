# StateGraph — build, test, demo, bench, install.
#
#   make            C core (static + shared library) and the Swift package
#   make demo       run the demo
#   make docs       DocC documentation of the library products (build/docs/site)
#   make test       C tests (plain, ASan+UBSan, valgrind), examples, Swift tests, TSan stress
#   make bench      benchmark runner (release build)
#   make install PREFIX=/usr/local   library, header and stategraph.pc

PREFIX  ?= /usr/local
CC      ?= cc
VERSION := 0.1.0
SOMAJOR := 0

CORE     := CSources/StateGraphCore
CORE_SRC := $(wildcard $(CORE)/*.c)
BUILD    := build
GLIB_CFLAGS = $(shell pkg-config --cflags glib-2.0)
GLIB_LIBS   = $(shell pkg-config --libs glib-2.0)
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration
CORE_CFLAGS = $(WARN) $(CFLAGS) -I$(CORE)/include $(GLIB_CFLAGS)

STATIC := $(BUILD)/libstategraph.a
SHARED := $(BUILD)/libstategraph.so.$(VERSION)
C_TESTS := $(wildcard Tests/CoreTests/*.c)
SWIFT   ?= swift

.PHONY: all deps core swift demo test test-c test-c-asan test-c-valgrind test-c-tsan test-swift test-tsan \
        interleave test-interleave \
        bench test-bench install uninstall clean

all: core swift

# libglib2.0-dev is the one system package; install it when missing.
deps:
	@pkg-config --exists glib-2.0 || { \
	  echo "installing libglib2.0-dev"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libglib2.0-dev pkg-config >/dev/null; }
	@command -v valgrind >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null

core: deps $(STATIC) $(SHARED)

$(BUILD)/obj/%.o: $(CORE)/%.c $(wildcard $(CORE)/*.h $(CORE)/include/*.h) | $(BUILD)/obj
	$(CC) $(CORE_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/obj $(BUILD)/asan:
	mkdir -p $@

$(STATIC): $(patsubst $(CORE)/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
	ar rcs $@ $^

$(SHARED): $(patsubst $(CORE)/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
	$(CC) -shared -Wl,-soname,libstategraph.so.$(SOMAJOR) -o $@ $^ $(GLIB_LIBS) -lpthread
	ln -sf libstategraph.so.$(VERSION) $(BUILD)/libstategraph.so.$(SOMAJOR)
	ln -sf libstategraph.so.$(VERSION) $(BUILD)/libstategraph.so

swift: deps
	$(SWIFT) build

# Timing needs a release build; the CI smoke run only checks results, so a
# debug build (much quicker to compile) serves it.
bench: deps
	cd Benchmarks && $(SWIFT) run -c release StateGraphBenchmarks

test-bench: deps
	cd Benchmarks && $(SWIFT) run StateGraphBenchmarks --quick

# Every workload at REF and at the working tree, runs alternated, ratios side by side.
bench-compare: deps ; SWIFT="$(SWIFT)" python3 Benchmarks/compare.py "$(REF)" --pairs $(or $(PAIRS),3) $(if $(FILTER),--filter "$(FILTER)") $(if $(SAMPLES),--samples $(SAMPLES))

# The demo draws its graph with Graphviz `dot` when it can: install it when
# missing, but a failed install only means the demo writes the .dot alone.
#
# A debug build: the demo prints the same, and a first build skips the optimiser's pass
# over swift-syntax (the macro plugin's dependency), most of a release build's time.
# (The "Internal Error: DecodingError.dataCorrupted ... Corrupted JSON" lines a build once
# printed came from the macro plugin when it was linked against swift-syntax 602.0.0: that
# release cannot read a message the Swift 6.3 compiler sends it, so the plugin exits and the
# compiler starts it again. A fresh clone now resolves 603.0.1, which prints nothing.)
demo: deps
	@command -v dot >/dev/null || { \
	  echo "installing graphviz (optional: the demo renders its graph with it)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz; } \
	    >/dev/null 2>&1 || echo "graphviz not installed: the demo will write the DOT file only"; }
	@echo "building the demo (debug; a first build compiles swift-syntax for the macros: 2-3 minutes)"
	$(SWIFT) build --product StateGraphDemo
	@echo "running the demo"
	@"$$($(SWIFT) build --show-bin-path)/StateGraphDemo"

# ---------------------------------------------------------------- tests

# The C tests build the core from source with its scheduling points (see
# CSources/StateGraphCore/testing.c), so tests can order threads inside it;
# the installed library (make core) has none.
TEST_CORE   = -DSG_SCHEDULING_POINTS -I$(CORE)/include -I$(CORE) -ITests/Support $(GLIB_CFLAGS)
TEST_DEPS   = $(C_TESTS) Tests/CoreTests/harness.h $(CORE_SRC) $(wildcard $(CORE)/*.h $(CORE)/include/*.h Tests/Support/*.h)

$(BUILD)/core-tests: $(TEST_DEPS) | $(BUILD)/obj
	$(CC) $(WARN) $(CFLAGS) $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-asan: $(TEST_DEPS) | $(BUILD)/asan
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	  $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-tsan: $(TEST_DEPS)
	$(CC) $(WARN) -O1 -g -fsanitize=thread $(TEST_CORE) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

# GLib's slice allocator is invisible to TSan: use plain malloc under it.
test-c-tsan: deps $(BUILD)/core-tests-tsan
	SG_TEST_QUICK=1 G_SLICE=always-malloc TSAN_OPTIONS=halt_on_error=1 $(BUILD)/core-tests-tsan threads

# The interleaving checker (docs/core-protocol.md): every scenario under
# INTERLEAVE_SCHEDULES seeded schedules, with ASan and UBSan.
INTERLEAVE_SCHEDULES ?= 200000
$(BUILD)/interleave: Tests/Interleave/checker.c Tests/CoreTests/model.c $(TEST_DEPS) | $(BUILD)/asan
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	  $(TEST_CORE) Tests/Interleave/checker.c Tests/CoreTests/model.c $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

interleave: deps $(BUILD)/interleave
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/interleave $(INTERLEAVE_SCHEDULES)

test-interleave: deps $(BUILD)/interleave
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/interleave 2000

test-c: core $(BUILD)/core-tests
	$(BUILD)/core-tests

test-c-asan: deps $(BUILD)/core-tests-asan
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/core-tests-asan

test-c-valgrind: core $(BUILD)/core-tests
	SG_TEST_QUICK=1 valgrind --quiet --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	  --max-stackframe=100000000 $(BUILD)/core-tests

test-swift: deps
	$(SWIFT) test

test-tsan: deps
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --filter Stress

test: test-c test-c-asan test-c-valgrind test-c-tsan test-interleave test-examples test-install test-swift test-docs test-consumer test-swift-syntax-range test-leaks test-tsan test-bench test-fuzz

# ---------------------------------------------------------------- reliability
#
#   make fuzz [FUZZ_SECONDS=60]    libFuzzer on the C core (ASan + UBSan)
#   make test-fuzz                 the same for TEST_FUZZ_SECONDS (part of make test)
#   make soak [SOAK_SECONDS=60 SOAK_THREADS=4]   threads churning nodes; RSS must stay flat
#   make test-leaks                the Swift tests under LeakSanitizer (part of make test)

FUZZ_CC           ?= clang
FUZZ_SECONDS      ?= 60
TEST_FUZZ_SECONDS ?= 30
FUZZ_SRC  := $(wildcard Tests/Fuzz/*.c)
FUZZ_BIN  := $(BUILD)/fuzz/fuzz-core
FUZZ_LD   := $(shell command -v ld.lld >/dev/null 2>&1 && echo -fuse-ld=lld)
FUZZ_ARGS  = -max_len=512 -timeout=10 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/
SOAK_SECONDS ?= 60
SOAK_THREADS ?= 4
# CycleTests, WriteLoopTests: exit tests, whose child processes would inherit the preload.
# Stress: the stress suites start thousands of threads, which crash LeakSanitizer's own
# thread registry (they run under TSan in test-tsan).
LEAK_SKIP := StorageProcessTests|TypedIdentifierCompileTimeTests|CycleTests|WriteLoopTests|Stress

.PHONY: fuzz-deps fuzz test-fuzz soak test-leaks

# libFuzzer comes with clang (the Swift toolchain's has it); otherwise install
# Debian's clang and its runtime libraries.
fuzz-deps: deps
	@echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	  $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null || { \
	  echo "installing clang with libFuzzer"; apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null; }

$(FUZZ_BIN): $(FUZZ_SRC) Tests/Fuzz/fuzz.h $(CORE_SRC) $(wildcard $(CORE)/*.h $(CORE)/include/*.h) | fuzz-deps
	mkdir -p $(@D)/corpus $(@D)/artifacts
	$(FUZZ_CC) $(FUZZ_LD) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -I$(CORE)/include -I$(CORE) $(GLIB_CFLAGS) $(FUZZ_SRC) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

# Starts from the seeds kept in Tests/Fuzz/corpus (read only) and what
# earlier runs found (build/fuzz/corpus, where new inputs go); a failing
# input is written to build/fuzz/artifacts/. Replay one with
# `FUZZ_TRACE=1 build/fuzz/fuzz-core build/fuzz/artifacts/crash-...`.
fuzz: $(FUZZ_BIN)
	$(FUZZ_BIN) $(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus Tests/Fuzz/corpus

test-fuzz: $(FUZZ_BIN)
	$(MAKE) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

$(BUILD)/soak: Tests/Soak/soak.c $(STATIC)
	$(CC) $(WARN) $(CFLAGS) -I$(CORE)/include Tests/Soak/soak.c $(STATIC) $(GLIB_LIBS) -lpthread -o $@

soak: core $(BUILD)/soak
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_THREADS=$(SOAK_THREADS) $(BUILD)/soak

# The Swift test binary that `make test-swift` built, run with GCC's
# LeakSanitizer preloaded (no rebuild) and the suppressions in Tests/Leaks.
# Skipped: the suites that start other processes (they would inherit the
# preload and report the compiler's memory).
test-leaks: deps
	@ldconfig -p | grep -q 'liblsan\.so\.0 ' || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblsan0 >/dev/null; }
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
test-examples: examples
	examples/spreadsheet/tests/run.sh $(SPREADSHEET)

# make install into a temporary prefix, build a program through pkg-config
# (shared and static), run it, make uninstall, and check nothing is left.
test-install: core
	MAKE="$(MAKE)" Tests/CoreTests/install/test-install.sh

# ---------------------------------------------------------------- documentation, consumer
#
#   make docs                     DocC site of the three library products in build/docs/site
#                                 (fails on any DocC warning, an undocumented public symbol,
#                                 or an article code block that no test compiles)
#   make test-consumer            examples/consumer, a package using ours as an app does
#   make test-swift-syntax-range  macro tests on the lowest and highest swift-syntax allowed

DOCC        ?= $(shell command -v docc 2>/dev/null || echo "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/docc")
DOC_MODULES := StateGraph StateGraphNormalization TypedIdentifier
DOCS        := $(BUILD)/docs

.PHONY: docs docs-deps test-docs test-consumer test-swift-syntax-range

docs-deps:
	@command -v python3 >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null; }

# Symbol graphs come from the debug build (`make test` has just made it). Each module is
# converted on its own with --warnings-as-errors, then the archives are merged into one
# site with a landing page listing the three.
docs: deps docs-deps
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

test-docs: docs

# The consumer depends on this checkout by path and pins swift-syntax to a release other
# than the one the main build resolves; its output must match expected-output.txt.
test-consumer: deps
	SWIFT="$(SWIFT)" examples/consumer/check.sh

test-swift-syntax-range: deps
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
