#!/usr/bin/env bash
# End to end: scripts/check-symbols — passes on this build's libhew.so and libhew.a (they
# export only hew_ names), and fails, naming the symbol, on a tiny .so and a tiny .a built
# here that export one non-hew_ name beside a hew_ one (so the check can fail at all),
# while the same libraries without it pass; and fails, naming the function, on a build
# directory whose libhew lacks a function the public headers declare (a forgotten HEW_API).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/../../scripts/check-symbols
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(dirname "$HEW_BIN")
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-symbols.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

"$check" "$build" >"$work/out" 2>&1 || { cat "$work/out" >&2; fail "this build's libraries"; }
grep -q 'libhew.so: [0-9]* symbols, all hew_' "$work/out" || fail "libhew.so not checked: $(cat "$work/out")"
grep -q 'libhew.a: [0-9]* symbols, all hew_' "$work/out" || fail "libhew.a not checked: $(cat "$work/out")"

printf 'int hew_fine(void) { return 1; }\nint buf_init(void) { return 2; }\n' >"$work/leak.c"
printf 'int hew_fine(void) { return 1; }\nstatic int buf_init(void) { return 2; }\nint hew_other(void) { return buf_init(); }\n' >"$work/clean.c"
for v in leak clean; do
    cc -fPIC -c "$work/$v.c" -o "$work/$v.o"
    cc -shared "$work/$v.o" -o "$work/lib$v.so"
    ar qc "$work/lib$v.a" "$work/$v.o"
done
for lib in libleak.so libleak.a; do
    if "$check" "$work/$lib" >"$work/out" 2>&1; then
        fail "check-symbols passed $lib, which exports buf_init"
    fi
    grep -q '^  buf_init$' "$work/out" || fail "check-symbols did not name buf_init for $lib: $(cat "$work/out")"
done
"$check" "$work/libclean.so" "$work/libclean.a" >"$work/out" 2>&1 ||
    fail "check-symbols refused clean libraries: $(cat "$work/out")"

# A build whose libhew exports only hew_ names, but not hew_version (declared in hew.h).
mkdir "$work/build"
cp "$work/libclean.so" "$work/build/libhew.so"
cp "$work/libclean.a" "$work/build/libhew.a"
if "$check" "$work/build" >"$work/out" 2>&1; then
    fail "check-symbols passed a libhew without the declared API"
fi
grep -q '^  hew_version$' "$work/out" || fail "check-symbols did not name hew_version: $(cat "$work/out")"
echo "check_symbols: ok"
