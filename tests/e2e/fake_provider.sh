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
cat >"$work/scenario.json" <<'JSON'
{"responses": [
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
echo "ok"
