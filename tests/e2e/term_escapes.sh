#!/usr/bin/env bash
# End to end: nothing hostile reaches the terminal. Escape sequences and control
# characters (OSC 52 clipboard writes, OSC 0 titles, OSC 8 links, CSI 2J, SGR 8 concealed
# text, C1 controls as UTF-8, bidi overrides, bells, backspaces, a lone CR) come from
# every source — the model's streamed text (cut into 3-byte deltas, so sequences are
# split between them), a file name the model reads, a command's output, an MCP server's
# answer and name, a provider's error body, the completion result, a file's contents in
# an edit's diff, the task's title — and are checked in every output mode, on the raw
# bytes hew wrote:
#   - `hew -p --verbose` to a pipe: no ESC at all, the sequences shown as ^[…;
#   - `hew -p` and `hew -p --verbose` on a terminal (under script(1)): only hew's own SGR
#     colours, the result sanitised;
#   - the interactive terminal (under script(1) inside tmux): only hew's own SGR and the
#     screen's cursor controls, the approval diff sanitised;
#   - `hew -p` to a pipe: the result byte-exact (the escapes still there), --json exact;
#   - a provider's error and the note on an unknown model's name on standard error;
#   - hew history / history show / diff / mcp list: sanitised reports; hew diff
#     to a pipe byte-exact.
# A checker decodes every ESC in the captured bytes and fails on any that hew itself
# does not write (its SGR codes never include 8), on OSC/DCS/APC/PM/SOS, CSI 2J, BEL,
# C1 controls (both encodings), bidi overrides and invalid UTF-8.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "no python3"
command -v script >/dev/null || { echo "skip: no script(1)"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-esc.XXXXXX")
sock=hew-e2e-esc-$$
cleanup() {
    command -v tmux >/dev/null && tmux -L "$sock" kill-server 2>/dev/null
    fake_stop
    rm -rf -- "$work"
}
[[ -n ${KEEP:-} ]] || trap cleanup EXIT # KEEP=1: leave the captures in $work to look at
mkdir -p "$work/config/hew" "$work/data" "$work/state"
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state
export ANTHROPIC_API_KEY=e2e-esc-key NO_COLOR= TERM=xterm-256color SHELL=/bin/bash

# ---- the hostile material: one marker per source, made by python so every byte is exact
python3 - "$work" <<'PY' || fail "cannot write the test material"
import base64, json, os, sys
work = sys.argv[1]
def mark(src):
    """Every kind of hostile sequence, tagged with the source it comes from."""
    return ("\x1b]52;c;" + base64.b64encode(("PWNED-" + src).encode()).decode() + "\x07"
            + "\x1b]0;PWNED-" + src + "\x1b\\"
            + "\x1b[2J\x1b[H"
            + "\x1b[8mHIDDEN-" + src + "\x1b[28m"
            + " \x1b]8;;http://evil.example/" + src + "\x1b\\link-" + src + "\x1b]8;;\x1b\\"
            + " \x1bP1$qm\x1b\\ \x1b_apc\x1b\\"
            + " \u009d0;C1-" + src + "\u009c \u202ebidi-" + src
            + " bell\x07 back\x08\x08 safe-" + src + "\roverwritten-" + src)
def mcp_mark(src):  # short: an MCP answer's first line is cut at 200 bytes
    return "\x1b]0;PWNED-" + src + "\x07\x1b[2J\x1b[8mHIDDEN-" + src + "\x1b[28m\u009b31m"
name = "name\x1b]0;PWNED-name\x07.txt"
os.makedirs(work + "/ws", exist_ok=True)
open(work + "/ws/" + name, "w").write("a file with a hostile name\n")
open(work + "/ws/evil.txt", "w").write("first line\n" + mark("file") + "\nlast line\n")
open(work + "/ws/cmd.txt", "w").write(mark("cmd") + "\n")
for src in ("text", "done", "err", "file", "cmd"):
    open(work + "/mark." + src, "w").write(mark(src))
open(work + "/mark.mcp", "w").write(mcp_mark("mcp"))
def t(text, **kw):
    return dict(protocol="anthropic", text=text, **kw)
steps = [
    t("Intro " + mark("text") + "\n\n<read_file>\n<path>" + name + "</path>\n</read_file>",
      delta_size=3),
    t("<execute_command>\n<command>cat cmd.txt</command>\n"
      "<requires_approval>false</requires_approval>\n</execute_command>"),
    t("<use_mcp_tool>\n<server_name>evil</server_name>\n<tool_name>hostile</tool_name>\n"
      "<arguments>{}</arguments>\n</use_mcp_tool>"),
    t("<replace_in_file>\n<path>evil.txt</path>\n<diff>\n------- SEARCH\nlast line\n=======\n"
      "last line, changed\n+++++++ REPLACE\n</diff>\n</replace_in_file>"),
    t("<attempt_completion>\n<result>\n" + mark("done") + "\n</result>\n</attempt_completion>"),
]
json.dump({"responses": steps}, open(work + "/task.json", "w"))
err = {"status": 400, "body": {"type": "error", "error": {
    "type": "invalid_request_error", "message": "bad request " + mark("err")}}}
json.dump({"responses": [err]}, open(work + "/err.json", "w"))
server = r'''
import json, sys
MARK = open(sys.argv[1]).read()
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if "id" not in m or "method" not in m: continue
    meth, r = m["method"], None
    if meth == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "evil\x1b]0;PWNED-mcpname\x07\x1b[2J", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "hostile", "description": "hostile \x1b]0;PWNED-desc\x07",
                        "inputSchema": {"type": "object", "properties": {}}}]}
    elif meth == "tools/call":
        r = {"content": [{"type": "text", "text": MARK + "\nsecond line"}]}
    elif meth == "ping":
        r = {}
    if r is None:
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})
    else:
        send({"jsonrpc": "2.0", "id": m["id"], "result": r})
'''
open(work + "/server.py", "w").write(server)
json.dump({"mcpServers": {"evil": {"command": sys.executable,
                                   "args": [work + "/server.py", work + "/mark.mcp"]}}},
          open(work + "/config/hew/mcp.json", "w"))
PY
title=$'Escape test \e]0;PWNED-title\a\e[2J\e[8mHIDDEN-title\e[28m'

# check MODE FILE [VISIBLE...]: the bytes hew wrote hold nothing hostile, and each VISIBLE
# text (the sanitised form of a marker) is there once hew's own SGR codes are taken out.
#   MODE plain: no ESC at all; tty: hew's SGR only; interactive: hew's SGR and the cursor
#   controls of its screen and line editor.
check() {
    python3 - "$@" <<'PY'
import re, sys
mode, path, visible = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(path, "rb").read()
bad = []
HEW_SGR = {0, 1, 2, 3, 4, 9, 31, 32, 33, 34, 35, 36}   # what hew writes; never 8
CSI = re.compile(rb"\x1b\[([0-9;?]*)([@-~])")
i = 0
while True:
    i = data.find(b"\x1b", i)
    if i < 0:
        break
    m = CSI.match(data, i)
    if mode == "plain":
        bad.append("an ESC at %d: %r" % (i, data[i:i + 24]))
    elif not m:
        bad.append("an escape that is not a CSI at %d: %r" % (i, data[i:i + 24]))
    else:
        params, final = m.group(1), m.group(2)
        if final == b"m":
            codes = [int(c) if c else 0 for c in params.split(b";")] if not params.startswith(b"?") else [-1]
            if any(c not in HEW_SGR for c in codes):
                bad.append("an SGR hew does not write at %d: %r" % (i, m.group(0)))
        elif mode != "interactive":
            bad.append("a CSI on a plain transcript at %d: %r" % (i, m.group(0)))
        elif final not in b"ABCDGKJhl" or (final == b"J" and params not in (b"", b"0")) \
                or (final in b"hl" and params not in (b"?25", b"?2004", b"?1")):
            bad.append("a CSI hew does not write at %d: %r" % (i, m.group(0)))
    i += 1
for j, c in enumerate(data):
    if c == 0x07:
        bad.append("a BEL at %d: %r" % (j, data[max(0, j - 20):j + 4]))
    elif c == 0x08 and mode != "interactive":
        bad.append("a backspace at %d" % j)
    elif c == 0x0d and mode != "interactive" and data[j + 1:j + 2] != b"\n":
        bad.append("a lone CR at %d: %r" % (j, data[max(0, j - 20):j + 20]))
    elif (c < 0x20 and c not in (0x07, 0x08, 0x09, 0x0a, 0x0d, 0x1b)) or c == 0x7f:
        bad.append("control byte 0x%02x at %d" % (c, j))
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    bad.append("invalid UTF-8: %s" % e)
    text = data.decode("utf-8", "replace")
for ch in text:
    o = ord(ch)
    if 0x80 <= o <= 0x9f or 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069 or 0xe0000 <= o <= 0xe007f:
        bad.append("code point U+%04X" % o)
plain = re.sub(r"\x1b\[[0-9;?]*[@-~]", "", text)
for v in visible:
    if v not in plain:
        bad.append("not shown: %r" % v)
if bad:
    print("%s (%s):" % (path, mode), *bad[:12], sep="\n  ", file=sys.stderr)
    sys.exit(1)
PY
}
# exact FILE MARKFILE: FILE holds the marker's bytes unchanged.
exact() {
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); m = open(sys.argv[2], "rb").read(); sys.exit(0 if m in d else 1)' "$1" "$2"
}
# What the sanitiser makes of mark(src), in part: each kind of sequence shown.
shown() {
    local s=$1
    printf '%s\n' "^[]52;c;$(printf 'PWNED-%s' "$s" | base64)^G" "^[]0;PWNED-$s^[\\" "^[[2J^[[H" "HIDDEN-$s" "^[]8;;http://evil.example/$s^[\\link-$s^[]8;;^[\\" \
        "^[P1\$qm^[\\ ^[_apc^[\\" "<U+009D>0;C1-$s<U+009C> <U+202E>bidi-$s" "bell^G back^H^H safe-$s"
}
visible_args() { local s; for s in "$@"; do mapfile -t -O "${#vis[@]}" vis < <(shown "$s"); done; }

hew_p() { # the task through hew -p (extra flags after)
    "$HEW_BIN" -p "$title" --provider anthropic --model claude-sonnet-4-5 --base-url "$FAKE_URL" \
        --cwd "$work/ws" --xml-tools --retry-delay-ms 10 --timeout 60 "$@"
}
reset_ws() { cp "$work/ws/evil.orig" "$work/ws/evil.txt"; }
cp "$work/ws/evil.txt" "$work/ws/evil.orig"
# the shell function as a command for script(1)
export -f hew_p
export HEW_BIN title work

# 1. hew -p --verbose to a pipe: the transcript (stderr) has no escape at all; the result
#    (stdout) is byte-exact.
fake_start "$work/task.json" || fail "fake_start"
hew_p --yolo --verbose >"$work/p_verbose.out" 2>"$work/p_verbose.err" ||
    fail "hew -p --verbose failed: $(tail -5 "$work/p_verbose.err")"
fake_stop
vis=()
visible_args text cmd done
vis+=("^[]0;PWNED-name^G.txt" "^[]0;PWNED-mcp^G^[[2J" "HIDDEN-mcp<U+009B>31m")
check plain "$work/p_verbose.err" "${vis[@]}" || fail "hew -p --verbose to a pipe let escapes through"
exact "$work/p_verbose.out" "$work/mark.done" || fail "hew -p to a pipe changed the result's bytes"
grep -q 'last line, changed' "$work/ws/evil.txt" || fail "the task's edit did not happen"
id=$("$HEW_BIN" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])') ||
    fail "no task id"

# 2. the same on a terminal (script(1) gives hew a pty and keeps what it wrote): colours
#    are hew's; the result is sanitised.
reset_ws
fake_start "$work/task.json" || fail "fake_start"
FAKE_URL=$FAKE_URL script -qfec 'hew_p --yolo --verbose' "$work/tty_verbose.raw" </dev/null >/dev/null ||
    fail "hew -p --verbose on a terminal failed: $(tail -c 600 "$work/tty_verbose.raw")"
fake_stop
grep -q $'\e\\[' "$work/tty_verbose.raw" || fail "no colour on a terminal: the test would not see hew's escapes"
check tty "$work/tty_verbose.raw" "${vis[@]}" || fail "hew -p --verbose on a terminal let escapes through"
reset_ws
fake_start "$work/task.json" || fail "fake_start"
FAKE_URL=$FAKE_URL script -qfec 'hew_p --yolo' "$work/tty.raw" </dev/null >/dev/null ||
    fail "hew -p on a terminal failed: $(tail -c 600 "$work/tty.raw")"
fake_stop
vis=()
visible_args done
check tty "$work/tty.raw" "${vis[@]}" || fail "hew -p on a terminal printed the result raw"

# 3. --json to a pipe: JSON, with the model's exact text inside.
reset_ws
fake_start "$work/task.json" || fail "fake_start"
hew_p --yolo --json >"$work/events.jsonl" 2>"$work/json.err" || fail "hew -p --json failed"
fake_stop
python3 - "$work/events.jsonl" "$work/mark.done" <<'PY' || fail "--json does not carry the exact result"
import json, sys
mark = open(sys.argv[2], newline="").read()
ends = [json.loads(l) for l in open(sys.argv[1]) if '"task_end"' in l]
assert ends and mark in ends[-1]["result"], ends
PY

# 4. a provider's error body: sanitised on standard error, in a pipe and on a terminal
#    (the library already blanks its C0 controls; C1 and bidi are hew's to catch).
fake_start "$work/err.json" || fail "fake_start"
hew_p >/dev/null 2>"$work/err.err" && fail "a task with a failing provider succeeded"
fake_stop
grep -q 'PWNED-err' "$work/err.err" || fail "the provider's error is not shown: $(cat "$work/err.err")"
check plain "$work/err.err" "<U+009D>0;C1-err<U+009C> <U+202E>bidi-err" "HIDDEN-err" || fail "a provider's error reached stderr raw"
fake_start "$work/err.json" || fail "fake_start"
FAKE_URL=$FAKE_URL script -qfec 'hew_p --verbose' "$work/err_tty.raw" </dev/null >/dev/null
fake_stop
check tty "$work/err_tty.raw" "<U+009D>0;C1-err<U+009C> <U+202E>bidi-err" "HIDDEN-err" || fail "a provider's error reached the terminal raw"
# a model's name hew does not know is named in a note (it may come from a project's config)
fake_start "$work/err.json" || fail "fake_start"
"$HEW_BIN" -p hi --provider anthropic --model $'x\e]0;PWNED-model\a' --base-url "$FAKE_URL" \
    --cwd "$work/ws" >/dev/null 2>"$work/model.err"
fake_stop
check plain "$work/model.err" '"x^[]0;PWNED-model^G"' || fail "a model's name reached stderr raw"

# 5. the commands that print stored content: sanitised reports; the patch of hew diff and
#    the JSON exact when piped.
"$HEW_BIN" history >"$work/history.out" 2>&1 || fail "hew history"
check plain "$work/history.out" "^[]0;PWNED-title^G^[[2JHIDDEN-title" || fail "hew history printed a title raw"
"$HEW_BIN" history show "$id" >"$work/show.out" 2>&1 || fail "hew history show"
vis=()
visible_args text cmd done
check plain "$work/show.out" "${vis[@]}" "^[]0;PWNED-mcp^G^[[2J" || fail "hew history show printed the conversation raw"
"$HEW_BIN" history show --json "$id" >"$work/show.json" || fail "hew history show --json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/show.json" || fail "show --json is not JSON"
"$HEW_BIN" checkpoints "$id" >"$work/cps.out" 2>&1 || fail "hew checkpoints: $(cat "$work/cps.out")"
check plain "$work/cps.out" || fail "hew checkpoints let escapes through"
last=$(grep -cE '^ +[0-9]+ ' "$work/cps.out")
"$HEW_BIN" diff "$id" 1 "$last" >"$work/diff.out" 2>&1 || fail "hew diff: $(cat "$work/diff.out")"
grep -q 'last line, changed' "$work/diff.out" || fail "hew diff shows no change: $(cat "$work/diff.out")"
exact "$work/diff.out" "$work/mark.file" || fail "hew diff to a pipe changed the patch's bytes"
script -qfec "\"\$HEW_BIN\" diff $id 1 $last" "$work/diff_tty.raw" </dev/null >/dev/null || fail "hew diff on a terminal"
vis=()
visible_args file
check tty "$work/diff_tty.raw" "${vis[@]}" || fail "hew diff on a terminal printed the files' escapes"
"$HEW_BIN" mcp list --cwd "$work/ws" >"$work/mcp.out" 2>&1 || fail "hew mcp list: $(cat "$work/mcp.out")"
check plain "$work/mcp.out" "evil^[]0;PWNED-mcpname^G^[[2J" || fail "hew mcp list printed the server's name raw"

# 6. the interactive terminal, under script(1) inside tmux: the model's text, the file
#    name, the command's output, the MCP answer, the approval diff of the hostile file
#    and the completion, all through the screen.
if ! command -v tmux >/dev/null; then
    echo "skip (interactive part): no tmux"
    echo ok
    exit 0
fi
reset_ws
fake_start "$work/task.json" || fail "fake_start"
cat >"$work/run_tty.sh" <<SH
exec script -qfec '"$HEW_BIN" --provider anthropic --model claude-sonnet-4-5 --xml-tools \
    --base-url "$FAKE_URL" --cwd "$work/ws" --retry-delay-ms 10' "$work/interactive.raw"
SH
tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 50 \
    "bash '$work/run_tty.sh'; echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
pane() { tmux -L "$sock" capture-pane -p -t t -S -400; }
wait_for() { # PATTERN [SECONDS]
    local i
    for ((i = 0; i < ${2:-20} * 20; i++)); do
        pane | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
wait_for 'Ctrl-D to leave' || fail "no banner: $(pane)"
tmux -L "$sock" send-keys -t t 'Run the escape test' Enter
answered=0
for ((i = 0; i < 1200; i++)); do # approve whatever asks, until the task is done
    screen=$(pane)
    grep -q 'Done' <<<"$screen" && break
    asks=$(grep -c 'Allow?' <<<"$screen")
    if ((asks > answered)); then
        tmux -L "$sock" send-keys -t t y Enter
        answered=$asks
    fi
    sleep 0.05
done
wait_for 'Done' 5 || fail "the interactive task did not finish: $(pane)"
wait_for '^› ?$' 10 || fail "no prompt after the task: $(pane)"
tmux -L "$sock" send-keys -t t C-d
wait_for 'EXIT=0' 10 || fail "hew did not leave cleanly: $(pane)"
fake_stop
grep -q 'last line, changed' "$work/ws/evil.txt" || fail "the approved edit did not happen"
vis=()
for s in text cmd done file; do vis+=("HIDDEN-$s" "PWNED-$s" "bell^G" "back^H^H"); done
vis+=("^[]0;PWNED-name^G.txt" "^[]0;PWNED-mcp^G^[[2J" "HIDDEN-mcp<U+009B>31m" "^[[2J^[[H")
check interactive "$work/interactive.raw" "${vis[@]}" || fail "the interactive terminal let escapes through"
echo ok
