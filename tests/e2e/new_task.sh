# End-to-end: the model hands the work over to a new task (new_task). `hew -p --yolo`
# accepts it and goes on in the new task, whose first message is the context; --json
# prints both tasks' events, each with its task id, and an end line per task; the exit
# status is the last task's. Without --yolo the headless run declines it and the same
# task goes on. Needs jq; talks only to 127.0.0.1; leaves nothing behind.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "skip: no jq command"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-newtask.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
ws=$work/ws
mkdir -p "$ws"

cat >"$work/handover.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "This conversation is long; a fresh task is better.\n<new_task>\n<context>CTX-91: the first coat is on; paint the second coat.</context>\n</new_task>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>Second coat painted.</result>\n</attempt_completion>"}
]}
JSON

hew_run() {
    ANTHROPIC_API_KEY=sk-e2e "$HEW_BIN" -p "Paint the shed." --xml-tools --provider anthropic \
        --model claude-test-model --base-url "$FAKE_URL" --cwd "$ws" --timeout 60 "$@"
}

# ---- --yolo --json: the run goes on in the new task ----
fake_start "$work/handover.json" || fail "fake_start"
hew_run --yolo --json >"$work/events.jsonl" 2>"$work/stderr"
rc=$?
[[ $rc -eq 0 ]] || fail "hew exited $rc: $(cat "$work/stderr")"
ev=$work/events.jsonl
jq -e . "$ev" >/dev/null || fail "events are not JSON lines"
ends=$(jq -c -s 'map(select(.kind == "end"))' "$ev")
[[ $(jq length <<<"$ends") -eq 2 ]] || fail "expected two end lines: $ends"
first=$(jq -r '.[0].task' <<<"$ends")
second=$(jq -r '.[1].task' <<<"$ends")
[[ -n $first && -n $second && $first != "$second" ]] || fail "task ids: $ends"
[[ $(jq -r '.[0].status' <<<"$ends") == completed ]] || fail "first end: $ends"
[[ $(jq -r '.[0].next_task' <<<"$ends") == "$second" ]] || fail "next_task: $ends"
[[ $(jq -r '.[1].status' <<<"$ends") == completed &&
    $(jq -r '.[1].result' <<<"$ends") == "Second coat painted." ]] || fail "second end: $ends"
[[ $(jq -r '.[1] | has("next_task")' <<<"$ends") == false ]] || fail "second hands over: $ends"
[[ $(tail -n 1 "$ev" | jq -r .task) == "$second" ]] || fail "last line is not the last task's end"
# every event names its task; the new_task say is the first task's, the new task's text the second's
jq -e -s 'map(select(.kind != "end")) | all(.[]; (.task // "") != "")' "$ev" >/dev/null ||
    fail "an event without its task id"
jq -e -s --arg t "$first" 'any(.[]; .type == "new_task" and .task == $t and
    (.text | startswith("CTX-91")))' "$ev" >/dev/null || fail "no new_task say in the first task"
jq -e -s --arg t "$second" 'any(.[]; .type == "task" and .task == $t and
    .text == "CTX-91: the first coat is on; paint the second coat.")' "$ev" >/dev/null ||
    fail "the second task's text is not the context"
# what the model was told: the new task is a new conversation starting from the context
rec=$FAKE_RECORD
[[ $(wc -l <"$rec") -eq 2 ]] || fail "expected 2 requests, got $(wc -l <"$rec")"
[[ $(jq -s '.[1].body.messages | length' "$rec") -eq 1 ]] || fail "the new task is not a new conversation"
jq -e -s '.[1].body.messages[0].content | map(.text // "") | join("\n") |
    contains("<task>\nCTX-91: the first coat is on; paint the second coat.\n</task>")' "$rec" \
    >/dev/null || fail "the new task's first message is not the context"
fake_stop || fail "provider did not exit cleanly"

# ---- --yolo, plain output: only the last task's result on stdout ----
fake_start "$work/handover.json" || fail "fake_start (plain)"
out=$(hew_run --yolo 2>"$work/stderr")
rc=$?
[[ $rc -eq 0 && $out == "Second coat painted." ]] || fail "plain run: rc $rc, out '$out'"
grep -q 'new task' "$work/stderr" || fail "the hand-over is not said on stderr: $(cat "$work/stderr")"
fake_stop || fail "provider did not exit cleanly (plain)"

# ---- no --yolo: nobody can confirm it; the same task goes on ----
cat >"$work/declined.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<new_task>\n<context>CTX-92</context>\n</new_task>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>Stayed here.</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/declined.json" || fail "fake_start (declined)"
hew_run --json >"$work/declined.jsonl" 2>"$work/stderr"
rc=$?
[[ $rc -eq 7 ]] || fail "declined run exited $rc, want 7: $(cat "$work/stderr")"
tail -n 1 "$work/declined.jsonl" | jq -e '.denied == [{"type": "new_task", "tool": "new_task",
    "allow": ["yolo"], "flag": "--yolo"}]' >/dev/null ||
    fail "declined run: the denied list: $(tail -n 1 "$work/declined.jsonl")"
[[ $(jq -s 'map(select(.kind == "end")) | length' "$work/declined.jsonl") -eq 1 ]] ||
    fail "declined run started another task"
[[ $(tail -n 1 "$work/declined.jsonl" | jq -r .result) == "Stayed here." ]] || fail "declined result"
jq -e -s '.[1].body.messages[-1].content | map(.text // "") | join("\n") |
    contains("starts only with --yolo")' "$FAKE_RECORD" >/dev/null ||
    fail "the model was not told why no new task started"
fake_stop || fail "provider did not exit cleanly (declined)"
exit 0
