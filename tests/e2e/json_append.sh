#!/usr/bin/env bash
# End to end: `hew -p --json` sends a growing message as appends (docs/events.md, schema
# 2): a partial update carries "append" {offset, text} and no "text"; applying the appends
# of each message in order, from nothing, gives each update's text, and the final event
# carries the whole text, which is what the appends built up to plus the rest; the stored
# message (hew show --json) is whole, never an append.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'fake_stop; rm -rf "$work"' EXIT
export ANTHROPIC_API_KEY=e2e-test-key
export XDG_DATA_HOME="$work/data"
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 "$@"; }

fake_start "$here/data/json_append_scenario.json"
hew -p "Plan the shelf" --json </dev/null >"$work/events.jsonl"
fake_stop
python3 - "$work/events.jsonl" <<'PY' || fail "the --json appends do not add up"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
texts = {}        # what a front end keeps: each message's text by index
appends = 0
final_text = None
for e in events:
    assert e["v"] == 2, e
    if e["kind"] == "end":
        continue
    i = e["index"]
    if e["partial"] and ("append" in e or "text" in e):
        assert "text" not in e, ("a partial update repeats the text", e)
        a = e["append"]
        prev = texts.get(i, b"")
        off = a["offset"]
        assert 0 <= off <= len(prev), ("an append past the text so far", e, len(prev))
        texts[i] = prev[:off] + a["text"].encode()
        appends += 1 if off > 0 else 0
    else:
        assert "append" not in e, ("only partial updates carry append", e)
        if "text" in e:
            texts[i] = e["text"].encode()
    if e["type"] == "text" and e["kind"] == "say" and not e["partial"]:
        final_text = e["text"]
want = "Sizing it up. The plan has three steps: measure the wall, cut the boards <b>twice</b>, then fix them with a < b spacing. Naïve café prose with a few more words so that it keeps streaming for a while."
assert final_text == want, final_text
assert appends >= 1, ("no partial update appended to an earlier one", appends)
PY

# The stored message is whole.
id=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["task"])' "$work/events.jsonl")
"$HEW_BIN" history show "$id" --json >"$work/show.json"
python3 - "$work/show.json" <<'PY' || fail "the stored messages are not whole"
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["events"]:
    if e is None:
        continue
    assert "append" not in e, e
texts = [e["text"] for e in t["events"] if e and e["type"] == "text"]
assert texts and texts[-1].startswith("Sizing it up."), texts
PY
echo "json_append: ok"
