#!/usr/bin/env bash
# The fleet examples: examples/k8s/batch-job.yaml (a Kubernetes Indexed Job) and
# examples/github/matrix.yml (an Actions matrix), parsed with python3-yaml and checked —
#   1. the Job: completionMode Indexed, restartPolicy Never, parallelism <= completions,
#      its container runs `batch` with `--shard $(JOB_COMPLETION_INDEX)/N` where N is
#      `completions`, an --events-dir that differs per index, the tasks file from the
#      ConfigMap it mounts (that key exists; every line is {"id","prompt","cwd"}, ids
#      unique), the key from a Secret (no literal key), and the image's user (the uid the
#      Dockerfile creates);
#   2. the matrix: its index list is exactly 0..N-1 for the N of `shard:`, fail-fast is off,
#      the key comes from secrets, it passes only inputs action.yml declares and reads only
#      its outputs, and the join job downloads the artifact names the
#      action gives shards (hew-results-shard-*);
#   3. the split: the Job's own arguments, with $(JOB_COMPLETION_INDEX) set to 0..N-1, run
#      through the real `hew batch` against the fake provider: the N argument lists are
#      distinct, and every task runs in exactly one shard.
# Broken copies are fed to the checker too and must each be refused for their reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-fleet.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/cfg XDG_STATE_HOME=$work/state
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing (scripts/install-deps installs it)"

cat >"$work/check.py" <<'PY'
import json, re, sys, yaml

job_file, matrix_file, dockerfile, out_dir, action_file = sys.argv[1:6]
problems = []
bad = problems.append

# -- 1. the Indexed Job
docs = [d for d in yaml.safe_load_all(open(job_file)) if d]
by_kind = {}
for d in docs:
    by_kind.setdefault(d.get("kind"), []).append(d)
job = (by_kind.get("Job") or [None])[0]
if not job:
    sys.exit(print("FAIL: no Job in", job_file) or 1)
spec = job["spec"]
n = spec.get("completions")
if spec.get("completionMode") != "Indexed":
    bad("the Job's completionMode must be Indexed")
if not isinstance(n, int) or n < 1:
    bad(f"completions must be a positive number, got {n!r}")
    n = 1
if not isinstance(spec.get("parallelism"), int) or not 1 <= spec["parallelism"] <= n:
    bad(f"parallelism {spec.get('parallelism')!r} must be from 1 to completions ({n})")
pod = spec["template"]["spec"]
if pod.get("restartPolicy") != "Never":
    bad("restartPolicy must be Never (a rerun pays for its tasks again)")
c = next((c for c in pod["containers"] if c.get("args") and c["args"][0] == "batch"), None)
if not c:
    sys.exit(print("FAIL: no container runs `batch`") or 1)
args = [str(x) for x in c["args"]]
try:
    shard = args[args.index("--shard") + 1]
except (ValueError, IndexError):
    shard = ""
m = re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/(\d+)", shard)
if not m:
    bad(f"--shard must be $(JOB_COMPLETION_INDEX)/N, got {shard!r}")
elif int(m.group(1)) != n:
    bad(f"--shard says N={m.group(1)} but completions is {n}: tasks would be lost or run twice")
try:
    ev = args[args.index("--events-dir") + 1]
    if "$(JOB_COMPLETION_INDEX)" not in ev:
        bad(f"--events-dir {ev} is the same for every index: shards would overwrite each other")
except (ValueError, IndexError):
    bad("the container has no --events-dir")
tasks_path = args[-1]
mounts = {mt["mountPath"].rstrip("/"): mt["name"] for mt in c.get("volumeMounts", [])}
vols = {v["name"]: v for v in pod.get("volumes", [])}
cm_name = key = None
for mp, name in mounts.items():
    if tasks_path.startswith(mp + "/") and "configMap" in vols.get(name, {}):
        cm_name, key = vols[name]["configMap"]["name"], tasks_path[len(mp) + 1:]
if not cm_name:
    bad(f"the tasks file {tasks_path} is not in a mounted ConfigMap")
    tasks_text = ""
else:
    cm = next((d for d in by_kind.get("ConfigMap", []) if d["metadata"]["name"] == cm_name), None)
    tasks_text = (cm or {}).get("data", {}).get(key)
    if tasks_text is None:
        bad(f"ConfigMap {cm_name} has no key {key}")
        tasks_text = ""
ids = []
for i, line in enumerate(tasks_text.splitlines()):
    try:
        t = json.loads(line)
        if not (isinstance(t.get("id"), str) and isinstance(t.get("prompt"), str) and isinstance(t.get("cwd"), str)):
            raise ValueError("want string id, prompt and cwd")
        ids.append(t["id"])
    except ValueError as e:
        bad(f"tasks.jsonl line {i + 1}: {e}")
if len(set(ids)) != len(ids):
    bad("tasks.jsonl has repeated ids")
if len(ids) < n:
    bad(f"{len(ids)} tasks for {n} shards: some shards would have nothing to do")
for e in c.get("env", []):
    if e["name"].endswith("_API_KEY") and ("value" in e or "secretKeyRef" not in e.get("valueFrom", {})):
        bad(f"{e['name']} must come from a Secret (valueFrom.secretKeyRef), not a literal")
if not any(e["name"].endswith("_API_KEY") for e in c.get("env", [])) and not c.get("envFrom"):
    bad("the container gets no API key")
uid = re.search(r"useradd\b[^\n&]*--uid (\d+)", open(dockerfile).read())
run_as = (pod.get("securityContext") or {}).get("runAsUser")
if uid and run_as != int(uid.group(1)):
    bad(f"runAsUser {run_as} is not the uid {uid.group(1)} the Dockerfile creates")
with open(out_dir + "/job.json", "w") as f:
    json.dump({"n": n, "args": args, "tasks": tasks_text}, f)

# -- 2. the matrix
wf = yaml.safe_load(open(matrix_file))
jobs = wf.get("jobs", {})
mj = next((j for j in jobs.values() if "matrix" in j.get("strategy", {})), None)
if not mj:
    sys.exit(print("FAIL: no matrix job in", matrix_file) or 1)
step = next((s for s in mj["steps"] if "shard" in (s.get("with") or {})), None)
if not step:
    bad("no step of the matrix job passes `shard:` to the action")
else:
    w = step["with"]
    m = re.fullmatch(r"\$\{\{\s*matrix\.(\w+)\s*\}\}/(\d+)", str(w["shard"]))
    if not m:
        bad(f"shard must be ${{{{ matrix.X }}}}/N, got {w['shard']!r}")
    else:
        lst = mj["strategy"]["matrix"].get(m.group(1))
        if lst != list(range(int(m.group(2)))):
            bad(f"matrix.{m.group(1)} is {lst} but shard says N={m.group(2)}: want 0..N-1")
    if not re.fullmatch(r"\$\{\{\s*secrets\.\w+\s*\}\}", str(w.get("api-key", ""))):
        bad("the api-key must come from secrets")
    if not w.get("tasks"):
        bad("the matrix step gives no tasks file")
# the step that uses hew passes only inputs action.yml declares, reads only its outputs
act = yaml.safe_load(open(action_file))
if step:
    for k in step["with"]:
        if k not in act["inputs"]:
            bad(f"the matrix passes {k!r}, which action.yml does not declare")
    for o in re.findall(r"steps\.%s\.outputs\.([a-z-]+)" % re.escape(step.get("id", "")), open(matrix_file).read()):
        if o not in act["outputs"]:
            bad(f"the matrix reads output {o!r}, which action.yml does not declare")
if mj["strategy"].get("fail-fast") is not False:
    bad("fail-fast must be false: one shard's failed task must not cancel the rest")
pats = [s["with"].get("pattern") for j in jobs.values() for s in j.get("steps", [])
        if str(s.get("uses", "")).startswith("actions/download-artifact") and s.get("with")]
if "hew-results-shard-*" not in pats:
    bad("no job downloads the shards' artifacts (pattern hew-results-shard-*)")

for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

check() { python3 "$work/check.py" "$1" "$2" "$root/Dockerfile" "$work" "$root/action.yml"; }
check "$root/examples/k8s/batch-job.yaml" "$root/examples/github/matrix.yml" || fail "the examples (see above)"

# 3. The split, with the Job's own arguments.
read -r n < <(jq -r .n "$work/job.json")
mapfile -t jobargs < <(jq -r '.args[]' "$work/job.json")
jq -r .tasks "$work/job.json" >"$work/tasks.orig"
mkdir -p "$work/repo"
jq -c --arg cwd "$work/repo" '.cwd = $cwd' "$work/tasks.orig" >"$work/tasks.jsonl" || fail "tasks"
ntasks=$(wc -l <"$work/tasks.jsonl")
declare -A seen=()
for ((i = 0; i < n; i++)); do
    a=()
    for x in "${jobargs[@]}"; do
        x=${x//\$(JOB_COMPLETION_INDEX)/$i}
        x=${x//\/results\//$work/results/}
        a+=("$x")
    done
    a[${#a[@]} - 1]=$work/tasks.jsonl
    key="${a[*]}"
    [[ -z ${seen[$key]:-} ]] || fail "shard $i runs the same arguments as another: $key"
    seen[$key]=1
    [[ " ${a[*]} " == *" --shard $i/$n "* ]] || fail "shard $i: arguments ${a[*]}"
    printf '%s\0' "${a[@]}" >"$work/args.$i"
done
"$HEW_BIN" batch --help >/dev/null 2>&1 || fail "this hew has no batch command"
{
    python3 - "$ntasks" >"$work/scenario.json" <<'PY'
import json, sys
r = {"protocol": "anthropic", "model": "m", "usage": {"input": 10, "output": 5},
     "text": "<attempt_completion>\n<result>\nok\n</result>\n</attempt_completion>"}
print(json.dumps({"responses": [r] * int(sys.argv[1])}))
PY
    fake_start "$work/scenario.json" || fail "fake provider"
    : >"$work/ran"
    for ((i = 0; i < n; i++)); do
        mapfile -d '' -t a <"$work/args.$i"
        HEW_BASE_URL=$FAKE_URL HEW_MODEL=claude-e2e ANTHROPIC_API_KEY=e2e-key \
            "$HEW_BIN" "${a[@]}" >"$work/out.$i" 2>"$work/err.$i" </dev/null ||
            fail "shard $i/$n: exit $?: $(cat "$work/err.$i")"
        jq -r .id "$work/out.$i" >>"$work/ran" || fail "shard $i: stdout not JSON lines"
    done
    fake_stop
    diff <(sort "$work/ran") <(jq -r .id "$work/tasks.jsonl" | sort) ||
        fail "the shards did not run every task exactly once"
}

# 4. Broken copies are refused, each for its reason.
broken() { # broken NAME WANT FILE(job|matrix) PYTHON-EXPR-ON-s
    local d=$work/$1 job=$root/examples/k8s/batch-job.yaml mx=$root/examples/github/matrix.yml
    mkdir -p "$d"
    local src=$job
    [[ $3 == matrix ]] && src=$mx
    python3 -c "import sys; s = open(sys.argv[1]).read(); t = $4; assert t != s, 'no change'; open(sys.argv[2], 'w').write(t)" \
        "$src" "$d/file.yaml" || fail "$1: could not make the broken copy"
    if [[ $3 == matrix ]]; then mx=$d/file.yaml; else job=$d/file.yaml; fi
    if check "$job" "$mx" >"$d/out" 2>&1; then
        fail "$1: a broken example passed"
    fi
    grep -qF -- "$2" "$d/out" || fail "$1: refused, but not for '$2': $(cat "$d/out")"
}
broken completions "but completions is 3" job "s.replace('completions: 4 ', 'completions: 3 ')"
broken shard-n "--shard says N=5" job "s.replace('\$(JOB_COMPLETION_INDEX)/4', '\$(JOB_COMPLETION_INDEX)/5')"
broken not-indexed "completionMode must be Indexed" job "s.replace('completionMode: Indexed', 'completionMode: NonIndexed')"
broken events "same for every index" job "s.replace('/results/shard-\$(JOB_COMPLETION_INDEX)', '/results/all')"
broken literal-key "must come from a Secret" job "s.replace('''              valueFrom:
                secretKeyRef:
                  name: hew-api-key
                  key: ANTHROPIC_API_KEY''', '              value: sk-ant-literal')"
broken bad-task "tasks.jsonl line 2" job "s.replace('{\"id\": \"todo\", ', '{\"id\": 7, ', 1)"
broken uid "is not the uid 10001" job "s.replace('runAsUser: 10001', 'runAsUser: 1000')"
broken matrix-n "want 0..N-1" matrix "s.replace('index: [0, 1, 2, 3]', 'index: [0, 1, 2]')"
broken fail-fast "fail-fast must be false" matrix "s.replace('fail-fast: false', 'fail-fast: true')"
broken input "passes 'parallel', which action.yml does not declare" matrix "s.replace('          jobs: \"2\"', '          parallel: \"2\"')"
broken output "reads output 'done'" matrix "s.replace('steps.hew.outputs.completed', 'steps.hew.outputs.done')"
broken pattern "hew-results-shard-*" matrix "s.replace('pattern: hew-results-shard-*', 'pattern: results-*')"
echo "fleet_examples: ok"
