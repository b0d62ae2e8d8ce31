#!/usr/bin/env bash
# End to end: the user's hooks (Claude Code's shape, in ~/.config/hew/config.json) through
# the real `hew -p` against the fake provider (docs/hooks.md).
#   1. PreToolUse exit 2 blocks execute_command: the command never runs (no marker) and
#      the model's next request carries the hook's stderr; the run is a "hook" event.
#   2. PreToolUse "permissionDecision": "deny" JSON blocks the same way, with its reason;
#      "allow" runs a command headless would refuse for want of approval, but never one
#      a deny rule refuses.
#   3. PostToolUse gets the tool's name, input (with Claude Code's file_path) and response
#      on stdin; a Write matcher takes write_to_file.
#   4. UserPromptSubmit: plain stdout is context in the first request; exit 2 refuses the
#      task (nothing sent or stored, the reason on stderr), and a resumed task's new
#      instructions the same way.
#   5. SessionStart's additionalContext is in the first request.
#   6. Stop exit 2 makes the model go on once (stop_hook_active is true the second time).
#   7. A hook that sleeps past its timeout is killed; the task goes on, with a warning.
#   8. A malformed hook config: exit 2, the file and the key named.
#   9. PreCompact runs before the model's condense, with trigger "manual".
#  10. Hooks run in the sandbox the user's mode asks for: under --sandbox read-only a
#      SessionStart hook cannot write in the workspace (it fails, or, on a machine with
#      no sandbox backend, is not run at all: never unconfined); under the default
#      ("auto": a hook counts as approved by hand) it can.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-hooks.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
export HOME=$work/home
mkdir -p "$work/ws" "$work/config/hew" "$work/home"
export ANTHROPIC_API_KEY=sk-e2e-hooks-0123456789

# scenario FILE RESPONSE_TEXT...: one anthropic text answer per argument
scenario() {
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import json, sys
json.dump({"responses": [{"protocol": "anthropic", "text": t} for t in sys.argv[2:]]},
          open(sys.argv[1], "w"))
PY
}
cmd_call() { printf '<execute_command>\n<command>%s</command>\n<requires_approval>false</requires_approval>\n</execute_command>' "$1"; }
done_call='<attempt_completion>
<result>done</result>
</attempt_completion>'
# hooks CONFIG_JSON: the user's config holds exactly these hooks
hooks() { printf '{"hooks": %s}\n' "$1" >"$work/config/hew/config.json"; }
# run NAME [hew flags...]: hew -p against the running fake; rc in $rc, files NAME.*
run() {
    local name=$1; shift
    set +e
    "$HEW_BIN" -p "${PROMPT:-do it}" --provider anthropic --model claude-e2e \
        --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 --xml-tools --json "$@" \
        </dev/null >"$work/$name.events" 2>"$work/$name.err"
    rc=$?
    set -e
    cp "$FAKE_RECORD" "$work/$name.requests"
}
# request N FILE: the JSON of request N's messages (0-based)
request() { python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[2])]; print(json.dumps(r[int(sys.argv[1])]["body"]["messages"]) if len(r) > int(sys.argv[1]) else "")' "$1" "$2"; }
nreq() { wc -l <"$1" | tr -d ' '; }
# has FILE FILTER: some event line of FILE passes FILTER
has() { jq -n -e "[inputs | $2] | length > 0" "$1" >/dev/null; }

# ---- 1. PreToolUse exit 2 ----------------------------------------------------------------
scenario "$work/s1.json" "$(cmd_call "touch $work/marker1")" "$done_call"
hooks '{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo \"no commands today (rule 7)\" >&2; exit 2"}]}]}'
fake_start "$work/s1.json"
run t1 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "1: exit $rc: $(cat "$work/t1.err")"
[[ ! -e $work/marker1 ]] || fail "1: the blocked command ran"
request 1 "$work/t1.requests" | grep -qF 'no commands today (rule 7)' ||
    fail "1: the reason is not in the next request: $(request 1 "$work/t1.requests")"
has "$work/t1.events" 'select(.type == "hook") | .data | select(.hook_event_name == "PreToolUse" and .exit_code == 2 and .decision == "block")' || fail "1: no hook event: $(grep hook "$work/t1.events")"

# ---- 2. PreToolUse deny and allow JSON -----------------------------------------------------
cat >"$work/deny.sh" <<'SH'
cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "denied by policy X9"}}'
SH
scenario "$work/s2.json" "$(cmd_call "touch $work/marker2")" "$done_call"
hooks "{\"PreToolUse\": [{\"matcher\": \"execute_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"sh $work/deny.sh\"}]}]}"
fake_start "$work/s2.json"
run t2 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "2: exit $rc: $(cat "$work/t2.err")"
[[ ! -e $work/marker2 ]] || fail "2: the denied command ran"
request 1 "$work/t2.requests" | grep -qF 'denied by policy X9' || fail "2: no deny reason in the request"
# allow: no --yolo, no auto-approval: headless would refuse `touch` for want of approval
cat >"$work/allow.sh" <<'SH'
cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
SH
hooks "{\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"sh $work/allow.sh\"}]}]}"
fake_start "$work/s2.json"
run t2b
fake_stop
[[ $rc -eq 0 ]] || fail "2: allow: exit $rc: $(cat "$work/t2b.err")"
[[ -e $work/marker2 ]] || fail "2: the hook's allow did not skip the approval"
rm -f "$work/marker2"
fake_start "$work/s2.json"
run t2c --deny-command 'touch*'
fake_stop
[[ ! -e $work/marker2 ]] || fail "2: allow bypassed a deny rule"

# ---- 3. PostToolUse gets the response --------------------------------------------------------
scenario "$work/s3.json" '<write_to_file>
<path>notes/a.txt</path>
<content>hi</content>
</write_to_file>' "$(cmd_call "echo hello-post-$$")" "$done_call"
hooks "{\"PostToolUse\": [{\"matcher\": \"Bash|Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"cat >> $work/post.jsonl; echo >> $work/post.jsonl\"}]}]}"
fake_start "$work/s3.json"
run t3 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "3: exit $rc: $(cat "$work/t3.err")"
python3 - "$work/post.jsonl" "$work/ws" "$$" <<'PY'
import json, sys
w, p = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert w["tool_name"] == "write_to_file", w
assert w["tool_input"]["path"] == "notes/a.txt", w
assert w["tool_input"]["file_path"] == sys.argv[2] + "/notes/a.txt", w  # Claude Code's key
assert not w["tool_failed"], w
assert p["hook_event_name"] == "PostToolUse", p
assert p["tool_name"] == "execute_command", p
assert p["tool_input"]["command"] == "echo hello-post-" + sys.argv[3], p
assert "hello-post-" + sys.argv[3] in p["tool_response"], p
assert p["session_id"] and p["cwd"] == sys.argv[2], p
assert "transcript_path" in p, p
PY

# ---- 4. UserPromptSubmit: context, then a refusal --------------------------------------------
scenario "$work/s4.json" "$done_call"
hooks '{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo remember-swordfish-41"}]}]}'
fake_start "$work/s4.json"
run t4 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "4: exit $rc: $(cat "$work/t4.err")"
request 0 "$work/t4.requests" | grep -qF 'remember-swordfish-41' || fail "4: no prompt context in the request"
hooks '{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo \"prompts with secrets are refused\" >&2; exit 2"}]}]}'
fake_start "$work/s4.json"
PROMPT="my secret prompt" run t4b --yolo
fake_stop
[[ $rc -ne 0 ]] || fail "4: a refused prompt exited 0"
[[ $(nreq "$work/t4b.requests") -eq 0 ]] || fail "4: the refused prompt was sent"
grep -qF 'prompts with secrets are refused' "$work/t4b.err" "$work/t4b.events" ||
    fail "4: the reason was not shown: $(cat "$work/t4b.err")"
if grep -qF 'my secret prompt' "$work/t4b.events"; then fail "4: the refused prompt was shown"; fi
python3 - "$work/data/hew/hew.db" <<'PY'
import sqlite3, sys
dump = "\n".join(sqlite3.connect(sys.argv[1]).iterdump())
assert "refused by a UserPromptSubmit hook" in dump, "the refused task is not in the store"
assert "my secret prompt" not in dump, "the refused prompt is in the store"
PY

# a resumed task's new instructions go through the same hook
id=$(jq -r 'select(.type == "task_end") | .task' "$work/t4.events")
[[ -n $id ]] || fail "4: no task id"
fake_start "$work/s4.json"
PROMPT="new secret instructions" run t4c --yolo --resume "$id"
fake_stop
[[ $rc -ne 0 ]] || fail "4: a refused resume message exited 0"
[[ $(nreq "$work/t4c.requests") -eq 0 ]] || fail "4: the refused resume message was sent"
grep -qF 'prompts with secrets are refused' "$work/t4c.err" "$work/t4c.events" ||
    fail "4: the resume refusal was not shown: $(cat "$work/t4c.err")"
if grep -qF 'new secret instructions' "$work/t4c.events"; then fail "4: the refused message was shown"; fi

# ---- 5. SessionStart context ---------------------------------------------------------------
hooks '{"SessionStart": [{"hooks": [{"type": "command", "command": "echo {\\\"hookSpecificOutput\\\": {\\\"hookEventName\\\": \\\"SessionStart\\\", \\\"additionalContext\\\": \\\"session-ctx-42\\\"}}"}]}]}'
fake_start "$work/s4.json"
run t5 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "5: exit $rc: $(cat "$work/t5.err")"
request 0 "$work/t5.requests" | grep -qF 'session-ctx-42' || fail "5: no session context: $(request 0 "$work/t5.requests")"

# ---- 6. Stop exit 2 goes on once -------------------------------------------------------------
cat >"$work/stop.sh" <<'SH'
if grep -q '"stop_hook_active":true' ; then exit 0; fi
echo "run the tests first (stop hook)" >&2
exit 2
SH
scenario "$work/s6.json" "$done_call" "$done_call"
hooks "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"sh $work/stop.sh\"}]}]}"
fake_start "$work/s6.json"
run t6 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "6: exit $rc: $(cat "$work/t6.err")"
[[ $(nreq "$work/t6.requests") -eq 2 ]] || fail "6: want 2 requests, got $(nreq "$work/t6.requests")"
request 1 "$work/t6.requests" | grep -qF 'run the tests first (stop hook)' || fail "6: no reason in the request"
has "$work/t6.events" 'select(.type == "completion_result")' || fail "6: never completed"

# ---- 7. a hook past its timeout ----------------------------------------------------------------
scenario "$work/s7.json" "$(cmd_call "touch $work/marker7")" "$done_call"
hooks '{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "sleep 60", "timeout": 1}]}]}'
fake_start "$work/s7.json"
run t7 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "7: exit $rc: $(cat "$work/t7.err")"
[[ -e $work/marker7 ]] || fail "7: the task did not go on after the hook timed out"
has "$work/t7.events" 'select(.type == "hook") | .data | select(.timed_out == true and .decision == "warn")' || fail "7: no timed-out hook event"
has "$work/t7.events" 'select(.type == "notice") | select(.text | test("did not finish within 1 s"))' || fail "7: no warning"

# ---- 9. PreCompact before the model's condense ------------------------------------------------
scenario "$work/s9.json" '<condense>
<context>the summary so far</context>
</condense>' "$done_call"
hooks "{\"PreCompact\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"cat > $work/compact.json\"}]}]}"
fake_start "$work/s9.json"
run t9 --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "9: exit $rc: $(cat "$work/t9.err")"
jq -e '.hook_event_name == "PreCompact" and .trigger == "manual"' "$work/compact.json" >/dev/null ||
    fail "9: PreCompact input: $(cat "$work/compact.json" 2>&1)"

# ---- 8. malformed configs ------------------------------------------------------------------------
scenario "$work/s8.json" "$done_call"
fake_start "$work/s8.json"
bad() { # CONFIG KEY: exit 2 naming the file and the key
    hooks "$1"
    run t8
    [[ $rc -eq 2 ]] || fail "8: $1: exit $rc, want 2: $(cat "$work/t8.err")"
    grep -qF "$work/config/hew/config.json" "$work/t8.err" || fail "8: file not named: $(cat "$work/t8.err")"
    grep -qF "$2" "$work/t8.err" || fail "8: key $2 not named: $(cat "$work/t8.err")"
}
bad '{"PreToolUse": [{"matcher": "(Bash", "hooks": [{"type": "command", "command": "true"}]}]}' 'hooks.PreToolUse[0].matcher'
bad '{"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": "soon"}]}]}' 'hooks.PreToolUse[0].hooks[0].timeout'
bad '{"BeforeEverything": []}' 'hooks.BeforeEverything'
bad '{"Stop": [{"hooks": [{"type": "prompt", "command": "true"}]}]}' 'hooks.Stop[0].hooks[0].type'
fake_stop
# a project's config.json may not hold hooks
rm -f "$work/config/hew/config.json"
mkdir -p "$work/ws/.hew"
printf '{"hooks": {}}\n' >"$work/ws/.hew/config.json"
set +e
"$HEW_BIN" -p x --provider anthropic --cwd "$work/ws" </dev/null >/dev/null 2>"$work/t8b.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "8: hooks in a project's config.json: exit $rc"
grep -qF '.hew/hooks.json' "$work/t8b.err" || fail "8: no hint: $(cat "$work/t8b.err")"

# ---- 10. hooks in the sandbox ---------------------------------------------------------------
rm -rf "$work/ws/.hew"
scenario "$work/s10.json" "$done_call" "$done_call"
hooks "{\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch $work/ws/hookmark\"}]}]}"
fake_start "$work/s10.json"
run t10 --yolo --sandbox read-only
[[ $rc -eq 0 ]] || fail "10: exit $rc: $(cat "$work/t10.err")"
[[ ! -e $work/ws/hookmark ]] || fail "10: a hook wrote in the workspace under read-only"
has "$work/t10.events" 'select(.type == "hook" and .data.hook_event_name == "SessionStart"
    and .data.decision == "warn" and .data.exit_code != 0)' ||
    fail "10: no failed SessionStart hook event: $(grep '"hook"' "$work/t10.events")"
run t10b --yolo
fake_stop
[[ $rc -eq 0 ]] || fail "10: auto: exit $rc: $(cat "$work/t10b.err")"
[[ -e $work/ws/hookmark ]] || fail "10: the hook did not run unconfined under auto"
echo "ok"
