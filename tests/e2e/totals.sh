#!/usr/bin/env bash
# End to end: the task's totals add up, and every place that shows them agrees (issue #16,
# "totals that add up"). Through the real `hew` against the fake provider, numbers pinned
# from the scenarios' usage and claude-sonnet-4-5's prices ($3 in, $15 out, $0.30 cache
# read, $3.75 cache write per million):
#   1. a request that fails with a 500 and then streams: its api_req_started keeps its
#      tokens and cost and is no longer marked failed (no cancelReason, retryStatus or
#      streamingFailedMessage; "retries": 1), and the task_end line's totals and
#      `hew history --json` show the same numbers;
#   2. a task stopped mid-stream keeps the usage the provider had sent (Anthropic's
#      message_start), and the same task resumed adds to it: totals are the sum, in the
#      end line and in the history, and never go back to zero;
#   3. the interactive terminal (through tmux, when there is one): after a retried
#      request the usage line is shown and /cost gives the task's numbers; after Ctrl-C and
#      a message that goes on with the task, /cost gives the sum of both runs.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
TMUX_WAIT_S=20
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-totals.XXXXXX")
sock=
cleanup() { [[ -n $sock ]] && tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT
mkdir -p "$work/ws" "$work/data"
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
export ANTHROPIC_API_KEY=e2e-key
hew() { "$HEW_BIN" --provider anthropic --model claude-sonnet-4-5 --xml-tools \
    --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 "$@"; }

# check.py MODE ARGS: the assertions, in one place (exact numbers; cost to 1e-12 USD).
cat >"$work/check.py" <<'PY'
import json, sys

PRICE = {"in": 3.0, "out": 15.0, "cr": 0.30, "cw": 3.75}

def cost(i, o, cr, cw):
    return (i * PRICE["in"] + cr * PRICE["cr"] + cw * PRICE["cw"] + o * PRICE["out"]) / 1e6

def events(path):
    return [json.loads(l) for l in open(path) if l.strip()]

def final_by_index(evs):
    last = {}
    for e in evs:
        if "index" in e:
            last[e["index"]] = e
    return [last[i] for i in sorted(last)]

def end_line(evs):
    ends = [e for e in evs if e.get("type") == "task_end"]
    assert len(ends) == 1 and evs[-1] is ends[0], ends
    return ends[0]

def same_totals(end, want, history_json):
    tot = end.get("totals")
    assert tot is not None, "the end line has no totals: %r" % end
    for k in ("tokens_in", "tokens_out", "cache_reads", "cache_writes", "requests"):
        assert tot[k] == want[k], (k, tot, want)
    assert abs(tot["cost"] - want["cost"]) < 1e-12, (tot["cost"], want["cost"])
    rows = [t for t in json.loads(history_json) if t["id"] == end["task"]]
    assert len(rows) == 1, history_json
    for k in ("tokens_in", "tokens_out", "cache_reads", "cache_writes", "cost", "requests"):
        assert rows[0][k] == tot[k], (k, rows[0], tot)  # the very same numbers

mode = sys.argv[1]
if mode == "retried":
    evs = events(sys.argv[2])
    end = end_line(evs)
    assert end["status"] == "completed", end
    reqs = [e for e in final_by_index(evs) if e.get("type") == "api_req_started"]
    assert len(reqs) == 1, reqs
    d = reqs[0]["data"]
    for k in ("cancelReason", "retryStatus", "streamingFailedMessage"):
        assert k not in d, (k, d)
    assert d.get("retries") == 1, d
    assert (d["tokensIn"], d["tokensOut"], d["cacheReads"], d["cacheWrites"]) == (1200, 85, 1024, 300), d
    want_cost = cost(1200, 85, 1024, 300)
    assert abs(want_cost - 0.0063072) < 1e-12
    assert abs(d["cost"] - want_cost) < 1e-12, d
    same_totals(end, {"tokens_in": 1200, "tokens_out": 85, "cache_reads": 1024,
                      "cache_writes": 300, "requests": 1, "cost": want_cost}, sys.argv[3])
    assert sum(1 for _ in open(sys.argv[4])) == 2  # the 500, then the stream
elif mode == "stopped":
    evs = events(sys.argv[2])
    end = end_line(evs)
    assert end["status"] == "aborted", end
    reqs = [e for e in final_by_index(evs) if e.get("type") == "api_req_started"]
    assert len(reqs) == 1 and reqs[0]["data"].get("cancelReason") == "user_cancelled", reqs
    # message_start: input 2000, cache read 100, cache write 400 (its output_tokens is a
    # placeholder hew does not count; message_delta never came)
    want_cost = cost(2000, 0, 100, 400)
    assert abs(want_cost - 0.00753) < 1e-12
    d = reqs[0]["data"]
    assert (d["tokensIn"], d["tokensOut"], d["cacheReads"], d["cacheWrites"]) == (2000, 0, 100, 400), d
    same_totals(end, {"tokens_in": 2000, "tokens_out": 0, "cache_reads": 100,
                      "cache_writes": 400, "requests": 1, "cost": want_cost}, sys.argv[3])
    print(end["task"])
elif mode == "resumed":
    evs = events(sys.argv[2])
    end = end_line(evs)
    assert end["status"] == "completed" and end["task"] == sys.argv[4], end
    want_cost = cost(2000, 0, 100, 400) + cost(3000, 40, 2000, 0)
    assert abs(want_cost - 0.01773) < 1e-12
    same_totals(end, {"tokens_in": 5000, "tokens_out": 40, "cache_reads": 2100,
                      "cache_writes": 400, "requests": 2, "cost": want_cost}, sys.argv[3])
else:
    raise SystemExit("unknown mode " + mode)
PY

# 1. A 500, then the request streams.
cat >"$work/retry.json" <<'JSON'
{"responses": [
  {"status": 500, "body": {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>",
   "usage": {"input": 1200, "output": 85, "cache_read": 1024, "cache_write": 300}}
]}
JSON
fake_start "$work/retry.json" || fail "fake_start"
hew -p "Retry me" --json >"$work/retry.jsonl" 2>"$work/err" </dev/null || fail "retried task: $(cat "$work/err")"
python3 "$work/check.py" retried "$work/retry.jsonl" "$("$HEW_BIN" history --json 'Retry me')" \
    "$FAKE_RECORD" || fail "a request that succeeded after a retry"
fake_stop

# 2. Stopped while the answer streams (after message_start and a few deltas), then resumed.
cat >"$work/stall.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "Thinking about it for a very long time indeed, word after word after word",
   "delta_size": 4, "stall_after_bytes": 1500, "stall_ms": 60000,
   "usage": {"input": 2000, "output": 500, "cache_read": 100, "cache_write": 400}}
]}
JSON
fake_start "$work/stall.json" || fail "fake_start"
"$HEW_BIN" --provider anthropic --model claude-sonnet-4-5 --xml-tools --base-url "$FAKE_URL" \
    --cwd "$work/ws" -p "Write the essay" --json >"$work/stop.jsonl" 2>"$work/err" </dev/null &
pid=$! # hew itself (SIGTERM: a background job of a script starts with SIGINT ignored)
for ((i = 0; i < 600; i++)); do # the first text has been shown: the stream is going
    grep -q '"type":"text"' "$work/stop.jsonl" 2>/dev/null && break
    sleep 0.05
done
grep -q '"type":"text"' "$work/stop.jsonl" || fail "no text streamed: $(cat "$work/err")"
kill -TERM "$pid"
wait "$pid"; rc=$?
[[ $rc -eq 130 ]] || fail "stopped: exit $rc, want 130 ($(cat "$work/err"))"
fake_stop
id=$(python3 "$work/check.py" stopped "$work/stop.jsonl" "$("$HEW_BIN" history --json 'Write the essay')") ||
    fail "a request stopped mid-stream"

cat >"$work/finish.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nFinished.\n</result>\n</attempt_completion>",
   "usage": {"input": 3000, "output": 40, "cache_read": 2000, "cache_write": 0}}
]}
JSON
fake_start "$work/finish.json" || fail "fake_start"
hew --resume "$id" -p "finish it" --json >"$work/resume.jsonl" 2>"$work/err" </dev/null ||
    fail "resume: $(cat "$work/err")"
python3 "$work/check.py" resumed "$work/resume.jsonl" "$("$HEW_BIN" history --json 'Write the essay')" \
    "$id" || fail "the resumed task's totals"
fake_stop

# 3. The interactive terminal.
if ! command -v tmux >/dev/null; then
    echo "totals: ok (interactive part skipped: no tmux)"
    exit 0
fi
sock=hew-e2e-totals-$$
start_hew() {
    fake_start "$1" || fail "fake_start $1"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1)) # a server of its own: the last one may still be going away
    sock=hew-e2e-totals-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 40 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_DATA_HOME='$work/data' XDG_CONFIG_HOME='$work/cfg' \
         XDG_STATE_HOME='$work/state' TERM=xterm-256color '$HEW_BIN' --provider anthropic \
         --model claude-sonnet-4-5 --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' \
         --retry-delay-ms 10; echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}

# 3a. A retried request: its usage line, and /cost.
start_hew "$work/retry.json"
keys 'Retry me' Enter
wait_for 'Done' || fail "no completion"
wait_for '1200 in · 85 out · 1024 cached · \$0\.0063 \(task \$0\.0063\)' ||
    fail "no usage line for the retried request"
wait_for '^› ?$' || fail "no prompt"
keys '/cost' Enter
wait_for 'this task: 1200 in, 85 out, 1024 cache reads, 300 cache writes, \$0\.0063 \(1 requests\)' ||
    fail "/cost after a retried request"
tmux -L "$sock" kill-server 2>/dev/null
fake_stop

# 3b. Ctrl-C while the answer streams, then a message that goes on with the task.
cat >"$work/both.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "Thinking about it for a very long time indeed, word after word after word",
   "delta_size": 4, "stall_after_bytes": 1500, "stall_ms": 60000,
   "usage": {"input": 2000, "output": 500, "cache_read": 100, "cache_write": 400}},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nFinished.\n</result>\n</attempt_completion>",
   "usage": {"input": 3000, "output": 40, "cache_read": 2000, "cache_write": 0}}
]}
JSON
start_hew "$work/both.json"
keys 'Go slowly' Enter
wait_for 'Think' || fail "stream not shown"
keys C-c
wait_for 'goes on with this task' || fail "Ctrl-C did not stop the task"
wait_for '^› ?$' || fail "no prompt after Ctrl-C"
keys 'finish it' Enter
wait_for 'Finished' || fail "the task did not go on"
wait_for '^› ?$' || fail "no prompt after the completion"
keys '/cost' Enter
wait_for 'this task: 5000 in, 40 out, 2100 cache reads, 400 cache writes, \$0\.0177 \(2 requests\)' ||
    fail "/cost after Ctrl-C and going on"
echo "totals: ok"
