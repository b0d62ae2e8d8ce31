#!/usr/bin/env bash
# End to end: `hew --record DIR` and `hew replay DIR` (issue #18, "Record and replay";
# docs/replay.md), through the real binary and the fake provider:
#   1. a two-request task with a read_file tool call is recorded: session.json and two
#      whole exchanges whose request bodies are exactly what the provider received; the
#      API key (a distinctive string) is nowhere under DIR;
#   2. replay in the same workspace exits 0 with the same events as the recorded run
#      (timestamps aside; checkpoints are off in a replay) and the same task id — and it
#      never contacts the recorded URL: session.json is pointed at a second fake provider,
#      which must see no request (the first one is stopped by then); --pace too; the
#      clock, time zone, shell and home folder the model is told come from the recording
#      (a copy moved to 2001 in Asia/Tokyo replays under another TZ, HOME and SHELL; without
#      the machine facts recorded, another SHELL differs at request 1's $.system);
#   3. with the file the tool reads changed, replay exits 8 naming request 2 and the JSON
#      path of the difference, with both values;
#   3b. a recording that approves edits or commands (or --yolo) is refused (exit 2)
#      unless --trust-recording: its replay would run the recorded calls for real;
#   4. a damaged recording (a cut body) is refused with exit 2 naming the file; a run
#      killed in the middle of request 2 leaves a valid recording of request 1 (no
#      partial exchange 2), whose replay says request 2 goes beyond the recording;
#   4b. a 429 with retry-after and its retry are recorded as two exchanges and replay
#      with the provider's wait left out (the retry's delay is the base delay);
#   5. the interactive terminal records too (through tmux, when there is one), and its
#      recording replays headless.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "skip: no jq command"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-replay.XXXXXX")
sentinel_pid= hew_pid=
sock=
cleanup() {
    [[ -n $sock ]] && tmux -L "$sock" kill-server 2>/dev/null
    [[ -n $hew_pid ]] && kill -9 "$hew_pid" 2>/dev/null
    [[ -n $sentinel_pid ]] && kill "$sentinel_pid" 2>/dev/null && wait "$sentinel_pid" 2>/dev/null
    fake_stop
    rm -rf -- "$work"
}
trap cleanup EXIT
mkdir -p "$work/ws"
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
KEY=sk-ant-e2eREPLAY-distinctive-0123456789abcdef
printf 'the secret word is apple\n' >"$work/ws/notes.txt"
cat >"$work/scenario.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<read_file>\n<path>notes.txt</path>\n</read_file>",
   "usage": {"input": 100, "output": 10}},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>The word is in notes.txt.</result>\n</attempt_completion>",
   "usage": {"input": 150, "output": 12}}
]}
JSON
TASK="What is the secret word in notes.txt?"

# ---- 1. record ----
fake_start "$work/scenario.json" || fail "fake_start"
ANTHROPIC_API_KEY=$KEY "$HEW_BIN" -p "$TASK" --json --xml-tools --provider anthropic \
    --model claude-sonnet-4-5 --base-url "$FAKE_URL" --cwd "$work/ws" --timeout 60 \
    --record "$work/rec" >"$work/recorded.jsonl" 2>"$work/record.err" ||
    fail "recording run exited $?: $(cat "$work/record.err")"
rec=$work/rec
for f in session.json 0001.json 0001.request 0001.response 0002.json 0002.request 0002.response; do
    [[ -f $rec/$f ]] || fail "no $f in the recording: $(ls "$rec")"
done
[[ ! -e $rec/0003.json ]] || fail "a third exchange was recorded"
jq -e --arg t "$TASK" '.format == 1 and .provider == "anthropic" and .model == "claude-sonnet-4-5"
    and .protocol == "anthropic" and .tool_format == "xml" and .mode == "act" and .task == $t
    and .cwd_name == "ws" and (.task_id | length > 0)' "$rec/session.json" >/dev/null ||
    fail "session.json: $(cat "$rec/session.json")"
jq -e '.format == 1 and .n == 2 and .method == "POST" and .response.status == 200
    and (.outcome == "ok" or .outcome == "stopped") and (.timing.chunks | length > 0) and (.clock | length == 1)' \
    "$rec/0002.json" >/dev/null || fail "0002.json: $(cat "$rec/0002.json")"
# the bodies are exactly what the provider got, and the response bytes what it sent
for i in 0 1; do
    n=$(printf '%04d' $((i + 1)))
    diff <(jq -S ".[$i].body" -s "$FAKE_RECORD") <(jq -S . "$rec/$n.request") >/dev/null ||
        fail "request $n differs from what the provider received"
    [[ $(stat -c %s "$rec/$n.response") -eq $(jq ".response.body_bytes" "$rec/$n.json") ]] ||
        fail "response $n size"
done
grep -q 'event: message_stop' "$rec/0002.response" || fail "0002.response is not the SSE stream"
grep -rq "e2eREPLAY" "$rec" && fail "the API key reached the recording: $(grep -rl e2eREPLAY "$rec")"
jq -e '[.request.headers[] | select(.[0] == "x-api-key")][0][1] == "[REDACTED]"' "$rec/0001.json" \
    >/dev/null || fail "the key header is not masked: $(jq -c .request.headers "$rec/0001.json")"
fake_stop

# ---- 2. replay: same events, and the recorded URL is never contacted ----
cat >"$work/sentinel.json" <<'JSON'
{"lenient": true, "responses": [{"status": 500, "body": "the replay contacted the recorded URL"}]}
JSON
"$HEW_FAKE_PROVIDER" --scenario "$work/sentinel.json" --port 0 --quiet \
    --record "$work/sentinel.jsonl" >"$work/sentinel.url" &
sentinel_pid=$!
for ((i = 0; i < 200; i++)); do [[ -s $work/sentinel.url ]] && break; sleep 0.05; done
sentinel=$(head -n 1 "$work/sentinel.url")
[[ $sentinel == http://127.0.0.1:* ]] || fail "the sentinel provider did not start"
jq --arg u "$sentinel" '.base_url = $u' "$rec/session.json" >"$work/m.json" &&
    mv "$work/m.json" "$rec/session.json"

# events as a comparable list: no timestamps and no durations (measured, not replayed), no
# checkpoints (a replay takes none)
norm() { jq -c 'select(.type != "checkpoint_created") | del(.ts, .index, .duration_ms)' "$1"; }
(cd "$work/ws" && env -u ANTHROPIC_API_KEY "$HEW_BIN" replay "$rec" --json) \
    >"$work/replayed.jsonl" 2>"$work/replay.err"
rc=$?
[[ $rc -eq 0 ]] || fail "replay exited $rc: $(cat "$work/replay.err")"
diff <(norm "$work/recorded.jsonl") <(norm "$work/replayed.jsonl") >"$work/events.diff" ||
    fail "the replay's events differ: $(cat "$work/events.diff")"
[[ $(jq -r 'select(.type == "task_end") | .status' "$work/replayed.jsonl") == completed ]] ||
    fail "replayed task did not complete"
[[ -s $work/sentinel.jsonl ]] && fail "the replay contacted the recorded URL: $(cat "$work/sentinel.jsonl")"
# without --json: the verdict on stderr, the result on stdout; --cwd instead of the cwd
"$HEW_BIN" replay "$rec" --cwd "$work/ws" >"$work/out" 2>"$work/replay.err" ||
    fail "plain replay exited $?: $(cat "$work/replay.err")"
grep -q 'all 2 requests matched the recording' "$work/replay.err" || fail "verdict: $(cat "$work/replay.err")"
[[ $(cat "$work/out") == "The word is in notes.txt." ]] || fail "result: $(cat "$work/out")"
# another folder: a copy of the workspace elsewhere replays as well (the recorded path,
# which the system prompt and the environment details name, is read as the copy's)
[[ $(jq -r .cwd "$rec/session.json") == "$(realpath "$work/ws")" ]] ||
    fail "the manifest's cwd: $(jq -c .cwd "$rec/session.json")"
mkdir -p "$work/elsewhere" && cp -r "$work/ws" "$work/elsewhere/copy"
"$HEW_BIN" replay "$rec" --cwd "$work/elsewhere/copy" >"$work/out" 2>"$work/replay.err" ||
    fail "replay in a copy elsewhere exited $?: $(cat "$work/replay.err")"
grep -q 'all 2 requests matched the recording' "$work/replay.err" || fail "verdict: $(cat "$work/replay.err")"
"$HEW_BIN" replay "$rec" --cwd "$work/no-such-folder" >/dev/null 2>"$work/replay.err"
[[ $? -eq 2 ]] && grep -q 'no-such-folder' "$work/replay.err" ||
    fail "replay in a missing folder: $(cat "$work/replay.err")"
# --pace: the answers at the recorded pace, the same verdict
"$HEW_BIN" replay "$rec" --cwd "$work/ws" --pace >/dev/null 2>"$work/replay.err" ||
    fail "paced replay exited $?: $(cat "$work/replay.err")"
[[ -s $work/sentinel.jsonl ]] && fail "the replay contacted the recorded URL"

# ---- 2b. the clock and its zone come from the recording ----
# A copy whose clock reads are moved to 2001 (the time in each request body rewritten to
# match, the descriptions' clock values and sizes too) and whose zone is Asia/Tokyo:
# replayed under another TZ, hours later, it matches only if the replay tells the model
# the recorded time in the recorded zone. The same for the shell and home folder the
# system prompt names.
cp -r "$rec" "$work/moved"
python3 - "$work/moved" <<'PY' || fail "could not move the recording's clock"
import json, re, sys
d = sys.argv[1]
when = "Sunday 2001-09-09 10:46:40 (Asia/Tokyo, UTC+09:00)"
for n in ("0001", "0002"):
    body = open(f"{d}/{n}.request", "rb").read().decode()
    body, k = re.subn(r"# Current Time\\n[^\\]*\\n", "# Current Time\\\\n" + when + "\\\\n", body)
    assert k >= 1, (n, k)
    open(f"{d}/{n}.request", "wb").write(body.encode())
    desc = json.load(open(f"{d}/{n}.json"))
    desc["clock"] = [1000000000]
    desc["request"]["body_bytes"] = len(body.encode())
    json.dump(desc, open(f"{d}/{n}.json", "w"))
m = json.load(open(f"{d}/session.json"))
m["tz"] = "Asia/Tokyo"
json.dump(m, open(f"{d}/session.json", "w"))
PY
# ... and as another user's shell and home: the machine facts come from the recording
mkdir -p "$work/elsewhere"
TZ=America/New_York HOME=$work/elsewhere SHELL=/bin/another-shell \
    "$HEW_BIN" replay "$work/moved" --cwd "$work/ws" >/dev/null 2>"$work/replay.err" ||
    fail "a replay with the recorded clock, zone and machine exited $?: $(cat "$work/replay.err")"
jq -e '.machine.shell and .machine.home and .machine.os' "$rec/session.json" >/dev/null ||
    fail "session.json has no machine facts"
# without them in the recording, another shell is told to the model: request 1 differs
jq 'del(.machine)' "$work/moved/session.json" >"$work/m.json" && mv "$work/m.json" "$work/moved/session.json"
TZ=America/New_York SHELL=/bin/another-shell \
    "$HEW_BIN" replay "$work/moved" --cwd "$work/ws" >/dev/null 2>"$work/replay.err"
rc=$?
[[ $rc -eq 8 ]] && grep -q 'request 1 differs from the recording at \$\.system' "$work/replay.err" ||
    fail "a replay told another shell: exit $rc: $(cat "$work/replay.err")"

# ---- 3. a changed workspace: request 2 differs ----
printf 'the secret word is banana\n' >"$work/ws/notes.txt"
"$HEW_BIN" replay "$rec" --cwd "$work/ws" >"$work/out" 2>"$work/replay.err"
rc=$?
[[ $rc -eq 8 ]] || fail "a diverging replay exited $rc, want 8: $(cat "$work/replay.err")"
verdict=$(grep '^hew: replay diverged:' "$work/replay.err")
[[ $verdict == *"request 2 differs from the recording at \$.messages[2].content[0].text"* ]] ||
    fail "verdict does not name request 2 and the path: $(cat "$work/replay.err")"
[[ $verdict == *"apple"* && $verdict == *"banana"* ]] || fail "verdict lacks the values: $verdict"
[[ -s $work/sentinel.jsonl ]] && fail "the replay contacted the recorded URL"
kill "$sentinel_pid" && wait "$sentinel_pid" 2>/dev/null
sentinel_pid=
printf 'the secret word is apple\n' >"$work/ws/notes.txt"

# ---- 3b. a recording that approves edits or commands runs only when trusted ----
cp -r "$rec" "$work/edits"
jq '.options.auto_approve_edit = true' "$rec/session.json" >"$work/edits/session.json"
"$HEW_BIN" replay "$work/edits" --cwd "$work/ws" >/dev/null 2>"$work/replay.err"
rc=$?
[[ $rc -eq 2 ]] && grep -q 'recorded approving file edits' "$work/replay.err" &&
    grep -q 'pass --trust-recording' "$work/replay.err" ||
    fail "an untrusted recording approving edits: exit $rc: $(cat "$work/replay.err")"
"$HEW_BIN" replay "$work/edits" --cwd "$work/ws" --trust-recording >/dev/null 2>"$work/replay.err" ||
    fail "a trusted recording approving edits exited $?: $(cat "$work/replay.err")"
jq '.options.yolo = true' "$rec/session.json" >"$work/edits/session.json"
"$HEW_BIN" replay "$work/edits" --cwd "$work/ws" >/dev/null 2>"$work/replay.err"
[[ $? -eq 2 ]] && grep -q 'recorded approving everything (--yolo)' "$work/replay.err" ||
    fail "an untrusted yolo recording: $(cat "$work/replay.err")"

# ---- 4. damaged and killed recordings ----
cp -r "$rec" "$work/cut"
head -c 100 "$rec/0002.response" >"$work/cut/0002.response"
"$HEW_BIN" replay "$work/cut" --cwd "$work/ws" >/dev/null 2>"$work/replay.err"
rc=$?
[[ $rc -eq 2 ]] || fail "a cut recording: exit $rc, want 2"
grep -q '0002.response: 100 bytes, but 0002.json says' "$work/replay.err" &&
    grep -q 'the recording is damaged' "$work/replay.err" || fail "cut: $(cat "$work/replay.err")"
"$HEW_BIN" replay "$work/nothing-here" >/dev/null 2>"$work/replay.err"
[[ $? -eq 2 ]] && grep -q 'not a folder' "$work/replay.err" || fail "missing: $(cat "$work/replay.err")"

# a run killed while request 2 streams: the second answer stalls after its first bytes
jq '.responses[1].stall_after_bytes = 50 | .responses[1].stall_ms = 120000' \
    "$work/scenario.json" >"$work/stall.json"
fake_start "$work/stall.json" || fail "fake_start (stall)"
ANTHROPIC_API_KEY=$KEY "$HEW_BIN" -p "$TASK" --json --xml-tools --provider anthropic \
    --model claude-sonnet-4-5 --base-url "$FAKE_URL" --cwd "$work/ws" \
    --record "$work/killed" >"$work/killed.jsonl" 2>/dev/null &
hew_pid=$!
# wait (a safety net, not a timing) until the second request has arrived and its
# first bytes went out: the event stream then shows request 2 started
for ((i = 0; i < 600; i++)); do
    [[ $(grep -c '"type":"api_req_started"' "$work/killed.jsonl" 2>/dev/null) -ge 3 ]] &&
        [[ $(wc -l <"$FAKE_RECORD") -ge 2 ]] && break
    sleep 0.05
done
[[ $(wc -l <"$FAKE_RECORD") -ge 2 ]] || fail "request 2 never reached the provider"
kill -9 "$hew_pid"
wait "$hew_pid" 2>/dev/null
hew_pid=
fake_stop
[[ -f $work/killed/0001.json && ! -e $work/killed/0002.json ]] ||
    fail "killed run: $(ls "$work/killed")"
"$HEW_BIN" replay "$work/killed" --cwd "$work/ws" >/dev/null 2>"$work/replay.err"
rc=$?
[[ $rc -eq 8 ]] || fail "replay of a killed recording exited $rc: $(cat "$work/replay.err")"
grep -q 'request 2 goes beyond the recording, which has 1' "$work/replay.err" ||
    fail "killed: $(cat "$work/replay.err")"
# ---- 4b. a rate limit and its retry replay, without the wait the provider asked for ----
cat >"$work/limit.json" <<'JSON'
{"responses": [
  {"status": 429, "headers": {"retry-after": "1"},
   "body": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/limit.json" || fail "fake_start (limit)"
ANTHROPIC_API_KEY=$KEY "$HEW_BIN" -p "$TASK" --json --xml-tools --provider anthropic \
    --model claude-sonnet-4-5 --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10 \
    --record "$work/limit" >"$work/limit.jsonl" 2>"$work/record.err" ||
    fail "recording a retried request exited $?: $(cat "$work/record.err")"
fake_stop
jq -e '.response.status == 429 and ([.response.headers[] | select(.[0] == "retry-after")] | length == 1)' \
    "$work/limit/0001.json" >/dev/null || fail "0001.json: $(cat "$work/limit/0001.json")"
delay() { jq -s '[.[] | select(.type == "error_retry" and .partial == false) | .data.delaySeconds] | max' "$1"; }
[[ $(delay "$work/limit.jsonl") == 1 ]] || fail "the recorded retry did not wait 1 s: $(delay "$work/limit.jsonl")"
"$HEW_BIN" replay "$work/limit" --cwd "$work/ws" --json >"$work/limit2.jsonl" 2>"$work/replay.err" ||
    fail "replay of a retried request exited $?: $(cat "$work/replay.err")"
jq -e -n --argjson d "$(delay "$work/limit2.jsonl")" '$d < 1' >/dev/null ||
    fail "the replay waited as the provider asked: $(delay "$work/limit2.jsonl") s"

# ---- 5. the terminal records too (through tmux, when there is one) ----
if command -v tmux >/dev/null; then
    sock=hew-e2e-replay-$$
    fake_start "$work/scenario.json" || fail "fake_start (terminal)"
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 40 \
        "env ANTHROPIC_API_KEY=$KEY XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         XDG_DATA_HOME='$work/data' TERM=xterm-256color '$HEW_BIN' --provider anthropic \
         --model claude-sonnet-4-5 --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' \
         --record '$work/tty'; echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    screen() { tmux -L "$sock" capture-pane -p -t t -S -200; }
    wait_for() {
        local i
        for ((i = 0; i < 30 * 20; i++)); do
            screen | grep -Eq -- "$1" && return 0
            sleep 0.05
        done
        return 1
    }
    wait_for 'Ctrl-D to leave' || { screen >&2; fail "no banner"; }
    tmux -L "$sock" send-keys -t t "$TASK" Enter
    wait_for 'The word is in notes.txt' || { screen >&2; fail "the terminal's task did not end"; }
    tmux -L "$sock" send-keys -t t C-d
    wait_for 'EXIT=0' || { screen >&2; fail "the terminal did not leave cleanly"; }
    tmux -L "$sock" kill-server 2>/dev/null
    fake_stop
    [[ -f $work/tty/session.json && -f $work/tty/0002.json ]] || fail "terminal: $(ls "$work/tty")"
    grep -rq "e2eREPLAY" "$work/tty" && fail "the API key reached the terminal's recording"
    "$HEW_BIN" replay "$work/tty" --cwd "$work/ws" >/dev/null 2>"$work/replay.err" ||
        fail "replay of the terminal's recording exited $?: $(cat "$work/replay.err")"
fi
exit 0
