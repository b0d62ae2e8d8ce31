#!/usr/bin/env bash
# action.yml, linted without actionlint (not in Debian): the composite action's wiring,
# parsed with python3-yaml and held against the scripts it calls —
#   1. runs.using is composite; every step that runs a command names its shell, runs
#      exactly one script "$GITHUB_ACTION_PATH/scripts/NAME" that exists and is executable,
#      and has no ${{ }} in its `run:` (inputs reach scripts through env, so no input can
#      be parsed as shell);
#   2. every declared input is used, and every inputs.X used is declared; the api-key
#      input is used only in an env: entry;
#   3. the INPUT_* variables a step sets are exactly those its script reads;
#   4. every output maps to steps.run.outputs.X that scripts/action-run writes; every
#      steps.ID referenced is a step's id; every `uses:` is pinned to a version;
#   5. scripts/action-build's packages cover the pkg-config modules CMakeLists.txt
#      requires (dpkg -S on each .pc file) and are all in scripts/install-deps' runtime
#      or build groups (never a test-only package);
#   6. scripts/action-build refuses, before fetching or installing anything, a `ref` that
#      git would read as an option or a path (--upload-pack=…, ../x) and a repository
#      name it cannot vouch for, and an unknown argument;
#   7. docs/ci.md's input and output tables name exactly the action's inputs and outputs.
# Broken copies of action.yml are fed to the checker too and must each be refused for
# their reason, so a check that cannot fail is caught.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-actionyml.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing (scripts/install-deps installs it)"

cat >"$work/check.py" <<'PY'
import os, re, subprocess, sys, yaml

action, root = sys.argv[1], sys.argv[2]
problems = []
bad = problems.append
a = yaml.safe_load(open(action))

def text(x):
    """every string inside x, joined"""
    if isinstance(x, dict):
        return " ".join(text(k) + " " + text(v) for k, v in x.items())
    if isinstance(x, list):
        return " ".join(text(v) for v in x)
    return str(x)

for k in ("name", "description", "inputs", "outputs", "runs"):
    if k not in a:
        bad(f"action.yml has no {k}")
runs = a.get("runs", {})
if runs.get("using") != "composite":
    bad(f"runs.using is {runs.get('using')!r}, want composite")
steps = runs.get("steps") or []
ids = {s["id"] for s in steps if "id" in s}
scripts = {}

# 1. run steps
for s in steps:
    if "run" in s:
        if "shell" not in s:
            bad(f"step {s.get('name')!r} runs a command without `shell:`")
        if "${{" in s["run"]:
            bad(f"step {s.get('name')!r} has ${{{{ }}}} in its run: (pass it through env:)")
        m = re.fullmatch(r'\s*"\$GITHUB_ACTION_PATH/(scripts/[\w.-]+)"\s*', s["run"])
        if not m:
            bad(f"step {s.get('name')!r} must run exactly one \"$GITHUB_ACTION_PATH/scripts/NAME\"")
            continue
        path = os.path.join(root, m.group(1))
        if not os.access(path, os.X_OK):
            bad(f"step {s.get('name')!r} runs {m.group(1)}, which is missing or not executable")
            continue
        scripts[s.get("id", s.get("name"))] = (s, open(path).read())
    elif "uses" in s:
        if not re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+(\.\d+)*", s["uses"]):
            bad(f"step {s.get('name')!r} uses {s['uses']!r}: pin an action to a version (@vN)")
    else:
        bad(f"step {s.get('name')!r} neither runs nor uses anything")

# 2. inputs
declared = set((a.get("inputs") or {}).keys())
used_text = text(steps) + " " + text(a.get("outputs"))
used = set(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", used_text))
for i in sorted(declared - used):
    bad(f"input {i!r} is declared but never used")
for i in sorted(used - declared):
    bad(f"inputs.{i} is used but not declared")
for s in steps:
    for where, val in s.items():
        if where != "env" and "inputs.api-key" in text(val):
            bad(f"step {s.get('name')!r} uses the api-key input in {where}: (only env: may carry it)")

# 3. INPUT_* variables: set == read, per script
for sid, (s, code) in scripts.items():
    code_only = "\n".join(l for l in code.splitlines() if not l.lstrip().startswith("#"))
    read = set(re.findall(r"\bINPUT_[A-Z_]+\b", code_only))
    given = {k for k in (s.get("env") or {}) if k.startswith("INPUT_")}
    for v in sorted(read - given):
        bad(f"step {sid!r}: its script reads {v} but the step does not set it")
    for v in sorted(given - read):
        bad(f"step {sid!r}: sets {v} but its script never reads it")

# 4. outputs and step references
run_code = scripts.get("run", (None, ""))[1]
written = set(re.findall(r'echo "([a-z-]+)=', run_code)) | set(re.findall(r"'([a-z-]+)<<%s", run_code))
for name, o in (a.get("outputs") or {}).items():
    m = re.fullmatch(r"\$\{\{\s*steps\.run\.outputs\.([a-z-]+)\s*\}\}", str(o.get("value", "")))
    if not m:
        bad(f"output {name!r} is not steps.run.outputs.X")
    elif m.group(1) not in written:
        bad(f"output {name!r} reads steps.run.outputs.{m.group(1)}, which scripts/action-run never writes")
for sid, out in re.findall(r"\bsteps\.([A-Za-z0-9_-]+)\.outputs\.([a-z-]+)", text(a)):
    if sid not in ids:
        bad(f"steps.{sid} is referenced but no step has id {sid}")
    elif sid == "run" and out not in written:
        bad(f"steps.run.outputs.{out} is referenced but never written")

# 5. the build's packages
pk = subprocess.run([os.path.join(root, "scripts/action-build"), "--packages"],
                    capture_output=True, text=True, check=True).stdout.split()
listed = open(os.environ["HEW_DEPS_LIST"]).read().split()
for p in pk:
    if p not in listed:
        bad(f"scripts/action-build installs {p}, which scripts/install-deps --runtime --build does not list")
cm = open(os.path.join(root, "CMakeLists.txt")).read()
pcs = {}
for m in re.findall(r"pkg_check_modules\(\s*\w+\s+REQUIRED\s+IMPORTED_TARGET\s+([\w.+-]+)", cm):
    d = subprocess.run(["pkg-config", "--variable=pcfiledir", m], capture_output=True, text=True).stdout.strip()
    pcs[m] = os.path.join(d, m + ".pc") if d else None
r = subprocess.run(["dpkg", "-S"] + [p for p in pcs.values() if p], capture_output=True, text=True)
owner = {l.partition(": ")[2].strip(): l.partition(": ")[0].split(":")[0] for l in r.stdout.splitlines()}
for m, pc in pcs.items():
    pkg = owner.get(pc)
    if not pkg:
        bad(f"pkg-config module {m}: no package on this machine")
    elif pkg not in pk:
        bad(f"CMakeLists.txt needs {m} (package {pkg}); scripts/action-build does not install it")

# 7. docs/ci.md's tables name every input and output, and nothing else
doc = open(os.path.join(root, "docs/ci.md")).read()
for kind in ("input", "output"):
    m = re.search(r"^\| %s \| meaning \|\n\| --- \| --- \|\n((?:\|.*\n)+)" % kind, doc, re.M)
    if not m:
        bad(f"docs/ci.md has no table of the action's {kind}s (| {kind} | meaning |)")
        continue
    documented = set()
    for row in m.group(1).splitlines():
        documented |= set(re.findall(r"`([a-z-]+)`", row.split("|")[1]))
    have = set((a.get(kind + "s") or {}).keys())
    for n in sorted(have - documented):
        bad(f"docs/ci.md does not document the {kind} {n!r}")
    for n in sorted(documented - have):
        bad(f"docs/ci.md documents an {kind} {n!r} that action.yml does not have")

for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

# scripts/install-deps' runtime and build groups, asked once for every run of the checker.
"$root/scripts/install-deps" --runtime --build --list >"$work/deps" || fail "scripts/install-deps --list"
export HEW_DEPS_LIST=$work/deps
check() { python3 "$work/check.py" "$1" "$root"; }
check "$root/action.yml" || fail "action.yml (see above)"

broken() { # broken NAME WANT-IN-OUTPUT PYTHON-EXPR-ON-s
    local d=$work/$1
    mkdir -p "$d"
    python3 -c "import sys; s = open(sys.argv[1]).read(); t = $3; assert t != s, 'no change'; open(sys.argv[2], 'w').write(t)" \
        "$root/action.yml" "$d/action.yml" || fail "$1: could not make the broken copy"
    if check "$d/action.yml" >"$d/out" 2>&1; then
        fail "$1: a broken action.yml passed"
    fi
    grep -qF -- "$2" "$d/out" || fail "$1: refused, but not for '$2': $(cat "$d/out")"
}
broken inline-input 'in its run:' "s.replace('run: \\'\"\$GITHUB_ACTION_PATH/scripts/action-run\"\\'', 'run: \\'\"\$GITHUB_ACTION_PATH/scripts/action-run\" \${{ inputs.args }}\\'')"
broken unused-input "input 'jobs' is declared but never used" "s.replace('        INPUT_JOBS: \${{ inputs.jobs }}\n', '')"
broken missing-env "reads INPUT_SHARD but the step does not set it" "s.replace('        INPUT_SHARD: \${{ inputs.shard }}\n', '        HEW_SHARD: \${{ inputs.shard }}\n')"
broken key-in-with "uses the api-key input in with:" "s.replace('        if-no-files-found: warn', '        if-no-files-found: warn\n        retention-days: \${{ inputs.api-key }}')"
broken output "never writes" "s.replace('steps.run.outputs.cost', 'steps.run.outputs.price')"
broken unpinned "pin an action" "s.replace('actions/upload-artifact@v4', 'actions/upload-artifact@main')"
broken no-shell "without \`shell:\`" "s.replace('      shell: bash\n', '', 1)"
broken doc-output "docs/ci.md does not document the output 'price'" "s.replace('  cost:\n', '  price:\n', 1).replace('steps.run.outputs.cost', 'steps.run.outputs.price')"
broken undeclared "inputs.ref is used but not declared" "s.replace('  ref:\n', '  reference:\n', 1)"
# 6. action-build's inputs: refused with exit 2 before git or apt runs. A git on PATH
#    that records its calls proves nothing was fetched.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "$@" >>"%s/git-called"\nexit 1\n' "$work" >"$work/bin/git"
chmod +x "$work/bin/git"
refuse() { # refuse WANT-IN-STDERR [VAR=VALUE...] [-- ARGS...]
    local want=$1 vars=()
    shift
    while (($#)) && [[ $1 != -- ]]; do vars+=("$1"); shift; done
    (($#)) && shift
    env -u INPUT_REF -u HEW_REPOSITORY PATH="$work/bin:$PATH" RUNNER_TEMP="$work" \
        GITHUB_OUTPUT="$work/ab-out" "${vars[@]}" \
        "$root/scripts/action-build" "$@" >"$work/ab-stdout" 2>"$work/ab-stderr"
    local rc=$?
    [[ $rc -eq 2 ]] || fail "action-build ${vars[*]} $*: exit $rc, want 2: $(cat "$work/ab-stderr")"
    grep -qF -- "$want" "$work/ab-stderr" || fail "action-build ${vars[*]} $*: $(cat "$work/ab-stderr")"
    [[ ! -e $work/git-called ]] || fail "action-build ${vars[*]} $*: git ran: $(cat "$work/git-called")"
    [[ ! -e $work/hew-src && ! -e $work/hew-build ]] || fail "action-build ${vars[*]} $*: started working"
}
refuse "is not a branch, tag or commit name" INPUT_REF=--upload-pack=touch HEW_REPOSITORY=o/hew
refuse "is not a branch, tag or commit name" INPUT_REF=../../etc HEW_REPOSITORY=o/hew
refuse "is not a branch, tag or commit name" INPUT_REF='v1 --force' HEW_REPOSITORY=o/hew
refuse "cannot tell which repository" INPUT_REF=v1 HEW_REPOSITORY='o/hew@evil.example'
refuse "cannot tell which repository" INPUT_REF=v1 GITHUB_REPOSITORY=
refuse "usage: scripts/action-build" -- --bogus
echo "action_yml: ok"
