#!/usr/bin/env bash
# End to end: images in `hew acp`'s prompts through the official ACP SDK's client
# (tests/acp/images.mjs): promptCapabilities.image as the model allows; an image block in
# any prompt reaching the model unchanged (the strict fake decodes it) — the first
# prompt's, a later prompt's answering the completion (native and XML tools), an image
# alone, and one that resumes a session loaded in a new process; bad and damaged image
# blocks refused with -32602 and the task going on after them. No image file is left in
# $TMPDIR.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/acpsdk.sh"

acp_work acpimg
mkdir -p "$work/tmp"
python3 "$HEW_E2E_LIB/mkimage.py" png 40 30 "$work/small.png" \
    truncated 40 30 "$work/damaged.png" || fail "mkimage.py"

completion() { # completion ID RESULT: a native attempt_completion
    jq -n --arg id "$1" --arg r "$2" '{protocol: "anthropic", tool_calls: [{id: $id,
        name: "attempt_completion", arguments: {result: $r}}]}'
}
xml_completion() { # xml_completion RESULT
    jq -n --arg r "$1" '{protocol: "anthropic",
        text: ("<attempt_completion>\n<result>\n" + $r + "\n</result>\n</attempt_completion>")}'
}
{
    completion toolu_i1 "A small picture."
    completion toolu_i2 "The second picture."
    completion toolu_i3 "Going on."
    completion toolu_i4 "Only a picture."
    completion toolu_i5 "Resumed with it."
    xml_completion "Nothing much."
    xml_completion "An XML picture."
} | jq -s '{responses: .}' >"$work/scenario.json"
fake_start "$work/scenario.json" || fail "the fake provider did not start"

TMPDIR=$work/tmp HEW_BIN=$HEW_BIN ACP_WORK=$work/ws FAKE_URL=$FAKE_URL \
    FAKE_RECORD=$FAKE_RECORD ACP_IMAGE=$work/small.png ACP_DAMAGED=$work/damaged.png \
    node "$acpdir/images.mjs" || fail "the SDK client's test failed (above)"
# the stored answers keep their images' captions: "image N", or the base name of the uri
# (the answers: with second.png, plain, an image alone, the resume's with an image)
id=$(cat "$work/ws/acp-session-id") || fail "images.mjs wrote no session id"
caps=$("$HEW_BIN" history show --json "$id" |
    jq -c '[.events[] | select(.type == "user_feedback") | .data.images // []]') ||
    fail "hew history show --json $id"
want='[["second.png, 40x30 png"],[],["image 1, 40x30 png"],["image 1, 40x30 png"]]'
[[ $caps == "$want" ]] || fail "the stored answers' captions: $caps"
v=$(fake_violations)
[[ -z $v ]] || fail "the strict fake refused a request: $v"
n=$(wc -l <"$FAKE_RECORD")
[[ $n -eq 7 ]] || fail "expected 7 requests to the provider, got $n"
left=$(find "$work/tmp" -mindepth 1 | head -3)
[[ -z $left ]] || fail "the prompt's images were left in TMPDIR: $left"
echo "PASS"
