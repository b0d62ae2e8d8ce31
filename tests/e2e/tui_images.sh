#!/usr/bin/env bash
# End to end: image paths pasted into any message of the interactive terminal, through
# tmux against the strict fake provider (which refuses a malformed image block as the
# real APIs do). Not only a new task's first message takes them:
#  1. XML tools: a follow-up question answered with a damaged image (a truncated PNG: its
#     header passes, its data does not) shows the error and the question still waits;
#     answered again with an image path, the next request carries, in the user message,
#     the "<answer>" text block and then the image block, its base64 the file's own (a
#     small PNG is sent as it is). Typed while the next answer streams and queued with
#     Enter, a line with an image path is the feedback on the completion, the image after
#     the tool's result. Feedback instead of an approval carries an image too.
#  2. Native tools: the question's answer carries the image inside the tool_result; a
#     task stopped with Ctrl-C and gone on with by a line holding a damaged image shows the
#     error before the task is resumed (nothing sent, the task still stopped); a line
#     holding a good one sends the image after the
#     [TASK RESUMPTION] note. /resume of the task lists the images under the replayed
#     messages that carried them.
#  3. A model that reads no images: an answer with one is refused naming the model, nothing
#     is sent, and the question then takes a text answer.
#  4. An image path written inside a file the user @mentions (a hostile repository's) is
#     not attached: only what the user typed or pasted is scanned for images. An image
#     whose name holds U+202E (right-to-left override) gets a label with it escaped.
# Skips without tmux or python3.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
fail() {
    echo "FAIL: $*" >&2
    [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t -S -80 >&2
    exit 1
}
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tuiimg.XXXXXX")
sock=hew-e2e-tuiimg-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT
python3 "$HEW_E2E_LIB/mkimage.py" png 40 30 "$work/shot.png" truncated 300 300 "$work/cut.png" ||
    fail "mkimage"

start_hew() { # start_hew SCENARIO FLAGS...: the fake provider, then hew in a fresh tmux session
    local scenario=$1
    shift
    fake_start "$scenario" || fail "fake_start $scenario"
    rm -rf "$work/ws"; mkdir -p "$work/ws"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1))
    sock=hew-e2e-tuiimg-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 40 \
        "env ANTHROPIC_API_KEY=e2e-key DEEPSEEK_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         XDG_DATA_HOME='$work/data$nsock' \
         TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
         $* --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10; \
         echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}
nreq() { [[ -s $FAKE_RECORD ]] && wc -l <"$FAKE_RECORD" || echo 0; }
wait_nreq() { # wait_nreq N: the fake has received N requests
    local i
    for ((i = 0; i < 400; i++)); do
        (($(nreq) >= $1)) && return 0
        sleep 0.05
    done
    return 1
}
check() { # check NAME: the python on stdin checks the recorded requests (argv: record, png)
    cp "$FAKE_RECORD" "$work/$1.jsonl"
    python3 - "$work/$1.jsonl" "$work/shot.png" || fail "$1: the requests (above)"
}

# 1. XML tools: a question answered with a damaged image, then a good one; queued
#    feedback with an image; approval feedback with an image
words=$(printf 'word%.0s ' $(seq 1 60))
cat >"$work/s1.json" <<JSON
{"responses": [
  {"protocol": "anthropic", "text": "<ask_followup_question>\n<question>Which screen is it?</question>\n</ask_followup_question>"},
  {"protocol": "anthropic", "text": "$words\n\n<attempt_completion>\n<result>\nseen the screen\n</result>\n</attempt_completion>", "delta_size": 8, "stall_after_bytes": 2500, "stall_ms": 8000},
  {"protocol": "anthropic", "text": "<write_to_file>\n<path>n.txt</path>\n<content>\nx\n</content>\n</write_to_file>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nall seen\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s1.json" --xml-tools
keys 'What is wrong?' Enter
wait_for 'Which screen is it' || fail "1: no question"
keys -l "this one $work/cut.png"
keys Enter
wait_for '\[image: cut.png 300x300\]' 5 || fail "1: the damaged image was not recognised as a path"
wait_for 'cut.png: the PNG image is damaged' 10 || fail "1: no error for the damaged image"
wait_for 'nothing was sent: answer again' 5 || fail "1: no hint that the question still waits"
[[ $(nreq) == 1 ]] || fail "1: the refused answer was sent ($(nreq) requests)"
keys -l "this one $work/shot.png"
keys Enter
wait_for '\[image: shot.png 40x30\]' 5 || fail "1: no image label under the answer"
wait_nreq 2 || fail "1: the answer did not reach the fake"
wait_for 'word word' 10 || fail "1: the second answer does not stream"
keys -l "and $work/shot.png too"
keys Enter
wait_for 'queued: and .*shot.png too' 5 || fail "1: the line was not queued while the task ran"
wait_for 'seen the screen' 30 || fail "1: no completion"
wait_nreq 3 || fail "1: the queued feedback was not sent"
wait_for 'Allow\?' 10 || fail "1: no approval"
keys -l "no, look at $work/shot.png first"
keys Enter
wait_for 'denied — your words go to the model instead' 5 || fail "1: the feedback was not taken"
wait_for 'all seen' 10 || fail "1: no final completion"
[[ ! -e $work/ws/n.txt ]] || fail "1: the denied file was written"
check xml <<'PY'
import base64, json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
want = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
assert not [r["violation"] for r in reqs if r.get("violation")], "the fake refused a request"
assert len(reqs) == 4, len(reqs)
def last_user(i):
    return reqs[i]["body"]["messages"][-1]["content"]
def after(content, needle):
    """the image blocks that follow the first text block holding needle"""
    k = [j for j, b in enumerate(content) if b["type"] == "text" and needle in b["text"]]
    assert k, (needle, json.dumps(content)[:2000])
    imgs = [b for b in content[k[0] + 1:] if b["type"] == "image"]
    assert [b for b in content[:k[0]] if b["type"] == "image"] == [], "an image before the text"
    return imgs
# the answer: "<answer>" text then the image, as the file is
c = last_user(1)
imgs = after(c, "<answer>\nthis one [image: shot.png]\n</answer>")
assert len(imgs) == 1, imgs
assert imgs[0]["source"] == {"type": "base64", "media_type": "image/png", "data": want}
assert "cut.png" not in json.dumps(reqs[1]["body"]), "the refused image went somewhere"
# the queued completion feedback
c = last_user(2)
imgs = after(c, "and [image: shot.png] too")
assert len(imgs) == 1 and imgs[0]["source"]["data"] == want, imgs
# the approval's feedback: after the tool's result
c = last_user(3)
imgs = after(c, "no, look at [image: shot.png] first")
assert len(imgs) == 1 and imgs[0]["source"]["data"] == want, imgs
PY
keys C-d
wait_for 'EXIT=0' || fail "1: Ctrl-D did not leave cleanly"
stop_hew

# 2. native tools: the answer's image inside the tool_result; a stopped task gone on
#    with by a line holding an image path
cat >"$work/s2.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_q1", "name": "ask_followup_question", "arguments": {"question": "Which screen is it?"}}]},
  {"protocol": "anthropic", "text": "Streaming slowly, word after word after word", "delta_size": 4, "stall_after_bytes": 900, "stall_ms": 60000},
  {"protocol": "anthropic", "tool_calls": [{"id": "toolu_c1", "name": "attempt_completion", "arguments": {"result": "went on"}}]}
]}
JSON
start_hew "$work/s2.json" --native-tools
keys 'What is wrong?' Enter
wait_for 'Which screen is it' || fail "2: no question"
keys -l "$work/shot.png"
keys Enter
wait_for '\[image: shot.png 40x30\]' 5 || fail "2: no image label under the answer"
wait_nreq 2 || fail "2: the answer did not reach the fake"
wait_for 'Ctrl-C to stop' 10 || fail "2: no status line"
keys C-c
wait_for 'stopped' 5 || fail "2: Ctrl-C did not stop the task"
wait_for 'your next message goes on with this task' 5 || fail "2: the task cannot be gone on with"
keys -l "go on with $work/cut.png"
keys Enter
wait_for 'cut.png: the PNG image is damaged' 20 || fail "2: no error for the damaged image"
wait_for 'nothing was sent: type your message again' 5 || fail "2: no hint that nothing was sent"
[[ $(nreq) == 2 ]] || fail "2: the refused message was sent ($(nreq) requests)"
keys -l "go on with '$work/shot.png'"
keys Enter
wait_for 'went on' 20 || fail "2: the task did not go on"
screen | grep -q 'this task was interrupted' && fail "2: the resume question was asked"
check native <<'PY'
import base64, json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
want = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
assert not [r["violation"] for r in reqs if r.get("violation")], "the fake refused a request"
assert len(reqs) == 3, len(reqs)
# the answer: inside the tool_result, after its text
c = reqs[1]["body"]["messages"][-1]["content"]
tr = [b for b in c if b["type"] == "tool_result" and b["tool_use_id"] == "toolu_q1"]
assert len(tr) == 1, json.dumps(c)[:2000]
inner = tr[0]["content"]
assert inner[0]["type"] == "text", inner[0]
assert "<answer>\n[image: shot.png]\n</answer>" in inner[0]["text"], inner[0]
imgs = [b for b in inner if b["type"] == "image"]
assert len(imgs) == 1 and inner.index(imgs[0]) > 0, inner
assert imgs[0]["source"] == {"type": "base64", "media_type": "image/png", "data": want}
# the stopped task gone on with: the image after the resumption note
c = reqs[2]["body"]["messages"][-1]["content"]
k = [j for j, b in enumerate(c)
     if b["type"] == "text" and b["text"].startswith("[TASK RESUMPTION]")]
assert k, json.dumps(c)[:2000]
assert "go on with [image: shot.png]" in c[k[0]]["text"], c[k[0]]["text"]
imgs = [b for b in c[k[0] + 1:] if b["type"] == "image"]
assert len(imgs) == 1 and imgs[0]["source"]["data"] == want, json.dumps(c)[:2000]
assert not [b for b in c[:k[0]] if b["type"] == "image"], "an image before the note"
PY
keys '/new' Enter # the task resumed: its replay lists the images under the messages
wait_for 'new task' 5 || fail "2: /new did not end the task"
keys '/resume' Enter
wait_for 'this task was completed' 20 || fail "2: /resume did not replay the task"
[[ $(screen | grep -c '\[image: shot.png, 40x30 png\]') == 2 ]] ||
    fail "2: the replay does not list the answer's and the message's images"
keys C-d
wait_for 'EXIT=0' || fail "2: Ctrl-D did not leave cleanly"
stop_hew

# 3. a model that reads no images: the answer with an image is refused, nothing is sent,
#    and the question takes a text answer after
cat >"$work/s3.json" <<'JSON'
{"responses": [
  {"protocol": "openai-chat", "text": "<ask_followup_question>\n<question>Which screen is it?</question>\n</ask_followup_question>"},
  {"protocol": "openai-chat", "text": "<attempt_completion>\n<result>\ntext it is\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s3.json" --provider deepseek --model deepseek-chat --xml-tools
keys 'What is wrong?' Enter
wait_for 'Which screen is it' || fail "3: no question"
keys -l "$work/shot.png"
keys Enter
wait_for 'the model deepseek-chat does not read images' 10 || fail "3: no refusal naming the model"
[[ $(nreq) == 1 ]] || fail "3: the refused answer was sent"
keys 'the login screen' Enter
wait_for 'text it is' 10 || fail "3: the text answer did not go"
check textonly <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
last = json.dumps(reqs[1]["body"]["messages"][-1])
assert "the login screen" in last and "image_url" not in last and "shot.png" not in last, last
PY
keys C-d
wait_for 'EXIT=0' || fail "3: Ctrl-D did not leave cleanly"
stop_hew

# 4. a hostile file: an image path written in a file the user @mentions attaches nothing
#    (only what the user typed or pasted is scanned for images); typed, the same path does
cat >"$work/s4.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nread the notes\n</result>\n</attempt_completion>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nseen it\n</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s4.json" --xml-tools
printf 'see %s for the layout\n' "$work/shot.png" >"$work/ws/notes.md"
keys -l "explain @notes.md"
keys Enter
wait_for 'read the notes' 10 || fail "4: no completion"
screen | grep -q '\[image:' && fail "4: a path inside the mentioned file was attached"
# a file name that reverses the text after it (U+202E): its label shows it escaped
rtl=$(printf 'a\u202egnp.png')
cp "$work/shot.png" "$work/ws/$rtl"
keys -l "and '$work/ws/$rtl'"
keys Enter
wait_for '\[image: a.*gnp.png 40x30\]' 10 || fail "4: no label for the image"
screen | grep '\[image: a' | grep -q "$(printf '\u202e')" &&
    fail "4: the label printed the name's U+202E as it is"
wait_for 'seen it' 10 || fail "4: the feedback with the image did not go"
check mention <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
first = reqs[0]["body"]["messages"][0]["content"]
text = json.dumps(first)
assert "for the layout" in text, text[:2000] # the file's text went
assert not [b for b in first if b["type"] == "image"], "an image was attached from the file"
PY
keys C-d
wait_for 'EXIT=0' || fail "4: Ctrl-D did not leave cleanly"
stop_hew
echo "ok"
