#!/usr/bin/env bash
# End to end: the interactive terminal, driven through tmux (send-keys / capture-pane)
# against the fake provider. A streamed answer with markdown rendered once (no '#' or '**'
# left, bullets drawn) and a tool approval answered y (the diff shown, the file changed);
# one answered with typed feedback (the file not written, the feedback in the next
# request); Ctrl-C while an answer streams comes back to the prompt, a new message then
# starts a new task, and Ctrl-D leaves with status 0; /plan then a message sends the
# request in plan mode; a pasted block of lines is one message. With native tool calls:
# /model then /act on a waiting plan, and Ctrl-C while a command runs then a message, go
# on with the task in requests the real APIs accept (every tool call answered, the mode
# the user chose); an image path dropped into the prompt is attached. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tty.XXXXXX")
sock=hew-e2e-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT

# start_hew SCENARIO [TOOLS-FLAG]: the fake provider, then hew in a fresh tmux session "t"
start_hew() {
    fake_start "$1" || fail "fake_start $1"
    rm -rf "$work/ws"; mkdir -p "$work/ws"
    printf 'hello\n' >"$work/ws/a.txt"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1)) # a server of its own: the last one may still be going away
    sock=hew-e2e-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 40 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
         ${2:---xml-tools} --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10; \
         echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}

# 1. streaming + markdown + an approval answered y + one answered with feedback
cat >"$work/s1.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "delay_ms": 5, "text": "## The plan\n\nI will **change** the greeting:\n\n- read it\n- edit it\n\n<replace_in_file>\n<path>a.txt</path>\n<diff>\n------- SEARCH\nhello\n=======\ngoodbye\n+++++++ REPLACE\n</diff>\n</replace_in_file>", "usage": {"input": 1200, "output": 85, "cache_read": 1024}},
  {"protocol": "anthropic", "text": "<write_to_file>\n<path>b.txt</path>\n<content>\nnew file\n</content>\n</write_to_file>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nThe greeting says **goodbye**.\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s1.json"
keys 'Change the greeting' Enter
wait_for 'Allow\?' || fail "no approval prompt"
s=$(screen)
grep -q '^The plan' <<<"$s" || fail "heading not rendered"
grep -q '##' <<<"$s" && fail "markdown heading marks left on screen"
grep -q 'I will change the greeting:' <<<"$s" || fail "emphasis not rendered"
grep -q '• read it' <<<"$s" || fail "list not rendered"
grep -q 'Edit a.txt' <<<"$s" || fail "no tool summary"
grep -q -- '-hello' <<<"$s" && grep -q -- '+goodbye' <<<"$s" || fail "no diff"
keys y Enter
wait_for 'Create b.txt' || fail "no second ask"
wait_for 'Allow\?.*$' || fail "no second prompt"
grep -q goodbye "$work/ws/a.txt" || fail "approved edit not on disk"
wait_for '1200 in · 85 out · 1024 cached' || fail "no usage line"
keys 'call it c.txt instead' Enter
wait_for 'Done' || fail "no completion"
wait_for 'The greeting says goodbye' || fail "completion text"
[[ -e $work/ws/b.txt ]] && fail "denied file was written"
python3 - "$FAKE_RECORD" <<'PY' || fail "feedback did not reach the model"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
last = json.dumps(reqs[2]["body"]["messages"][-1])
assert "denied" in last and "call it c.txt instead" in last, last
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 2. Ctrl-C while the answer streams: back to the prompt; the next message goes on with
#    the same task (its conversation, then the new instruction); after /new a message is
#    a new task; Ctrl-C twice at the prompt leaves.
cat >"$work/s2.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "Thinking about it for a very long time indeed, word after word after word", "delta_size": 4, "stall_after_bytes": 900, "stall_ms": 30000},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nsame task goes on\n</result>\n</attempt_completion>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nsecond task\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s2.json"
keys 'Go slowly' Enter
wait_for 'Think' || fail "stream not shown"
wait_for 'Ctrl-C to stop' || fail "no status line"
keys C-c
wait_for 'stopped' 5 || fail "Ctrl-C did not stop the stream"
wait_for 'goes on with this task' 5 || fail "the stop does not say the task can go on"
wait_for '^› ?$' 5 || fail "no prompt after Ctrl-C"
keys 'again, but faster' Enter
wait_for 'same task goes on' || fail "the task did not go on after the stop"
python3 - "$FAKE_RECORD" <<'PY' || fail "the message after Ctrl-C did not continue the task"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
msgs = json.dumps(reqs[1]["body"]["messages"]).replace("\\n", "\n")
assert "<task>\nGo slowly\n</task>" in msgs, msgs      # the same conversation
assert "again, but faster" in msgs, msgs                # with the new instruction
assert "<task>\nagain" not in msgs, msgs               # not a new task
PY
wait_for '^› ?$' 5 || fail "no prompt after the completion"
keys '/new' Enter
keys 'another one' Enter
wait_for 'second task' || fail "no new task after /new"
python3 - "$FAKE_RECORD" <<'PY' || fail "the message after /new was not a new task"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 3
assert "<task>\nanother one\n</task>" in json.dumps(reqs[2]["body"]["messages"][0]).replace("\\n", "\n"), reqs[2]
PY
keys C-c; sleep 0.2; keys C-c
wait_for 'EXIT=0' || fail "Ctrl-C twice did not leave cleanly"
stop_hew

# 3. /plan, then a message: the request is in plan mode; a pasted block is one message
cat >"$work/s3.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<plan_mode_respond>\n<response>\nFirst **read**, then edit.\n</response>\n</plan_mode_respond>"},
  {"protocol": "anthropic", "text": "<plan_mode_respond>\n<response>\nok\n</response>\n</plan_mode_respond>"}
]}
JSON
start_hew "$work/s3.json"
keys '/plan' Enter
wait_for 'plan mode' || fail "/plan not acknowledged"
keys 'Make a plan' Enter
wait_for 'First read, then edit.' || fail "plan not shown"
wait_for '/act to carry it out' || fail "no plan hint"
tmux -L "$sock" set-buffer -b p "$(printf 'line one\nline two\nline three')"
tmux -L "$sock" paste-buffer -p -b p -t t
wait_for 'paste #1: 3 lines' || fail "paste placeholder"
keys Enter
wait_for '^ok$' || fail "pasted reply not answered"
python3 - "$FAKE_RECORD" <<'PY' || fail "plan mode / paste not in the requests"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
first = json.dumps(reqs[0]["body"]["messages"][0])
assert "PLAN MODE" in first, first[:2000]
assert "line one\\nline two\\nline three" in json.dumps(reqs[1]["body"]["messages"][-1]), reqs[1]["body"]["messages"][-1]
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 4. /model while the task waits at the prompt: the next message goes on with the same
#    task, on the new model
cat >"$work/s4.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<ask_followup_question>\n<question>Which colour?</question>\n</ask_followup_question>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\npainted blue\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s4.json"
keys 'Paint the shed' Enter
wait_for 'Which colour' || fail "question not shown"
keys '/model claude-opus-4-5' Enter
wait_for 'goes on with this task on it' || fail "/model did not say the task goes on"
keys 'blue' Enter
wait_for 'painted blue' || fail "the task did not go on after /model"
python3 - "$FAKE_RECORD" <<'PY' || fail "the message after /model did not continue the task on the new model"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
assert reqs[0]["body"]["model"] != "claude-opus-4-5", reqs[0]["body"]["model"]
assert reqs[1]["body"]["model"] == "claude-opus-4-5", reqs[1]["body"]["model"]
msgs = json.dumps(reqs[1]["body"]["messages"]).replace("\\n", "\n")
assert "<task>\nPaint the shed\n</task>" in msgs and "blue" in msgs, msgs
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew
# 5. Native tools: a plan waits; /model, then /act, then a message: the task goes on, on
#    the new model, told ACT MODE, its plan_mode_respond call answered first.
cat >"$work/s5.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_plan1", "name": "plan_mode_respond", "arguments": {"response": "Step one, then step two."}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_done1", "name": "attempt_completion", "arguments": {"result": "carried out"}}]}
]}
JSON
start_hew "$work/s5.json" --native-tools
keys '/plan' Enter
wait_for 'plan mode' || fail "/plan not acknowledged"
keys 'Plan the work' Enter
wait_for 'Step one, then step two' || fail "native plan not shown"
wait_for '/act to carry it out' || fail "no plan hint"
keys '/model claude-opus-4-5' Enter
wait_for 'goes on with this task on it' || fail "/model on a waiting plan"
keys '/act' Enter
wait_for 'act mode' || fail "/act not acknowledged"
keys 'go ahead' Enter
wait_for 'carried out' || fail "the plan was not carried out after /model and /act"
python3 - "$FAKE_RECORD" <<'PY' || fail "/model then /act: the request is not what the real API accepts"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
body = reqs[1]["body"]
assert body["model"] == "claude-opus-4-5", body["model"]
msgs = body["messages"]
i = next(k for k, m in enumerate(msgs) if any(b.get("type") == "tool_use" for b in m["content"] if isinstance(m["content"], list)))
assert msgs[i + 1]["content"][0]["type"] == "tool_result", msgs[i + 1]
assert msgs[i + 1]["content"][0]["tool_use_id"] == "toolu_plan1", msgs[i + 1]
last = json.dumps(msgs[-1]).replace("\\n", "\n")
k = last.rfind("# Current Mode\n")
assert last[k:].split("\n")[1] == "ACT MODE", last[k:k + 200]
assert "go ahead" in last, last
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 6. Native tools: Ctrl-C while a command runs, then a message: the command's call gets
#    the interrupted result, first, and the task goes on.
cat >"$work/s6.json" <<JSON
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_cmd1", "name": "execute_command", "arguments": {"command": "touch $work/ws/started; sleep 60", "requires_approval": false}}]},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_done2", "name": "attempt_completion", "arguments": {"result": "went on after the stop"}}]}
]}
JSON
start_hew "$work/s6.json" --native-tools
keys 'Run the long job' Enter
wait_for 'Allow\?' || fail "no command approval"
keys y Enter
for ((i = 0; i < 200; i++)); do [[ -e $work/ws/started ]] && break; sleep 0.05; done
[[ -e $work/ws/started ]] || fail "the command did not start"
keys C-c
wait_for 'goes on with this task' 10 || fail "Ctrl-C during the command"
wait_for '^› ?$' 5 || fail "no prompt after Ctrl-C"
keys 'try something shorter' Enter
wait_for 'went on after the stop' || fail "the task did not go on after Ctrl-C at a command"
python3 - "$FAKE_RECORD" <<'PY' || fail "Ctrl-C at a command: the request is not what the real API accepts"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
msgs = reqs[1]["body"]["messages"]
i = next(k for k, m in enumerate(msgs) if isinstance(m["content"], list) and any(b.get("type") == "tool_use" for b in m["content"]))
first = msgs[i + 1]["content"][0]
assert first["type"] == "tool_result" and first["tool_use_id"] == "toolu_cmd1", msgs[i + 1]
assert "interrupted" in json.dumps(first), first
assert "try something shorter" in json.dumps(msgs[-1]), msgs[-1]
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
stop_hew

# 6. An image dropped into the prompt (a path with an escaped space, as terminals paste
#    it): shown as "[image: NAME WxH]", attached after the text of the task's first message.
cat >"$work/s6.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nA gradient.\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s6.json"
python3 "$HEW_E2E_LIB/mkimage.py" png 40 30 "$work/ws/my shot.png"
keys -l "what is in $work/ws/my\ shot.png?"
keys Enter
wait_for '\[image: my shot.png 40x30\]' || fail "the dropped image was not recognised"
wait_for 'A gradient' || fail "no completion after the image"
python3 - "$FAKE_RECORD" <<'PY' || fail "the dropped image did not reach the request"
import json, sys
req = json.loads(open(sys.argv[1]).readline())
assert not req.get("violation"), req.get("violation")
content = req["body"]["messages"][0]["content"]
assert "what is in [image: my shot.png]?" in content[0]["text"], content[0]
assert content[1]["type"] == "image" and content[1]["source"]["media_type"] == "image/png", content[1]
PY
keys C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly after the image"
stop_hew
echo "interactive: ok"
