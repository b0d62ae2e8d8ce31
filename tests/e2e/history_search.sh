#!/usr/bin/env bash
# End to end: `hew history SEARCH` searches the messages' text (issue #22) — a task run
# through `hew -p` is found by a word only the model wrote (not in its title), as a prefix
# too; --json gives the snippet with the match marked (U+0002 … U+0003) and the message's
# index; the table prints "  #N: …" under the task with the match in [ ] off a terminal;
# the user's FTS5 syntax is plain text, never an error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'fake_stop; rm -rf "$tmp"' EXIT
work=$tmp/ws
mkdir -p "$work" "$tmp/data"
export XDG_DATA_HOME=$tmp/data
export ANTHROPIC_API_KEY=e2e-test-key
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 "$@"; }

fake_start "$here/data/history_search_scenario.json"
[[ $(hew -p "Fix the car" </dev/null) == "The car runs." ]] || fail "the task"
fake_stop
fake_start "$here/data/history_done_scenario.json"
[[ $(hew -p "Paint the shed" </dev/null) == "All done." ]] || fail "second task"
fake_stop

# The word is only in the model's message: found, with its snippet and index.
out=$("$HEW_BIN" history --json gigawatts)
python3 - "$out" <<'PY'
import json, sys
tasks = json.loads(sys.argv[1])
assert [t["title"] for t in tasks] == ["Fix the car"], tasks
t = tasks[0]
assert "\u0002gigawatts\u0003" in t["snippet"], t
assert isinstance(t["match_index"], int) and t["match_index"] > 0, t
PY
# A prefix of the last word; case ignored; every word needed.
out=$("$HEW_BIN" history --json "CLOCK giga")
[[ $(python3 -c 'import json,sys; print([t["title"] for t in json.loads(sys.argv[1])])' "$out") == "['Fix the car']" ]] ||
    fail "prefix search: $out"
out=$("$HEW_BIN" history --json "clock shed")
[[ $out == "[]" ]] || fail "two words in no one message: $out"
# Without a search: no snippet fields.
out=$("$HEW_BIN" history --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert len(d)==2 and all("snippet" not in t for t in d), d' "$out" ||
    fail "plain list: $out"

# The table: the task's row, then the matching message's line, the match in [ ].
table=$("$HEW_BIN" history gigawatts)
grep -q "Fix the car" <<<"$table" || fail "table row: $table"
grep -Eq '^  #[0-9]+: .*needs 1\.21 \[gigawatts\] of power' <<<"$table" || fail "table snippet: $table"
[[ $table != *$'\x02'* && $table != *$'\x1b'* ]] || fail "marks or styles off a terminal: $table"

# FTS5's syntax in a search is plain text: never an error.
for q in '"' '*' 'NEAR(' 'a OR' '-power' 'power:' '(' 'AND'; do
    "$HEW_BIN" history --json -- "$q" >"$tmp/out" 2>"$tmp/err" || fail "search '$q': $(cat "$tmp/err")"
done
out=$("$HEW_BIN" history --json '"power"')
[[ $(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])))' "$out") == 1 ]] ||
    fail "quoted word: $out"
echo "history_search: ok"
