#!/usr/bin/env bash
# End to end: `hew acp` against a real ACP client no one here wrote — the official SDK's
# client (@agentclientprotocol/sdk from the npm registry, pinned by tests/acp's lock file,
# installed by scripts/install-deps) in tests/acp/session.mjs, with the fake provider as
# the model: initialize, new session, an edit allowed and one rejected through
# session/request_permission, session/cancel during a long streamed answer, the
# conversation going on after it, session/load in a new process and a prompt in plan
# mode; the client's MCP server, an auto-approved read and a command allowed always; a
# question answered by the next prompt, a refused request failing its prompt and the
# task going on after it. Also: every request hew sent passed the strict fake (the conversation stayed
# valid through the cancel and the reload).
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"
everything="$HEW_MCP_SERVERS/../@modelcontextprotocol/server-everything/dist/index.js"
[[ -f $everything ]] || fail "the MCP test servers are not installed: run scripts/install-deps"

acp_work acp

# the long answer: 300 pieces, 100 ms apart (30 s) — a cancel must cut it short
story=$(python3 -c 'print("Once upon a time " * 300 + "THE END")')
jq -n --arg story "$story" '{responses: [
  {protocol: "anthropic", text: "I will create it.",
   tool_calls: [{id: "toolu_a1", name: "write_to_file",
                 arguments: {path: "hello.txt", content: "hello\n"}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a2", name: "attempt_completion",
                 arguments: {result: "Created hello.txt."}}],
   usage: {input: 100, output: 20, cache_read: 7, cache_write: 0}},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a3", name: "write_to_file",
                 arguments: {path: "hello.txt", content: "bye\n"}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a4", name: "attempt_completion",
                 arguments: {result: "Left hello.txt as it was."}}]},
  {protocol: "anthropic", text: $story, delta_size: 17, delay_ms: 100},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a5", name: "attempt_completion",
                 arguments: {result: "Resumed after the cancel."}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a6", name: "plan_mode_respond",
                 arguments: {response: "My plan:\n1. Read hello.txt\n2. Change it"}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a7", name: "read_file",
                 arguments: {path: "hello.txt"}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a8", name: "execute_command",
                 arguments: {command: "echo hi-from-acp", requires_approval: false}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a9", name: "execute_command",
                 arguments: {command: "echo hi-from-acp", requires_approval: false}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a10", name: "attempt_completion",
                 arguments: {result: "All done."}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a11", name: "ask_followup_question",
                 arguments: {question: "Which colour?", options: "[\"red\", \"blue\"]"}}]},
  {status: 401, body: {type: "error", error: {type: "authentication_error",
                 message: "invalid x-api-key"}}},
  {protocol: "anthropic", tool_calls: [{id: "toolu_a12", name: "attempt_completion",
                 arguments: {result: "Blue it is."}}]}
]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL FAKE_RECORD=$FAKE_RECORD \
    EVERYTHING_JS=$everything \
    node "$acpdir/session.mjs" || fail "the SDK client's test failed (above)"
[[ -f $work/ws/acp-sdk-ok ]] || fail "session.mjs did not finish"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 14 ]] || fail "expected 14 requests to the provider, got $n"
echo "PASS"
