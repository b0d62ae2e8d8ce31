#!/usr/bin/env bash
# End to end: scripts/action-run, the logic of the GitHub Action (action.yml), run here the
# way the action runs it — inputs as INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# RUNNER_TEMP and GITHUB_ACTIONS=true as GitHub sets them — against the fake provider:
#   1. one task (`hew -p --json`): the outputs file (exit-code, status, a multi-line result
#      holding a line "EOF" and HTML, the cost of claude-sonnet-4-5 for the fake's usage),
#      the JSON lines and result.txt in the artifact folder, the summary (HTML escaped);
#      the API key reaches hew (the fake saw it) but never its command line, the outputs,
#      the summary or any file; it is masked (::add-mask::) and hew runs between
#      ::stop-commands:: markers; `args` are split like quoted shell words (a folder with a
#      space) and nothing in them is expanded ($(...) stays text, nothing runs);
#      a result over 64 KiB is cut at a character and flagged, kept whole in result.txt;
#      exit 7's denied actions are listed in the summary with the flag that allows each;
#   2. hew's own failure passes through: exit status and exit-code equal hew's;
#   3. bad inputs exit 2 with an ::error:: that says what to do, before hew runs;
#   4. the provider → key variable table agrees with cli/config.c;
#   5. `hew batch` — a tasks
#      file with a missing cwd, --jobs 2, then --shard 1/2: the command line (provider,
#      model and args after `--`, for every task), results.jsonl, the counts, the artifact
#      name, the summary's table.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-action.XXXXXX")
trap 'fake_stop; [[ -n ${KEEP:-} ]] || rm -rf -- "$work"' EXIT
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
unset ANTHROPIC_API_KEY OPENAI_API_KEY HEW_PROVIDER HEW_MODEL HEW_BASE_URL
KEY='Zq9-action-secret-0123456789'

# A hew that writes its argv (NUL-separated) before it runs, so the test can see exactly
# what the script passed on the command line.
cat >"$work/hew-wrap" <<EOF
#!/usr/bin/env bash
printf '%s\0' "\$@" >>"$work/argv"
exec "$HEW_BIN" "\$@"
EOF
chmod +x "$work/hew-wrap"

# run_action NAME: runs the script with a fresh outputs file, summary and RUNNER_TEMP;
# the INPUT_* variables come from the caller's environment. Sets rc.
run_action() {
    local d=$work/$1
    mkdir -p "$d/temp"
    : >"$d/output"
    : >"$d/summary"
    rm -f "$work/argv"
    GITHUB_ACTIONS=true GITHUB_OUTPUT=$d/output GITHUB_STEP_SUMMARY=$d/summary \
        RUNNER_TEMP=$d/temp HEW_BIN=$work/hew-wrap \
        "$root/scripts/action-run" >"$d/stdout" 2>"$d/stderr"
    rc=$?
}

# outputs.py FILE: the outputs file as GitHub reads it (name=value, name<<DELIM…DELIM),
# printed as one JSON object.
cat >"$work/outputs.py" <<'PY'
import json, sys
out, lines, i = {}, open(sys.argv[1], encoding="utf-8").read().split("\n"), 0
while i < len(lines):
    l = lines[i]
    i += 1
    if not l:
        continue
    if "<<" in l and ("=" not in l or l.index("<<") < l.index("=")):
        name, delim = l.split("<<", 1)
        val = []
        while lines[i] != delim:
            val.append(lines[i])
            i += 1
        i += 1
        out[name] = "\n".join(val)
    else:
        name, val = l.split("=", 1)
        out[name] = val
print(json.dumps(out))
PY

mkdir -p "$work/ws dir"

# 1. One task that completes.
fake_start "$here/data/action_run_scenario.json" || fail "fake provider"
export INPUT_PROMPT='Say hi' INPUT_PROVIDER=anthropic INPUT_MODEL=claude-sonnet-4-5
export INPUT_API_KEY=$KEY
export INPUT_ARGS="--base-url $FAKE_URL --cwd '$work/ws dir' --xml-tools --retry-delay-ms 10 --allow-command \"\$(touch $work/pwned)\""
run_action one
[[ $rc -eq 0 ]] || fail "one task: exit $rc: $(cat "$work/one/stderr")"
python3 "$work/outputs.py" "$work/one/output" >"$work/one/outputs.json" || fail "outputs file unreadable"
python3 - "$work/one/outputs.json" "$work/argv" "$FAKE_RECORD" "$KEY" "$work" <<'PY' || fail "one task: outputs"
import json, os, sys
out = json.load(open(sys.argv[1]))
argv = open(sys.argv[2], "rb").read().split(b"\0")[:-1]
argv = [a.decode() for a in argv]
key, work = sys.argv[4], sys.argv[5]
want_result = "First line | with a pipe\nEOF\n<script>alert(1)</script> & more"
assert out["exit-code"] == "0", out
assert out["status"] == "completed", out
assert out["result"] == want_result, repr(out["result"])
assert out["result-truncated"] == "false", out
assert abs(float(out["cost"]) - (1200 * 3 + 40 * 15) / 1e6) < 1e-12, out["cost"]
assert out["tasks"] == "1" and out["completed"] == "1", out
assert out["artifact-name"] == "hew-results", out
d = out["artifact-dir"]
assert d.startswith(work + "/one/temp/"), d
assert out["results"] == d + "/events.jsonl", out
events = [json.loads(l) for l in open(out["results"])]
assert events[-1]["type"] == "task_end" and events[-1]["status"] == "completed", events[-1]
assert open(d + "/result.txt").read() == want_result
# the command line: -p, --json, the flags, the quoted folder as one word, $(...) as text
assert argv[:2] == ["-p", "Say hi"] and "--json" in argv, argv
assert argv[argv.index("--cwd") + 1] == work + "/ws dir", argv
assert argv[argv.index("--allow-command") + 1] == "$(touch " + work + "/pwned)", argv
assert not os.path.exists(work + "/pwned"), "an input was expanded"
assert not any(key in a for a in argv), "the key is on hew's command line"
# the key reached hew: the fake saw it (masked to its first 3 characters)
reqs = [json.loads(l) for l in open(sys.argv[3])]
assert reqs and reqs[0]["headers"].get("x-api-key") == key[:3] + "***", reqs[0]["headers"]
PY
grep -rqF "$KEY" "$work/one/temp" "$work/one/output" "$work/one/summary" "$work/one/stderr" &&
    fail "the key is in a file the action writes"
grep -qxF "::add-mask::$KEY" "$work/one/stdout" || fail "key not masked: $(cat "$work/one/stdout")"
[[ $(grep -vcxF "::add-mask::$KEY" "$work/one/stdout") -eq 2 ]] || fail "stdout: $(cat "$work/one/stdout")"
tok=$(sed -n 's/^::stop-commands::\(hew-[0-9a-f]\{24\}\)$/\1/p' "$work/one/stdout")
[[ -n $tok ]] && grep -qxF "::$tok::" "$work/one/stdout" || fail "no stop-commands pair: $(cat "$work/one/stdout")"
grep -qF '### hew: completed (exit 0)' "$work/one/summary" || fail "summary: $(cat "$work/one/summary")"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt; &amp; more' "$work/one/summary" ||
    fail "summary: result not escaped: $(cat "$work/one/summary")"
grep -qF '<script>' "$work/one/summary" && fail "summary: raw HTML from the model"
grep -qE '^\| completed \| 0 \| 0\.0042 \| 1 \| 1200 \| 40 \|' "$work/one/summary" ||
    fail "summary table: $(cat "$work/one/summary")"
[[ -z $(fake_violations) ]] || fail "invalid request: $(fake_violations)"
fake_stop

# 1b. A result over the output's 64 KiB: the output is its first part cut at a character
#     (the 65536th byte falls inside a 2-byte "é"), result-truncated says so, result.txt and
#     the events keep it whole, and the summary shows only its first 4000 characters — 4-byte
#     ones among them, across the 8 KiB where jq 1.6's raw input (-R) breaks characters.
python3 - >"$work/long_scenario.json" <<'PY'
import json
text = "x" + "\U0001F600" * 2500 + "\u00e9" * 40000
print(json.dumps({"responses": [{"protocol": "anthropic", "model": "m", "usage": {"input": 10, "output": 5},
    "text": "<attempt_completion>\n<result>\n" + text + "\n</result>\n</attempt_completion>"}]}))
PY
fake_start "$work/long_scenario.json" || fail "fake provider"
export INPUT_ARGS="--base-url $FAKE_URL --cwd '$work/ws dir' --xml-tools --retry-delay-ms 10"
run_action long
fake_stop
[[ $rc -eq 0 ]] || fail "long result: exit $rc: $(cat "$work/long/stderr")"
python3 "$work/outputs.py" "$work/long/output" >"$work/long/outputs.json" || fail "long: outputs file unreadable"
python3 - "$work/long/outputs.json" "$work/long/summary" <<'PY' || fail "long result"
import json, sys
out = json.load(open(sys.argv[1]))
whole = "x" + "\U0001F600" * 2500 + "\u00e9" * 40000
assert out["result-truncated"] == "true", out["result-truncated"]
r = out["result"]
assert whole.startswith(r) and len(r.encode()) == 65535, len(r.encode())
assert open(out["artifact-dir"] + "/result.txt", encoding="utf-8").read() == whole
summary = open(sys.argv[2], encoding="utf-8").read()
assert "<pre>\n" + whole[:4000] + "\n</pre>" in summary, "summary does not hold the first 4000 characters"
assert "(the first 4000 characters; the whole result is result.txt" in summary
PY

# 1c. Actions denied for want of approval (exit 7): the summary lists each, HTML-escaped,
#     with the flag that would allow it.
jq -e 'select(.type == "task_end") | has("denied")' "$(sed -n 's/^results=//p' "$work/one/output")" \
    >/dev/null || fail "task_end has no denied list"
{
    printf '%s\n' '{"responses": [{"protocol": "anthropic", "text": "<write_to_file>\n<path>a<b>.txt</path>\n<content>\nmade\n</content>\n</write_to_file>"}, {"protocol": "anthropic", "text": "<attempt_completion>\n<result>\nnot written\n</result>\n</attempt_completion>"}]}' \
        >"$work/denied_scenario.json"
    fake_start "$work/denied_scenario.json" || fail "fake provider"
    export INPUT_ARGS="--base-url $FAKE_URL --cwd '$work/ws dir' --xml-tools --retry-delay-ms 10"
    run_action denied
    fake_stop
    [[ $rc -eq 7 ]] || fail "denied: exit $rc, want 7: $(cat "$work/denied/stderr")"
    grep -qx 'exit-code=7' "$work/denied/output" || fail "denied: exit-code output"
    grep -qF '<li>write_to_file a&lt;b&gt;.txt: allow with <code>--auto-approve read,edit</code></li>' \
        "$work/denied/summary" || fail "denied: summary: $(cat "$work/denied/summary")"
    [[ ! -e "$work/ws dir/a<b>.txt" ]] || fail "denied: the file was written"
}

# 2. hew fails: the script's status and exit-code are hew's own.
fake_start "$here/data/headless_fail_scenario.json" || fail "fake provider"
export INPUT_ARGS="--base-url $FAKE_URL --cwd '$work/ws dir' --retry-delay-ms 10"
run_action failed
fake_stop
fake_start "$here/data/headless_fail_scenario.json" || fail "fake provider"
ANTHROPIC_API_KEY=$KEY "$HEW_BIN" -p 'Say hi' --json --provider anthropic --model claude-sonnet-4-5 \
    --base-url "$FAKE_URL" --cwd "$work/ws dir" --retry-delay-ms 10 >/dev/null 2>&1 </dev/null
want=$?
fake_stop
[[ $want -ne 0 && $rc -eq $want ]] || fail "failed task: script exit $rc, hew's $want"
python3 - "$work/failed" "$want" <<PY || fail "failed task: outputs"
import json, subprocess, sys
out = json.loads(subprocess.check_output(["python3", "$work/outputs.py", sys.argv[1] + "/output"]))
assert out["exit-code"] == sys.argv[2] and out["status"] != "completed", out
assert out["completed"] == "0", out
PY
grep -qF "### hew: " "$work/failed/summary" && grep -qF "(exit $want)" "$work/failed/summary" ||
    fail "failed task summary: $(cat "$work/failed/summary")"

# hew's usage error (exit 2) too.
export INPUT_ARGS='--no-such-flag'
run_action usage
[[ $rc -eq 2 ]] && grep -qx 'exit-code=2' "$work/usage/output" || fail "hew usage error: exit $rc"

# 3. Bad inputs: exit 2, an ::error:: that says what to do, hew never started.
bad() { # bad NAME WANT-IN-MESSAGE VAR=VALUE...
    local name=$1 want=$2
    shift 2
    (unset INPUT_PROMPT INPUT_TASKS INPUT_ARGS INPUT_JOBS INPUT_SHARD
     export INPUT_PROMPT='Say hi' "$@"
     run_action "bad-$name"
     [[ $rc -eq 2 ]] || fail "$name: exit $rc, want 2"
     grep -qF "::error title=hew action::" "$work/bad-$name/stderr" || fail "$name: no ::error::"
     grep -qF -- "$want" "$work/bad-$name/stderr" || fail "$name: $(cat "$work/bad-$name/stderr")"
     grep -qx 'exit-code=2' "$work/bad-$name/output" || fail "$name: no exit-code output"
     [[ ! -e $work/argv ]] || fail "$name: hew ran")  || exit 1
}
printf '{"id":"a","prompt":"x","cwd":"."}\n' >"$work/tasks.jsonl"
bad both "not both" INPUT_TASKS="$work/tasks.jsonl"
bad none "nothing to run" INPUT_PROMPT=
bad jobs-with-prompt "apply to a tasks file" INPUT_JOBS=2
bad jobs "not a whole number" INPUT_PROMPT= INPUT_TASKS="$work/tasks.jsonl" INPUT_JOBS=0
bad shard-range "is not below the count" INPUT_PROMPT= INPUT_TASKS="$work/tasks.jsonl" INPUT_SHARD=4/4
bad shard-form "is not I/N" INPUT_PROMPT= INPUT_TASKS="$work/tasks.jsonl" INPUT_SHARD='1 of 2'
bad tasks-missing "not a readable file" INPUT_PROMPT= INPUT_TASKS="$work/nope.jsonl"
bad quote "unmatched quote" INPUT_ARGS="--cwd 'open"
bad provider "no variable to go in" INPUT_PROVIDER=bogus INPUT_API_KEY=k
bad workdir "not a folder" INPUT_WORKING_DIRECTORY="$work/nope"
bad artifact "may hold only" INPUT_ARTIFACT_NAME='../x'

# 4. The key table agrees with cli/config.c's key_envs.
python3 - "$root/cli/config.c" "$root/scripts/action-run" <<'PY' || fail "key tables differ"
import re, sys
c = open(sys.argv[1]).read()
block = c[c.index("key_envs[] = {"):]
block = block[:block.index("};")]
want = dict(re.findall(r'\{\s*"([a-z-]+)",\s*"([A-Z_]+)"\s*\}', block))
s = open(sys.argv[2]).read()
block = s[s.index("declare -A key_env=("):]
block = block[:block.index("\n)")]
got = dict(re.findall(r'\[([a-z-]+)\]=([A-Z_]+)', block))
assert want and got == want, (want, got)
PY

# 5. hew batch.
"$HEW_BIN" batch --help >/dev/null 2>&1 || fail "this hew has no batch command"
{
    fake_start "$here/data/action_batch_scenario.json" || fail "fake provider"
    mkdir -p "$work/b0" "$work/b1" "$work/b2" "$work/b3"
    {
        printf '{"id":"t0","prompt":"one","cwd":"%s"}\n' "$work/b0"
        printf '{"id":"t1","prompt":"two","cwd":"%s"}\n' "$work/no-such-folder"
        printf '{"id":"t2","prompt":"three","cwd":"%s"}\n' "$work/b2"
    } >"$work/batch.jsonl"
    (unset INPUT_PROMPT
     export INPUT_TASKS=$work/batch.jsonl INPUT_JOBS=2 HEW_BASE_URL=$FAKE_URL
     export INPUT_MODEL=claude-e2e INPUT_ARGS="--retry-delay-ms 10 --allow-command 'make test'"
     run_action batch
     [[ $rc -ne 0 ]] || fail "batch with a missing cwd: exit 0"
     python3 "$work/outputs.py" "$work/batch/output" >"$work/batch/outputs.json"
     python3 - "$work/batch/outputs.json" "$rc" "$work/argv" "$work/batch.jsonl" <<'PY' || fail "batch outputs"
import json, os, sys
out = json.load(open(sys.argv[1]))
# the batch's own options, the file, then after -- what every task's hew -p gets
argv = [a.decode() for a in open(sys.argv[3], "rb").read().split(b"\0")]
want = ["batch", "--events-dir", out["artifact-dir"] + "/events", "--jobs", "2", sys.argv[4], "--",
        "--provider", "anthropic", "--model", "claude-e2e", "--retry-delay-ms", "10",
        "--allow-command", "make test"]
assert argv[:len(want)] == want, argv[:len(want)]
assert out["exit-code"] == sys.argv[2] and out["status"] == "failed", out
assert out["tasks"] == "3" and out["completed"] == "2", out
assert out["results"] == out["artifact-dir"] + "/results.jsonl", out
lines = [json.loads(l) for l in open(out["results"])]
st = {l["id"]: l["status"] for l in lines}
assert st["t0"] == "completed" and st["t2"] == "completed" and st["t1"] != "completed", st
assert os.listdir(out["artifact-dir"] + "/events"), "no events written"
PY
     grep -qF '2 of 3 tasks completed' "$work/batch/summary" || fail "batch summary: $(cat "$work/batch/summary")"
     grep -qE '^\| t1 \| ' "$work/batch/summary" || fail "batch summary table: $(cat "$work/batch/summary")") || exit 1

    {
        for i in 0 1 2 3; do printf '{"id":"s%d","prompt":"p","cwd":"%s"}\n' "$i" "$work/b$i"; done
    } >"$work/shard.jsonl"
    (unset INPUT_PROMPT INPUT_ARGS
     export INPUT_TASKS=$work/shard.jsonl INPUT_SHARD=1/2 HEW_BASE_URL=$FAKE_URL INPUT_MODEL=claude-e2e
     run_action shard
     [[ $rc -eq 0 ]] || fail "shard: exit $rc: $(cat "$work/shard/stderr")"
     python3 "$work/outputs.py" "$work/shard/output" >"$work/shard/outputs.json"
     python3 - "$work/shard/outputs.json" <<'PY' || fail "shard outputs"
import json, sys
out = json.load(open(sys.argv[1]))
assert out["status"] == "completed" and out["tasks"] == "2" and out["completed"] == "2", out
assert out["artifact-name"] == "hew-results-shard-1-of-2", out
ids = sorted(json.loads(l)["id"] for l in open(out["results"]))
assert ids == ["s1", "s3"], ids
PY
    ) || exit 1
    fake_stop
}
echo "action_run: ok"
