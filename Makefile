# hew — the commands a developer and CI use. CMake does the building; this file only
# names the builds:  build/debug (make), build/asan (make test), build/release (demo, bench),
# build/fuzz (clang + libFuzzer), build/pkg (make deb, make dist: scripts/package).
CMAKE   ?= cmake
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 20
MAKEFLAGS += --no-print-directory

.PHONY: all deps debug release asan test demo bench fuzz deb dist tarball clean

all: debug

deps:
	@./scripts/install-deps

debug:
	$(CMAKE) -S . -B build/debug -DCMAKE_BUILD_TYPE=Debug >/dev/null
	$(CMAKE) --build build/debug -j $(JOBS)

release:
	$(CMAKE) -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
	$(CMAKE) --build build/release -j $(JOBS)

asan:
	$(CMAKE) -S . -B build/asan -DCMAKE_BUILD_TYPE=Asan >/dev/null
	$(CMAKE) --build build/asan -j $(JOBS)

test: deps asan
	cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

demo: deps release
	@./scripts/demo build/release

bench: deps release
	@for b in build/release/bench/*; do \
	  if [ -x "$$b" ] && [ -f "$$b" ]; then echo "== $$b"; "$$b" || exit 1; fi; done

fuzz: deps
	CC=clang $(CMAKE) -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug -DHEW_FUZZ=ON \
	  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
	$(CMAKE) --build build/fuzz -j $(JOBS)
	@for f in build/fuzz/fuzz/fuzz_*; do \
	  if [ -x "$$f" ] && [ -f "$$f" ]; then n=$$(basename $$f); echo "== $$n ($(FUZZ_SECONDS) s)"; \
	    mkdir -p build/fuzz/corpus/$$n; \
	    if "$$f" -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build/fuzz/ \
	        build/fuzz/corpus/$$n fuzz/corpus/$$n >build/fuzz/$$n.log 2>&1; then tail -n 3 build/fuzz/$$n.log; \
	    else tail -n 40 build/fuzz/$$n.log; echo "fuzz: $$n failed (log: build/fuzz/$$n.log)"; exit 1; fi; fi; done

# install: the release build's binary, man page, completions, libhew + hew.h + hew.pc
# under PREFIX (default /usr/local); DESTDIR=/tmp/stage for packaging. Installs nothing
# from the network: the build packages come first (scripts/install-deps --build).
PREFIX ?= /usr/local
.PHONY: install
install:
	$(CMAKE) -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	$(CMAKE) --build build/release -j $(JOBS) --target hew_cli hew_shared hew_public_archive
	DESTDIR=$(DESTDIR) $(CMAKE) --install build/release

# deb: build/hew_VERSION_ARCH.deb (sudo apt install ./build/hew_*.deb); dist: the
# relocatable build/hew-VERSION-linux-MACHINE.tar.gz. Neither installs anything.
deb:
	@./scripts/package deb

dist tarball:
	@./scripts/package tar

clean:
	rm -rf build
