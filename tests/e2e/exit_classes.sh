#!/usr/bin/env bash
# End to end: `hew -p`'s exit status by class (issue #18; docs/events.md "Exit status",
# man hew EXIT STATUS) and the task_end line's totals, through the real binary against the
# fake provider. One run per class, each checking the status, the end line's exit_code and
# reason, and what the class needs said:
#   0 completed (every end-line field present); 1 a 400 the request cannot outlive;
#   2 a bad flag, a bad config file, a task id to resume that the history does not have,
#     and a provider that does not know the model (404);
#   3 a 401 and a billing refusal; 4 503s past the automatic retries (retries counted);
#   5 --timeout on a stalled stream; 6 --max-requests (the second request never sent,
#   the budget named, a resume with a larger budget goes on and its totals add up) and
#   --max-cost (stops after the request whose cost reached it); 7 a write denied headless
#   (named on stderr with the narrowest flag; that flag then lets it run: exit 0);
#   130 SIGTERM once the request is out (the fake's record, not a sleep).
# Totals: three requests (one retried after a 500, two tool calls, cache reads and
# writes) — usage, cost_usd, requests, tool_calls and retries equal the fake's figures.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-exit.XXXXXX")
cleanup() { fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT
mkdir -p "$work/ws" "$work/data" "$work/cfg"
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
export ANTHROPIC_API_KEY=e2e-key
# claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
hew() { "$HEW_BIN" --provider anthropic --model claude-sonnet-4-5 --xml-tools \
    --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 1 "$@"; }
done_text='<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>'

# run NAME ARGS...: hew -p ... --json into $work/NAME.jsonl / .err; rc in $rc
run() {
    local name=$1
    shift
    hew "$@" --json >"$work/$name.jsonl" 2>"$work/$name.err" </dev/null
    rc=$?
}
# end NAME JQ: the end line satisfies JQ
end() {
    tail -n 1 "$work/$1.jsonl" | jq -e "$2" >/dev/null ||
        fail "$1: the end line: $(tail -n 1 "$work/$1.jsonl") ($(cat "$work/$1.err"))"
}
want() { [[ $rc -eq $2 ]] || fail "$1: exit $rc, want $2: $(cat "$work/$1.err")"; }

# ---- 0: completed, nothing denied; every field of the end line -----------------------------
printf '{"responses": [{"protocol": "anthropic", "text": "%s", "usage": {"input": 100, "output": 10}}]}\n' \
    "$done_text" >"$work/s0.json"
fake_start "$work/s0.json" || fail "fake_start"
run c0 -p "Finish"
want c0 0
end c0 '.exit_code == 0 and .reason == "completed" and .status == "completed" and .denied == []
    and (keys | contains(["usage", "cost_usd", "requests", "tool_calls", "retries", "duration_ms",
    "status", "exit_code", "denied", "totals"])) and .requests == 1 and .tool_calls == 1
    and .retries == 0 and (.duration_ms | type) == "number"
    and .usage == {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 0, "cache_write_tokens": 0}'
fake_stop

# ---- 1: the task failed (a 400 no retry outlives) -----------------------------------------
cat >"$work/s1.json" <<'JSON'
{"responses": [{"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: something is malformed"}}}]}
JSON
fake_start "$work/s1.json" || fail "fake_start"
run c1 -p "Fail"
want c1 1
end c1 '.exit_code == 1 and .reason == "failed" and .status == "failed" and .error_category == "bad_request"'
fake_stop

# ---- 2: usage and configuration ------------------------------------------------------------
"$HEW_BIN" -p "x" --max-cost abc >/dev/null 2>"$work/c2a.err" </dev/null; rc=$?
want c2a 2
grep -q -- "--max-cost needs an amount" "$work/c2a.err" || fail "c2a: $(cat "$work/c2a.err")"
"$HEW_BIN" -p "x" --max-requests 0 >/dev/null 2>"$work/c2b.err" </dev/null; rc=$?
want c2b 2
mkdir -p "$work/badcfg/hew"
echo '{"provider": ' >"$work/badcfg/hew/config.json"
XDG_CONFIG_HOME=$work/badcfg "$HEW_BIN" -p "x" --cwd "$work/ws" >/dev/null 2>"$work/c2c.err" </dev/null; rc=$?
want c2c 2
# a task id the history does not have is a usage error, before any request
ANTHROPIC_API_KEY=e2e-key "$HEW_BIN" -p --resume 1234567890123 --cwd "$work/ws" \
    >"$work/c2e.out" 2>"$work/c2e.err" </dev/null; rc=$?
want c2e 2
grep -q "no task '1234567890123'" "$work/c2e.err" || fail "c2e: $(cat "$work/c2e.err")"
[[ ! -s $work/c2e.out ]] || fail "c2e: stdout: $(cat "$work/c2e.out")"
cat >"$work/s2.json" <<'JSON'
{"responses": [{"status": 404, "body": {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-nope"}}}]}
JSON
fake_start "$work/s2.json" || fail "fake_start"
run c2d -p "Which model"
want c2d 2
end c2d '.exit_code == 2 and .reason == "config" and .error_category == "not_found"'
fake_stop

# ---- 3: the key or the account refused ----------------------------------------------------
cat >"$work/s3.json" <<'JSON'
{"responses": [{"status": 401, "body": {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}}]}
JSON
fake_start "$work/s3.json" || fail "fake_start"
run c3a -p "Key"
want c3a 3
end c3a '.exit_code == 3 and .reason == "refused" and .error_category == "auth" and .retries == 0'
[[ $(wc -l <"$FAKE_RECORD") -eq 1 ]] || fail "c3a: a refused key was retried"
fake_stop
cat >"$work/s3b.json" <<'JSON'
{"responses": [{"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}}]}
JSON
fake_start "$work/s3b.json" || fail "fake_start"
run c3b -p "Billing"
want c3b 3
end c3b '.exit_code == 3 and .error_category == "billing"'
fake_stop
cat >"$work/s3c.json" <<'JSON'
{"responses": [{"status": 403, "body": {"type": "error", "error": {"type": "permission_error", "message": "Your API key does not have permission to use the specified resource."}}}]}
JSON
fake_start "$work/s3c.json" || fail "fake_start"
run c3c -p "Forbidden"
want c3c 3
end c3c '.exit_code == 3 and .error_category == "auth"'
fake_stop

# ---- 4: unavailable after the automatic retries -------------------------------------------
e503='{"status": 503, "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}'
printf '{"responses": [%s, %s, %s, %s]}\n' "$e503" "$e503" "$e503" "$e503" >"$work/s4.json"
fake_start "$work/s4.json" || fail "fake_start"
run c4 -p "Busy"
want c4 4
end c4 '.exit_code == 4 and .reason == "unavailable" and .error_category == "overloaded" and .retries == 3 and .requests == 1'
[[ $(wc -l <"$FAKE_RECORD") -eq 4 ]] || fail "c4: want 4 attempts, got $(wc -l <"$FAKE_RECORD")"
fake_stop
# ... while a 429 that a retry outlasts is no class of its own: the task completes
printf '{"responses": [{"status": 429, "body": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}}, {"protocol": "anthropic", "text": "%s"}]}\n' \
    "$done_text" >"$work/s4b.json"
fake_start "$work/s4b.json" || fail "fake_start"
run c4b -p "Rate"
want c4b 0
end c4b '.exit_code == 0 and .retries == 1'
fake_stop

# ---- 5: --timeout ----------------------------------------------------------------------------
cat >"$work/s5.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "Thinking about it for a very long time indeed", "delta_size": 4, "stall_after_bytes": 600, "stall_ms": 30000}]}
JSON
fake_start "$work/s5.json" || fail "fake_start"
run c5 -p "Slow" --timeout 1
want c5 5
end c5 '.exit_code == 5 and .reason == "timeout" and .status == "aborted"'
fake_stop

# ---- 6: budgets ------------------------------------------------------------------------------
printf '{"responses": [{"protocol": "anthropic", "text": "<read_file>\\n<path>a.txt</path>\\n</read_file>", "usage": {"input": 1000, "output": 20}}, {"protocol": "anthropic", "text": "%s", "usage": {"input": 2000, "output": 30}}]}\n' \
    "$done_text" >"$work/s6.json"
echo "hello" >"$work/ws/a.txt"
fake_start "$work/s6.json" || fail "fake_start"
run c6a -p "Read a.txt" --max-requests 1
want c6a 6
end c6a '.exit_code == 6 and .reason == "budget" and .status == "failed" and .requests == 1
    and .usage.input_tokens == 1000'
[[ $(wc -l <"$FAKE_RECORD") -eq 1 ]] || fail "c6a: the request past the budget was sent"
jq -e -s 'any(.[]; .type == "error" and .data.budget == "max_requests" and .data.limit == 1
    and .data.spent == 1 and (.text | contains("max_requests")))' "$work/c6a.jsonl" >/dev/null ||
    fail "c6a: no error event naming the budget: $(cat "$work/c6a.jsonl")"
id=$(tail -n 1 "$work/c6a.jsonl" | jq -r .task)
# resumed with a larger budget: goes on; the totals are both runs'
run c6b --resume "$id" -p "" --max-requests 3
want c6b 0
end c6b '.exit_code == 0 and .requests == 2 and .usage == {"input_tokens": 3000, "output_tokens": 50,
    "cache_read_tokens": 0, "cache_write_tokens": 0}
    and ((.cost_usd - (3000 * 3 + 50 * 15) / 1e6) | fabs) < 1e-12'
[[ -z $(fake_violations) ]] || fail "c6b: invalid requests: $(fake_violations)"
fake_stop
# --max-cost: the first request costs $0.0033 (1000 in, 20 out): past $0.001, no second
fake_start "$work/s6.json" || fail "fake_start"
run c6c -p "Read a.txt" --max-cost 0.001
want c6c 6
end c6c '.exit_code == 6 and .requests == 1 and ((.cost_usd - 0.0033) | fabs) < 1e-12'
jq -e -s 'any(.[]; .type == "error" and .data.budget == "max_cost" and .data.limit == 0.001)' \
    "$work/c6c.jsonl" >/dev/null || fail "c6c: no error event naming the budget"
[[ $(wc -l <"$FAKE_RECORD") -eq 1 ]] || fail "c6c: the request past the budget was sent"
fake_stop

# ---- 7: denied for want of approval; the flag it names allows it ---------------------------
printf '{"responses": [{"protocol": "anthropic", "text": "<write_to_file>\\n<path>out.txt</path>\\n<content>\\nmade\\n</content>\\n</write_to_file>"}, {"protocol": "anthropic", "text": "%s"}]}\n' \
    "$done_text" >"$work/s7.json"
fake_start "$work/s7.json" || fail "fake_start"
hew -p "Write out.txt" >/dev/null 2>"$work/c7.err" </dev/null; rc=$?
want c7 7
[[ ! -e $work/ws/out.txt ]] || fail "c7: the denied write happened"
grep -qF "1 action was denied for want of approval" "$work/c7.err" &&
    grep -qF "write_to_file out.txt — allow with --auto-approve read,edit" "$work/c7.err" ||
    fail "c7: stderr does not name it and the flag: $(cat "$work/c7.err")"
fake_stop
fake_start "$work/s7.json" || fail "fake_start"
run c7j -p "Write out.txt"
want c7j 7
end c7j '.exit_code == 7 and .reason == "denied" and .status == "completed" and .tool_calls == 2
    and .denied == [{"type": "tool", "tool": "write_to_file", "path": "out.txt", "allow": ["edit"],
                     "flag": "--auto-approve read,edit"}]'
fake_stop
fake_start "$work/s7.json" || fail "fake_start"
run c7y -p "Write out.txt" --auto-approve read,edit
want c7y 0
[[ $(cat "$work/ws/out.txt") == made ]] || fail "c7y: the allowed write did not happen"
end c7y '.exit_code == 0 and .denied == []'
fake_stop

# ---- 130: interrupted ------------------------------------------------------------------------
fake_start "$work/s5.json" || fail "fake_start"
"$HEW_BIN" --provider anthropic --model claude-sonnet-4-5 --xml-tools --base-url "$FAKE_URL" \
    --cwd "$work/ws" -p "Slow" --json >"$work/c130.jsonl" 2>"$work/c130.err" </dev/null &
pid=$! # hew itself, not a subshell
for ((i = 0; i < 600; i++)); do # the request is out: hew handles signals by then
    [[ -s $FAKE_RECORD ]] && break
    sleep 0.05
done
kill -TERM "$pid"
wait "$pid"; rc=$?
want c130 130
end c130 '.exit_code == 130 and .reason == "interrupted" and .status == "aborted"'
fake_stop

# ---- totals: equal the sums of what the provider reported --------------------------------
cat >"$work/st.json" <<'JSON'
{"responses": [
  {"status": 500, "body": {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}},
  {"protocol": "anthropic", "text": "<read_file>\n<path>a.txt</path>\n</read_file>",
   "usage": {"input": 1200, "output": 85, "cache_read": 1024, "cache_write": 300}},
  {"protocol": "anthropic", "text": "<list_files>\n<path>.</path>\n</list_files>",
   "usage": {"input": 300, "output": 40, "cache_read": 2048, "cache_write": 0}},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>",
   "usage": {"input": 50, "output": 7, "cache_read": 2300, "cache_write": 100}}
]}
JSON
fake_start "$work/st.json" || fail "fake_start"
run tot -p "Look around"
want tot 0
end tot '.usage == {"input_tokens": 1550, "output_tokens": 132, "cache_read_tokens": 5372,
    "cache_write_tokens": 400} and .requests == 3 and .retries == 1 and .tool_calls == 3
    and ((.cost_usd - (1550 * 3 + 132 * 15 + 5372 * 0.3 + 400 * 3.75) / 1e6) | fabs) < 1e-12
    and .totals.tokens_in == 1550 and .totals.cost == .cost_usd'
fake_stop
exit 0
