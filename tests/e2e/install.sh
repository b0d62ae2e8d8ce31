#!/usr/bin/env bash
# End to end: what `make install` puts in place, from this build: the binary, the man
# page (renders), the bash, zsh and fish completions (bash loads and completes; all three
# are checked against hew --help by e2e/completions), the licence, libhew (libhew.so with its soname links, libhew.a) with
# hew.h and a pkg-config file that a program compiles against. Installs into a temporary
# prefix only.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(dirname "$HEW_BIN")
stage=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-install.XXXXXX")
trap 'rm -rf -- "$stage"' EXIT
cmake --install "$build" --prefix "$stage" >/dev/null || fail "cmake --install"
for f in bin/hew lib/libhew.a lib/libhew.so lib/libhew.so.0 include/hew.h include/hew_code.h \
    include/hew_debug.h share/man/man1/hew.1 lib/pkgconfig/hew.pc share/doc/hew/LICENSE \
    share/bash-completion/completions/hew share/zsh/site-functions/_hew \
    share/fish/vendor_completions.d/hew.fish; do
    [[ -f $stage/$f ]] || fail "not installed: $f"
done
"$stage/bin/hew" --version | grep -q '^hew [0-9]' || fail "installed binary"
if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$stage/share/man/man1/hew.1" 2>/dev/null | grep -q 'CONFIGURATION' ||
        fail "man page does not render"
fi
out=$(bash -c 'source "$1"; COMP_WORDS=(hew --provider open); COMP_CWORD=2; _hew; echo "${COMPREPLY[*]}"' _ \
    "$stage/share/bash-completion/completions/hew")
[[ $out == "openai openai-compatible openrouter" ]] || fail "bash completion: $out"
flags=$(PKG_CONFIG_PATH=$stage/lib/pkgconfig pkg-config --cflags --libs hew) || fail "pkg-config hew"
[[ $flags == *"-I$stage/lib/pkgconfig/../../include"* && $flags == *-lhew* ]] || fail "pkg-config flags: $flags"
printf '#include <hew.h>\nint main(void) { return hew_version()[0] == 0; }\n' >"$stage/v.c"
cc -c $(PKG_CONFIG_PATH=$stage/lib/pkgconfig pkg-config --cflags hew) "$stage/v.c" -o "$stage/v.o" ||
    fail "a program does not compile against the installed header"
echo "install: ok"
