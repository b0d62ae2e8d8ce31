# End-to-end check of tests/e2e/lib/fakeprov.sh: start the fake provider from a scenario
# with @FIXTURES@, fetch a generated stream and a replayed fixture with curl, read the
# record, and stop it cleanly. Needs the curl command; skips (exit 0) without it.
# Talks only to 127.0.0.1; never leaves the provider or its files behind.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
trap fake_stop EXIT

if ! command -v curl >/dev/null; then
    echo "skip: no curl command"
    exit 0
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-fake-e2e-test.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
# Lenient: these requests are hand-made curl bodies ({} and the like); the strict checks
# have their own section below.
cat >"$work/scenario.json" <<'JSON'
{"lenient": true, "responses": [
  {"protocol": "openai-chat", "text": "hello from the fake"},
  {"replay": "@FIXTURES@/providers/anthropic_text_tool_use.sse"}
]}
JSON

fake_start "$work/scenario.json" || fail "fake_start"
[[ $FAKE_URL =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || fail "FAKE_URL=$FAKE_URL"

body=$(curl -sS -X POST -H 'Authorization: Bearer sk-test-0123456789abcdef' \
    -d '{"model":"m"}' "$FAKE_URL/v1/chat/completions") || fail "curl 1"
[[ $body == *'"content":"hello fr"'* && $body == *'data: [DONE]'* ]] || fail "body 1: $body"

curl -sS -X POST -d '{}' -o "$work/replay.sse" "$FAKE_URL/v1/messages" || fail "curl 2"
cmp -s "$work/replay.sse" "$HEW_TEST_FIXTURES/providers/anthropic_text_tool_use.sse" ||
    fail "replayed body differs from the fixture"

[[ $(wc -l <"$FAKE_RECORD") -eq 2 ]] || fail "record has $(wc -l <"$FAKE_RECORD") lines"
grep -q '"path":"/v1/chat/completions"' "$FAKE_RECORD" || fail "record path"
grep -q '"authorization":"Bearer sk-\*\*\*"' "$FAKE_RECORD" || fail "masked authorization"
grep -q '0123456789abcdef' "$FAKE_RECORD" && fail "secret in the record"

fake_stop || fail "provider did not exit cleanly"

# Strict (the default): a request the real API would refuse gets that API's 400 body, is
# logged and recorded with its violation, and uses up no response.
cat >"$work/strict.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "first answer"},
  {"protocol": "openai-chat", "text": "second answer"}
]}
JSON
"$HEW_FAKE_PROVIDER" --scenario "$work/strict.json" --port 0 --record "$work/strict.jsonl" \
    >"$work/strict.url" 2>"$work/strict.log" &
strict_pid=$!
for ((i = 0; i < 200; i++)); do [[ -s $work/strict.url ]] && break; sleep 0.05; done
url=$(<"$work/strict.url")
# Issue #16's shape: a tool_use followed by a new user message instead of its result.
bad='{"model":"claude-e2e","max_tokens":100,"messages":[
  {"role":"user","content":"hi"},
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}]},
  {"role":"user","content":"more"}]}'
msg='messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
out=$(curl -sS -D "$work/h1" -X POST -d "$bad" "$url/v1/messages") || fail "strict curl 1"
head -1 "$work/h1" | grep -q ' 400' || fail "strict: status $(head -1 "$work/h1")"
grep -qi '^request-id: req_fake_strict_0' "$work/h1" || fail "strict: no request-id: $(cat "$work/h1")"
want='{"type":"error","error":{"type":"invalid_request_error","message":"'$msg'"},"request_id":"req_fake_strict_0"}'
[[ $out == "$want" ]] || fail "strict body: got $out"
# The next valid request still gets responses[0].
good='{"model":"claude-e2e","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}'
out=$(curl -sS -X POST -d "$good" "$url/v1/messages") || fail "strict curl 2"
[[ $out == *'"text":"first an"'* ]] || fail "strict: the valid request did not get responses[0]: $out"
# OpenAI Chat: a stray tool message, pretty-printed with its param.
out=$(curl -sS -X POST -d '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"x"}]}' \
    "$url/v1/chat/completions") || fail "strict curl 3"
want_chat=$'{\n    "error": {\n        "message": "Invalid parameter: messages with role \'tool\' must be a response to a preceeding message with \'tool_calls\'.",\n        "type": "invalid_request_error",\n        "param": "messages.[1].role",\n        "code": null\n    }\n}'
[[ $out == "$want_chat" ]] || fail "strict chat body: got $out"
# An odd path is not validated: {} there gets responses[1].
out=$(curl -sS -X POST -d '{}' "$url/v1/odd") || fail "strict curl 4"
[[ $out == *'second'* ]] || fail "strict: odd path was validated: $out"
kill -TERM "$strict_pid"; wait "$strict_pid" || fail "strict provider did not exit cleanly"
python3 - "$work/strict.jsonl" "$msg" <<'PY' || fail "strict record"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["index"] for r in recs] == [0, 0, 1, 1], [r["index"] for r in recs]
assert recs[0]["violation"] == sys.argv[2], recs[0]
assert "violation" not in recs[1] and "violation" not in recs[3], recs
assert recs[2]["violation"].startswith("Invalid parameter: messages with role 'tool'"), recs[2]
PY
grep -qF "400 strict anthropic violation (response #0 not used): $msg" "$work/strict.log" ||
    fail "strict: the violation is not logged: $(cat "$work/strict.log")"
[[ $(FAKE_RECORD=$work/strict.jsonl fake_violations | wc -l) -eq 2 ]] ||
    fail "fake_violations: $(FAKE_RECORD=$work/strict.jsonl fake_violations)"
[[ $(FAKE_RECORD=$work/strict.jsonl fake_violations | head -1) == "$msg" ]] ||
    fail "fake_violations' first line"

# --lenient: the same refused request is served.
"$HEW_FAKE_PROVIDER" --scenario "$work/strict.json" --port 0 --lenient --quiet \
    >"$work/lenient.url" &
lenient_pid=$!
for ((i = 0; i < 200; i++)); do [[ -s $work/lenient.url ]] && break; sleep 0.05; done
out=$(curl -sS -X POST -d "$bad" "$(<"$work/lenient.url")/v1/messages") || fail "lenient curl"
[[ $out == *'"text":"first an"'* ]] || fail "--lenient still validates: $out"
kill -TERM "$lenient_pid"; wait "$lenient_pid" || fail "lenient provider did not exit cleanly"
echo "ok"
