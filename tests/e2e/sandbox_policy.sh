#!/usr/bin/env bash
# End to end: the sandbox's settings through the real `hew` (headless) against the fake
# provider:
#   1. a project's .hew/config.json setting sandbox.mode = danger-full-access is ignored
#      with a note: the command the model runs unasked stays confined;
#   2. --sandbox with a bad word exits 2 naming the choices; a bad sandbox.mode in the
#      user's file names the file and the key;
#   3. when the sandbox cannot be set up (the bwrap backend, no bwrap on PATH), an
#      auto-approved command is not run unconfined: headless it is denied with
#      --sandbox danger-full-access as the flag; under a mode the user set it fails with
#      the reason;
#   4. `hew config` lists sandbox.* with where each value came from; `hew doctor --json`
#      reports the backend.
#   5. sandbox.allow_hosts: the allowed host through hew's proxy, nothing else.
#   6. sandbox.hidden: a file of the user's (a cloud credential) that a confined command
#      cannot read; the same command reads it under danger-full-access.
# Needs Landlock or bubblewrap for 1 (skipped with a message without either). Talks only
# to 127.0.0.1; leaves nothing behind.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-sbpolicy.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
ws=$work/ws
mkdir -p "$ws/.hew" "$work/outside" "$work/config/hew" "$work/tmp" "$work/data" "$work/bin"
export XDG_CONFIG_HOME=$work/config HEW_DATA_DIR=$work/data ANTHROPIC_API_KEY=e2e-test-key
py=$(command -v python3)

"$py" - "$work/s.json" "touch $work/outside/made" <<'PY'
import json, sys
call = ("Writing.\n<execute_command>\n<command>%s</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>")
json.dump({"responses": [{"protocol": "anthropic", "text": call % sys.argv[2]},
                         {"protocol": "anthropic", "text":
                          "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}]},
          open(sys.argv[1], "w"))
PY
hew() { TMPDIR=$work/tmp SHELL=/bin/sh "$HEW_BIN" --provider anthropic --model claude-e2e \
    --base-url "$FAKE_URL" --cwd "$ws" --retry-delay-ms 10 --xml-tools --timeout 60 "$@" </dev/null; }

# ---- 1. a project cannot widen its own sandbox --------------------------------------------
abi=$("$py" -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))' ||
    echo 0)
if [[ $abi -gt 0 ]] || bwrap --ro-bind / / --unshare-user true 2>/dev/null; then
    printf '{"sandbox": {"mode": "danger-full-access", "network": true}}\n' >"$ws/.hew/config.json"
    fake_start "$work/s.json"
    hew -p "write" --yolo --json >"$work/e1.jsonl" 2>"$work/err1" && rc=0 || rc=$?
    [[ $rc -eq 7 ]] || fail "1: exit $rc, want 7: $(cat "$work/err1")"
    grep -q "sandbox.mode is ignored" "$work/err1" || fail "1: no note: $(cat "$work/err1")"
    grep -q "sandbox.network is ignored" "$work/err1" || fail "1: no note on network"
    [[ ! -e $work/outside/made ]] || fail "1: a project's config let a command out"
    jq -se 'map(select(.type == "command"))[0].data.sandbox.mode == "workspace-write"' \
        "$work/e1.jsonl" >/dev/null || fail "1: the command was not confined"
    fake_stop
    rm "$ws/.hew/config.json"
else
    echo "sandbox_policy: SKIP 1: neither Landlock nor bubblewrap works here"
fi

# ---- 2. bad words -------------------------------------------------------------------------
"$HEW_BIN" -p x --sandbox everything </dev/null >/dev/null 2>"$work/err2" && rc=0 || rc=$?
[[ $rc -eq 2 ]] || fail "2: --sandbox everything exited $rc, want 2"
grep -qF "read-only, workspace-write or danger-full-access" "$work/err2" ||
    fail "2: the choices are not named: $(cat "$work/err2")"
printf '{"sandbox": {"mode": "loose"}}\n' >"$work/config/hew/config.json"
"$HEW_BIN" -p x </dev/null >/dev/null 2>"$work/err3" && rc=0 || rc=$?
[[ $rc -eq 2 ]] || fail "2: a bad sandbox.mode exited $rc, want 2"
grep -qF "$work/config/hew/config.json: sandbox.mode: 'loose' is not one of" "$work/err3" ||
    fail "2: the file and key are not named: $(cat "$work/err3")"

# ---- 3. no sandbox can be set up ----------------------------------------------------------
# A PATH with the shell and touch but no bwrap, and the bwrap backend chosen.
for p in sh bash touch env cat; do ln -s "$(command -v $p)" "$work/bin/$p"; done
printf '{"sandbox": {"backend": "bwrap"}}\n' >"$work/config/hew/config.json"
fake_start "$work/s.json"
PATH=$work/bin hew -p "write" --yolo --json >"$work/e3.jsonl" 2>"$work/err3" && rc=0 || rc=$?
[[ $rc -eq 7 ]] || fail "3: exit $rc, want 7: $(cat "$work/err3")"
[[ ! -e $work/outside/made ]] || fail "3: run unconfined although no sandbox could be set up"
tail -n 1 "$work/e3.jsonl" | jq -e '.denied | length == 1 and .[0].type == "command_unsandboxed"
    and .[0].flag == "--sandbox danger-full-access"' >/dev/null ||
    fail "3: the denied list: $(tail -n 1 "$work/e3.jsonl")"
jq -se 'map(select(.type == "command"))[0].data.sandbox | .backend == "none" and
    (.error | test("bwrap"))' "$work/e3.jsonl" >/dev/null ||
    fail "3: the event does not say why: $(grep '"command"' "$work/e3.jsonl")"
fake_stop
# the user's own mode: not run, the reason given, nothing asked
fake_start "$work/s.json"
PATH=$work/bin hew -p "write" --yolo --sandbox workspace-write --json >"$work/e4.jsonl" \
    2>"$work/err4" || fail "3: explicit mode exited $?: $(cat "$work/err4")"
[[ ! -e $work/outside/made ]] || fail "3: run although the user's mode could not be set up"
"$py" - "$FAKE_RECORD" <<'PY' || fail "3: the model was not told why"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
c = reqs[1]["body"]["messages"][-1]["content"]
t = c if isinstance(c, str) else "\n".join(b.get("text", "") for b in c)
assert "The command was not run: hew could not set up the sandbox (mode workspace-write)" in t, t
PY
jq -se 'map(select(.type == "command_unsandboxed")) == []' "$work/e4.jsonl" >/dev/null ||
    fail "3: asked to leave a sandbox the user chose"
fake_stop

# ---- 4. hew config and hew doctor ---------------------------------------------------------
printf '{"sandbox": {"writable_roots": ["~/cache"], "allow_hosts": ["pypi.org"]}}\n' \
    >"$work/config/hew/config.json"
HOME=$work "$HEW_BIN" config --json --sandbox read-only >"$work/c.json" 2>/dev/null ||
    fail "4: hew config failed"
jq -e --arg f "$work/config/hew/config.json" --arg r "$work/cache" '
    .["sandbox.mode"] == {"value": "read-only", "source": "flag --sandbox"} and
    .["sandbox.writable_roots"] == {"value": [$r], "source": $f} and
    .["sandbox.allow_hosts"].value == ["pypi.org"] and
    .["sandbox.network"] == {"value": false, "source": "default"}' "$work/c.json" >/dev/null ||
    fail "4: hew config: $(cat "$work/c.json")"
rm "$work/config/hew/config.json"
"$HEW_BIN" doctor --json --cwd "$ws" >"$work/d.json" 2>/dev/null || true
jq -e '.sandbox.mode == "auto" and .sandbox.applies == "workspace-write" and
    (.sandbox.backend | IN("landlock", "bwrap", "none")) and
    (.checks | map(.name) | index("sandbox") != null)' "$work/d.json" >/dev/null ||
    fail "4: hew doctor: $(jq -c .sandbox "$work/d.json")"
# ---- 5. sandbox.allow_hosts: the allowed host through hew's proxy, nothing else ----------
if [[ $abi -ge 4 ]] && command -v curl >/dev/null; then
    mkdir -p "$work/site"
    echo "hello from the allowed host" >"$work/site/page.txt"
    "$py" -m http.server 0 --bind 127.0.0.1 --directory "$work/site" >"$work/site.log" 2>&1 &
    site=$!
    for _ in $(seq 1 100); do
        sport=$(grep -o 'port [0-9]*' "$work/site.log" | head -n 1 | cut -d' ' -f2 || true)
        [[ -n $sport ]] && break
        sleep 0.1
    done
    [[ -n $sport ]] || { kill "$site"; fail "5: the test's HTTP server did not start"; }
    printf '{"sandbox": {"allow_hosts": ["127.0.0.1:%s"]}}\n' "$sport" \
        >"$work/config/hew/config.json"
    "$py" - "$work/s5.json" "curl -sf http://127.0.0.1:$sport/page.txt" \
        "curl -sf --noproxy '*' http://127.0.0.1:$sport/page.txt" \
        "curl -sf http://blocked.example/" <<'PY'
import json, sys
call = ("Fetching.\n<execute_command>\n<command>%s</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>")
resp = [{"protocol": "anthropic", "text": call % c} for c in sys.argv[2:]]
resp.append({"protocol": "anthropic",
             "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"})
json.dump({"responses": resp}, open(sys.argv[1], "w"))
PY
    fake_start "$work/s5.json"
    hew -p "fetch" --yolo --json >"$work/e5.jsonl" 2>"$work/err5" && rc=0 || rc=$?
    kill "$site" 2>/dev/null || true
    # completed: a connection the sandbox refuses is a failed command, not a denial
    [[ $rc -eq 0 ]] || fail "5: exit $rc: $(cat "$work/err5")"
    "$py" - "$FAKE_RECORD" <<'PY' || fail "5: the allowed host, and only through the proxy"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
def told(i):
    c = reqs[i]["body"]["messages"][-1]["content"]
    return c if isinstance(c, str) else "\n".join(b.get("text", "") for b in c)
assert "hello from the allowed host" in told(1), told(1)       # through the proxy
assert "hello from the allowed host" not in told(2), told(2)   # straight: refused
assert "Command executed successfully" not in told(2), told(2)
assert "proxy refused: blocked.example" in told(3), told(3)    # named for the model
PY
    fake_stop
    rm "$work/config/hew/config.json"
else
    echo "sandbox_policy: SKIP 5: allow_hosts needs Landlock ABI 4 (this kernel: $abi) and curl"
fi

# ---- 6. sandbox.hidden ------------------------------------------------------------------------
if [[ $abi -gt 0 ]] || bwrap --ro-bind / / --unshare-user true 2>/dev/null; then
    mkdir -p "$work/home/.aws"
    echo "aws_secret_access_key = TOPSECRET-6x9" >"$work/home/.aws/credentials"
    printf '{"sandbox": {"hidden": ["~/.aws"]}}\n' >"$work/config/hew/config.json"
    "$py" - "$work/s6.json" "cat $work/home/.aws/credentials" <<'PY'
import json, sys
call = ("Reading.\n<execute_command>\n<command>%s</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>")
json.dump({"responses": [{"protocol": "anthropic", "text": call % sys.argv[2]},
                         {"protocol": "anthropic", "text":
                          "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}]},
          open(sys.argv[1], "w"))
PY
    HOME=$work/home "$HEW_BIN" config --json >"$work/c6.json" 2>/dev/null || fail "6: hew config"
    jq -e --arg h "$work/home/.aws" '.["sandbox.hidden"].value == [$h]' "$work/c6.json" \
        >/dev/null || fail "6: hew config: $(jq -c '.["sandbox.hidden"]' "$work/c6.json")"
    for mode in workspace-write danger-full-access; do
        fake_start "$work/s6.json"
        HOME=$work/home hew -p "read" --yolo --sandbox $mode --json >"$work/e6.jsonl" \
            2>"$work/err6" && rc=0 || rc=$?
        if [[ $mode == workspace-write ]]; then
            # stopped by the sandbox: headless, nobody approves the unsandboxed re-run
            [[ $rc -eq 7 ]] || fail "6: $mode: exit $rc, want 7: $(cat "$work/err6")"
            jq -se 'map(select(.type == "sandbox_denied")) | length == 1' "$work/e6.jsonl" \
                >/dev/null || fail "6: no sandbox_denied event"
            ! grep -q TOPSECRET-6x9 "$FAKE_RECORD" || fail "6: a hidden file was read"
        else
            [[ $rc -eq 0 ]] || fail "6: $mode: exit $rc: $(cat "$work/err6")"
            grep -q TOPSECRET-6x9 "$FAKE_RECORD" || fail "6: not read under danger-full-access"
        fi
        fake_stop
    done
    printf '{"sandbox": {"hidden": "~/.aws"}}\n' >"$work/config/hew/config.json"
    "$HEW_BIN" -p x </dev/null >/dev/null 2>"$work/err6b" && rc=0 || rc=$?
    [[ $rc -eq 2 ]] || fail "6: a hidden that is not a list exited $rc"
    grep -qF "sandbox.hidden: expected a list of paths" "$work/err6b" ||
        fail "6: the error: $(cat "$work/err6b")"
    rm "$work/config/hew/config.json"
else
    echo "sandbox_policy: SKIP 6: neither Landlock nor bubblewrap works here"
fi
echo "sandbox_policy: ok"
