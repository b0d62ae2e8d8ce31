#!/usr/bin/env bash
# End to end: a workspace's hooks run only once the user trusts them (docs/hooks.md).
#   1. An untrusted .hew/hooks.json, .claude/settings.json and .clinerules/hooks/ do not
#      run (their markers stay absent) and hew says so; `hew trust --show` lists their
#      commands; after `hew trust` they run.
#   2. A Cline .clinerules/hooks/PreToolUse script answering {"cancel": true} blocks
#      execute_command (the command never runs; its errorMessage reaches the model); it
#      got Cline's JSON (hookName, preToolUse.toolName, preToolUse.parameters).
#   3. A trusted file edited afterwards is untrusted again: its hooks stop running.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-hooktrust.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
export HOME=$work/home
mkdir -p "$work/ws/.hew" "$work/ws/.claude" "$work/ws/.clinerules/hooks" "$work/home" \
    "$work/config/hew"
export ANTHROPIC_API_KEY=sk-e2e-hooktrust-0123456789
ws=$work/ws

python3 - "$work/s.json" "$work" <<'PY'
import json, sys
w = sys.argv[2]
cmd = ("<execute_command>\n<command>touch %s/ran</command>\n<requires_approval>false"
       "</requires_approval>\n</execute_command>") % w
done = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"
json.dump({"responses": [{"protocol": "anthropic", "text": t} for t in (cmd, done)]},
          open(sys.argv[1], "w"))
PY
printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch %s/hew-hook"}]}]}}\n' \
    "$work" >"$ws/.hew/hooks.json"
printf '{"permissions": {"allow": []}, "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "touch %s/claude-hook"}]}]}}\n' \
    "$work" >"$ws/.claude/settings.json"
cat >"$ws/.clinerules/hooks/PreToolUse" <<SH
#!/bin/sh
cat > "$work/cline-last.json"
if grep -q '"toolName":"execute_command"' "$work/cline-last.json"; then
    cp "$work/cline-last.json" "$work/cline-input.json"
    echo '{"cancel": true, "errorMessage": "cline says no to commands", "contextModification": "use files only"}'
else
    cp "$work/cline-last.json" "$work/cline-other.json"
    echo '{"cancel": false}'
fi
SH
chmod +x "$ws/.clinerules/hooks/PreToolUse"

run() { # NAME
    set +e
    "$HEW_BIN" -p "do it" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
        --cwd "$ws" --retry-delay-ms 10 --xml-tools --yolo --json </dev/null \
        >"$work/$1.events" 2>"$work/$1.err"
    rc=$?
    set -e
    cp "$FAKE_RECORD" "$work/$1.requests"
}

# ---- 1. untrusted: nothing runs -------------------------------------------------------------
fake_start "$work/s.json"
run t1
fake_stop
[[ $rc -eq 0 ]] || fail "1: exit $rc: $(cat "$work/t1.err")"
for m in hew-hook claude-hook cline-last.json; do
    [[ ! -e $work/$m ]] || fail "1: an untrusted hook ran ($m)"
done
[[ -e $work/ran ]] || fail "1: the command did not run"
grep -qF 'hooks (.hew/hooks.json, .claude/settings.json, .clinerules/hooks/PreToolUse) are not trusted' \
    "$work/t1.events" || fail "1: no notice: $(grep notice "$work/t1.events" || true)"
set +e
"$HEW_BIN" trust --show "$ws" >"$work/show" 2>&1
set -e
grep -qF "touch $work/hew-hook" "$work/show" || fail "1: trust --show lacks the hook: $(cat "$work/show")"
grep -qF "touch $work/claude-hook" "$work/show" || fail "1: trust --show lacks the Claude hook"
grep -qF ".clinerules/hooks/PreToolUse" "$work/show" || fail "1: trust --show lacks the Cline hook"

# ---- 2. trusted: they run, the Cline hook cancels --------------------------------------------
"$HEW_BIN" trust "$ws" >"$work/trust.out" 2>&1 || fail "hew trust: $(cat "$work/trust.out")"
rm -f "$work/ran"
fake_start "$work/s.json"
run t2
fake_stop
[[ $rc -eq 0 ]] || fail "2: exit $rc: $(cat "$work/t2.err")"
[[ -e $work/hew-hook ]] || fail "2: the trusted .hew/hooks.json did not run"
[[ ! -e $work/ran ]] || fail "2: the command the Cline hook cancelled ran"
[[ ! -e $work/claude-hook ]] || fail "2: PostToolUse ran for a tool that did not run"
python3 - "$work/t2.requests" "$work/cline-input.json" "$work" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
second = json.dumps(reqs[1]["body"]["messages"])
assert "cline says no to commands" in second, second[:3000]
assert "use files only" in second, second[:3000]
inp = json.load(open(sys.argv[2].replace("cline-input", "cline-other")))
assert inp["preToolUse"]["toolName"] == "attempt_completion", inp
inp = json.load(open(sys.argv[2]))
assert inp["hookName"] == "PreToolUse", inp
assert inp["preToolUse"]["toolName"] == "execute_command", inp
assert inp["preToolUse"]["parameters"]["command"] == "touch %s/ran" % sys.argv[3], inp
assert inp["taskId"] and inp["workspaceRoots"], inp
PY
# without the Cline hook the command runs and the Claude-shaped PostToolUse follows
rm -f "$ws/.clinerules/hooks/PreToolUse"
fake_start "$work/s.json"
run t2b
fake_stop
[[ -e $work/ran && -e $work/claude-hook ]] || fail "2: .claude/settings.json's hook did not run"

# ---- 3. edited: untrusted again -----------------------------------------------------------------
rm -f "$work/hew-hook" "$work/claude-hook" "$work/ran"
printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch %s/hew-hook; echo edited"}]}]}}\n' \
    "$work" >"$ws/.hew/hooks.json"
fake_start "$work/s.json"
run t3
fake_stop
[[ ! -e $work/hew-hook ]] || fail "3: an edited (untrusted) hooks file ran"
[[ -e $work/claude-hook ]] || fail "3: the unchanged trusted file stopped running"
echo "ok"
