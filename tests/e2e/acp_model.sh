#!/usr/bin/env bash
# End to end: model selection in `hew acp` through the official ACP SDK's client
# (tests/acp/model.mjs): the "model" config option of session/new, switched between turns
# with session/set_config_option — the next request names the new model and carries the
# conversation on. Every request passed the strict fake.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpmodel

jq -n '{responses: [
  {protocol: "anthropic", tool_calls: [{id: "toolu_m1", name: "attempt_completion",
                 arguments: {result: "First."}}]},
  {protocol: "anthropic", model: "claude-opus-4-5", tool_calls: [{id: "toolu_m2",
                 name: "attempt_completion", arguments: {result: "Second."}}]}
]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL FAKE_RECORD=$FAKE_RECORD \
    node "$acpdir/model.mjs" || fail "the SDK client's test failed (above)"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 2 ]] || fail "expected 2 requests to the provider, got $n"
echo "PASS"
