#!/usr/bin/env bash
# End to end: images through the real `hew` against the strict fake provider, which
# refuses a malformed image block as the real APIs do (docs/fake-provider.md).
#  1. `hew -p TEXT -i FILE --image FILE` in each protocol (Anthropic, OpenAI Chat, OpenAI
#     Responses, Gemini): the first request carries both images in that protocol's shape,
#     after the task text, the large one scaled down to a 1568 px long side (PNG stays
#     PNG), and the task message lists them.
#  2. read_file of an image by a model that reads images, native tools in each protocol and
#     XML tools: the next request carries it (Anthropic: in the tool_result; Chat and
#     Responses: a user message after the tool output; Gemini: inlineData after the
#     functionResponse); a .clineignore'd image is refused like any file.
#  3. A text-only model: -i is refused before any request (exit 2, naming the model);
#     read_file of an image answers a refusal naming it and sends no image.
#  4. Crafted files given to -i: a header claiming 100000x100000 pixels, a truncated PNG,
#     text named .png, a missing file: exit 2 with a clear message, no request sent.
#  5. -i going on with a stored task: `--continue TEXT -i FILE` sends the image after the
#     [TASK RESUMPTION] note (its base64 the file's: a small PNG goes as it is), `--resume
#     ID -i FILE` with no text the image alone. Refused before the stored task is opened
#     (text named .png, a missing file, a text-only model, a truncated PNG, a header that
#     lies about its size): exit 2, no request, the store exactly as it was.
# The requests are checked by one python at the end (it starts slowly on a loaded machine).
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-images-e2e.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME" "$work/ws" "$work/rec"
export ANTHROPIC_API_KEY=k OPENAI_API_KEY=k GEMINI_API_KEY=k DEEPSEEK_API_KEY=k
python3 "$HEW_E2E_LIB/mkimage.py" png 3000 1000 "$work/big.png" png 40 30 "$work/small.png" \
    bomb "$work/bomb.png" truncated 300 300 "$work/cut.png"
cp "$work/small.png" "$work/ws/shot.png"
cp "$work/small.png" "$work/ws/secret.png"
echo "secret.png" >"$work/ws/.clineignore"
printf 'just text\n' >"$work/notes.png"

# proto_args PROTO: the flags of a model that reads images in that protocol.
proto_args() {
    case $1 in
    anthropic) echo "--provider anthropic --model claude-sonnet-4-5" ;;
    openai-chat) echo "--provider openai --model gpt-4.1" ;;
    openai-responses) echo "--provider openai --model gpt-5 --protocol openai-responses" ;;
    gemini) echo "--provider gemini --model gemini-2.5-pro" ;;
    esac
}

# scenario PROTO [READ_PATH]: (a native read_file of READ_PATH, then) attempt_completion.
scenario() {
    {
        printf '{"responses": [\n'
        [[ -n ${2:-} ]] && printf '{"protocol": "%s", "tool_calls": [{"name": "read_file", "arguments": {"path": "%s"}}]},\n' "$1" "$2"
        printf '{"protocol": "%s", "tool_calls": [{"name": "attempt_completion", "arguments": {"result": "seen"}}]}\n]}\n' "$1"
    } >"$work/s.json"
}

run_hew() { # PROTO ARGS...: hew -p in the workspace, native tools, reads approved
    local proto=$1
    shift
    # shellcheck disable=SC2046
    "$HEW_BIN" $(proto_args "$proto") --base-url "$FAKE_URL" --cwd "$work/ws" \
        --retry-delay-ms 10 --auto-approve read --native-tools "$@" </dev/null
}

keep() { cp "$FAKE_RECORD" "$work/rec/$1.jsonl"; fake_stop; } # the requests, for the check

# 1. -i in each protocol.
for proto in anthropic openai-chat openai-responses gemini; do
    scenario "$proto"
    fake_start "$work/s.json"
    run_hew "$proto" -p "What is wrong here?" -i "$work/big.png" --image "$work/small.png" \
        --json >"$work/rec/attach-$proto.events" 2>"$work/err" ||
        fail "$proto -i: exit $?: $(cat "$work/err")"
    keep "attach-$proto"
done

# 2. read_file of an image: native tools in each protocol, then XML tools.
for proto in anthropic openai-chat openai-responses gemini; do
    scenario "$proto" shot.png
    fake_start "$work/s.json"
    out=$(run_hew "$proto" -p "Look at shot.png" 2>"$work/err") ||
        fail "$proto read_file: exit $?: $(cat "$work/err")"
    [[ $out == seen ]] || fail "$proto read_file: result '$out'"
    keep "read-$proto"
done
cat >"$work/s.json" <<'JSON'
{"responses": [
 {"protocol": "anthropic", "text": "<read_file>\n<path>shot.png</path>\n</read_file>"},
 {"protocol": "anthropic", "text": "<attempt_completion>\n<result>seen</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/s.json"
run_hew anthropic -p "Look at shot.png" --xml-tools >/dev/null 2>"$work/err" ||
    fail "xml read_file: exit $?: $(cat "$work/err")"
keep read-anthropic-xml
scenario anthropic secret.png # .clineignore blocks an image as it blocks any file
fake_start "$work/s.json"
run_hew anthropic -p "Look at secret.png" >/dev/null 2>"$work/err" || fail "ignored: exit $?"
keep read-ignored

# 3. A model that reads no images (deepseek-chat).
scenario openai-chat
fake_start "$work/s.json"
set +e
"$HEW_BIN" --provider deepseek --model deepseek-chat --base-url "$FAKE_URL" --cwd "$work/ws" \
    -p "What is this?" -i "$work/small.png" </dev/null >/dev/null 2>"$work/err"
rc=$?
set -e
[[ $rc == 2 ]] || fail "text-only -i: exit $rc, want 2"
grep -q "the model deepseek-chat does not read images" "$work/err" ||
    fail "text-only -i: $(cat "$work/err")"
[[ ! -s $FAKE_RECORD ]] || fail "text-only -i: a request was sent"
fake_stop
scenario openai-chat shot.png
fake_start "$work/s.json"
"$HEW_BIN" --provider deepseek --model deepseek-chat --base-url "$FAKE_URL" --cwd "$work/ws" \
    --native-tools --auto-approve read -p "Look at shot.png" </dev/null >/dev/null 2>"$work/err" ||
    fail "text-only read_file: exit $?: $(cat "$work/err")"
keep read-text-only

# 4. Crafted files: refused before any request, exit 2, a message that says what is wrong.
scenario anthropic
fake_start "$work/s.json"
for c in "bomb.png|100000x100000 pixels" "cut.png|PNG image is damaged" \
    "notes.png|not an image hew can send" "missing.png|no such file"; do
    f=${c%%|*} want=${c#*|}
    set +e
    run_hew anthropic -p "What is this?" -i "$work/$f" >/dev/null 2>"$work/err"
    rc=$?
    set -e
    [[ $rc == 2 ]] || fail "$f: exit $rc, want 2: $(cat "$work/err")"
    grep -q "$want" "$work/err" || fail "$f: message: $(cat "$work/err")"
done
[[ ! -s $FAKE_RECORD ]] || fail "crafted: a request was sent"
fake_stop

# 5. Going on with a stored task with -i.
cat >"$work/s.json" <<'JSON'
{"responses": [
 {"protocol": "anthropic", "tool_calls": [{"name": "attempt_completion", "arguments": {"result": "first"}}]},
 {"protocol": "anthropic", "tool_calls": [{"name": "attempt_completion", "arguments": {"result": "second"}}]},
 {"protocol": "anthropic", "tool_calls": [{"name": "attempt_completion", "arguments": {"result": "third"}}]}
]}
JSON
fake_start "$work/s.json"
out=$(run_hew anthropic --data-dir "$work/data" -p "Remember this" 2>"$work/err") ||
    fail "stored task: exit $?: $(cat "$work/err")"
[[ $out == first ]] || fail "stored task: result '$out'"
id=$("$HEW_BIN" history --data-dir "$work/data" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])') ||
    fail "no stored task"
store_dump() { # every row of the store's tables, but the full-text index's own
    python3 - "$work/data/hew.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
tables = [t for (t,) in db.execute("select name from sqlite_master where type='table' order by name")
          if not t.startswith("msg_fts")]
for t in tables:
    for row in db.execute(f'select * from "{t}" order by rowid'):
        print(t, list(row))
PY
}
store_dump >"$work/store.before"
for c in "notes.png|not an image hew can send" "missing.png|no such file" \
    "deepseek|the model deepseek-chat does not read images" \
    "bomb.png|100000x100000 pixels" "cut.png|PNG image is damaged"; do
    f=${c%%|*} want=${c#*|}
    set +e
    if [[ $f == deepseek ]]; then
        "$HEW_BIN" --provider deepseek --model deepseek-chat --base-url "$FAKE_URL" \
            --cwd "$work/ws" --data-dir "$work/data" -p --continue "and this?" \
            -i "$work/small.png" </dev/null >/dev/null 2>"$work/err"
    else
        run_hew anthropic --data-dir "$work/data" -p --continue "and this?" -i "$work/$f" \
            >/dev/null 2>"$work/err"
    fi
    rc=$?
    set -e
    [[ $rc == 2 ]] || fail "--continue -i $f: exit $rc, want 2: $(cat "$work/err")"
    grep -q "$want" "$work/err" || fail "--continue -i $f: message: $(cat "$work/err")"
    [[ $(wc -l <"$FAKE_RECORD") == 1 ]] || fail "--continue -i $f: a request was sent"
    store_dump | cmp -s - "$work/store.before" ||
        fail "--continue -i $f: the store changed: $(store_dump | diff "$work/store.before" -)"
done
set +e # without -p (the terminal's way is a pasted path): a usage error, nothing sent
run_hew anthropic --data-dir "$work/data" --continue "and this?" -i "$work/small.png" \
    >/dev/null 2>"$work/err"
rc=$?
set -e
[[ $rc == 2 ]] || fail "--continue -i without -p: exit $rc, want 2"
grep -q -- "-i with --continue or --resume goes with -p" "$work/err" ||
    fail "--continue -i without -p: $(cat "$work/err")"
[[ $(wc -l <"$FAKE_RECORD") == 1 ]] || fail "--continue -i without -p: a request was sent"
out=$(run_hew anthropic --data-dir "$work/data" -p --continue "and this?" -i "$work/small.png" \
    2>"$work/err") || fail "--continue -i: exit $?: $(cat "$work/err")"
[[ $out == second ]] || fail "--continue -i: result '$out'"
out=$(run_hew anthropic --data-dir "$work/data" --resume "$id" -p -i "$work/small.png" \
    2>"$work/err") || fail "--resume -i: exit $?: $(cat "$work/err")"
[[ $out == third ]] || fail "--resume -i: result '$out'"
keep resume

python3 - "$work/rec" <<'PY' || fail "the requests (above)"
import base64, glob, json, os, struct, sys
rec = sys.argv[1]

def reqs(name):
    lines = [json.loads(l) for l in open(os.path.join(rec, name + ".jsonl"))]
    bad = [l["violation"] for l in lines if l.get("violation")]
    assert not bad, f"{name}: the fake refused: {bad}"
    return [l["body"] for l in lines]

def png_size(b64):
    raw = base64.b64decode(b64, validate=True)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", raw[:8]
    return struct.unpack(">II", raw[16:24])

def from_url(url):
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix), url[:40]
    return url[len(prefix):]

# 1. -i
for proto in ["anthropic", "openai-chat", "openai-responses", "gemini"]:
    req = reqs("attach-" + proto)[0]
    if proto == "anthropic":
        content = req["messages"][0]["content"]
        assert "What is wrong here?" in content[0]["text"], content[0]
        imgs = [b for b in content if b["type"] == "image"]
        assert content.index(imgs[0]) == 1, "images follow the task text"
        assert [b["source"]["type"] for b in imgs] == ["base64"] * 2, imgs
        assert [b["source"]["media_type"] for b in imgs] == ["image/png"] * 2
        datas = [b["source"]["data"] for b in imgs]
    elif proto == "openai-chat":
        content = [m for m in req["messages"] if m["role"] == "user"][0]["content"]
        assert content[0]["type"] == "text" and "What is wrong here?" in content[0]["text"]
        datas = [from_url(p["image_url"]["url"]) for p in content if p["type"] == "image_url"]
    elif proto == "openai-responses":
        item = [i for i in req["input"] if i.get("role") == "user"][0]
        assert item["content"][0]["type"] == "input_text"
        datas = [from_url(p["image_url"]) for p in item["content"] if p["type"] == "input_image"]
    else:
        parts = req["contents"][0]["parts"]
        assert "What is wrong here?" in parts[0]["text"], parts[0]
        inl = [p["inlineData"] for p in parts if "inlineData" in p]
        assert [i["mimeType"] for i in inl] == ["image/png"] * 2, inl
        datas = [i["data"] for i in inl]
    sizes = [png_size(d) for d in datas]
    assert sizes == [(1568, 523), (40, 30)], (proto, sizes)
    task = json.loads(open(os.path.join(rec, f"attach-{proto}.events")).readline())
    assert task["type"] == "task", task
    assert task["data"]["images"] == ["big.png, 1568x523 png, scaled from 3000x1000",
                                      "small.png, 40x30 png"], task["data"]

# 2. read_file
for proto in ["anthropic", "anthropic-xml", "openai-chat", "openai-responses", "gemini"]:
    rs = reqs("read-" + proto)
    assert len(rs) == 2, (proto, len(rs))
    req = rs[1]
    if proto == "anthropic":
        tr = [b for b in req["messages"][-1]["content"] if b["type"] == "tool_result"][0]
        assert "[Image: shot.png, 40x30 png" in tr["content"][0]["text"], tr["content"][0]
        data = tr["content"][1]["source"]["data"]
    elif proto == "anthropic-xml":
        last = req["messages"][-1]["content"]
        assert any("[Image: shot.png" in b.get("text", "") for b in last), last
        data = [b for b in last if b["type"] == "image"][0]["source"]["data"]
    elif proto == "openai-chat":
        msgs = req["messages"]
        i = [k for k, m in enumerate(msgs) if m["role"] == "tool"][0]
        assert "[Image: shot.png" in msgs[i]["content"], msgs[i]
        assert msgs[i + 1]["role"] == "user", msgs[i + 1]
        data = from_url([p for p in msgs[i + 1]["content"]
                         if p["type"] == "image_url"][0]["image_url"]["url"])
    elif proto == "openai-responses":
        items = req["input"]
        i = [k for k, it in enumerate(items) if it.get("type") == "function_call_output"][0]
        assert "[Image: shot.png" in items[i]["output"], items[i]
        data = from_url([p for p in items[i + 1]["content"]
                         if p["type"] == "input_image"][0]["image_url"])
    else:
        parts = req["contents"][-1]["parts"]
        fr = [k for k, p in enumerate(parts) if "functionResponse" in p][0]
        assert "[Image: shot.png" in json.dumps(parts[fr]), parts[fr]
        inl = [k for k, p in enumerate(parts) if "inlineData" in p][0]
        assert inl > fr, "the image follows the function response"
        data = parts[inl]["inlineData"]["data"]
    assert png_size(data) == (40, 30), proto

last = json.dumps(reqs("read-ignored")[1]["messages"][-1])
assert '"image"' not in last and ".clineignore" in last, last[:800]

# 3. text-only read_file
req = reqs("read-text-only")[1]
tool = [m for m in req["messages"] if m["role"] == "tool"][0]["content"]
assert "shot.png is an image, but the model in use (deepseek-chat) does not read images" in tool, tool
assert "image_url" not in json.dumps(req)
# 5. going on with -i: the image after the resumption note, as the file is
want = base64.b64encode(open(os.path.join(os.path.dirname(rec), "small.png"), "rb").read()).decode()
rs = reqs("resume")
assert len(rs) == 3, len(rs)
for k, words in ((1, "<user_message>\nand this?\n</user_message>"), (2, None)):
    c = rs[k]["messages"][-1]["content"]
    note = [j for j, b in enumerate(c) if b["type"] == "text" and b["text"].startswith("[TASK RESUMPTION]")]
    assert note, json.dumps(c)[:2000]
    if words:
        assert words in c[note[0]]["text"], c[note[0]]["text"]
    imgs = [b for b in c if b["type"] == "image"]
    assert len(imgs) == 1 and c.index(imgs[0]) > note[0], json.dumps(c)[:2000]
    assert imgs[0]["source"] == {"type": "base64", "media_type": "image/png", "data": want}
print("requests ok")
PY
echo "ok: images"
