# StateGraph — build, test, demo, bench, install.
#
#   make            C core (static + shared library) and the Swift package
#   make demo       run the demo
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

demo: deps
	$(SWIFT) run -c release StateGraphDemo

# ---------------------------------------------------------------- tests

$(BUILD)/core-tests: $(C_TESTS) Tests/CoreTests/harness.h $(STATIC)
	$(CC) $(WARN) $(CFLAGS) -I$(CORE)/include $(GLIB_CFLAGS) $(C_TESTS) $(STATIC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-asan: $(C_TESTS) Tests/CoreTests/harness.h $(CORE_SRC) $(wildcard $(CORE)/*.h $(CORE)/include/*.h) | $(BUILD)/asan
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	  -I$(CORE)/include -I$(CORE) $(GLIB_CFLAGS) $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

$(BUILD)/core-tests-tsan: $(C_TESTS) Tests/CoreTests/harness.h $(CORE_SRC) $(wildcard $(CORE)/*.h $(CORE)/include/*.h)
	$(CC) $(WARN) -O1 -g -fsanitize=thread -I$(CORE)/include -I$(CORE) $(GLIB_CFLAGS) \
	  $(C_TESTS) $(CORE_SRC) $(GLIB_LIBS) -lpthread -o $@

# GLib's slice allocator is invisible to TSan: use plain malloc under it.
test-c-tsan: deps $(BUILD)/core-tests-tsan
	SG_TEST_QUICK=1 G_SLICE=always-malloc TSAN_OPTIONS=halt_on_error=1 $(BUILD)/core-tests-tsan threads

test-c: core $(BUILD)/core-tests
	$(BUILD)/core-tests

test-c-asan: deps $(BUILD)/core-tests-asan
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/core-tests-asan

test-c-valgrind: core $(BUILD)/core-tests
	SG_TEST_QUICK=1 valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	  --max-stackframe=100000000 $(BUILD)/core-tests

test-swift: deps
	$(SWIFT) test

test-tsan: deps
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --filter Stress

test: test-c test-c-asan test-c-valgrind test-c-tsan test-examples test-install test-swift test-tsan test-bench

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
