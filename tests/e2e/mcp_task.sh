# End-to-end: tasks through the real `hew -p --json` in which the fake provider's model
# uses a REAL MCP server (the "everything" server from the npm registry, over stdio, as
# configured in the user's mcp.json): with XML tool calls (use_mcp_tool, a resource read),
# with native tool calls ("everything__get-sum"), the server's autoApprove list, and the
# denial of an unapproved MCP tool when nobody can be asked. Asserts the events, and the
# requests hew sent: the MCP section of the system prompt, the native tool list and the
# tool results carrying the server's answers.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "FAIL: no jq command (run scripts/install-deps)"; exit 1; }
everything="$HEW_MCP_SERVERS/../@modelcontextprotocol/server-everything/dist/index.js"
[[ -f $everything ]] || fail "the MCP test servers are not installed: run scripts/install-deps"

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-mcp.XXXXXX")
trap 'fake_stop; [[ -n ${http_pid:-} ]] && kill $http_pid 2>/dev/null; rm -rf -- "$work"' EXIT
mkdir -p "$work/ws" "$work/config/hew"
export XDG_CONFIG_HOME=$work/config
export XDG_DATA_HOME=$work/data # its own trust.json (hew trust) and task store
jq -n --arg js "$everything" \
    --arg tag "$work" \
    '{mcpServers: {everything: {command: "node", args: [$js, "stdio", $tag], autoApprove: ["echo"]}}}' \
    >"$work/config/hew/mcp.json"

model=claude-test-model
run_hew() { # scenario-file extra-flags...
    local scenario=$1; shift
    fake_start "$scenario" || fail "fake_start"
    ANTHROPIC_API_KEY=sk-e2e-mcp-0123456789 "$HEW_BIN" -p "Add 19 and 23 with the MCP server." \
        --json --provider anthropic --model "$model" --base-url "$FAKE_URL" \
        --cwd "$work/ws" --timeout 90 "$@" >"$work/events.jsonl" 2>"$work/stderr"
    rc=$?
    cp "$FAKE_RECORD" "$work/requests.jsonl"
    fake_stop
}
has_event() { jq -e -s "$1" "$work/events.jsonl" >/dev/null || fail "no event matching $1: $(cat "$work/events.jsonl")"; }
request() { sed -n "${1}p" "$work/requests.jsonl" | jq -c '.body'; }

# ---- XML tool calls, everything approved by --yolo ----
cat >"$work/xml.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>get-sum</tool_name>\n<arguments>{\"a\": 19, \"b\": 23}</arguments>\n</use_mcp_tool>"},
  {"protocol": "anthropic", "text": "<access_mcp_resource>\n<server_name>everything</server_name>\n<uri>demo://resource/static/document/architecture.md</uri>\n</access_mcp_resource>"},
  {"protocol": "anthropic", "text": "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>get-sum</tool_name>\n<arguments>{\"a\": 19, </arguments>\n</use_mcp_tool>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>19 + 23 = 42</result>\n</attempt_completion>"}
]}
JSON
run_hew "$work/xml.json" --yolo --xml-tools
[[ $rc -eq 0 ]] || fail "hew exited $rc: $(cat "$work/stderr")"
has_event 'any(.[]; .type == "use_mcp_server" and .data.serverName == "everything" and .data.toolName == "get-sum")'
has_event 'any(.[]; .type == "mcp_server_response" and (.text | contains("42")))'
has_event 'any(.[]; .type == "use_mcp_server" and .data.type == "access_mcp_resource")'
has_event 'any(.[]; .type == "error" and (.text | contains("Invalid JSON argument used with everything for get-sum")))'
[[ $(wc -l <"$work/requests.jsonl") -eq 4 ]] || fail "expected 4 requests, got $(wc -l <"$work/requests.jsonl")"
r1=$(request 1)
jq -e '.system | tostring | contains("MCP SERVERS") and contains("## everything") and contains("get-sum") and contains("use_mcp_tool")' <<<"$r1" >/dev/null ||
    fail "the first request's system prompt lacks the MCP section: $(jq -r .system <<<"$r1" | grep -n MCP | head -3; cat "$work/stderr")"
r2=$(request 2)
jq -e '.messages | tostring | contains("The sum of 19 and 23 is 42") or contains("42")' <<<"$r2" >/dev/null ||
    fail "the tool result did not reach the model: $r2"
r3=$(request 3)
jq -e '.messages | tostring | contains("Architecture")' <<<"$r3" >/dev/null ||
    fail "the resource did not reach the model"
r4=$(request 4)
jq -e '.messages | tostring | contains("Invalid JSON argument")' <<<"$r4" >/dev/null ||
    fail "the invalid JSON was not said back to the model"

# ---- native tool calls; echo is on the server's autoApprove list, get-sum is not ----
cat >"$work/native.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_echo", "name": "everything__echo", "arguments": {"message": "native hello"}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_sum", "name": "everything__get-sum", "arguments": {"a": 19, "b": 23}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_done", "name": "attempt_completion", "arguments": {"result": "done"}}]}
]}
JSON
run_hew "$work/native.json" --native-tools
r1=$(request 1)
jq -e '[.tools[].name] | index("everything__echo") and index("everything__get-sum")' <<<"$r1" >/dev/null ||
    fail "the native tool list lacks the MCP tools: $(jq -c '[.tools[].name]' <<<"$r1")"
jq -e '[.tools[].name] | index("use_mcp_tool") | not' <<<"$r1" >/dev/null ||
    fail "use_mcp_tool is listed next to the native MCP tools"
jq -e '.tools[] | select(.name == "everything__get-sum") | .input_schema.properties.a' <<<"$r1" >/dev/null ||
    fail "the MCP tool's schema did not reach the request"
r2=$(request 2)
jq -e '.messages[-1].content[] | select(.type == "tool_result" and .tool_use_id == "toolu_echo") | tostring | contains("native hello")' <<<"$r2" >/dev/null ||
    fail "the echo result is not paired with its call: $r2"
# get-sum needs approval, and nobody can give it: denied with a message, the task goes on.
r3=$(request 3)
jq -e '.messages[-1].content[] | select(.type == "tool_result" and .tool_use_id == "toolu_sum") | tostring | contains("denied")' <<<"$r3" >/dev/null ||
    fail "the unapproved MCP call was not denied: $r3"
has_event 'any(.[]; .type == "use_mcp_server" and .data.toolName == "echo")'

# ---- --auto-approve mcp approves every MCP tool ----
run_hew "$work/native.json" --native-tools --auto-approve read,mcp
r3=$(request 3)
jq -e '.messages[-1].content[] | select(.type == "tool_result" and .tool_use_id == "toolu_sum") | tostring | contains("42")' <<<"$r3" >/dev/null ||
    fail "with --auto-approve mcp the call did not run: $r3"
# ---- images from an MCP tool: inside the tool_result for a model that reads images, a
# note for one that does not ----
cat >"$work/image.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_img", "name": "everything__get-tiny-image", "arguments": {}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_done", "name": "attempt_completion", "arguments": {"result": "seen"}}]}
]}
JSON
model=claude-sonnet-4-5 run_hew "$work/image.json" --native-tools --yolo
[[ $rc -eq 0 ]] || fail "image task: hew exited $rc: $(cat "$work/stderr")"
r2=$(request 2)
jq -e '.messages[-1].content[] | select(.type == "tool_result" and .tool_use_id == "toolu_img") | .content[] | select(.type == "image" and .source.media_type == "image/png" and (.source.data | length) > 100)' <<<"$r2" >/dev/null ||
    fail "the MCP image did not reach a model that reads images: $(jq -c '.messages[-1]' <<<"$r2" | cut -c1-600)"
run_hew "$work/image.json" --native-tools --yolo
r2=$(request 2)
jq -e '.messages[-1] | tostring | contains("does not read images")' <<<"$r2" >/dev/null ||
    fail "no note for a model without images: $(jq -c '.messages[-1]' <<<"$r2" | cut -c1-600)"
jq -e '[.messages[-1].content[] | .. | objects | select(.type == "image")] | length == 0' <<<"$r2" >/dev/null ||
    fail "an image went to a model that does not read images"
# ---- /mcp:SERVER:PROMPT brings the server's prompt into the task ----
cat >"$work/prompt.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "<attempt_completion>\n<result>sunny</result>\n</attempt_completion>"}]}
JSON
fake_start "$work/prompt.json" || fail "fake_start"
ANTHROPIC_API_KEY=sk-e2e-mcp-0123456789 "$HEW_BIN" -p "/mcp:everything:args-prompt city=Paris and be brief" \
    --json --yolo --xml-tools --provider anthropic --model claude-test-model --base-url "$FAKE_URL" \
    --cwd "$work/ws" >"$work/events.jsonl" 2>"$work/stderr" || fail "the MCP prompt task failed: $(cat "$work/stderr")"
cp "$FAKE_RECORD" "$work/requests.jsonl"
fake_stop
r1=$(request 1)
jq -e '.messages[0] | tostring | contains("<mcp_prompt server=\\\"everything\\\" name=\\\"args-prompt\\\">") and contains("weather in Paris") and contains("and be brief")' <<<"$r1" >/dev/null ||
    fail "the MCP prompt is not in the task: $(jq -c '.messages[0]' <<<"$r1")"

# ---- headless without approval: the MCP call is denied (exit 7), named with the flag that
#      allows it; with that flag it runs ----
cat >"$work/denied.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>get-sum</tool_name>\n<arguments>{\"a\": 19, \"b\": 23}</arguments>\n</use_mcp_tool>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}
]}
JSON
run_hew "$work/denied.json" --xml-tools
[[ $rc -eq 7 ]] || fail "a denied MCP call: exit $rc, want 7: $(cat "$work/stderr")"
tail -n 1 "$work/events.jsonl" | jq -e '.denied == [{"type": "use_mcp_server", "tool": "use_mcp_tool",
    "server": "everything", "mcp_tool": "get-sum", "allow": ["mcp"], "flag": "--auto-approve read,mcp"}]' \
    >/dev/null || fail "the denied MCP call: $(tail -n 1 "$work/events.jsonl")"
run_hew "$work/denied.json" --xml-tools --auto-approve read,mcp
[[ $rc -eq 0 ]] || fail "the MCP call with its flag: exit $rc: $(cat "$work/stderr")"
has_event 'any(.[]; .type == "mcp_server_response")'

# ---- SIGTERM during a long MCP call: the call is cancelled, hew exits 130, no server
# is left behind ----
cat >"$work/long.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>trigger-long-running-operation</tool_name>\n<arguments>{\"duration\": 60, \"steps\": 2}</arguments>\n</use_mcp_tool>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>too soon</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/long.json" || fail "fake_start"
ANTHROPIC_API_KEY=sk-e2e-mcp-0123456789 "$HEW_BIN" -p "Wait for it." --json --yolo --xml-tools \
    --provider anthropic --model claude-test-model --base-url "$FAKE_URL" --cwd "$work/ws" \
    >"$work/events.jsonl" 2>"$work/stderr" &
hew_pid=$!
for _ in $(seq 100); do
    grep -q '"mcp_server_request_started"' "$work/events.jsonl" 2>/dev/null && break
    sleep 0.1
done
grep -q '"mcp_server_request_started"' "$work/events.jsonl" || fail "the long MCP call did not start"
kill -TERM $hew_pid
wait $hew_pid
rc=$?
fake_stop
[[ $rc -eq 130 ]] || fail "SIGTERM during an MCP call: exit $rc, not 130: $(cat "$work/stderr")"
grep -q '"completion_result"' "$work/events.jsonl" && fail "the task went on after SIGTERM"
sleep 0.5
pgrep -f "server-everything/dist/index.js stdio $work" >/dev/null && fail "an MCP server outlived hew"

# ---- a server over Streamable HTTP (the everything server on a port of its own) ----
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
PORT=$port node "$everything" streamableHttp "$work" >"$work/http-server.log" 2>&1 &
http_pid=$!
for _ in $(seq 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" 2>/dev/null && break
    sleep 0.1
done
cp "$work/config/hew/mcp.json" "$work/mcp-stdio.json"
jq -n --arg url "http://127.0.0.1:$port/mcp" '{mcpServers: {remote: {url: $url}}}' >"$work/config/hew/mcp.json"
cat >"$work/http.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_remote", "name": "remote__echo", "arguments": {"message": "over the wire"}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_done", "name": "attempt_completion", "arguments": {"result": "done"}}]}
]}
JSON
run_hew "$work/http.json" --native-tools --yolo
kill "$http_pid" 2>/dev/null; wait "$http_pid" 2>/dev/null
[[ $rc -eq 0 ]] || fail "HTTP server task: hew exited $rc: $(cat "$work/stderr")"
r2=$(request 2)
jq -e '.messages[-1].content[] | select(.type == "tool_result" and .tool_use_id == "toolu_remote") | tostring | contains("over the wire")' <<<"$r2" >/dev/null ||
    fail "the Streamable HTTP server's answer did not reach the model: $r2"
cp "$work/mcp-stdio.json" "$work/config/hew/mcp.json"

# ---- hew mcp list ----
out=$("$HEW_BIN" mcp list --cwd "$work/ws" 2>&1) || fail "hew mcp list failed: $out"
grep -q '^everything  *connected  *stdio' <<<"$out" || fail "hew mcp list: $out"
grep -q 'echo\*' <<<"$out" || fail "hew mcp list does not mark the auto-approved tool: $out"
"$HEW_BIN" mcp list --json --cwd "$work/ws" | jq -e '.[0].status == "connected" and (.[0].tools | length) > 5' >/dev/null ||
    fail "hew mcp list --json"
mkdir -p "$work/ws/.hew"
echo '{"mcpServers": {"broken": {"command": "sh", "args": ["-c", "echo no database >&2; exit 3"]}}}' >"$work/ws/.hew/mcp.json"
"$HEW_BIN" trust "$work/ws" >/dev/null || fail "hew trust" # a workspace's file runs once trusted
out=$("$HEW_BIN" mcp list --cwd "$work/ws" --timeout 5 2>&1)
[[ $? -eq 1 ]] || fail "hew mcp list with a broken server did not exit 1: $out"
grep -q 'broken  *disconnected' <<<"$out" && grep -q 'status 3: no database' <<<"$out" ||
    fail "hew mcp list does not say why the server failed: $out"
echo '{"mcpServers": {"bad name!": {"command": "x"}}}' >"$work/ws/.hew/mcp.json"
"$HEW_BIN" trust "$work/ws" >/dev/null || fail "hew trust of a broken file"
out=$("$HEW_BIN" mcp list --cwd "$work/ws" 2>&1)
[[ $? -eq 1 ]] && grep -q 'mcp.json' <<<"$out" || fail "a bad settings file is not reported: $out"
# A task still runs with broken MCP settings, and says why no server was started.
cat >"$work/plain.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}]}
JSON
run_hew "$work/plain.json" --yolo --xml-tools
[[ $rc -eq 0 ]] || fail "a task with broken MCP settings failed: $(cat "$work/stderr")"
has_event 'any(.[]; .type == "error" and (.text | contains("MCP settings cannot be used")) and (.text | contains("bad name")))'
echo "ok"
