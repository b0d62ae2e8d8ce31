#!/usr/bin/env bash
# End to end: `hew acp`'s fs delegation through the official ACP SDK's client
# (tests/acp/fs.mjs): with the client's fs capabilities the model reads the editor's buffer
# (not the disk) and the edit arrives through fs/write_text_file with the disk unchanged;
# without them, hew reads and edits the disk; the client's error reaches the model; a
# cancel while hew waits for the client's answer ends the prompt. Every request passed the
# strict fake.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpfs
printf "the disk's line\n" >"$work/ws/buf.txt"

edit() { # the replace_in_file call: $1 the id, $2 the old line, $3 the new one
    jq -n --arg id "$1" --arg old "$2" --arg new "$3" '{protocol: "anthropic",
      tool_calls: [{id: $id, name: "replace_in_file", arguments: {path: "buf.txt",
        diff: ("------- SEARCH\n" + $old + "\n=======\n" + $new + "\n+++++++ REPLACE")}}]}'
}
jq -n --argjson e1 "$(edit toolu_f2 "the editor's unsaved line" "the editor's edited line")" \
      --argjson e2 "$(edit toolu_f5 "the disk's line" "the disk's edited line")" '{responses: [
  {protocol: "anthropic", tool_calls: [{id: "toolu_f1", name: "read_file",
                 arguments: {path: "buf.txt"}}]},
  $e1,
  {protocol: "anthropic", tool_calls: [{id: "toolu_f3", name: "attempt_completion",
                 arguments: {result: "Edited the buffer."}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_f4", name: "read_file",
                 arguments: {path: "buf.txt"}}]},
  $e2,
  {protocol: "anthropic", tool_calls: [{id: "toolu_f6", name: "attempt_completion",
                 arguments: {result: "Edited the disk."}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_f7", name: "read_file",
                 arguments: {path: "buf.txt"}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_f8", name: "attempt_completion",
                 arguments: {result: "Could not read it."}}]},
  {protocol: "anthropic", tool_calls: [{id: "toolu_f9", name: "read_file",
                 arguments: {path: "buf.txt"}}]}
]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL FAKE_RECORD=$FAKE_RECORD \
    node "$acpdir/fs.mjs" || fail "the SDK client's test failed (above)"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 9 ]] || fail "expected 9 requests to the provider, got $n"
echo "PASS"
