#!/usr/bin/env bash
# End to end: secrets stay secret, through the real `hew` against the fake provider.
#   1. A provider's 401 body echoes the key hew sent ("Incorrect API key provided: …"):
#      the key appears nowhere — not in the --json events, stderr (plain, --verbose), the
#      SQLite store (dumped, and its raw files), nor the log — while the redacted message
#      is there; `hew debug sse` shows such a body with a key of a known shape redacted.
#   2. A command printing its environment sees none of GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
#      FOO_TOKEN, …; the variable the user's config allow-lists (commands.env_allow) is
#      there; a project's env_allow is ignored with a warning.
#   3. The log: after a run with an MCP server that writes to stderr, hew.log exists (0600
#      in a 0700 folder) and holds the server's lines, prefixed with its name, with the
#      token it printed redacted, and no more than about 1 MB of a flood; an MCP error echoing the server's configured credential
#      is redacted in the events and in what the model gets; `hew doctor` says where the
#      log is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-secrets.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
mkdir -p "$work/ws" "$work/config/hew"
unset HEW_LOG

# ---- 1. a key echoed in an error body ----------------------------------------------------
# No vendor shape: only the session's own key, registered with the redactor, catches it.
key="e2e-unlabelled-key-7Hq2Zx9wQ"
cat >"$work/echo.json" <<'JSON'
{"responses": [
  {"status": 401, "body": {"error": {"message": "Incorrect API key provided: {{request_key}}. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}},
  {"status": 401, "body": {"error": {"message": "Incorrect API key provided: {{request_key}}.", "type": "invalid_request_error", "code": "invalid_api_key"}}},
  {"status": 401, "body": {"error": {"message": "Incorrect API key provided: {{request_key}}.", "type": "invalid_request_error", "code": "invalid_api_key"}}},
  {"status": 401, "body": {"error": {"message": "Incorrect API key provided: {{request_key}}.", "type": "invalid_request_error", "code": "invalid_api_key"}}}
]}
JSON
fake_start "$work/echo.json"
hew_echo() {
    OPENAI_API_KEY=$key "$HEW_BIN" -p "hello" --provider openai --model gpt-4o \
        --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 "$@" </dev/null
}
set +e
hew_echo --json >"$work/events.jsonl" 2>"$work/stderr.json"
rc1=$?
hew_echo >"$work/out.plain" 2>"$work/stderr.plain"
rc2=$?
hew_echo --verbose >"$work/out.verbose" 2>"$work/stderr.verbose"
rc3=$?
# hew debug sse prints an error body: a key of a known shape is redacted there too.
shaped="sk-proj-DebugSse0123456789abcdefXYZ"
"$HEW_BIN" debug sse --header "Authorization: Bearer $shaped" \
    --body '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}' \
    "$FAKE_URL/v1/chat/completions" >"$work/debug.out" 2>&1
set -e
fake_stop
grep -qF 'Incorrect API key provided: sk-proj-[REDACTED]' "$work/debug.out" ||
    fail "hew debug sse does not show the redacted error: $(cat "$work/debug.out")"
if grep -qF "$shaped" "$work/debug.out"; then fail "hew debug sse printed the key"; fi
# (a refused key: exit class 3)
[[ $rc1 -eq 3 && $rc2 -eq 3 && $rc3 -eq 3 ]] || fail "exit $rc1/$rc2/$rc3, want 3: $(cat "$work/stderr.plain")"
# The error did come back, echoed and redacted (so the checks below are not vacuous).
grep -qF 'Incorrect API key provided: [REDACTED]' "$work/events.jsonl" ||
    fail "the redacted error is not in the events: $(cat "$work/events.jsonl")"
grep -qF 'Incorrect API key provided: [REDACTED]' "$work/stderr.plain" ||
    fail "the redacted error is not on stderr: $(cat "$work/stderr.plain")"
for f in events.jsonl stderr.json out.plain stderr.plain out.verbose stderr.verbose; do
    if grep -qaF "$key" "$work/$f"; then fail "the key leaked into $f: $(grep -aF "$key" "$work/$f")"; fi
done
db=$work/data/hew/hew.db
[[ -f $db ]] || fail "no task store at $db"
python3 - "$db" "$key" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
dump = "\n".join(con.iterdump())
assert "Incorrect API key provided" in dump, "the failure is not in the store"
assert sys.argv[2] not in dump, "the key is in the store"
PY
if grep -raF "$key" "$work/data"; then fail "the key is in the store's files"; fi
log=$work/state/hew/hew.log
[[ -f $log ]] || fail "no log at $log"
grep -qF 'request failed' "$log" || fail "the failure is not in the log: $(cat "$log")"
if grep -qaF "$key" "$log"; then fail "the key is in the log"; fi

# ---- 2. the environment of commands --------------------------------------------------------
cat >"$work/env.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<execute_command>\n<command>env | sort</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}
]}
JSON
printf '{"commands": {"env_allow": ["MY_ALLOWED_TOKEN", "CI_*"]}}\n' >"$work/config/hew/config.json"
mkdir -p "$work/ws/.hew"
printf '{"commands": {"env_allow": ["GITHUB_TOKEN"]}}\n' >"$work/ws/.hew/config.json"
fake_start "$work/env.json"
set +e
GITHUB_TOKEN=gh-e2e-secret-1 GH_TOKEN=gh-e2e-secret-2 AWS_SECRET_ACCESS_KEY=aws-e2e-secret-3 \
    AWS_SESSION_TOKEN=aws-e2e-secret-4 FOO_TOKEN=foo-e2e-secret-5 NPM_TOKEN=npm-e2e-secret-6 \
    DB_PASSWORD=db-e2e-secret-7 MY_ALLOWED_TOKEN=allowed-e2e-value CI_JOB_TOKEN=ci-e2e-value \
    AWS_REGION=eu-west-1 ANTHROPIC_API_KEY=sk-e2e-env-key-0123456789 \
    "$HEW_BIN" -p "print the environment" --provider anthropic --model claude-e2e \
    --base-url "$FAKE_URL" --cwd "$work/ws" --yolo --retry-delay-ms 10 </dev/null \
    >"$work/env.out" 2>"$work/env.err"
rc=$?
set -e
cp "$FAKE_RECORD" "$work/env.requests.jsonl"
fake_stop
[[ $rc -eq 0 ]] || fail "env task exited $rc: $(cat "$work/env.err")"
grep -q "env_allow is ignored in a project's config" "$work/env.err" ||
    fail "no warning about the project's env_allow: $(cat "$work/env.err")"
python3 - "$work/env.requests.jsonl" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
result = json.dumps(reqs[1]["body"]["messages"][-1])
assert "AWS_REGION=eu-west-1" in result, "the command's output is not there: " + result[:2000]
for secret in ("gh-e2e-secret-1", "gh-e2e-secret-2", "aws-e2e-secret-3", "aws-e2e-secret-4",
               "foo-e2e-secret-5", "npm-e2e-secret-6", "db-e2e-secret-7", "sk-e2e-env-key"):
    assert secret not in result, secret + " reached the command"
assert "MY_ALLOWED_TOKEN=allowed-e2e-value" in result, "the allow-listed variable is missing"
assert "CI_JOB_TOKEN=ci-e2e-value" in result, "the glob-allowed variable is missing"
PY
rm -rf "$work/ws/.hew" "$work/config/hew/config.json"

# ---- 3. the log, with an MCP server's stderr ------------------------------------------------
rm -rf "$work/state"
cred=noisy-credential-Zq81xx
printf '{"mcpServers": {"noisy": {"command": "python3", "args": ["%s"], "env": {"NOISY_TOKEN": "%s", "NOISY_FLOOD": "1"}}}}\n' \
    "$here/data/stderr_mcp_server.py" "$cred" >"$work/config/hew/mcp.json"
cat >"$work/done.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<use_mcp_tool>\n<server_name>noisy</server_name>\n<tool_name>peek</tool_name>\n<arguments>{\"path\": \"open.txt\"}</arguments>\n</use_mcp_tool>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/done.json"
ANTHROPIC_API_KEY=sk-e2e-log-key-0123456789 "$HEW_BIN" -p "hello" --provider anthropic \
    --model claude-e2e --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 --yolo \
    --xml-tools --json </dev/null >"$work/log.events" 2>"$work/log.err" ||
    fail "log task failed: $(cat "$work/log.err")"
cp "$FAKE_RECORD" "$work/log.requests.jsonl"
fake_stop
# An MCP error that echoes the server's configured credential: redacted for the user and
# for the model alike.
grep -qF 'bad credentials: [REDACTED]' "$work/log.events" ||
    fail "the MCP error is not there, redacted: $(cat "$work/log.events")"
for f in log.events log.err log.requests.jsonl; do
    if grep -qF "$cred" "$work/$f"; then fail "the MCP credential leaked into $f"; fi
done
[[ -f $log ]] || fail "no log at $log after a run with an MCP server"
[[ $(stat -c %a "$log") == 600 ]] || fail "the log's mode is $(stat -c %a "$log"), want 600"
[[ $(stat -c %a "$work/state/hew") == 700 ]] || fail "the log folder's mode is $(stat -c %a "$work/state/hew")"
grep -q '\[noisy\] stderr: stderr-server: starting up (marker-7d1c)' "$log" ||
    fail "the server's stderr line is not in the log: $(cat "$log")"
grep -qF 'using token ghp_[REDACTED]' "$log" || fail "the token line is not there redacted: $(cat "$log")"
if grep -qF 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' "$log"; then fail "the token is in the log"; fi
# A server's stderr is capped: 1.5 MB written, about 1 MB logged, and one line says so.
[[ $(grep -c 'has written more than 1048576 bytes to stderr' "$log") -eq 1 ]] ||
    fail "no single 'more than' line in the log"
grep -q 'flood 0000' "$log" || fail "the flood's first line is not logged"
if grep -q 'flood 2999' "$log"; then fail "the flood's last line was logged: no cap"; fi
size=$(stat -c %s "$log")
(( size < 1400000 )) || fail "the log is $size bytes: the cap did not hold"

# hew doctor says where the log is.
"$HEW_BIN" doctor --cwd "$work/ws" --provider anthropic --base-url "http://127.0.0.1:9" \
    >"$work/doctor.out" 2>&1 || true
grep -qF "$log" "$work/doctor.out" || fail "hew doctor does not say where the log is: $(cat "$work/doctor.out")"

echo "secrets: ok"
