#!/usr/bin/env bash
# End to end, seed 003 (attemptApiRequest): before a request hew waits for MCP servers
# still on their first connection — at most 10 s, ONCE per task, never fatal — and a
# server that did not make it is said (a "notice" event of kind mcp_wait_timeout) and
# logged (hew.log), once. The server here (`sleep`) never answers `initialize`; the task
# makes three requests. Counted by events and log lines, never by the clock (the one
# 10 s wait is the behaviour under test, not an assertion). docs/seed-behaviours.md A1/A15.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "no jq command (run scripts/install-deps)"
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-seeds.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
mkdir -p "$work/ws" "$work/config/hew" "$work/state" "$work/data"
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data
export ANTHROPIC_API_KEY=sk-e2e-seeds-0123456789
jq -n '{mcpServers: {slowpoke: {command: "sleep", args: ["600"]}}}' >"$work/config/hew/mcp.json"

cat >"$work/three.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<list_files>\n<path>.</path>\n</list_files>"},
  {"protocol": "anthropic", "text": "<list_files>\n<path>.</path>\n</list_files>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>listed twice</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/three.json" || fail "fake_start"
rc=0
"$HEW_BIN" -p "List the files twice." --json --provider anthropic --model claude-test-model \
    --base-url "$FAKE_URL" --cwd "$work/ws" --yolo --xml-tools \
    >"$work/events.jsonl" 2>"$work/stderr" || rc=$?
[[ $rc -eq 0 ]] || fail "hew exited $rc: $(cat "$work/stderr")"
[[ $(wc -l <"$FAKE_RECORD") -eq 3 ]] || fail "expected 3 requests, got $(wc -l <"$FAKE_RECORD")"

# One notice for the whole task, naming the server, with the first request.
n=$(jq -s '[.[] | select(.type == "notice" and .data.kind == "mcp_wait_timeout")] | length' "$work/events.jsonl")
[[ $n -eq 1 ]] || fail "expected 1 mcp_wait_timeout notice, got $n: $(jq -c 'select(.type=="notice")' "$work/events.jsonl")"
jq -e -s '[.[] | select(.type == "notice" and .data.kind == "mcp_wait_timeout")][0] |
    .data.servers == ["slowpoke"] and .data.waited_ms == 10000 and (.text | contains("slowpoke"))' \
    "$work/events.jsonl" >/dev/null || fail "the notice does not name the server: $(grep mcp_wait_timeout "$work/events.jsonl")"
jq -e -s 'map(.type) | index("notice") < ([indices("api_req_started")[1]] | first)' \
    "$work/events.jsonl" >/dev/null || fail "the notice did not come with the first request"
# And one line in hew.log.
log=$work/state/hew/hew.log
[[ -f $log ]] || fail "no hew.log in $work/state/hew"
n=$(grep -c "for MCP servers to connect" "$log" || true)
[[ $n -eq 1 ]] || fail "expected 1 log line about the MCP wait, got $n: $(cat "$log")"
grep "for MCP servers to connect" "$log" | grep -q "slowpoke" || fail "the log line does not name the server"
# Every response was read to its end (the fake provider's outcome record).
for i in 0 1 2; do
    o=$(fake_wait_outcome "$i") || fail "response $i has no outcome"
    jq -e '.outcome == "complete" and .bytes_sent == .bytes_total' <<<"$o" >/dev/null ||
        fail "response $i did not end complete: $o"
done
fake_stop
echo "seeds: ok"
