# drydb: build the C library (Go engine, -buildmode=c-shared/c-archive), the
# CLI, run every language's tests, install.
#
#   make                      build/libdrydb.so, build/libdrydb.a, build/drydb
#   make test                 go test, C tests (ctest), Python, C# (when present)
#   make test-valgrind        C tests under valgrind
#   make test-cgocheck2       C tests against a library built with GOEXPERIMENT=cgocheck2
#   make install PREFIX=/usr/local DESTDIR= [LIBDIR= BINDIR= MANDIR= INCDIR=]
#   make test-install         install into a scratch tree (multiarch LIBDIR) and
#                             build programs against it (CMake, pkg-config)
#   make clean

GO      ?= go
CMAKE   ?= cmake
CTEST   ?= ctest
PYTHON  ?= python3
PREFIX  ?= /usr/local
DESTDIR ?=
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man

# The release version lives in VERSION alone (scripts/version checks the
# copies other tools read: the header, Python, .NET).
VERSION := $(shell cat $(CURDIR)/VERSION)
BUILD   := build
# 3.5 MiB: the Go runtime with the zstd encoders alone is 2.67 MB. It holds
# with DryDB 1.4 (reader and writer +156 KB) because klauspost/compress is
# built without crypto/rand (-166 KB: scripts/vendor-klauspost says why).
MAXSIZE := 3670016

# The target: this machine's, or GOOS/GOARCH/CC from the environment for a
# cross build (make dist-platforms does those). GOOS is Go's own default.
ifeq ($(GOOS),)
GOOS := $(shell $(GO) env GOOS)
endif
EXE  :=
ifeq ($(GOOS),windows)
EXE  := .exe
endif
# The library's names and link flags on the target: capi/soflags (CMake reads
# it too) says what each is and why. RELR= builds without packed relocations.
RELR     ?= probe
SHLIB    := $(shell sh $(CURDIR)/capi/soflags $(GOOS) $(VERSION) shlib)
SONAME   := $(shell sh $(CURDIR)/capi/soflags $(GOOS) $(VERSION) soname)
REALNAME := $(shell sh $(CURDIR)/capi/soflags $(GOOS) $(VERSION) realname)
SOFLAGS  := $(shell CC='$(CC)' sh $(CURDIR)/capi/soflags $(GOOS) $(VERSION) ldflags '$(RELR)')
# binutils of the target, for scripts/localize-archive (aarch64-linux-gnu-)
TOOLPREFIX ?=
# -s -w: no symbol table or DWARF (size)
LDFLAGS := -s -w -extldflags '$(SOFLAGS)'
# capi/cold-packages: built without inlining (it says why); CMake reads it too
COLD_PKGS := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' $(CURDIR)/capi/cold-packages)
GOFLAGS_LIB := -trimpath -buildvcs=false $(foreach p,$(COLD_PKGS),-gcflags=$(p)=-l)

.PHONY: all lib archive cli check-size test test-go test-c test-python test-csharp \
        test-valgrind test-cgocheck2 cmake-build vectors install install-files uninstall test-install clean

all: lib archive cli

lib:
	@mkdir -p $(BUILD)
	$(GO) build $(GOFLAGS_LIB) -buildmode=c-shared -ldflags="$(LDFLAGS)" -o $(BUILD)/$(SHLIB) ./capi
	@# The header cgo generates is not the contract (include/drydb.h is): never ship it.
	@rm -f $(BUILD)/libdrydb.h
	@# Programs linked against the library record its SONAME; give them one here too.
	@[ "$(SONAME)" = "$(SHLIB)" ] || ln -sf $(SHLIB) $(BUILD)/$(SONAME)
	@# A DLL is linked through an import library (and a .def for MSVC).
	@[ "$(GOOS)" != windows ] || sh scripts/windows-implib $(BUILD)/$(SHLIB) $(BUILD)
	@size=$$(wc -c < $(BUILD)/$(SHLIB)); \
	  if [ $$size -gt $(MAXSIZE) ]; then echo "WARNING: $(SHLIB) is $$size bytes, over the $(MAXSIZE)-byte budget (make check-size)" >&2; fi

# Fails when the stripped library exceeds the size budget. The budget is the
# release library's: under a GOEXPERIMENT (CI's cgocheck2 adds ~100 KB of
# checks) a release build is made beside it and measured instead.
check-size: lib
	@lib=$(BUILD)/$(SHLIB); \
	if [ -n "$$GOEXPERIMENT" ]; then mkdir -p $(BUILD)/release && lib=$(BUILD)/release/$(SHLIB) && \
	  GOEXPERIMENT= $(GO) build $(GOFLAGS_LIB) -buildmode=c-shared -ldflags="$(LDFLAGS)" -o $$lib ./capi && \
	  rm -f $(BUILD)/release/libdrydb.h && echo "check-size: GOEXPERIMENT=$$GOEXPERIMENT: measuring a release build"; fi; \
	size=$$(wc -c < $$lib); echo "$(SHLIB): $$size bytes (budget $(MAXSIZE))"; test $$size -le $(MAXSIZE)

# The archive keeps only the API global (scripts/localize-archive).
archive:
	@mkdir -p $(BUILD)
	$(GO) build $(GOFLAGS_LIB) -buildmode=c-archive -ldflags="-s -w" -o $(BUILD)/libdrydb.a ./capi
	@rm -f $(BUILD)/libdrydb.h
	sh scripts/localize-archive $(BUILD)/libdrydb.a capi/exports.map \
	  $(TOOLPREFIX)ld $(TOOLPREFIX)objcopy $(TOOLPREFIX)ar $(TOOLPREFIX)nm

# The CLI and its man page, generated from its own help (scripts/manpage)
# by a CLI that runs here (MANCLI: this machine's when cross-building).
MANCLI ?= $(BUILD)/drydb
cli:
	$(GO) build -trimpath -o $(BUILD)/drydb$(EXE) ./cmd/drydb
	$(PYTHON) scripts/manpage $(MANCLI) > $(BUILD)/drydb.1

# CMake builds the C tests against the library built above (DRYDB_LIB_DIR).
cmake-build: lib archive
	$(CMAKE) -S . -B $(BUILD)/cmake -DDRYDB_LIB_DIR=$(CURDIR)/$(BUILD) -DCMAKE_BUILD_TYPE=Debug >/dev/null
	$(CMAKE) --build $(BUILD)/cmake -j2

# check-size first: the library must not grow past its budget unnoticed.
test: check-size test-go test-c test-install test-python test-csharp

test-go:
	$(GO) vet ./capi
	$(GO) test ./...

test-c: cmake-build
	$(CTEST) --test-dir $(BUILD)/cmake --output-on-failure -LE valgrind

test-python: lib
	@dirs=""; for d in bindings/python/tests tests/python; do [ -d $$d ] && dirs="$$dirs $$d"; done; \
	if [ -n "$$dirs" ]; then DRYDB_LIBRARY=$(CURDIR)/$(BUILD)/libdrydb.so $(PYTHON) -m pytest -q $$dirs; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "no Python tests collected yet: skipped"; elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
	  echo "Python: get and [] through the ctypes closures (DRYDB_PY_BUILTIN=0):"; \
	  DRYDB_PY_BUILTIN=0 DRYDB_LIBRARY=$(CURDIR)/$(BUILD)/libdrydb.so $(PYTHON) -m pytest -q -p no:warnings \
	    bindings/python/tests/test_fast.py bindings/python/tests/test_builtin.py bindings/python/tests/test_api.py || exit $$?; \
	else echo "no Python tests yet: skipped"; fi

# drydb.spark's test at the issue's scale: 1,000,000 rows per Spark build
# (string and int keys, an index, range and hash, local[2]); make test and
# CI run the same test at 100,000 rows (DRYDB_SPARK_ROWS).
.PHONY: test-spark-full
test-spark-full: lib
	DRYDB_SPARK_ROWS=1000000 DRYDB_LIBRARY=$(CURDIR)/$(BUILD)/libdrydb.so $(PYTHON) -m pytest -q bindings/python/tests/test_spark.py

test-csharp: lib
	@if [ -f bindings/csharp/Makefile ]; then sh scripts/ensure-mono && DRYDB_LIBRARY=$(CURDIR)/$(BUILD)/libdrydb.so $(MAKE) -C bindings/csharp test; \
	else echo "no C# tests yet: skipped"; fi

# Memory errors: C tests under valgrind against a library built with the Go
# runtime's valgrind annotations (-tags valgrind). Leaks: valgrind's leak
# checker aborts on those annotations, so it runs against the normal build
# and only definite leaks count (the runtime's own memory is "reachable").
test-valgrind:
	@mkdir -p $(BUILD)/valgrind
	$(GO) build -tags valgrind -buildmode=c-shared -ldflags=-w -o $(BUILD)/valgrind/libdrydb.so ./capi
	$(GO) build -tags valgrind -buildmode=c-archive -ldflags=-w -o $(BUILD)/valgrind/libdrydb.a ./capi
	rm -f $(BUILD)/valgrind/libdrydb.h
	ln -sf libdrydb.so $(BUILD)/valgrind/$(SONAME)
	$(CMAKE) -S . -B $(BUILD)/cmake-valgrind -DDRYDB_LIB_DIR=$(CURDIR)/$(BUILD)/valgrind >/dev/null
	$(CMAKE) --build $(BUILD)/cmake-valgrind -j2
	@# -j2: valgrind runs a program's threads one at a time, so two programs at once use both cores
	$(CTEST) --test-dir $(BUILD)/cmake-valgrind --output-on-failure -j2 -L valgrind
	$(MAKE) cmake-build
	sh tests/c/valgrind_leaks.sh $(BUILD)/cmake/test_basic $(BUILD)/cmake/test_errors $(BUILD)/cmake/test_threads

# cgocheck2 is a build-time experiment of the library: it checks every
# pointer write for Go pointers escaping into C memory.
test-cgocheck2:
	$(CMAKE) -E make_directory $(BUILD)/cgocheck2
	GOEXPERIMENT=cgocheck2 $(GO) build $(GOFLAGS_LIB) -buildmode=c-shared -ldflags="-extldflags '$(SOFLAGS)'" -o $(BUILD)/cgocheck2/libdrydb.so ./capi
	GOEXPERIMENT=cgocheck2 $(GO) build $(GOFLAGS_LIB) -buildmode=c-archive -o $(BUILD)/cgocheck2/libdrydb.a ./capi
	rm -f $(BUILD)/cgocheck2/libdrydb.h
	ln -sf libdrydb.so $(BUILD)/cgocheck2/$(SONAME)
	$(CMAKE) -S . -B $(BUILD)/cmake-cgocheck2 -DDRYDB_LIB_DIR=$(CURDIR)/$(BUILD)/cgocheck2 >/dev/null
	$(CMAKE) --build $(BUILD)/cmake-cgocheck2 -j2
	$(CTEST) --test-dir $(BUILD)/cmake-cgocheck2 --output-on-failure -LE valgrind

# Regenerate the shared test vectors (committed; every language reads them).
vectors: cmake-build lib cli
	$(GO) run ./tests/vectors/gen -out tests/vectors
	$(BUILD)/cmake/make_vectors tests/vectors/c_built.drydb
	python3 tests/vectors/gen/ranges.py
	@# value codecs, built by Python and by the CLI (needs the msgpack package)
	PYTHONPATH=bindings/python DRYDB_LIBRARY=$(CURDIR)/$(BUILD)/libdrydb.so DRYDB_CLI=$(CURDIR)/$(BUILD)/drydb \
	  python3 tests/vectors/gen/codecs.py

# drydbConfig.cmake finds the headers relative to the libdir it sits in, so
# that any LIBDIR (lib64, lib/x86_64-linux-gnu) works and an installed tree
# can be moved; INCDIR outside PREFIX is written as an absolute path.
empty :=
space := $(empty) $(empty)
INCDIR_FROM_LIBDIR = $(if $(and $(filter $(PREFIX)/%,$(LIBDIR)),$(filter $(PREFIX)/%,$(INCDIR))),$\
  $(subst $(space),,$(foreach c,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(LIBDIR))),../))$(patsubst $(PREFIX)/%,%,$(INCDIR)),$\
  $(INCDIR))

install: lib archive cli
	@$(MAKE) --no-print-directory install-files

# The install proper, of what is already built (scripts/test-install runs
# it several times without relinking).
install-files:
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/drydb \
	  $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BUILD)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(SHLIB)
	install -m 644 $(BUILD)/libdrydb.a $(DESTDIR)$(LIBDIR)/libdrydb.a
	install -m 644 include/drydb.h $(DESTDIR)$(INCDIR)/drydb.h
	install -m 755 $(BUILD)/drydb $(DESTDIR)$(BINDIR)/drydb
	install -m 644 $(BUILD)/drydb.1 $(DESTDIR)$(MANDIR)/man1/drydb.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' drydb.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/drydb.pc
	sed -e 's|@SONAME@|$(SONAME)|g' -e 's|@INCDIR_FROM_LIBDIR@|$(INCDIR_FROM_LIBDIR)|g' \
	    cmake/drydbConfig.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/drydb/drydbConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/drydbConfigVersion.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/drydb/drydbConfigVersion.cmake

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/$(REALNAME) $(DESTDIR)$(LIBDIR)/libdrydb.a \
	      $(DESTDIR)$(INCDIR)/drydb.h $(DESTDIR)$(LIBDIR)/pkgconfig/drydb.pc \
	      $(DESTDIR)$(BINDIR)/drydb $(DESTDIR)$(MANDIR)/man1/drydb.1
	rm -rf $(DESTDIR)$(LIBDIR)/cmake/drydb

# Installs into a scratch tree, once with the default LIBDIR and once with
# a multiarch one, and builds tests/install against each (CMake shared and
# static targets, pkg-config shared and --static).
test-install: lib archive cli
	sh scripts/test-install

clean:
	rm -rf $(BUILD) $(DIST)

# ---- release --------------------------------------------------------------
# One build per platform (named as .NET's runtime identifiers), each in
# build/<rid>: the library, libdrydb.a (Linux), the CLI and its man page.
#   linux-x64    this machine, without RELR: runs on glibc 2.34+ (3.92 MB
#                against 3.59 with RELR, which would need glibc 2.36)
#   linux-arm64  Debian's gcc-aarch64-linux-gnu
#   win-x64      Debian's gcc-mingw-w64-x86-64
RIDS := linux-x64 linux-arm64 win-x64
PLATFORM_linux-x64   := GOOS=linux GOARCH=amd64 CC=$(CC)
PLATFORM_linux-arm64 := GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc TOOLPREFIX=aarch64-linux-gnu-
PLATFORM_win-x64     := GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc
DIST := dist

.PHONY: platforms $(addprefix platform-,$(RIDS)) dist
platforms: $(addprefix platform-,$(RIDS))

# The man page comes from this machine's CLI (the same text everywhere).
$(addprefix platform-,$(RIDS)): platform-%: cli
	env CGO_ENABLED=1 $(PLATFORM_$*) $(MAKE) --no-print-directory lib cli $(if $(filter linux-%,$*),archive) \
	  BUILD=$(BUILD)/$* RELR= MANCLI=$(BUILD)/drydb

# Everything a release ships, in $(DIST) with SHA256SUMS: per platform a
# tarball (Linux: the `make install` tree) or zip (Windows), the Python
# wheels (one per platform) and sdist, the NuGet package.
dist: platforms
	rm -rf $(DIST) && mkdir -p $(DIST)
	sh scripts/dist-archives $(DIST) $(BUILD) $(RIDS)
	$(PYTHON) scripts/python-dist $(DIST) $(BUILD)/linux-x64/libdrydb.so $(BUILD)/linux-arm64/libdrydb.so $(BUILD)/win-x64/drydb.dll
	$(PYTHON) scripts/nuget-pack $(DIST) linux-x64=$(BUILD)/linux-x64/libdrydb.so \
	  linux-arm64=$(BUILD)/linux-arm64/libdrydb.so win-x64=$(BUILD)/win-x64/drydb.dll
	cd $(DIST) && sha256sum * > SHA256SUMS
	@ls -l $(DIST)

# The C tests of the cross-built libraries, under emulation: Wine for
# win-x64 (the POSIX-only tests left out: CMakeLists.txt says which), and
# qemu-user for linux-arm64. The test programs are cross-built by CMake with
# the toolchain files in cmake/. TESTS_REGEX narrows the run (CI runs a
# reduced set; the default is every test).
WINE    ?= /usr/lib/wine/wine64
WINEPREFIX_DIR := $(CURDIR)/$(BUILD)/wine
TESTS_REGEX ?= .
.PHONY: test-windows test-arm64
test-windows: platform-win-x64
	$(CMAKE) -S . -B $(BUILD)/cmake-win-x64 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-mingw-w64-x86_64.cmake \
	  -DDRYDB_LIB_DIR=$(CURDIR)/$(BUILD)/win-x64 >/dev/null
	$(CMAKE) --build $(BUILD)/cmake-win-x64 -j2
	@# A Wine prefix of our own, with the bcryptprimitives.dll Go needs and
	@# Debian's Wine lacks (tests/windows/bcryptprimitives.c).
	@[ -d $(WINEPREFIX_DIR)/drive_c/windows/system32 ] || \
	  WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(WINE) wineboot -i >/dev/null 2>&1
	x86_64-w64-mingw32-gcc -shared -O2 -o $(WINEPREFIX_DIR)/drive_c/windows/system32/bcryptprimitives.dll \
	  tests/windows/bcryptprimitives.c -lbcrypt
	WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(CTEST) --test-dir $(BUILD)/cmake-win-x64 --output-on-failure -R '$(TESTS_REGEX)'
	@# The file mapping's own tests (internal/osfile), as a Windows program.
	GOOS=windows GOARCH=amd64 $(GO) test -c -o $(BUILD)/win-x64/osfile.test.exe ./internal/osfile
	WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(WINE) $(BUILD)/win-x64/osfile.test.exe -test.v
	@# The CLI as a Windows program: a build (temporary file, rename), a get, a verify.
	rm -f $(BUILD)/win-x64/smoke.drydb
	WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(WINE) $(BUILD)/win-x64/drydb.exe build $(BUILD)/win-x64/smoke.drydb \
	  --key id -e int64 cmd/drydb/testdata/users.csv
	WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(WINE) $(BUILD)/win-x64/drydb.exe get $(BUILD)/win-x64/smoke.drydb 2 | grep -q '"Alan Turing"'
	WINEPREFIX=$(WINEPREFIX_DIR) WINEDEBUG=-all $(WINE) $(BUILD)/win-x64/drydb.exe verify $(BUILD)/win-x64/smoke.drydb

# Left out under qemu, where they would test qemu: test_truncate checks the
# message of a fault on a truncated mapping, and qemu-user turns the host's
# SIGBUS into another fault (the library still answers DRYDB_CORRUPT, but
# names it as a nil dereference); hostile_reader runs each file in a child
# that re-executes /proc/self/exe, an arm64 program the kernel cannot start
# without binfmt_misc (exit 127), under an RLIMIT_AS that qemu's own
# reservations exceed.
QEMU_EXCLUDE := ^(test_truncate|hostile_reader)$$
test-arm64: platform-linux-arm64
	$(CMAKE) -S . -B $(BUILD)/cmake-linux-arm64 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-aarch64-linux-gnu.cmake \
	  -DDRYDB_LIB_DIR=$(CURDIR)/$(BUILD)/linux-arm64 >/dev/null
	$(CMAKE) --build $(BUILD)/cmake-linux-arm64 -j2
	$(CTEST) --test-dir $(BUILD)/cmake-linux-arm64 --output-on-failure -R '$(TESTS_REGEX)' -E '$(QEMU_EXCLUDE)'

# The released packages tested as users get them (after make dist): the
# x86-64 wheel installed where nothing can build and the Python tests run
# against it, the sdist with and without Go, the .nupkg's C# tests.
.PHONY: test-dist
test-dist:
	cd $(DIST) && sha256sum -c --quiet SHA256SUMS
	for w in $(DIST)/*.whl; do sh scripts/test-wheel $$w || exit 1; done
	sh scripts/test-sdist $(DIST)/drydb-$(VERSION).tar.gz
	sh scripts/test-nupkg $(DIST)/DryDB.$(VERSION).nupkg

# The main job: build everything, then the demo on real data (the Unicode
# Character Database) through the CLI, C, Python and C#.
.PHONY: demo bench
demo: all
	-sh scripts/ensure-mono
	bash demo/run.sh

# Benchmarks (never part of the tests): drydb and its peers in one run;
# writes docs/BENCHMARKS.md and docs/bench.png.
bench: all
	bash bench/run --setup
