#!/usr/bin/env bash
# End to end: a model hew's table does not know gets Cline's default context window,
# 128 000 tokens (cline/cline context-window-utils.ts: `contextWindow || 128_000`), not a
# small one: the note on stderr says so, the environment details tell the model
# "N / 128,000 tokens used", and 40 000 tokens of use (past a 32k window's limit, well
# within 128k's 98 000) truncate nothing.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-window.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME" "$work/ws"
export ANTHROPIC_API_KEY=e2e-test-key

cat >"$work/s.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<list_files>\n<path>.</path>\n</list_files>",
   "usage": {"input": 40000, "output": 100}},
  {"protocol": "anthropic", "text": "<list_files>\n<path>.</path>\n</list_files>",
   "usage": {"input": 40200, "output": 100}},
  {"protocol": "anthropic",
   "text": "<attempt_completion>\n<result>\nok\n</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/s.json"
"$HEW_BIN" -p "List." --provider anthropic --model my-unknown-model --xml-tools \
    --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 </dev/null \
    >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
grep -q "128,000 tokens" "$work/err" || fail "the note does not name the window: $(cat "$work/err")"
python3 - "$FAKE_RECORD" <<'PY'
import json, re, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 3, len(reqs)
def last_user_text(r):
    m = r["body"]["messages"][-1]
    return " ".join(b.get("text", "") for b in m["content"] if isinstance(b, dict))
for i in (1, 2):
    env = last_user_text(reqs[i])
    m = re.search(r"# Context Window Usage\n([\d,]+) / ([\d,]+) tokens used", env)
    assert m, env
    assert m.group(2) == "128,000", m.group(0)
# Nothing was cut: every message is still there (user, assistant, user, assistant, user).
assert len(reqs[2]["body"]["messages"]) == 5, len(reqs[2]["body"]["messages"])
PY
fake_stop
echo "unknown_model_window: ok"
