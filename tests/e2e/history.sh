#!/usr/bin/env bash
# End to end: the task store on the command line — `hew history` (--json, a search, the
# table, show), `hew export` / `hew import` round trip, `hew history delete`, a task
# interrupted with SIGTERM resumed with `hew --resume ID -p "..."` against a second
# scenario (the request carries the earlier conversation and [TASK RESUMPTION]), and
# `--continue` picking the newest task of the workspace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'fake_stop; rm -rf "$tmp"' EXIT
work=$tmp/ws
other=$tmp/other
mkdir -p "$work" "$other" "$tmp/data"
work=$(cd "$work" && pwd -P)
export XDG_DATA_HOME=$tmp/data
export ANTHROPIC_API_KEY=e2e-test-key
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 "$@"; }
json_field() { # json_field JSON PYTHON-EXPRESSION-OF-d
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# 0. An empty store.
out=$("$HEW_BIN" history --json)
[[ $out == "[]" ]] || fail "empty history: $out"

# 1. Two tasks; the history lists both, newest first, with their titles.
fake_start "$here/data/history_done_scenario.json"
[[ $(hew -p "Paint the shed" </dev/null) == "All done." ]] || fail "first task"
fake_stop
fake_start "$here/data/history_done_scenario.json"
[[ $(hew -p "Mow the lawn" </dev/null) == "All done." ]] || fail "second task"
fake_stop
list=$("$HEW_BIN" history --json)
python3 - "$list" "$work" <<'PY'
import json, sys
tasks = json.loads(sys.argv[1])
assert [t["title"] for t in tasks] == ["Mow the lawn", "Paint the shed"], tasks
for t in tasks:
    assert t["status"] == "completed" and t["result"] == "All done.", t
    assert t["workspace"] == sys.argv[2], t
    assert t["tokens_in"] > 0 and t["tokens_out"] > 0, t
    for k in ("id", "created_ms", "updated_ms", "provider", "model", "mode", "cache_reads",
              "cache_writes", "cost"):
        assert k in t, (k, t)
assert tasks[0]["updated_ms"] >= tasks[1]["updated_ms"], tasks
PY
shed=$(json_field "$list" 'd[1]["id"]')
lawn=$(json_field "$list" 'd[0]["id"]')

# 2. A search filters; the table shows the id and the title.
out=$("$HEW_BIN" history --json LAWN)
[[ $(json_field "$out" 'len(d)') == 1 && $(json_field "$out" 'd[0]["id"]') == "$lawn" ]] ||
    fail "search: $out"
table=$("$HEW_BIN" history)
grep -q "^$lawn .*completed.*Mow the lawn" <<<"$table" || fail "table: $table"
[[ $(grep -c "^[0-9]" <<<"$table") == 2 ]] || fail "table rows: $table"
"$HEW_BIN" history show "$shed" >"$tmp/show" || fail "show failed"
grep -q "Paint the shed" "$tmp/show" && grep -q "All done." "$tmp/show" || fail "show: $(cat "$tmp/show")"
set +e
"$HEW_BIN" history show nosuchtask >/dev/null 2>"$tmp/err"; rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "no task 'nosuchtask'" "$tmp/err" || fail "show unknown: $rc $(cat "$tmp/err")"

# 3. Export, then import: the imported task is listed (a new id: the old one is taken).
"$HEW_BIN" export "$shed" "$tmp/exported" >/dev/null || fail "export"
for f in api_conversation_history.json ui_messages.json task_metadata.json; do
    [[ -s $tmp/exported/$f ]] || fail "export lacks $f"
done
out=$("$HEW_BIN" import "$tmp/exported") || fail "import"
imported=${out#imported task }
[[ -n $imported && $imported != "$shed" ]] || fail "import said: $out"
list=$("$HEW_BIN" history --json)
[[ $(json_field "$list" 'len(d)') == 3 ]] || fail "after import: $list"
[[ $(json_field "$list" '[t["title"] for t in d if t["id"]=="'"$imported"'"][0]') == "Paint the shed" ]] ||
    fail "imported title: $list"

# 4. Delete removes; deleting again says so.
"$HEW_BIN" history delete "$imported" >/dev/null || fail "delete"
list=$("$HEW_BIN" history --json)
[[ $(json_field "$list" 'len(d)') == 2 ]] || fail "after delete: $list"
set +e
"$HEW_BIN" history delete "$imported" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "no task" "$tmp/err" || fail "delete twice: $rc $(cat "$tmp/err")"

# 5. A task interrupted with SIGTERM, resumed with new instructions against a second
#    scenario: it completes, and the request carries the earlier conversation.
fake_start "$here/data/headless_stall_scenario.json"
"$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" --cwd "$work" \
    -p "Write the long essay" >/dev/null 2>"$tmp/err" </dev/null &
pid=$!
for ((i = 0; i < 600; i++)); do # until the request is out: hew handles signals by then
    [[ -s $FAKE_RECORD ]] && break
    sleep 0.05
done
kill -TERM "$pid"
set +e
wait "$pid"; rc=$?
set -e
[[ $rc -eq 130 ]] || fail "interrupted: exit $rc ($(cat "$tmp/err"))"
fake_stop
list=$("$HEW_BIN" history --json essay)
essay=$(json_field "$list" 'd[0]["id"]')
[[ $(json_field "$list" 'd[0]["status"]') == aborted ]] || fail "interrupted status: $list"
fake_start "$here/data/history_resume_scenario.json"
out=$(hew --resume "$essay" -p "finish it" </dev/null) || fail "resume failed: $out"
[[ $out == "Finished after the resume." ]] || fail "resume result: $out"
python3 - "$FAKE_RECORD" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 1, len(reqs)
body = json.dumps(reqs[0]["body"]["messages"])
assert "Write the long essay" in body, body
assert "[TASK RESUMPTION]" in body, body
assert "finish it" in body, body
PY
fake_stop
list=$("$HEW_BIN" history --json essay)
[[ $(json_field "$list" 'd[0]["status"]') == completed ]] || fail "resumed status: $list"

# 6. --continue: the newest task of this workspace (a newer task elsewhere does not count).
fake_start "$here/data/history_done_scenario.json"
"$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" --cwd "$other" \
    -p "Elsewhere" </dev/null >/dev/null || fail "task elsewhere"
fake_stop
fake_start "$here/data/history_resume_scenario.json"
out=$(hew --continue -p "one more thing" </dev/null) || fail "continue failed: $out"
[[ $out == "Finished after the resume." ]] || fail "continue result: $out"
grep -q "Write the long essay" "$FAKE_RECORD" || fail "continue did not pick the essay task"
grep -q "one more thing" "$FAKE_RECORD" || fail "continue lost the new instructions"
fake_stop
set +e
"$HEW_BIN" --cwd "$tmp" --continue -p "x" </dev/null >/dev/null 2>"$tmp/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "no stored task" "$tmp/err" || fail "continue, none: $rc $(cat "$tmp/err")"

# 7. The interactive session (through tmux, when there is one): /history lists the tasks,
#    /resume ID replays the conversation, asks how to go on, and new instructions go on;
#    then /history's workspace filter, paging and --all (8).
if command -v tmux >/dev/null; then
    sock=hew-e2e-hist-$$
    trap 'tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf "$tmp"' EXIT
    pane() { tmux -L "$sock" capture-pane -p -t t -S -200; }
    wait_for() { local i; for ((i = 0; i < 200; i++)); do pane | grep -Eq -- "$1" && return 0; sleep 0.05; done
        pane >&2; return 1; }
    fake_start "$here/data/history_polish_scenario.json"
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 50 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$tmp/cfg' \
         XDG_STATE_HOME='$tmp/state' TERM=xterm-256color '$HEW_BIN' --provider anthropic \
         --model claude-e2e --base-url '$FAKE_URL' --cwd '$work' --retry-delay-ms 10; \
         echo EXIT=\$?; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "interactive: no banner"
    tmux -L "$sock" send-keys -t t "/history essay" Enter
    wait_for "^$essay .*Write the long essay" || fail "interactive /history"
    tmux -L "$sock" send-keys -t t "/resume $essay" Enter
    wait_for "this task was completed" || fail "interactive /resume: no resume ask"
    pane | grep -q "› Write the long essay" || fail "interactive /resume: no replay"
    tmux -L "$sock" send-keys -t t "polish it" Enter
    wait_for "The essay is polished" || fail "interactive: the resumed task did not go on"
    grep -q "polish it" "$FAKE_RECORD" || fail "interactive: the instructions were not sent"
    # leave cleanly: the resumed run's checkpoints are done when hew has exited (killing
    # the tmux server instead could leave a checkpoint's git writing into $tmp)
    tmux -L "$sock" send-keys -t t C-d
    wait_for 'EXIT=0' || fail "interactive: Ctrl-D did not leave cleanly"
    fake_stop

    # 8. /history: this workspace's tasks by default, a page the terminal's height
    #    ("more: /history --page 2"), probe runs (failed at their first request with no
    #    output) hidden; --all adds the other workspaces' (a WORKSPACE column) and probes.
    for i in 1 2 3 4 5 6; do
        fake_start "$here/data/history_done_scenario.json"
        hew -p "Chore number $i" </dev/null >/dev/null || fail "chore $i"
        fake_stop
    done
    printf '{"responses": [{"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}}]}\n' >"$tmp/probe.json"
    fake_start "$tmp/probe.json"
    hew -p "Probe the provider" </dev/null >/dev/null 2>&1 && fail "the probe run did not fail"
    fake_stop
    n=$("$HEW_BIN" history --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
    tmux -L "$sock" kill-server 2>/dev/null
    sock=hew-e2e-hist2-$$
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 12 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$tmp/cfg' \
         XDG_STATE_HOME='$tmp/state' TERM=xterm-256color NO_COLOR=1 '$HEW_BIN' --provider anthropic \
         --model claude-e2e --base-url http://127.0.0.1:9 --cwd '$work'; echo EXIT=\$?; sleep 60" ||
        fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "paging: no banner"
    tmux -L "$sock" send-keys -t t "/history" Enter
    wait_for '^page 1 of [0-9]+ \([0-9]+ tasks\) · more: /history --page 2 · 1 probe run hidden' ||
        fail "/history: no paging line"
    p1=$(pane)
    [[ $(grep -c '^[0-9]\{8\}' <<<"$p1") == 8 ]] || fail "/history: not a page of 8 rows: $p1"
    grep -q 'Elsewhere' <<<"$p1" && fail "/history listed another workspace's task"
    grep -q 'WORKSPACE' <<<"$p1" && fail "/history has a workspace column without --all"
    grep -q 'Chore number 6' <<<"$p1" || fail "/history: the newest task is not on page 1"
    tmux -L "$sock" send-keys -t t "/history --page 2" Enter
    wait_for '^page 2 of' || fail "/history --page 2"
    grep -Eq 'Paint the shed' <<<"$(pane)" || fail "/history --page 2: the oldest task is not there"
    grep -Eq 'Probe the provider' <<<"$(pane)" && fail "/history: the probe run is listed"
    tmux -L "$sock" send-keys -t t "/history --all --page 1 Elsewhere" Enter
    wait_for '/other +Elsewhere' || fail "/history --all: no workspace column with the other task"
    grep -Eq '^ID .*WORKSPACE +TITLE' <<<"$(pane)" || fail "/history --all: no WORKSPACE header"
    tmux -L "$sock" send-keys -t t "/history --all Probe" Enter
    wait_for 'failed .*Probe the provider' || fail "/history --all: the probe run is not listed"
    [[ $("$HEW_BIN" history --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') == "$n" ]] ||
        fail "/history changed the store"
    tmux -L "$sock" send-keys -t t C-d
    wait_for 'EXIT=0' || fail "paging: Ctrl-D did not leave cleanly"
fi
echo "history: ok"
