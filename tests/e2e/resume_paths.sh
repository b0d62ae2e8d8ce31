#!/usr/bin/env bash
# End to end: the paths a user takes back into a task with NATIVE tool calls, for each of
# the four wire protocols — resume of a completed task (`hew resume ID -p`, `--continue`),
# resume after Ctrl-C while a command ran, resume in another mode (`--act` after a plan
# task), resume on a model without native tools (XML), a resume whose request fails, and
# a new_task hand-over (and a resume of the task that handed over). Every request must
# pass the strict fake (the rules the real APIs enforce with HTTP 400: every tool call
# answered right after it), the interrupted command gets Cline's "interrupted" result,
# the mode the user chose is the one the model is told, and a completed task whose resume
# fails stays completed in the store.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
hewpid=
trap '[[ -n $hewpid ]] && kill -9 $hewpid 2>/dev/null; fake_stop; rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/data
mkdir -p "$XDG_DATA_HOME"

# valid: the strict fake refused no request (every tool call answered right after it,
# results first, no result without its call: the real APIs' rules, fake-provider/validate*).
valid() {
    local v
    v=$(fake_violations)
    [[ -z $v ]] || { echo "refused: $v" >&2; return 1; }
}

# mode_told FILE: the mode the last request's newest environment details name.
mode_told() {
    python3 - "$1" <<'PY'
import json, sys
body = json.dumps(json.loads(open(sys.argv[1]).read().splitlines()[-1])["body"])
k = body.rfind("# Current Mode\\n")
print(body[k + len("# Current Mode\\n"):].split("\\n")[0] if k >= 0 else "none")
PY
}

callno=0
scen() { # scen FILE PROTOCOL TOOL ARGS-JSON...: one native tool call per answer (ids unique
         # across the whole test, as a real provider's are)
    local file=$1 proto=$2
    shift 2
    local out='{"responses": ['
    local sep=
    while (($#)); do
        callno=$((callno + 1))
        out+="$sep{\"protocol\": \"$proto\", \"tool_calls\": [{\"id\": \"toolu_e2e$callno\", \"name\": \"$1\", \"arguments\": $2}]}"
        sep=,
        shift 2
    done
    printf '%s]}\n' "$out" >"$file"
}

for proto in anthropic openai-chat openai-responses gemini; do
    work=$tmp/ws-$proto
    mkdir -p "$work"
    common() { args=(--provider openai-compatible --protocol "$proto" --model test-model \
        --native-tools --base-url "$FAKE_URL" --cwd "$work" --retry-delay-ms 10); }
    hew() { common; "$HEW_BIN" "${args[@]}" "$@"; }
    ids() { "$HEW_BIN" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'; }
    status_of() {
        "$HEW_BIN" history --json | python3 -c \
            'import json,sys; d={t["id"]: t for t in json.load(sys.stdin)}; print(d[sys.argv[1]]["status"], d[sys.argv[1]]["result"])' "$1"
    }

    # 1. A completed task resumed with -p: its attempt_completion call is answered.
    scen "$tmp/s1.json" "$proto" attempt_completion '{"result": "First done."}'
    fake_start "$tmp/s1.json"
    out=$(hew -p "Write the notes" </dev/null) || fail "$proto: first run: $out"
    [[ $out == "First done." ]] || fail "$proto: first result: $out"
    fake_stop
    id=$(ids)
    scen "$tmp/s2.json" "$proto" attempt_completion '{"result": "Second done."}'
    fake_start "$tmp/s2.json"
    common # `hew resume ID -p` (the subcommand form of --resume)
    out=$("$HEW_BIN" resume "$id" "${args[@]}" -p "add a summary" </dev/null) ||
        fail "$proto: resume of a completed task failed: $out"
    [[ $out == "Second done." ]] || fail "$proto: resumed result: $out"
    valid || fail "$proto: resume -p sent an unanswered tool call"
    grep -q "The user accepted the result" "$FAKE_RECORD" ||
        fail "$proto: the completion's own result was not sent back"
    fake_stop

    # 2. --continue on the same task: twice resumed, still valid.
    scen "$tmp/s3.json" "$proto" attempt_completion '{"result": "Third done."}'
    fake_start "$tmp/s3.json"
    out=$(hew --continue -p "one more" </dev/null) || fail "$proto: --continue failed: $out"
    [[ $out == "Third done." ]] || fail "$proto: --continue result: $out"
    valid || fail "$proto: --continue sent an unanswered tool call"
    fake_stop

    # 3. Ctrl-C while a command runs, then a resume: the command's call gets the
    #    interrupted result, first in the next user message.
    scen "$tmp/s4.json" "$proto" execute_command \
        "{\"command\": \"touch $work/started; sleep 60\", \"requires_approval\": false}"
    fake_start "$tmp/s4.json"
    rm -f "$work/started"
    common
    "$HEW_BIN" "${args[@]}" --yolo -p "Run the long job" </dev/null >"$tmp/out4" 2>"$tmp/err4" &
    hewpid=$!
    for ((i = 0; i < 600; i++)); do
        [[ -e $work/started ]] && break
        sleep 0.05
    done
    [[ -e $work/started ]] || fail "$proto: the command never started: $(cat "$tmp/err4")"
    kill -TERM "$hewpid" # Ctrl-C (SIGINT is ignored in a background job of a script)
    rc=0
    wait "$hewpid" || rc=$?
    hewpid=
    [[ $rc -eq 130 ]] || fail "$proto: Ctrl-C exit code $rc: $(cat "$tmp/err4")"
    fake_stop
    id=$(ids)
    scen "$tmp/s5.json" "$proto" attempt_completion '{"result": "Resumed after Ctrl-C."}'
    fake_start "$tmp/s5.json"
    out=$(hew --resume "$id" -p "go on" </dev/null) || fail "$proto: resume after Ctrl-C: $out"
    [[ $out == "Resumed after Ctrl-C." ]] || fail "$proto: result after Ctrl-C: $out"
    valid || fail "$proto: resume after Ctrl-C: unanswered tool call"
    grep -q "Task was interrupted before this tool call could be completed" "$FAKE_RECORD" ||
        fail "$proto: the interrupted command has no interrupted result"
    fake_stop

    # 4. A plan task resumed with --act: the model is told ACT MODE; resumed without a
    #    mode it stays in PLAN MODE.
    scen "$tmp/s6.json" "$proto" attempt_completion '{"result": "The plan: two steps."}'
    fake_start "$tmp/s6.json"
    out=$(hew --plan -p "Plan the refactor" </dev/null) || fail "$proto: plan run: $out"
    fake_stop
    id=$(ids)
    scen "$tmp/s7.json" "$proto" attempt_completion '{"result": "Still planning."}'
    fake_start "$tmp/s7.json"
    hew --resume "$id" -p "refine" </dev/null >/dev/null || fail "$proto: plan resume failed"
    [[ $(mode_told "$FAKE_RECORD") == "PLAN MODE" ]] || fail "$proto: a plan task lost its mode"
    fake_stop
    scen "$tmp/s8.json" "$proto" attempt_completion '{"result": "Carried out."}'
    fake_start "$tmp/s8.json"
    out=$(hew --resume "$id" --act -p "do it" </dev/null) || fail "$proto: --act resume: $out"
    told=$(mode_told "$FAKE_RECORD")
    [[ $told == "ACT MODE" ]] || fail "$proto: --act: the model was told '$told'"
    valid || fail "$proto: --act resume: unanswered tool call"
    fake_stop

    # 5. The same task on a model without native tools: earlier calls go as text.
    printf '{"responses": [{"protocol": "%s", "text": "<attempt_completion>\\n<result>Done in XML.</result>\\n</attempt_completion>"}]}\n' \
        "$proto" >"$tmp/s9.json"
    fake_start "$tmp/s9.json"
    out=$("$HEW_BIN" --provider openai-compatible --protocol "$proto" --model other-model \
        --xml-tools --base-url "$FAKE_URL" --cwd "$work" --resume "$id" -p "wrap up" </dev/null) ||
        fail "$proto: resume on an XML-tools model failed: $out"
    [[ $out == "Done in XML." ]] || fail "$proto: XML resume result: $out"
    python3 - "$FAKE_RECORD" "$proto" <<'PY' || fail "$proto: tool blocks sent to a request without tools"
import json, sys
body = json.loads(open(sys.argv[1]).read().splitlines()[-1])["body"]
text = json.dumps(body)
assert "tools" not in body, "tools offered in XML mode"
for k in ('"tool_use"', '"tool_result"', '"tool_calls"', '"function_call"', '"functionCall"', '"functionResponse"', '"role": "tool"'):
    assert k not in text, k
assert "<attempt_completion>" in text, "the earlier calls are not in the text"
PY
    fake_stop

    # 6. A completed task whose resume fails stays completed in the store.
    before=$(status_of "$id")
    [[ $before == "completed Done in XML." ]] || fail "$proto: status before: $before"
    printf '{"responses": [{"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}}]}\n' >"$tmp/s10.json"
    fake_start "$tmp/s10.json"
    rc=0
    hew --resume "$id" -p "again" </dev/null >/dev/null 2>&1 || rc=$?
    [[ $rc -eq 1 ]] || fail "$proto: a failed resume exited $rc"
    fake_stop
    after=$(status_of "$id")
    [[ $after == "$before" ]] || fail "$proto: a failed resume changed the stored task: $after"

    # 7. new_task hand-over (--yolo): the run goes on in the new task; both requests are
    #    valid, and the task that handed over resumes with its new_task call answered.
    scen "$tmp/s11.json" "$proto" new_task '{"context": "CTX-7: the first coat is on."}' \
        attempt_completion '{"result": "Second coat painted."}'
    fake_start "$tmp/s11.json"
    out=$(hew --yolo -p "Paint the shed" </dev/null) || fail "$proto: hand-over run: $out"
    [[ $out == *"Second coat painted."* ]] || fail "$proto: hand-over result: $out"
    valid || fail "$proto: hand-over: unanswered tool call"
    grep -q "CTX-7" <(tail -n 1 "$FAKE_RECORD") || fail "$proto: the new task lacks the context"
    fake_stop
    handed=$("$HEW_BIN" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[1]["id"])')
    scen "$tmp/s12.json" "$proto" attempt_completion '{"result": "Old task again."}'
    fake_start "$tmp/s12.json"
    out=$(hew --resume "$handed" -p "one more look" </dev/null) || fail "$proto: resume after hand-over: $out"
    [[ $out == "Old task again." ]] || fail "$proto: resume after hand-over result: $out"
    valid || fail "$proto: resume after hand-over: unanswered tool call"
    fake_stop
done
echo "resume paths: ok"
