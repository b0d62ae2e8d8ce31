#!/usr/bin/env bash
# End to end: a JSON \u0000 in what the model streams never silently cuts the text.
#  1. Decoding (all four protocols, `hew debug decode`): text and tool arguments keep the
#     NUL, byte for byte, with what follows it.
#  2. A task (`hew -p`, native tools; Anthropic, an OpenAI-compatible server, Gemini): the
#     text shown and the file write_to_file writes have U+FFFD where the NUL was and
#     everything after it, and the next request sends the answer back exactly as the
#     provider sent it (the NUL in the text and in the tool call's input).
#  3. The same with XML tools: write_to_file's content in the text.
# The answers are hand-made streams replayed byte for byte (a generated one cannot carry a
# NUL: the scenario file is read without JSON's \u0000).
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-nul.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME"
export ANTHROPIC_API_KEY=e2e-test-key OPENAI_API_KEY=e2e-test-key GEMINI_API_KEY=e2e-test-key

# The streams: text "see a<NUL>b" in two deltas (the NUL starts the second), then a
# write_to_file of "x<NUL>y" to nul.txt with the escape cut across two argument fragments.
python3 - "$work" <<'PY'
import json, sys
out = sys.argv[1]
TEXT = ["see a", "\x00b"]
ARGS = ['{"path":"nul.txt","content":"x\\u00', '00y"}']
def sse(name, data, crlf=False):
    nl = "\r\n" if crlf else "\n"
    head = ("event: %s%s" % (name, nl)) if name else ""
    return head + "data: " + json.dumps(data) + nl + nl

def anthropic(text=TEXT, args=ARGS):
    b = sse("message_start", {"type": "message_start", "message": {
        "id": "msg_nul", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})
    b += sse("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}})
    for t in text:
        b += sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": t}})
    b += sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    if args:
        b += sse("content_block_start", {"type": "content_block_start", "index": 1,
                 "content_block": {"type": "tool_use", "id": "toolu_nul",
                                   "name": "write_to_file", "input": {}}})
        for a in [""] + args:
            b += sse("content_block_delta", {"type": "content_block_delta", "index": 1,
                     "delta": {"type": "input_json_delta", "partial_json": a}})
        b += sse("content_block_stop", {"type": "content_block_stop", "index": 1})
    b += sse("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": "tool_use" if args else "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 5}})
    return b + sse("message_stop", {"type": "message_stop"})

def chat():
    def chunk(delta, finish=None):
        return sse(None, {"id": "chatcmpl-nul", "object": "chat.completion.chunk",
                          "created": 1, "model": "qwen3", "choices": [
                              {"index": 0, "delta": delta, "finish_reason": finish}]})
    b = chunk({"role": "assistant", "content": ""})
    for t in TEXT:
        b += chunk({"content": t})
    b += chunk({"tool_calls": [{"index": 0, "id": "call_nul", "type": "function",
                                "function": {"name": "write_to_file", "arguments": ""}}]})
    for a in ARGS:
        b += chunk({"tool_calls": [{"index": 0, "function": {"arguments": a}}]})
    b += chunk({}, "tool_calls")
    return b + "data: [DONE]\n\n"

def gemini():
    def chunk(parts, finish=None):
        c = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            c["finishReason"] = finish
        return sse(None, {"candidates": [c]}, crlf=True)
    b = "".join(chunk([{"text": t}]) for t in TEXT)
    args = json.loads("".join(ARGS))
    return b + chunk([{"functionCall": {"name": "write_to_file", "args": args}}], "STOP")

def responses():
    def ev(t, **kw):
        kw["type"] = t
        return sse(t, kw)
    msg = {"id": "msg_nul", "type": "message", "status": "in_progress", "content": [],
           "role": "assistant"}
    fc = {"id": "fc_nul", "type": "function_call", "status": "in_progress", "arguments": "",
          "call_id": "call_nul", "name": "write_to_file"}
    resp = {"id": "resp_nul", "object": "response", "status": "in_progress", "output": []}
    b = ev("response.created", response=resp)
    b += ev("response.output_item.added", output_index=0, item=msg)
    b += ev("response.content_part.added", item_id="msg_nul", output_index=0,
            content_index=0, part={"type": "output_text", "annotations": [], "text": ""})
    for t in TEXT:
        b += ev("response.output_text.delta", item_id="msg_nul", output_index=0,
                content_index=0, delta=t)
    done_msg = dict(msg, status="completed", content=[
        {"type": "output_text", "annotations": [], "text": "".join(TEXT)}])
    b += ev("response.output_item.done", output_index=0, item=done_msg)
    b += ev("response.output_item.added", output_index=1, item=fc)
    for a in ARGS:
        b += ev("response.function_call_arguments.delta", item_id="fc_nul", output_index=1,
                delta=a)
    done_fc = dict(fc, status="completed", arguments="".join(ARGS))
    b += ev("response.output_item.done", output_index=1, item=done_fc)
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    return b + ev("response.completed", response=dict(resp, status="completed",
                                                        output=[done_msg, done_fc], usage=usage))

xml = ["<write_to_file>\n<path>nul.txt</path>\n<content>\nx", "\x00y\n</content>\n"
       "</write_to_file>"]
for name, body in [("anthropic", anthropic()), ("openai-chat", chat()), ("gemini", gemini()),
                   ("openai-responses", responses()), ("xml", anthropic(xml, None))]:
    open("%s/%s.sse" % (out, name), "w").write(body)
PY

# 1. Decoding keeps every byte.
for p in anthropic openai-chat gemini openai-responses; do
    "$HEW_BIN" debug decode --protocol "$p" "$work/$p.sse" >"$work/$p.decoded" ||
        fail "decode $p: exit $?"
    python3 - "$p" "$work/$p.decoded" <<'PY' || fail "decode $p"
import json, sys
d = json.load(open(sys.argv[2]))
assert d["stream_complete"] is True, d
assert d["text"] == "see a\x00b", repr(d["text"])
args = json.loads(d["tool_calls"][0]["arguments"])
assert args == {"path": "nul.txt", "content": "x\x00y"}, args
PY
done

# 2. A task: shown and written with U+FFFD, sent back exactly.
run_task() { # run_task PROVIDER MODEL PROTOCOL BODY [flags...]
    local provider=$1 model=$2 proto=$3 body=$4
    shift 4
    rm -rf "$work/ws" && mkdir -p "$work/ws"
    python3 - "$work/scenario.json" "$proto" "$body" "$*" <<'PY'
import json, sys
done = {"protocol": sys.argv[2], "tool_calls": [
    {"name": "attempt_completion", "arguments": {"result": "written"}}]}
if "--xml-tools" in sys.argv[4]:
    done = {"protocol": sys.argv[2],
            "text": "<attempt_completion>\n<result>\nwritten\n</result>\n</attempt_completion>"}
json.dump({"responses": [{"replay": sys.argv[3], "status": 200, "headers":
                          {"content-type": "text/event-stream"}}, done]},
          open(sys.argv[1], "w"))
PY
    fake_start "$work/scenario.json"
    "$HEW_BIN" -p "Write nul.txt." --provider "$provider" --model "$model" \
        --auto-approve read,edit --base-url "$FAKE_URL" --cwd "$work/ws" \
        --retry-delay-ms 10 --json "$@" </dev/null >"$work/events.jsonl" 2>"$work/err" ||
        fail "$provider: exit $?: $(cat "$work/err")"
    cp "$FAKE_RECORD" "$work/requests.jsonl"
    fake_stop
}

check_task() { # check_task PROTOCOL: the file, the text shown, the answer sent back
    python3 - "$1" "$work" <<'PY' || fail "task $1"
import json, sys
proto, work = sys.argv[1], sys.argv[2]
data = open(work + "/ws/nul.txt", "rb").read()
assert data == b"x\xef\xbf\xbdy\n", data                 # not cut at the NUL
events = [json.loads(l) for l in open(work + "/events.jsonl")]
assert events[-1]["status"] == "completed", events[-1]
texts = [e["text"] for e in events if e.get("type") == "text" and not e["partial"]]
assert texts == ["see a\ufffdb"], texts
reqs = [json.loads(l) for l in open(work + "/requests.jsonl")]
assert len(reqs) == 2, len(reqs)
body = reqs[1]["body"]
if isinstance(body, str):                               # a recorder that refuses \u0000
    body = json.loads(body)
if proto == "anthropic":
    asst = [m for m in body["messages"] if m["role"] == "assistant"][-1]["content"]
    assert {"type": "text", "text": "see a\x00b"} in asst, asst
    use = [b for b in asst if b["type"] == "tool_use"][0]
    assert use["input"] == {"path": "nul.txt", "content": "x\x00y"}, use
elif proto == "openai-chat":
    asst = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    assert asst["content"] == "see a\x00b", asst
    args = json.loads(asst["tool_calls"][0]["function"]["arguments"])
    assert args == {"path": "nul.txt", "content": "x\x00y"}, args
else:
    parts = [c for c in body["contents"] if c["role"] == "model"][-1]["parts"]
    assert {"text": "see a\x00b"} in parts, parts
    call = [p for p in parts if "functionCall" in p][0]["functionCall"]
    assert call["args"] == {"path": "nul.txt", "content": "x\x00y"}, call
PY
}

run_task anthropic claude-sonnet-4-5 anthropic "$work/anthropic.sse" --native-tools
check_task anthropic
run_task openai-compatible qwen3 openai-chat "$work/openai-chat.sse" --native-tools
check_task openai-chat
run_task gemini gemini-2.5-pro gemini "$work/gemini.sse" --native-tools
check_task gemini

# 3. XML tools: the content of write_to_file in the text.
run_task anthropic claude-sonnet-4-5 anthropic "$work/xml.sse" --xml-tools
python3 - "$work" <<'PY' || fail "xml task"
import json, sys
work = sys.argv[1]
data = open(work + "/ws/nul.txt", "rb").read()
assert data == b"x\xef\xbf\xbdy\n", data
PY
echo "nul_text: ok"
