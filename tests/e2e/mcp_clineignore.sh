#!/usr/bin/env bash
# End to end: .clineignore holds for MCP too. The REAL filesystem MCP server (npm) is given
# the workspace; the fake provider's model asks it for ignored files — an absolute path,
# relative paths inside an array, a file:// resource — and for one allowed file. hew
# refuses each ignored one before the server is asked (clineignore_error, the model told),
# so the ignored content reaches no request; the allowed read goes through. The user is
# warned once that a file-reading server is enabled in a workspace with a .clineignore,
# and `hew mcp list` shows the warning too.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "FAIL: no jq command (run scripts/install-deps)"; exit 1; }
fs_js="$HEW_MCP_SERVERS/../@modelcontextprotocol/server-filesystem/dist/index.js"
[[ -f $fs_js ]] || fail "the MCP test servers are not installed: run scripts/install-deps"

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-mcpignore.XXXXXX")
trap 'fake_stop; [[ -n ${KEEP:-} ]] || rm -rf -- "$work"' EXIT
ws=$work/ws
mkdir -p "$ws/private" "$work/config/hew"
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state
printf 'secret.txt\nprivate/\n' >"$ws/.clineignore"
echo "TOP-SECRET-CONTENT" >"$ws/secret.txt"
echo "PRIVATE-KEY-CONTENT" >"$ws/private/key.pem"
echo "open content here" >"$ws/open.txt"
jq -n --arg js "$fs_js" --arg ws "$ws" \
    '{mcpServers: {fs: {command: "node", args: [$js, $ws]}}}' >"$work/config/hew/mcp.json"

call() { # tool arguments-json → the XML text of a use_mcp_tool call
    jq -n --arg t "$1" --arg a "$2" \
        '"<use_mcp_tool>\n<server_name>fs</server_name>\n<tool_name>" + $t + "</tool_name>\n<arguments>" + $a + "</arguments>\n</use_mcp_tool>"'
}
jq -n --arg ws "$ws" \
    --argjson c1 "$(call read_text_file "$(jq -nc --arg p "$ws/secret.txt" '{path: $p}')")" \
    --argjson c2 "$(call read_multiple_files '{"paths": ["open.txt", "private/key.pem"]}')" \
    --argjson c3 "$(call read_text_file "$(jq -nc --arg p "$ws/open.txt" '{path: $p}')")" \
    '{responses: [
      {protocol: "anthropic", text: $c1},
      {protocol: "anthropic", text: $c2},
      {protocol: "anthropic", text: ("<access_mcp_resource>\n<server_name>fs</server_name>\n<uri>file://" + $ws + "/secret.txt</uri>\n</access_mcp_resource>")},
      {protocol: "anthropic", text: $c3},
      {protocol: "anthropic", text: "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}
    ]}' >"$work/scenario.json"

fake_start "$work/scenario.json"
set +e
ANTHROPIC_API_KEY=sk-e2e-mcpignore-0123456789 "$HEW_BIN" -p "Read the files." --json \
    --provider anthropic --model claude-e2e --base-url "$FAKE_URL" --cwd "$ws" --yolo \
    --xml-tools --timeout 90 </dev/null >"$work/events.jsonl" 2>"$work/stderr"
rc=$?
set -e
cp "$FAKE_RECORD" "$work/requests.jsonl"
fake_stop
[[ $rc -eq 0 ]] || fail "hew exited $rc: $(cat "$work/stderr")"
[[ $(wc -l <"$work/requests.jsonl") -eq 5 ]] || fail "expected 5 requests, got $(wc -l <"$work/requests.jsonl")"

# The ignored content reached no request; the allowed one did.
if grep -q "TOP-SECRET-CONTENT\|PRIVATE-KEY-CONTENT" "$work/requests.jsonl"; then
    fail "ignored content reached the model"
fi
grep -q "open content here" "$work/requests.jsonl" || fail "the allowed read did not reach the model"
# Each refusal was said and told to the model.
n=$(jq -s '[.[] | select(.type == "clineignore_error")] | length' "$work/events.jsonl")
[[ $n -eq 3 ]] || fail "expected 3 clineignore_error messages, got $n: $(cat "$work/events.jsonl")"
for i in 2 3 4; do
    sed -n "${i}p" "$work/requests.jsonl" | grep -q 'blocked by the .clineignore' ||
        fail "request $i does not tell the model about .clineignore"
done
# Warned once.
n=$(jq -s '[.[] | select(.type == "mcp_notification" and (.text | contains(".clineignore")))] | length' "$work/events.jsonl")
[[ $n -eq 1 ]] || fail "expected one .clineignore warning, got $n"
jq -e -s 'any(.[]; .type == "mcp_notification" and (.text | contains("fs read")))' \
    "$work/events.jsonl" >/dev/null || fail "the warning does not name the server"

# hew mcp list shows it too.
"$HEW_BIN" mcp list --cwd "$ws" >"$work/list.out" 2>&1 || fail "hew mcp list: $(cat "$work/list.out")"
grep -q "warning: it reads files and this workspace has a .clineignore" "$work/list.out" ||
    fail "hew mcp list does not warn: $(cat "$work/list.out")"
echo "mcp_clineignore: ok"
