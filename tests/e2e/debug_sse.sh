#!/usr/bin/env bash
# End to end: `hew debug sse` streams answers of every protocol from the fake provider
# through the real HTTP + SSE path, reports an error status, and fails on a cut stream.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
trap fake_stop EXIT
fake_start "$here/data/debug_sse_scenario.json"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_text() { # path expected
    local out
    out=$("$HEW_BIN" debug sse --text --header "Authorization: Bearer sk-e2e-secret-value" \
        --body '{"model":"m","stream":true}' "$FAKE_URL$1")
    [[ $out == "$2" ]] || fail "$1: got '$out', want '$2'"
}

expect_text /v1/chat/completions "Grüße aus dem Test — 🚀 streamed."
expect_text /v1/messages "Anthropic says hi."
expect_text "/v1beta/models/m:streamGenerateContent?alt=sse" "Gemini over CRLF."
expect_text /v1/responses "Responses API text."

# An error status: exit 1, the body shown on stderr.
set +e
err=$("$HEW_BIN" debug sse --text "$FAKE_URL/v1/chat/completions" 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "401: exit $rc, want 1"
[[ $err == *"Incorrect API key provided"* ]] || fail "401: stderr lacks the server's message: $err"

# A connection dropped mid-stream is an error, not a clean end.
set +e
err=$("$HEW_BIN" debug sse --text "$FAKE_URL/v1/chat/completions" 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "cut stream: exit $rc, want 1"
[[ $err == *"dropped"* ]] || fail "cut stream: stderr does not say the connection dropped: $err"

# What hew sent, as the fake provider recorded it.
python3 - "$FAKE_RECORD" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 6, len(reqs)
assert reqs[0]["method"] == "POST" and reqs[0]["path"] == "/v1/chat/completions", reqs[0]
assert reqs[0]["body"] == {"model": "m", "stream": True}, reqs[0]["body"]
assert "secret" not in json.dumps(reqs[0]["headers"]), reqs[0]["headers"]
assert reqs[0]["headers"]["content-type"] == "application/json"
assert reqs[2]["query"] == "alt=sse", reqs[2]
PY
echo "debug_sse: ok"
