#!/usr/bin/env bash
# End to end: how `hew acp`'s prompts end besides end_turn and cancelled, through the
# official ACP SDK's client (tests/acp/stops.mjs): no API key (session/new answers -32000,
# auth_required, naming the variable), an answer cut at the output limit (stopReason
# max_tokens), a refusal (stopReason refusal), the conversation going on after each.
# Every request passed the strict fake.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpstops

jq -n '{responses: [
  {protocol: "anthropic", text: "An essay that was cut", stop_reason: "max_tokens"},
  {protocol: "anthropic", text: "I will not do that.", stop_reason: "refusal"},
  {protocol: "anthropic", tool_calls: [{id: "toolu_s1", name: "attempt_completion",
                 arguments: {result: "Finished after all."}}]}
]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL FAKE_RECORD=$FAKE_RECORD \
    node "$acpdir/stops.mjs" || fail "the SDK client's test failed (above)"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 3 ]] || fail "expected 3 requests to the provider, got $n"
echo "PASS"
