#!/usr/bin/env bash
# End to end: a model hew's table does not know. `hew -p` says so on stderr and shows how
# to describe it under "models" in the config file; a description there (the user's file
# or the project's) is used — the request carries its max_output — and silences the note;
# a wrong description is refused naming the file, the model and the key (exit 2).
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-model.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME/hew" "$work/ws/.hew"
cat >"$work/s.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"}]}
JSON
run() { # run MODEL: a one-turn task; leaves $rc, $work/err, $work/req.json
    fake_start "$work/s.json" || fail "fake_start"
    ANTHROPIC_API_KEY=sk-e2e-model-0123456789 "$HEW_BIN" -p "hi" --provider anthropic \
        --model "$1" --base-url "$FAKE_URL" --cwd "$work/ws" --xml-tools \
        >"$work/out" 2>"$work/err"
    rc=$?
    head -n 1 "$FAKE_RECORD" >"$work/req.json" 2>/dev/null
    fake_stop
}

# 1. unknown: a note with what to write
run my-local-model
[[ $rc -eq 0 ]] || fail "unknown model: exit $rc: $(cat "$work/err")"
grep -q 'does not know "my-local-model"' "$work/err" || fail "no note: $(cat "$work/err")"
grep -q '"models": {"my-local-model": {"context_window"' "$work/err" || fail "no example: $(cat "$work/err")"

# 2. a known model: no note
run claude-sonnet-4-5
grep -q 'does not know' "$work/err" && fail "note for a known model: $(cat "$work/err")"

# 3. described in the user's file: used, no note
echo '{"models": {"my-local-model": {"context_window": 65536, "max_output": 12345}}}' \
    >"$XDG_CONFIG_HOME/hew/config.json"
run my-local-model
[[ $rc -eq 0 ]] || fail "described model: exit $rc: $(cat "$work/err")"
grep -q 'does not know' "$work/err" && fail "note for a described model: $(cat "$work/err")"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["body"]; assert b["max_tokens"] == 12345, b["max_tokens"]' \
    "$work/req.json" || fail "the description's max_output did not reach the request"

# 4. the project's file may describe a model too (and wins)
echo '{"models": {"my-local-model": {"max_output": 2222}}}' >"$work/ws/.hew/config.json"
run my-local-model
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["body"]; assert b["max_tokens"] == 2222, b["max_tokens"]' \
    "$work/req.json" || fail "the project's description did not win"
rm "$work/ws/.hew/config.json"

# 5. a wrong description: the file, the model, the key
echo '{"models": {"my-local-model": {"context_windw": 65536}}}' >"$XDG_CONFIG_HOME/hew/config.json"
run my-local-model
[[ $rc -eq 2 ]] || fail "a wrong description: exit $rc"
grep -q 'config.json: models.my-local-model: .*context_windw: unknown key' "$work/err" ||
    fail "the error does not name the key: $(cat "$work/err")"
echo '{"models": {"my-local-model": {"images": "yes"}}}' >"$XDG_CONFIG_HOME/hew/config.json"
run my-local-model
[[ $rc -eq 2 ]] && grep -q 'models.my-local-model: .*images' "$work/err" ||
    fail "a wrong type is not refused with its key: $(cat "$work/err")"
echo "ok"
