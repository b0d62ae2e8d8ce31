#!/usr/bin/env bash
# End to end: `hew -p` through the real binary against the fake provider — a task that
# completes (result on stdout, exit 0), --json events (one valid object per line, schema
# version 2, nothing else on stdout, a final task_end line), a failure (exit 1, the reason
# on stderr), a question answered by policy without a TTY, SIGINT (exit 130), --timeout,
# usage errors (exit 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
trap fake_stop EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'fake_stop; rm -rf "$work"' EXIT
export ANTHROPIC_API_KEY=e2e-test-key
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 "$@"; }

# 1. A task that completes: the result alone on stdout.
fake_start "$here/data/headless_scenario.json"
out=$(hew -p "Paint the shed" </dev/null)
[[ $out == "The shed is blue." ]] || fail "result: got '$out'"
fake_stop

# 2. The same with --json: every line one event, schema v2, a final task_end line.
fake_start "$here/data/headless_scenario.json"
hew -p "Paint the shed" --json </dev/null >"$work/events.jsonl"
python3 - "$work/events.jsonl" "$FAKE_RECORD" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(l) for l in lines]          # every line is JSON
for e in events:
    assert e["v"] == 2, e
    assert e["kind"] in ("say", "ask", "end"), e
end = events[-1]
task = end.pop("task")                           # the task's id; every event carries it
totals = end.pop("totals")                       # the task's totals (unpriced model: $0)
assert totals == {"tokens_in": 1900, "tokens_out": 50, "cache_reads": 0, "cache_writes": 0,
                  "cost": 0.0, "requests": 2}, totals
usage = end.pop("usage")                         # the same under the issue's names
assert usage == {"input_tokens": 1900, "output_tokens": 50, "cache_read_tokens": 0,
                 "cache_write_tokens": 0}, usage
assert isinstance(end.pop("duration_ms"), int)
assert (end.pop("cost_usd"), end.pop("requests"), end.pop("tool_calls"), end.pop("retries")) == (0.0, 2, 2, 0)
assert (end.pop("exit_code"), end.pop("reason"), end.pop("denied")) == (0, "completed", [])
assert end == {"v": 2, "kind": "end", "type": "task_end", "status": "completed",
               "result": "The shed is blue."}, end
msgs = [e for e in events[:-1]]
assert all(e["task"] == task for e in msgs), msgs
for e in msgs:
    assert isinstance(e["index"], int) and isinstance(e["ts"], int) and isinstance(e["partial"], bool), e
types = [e["type"] for e in msgs]
assert types[0] == "task", types
assert "followup" in types and "completion_result" in types and "user_feedback" in types, types
# The question was answered by policy (no TTY): the model was told nobody can answer.
reqs = [json.loads(l) for l in open(sys.argv[2])]
assert len(reqs) == 2, len(reqs)
last_user = reqs[1]["body"]["messages"][-1]["content"]
text = " ".join(b.get("text", "") for b in last_user if isinstance(b, dict))
assert "headless" in text and "<answer>" in text, text
PY
fake_stop

# 2b. --verbose: the conversation as a readable transcript on stderr, the result on stdout.
fake_start "$here/data/headless_scenario.json"
out=$(hew -p "Paint the shed" --verbose 2>"$work/transcript" </dev/null)
[[ $out == "The shed is blue." ]] || fail "verbose result: got '$out'"
for want in "● task: Paint the shed" "Let me check with you." "? Which color?" "✓ The shed is blue." "tokens:"; do
    grep -qF "$want" "$work/transcript" || fail "transcript lacks '$want': $(cat "$work/transcript")"
done
fake_stop

# 3. A failure: exit 1 and the reason on stderr; nothing on stdout.
fake_start "$here/data/headless_fail_scenario.json"
set +e
out=$(hew -p "x" 2>"$work/err" </dev/null); rc=$?
set -e
[[ $rc -eq 3 ]] || fail "401: exit $rc, want 3 (the key was refused)"
[[ -z $out ]] || fail "401: stdout not empty: $out"
grep -qi "key" "$work/err" || fail "401: stderr does not explain: $(cat "$work/err")"
fake_stop

# 4. Interrupted while the answer streams: exit 130, promptly. (SIGTERM: a background job
#    of a non-interactive shell starts with SIGINT ignored, and hew respects that.)
fake_start "$here/data/headless_stall_scenario.json"
"$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" --cwd "$work" \
    -p "x" >/dev/null 2>"$work/err" </dev/null &
pid=$!
for ((i = 0; i < 600; i++)); do # until the request is out: hew handles signals by then
    [[ -s $FAKE_RECORD ]] && break
    sleep 0.05
done
kill -TERM "$pid"
set +e
wait "$pid"; rc=$?
set -e
[[ $rc -eq 130 ]] || fail "interrupted: exit $rc, want 130 ($(cat "$work/err"))"
fake_stop

# 5. --timeout: gives up, exit 5, says so.
fake_start "$here/data/headless_stall_scenario.json"
set +e
hew -p "x" --timeout 1 >/dev/null 2>"$work/err" </dev/null; rc=$?
set -e
[[ $rc -eq 5 ]] || fail "timeout: exit $rc, want 5"
grep -q "timed out" "$work/err" || fail "timeout: stderr: $(cat "$work/err")"
fake_stop

# 6. Usage errors: exit 2 with a message.
set +e
"$HEW_BIN" -p "x" --bogus >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "bad flag: exit $rc, want 2"
grep -q "unknown option" "$work/err" || fail "bad flag: $(cat "$work/err")"
set +e
"$HEW_BIN" -p </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "no task: exit $rc, want 2"
env -u ANTHROPIC_API_KEY "$HEW_BIN" -p "x" --provider anthropic >/dev/null 2>"$work/err" && fail "no key accepted"
grep -q "ANTHROPIC_API_KEY" "$work/err" || fail "no key: $(cat "$work/err")"
echo "headless: ok"
