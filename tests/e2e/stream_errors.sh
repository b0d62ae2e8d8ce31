#!/usr/bin/env bash
# End to end: a failure in the middle of a streamed answer (after its first chunk) is
# retried by its error class, exactly like one before the first chunk: an error a retry
# would hit again (a refused request) and auth are never retried unasked — one request,
# then the task fails headless with the provider's words; a retryable one (overloaded)
# waits as long as the server asked (its "try again in …"), not the base delay.
# Each answer is a hand-made Anthropic stream (replayed byte for byte): text, then an
# `event: error`. The answers after it would complete the task if hew retried.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-streamerr.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME" "$work/ws"
export ANTHROPIC_API_KEY=e2e-test-key

hew() {
    "$HEW_BIN" -p "Do it." --provider anthropic --model claude-sonnet-4-5 --xml-tools \
        --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 "$@" </dev/null
}

# scenario NAME ERROR_TYPE MESSAGE: $work/NAME.json — the failing stream, then three
# answers that complete the task.
scenario() {
    python3 - "$work/$1.sse" "$work/$1.json" "$2" "$3" <<'PY'
import json, sys
sse, scen, etype, emsg = sys.argv[1:]
def ev(name, data):
    return "event: %s\ndata: %s\n\n" % (name, json.dumps(data))
body = ev("message_start", {"type": "message_start", "message": {
    "id": "msg_err", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [], "stop_reason": None, "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 1}}})
body += ev("content_block_start", {"type": "content_block_start", "index": 0,
                                   "content_block": {"type": "text", "text": ""}})
body += ev("content_block_delta", {"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": "Working on it"}})
body += ev("error", {"type": "error", "error": {"type": etype, "message": emsg}})
open(sse, "w").write(body)
done = {"protocol": "anthropic", "text":
        "<attempt_completion>\n<result>\ndone\n</result>\n</attempt_completion>"}
json.dump({"responses": [{"replay": sse, "status": 200,
                          "headers": {"content-type": "text/event-stream"}},
                         done, done, done]}, open(scen, "w"))
PY
}

# not_retried NAME ERROR_TYPE MESSAGE WANT: one request, exit WANT (its class: 1 a refused
# request, 3 a refused key), the provider's words on stderr.
not_retried() {
    scenario "$1" "$2" "$3"
    fake_start "$work/$1.json"
    set +e
    hew >/dev/null 2>"$work/err"
    local rc=$?
    set -e
    [[ $rc == "$4" ]] || fail "$1: exit $rc, want $4: $(cat "$work/err")"
    grep -qF "$3" "$work/err" || fail "$1: stderr lacks the provider's message: $(cat "$work/err")"
    local n
    n=$(wc -l <"$FAKE_RECORD")
    [[ $n == 1 ]] || fail "$1: $n requests, want 1 (a retry would hit the same error)"
    fake_stop
}

# 1. A request the provider refuses, mid-stream: bad_request, not retryable.
not_retried refused invalid_request_error "messages.1: the conversation is malformed" 1
# 2. Auth mid-stream: never retried unasked.
not_retried auth authentication_error "invalid x-api-key" 3

# 3. Overloaded mid-stream, "try again in 0.25s": retried once after 0.25 s (the base delay
#    is 10 ms), then the task completes.
scenario overloaded overloaded_error "Overloaded. Please try again in 0.25s."
fake_start "$work/overloaded.json"
hew --json >"$work/events.jsonl" 2>"$work/err" || fail "overloaded: exit $?: $(cat "$work/err")"
python3 - "$work/events.jsonl" "$FAKE_RECORD" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
retries = [e for e in events if e.get("type") == "error_retry"]
assert len(retries) == 1, retries
d = retries[0]["data"]
assert d["attempt"] == 1 and not d.get("failed"), d
assert abs(d["delaySeconds"] - 0.25) < 1e-9, d      # the server's wait, not 0.01
assert events[-1]["status"] == "completed", events[-1]
reqs = [json.loads(l) for l in open(sys.argv[2])]
assert len(reqs) == 2, len(reqs)
PY
fake_stop
echo "stream_errors: ok"
