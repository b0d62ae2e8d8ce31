#!/usr/bin/env bash
# End to end: big tool calls through `hew -p` against the fake provider. Gemini sends a
# functionCall whole in one SSE line (so do some OpenAI-compatible servers), so a 2 MB
# write_to_file is one 2 MB line: it must decode, run and write the file, in one request.
# A line past the stream cap (sized from the largest file content hew writes) fails ONCE
# with a clear error — a retry would get the same line again, so none is paid for.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-bigtool.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME" "$work/ws"
export GEMINI_API_KEY=e2e-test-key

hew() {
    "$HEW_BIN" -p "Write big.txt." --provider gemini --model gemini-2.5-pro --native-tools \
        --auto-approve read,edit --base-url "$FAKE_URL" --cwd "$work/ws" \
        --retry-delay-ms 10 "$@" </dev/null
}

# scenario FILE BYTES: a Gemini functionCall write_to_file of BYTES bytes of content (lines
# of 63 letters and a newline), then an attempt_completion.
scenario() {
    python3 - "$1" "$2" <<'PY'
import json, sys
path, size = sys.argv[1], int(sys.argv[2])
line = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
content = (line * (size // len(line) + 1))[:size - 1] + "\n"
json.dump({"responses": [
    # delta_size: the fake cuts every call's arguments into deltas even for Gemini (which
    # sends them whole); big pieces keep it from making millions of them.
    {"protocol": "gemini", "delta_size": 1 << 20, "tool_calls": [
        {"name": "write_to_file", "arguments": {"path": "big.txt", "content": content}}]},
    {"protocol": "gemini", "tool_calls": [
        {"name": "attempt_completion", "arguments": {"result": "written"}}]},
]}, open(path, "w"))
PY
}

# 1. 2 MB in one line: written whole, with exactly the two requests of the task.
scenario "$work/two_mb.json" $((2 * 1024 * 1024))
fake_start "$work/two_mb.json"
out=$(hew 2>"$work/err") || fail "2 MB write: exit $?: $(cat "$work/err")"
[[ $out == written ]] || fail "2 MB write: result '$out'"
[[ $(stat -c %s "$work/ws/big.txt") == $((2 * 1024 * 1024)) ]] ||
    fail "2 MB write: big.txt has $(stat -c %s "$work/ws/big.txt") bytes"
python3 - "$work/ws/big.txt" "$FAKE_RECORD" <<'PY'
import json, sys
line = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
data = open(sys.argv[1]).read()
want = (line * (len(data) // len(line) + 1))[:len(data) - 1] + "\n"
assert data == want, "big.txt differs from what the model wrote"
reqs = [json.loads(l) for l in open(sys.argv[2])]
assert len(reqs) == 2, len(reqs)
# The tool result went back as the functionResponse of the call.
parts = [p for c in reqs[1]["body"]["contents"] for p in c["parts"]]
assert any("functionResponse" in p and p["functionResponse"]["name"] == "write_to_file"
           for p in parts), parts
PY
fake_stop

# 2. A line past the cap: one request, a clear error on stderr, exit 1, no file. The body
#    is replayed from a file (a 44 MB generated scenario takes the fake seconds to load);
#    the answers after it would complete the task if hew retried.
rm -f "$work/ws/big.txt"
python3 - "$work/too_big.sse" "$work/too_big.json" <<'PY'
import json, sys
line = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
size = 44 * 1000 * 1000
content = (line * (size // len(line) + 1))[:size]
chunk = {"candidates": [{"content": {"parts": [{"functionCall": {
    "name": "write_to_file", "args": {"path": "big.txt", "content": content}}}],
    "role": "model"}, "finishReason": "STOP", "index": 0}]}
with open(sys.argv[1], "w") as f:
    f.write("data: " + json.dumps(chunk) + "\r\n\r\n")
done = {"protocol": "gemini", "tool_calls": [
    {"name": "attempt_completion", "arguments": {"result": "written"}}]}
json.dump({"responses": [
    {"replay": sys.argv[1], "status": 200, "headers": {"content-type": "text/event-stream"}},
    done, done, done]}, open(sys.argv[2], "w"))
PY
fake_start "$work/too_big.json"
set +e
hew >/dev/null 2>"$work/err"
rc=$?
set -e
[[ $rc == 1 ]] || fail "oversize: exit $rc, want 1: $(cat "$work/err")"
grep -q "too large" "$work/err" || fail "oversize: no clear error: $(cat "$work/err")"
grep -q "does not retry" "$work/err" || fail "oversize: the error does not say why no retry: $(cat "$work/err")"
[[ ! -e $work/ws/big.txt ]] || fail "oversize: big.txt was written"
n=$(wc -l <"$FAKE_RECORD")
[[ $n == 1 ]] || fail "oversize: $n requests, want 1 (no paid retries)"
[[ -n ${HEW_E2E_SHOW:-} ]] && cat "$work/err" >&2
fake_stop
echo "big_tool_calls: ok"
