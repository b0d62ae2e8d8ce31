#!/usr/bin/env bash
# End to end: images in `hew acp`'s prompts through the official ACP SDK's client
# (tests/acp/images.mjs): promptCapabilities.image as the model allows, the first prompt's
# image block reaching the model (the strict fake decodes it), bad image blocks and an
# image in a later prompt refused with -32602. No image file is left in $TMPDIR.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpimg
mkdir -p "$work/tmp"
python3 "$HEW_E2E_LIB/mkimage.py" png 40 30 "$work/small.png" || fail "mkimage.py"

jq -n '{responses: [
  {protocol: "anthropic", tool_calls: [{id: "toolu_i1", name: "attempt_completion",
                 arguments: {result: "A small picture."}}]}
]}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

TMPDIR=$work/tmp HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL \
    FAKE_RECORD=$FAKE_RECORD ACP_IMAGE=$work/small.png \
    node "$acpdir/images.mjs" || fail "the SDK client's test failed (above)"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 1 ]] || fail "expected 1 request to the provider, got $n"
left=$(find "$work/tmp" -mindepth 1 | head -3)
[[ -z $left ]] || fail "the prompt's images were left in TMPDIR: $left"
echo "PASS"
