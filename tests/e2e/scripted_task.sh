# End-to-end: one whole task through the real `hew -p --yolo --json` against the fake
# provider, in a temporary workspace. The scripted model lists the files, reads one,
# edits it with SEARCH/REPLACE, searches for the change, runs a command that checks it
# (and that no API key reached the child), and completes. Asserts the file on disk, the
# events hew printed, and what hew sent back to the model (the recorded requests).
# Needs jq; talks only to 127.0.0.1; leaves nothing behind.
set -u
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "skip: no jq command"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-task.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
ws=$work/ws
mkdir -p "$ws/src"
printf '#include <stdio.h>\n\nconst char *greeting = "hello";\n\nint main(void) { puts(greeting); }\n' \
    >"$ws/src/greet.c"
printf '# Greeter\n\nSays hello.\n' >"$ws/README.md"

# Each response is one XML tool call (what the model would stream).
cat >"$work/scenario.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "Let me look around.\n<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>"},
  {"protocol": "anthropic", "text": "<read_file>\n<path>src/greet.c</path>\n</read_file>"},
  {"protocol": "anthropic", "text": "<replace_in_file>\n<path>src/greet.c</path>\n<diff>\n------- SEARCH\nconst char *greeting = \"hello\";\n=======\nconst char *greeting = \"goodbye\";\n+++++++ REPLACE\n</diff>\n</replace_in_file>"},
  {"protocol": "anthropic", "text": "<search_files>\n<path>.</path>\n<regex>good[a-z]+</regex>\n</search_files>"},
  {"protocol": "anthropic", "text": "<execute_command>\n<command>grep -c goodbye src/greet.c; env | grep -c _API_KEY; echo command-ok</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>The greeting now says goodbye.</result>\n</attempt_completion>"}
]}
JSON

fake_start "$work/scenario.json" || fail "fake_start"

ANTHROPIC_API_KEY=sk-e2e-secret-0123456789 "$HEW_BIN" -p "Make the greeter say goodbye." \
    --yolo --json --xml-tools --provider anthropic --model claude-test-model \
    --base-url "$FAKE_URL" --cwd "$ws" --timeout 60 >"$work/events.jsonl" 2>"$work/stderr"
rc=$?
[[ $rc -eq 0 ]] || fail "hew exited $rc: $(cat "$work/stderr")"

# ---- the workspace ----
grep -q 'const char \*greeting = "goodbye";' "$ws/src/greet.c" || fail "edit not on disk: $(cat "$ws/src/greet.c")"
grep -q '"hello"' "$ws/src/greet.c" && fail "old text still there"
[[ $(cat "$ws/README.md") == $'# Greeter\n\nSays hello.' ]] || fail "README changed"

# ---- the events ----
ev=$work/events.jsonl
jq -e . "$ev" >/dev/null || fail "events are not JSON lines"
last=$(tail -n 1 "$ev")
[[ $(jq -r .kind <<<"$last") == end && $(jq -r .status <<<"$last") == completed ]] ||
    fail "last event: $last"
has_event() { jq -e -s "$1" "$ev" >/dev/null || fail "no event matching $1"; }
has_event 'any(.[]; .type == "task")'
has_event 'any(.[]; .type == "tool" and (.data.tool // "") == "listFilesRecursive")'
has_event 'any(.[]; .type == "tool" and (.data.tool // "") == "readFile")'
has_event 'any(.[]; .type == "tool" and (.data.tool // "") == "editedExistingFile")'
has_event 'any(.[]; .type == "tool" and (.data.tool // "") == "searchFiles")'
has_event 'any(.[]; .type == "command" and .data.command == "grep -c goodbye src/greet.c; env | grep -c _API_KEY; echo command-ok")'
has_event 'any(.[]; .type == "command_output" and (.text // "" | contains("command-ok")))'
has_event 'any(.[]; .type == "completion_result" and .text == "The greeting now says goodbye.")'
grep -q 'sk-e2e-secret' "$ev" && fail "the API key appears in the events"

# ---- what the model was told ----
rec=$FAKE_RECORD
[[ $(wc -l <"$rec") -eq 6 ]] || fail "expected 6 requests, got $(wc -l <"$rec")"
# the text of the last user message of request N
told() { jq -r -s ".[$1].body.messages[-1].content | if type == \"string\" then . else map(.text // \"\") | join(\"\n\") end" "$rec"; }
r1=$(told 1); [[ $r1 == *"[list_files for '.'] Result:"* && $r1 == *"src/"* && $r1 == *"README.md"* ]] ||
    fail "list_files result: $r1"
r2=$(told 2); [[ $r2 == *'const char *greeting = "hello";'* ]] || fail "read_file result: $r2"
r3=$(told 3); [[ $r3 == *'greeting = "goodbye"'* ]] || fail "replace_in_file result: $r3"
r4=$(told 4); [[ $r4 == *"src/greet.c"* && $r4 == *"goodbye"* ]] || fail "search_files result: $r4"
r5=$(told 5)
[[ $r5 == *$'Command executed successfully (exit code 0).\nOutput:\n1\n0\ncommand-ok'* ]] ||
    fail "execute_command result: $r5"
grep -q 'sk-e2e-secret' "$rec" && fail "the API key reached a request body"

fake_stop || fail "provider did not exit cleanly"
exit 0
