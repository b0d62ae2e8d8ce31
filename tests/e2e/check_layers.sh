#!/usr/bin/env bash
# scripts/check-layers: this checkout follows the layers, and every kind of forbidden
# include in a tiny fake tree (an upward arrow, peers, cli/ reaching into src/, a public
# header including src/, a folder missing from the table, a flat include of another
# folder's header) makes it fail, naming FILE:LINE and the arrow.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/../../scripts/check-layers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# The real tree passes.
"$check" >/dev/null || fail "this checkout breaks its own layers (run scripts/check-layers)"

# A tree that follows the layers: down arrows, own headers, public headers.
mk() { mkdir -p "$(dirname "$tmp/$1")"; printf '%s\n' "${@:2}" >"$tmp/$1"; }
mk src/base/buf.h '/* buf */'
mk src/sys/proc.h '#include "base/buf.h"'
mk src/sys/proc.c '#include <stdio.h>' '#include "sys/proc.h"' '#include "proc.h"'
mk src/tools/run.c '#include "sys/proc.h"' '#include "hew.h"'
mk src/lib/api.c '#include "tools/run.h"' '#include "hew.h"'
mk cli/cli.h '#include "hew.h"'
mk cli/main.c '#include "cli.h"' '#include "hew.h"' '#include <stdlib.h>'
mk include/hew.h '#include <stddef.h>' '#include "hew_code.h"'
mk include/hew_code.h '/* any header of include/ is public */'
mk src/base/err.h '#include "hew_code.h"'
out=$("$check" "$tmp" 2>&1) || fail "a tree that follows the layers is refused: $out"

# expect_refused FILE LINE... : add the lines to FILE, expect exit 1 naming what (a
# substring of the message), then take FILE back out.
expect_refused() { # what file lines...
    local what=$1 file=$2 rc=0 out
    shift 2
    local saved=
    [[ -f $tmp/$file ]] && saved=$(cat "$tmp/$file")
    mkdir -p "$(dirname "$tmp/$file")"
    printf '%s\n' "$@" >>"$tmp/$file"
    out=$("$check" "$tmp" 2>&1) || rc=$?
    [[ $rc -eq 1 ]] || fail "$file: exit $rc, want 1 ($out)"
    [[ $out == *"$what"* ]] || fail "$file: the message does not name '$what': $out"
    if [[ -n $saved ]]; then printf '%s\n' "$saved" >"$tmp/$file"; else rm -f "$tmp/$file"; fi
    "$check" "$tmp" >/dev/null 2>&1 || fail "$file: the tree does not pass again after the test"
}

# An upward arrow: base includes sys (line 2 of the file).
expect_refused "src/base/buf.h:2: base -> sys: an upward arrow" src/base/buf.h \
    '#include "sys/proc.h"'
# A cycle through two folders: sys -> tools while tools -> sys.
expect_refused "src/sys/proc.c:4: sys -> tools" src/sys/proc.c '#include "tools/run.h"'
# Peers: store and api are on one line of the table.
expect_refused "src/store/s.c:1: store -> api: store and api are peers" src/store/s.c \
    '#include "api/x.h"'
# cli/ reaches into src/.
expect_refused "cli/main.c:4: cli -> base" cli/main.c '#include "base/buf.h"'
# cli/ includes a flat header that is not its own (a src/ header by a -I path).
expect_refused "cli/main.c:4: cli -> proc.h" cli/main.c '#include "proc.h"'
# A public header includes src/.
expect_refused "include/hew.h:3: include -> base" include/hew.h '#include "base/buf.h"'
# A folder of src/ the table does not know.
expect_refused "src/extra/e.c:1: extra -> ?" src/extra/e.c '#include "base/buf.h"'
# A folder outside the table as a target.
expect_refused "src/tools/run.c:3: tools -> nowhere" src/tools/run.c '#include "nowhere/x.h"'
# A flat include of another folder's header (found only through a -I path).
expect_refused "src/tools/run.c:3: tools -> buf.h: no such header" src/tools/run.c \
    '#include "buf.h"'
# Indented and spaced directives count too.
expect_refused "src/base/buf.h:2: base -> lib" src/base/buf.h '  #  include "lib/api.h"'

# A usage error is not a pass.
rc=0
"$check" "$tmp/nothing-here" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "a root without src/: exit $rc, want 2"
echo "check_layers: ok"
