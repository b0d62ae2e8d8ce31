#!/usr/bin/env bash
# End to end: `hew acp` runs the commands it would run without its sandbox in the client's
# terminal (terminal/create, output, kill, release) through the official ACP SDK's client
# (tests/acp/term.mjs): approved by hand, the client's fabricated output reaches the model
# and the tool call shows the terminal; confined (--yolo) or without the capability, hew
# runs the command itself; a cancel kills the client's command. Every request passed the
# strict fake.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpterm

run() { # the execute_command call: $1 the id, $2 the command
    jq -n --arg id "$1" --arg cmd "$2" '{protocol: "anthropic", tool_calls: [{id: $id,
      name: "execute_command", arguments: {command: $cmd, requires_approval: "true"}}]}'
}
done_() {
    jq -n --arg id "$1" '{protocol: "anthropic", tool_calls: [{id: $id,
      name: "attempt_completion", arguments: {result: "Ran it."}}]}'
}
cmd='echo from-$((6*7))'
jq -n --argjson r1 "$(run toolu_t1 "$cmd")" --argjson d1 "$(done_ toolu_t2)" \
      --argjson r2 "$(run toolu_t3 "$cmd")" --argjson d2 "$(done_ toolu_t4)" \
      --argjson r3 "$(run toolu_t5 "$cmd")" --argjson d3 "$(done_ toolu_t6)" \
      --argjson r4 "$(run toolu_t7 "sleep 600")" \
      '{responses: [$r1, $d1, $r2, $d2, $r3, $d3, $r4]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL FAKE_RECORD=$FAKE_RECORD \
    node "$acpdir/term.mjs" || fail "the SDK client's test failed (above)"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 7 ]] || fail "expected 7 requests to the provider, got $n"
echo "PASS"
