#!/usr/bin/env bash
# End to end: `hew batch` (issue #18) through the real binary.
#   1. 12 tasks, --jobs 4, against the fake provider: nine complete (their usage is the
#      fake's), a broken line, a missing cwd and a task whose provider never answers (its
#      --timeout) each fail with a reason in their own line; exit 1.
#   2. All good, --events-dir: exit 0; each task's events file holds its events (the
#      task_end last); ids made file-safe.
#   3. Concurrency is N: a wrapper (--program) that counts the children running at once
#      and holds each until all N of its round are there — a batch running fewer would
#      never get past it, one running more would count more.
#   4. --shard 0/3, 1/3, 2/3 run every task exactly once (by line index, bad lines too).
#   5. What reaches the child: the prompt on stdin (bytes exact, 300 KB too), the line's
#      options as flags, the `--` flags before them; a child's crash, a hang past the
#      timeout (killed by the runner), an exit without task_end, the newer task_end fields.
#   6. SIGINT: no new task starts, the running children are stopped and report; exit 130.
#   7. Usage errors exit 2; `-` reads the tasks from stdin.
#   8. On a terminal (script(1) gives one), the progress line is drawn on stderr and
#      cleared before each result line; the summary closes it. (Test 1: none off one.)
#   9. A standard output nobody can write to stops the batch (exit 1) rather than
#      killing it and leaving its children running.
#  10. A batch killed outright (SIGKILL) takes its running tasks with it.
# Files are written with printf/python, never a here-document holding another.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-batch.XXXXXX") || exit 1
[[ -d $work ]] || exit 1
fake2_pid=
batch_pid=
cleanup() {
    [[ -n $batch_pid ]] && kill -KILL "$batch_pid" 2>/dev/null
    [[ -n $fake2_pid ]] && kill -TERM "$fake2_pid" 2>/dev/null && wait "$fake2_pid" 2>/dev/null
    fake_stop
    rm -rf -- "$work"
}
trap cleanup EXIT
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
export ANTHROPIC_API_KEY=e2e-key
unset HEW_BATCH_PROGRAM
child=$here/data/batch_child.sh
flags=(--provider anthropic --model claude-sonnet-4-5 --xml-tools --retry-delay-ms 10)

# A scenario of N identical answers that complete the task (100 in, 10 out, 5 cached).
scenario() {
    python3 -c '
import json, sys
r = {"protocol": "anthropic", "model": "claude-sonnet-4-5",
     "text": "Done.\n<attempt_completion>\n<result>\nok\n</result>\n</attempt_completion>",
     "usage": {"input": 100, "output": 10, "cache_read": 5}}
json.dump({"responses": [r] * int(sys.argv[2])}, open(sys.argv[1], "w"))
' "$1" "$2"
}

# ---- 1. twelve tasks, four at a time, three of them bad --------------------------------
scenario "$work/s1.json" 9
fake_start "$work/s1.json" || fail "fake provider"
# The second provider never answers: the task on it ends by its --timeout.
printf '%s\n' '{"responses": [{"protocol": "anthropic", "text": "never", "delay_first_byte_ms": 600000}]}' \
    >"$work/stall.json"
"$HEW_FAKE_PROVIDER" --scenario "$work/stall.json" --port 0 --quiet >"$work/fake2.url" &
fake2_pid=$!
for ((i = 0; i < 200; i++)); do [[ -s $work/fake2.url ]] && break; sleep 0.05; done
stall_url=$(<"$work/fake2.url")
[[ $stall_url == http://127.0.0.1:* ]] || fail "second fake provider: '$stall_url'"
python3 -c '
import json, os, sys
work, stall = sys.argv[1], sys.argv[2]
lines = []
for i in range(1, 13):
    ws = os.path.join(work, "ws1", "t%02d" % i)
    os.makedirs(ws, exist_ok=True)
    lines.append(json.dumps({"id": "t%02d" % i, "prompt": "Task number %d" % i, "cwd": ws}))
lines[3] = "{\"id\": \"t04\", \"prompt\": \"broken"                 # not JSON
lines[6] = json.dumps({"id": "t07", "prompt": "p", "cwd": os.path.join(work, "no-such-dir")})
lines[9] = json.dumps({"id": "t10", "prompt": "Stalls", "cwd": os.path.join(work, "ws1", "t10"),
                       "base_url": stall, "timeout": 2})
print("\n".join(lines))
' "$work" "$stall_url" >"$work/tasks1.jsonl" || fail "1: tasks"
"$HEW_BIN" batch --jobs 4 "$work/tasks1.jsonl" -- "${flags[@]}" --base-url "$FAKE_URL" \
    >"$work/out1.jsonl" 2>"$work/err1"
rc=$?
[[ $rc == 1 ]] || fail "1: exit $rc, want 1 (stderr: $(<"$work/err1"))"
[[ ! -s $work/err1 ]] || fail "1: stderr is not a terminal, yet: $(<"$work/err1")"
python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 12, len(lines)
by = {l["id"]: l for l in lines}
assert sorted(by) == sorted(["t%02d" % i for i in range(1, 13) if i != 4] + ["line-4"]), sorted(by)
for l in lines:
    for k in ("id", "status", "exit_code", "usage", "cost_usd", "duration_ms", "line"):
        assert k in l, (k, l)
    assert "events" not in l, l           # no --events-dir
for i in [i for i in range(1, 13) if i not in (4, 7, 10)]:
    l = by["t%02d" % i]
    assert l["status"] == "completed" and l["exit_code"] == 0, l
    assert l["usage"] == {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 5,
                          "cache_write_tokens": 0}, l
    assert l["requests"] == 1 and l["line"] == i and "error" not in l, l
    want = (100 * 3 + 10 * 15 + 5 * 0.3) / 1e6                 # claude-sonnet-4-5 prices
    assert abs(l["cost_usd"] - want) < 1e-12, l
    assert l["max_rss_kb"] > 0, l
b = by["line-4"]
assert b["status"] == "invalid" and b["exit_code"] == 2 and "invalid JSON" in b["error"], b
assert b["line"] == 4 and b["duration_ms"] == 0 and "max_rss_kb" not in b, b
m = by["t07"]
assert m["status"] == "invalid" and m["exit_code"] == 2, m
assert "no-such-dir: no such directory" in m["error"], m
s = by["t10"]
assert s["status"] != "completed" and s["exit_code"] != 0, s
assert "still running" not in s.get("error", ""), s  # hew ended it, not the runner kill
assert s["usage"]["input_tokens"] == 0 and s["requests"] == 1, s
' "$work/out1.jsonl" || fail "1: the result lines: $(cat "$work/out1.jsonl")"
[[ $(wc -l <"$FAKE_RECORD") == 9 ]] || fail "1: the fake saw $(wc -l <"$FAKE_RECORD") requests, want 9"
[[ -z $(fake_violations) ]] || fail "1: invalid requests: $(fake_violations)"
fake_stop
kill -TERM "$fake2_pid"
wait "$fake2_pid" 2>/dev/null
fake2_pid=

# ---- 2. all good, with the events kept ------------------------------------------------
scenario "$work/s2.json" 3
fake_start "$work/s2.json" || fail "fake provider"
mkdir -p "$work/ws2"
{
    printf '{"id": "a/b c", "prompt": "one", "cwd": "%s"}\n\n' "$work/ws2"
    printf '{"id": ".hidden", "prompt": "two", "cwd": "%s"}\n' "$work/ws2"
    printf '{"id": "a_b_c", "prompt": "three", "cwd": "%s"}\n' "$work/ws2"
} >"$work/tasks2.jsonl"
"$HEW_BIN" batch --jobs 2 --events-dir "$work/ev" "$work/tasks2.jsonl" -- "${flags[@]}" \
    --base-url "$FAKE_URL" >"$work/out2.jsonl" 2>"$work/err2"
rc=$?
[[ $rc == 0 ]] || fail "2: exit $rc, want 0 (stderr: $(<"$work/err2"); $(cat "$work/out2.jsonl"))"
python3 -c '
import json, os, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, lines                       # the blank line is no task
by = {l["id"]: l for l in lines}
names = {i: os.path.basename(by[i]["events"]) for i in by}
assert names["a/b c"] == "a_b_c.jsonl", names       # file-safe
assert names[".hidden"] == "_hidden.jsonl", names   # never a hidden file
assert names["a_b_c"] == "a_b_c-4.jsonl", names     # taken already: the line number added
assert sorted(l["line"] for l in lines) == [1, 3, 4], lines
for i, l in by.items():
    assert os.path.dirname(l["events"]) == sys.argv[2], l
    evs = [json.loads(x) for x in open(l["events"])]
    assert evs[0]["type"] == "task" and evs[-1]["type"] == "task_end", evs
    assert evs[-1]["status"] == "completed" and evs[-1]["result"] == "ok", evs[-1]
    assert os.stat(l["events"]).st_mode & 0o777 == 0o600, l
assert sorted(os.listdir(sys.argv[2])) == sorted(names.values()), os.listdir(sys.argv[2])
' "$work/out2.jsonl" "$work/ev" || fail "2: the events files: $(cat "$work/out2.jsonl")"
fake_stop

# ---- 3. four at once, really ------------------------------------------------------------
scenario "$work/s3.json" 8
fake_start "$work/s3.json" || fail "fake provider"
mkdir -p "$work/bar" "$work/ws3"
# The wrapper counts the children running at once ($BAR/max) and holds each until the N
# of its round have started (60 s at most: then it says so in $BAR/stuck).
printf '%s\n' '#!/usr/bin/env bash' \
    'exec 9>"$BAR/lock"' \
    'flock 9' \
    'n=$(( $(cat "$BAR/started" 2>/dev/null || echo 0) + 1 )); echo $n >"$BAR/started"' \
    'r=$(( $(cat "$BAR/running" 2>/dev/null || echo 0) + 1 )); echo $r >"$BAR/running"' \
    '(( r > $(cat "$BAR/max" 2>/dev/null || echo 0) )) && echo $r >"$BAR/max"' \
    'flock -u 9' \
    'target=$(( ((n - 1) / BAR_N + 1) * BAR_N )); (( target > BAR_TOTAL )) && target=$BAR_TOTAL' \
    'for ((i = 0; i < 1200; i++)); do (( $(cat "$BAR/started") >= target )) && break; sleep 0.05; done' \
    '(( i == 1200 )) && echo "child $n waited for $target starts" >>"$BAR/stuck"' \
    '"$HEW_BIN" "$@"' \
    'rc=$?' \
    'flock 9' \
    'echo $(( $(cat "$BAR/running") - 1 )) >"$BAR/running"' \
    'flock -u 9' \
    'exit $rc' >"$work/barrier.sh"
chmod +x "$work/barrier.sh"
for i in 1 2 3 4 5 6 7 8; do
    printf '{"id": "c%d", "prompt": "task %d", "cwd": "%s"}\n' "$i" "$i" "$work/ws3"
done >"$work/tasks3.jsonl"
BAR=$work/bar BAR_N=4 BAR_TOTAL=8 "$HEW_BIN" batch --jobs 4 --program "$work/barrier.sh" \
    "$work/tasks3.jsonl" -- "${flags[@]}" --base-url "$FAKE_URL" >"$work/out3.jsonl" 2>"$work/err3"
rc=$?
[[ $rc == 0 ]] || fail "3: exit $rc (stderr: $(<"$work/err3"); $(cat "$work/out3.jsonl"))"
[[ ! -e $work/bar/stuck ]] || fail "3: fewer than 4 ran at once: $(<"$work/bar/stuck")"
[[ $(<"$work/bar/max") == 4 ]] || fail "3: $(<"$work/bar/max") ran at once, want 4"
[[ $(<"$work/bar/started") == 8 && $(wc -l <"$work/out3.jsonl") == 8 ]] || fail "3: not 8 tasks"
[[ $(wc -l <"$FAKE_RECORD") == 8 ]] || fail "3: the fake saw $(wc -l <"$FAKE_RECORD") requests"
fake_stop

# ---- 4. shards -------------------------------------------------------------------------
export BATCH_LOG=$work/log4
mkdir -p "$BATCH_LOG"
python3 -c '
import json
lines = [json.dumps({"id": "s%d" % i, "prompt": "ok%d x" % i}) for i in range(10)]
lines[5] = "{bad line"
print("\n".join(lines))
' >"$work/tasks4.jsonl"
for s in 0 1 2; do
    "$HEW_BIN" batch --jobs 3 --shard $s/3 --program "$child" "$work/tasks4.jsonl" \
        >"$work/out4.$s" 2>>"$work/err4"
    rc=$?
    # the shard that holds the bad line (index 5: 5 mod 3 = 2) fails, the others pass
    want=0
    [[ $s == 2 ]] && want=1
    [[ $rc == "$want" ]] || fail "4: shard $s/3 exit $rc, want $want ($(<"$work/err4"))"
done
python3 -c '
import json, sys
seen = []
for s in range(3):
    for l in open("%s/out4.%d" % (sys.argv[1], s)):
        l = json.loads(l)
        assert (l["line"] - 1) % 3 == s, (s, l)
        seen.append(l["line"])
        if l["line"] == 6:
            assert l["id"] == "line-6" and l["status"] == "invalid", l
        else:
            assert l["status"] == "completed" and l["id"] == "s%d" % (l["line"] - 1), l
assert sorted(seen) == list(range(1, 11)), sorted(seen)
' "$work" || fail "4: the shards"

# ---- 5. what a child gets, and the ways it can end --------------------------------------
export BATCH_LOG=$work/log5
mkdir -p "$BATCH_LOG" "$work/ws5"
python3 -c '
import json, sys
ws = sys.argv[1]
print(json.dumps({"id": "ok", "prompt": "ok\n  with \"quotes\", \u00e9 and a last line\n",
                  "cwd": ws, "model": "m1", "yolo": True, "auto_approve": ["read", "edit"],
                  "mode": "plan", "max_requests": 3, "timeout": 40}))
print(json.dumps({"id": "new", "prompt": "endnew", "cwd": ws}))
print(json.dumps({"id": "noend", "prompt": "noend"}))
print(json.dumps({"id": "crash", "prompt": "crash"}))
print(json.dumps({"id": "hang", "prompt": "hang", "timeout": 1}))
print(json.dumps({"id": "big", "prompt": "okbig " + "x" * 300000}))
print(json.dumps({"id": "huge", "prompt": "okhuge", "timeout": 9000000000000000000}))
' "$work/ws5" >"$work/tasks5.jsonl"
"$HEW_BIN" batch --jobs 7 --timeout 50 --events-dir "$work/ev5" --program "$child" \
    "$work/tasks5.jsonl" -- --provider anthropic >"$work/out5.jsonl" 2>"$work/err5"
rc=$?
[[ $rc == 1 ]] || fail "5: exit $rc, want 1"
python3 -c '
import json, os, sys
by = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
log, ws = sys.argv[2], sys.argv[3]
assert len(by) == 7, by
ok = by["ok"]
assert ok["status"] == "completed" and ok["exit_code"] == 0, ok
assert ok["usage"] == {"input_tokens": 7, "output_tokens": 3, "cache_read_tokens": 1,
                       "cache_write_tokens": 2}, ok
assert ok["cost_usd"] == 0.25 and ok["requests"] == 1, ok
assert open(log + "/ok.prompt", encoding="utf-8").read() == \
    "ok\n  with \"quotes\", \u00e9 and a last line\n"
args = open(log + "/ok.args").read().split("\n")[:-1]
assert args == ["-p", "--json", "--provider", "anthropic", "--model", "m1", "--yolo",
                "--auto-approve", "read,edit", "--plan", "--max-requests", "3",
                "--timeout", "40", "--cwd", ws], args
# the batch --timeout when the line has none
args = open(log + "/endnew.args").read().split("\n")[:-1]
assert args[-4:] == ["--timeout", "50", "--cwd", ws], args
new = by["new"]
assert new["usage"] == {"input_tokens": 11, "output_tokens": 13, "cache_read_tokens": 17,
                        "cache_write_tokens": 19} and new["cost_usd"] == 0.5, new
assert new["requests"] == 4 and new["status"] == "completed" and new["exit_code"] == 7, new
assert new["reason"] == "denied" and new["denied"] == [{"type": "tool", "tool": "write_to_file",
                                                      "flag": "--auto-approve read,edit"}], new
assert "reason" not in ok and "denied" not in ok, ok
assert "error" not in new, new      # its result is no error; reason and denied say why
n = by["noend"]
assert n["status"] == "failed" and n["exit_code"] == 3, n
assert n["error"] == "hew: the provider said no", n
c = by["crash"]
assert c["status"] == "crashed" and c["exit_code"] == 128 + 11, c
assert c["error"] == "killed by SIGSEGV", c
h = by["hang"]
assert h["status"] == "timeout" and h["exit_code"] == 5, h
assert "--timeout of 1 s" in h["error"], h
b = by["big"]
assert b["status"] == "completed", b
assert len(open(log + "/okbig.prompt").read()) == 6 + 300000
# a timeout too long to count: the child gets it, the runner sets none
assert by["huge"]["status"] == "completed", by["huge"]
assert "9000000000000000000" in open(log + "/okhuge.args").read().split("\n")
# what a child wrote on stderr is kept beside its events; nothing when it wrote nothing
ev = sys.argv[4]
assert open(ev + "/noend.stderr").read() == "hew: first line\nhew: the provider said no\n"
assert not os.path.exists(ev + "/ok.stderr") and os.path.exists(ev + "/ok.jsonl")
' "$work/out5.jsonl" "$BATCH_LOG" "$work/ws5" "$work/ev5" || fail "5: the children: $(cat "$work/out5.jsonl")"

# ---- 6. SIGINT stops the batch ------------------------------------------------------------
export BATCH_LOG=$work/log6
mkdir -p "$BATCH_LOG"
printf '%s\n' '{"id":"w1","prompt":"wait1"}' '{"id":"w2","prompt":"wait2"}' \
    '{"id":"w3","prompt":"wait3"}' >"$work/tasks6.jsonl"
"$HEW_BIN" batch --jobs 2 --program "$child" "$work/tasks6.jsonl" >"$work/out6.jsonl" \
    2>"$work/err6" &
batch_pid=$!
for ((i = 0; i < 600; i++)); do
    [[ -e $BATCH_LOG/wait1.running && -e $BATCH_LOG/wait2.running ]] && break
    sleep 0.05
done
[[ -e $BATCH_LOG/wait1.running && -e $BATCH_LOG/wait2.running ]] || fail "6: children not running"
kill -INT "$batch_pid"
wait "$batch_pid"
rc=$?
batch_pid=
[[ $rc == 130 ]] || fail "6: exit $rc, want 130"
[[ ! -e $BATCH_LOG/wait3.args ]] || fail "6: a task started after the stop"
python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(l["id"] for l in lines) == ["w1", "w2"], lines
for l in lines:
    assert l["status"] == "aborted" and l["exit_code"] == 130, l
' "$work/out6.jsonl" || fail "6: the stopped tasks' lines: $(cat "$work/out6.jsonl")"

# ---- 7. usage errors; tasks from stdin -----------------------------------------------------
for bad in "--shard 3/3 $work/tasks6.jsonl" "--shard 1 $work/tasks6.jsonl" \
    "--jobs x $work/tasks6.jsonl" "$work/nope.jsonl" "" "--frobnicate $work/tasks6.jsonl" \
    "--program $work/nope $work/tasks6.jsonl"; do
    "$HEW_BIN" batch $bad >/dev/null 2>"$work/err7"
    rc=$?
    [[ $rc == 2 ]] || fail "7: 'hew batch $bad' exit $rc, want 2"
    [[ -s $work/err7 ]] || fail "7: 'hew batch $bad' said nothing"
done
export BATCH_LOG=$work/log7
mkdir -p "$BATCH_LOG"
out=$(printf '%s\n' '{"id":"in","prompt":"ok from stdin"}' | "$HEW_BIN" batch --program "$child" -)
rc=$?
[[ $rc == 0 && $out == *'"id":"in","status":"completed"'* ]] || fail "7: stdin: $rc $out"

# ---- 8. the progress line on a terminal ---------------------------------------------------
export BATCH_LOG=$work/log8
mkdir -p "$BATCH_LOG"
printf '%s\n' '{"id":"p1","prompt":"ok1"}' '{"id":"p2","prompt":"ok2"}' >"$work/tasks8.jsonl"
script -qec "'$HEW_BIN' batch --jobs 1 --program '$child' '$work/tasks8.jsonl' 2>&1 >'$work/out8.jsonl'" \
    /dev/null </dev/null >"$work/tty8"
python3 -c '
import sys
t = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
out = open(sys.argv[2]).read()
assert out.count("\n") == 2 and "\x1b" not in out, repr(out)   # stdout: only the lines
assert "\r\x1b[Khew batch: 1/2 done, 0 running, 0 failed, 0:0" in t, repr(t)
assert "\r\x1b[Khew batch: 2/2 done, 0 running, 0 failed" in t, repr(t)
assert "\r\x1b[Khew batch: 2 of 2 completed, 0 failed (" in t, repr(t)
' "$work/tty8" "$work/out8.jsonl" || fail "8: the progress line: $(od -c "$work/tty8" | head -20)"

# ---- 9. nobody reads the results: the batch stops, its children too ---------------------
export BATCH_LOG=$work/log9
mkdir -p "$BATCH_LOG"
printf '%s\n' '{"id":"k1","prompt":"ok1"}' '{"id":"k2","prompt":"wait9"}' >"$work/tasks9.jsonl"
timeout 60 "$HEW_BIN" batch --jobs 2 --program "$child" "$work/tasks9.jsonl" >&- 2>"$work/err9"
rc=$?
[[ $rc == 1 ]] || fail "9: exit $rc, want 1 ($(<"$work/err9"))"
grep -q 'cannot write the results' "$work/err9" || fail "9: stderr: $(<"$work/err9")"

# ---- 10. a batch killed outright takes its running tasks with it ---------------------------
fake_start "$work/stall.json" || fail "10: fake provider"
printf '{"id": "z", "prompt": "never answered", "cwd": "%s"}\n' "$work/ws2" >"$work/tasks10.jsonl"
"$HEW_BIN" batch "$work/tasks10.jsonl" -- "${flags[@]}" --base-url "$FAKE_URL" \
    >"$work/out10.jsonl" 2>"$work/err10" &
batch_pid=$!
for ((i = 0; i < 600; i++)); do [[ -s $FAKE_RECORD ]] && break; sleep 0.05; done
[[ -s $FAKE_RECORD ]] || fail "10: the task's request never came"
kill -KILL "$batch_pid"
wait "$batch_pid" 2>/dev/null
batch_pid=
# The child hew notices (SIGTERM on its parent's death) and drops the stalled request.
out=$(fake_wait_outcome 0 30) || fail "10: the task outlived its batch"
[[ $out == *'"client_closed"'* ]] || fail "10: outcome $out"
fake_stop
echo "batch: all passed"
