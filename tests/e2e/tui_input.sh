#!/usr/bin/env bash
# End to end: the interactive terminal's input side, through tmux against the fake
# provider (issue #20). Text typed while an answer streams shows on an input line, Enter
# queues it (a bracketed paste too, whole) and the queued messages are the next message
# when the task waits (its completion); Ctrl-C and
# Esc while it streams stop the task and bring the typed text back pre-filled at the
# prompt. The Ctrl-C rule: after a stop one Ctrl-C at the empty prompt only warns; with
# text it clears the text; two within 1 s at the empty prompt leave (exit 0). /hlep is
# caught ("did you mean /help") and never sent. Tab completes /mo, /model claude-so and
# @paths (a .clineignore'd file is not offered) and /resume's task id; @file in a
# message attaches its content; an ignored one is refused. Ctrl-C at an approval stops
# the task without leaving the spinner on the question's line. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tui.XXXXXX")
sock=hew-e2e-tui-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT

start_hew() { # start_hew SCENARIO: the fake provider, then hew in a fresh tmux session
    fake_start "$1" || fail "fake_start $1"
    rm -rf "$work/ws"; mkdir -p "$work/ws/src"
    printf 'int main(void) { return 42; }\n' >"$work/ws/src/main.c"
    printf 'two\n' >"$work/ws/second.txt"
    printf 'TOKEN=hunter2\n' >"$work/ws/secret.env"
    printf 'secret.env\n' >"$work/ws/.clineignore"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1))
    sock=hew-e2e-tui-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 40 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         XDG_DATA_HOME='$work/data$nsock' \
         TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
         --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10; \
         echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}
nreq() { [[ -s $FAKE_RECORD ]] && wc -l <"$FAKE_RECORD" || echo 0; }
wait_nreq() { # wait_nreq N: the fake has received N requests. The status line shows
    local i    # before the request leaves; a stop before it arrives sends nothing.
    for ((i = 0; i < 200; i++)); do
        (($(nreq) >= $1)) && return 0
        sleep 0.05
    done
    return 1
}

# 1. type-ahead: typed while the answer streams, shown, queued with Enter, sent as the
#    reply when the task waits at its completion
words=$(printf 'word%.0s ' $(seq 1 150))
cat >"$work/s1.json" <<JSON
{"responses": [
  {"protocol": "anthropic", "text": "$words", "delta_size": 4, "stall_after_bytes": 400, "stall_ms": 8000},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nfirst done\n</result>\n</attempt_completion>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nqueued one answered\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s1.json"
keys 'Write many words' Enter
wait_for 'Ctrl-C to stop' || fail "no status line"
keys -l 'also check the tests'
wait_for '^› also check the tests' 5 || fail "typed text not shown while the task runs"
keys Enter
wait_for 'queued: also check the tests' 5 || fail "Enter did not queue the text"
tmux -L "$sock" set-buffer -b p "$(printf 'paste line one\npaste line two')"
tmux -L "$sock" paste-buffer -p -b p -t t # bracketed: one piece, newlines kept
wait_for '^› paste line one⏎ paste line two' 5 || fail "the paste is not shown whole"
keys Enter
wait_for 'queued: paste line one …' 5 || fail "Enter did not queue the paste"
wait_for 'first done' 20 || fail "the first task did not finish"
wait_for 'queued one answered' 10 || fail "the queued message was not sent when the task waited"
python3 - "$FAKE_RECORD" <<'PY' || fail "the queued text is not the next message"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 3, len(reqs)
assert "also check the tests" not in json.dumps(reqs[1]["body"]["messages"]), "sent too early"
last = json.dumps(reqs[2]["body"]["messages"][-1])
assert "also check the tests\\n\\npaste line one\\npaste line two" in last, last
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 2. Ctrl-C (then Esc) while it streams, with text typed: the task stops, the text comes
#    back pre-filled; the Ctrl-C rule at the prompt
cat >"$work/s2.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "Streaming slowly, word after word after word", "delta_size": 4, "stall_after_bytes": 900, "stall_ms": 60000},
  {"protocol": "anthropic", "text": "Again slowly, word after word after word", "delta_size": 4, "stall_after_bytes": 900, "stall_ms": 60000},
  {"protocol": "anthropic", "text": "Third slowly, word after word after word", "delta_size": 4, "stall_after_bytes": 900, "stall_ms": 60000},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nwent on\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s2.json"
keys 'Go slowly' Enter
wait_for 'Ctrl-C to stop' || fail "no status line (2)"
wait_nreq 1 || fail "the first request did not reach the fake"
keys -l 'half typed'
wait_for '^› half typed' 5 || fail "typed text not shown (2)"
keys C-c
wait_for 'stopped' 5 || fail "Ctrl-C did not stop the task"
wait_for '^› half typed ?$' 5 || fail "the typed text did not come back at the prompt"
keys ' now' Enter
wait_for 'Ctrl-C to stop' || fail "the pre-filled message did not start a request"
wait_nreq 2 || fail "the pre-filled message did not reach the fake"
keys -l 'esc text'
wait_for '^› esc text' 5 || fail "typed text not shown (3)"
keys Escape
wait_for '^› esc text ?$' 5 || fail "Esc did not stop the task with the text kept"
python3 - "$FAKE_RECORD" <<'PY' || fail "the pre-filled text was not sent"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
assert "half typed now" in json.dumps(reqs[1]["body"]["messages"]), reqs[1]
PY
keys C-c # with text: clears it, stays
wait_for '^› ?$' 5 || fail "Ctrl-C did not clear the text"
screen | grep -q 'again to leave' && fail "Ctrl-C on text counted as the first of two"
keys 'go on' Enter
wait_for 'Third slowly' 10 || fail "no third request"
wait_for 'Ctrl-C to stop' || fail "no status line (4)"
keys C-c # stops the task: not the first of the two that leave
wait_for 'stopped.*' 5 || fail "Ctrl-C did not stop the third request"
wait_for '^› ?$' 5 || fail "no empty prompt after the stop"
keys C-c # right after the stop: only warns
wait_for 'Ctrl-C again to leave' 5 || fail "one Ctrl-C after a stop did not (only) warn"
sleep 1.3 # more than 1 s later: warns again, does not leave
keys C-c
for ((i = 0; i < 100; i++)); do
    [[ $(screen | grep -c 'again to leave') == 2 ]] && break
    sleep 0.05
done
[[ $(screen | grep -c 'again to leave') == 2 ]] || fail "no second warning"
keys 'finish' Enter
wait_for 'went on' 10 || fail "hew left on a Ctrl-C after a stop or more than 1 s later"
[[ $(nreq) == 4 ]] || fail "expected 4 requests, got $(nreq)"
python3 - "$FAKE_RECORD" <<'PY' || fail "the text Ctrl-C cleared came back"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
third = json.dumps(reqs[2]["body"]["messages"])
assert "go on" in third and "esc text" not in third, third[-3000:]
PY
wait_for '^› ?$' 5 || fail "no prompt after the completion"
keys C-c; sleep 0.2; keys C-c
wait_for 'EXIT=0' || fail "two Ctrl-C within 1 s did not leave cleanly"
stop_hew

# 3. /hlep is caught, never sent; Tab completion; @mentions
cat >"$work/s3.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nread it\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s3.json"
keys '/hlep' Enter
wait_for 'unknown command /hlep — did you mean /help\?' 5 || fail "/hlep not caught"
[[ $(nreq) == 0 ]] || fail "/hlep was sent to the model"
keys '/mo' Tab
wait_for '^› /model ?$' 5 || fail "Tab did not complete /mo"
keys 'claude-so' Tab
wait_for '^› /model claude-sonnet-' 5 || fail "Tab did not complete a model name"
keys C-u '@sr' Tab
wait_for '^› @src/$' 5 || fail "Tab did not complete @sr to the folder"
keys 'm' Tab
wait_for '^› @src/main.c ?$' 5 || fail "Tab did not complete the file"
keys C-u '@sec' Tab
wait_for '^› @second.txt ?$' 5 || fail "the ignored file was offered (or nothing completed)"
keys C-u
keys -l 'explain @src/main.c and @secret.env'
keys Enter
wait_for 'secret.env: .clineignore hides it' 5 || fail "the ignored file was not refused"
wait_for 'read it' 10 || fail "no answer to the mention"
python3 - "$FAKE_RECORD" <<'PY' || fail "@file did not attach the content"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 1, len(reqs)
first = json.dumps(reqs[0]["body"]["messages"][0]).replace("\\n", "\n").replace('\\"', '"')
assert "'src/main.c' (see below for file content)" in first, first[:3000]
assert '<file_content path="src/main.c">\nint main(void) { return 42; }\n</file_content>' in first, first[:3000]
assert "hunter2" not in first
PY
keys '/resume ' Tab # the one stored task of this data folder
wait_for '^› /resume [0-9]{6,} ?$' 5 || fail "Tab did not complete a task id"
keys C-u
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 4. Ctrl-C at an approval (a short path: the question fits the width): the task stops,
#    and the status line's spinner is not left at the end of the question (the live
#    region starts on a line of its own)
cat >"$work/s4.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "I will edit.\n\n<write_to_file>\n<path>n</path>\n<content>\nx\n</content>\n</write_to_file>"}
]}
JSON
start_hew "$work/s4.json"
keys 'Make a file' Enter
wait_for 'Allow\?' || fail "4: no approval"
sleep 0.3
keys C-c
wait_for 'stopped' 5 || fail "4: Ctrl-C at the approval did not stop the task"
sleep 0.5 # the status line's next tick
grep -A1 'Allow?' <<<"$(screen)" | LC_ALL=C.utf8 grep -qP '[\x{2800}-\x{28FF}]' &&
    fail "4: a spinner was left on the approval's line"
[[ ! -e $work/ws/n ]] || fail "4: the file was written after Ctrl-C"
keys C-d
wait_for 'EXIT=0' || fail "4: Ctrl-D did not leave cleanly"
stop_hew
echo "ok"
