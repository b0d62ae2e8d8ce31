#!/usr/bin/env bash
# End to end: `hew debug parse` runs the real binary on fixture answers (whole and in
# chunks, with default and with --tools names) and prints exactly the expected blocks;
# a missing file and bad options fail with a message and a non-zero status.
# Needs python3 (JSON comparison, key order included). Writes only to a temporary dir.
set -euo pipefail
fix="$HEW_TEST_FIXTURES/parse"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

same_json() { # got-file want-file label
    python3 - "$1" "$2" "$3" <<'PY' || exit 1
import json, sys
got_text = open(sys.argv[1], encoding="utf-8").read()
want = json.load(open(sys.argv[2], encoding="utf-8"), object_pairs_hook=lambda p: p)
try:
    got = json.loads(got_text, object_pairs_hook=lambda p: p)
except ValueError as e:
    print(f"FAIL: {sys.argv[3]}: output is not JSON ({e}): {got_text!r}", file=sys.stderr)
    sys.exit(1)
if got != want:
    print(f"FAIL: {sys.argv[3]}:\n  got  {got_text.strip()}\n  want {json.dumps(want)}",
          file=sys.stderr)
    sys.exit(1)
PY
}

for name in content_close_inside_file unclosed_tool two_tools crlf multibyte \
            partial_tag_at_end nested_looking_tags empty_params unknown_tags; do
    for chunk in "" 1 7; do
        args=()
        [[ -n $chunk ]] && args=(--chunk "$chunk")
        "$HEW_BIN" debug parse "${args[@]}" "$fix/$name.txt" >"$tmp/out.json" ||
            fail "$name: exit $?"
        same_json "$tmp/out.json" "$fix/$name.expect.json" "$name (chunk ${chunk:-whole})"
    done
done

# --tools replaces Cline's names: read_file is then plain text, my_tool is a tool.
printf 'Hi <read_file><path>a</path></read_file>\n<my_tool>\n<path>b</path>\n</my_tool>' \
    >"$tmp/custom.txt"
"$HEW_BIN" debug parse --tools my_tool,other --chunk 3 "$tmp/custom.txt" >"$tmp/out.json"
cat >"$tmp/want.json" <<'JSON'
[{"type":"text","content":"Hi <read_file><path>a</path></read_file>","partial":false},
 {"type":"tool_use","name":"my_tool","params":{"path":"b"},"partial":false}]
JSON
same_json "$tmp/out.json" "$tmp/want.json" "--tools"

# Errors: a missing file, a bad chunk size, a bad tool name.
set +e
err=$("$HEW_BIN" debug parse "$tmp/missing.txt" 2>&1 >/dev/null); rc=$?
[[ $rc -ne 0 && $err == *"missing.txt"* ]] || fail "missing file: exit $rc, stderr '$err'"
err=$("$HEW_BIN" debug parse --chunk 0 "$fix/crlf.txt" 2>&1 >/dev/null); rc=$?
[[ $rc -ne 0 && $err == *"--chunk"* ]] || fail "--chunk 0: exit $rc, stderr '$err'"
err=$("$HEW_BIN" debug parse --tools 'a b' "$fix/crlf.txt" 2>&1 >/dev/null); rc=$?
[[ $rc -ne 0 && $err == *"tool name"* ]] || fail "bad tool name: exit $rc, stderr '$err'"
"$HEW_BIN" debug parse "$fix/empty_file.txt" >"$tmp/out.json"; rc=$?
set -e
[[ $rc -eq 0 && $(cat "$tmp/out.json") == "[]" ]] || fail "empty file: exit $rc"
echo "debug_parse: ok"
