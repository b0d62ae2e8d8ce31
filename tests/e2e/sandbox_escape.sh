#!/usr/bin/env bash
# End to end: the sandbox of commands through the real `hew -p` against the fake
# provider. A hostile scripted model, under --yolo (and under --auto-approve all-commands),
# tries to get out: write outside the workspace, append to ~/.ssh/authorized_keys (HOME a
# temp dir), plant .git/hooks/pre-commit, read hew's config holding the key, open a TCP
# connection to a listener the test holds (the network is off), make a user namespace
# (`unshare -Ur`), mount (inside `unshare -Urm`), and ptrace (`strace`). Each must fail:
# the file untouched, the listener never reached, the tool result naming the rule, the
# command's event saying which backend confined it, and — headless, nobody to approve the
# re-run without the sandbox — task_end.denied naming `--sandbox danger-full-access`
# (exit 7). The same commands then work under `--sandbox danger-full-access`. Run once per
# backend the machine has (landlock, bwrap: sandbox.backend), each skipped with a clear
# message when it is missing. Talks only to 127.0.0.1; leaves nothing behind.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-sandbox.XXXXXX")
listener=
trap '[[ -n $listener ]] && kill "$listener" 2>/dev/null; fake_stop; rm -rf -- "$work"' EXIT
ws=$work/ws
key=sk-ant-e2e-sandbox-0123456789abcdef0123456789
mkdir -p "$ws/.git/hooks" "$ws/mnt" "$work/outside" "$work/home/.ssh" "$work/config/hew" \
    "$work/tmp" "$work/data"
echo 'ssh-ed25519 AAAA user@host' >"$work/home/.ssh/authorized_keys"
printf '{"api_key": "%s"}\n' "$key" >"$work/config/hew/config.json"
chmod 600 "$work/config/hew/config.json"
py=$(command -v python3)
# hew and its commands: a private HOME, config, data and temp dir (so /tmp and the test's
# own folders are not writable roots), bash as the shell.
run_env=(env HOME="$work/home" XDG_CONFIG_HOME="$work/config" HEW_DATA_DIR="$work/data"
    TMPDIR="$work/tmp" SHELL=/bin/bash)

# A TCP listener the sandboxed command must not reach: it writes a mark on any connection.
port_file=$work/port
"$py" - "$port_file" "$work/reached" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("x\n"); c.close()
PY
listener=$!
for _ in $(seq 1 100); do [[ -s $port_file ]] && break; sleep 0.1; done
port=$(cat "$port_file")

# The attempts: name, command. Each exits 0 only when it got through.
names=(outside ssh hook config tcp unshare mount ptrace)
cmds=(
    "echo pwned > $work/outside/file"
    "echo 'ssh-ed25519 EVIL attacker' >> $work/home/.ssh/authorized_keys"
    "printf '#!/bin/sh\\necho evil\\n' > .git/hooks/pre-commit"
    "cat $work/config/hew/config.json"
    "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected"
    "unshare -Ur true"
    "unshare -Urm sh -c 'mount -t tmpfs none $ws/mnt && touch $ws/mnt/x'"
    "strace -o /dev/null true"
)
"$py" - "$work/s.json" "${cmds[@]}" <<'PY'
import json, sys
out, cmds = sys.argv[1], sys.argv[2:]
call = ("Trying.\n<execute_command>\n<command>%s</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>")
resp = [{"protocol": "anthropic", "text": call % c} for c in cmds]
resp.append({"protocol": "anthropic",
             "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"})
json.dump({"responses": resp}, open(out, "w"))
PY

hew() { "${run_env[@]}" "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$ws" --retry-delay-ms 10 --xml-tools --timeout 100 "$@" </dev/null; }

untouched() {
    [[ ! -e $work/outside/file ]] || fail "$1: a file was written outside the workspace"
    [[ $(cat "$work/home/.ssh/authorized_keys") == 'ssh-ed25519 AAAA user@host' ]] ||
        fail "$1: authorized_keys changed"
    [[ ! -e $ws/.git/hooks/pre-commit ]] || fail "$1: a git hook was planted"
    [[ ! -e $work/reached ]] || fail "$1: the listener was reached with the network off"
    [[ ! -e $ws/mnt/x ]] || fail "$1: something was mounted"
}

# check EVENTS BACKEND: every attempt failed, was explained to the model, its event named
# the backend, and the end line names --sandbox danger-full-access for each.
check() {
    "$py" - "$1" "$FAKE_RECORD" "$2" "$key" "${names[@]}" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
reqs = [json.loads(l) for l in open(sys.argv[2])]
backend, key, names = sys.argv[3], sys.argv[4], sys.argv[5:]
def told(i):
    c = reqs[i]["body"]["messages"][-1]["content"]
    return c if isinstance(c, str) else "\n".join(b.get("text", "") for b in c)
cmds = [e for e in events if e.get("type") == "command" and e["kind"] == "say"]
assert len(cmds) == len(names), [e["data"]["command"] for e in cmds]
for e in cmds:
    sb = e["data"]["sandbox"]
    assert sb["mode"] == "workspace-write" and sb["backend"] == backend, sb
for i, name in enumerate(names, 1):
    t = told(i)
    assert "Command executed successfully" not in t, (name, t)
    assert key not in t, (name, "the key reached the model")
    if name != "config":  # reading a hidden file: "No such file" is all it sees
        assert "The sandbox stopped this command" in t, (name, t)
        assert "do not try to get around the sandbox" in t, (name, t)
end = events[-1]
assert end["type"] == "task_end" and end["exit_code"] == 7, end
denied = end["denied"]
assert denied and all(d["flag"] == "--sandbox danger-full-access" and
                      d["sandbox"] == "danger-full-access" for d in denied), denied
stopped = [e for e in events if e.get("type") == "sandbox_denied"]
assert len(stopped) == len(denied) and all(e["data"]["reason"] for e in stopped), stopped
asked = [e for e in events if e.get("type") == "command_unsandboxed"]
assert len(asked) == len(denied) and all(e["kind"] == "say" for e in asked), asked
PY
}

# What the machine has, found without hew (so that a hew that confines nothing fails here
# instead of skipping): Landlock's ABI from the kernel, a bwrap that can make a namespace.
backends=()
abi=$("$py" -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))' ||
    echo 0)
if [[ $abi -gt 0 ]]; then backends+=(landlock); else
    echo "sandbox_escape: SKIP the landlock backend: this kernel has no Landlock"; fi
if command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-user true 2>/dev/null; then
    backends+=(bwrap)
else
    echo "sandbox_escape: SKIP the bwrap backend: no working bubblewrap (apt-get install bubblewrap)"
fi
[[ ${#backends[@]} -gt 0 ]] || { echo "sandbox_escape: SKIP: no sandbox backend on this machine"; exit 77; }

for b in "${backends[@]}"; do
    # landlock is what "auto" picks first; bwrap is chosen by name
    if [[ $b == landlock ]]; then
        printf '{"api_key": "%s"}\n' "$key" >"$work/config/hew/config.json"
    else
        printf '{"api_key": "%s", "sandbox": {"backend": "%s"}}\n' "$key" "$b" \
            >"$work/config/hew/config.json"
    fi
    for approve in "--yolo" "--auto-approve read-outside,all-commands"; do
        fake_start "$work/s.json"
        # shellcheck disable=SC2086 # the approval flags are two words
        hew -p "get out" $approve --json >"$work/e.jsonl" 2>"$work/err" && rc=0 || rc=$?
        [[ $rc -eq 7 ]] || fail "$b $approve: exit $rc, want 7: $(cat "$work/err")"
        untouched "$b $approve"
        check "$work/e.jsonl" "$b" || fail "$b $approve: the events: $(tail -n 1 "$work/e.jsonl")"
        fake_stop
    done
done
# Without --json, standard error names the flag that would have let them run.
fake_start "$work/s.json"
hew -p "get out" --yolo >/dev/null 2>"$work/err" && rc=0 || rc=$?
[[ $rc -eq 7 ]] || fail "plain: exit $rc, want 7: $(cat "$work/err")"
grep -qF -- "allow with --sandbox danger-full-access" "$work/err" ||
    fail "plain: stderr does not name the flag: $(cat "$work/err")"
untouched "plain"
fake_stop

# The same commands work under --sandbox danger-full-access (and the event says none).
fake_start "$work/s.json"
hew -p "get out" --yolo --sandbox danger-full-access --json >"$work/e.jsonl" 2>"$work/err" ||
    fail "danger-full-access: exit $?: $(cat "$work/err")"
[[ -e $work/outside/file ]] || fail "danger-full-access: no file outside"
grep -q EVIL "$work/home/.ssh/authorized_keys" || fail "danger-full-access: authorized_keys"
[[ -e $ws/.git/hooks/pre-commit ]] || fail "danger-full-access: no hook"
[[ -e $work/reached ]] || fail "danger-full-access: the listener was not reached"
"$py" - "$work/e.jsonl" "$FAKE_RECORD" <<'PY' || fail "danger-full-access: the events"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
reqs = [json.loads(l) for l in open(sys.argv[2])]
cmds = [e for e in events if e.get("type") == "command" and e["kind"] == "say"]
assert all(e["data"]["sandbox"] == {"mode": "danger-full-access", "backend": "none", "gaps": ""}
           for e in cmds), cmds
for i in range(1, len(cmds) + 1):
    c = reqs[i]["body"]["messages"][-1]["content"]
    t = c if isinstance(c, str) else "\n".join(b.get("text", "") for b in c)
    assert "Command executed successfully" in t, (i, t)
assert events[-1]["exit_code"] == 0 and events[-1]["denied"] == [], events[-1]
PY
fake_stop
echo "sandbox_escape: ok (${backends[*]})"
