#!/usr/bin/env bash
# End to end: libhew as an embedding program uses it — installed (`cmake --install` into a
# temporary prefix), then a small C program (data/embed.c) built with nothing but the
# installed header and `pkg-config hew`, once against libhew.so and once against
# libhew.a, each running a task against the fake provider. Proves that the installed
# header is self-contained, that both libraries link with what pkg-config says and export
# what the program needs, that the static one really is static (no libhew.so needed at
# run time), and the error contract seen from outside (data/embed.c).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(dirname "$HEW_BIN")
stage=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-embed.XXXXXX")
trap 'fake_stop; rm -rf -- "$stage"' EXIT
cmake --install "$build" --prefix "$stage" >/dev/null || fail "cmake --install"
export PKG_CONFIG_PATH=$stage/lib/pkgconfig
for f in include/hew.h include/hew_code.h include/hew_debug.h lib/libhew.a lib/libhew.so \
    lib/libhew.so.0; do
    [[ -e $stage/$f ]] || fail "not installed: $f"
done
# A sanitizer build's libraries need the program built with the same runtime.
san=()
if nm "$stage/lib/libhew.a" 2>/dev/null | grep ' U __asan_' >/dev/null; then
    # shellcheck disable=SC2054 # one flag naming two sanitizers
    san=(-fsanitize=address,undefined -fno-omit-frame-pointer)
fi
cflags=$(pkg-config --cflags hew) || fail "pkg-config --cflags hew"
libs=$(pkg-config --libs hew) || fail "pkg-config --libs hew"
# shellcheck disable=SC2086 # word splitting of pkg-config output is intended
cc -std=c17 -Wall -Wextra -Werror "${san[@]}" $cflags "$here/data/embed.c" $libs \
    -o "$stage/embed_so" || fail "embed.c does not build against libhew.so"
static_libs=$(pkg-config --static --libs hew) || fail "pkg-config --static --libs hew"
# shellcheck disable=SC2086
cc -std=c17 -Wall -Wextra -Werror "${san[@]}" $cflags "$here/data/embed.c" \
    ${static_libs/-lhew/-l:libhew.a} -o "$stage/embed_a" || fail "embed.c does not build against libhew.a"
readelf -d "$stage/embed_so" | grep -q 'NEEDED.*libhew\.so\.0' || fail "embed_so does not need libhew.so.0"
if readelf -d "$stage/embed_a" | grep -q 'NEEDED.*libhew'; then
    fail "embed_a needs a shared libhew: the static link did not take libhew.a"
fi

mkdir -p "$stage/ws" "$stage/data_so" "$stage/data_a"
fake_start "$here/data/embed_scenario.json"
out=$(LD_LIBRARY_PATH=$stage/lib "$stage/embed_so" "$FAKE_URL" "$stage/ws" "$stage/data_so") ||
    fail "embed_so: $out"
[[ $out == "embed: ok (libhew "* ]] || fail "embed_so said: $out"
fake_stop
fake_start "$here/data/embed_scenario.json"
out=$("$stage/embed_a" "$FAKE_URL" "$stage/ws" "$stage/data_a") || fail "embed_a: $out"
[[ $out == "embed: ok (libhew "* ]] || fail "embed_a said: $out"
fake_stop
echo "embed: ok"
