#!/usr/bin/env bash
# End to end: what goes into and comes out of a headless run (issue #18), through the
# real binary against the fake provider:
#   -o FILE: the result byte for byte (also with --json); a failed run removes an earlier
#     FILE; a FILE in a missing folder is a usage error (2) before any request;
#   --api-key-file FILE (and HEW_API_KEY_FILE): the key the provider gets, its trailing
#     newline stripped; an empty file is a usage error; a file others can read warns;
#     the key is never printed;
#   ANTHROPIC_BASE_URL / OPENAI_BASE_URL / GOOGLE_GEMINI_BASE_URL: used for their
#     provider, under the config file and --base-url; `hew config` shows the source;
#   -p TEXT with standard input: TEXT, a blank line, the input; a too large input is a
#     usage error;
#   --protocol openai-responses reaches /v1/responses, and the models OpenAI serves only
#     there (gpt-5-codex) go there by themselves unless --protocol says otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'fake_stop; rm -rf "$work"' EXIT
mkdir -p "$work/ws" "$work/home"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
export ANTHROPIC_API_KEY=e2e-test-key
unset ANTHROPIC_BASE_URL OPENAI_BASE_URL GOOGLE_GEMINI_BASE_URL HEW_BASE_URL HEW_API_KEY_FILE
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work/ws" --retry-delay-ms 10 --ephemeral "$@"; }
nreq() { if [[ -f $FAKE_RECORD ]]; then wc -l <"$FAKE_RECORD"; else echo 0; fi; }

# 1. -o FILE: the result, byte-exact (no newline added), with and without --json.
fake_start "$here/data/headless_scenario.json"
hew -p "Paint the shed" -o "$work/result.txt" </dev/null >/dev/null 2>"$work/err" ||
    fail "-o run failed: $(cat "$work/err")"
printf 'The shed is blue.' | cmp - "$work/result.txt" || fail "-o content: '$(cat "$work/result.txt")'"
fake_stop
fake_start "$here/data/headless_scenario.json"
rm -f "$work/result.txt"
hew -p "Paint the shed" --json -o "$work/result.txt" </dev/null >"$work/events" 2>"$work/err" ||
    fail "-o --json run failed: $(cat "$work/err")"
printf 'The shed is blue.' | cmp - "$work/result.txt" || fail "-o --json content"
jq -e 'select(.type == "task_end")' "$work/events" >/dev/null || fail "-o --json: no task_end line"
[[ -z $(find "$work" -maxdepth 1 -name '.hew-output-*') ]] || fail "-o left a temporary file"
fake_stop
# a failed run removes the earlier result: FILE exists only after a completed run
fake_start "$here/data/headless_fail_scenario.json"
set +e
hew -p "x" -o "$work/result.txt" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -ne 0 ]] || fail "the failing run exited 0"
[[ ! -e $work/result.txt ]] || fail "-o: a failed run left the earlier result"
fake_stop
# a FILE that cannot be written: a usage error before any request
fake_start "$here/data/headless_scenario.json"
set +e
hew -p "x" -o "$work/no/such/dir/r.txt" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "-o in a missing folder: exit $rc, want 2"
grep -q "does not exist" "$work/err" || fail "-o missing folder: $(cat "$work/err")"
[[ $(nreq) -eq 0 ]] || fail "-o missing folder: a request was sent"
fake_stop

# 2. --api-key-file: the provider gets the file's key (fkx***, not the environment's e2e***).
printf 'fkx-file-key-0123456789\n' >"$work/key"
chmod 600 "$work/key"
fake_start "$here/data/headless_scenario.json"
hew -p "Paint the shed" --api-key-file "$work/key" </dev/null >/dev/null 2>"$work/err" ||
    fail "--api-key-file run failed: $(cat "$work/err")"
[[ $(jq -r 'select(.index == 0) | .headers["x-api-key"]' "$FAKE_RECORD") == 'fkx***' ]] ||
    fail "--api-key-file: the provider got $(jq -r '.headers["x-api-key"]' "$FAKE_RECORD" | head -1)"
! grep -q "API key file" "$work/err" || fail "--api-key-file 0600 warned: $(cat "$work/err")"
fake_stop
# the variable, a file others can read (a warning, the key never shown)
chmod 644 "$work/key"
fake_start "$here/data/headless_scenario.json"
HEW_API_KEY_FILE=$work/key hew -p "Paint the shed" </dev/null >/dev/null 2>"$work/err" ||
    fail "HEW_API_KEY_FILE run failed: $(cat "$work/err")"
[[ $(jq -r 'select(.index == 0) | .headers["x-api-key"]' "$FAKE_RECORD") == 'fkx***' ]] ||
    fail "HEW_API_KEY_FILE: the provider got another key"
grep -q "other users can read the API key file" "$work/err" || fail "no warning for a 0644 key file"
! grep -q "0123456789" "$work/err" || fail "the key was printed"
fake_stop
"$HEW_BIN" config --json --api-key-file "$work/key" 2>/dev/null >"$work/cfg"
jq -e '.api_key.source | startswith("flag --api-key-file")' "$work/cfg" >/dev/null ||
    fail "hew config: api_key source $(jq -c .api_key "$work/cfg")"
! grep -q "0123456789" "$work/cfg" || fail "hew config printed the key"
: >"$work/empty"
set +e
"$HEW_BIN" -p "x" --api-key-file "$work/empty" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "is empty" "$work/err" || fail "empty key file: exit $rc, $(cat "$work/err")"
printf 'fkx-one\nfkx-two\n' >"$work/two"
set +e
"$HEW_BIN" -p "x" --api-key-file "$work/two" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && ! grep -q "fkx-" "$work/err" || fail "two-line key file: exit $rc, $(cat "$work/err")"

# 3. The SDKs' base URL variables, for their provider, under the config and the flag.
fake_start "$here/data/headless_scenario.json"
out=$(ANTHROPIC_BASE_URL=$FAKE_URL "$HEW_BIN" --provider anthropic --model claude-e2e \
    --cwd "$work/ws" --ephemeral -p "Paint the shed" </dev/null 2>"$work/err") ||
    fail "ANTHROPIC_BASE_URL run failed: $(cat "$work/err")"
[[ $out == "The shed is blue." && $(nreq) -eq 2 ]] || fail "ANTHROPIC_BASE_URL: '$out'"
fake_stop
src=$(ANTHROPIC_BASE_URL=http://127.0.0.1:9 "$HEW_BIN" config --json --provider anthropic |
    jq -r '.base_url.source')
[[ $src == "environment ANTHROPIC_BASE_URL" ]] || fail "hew config: base_url source '$src'"
mkdir -p "$XDG_CONFIG_HOME/hew"
echo '{"base_url": "http://127.0.0.1:7/from-file"}' >"$XDG_CONFIG_HOME/hew/config.json"
v=$(ANTHROPIC_BASE_URL=http://127.0.0.1:9 "$HEW_BIN" config --json --provider anthropic | jq -r .base_url.value)
[[ $v == "http://127.0.0.1:7/from-file" ]] || fail "the config file does not win over the variable: $v"
rm "$XDG_CONFIG_HOME/hew/config.json"
v=$(ANTHROPIC_BASE_URL=http://127.0.0.1:9 "$HEW_BIN" config --json --provider anthropic --base-url http://x.test | jq -r .base_url.value)
[[ $v == "http://x.test" ]] || fail "--base-url does not win over the variable: $v"
v=$(ANTHROPIC_BASE_URL=http://127.0.0.1:9 "$HEW_BIN" config --json --provider openai | jq -r .base_url.value)
[[ $v == null ]] || fail "ANTHROPIC_BASE_URL used for openai: $v"
v=$(GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/ "$HEW_BIN" config --json --provider gemini | jq -r .base_url.value)
[[ $v == "http://127.0.0.1:9/v1beta" ]] || fail "GOOGLE_GEMINI_BASE_URL: $v"

# 4. -p TEXT and standard input: TEXT, a blank line, the input.
fake_start "$here/data/headless_scenario.json"
printf 'diff --git a/x b/x\n+added line\n' | hew -p "review this" >/dev/null 2>"$work/err" ||
    fail "stdin join run failed: $(cat "$work/err")"
jq -e -s '.[0].body.messages[0].content[0].text |
       contains("review this\n\ndiff --git a/x b/x\n+added line")' "$FAKE_RECORD" >/dev/null ||
    fail "stdin join: the model got $(jq -c 'select(.index == 0) | .body.messages[0].content' "$FAKE_RECORD" | head -c 600)"
fake_stop
fake_start "$here/data/headless_scenario.json"
set +e
head -c $((9 << 20)) /dev/zero | tr '\0' 'x' | hew -p "review this" >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "larger than 8 MiB" "$work/err" || fail "huge stdin: exit $rc, $(cat "$work/err")"
[[ $(nreq) -eq 0 ]] || fail "huge stdin: a request was sent"
fake_stop

# 5. --protocol, and Responses by itself for the models OpenAI serves only there.
export OPENAI_API_KEY=e2e-openai-key
oai() { "$HEW_BIN" --provider openai --base-url "$FAKE_URL/v1" --cwd "$work/ws" --ephemeral --xml-tools \
    --retry-delay-ms 10 "$@"; }
fake_start "$here/data/responses_scenario.json"
out=$(oai --model gpt-4.1 --protocol openai-responses -p "x" </dev/null 2>"$work/err") ||
    fail "--protocol openai-responses failed: $(cat "$work/err")"
[[ $(jq -r .path "$FAKE_RECORD") == /v1/responses && $out == "Spoke Responses." ]] ||
    fail "--protocol openai-responses: $(jq -r .path "$FAKE_RECORD") '$out'"
[[ -z $(fake_violations) ]] || fail "invalid Responses request: $(fake_violations)"
fake_stop
fake_start "$here/data/responses_scenario.json"
out=$(oai --model gpt-5-codex -p "x" </dev/null 2>"$work/err") ||
    fail "gpt-5-codex failed: $(cat "$work/err")"
[[ $(jq -r .path "$FAKE_RECORD") == /v1/responses ]] ||
    fail "gpt-5-codex did not go to /v1/responses: $(jq -r .path "$FAKE_RECORD")"
[[ -z $(fake_violations) ]] || fail "invalid Responses request: $(fake_violations)"
fake_stop
fake_start "$here/data/chat_scenario.json"
out=$(oai --model gpt-5-codex --protocol openai-chat -p "x" </dev/null 2>"$work/err") ||
    fail "gpt-5-codex --protocol openai-chat failed: $(cat "$work/err")"
[[ $(jq -r .path "$FAKE_RECORD") == /v1/chat/completions ]] ||
    fail "--protocol openai-chat did not win: $(jq -r .path "$FAKE_RECORD")"
fake_stop
fake_start "$here/data/chat_scenario.json"
out=$(OPENAI_BASE_URL=$FAKE_URL/v1 "$HEW_BIN" --provider openai --model gpt-4.1 --cwd "$work/ws" --xml-tools \
    --ephemeral -p "x" </dev/null 2>"$work/err") || fail "OPENAI_BASE_URL run failed: $(cat "$work/err")"
[[ $(jq -r .path "$FAKE_RECORD") == /v1/chat/completions && $out == "Spoke Chat." ]] ||
    fail "OPENAI_BASE_URL / gpt-4.1: $(jq -r .path "$FAKE_RECORD") '$out'"
fake_stop
echo "task_io: ok"
