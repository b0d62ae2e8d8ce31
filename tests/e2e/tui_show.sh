#!/usr/bin/env bash
# End to end: what the interactive terminal shows (issue #20), driven through tmux against
# the fake provider, the screen captured as text. The model's real name in the banner and
# in /model (the provider's default resolved, the known models listed, the current one
# marked), an unknown model warned about with what hew assumes, and `hew config` naming
# the default; a 150-line write_to_file approval on a 40-row terminal: the summary
# "Create b.txt  +150 −0" still on the screen, the diff cut with "… N more lines", line
# numbers in the gutter, the file named on the prompt line, v printing the rest, the
# request's usage line before the question, and a denied edit marked; the status line's
# "% context"; a failed command's exit code; plan_mode_respond's options numbered;
# /restore asking first. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
TMUX_SCROLLBACK=300 TMUX_JOIN=1
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t -S -300 >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tuishow.XXXXXX")
sock=hew-e2e-show-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT
export XDG_DATA_HOME=$work/data

# start_hew SCENARIO [HEW-ARGS...]: the fake provider, then hew in a fresh 100x40 tmux
start_hew() {
    local scen=$1
    shift
    fake_start "$scen" || fail "fake_start $scen"
    rm -rf "$work/ws"; mkdir -p "$work/ws"
    printf 'hello\n' >"$work/ws/a.txt"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1))
    sock=hew-e2e-show-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 40 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         XDG_DATA_HOME='$work/data' TERM=xterm-256color NO_COLOR=1 '$HEW_BIN' --provider anthropic \
         --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10 $*; \
         echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}
visible() { tmux -L "$sock" capture-pane -p -J -t t; } # only the 40 rows on the terminal

# 1. the model: the provider's default by its name, /model lists, an unknown one warned
cat >"$work/s1.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"}]}
JSON
start_hew "$work/s1.json"
screen | grep -q 'anthropic · claude-sonnet-4-5-20250929 (provider default) · act mode' ||
    fail "banner without the default model's name"
keys '/model' Enter
wait_for 'the models hew knows for anthropic' || fail "/model lists no models"
s=$(screen)
grep -q '^model: claude-sonnet-4-5-20250929 (provider default)' <<<"$s" || fail "/model: the name"
grep -Eq '^● claude-sonnet-4-5 +200k context · \$3/\$15 per M tokens' <<<"$s" ||
    fail "/model: the current model not marked"
grep -Eq '^  claude-opus-4-5 +200k context' <<<"$s" || fail "/model: another model not listed"
grep -q 'gpt-4.1' <<<"$s" && fail "/model lists another provider's models"
keys '/model gpt-9-turbo' Enter
wait_for 'model gpt-9-turbo' || fail "/model NAME not taken"
s=$(screen)
grep -q '! hew does not know "gpt-9-turbo": it is used as given, and hew assumes a 128000-token context window' <<<"$s" ||
    fail "/model: no warning about an unknown model"
keys '/model' Enter
wait_for '^model: gpt-9-turbo$' || fail "/model after a switch"
keys '/plan' Enter
wait_for '^plan › ?$' || fail "the prompt does not show plan mode"
keys '/act' Enter
wait_for '^› ?$' || fail "the prompt does not come back to act mode"
# a finished task waiting at the prompt stays completed when /model switches
keys 'say ok' Enter
wait_for 'Done' || fail "no completion"
keys '/model claude-opus-4-5' Enter
wait_for 'model claude-opus-4-5: your next message goes on with this task' ||
    fail "/model did not keep the finished task to go on with"
st=$("$HEW_BIN" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["status"])')
[[ $st == completed ]] || fail "/model rewrote the finished task's status to $st"
# /help: every command's help text starts in one column
keys '/help' Enter
wait_for 'approvals: y yes' || fail "no /help"
python3 - "$(screen)" <<'PY' || fail "/help rows are not aligned"
import sys
rows = [l for l in sys.argv[1].splitlines() if l.startswith("  /")]
cols = set()
for l in rows:
    i = l.find("  ", 2)  # the gap after "/name ARGS"
    if i < 0:
        continue  # a row too wide: its help is on the next line
    cols.add(len(l[:i].rstrip()) + len(l[i:]) - len(l[i:].lstrip()))
assert len(rows) >= 10 and len(cols) == 1, (cols, rows)
PY
stop_hew
# --continue replays the finished task: "✓ Done" once, not for its ask again
start_hew "$work/s1.json" --continue
wait_for 'this task was completed' || fail "--continue: no resume ask"
[[ $(screen | grep -c '✓ Done') == 1 ]] || fail "--continue shows ✓ Done more than once"
stop_hew
cfg=$(XDG_CONFIG_HOME=$work/cfg "$HEW_BIN" config --provider gemini 2>&1)
grep -Eq '^model +gemini-2.5-pro \(provider default\)' <<<"$cfg" || fail "hew config: $cfg"

# 2. a 150-line file at an approval on 40 rows
python3 - "$work/s2.json" <<'PY'
import json, sys
body = "".join("line %d\n" % i for i in range(1, 151))
json.dump({"responses": [
  {"protocol": "anthropic", "text": "<write_to_file>\n<path>b.txt</path>\n<content>\n" + body + "</content>\n</write_to_file>",
   "usage": {"input": 4321, "output": 99}},
  {"protocol": "anthropic", "delay_first_byte_ms": 2500, "headers_first": True,
   "text": "<write_to_file>\n<path>c.txt</path>\n<content>\nsmall\n</content>\n</write_to_file>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>done</result>\n</attempt_completion>"}]},
  open(sys.argv[1], "w"))
PY
start_hew "$work/s2.json" --model claude-sonnet-4-5
keys 'write the files' Enter
wait_for 'Allow\?' || fail "no approval"
v=$(visible)
grep -Eq '^● Create b.txt  \+150 −0$' <<<"$v" || fail "the summary with its counts is not on the screen"
grep -Eq '^ +1 \+line 1$' <<<"$v" || fail "no line numbers in the gutter"
grep -Eq '… [0-9]+ more lines — v shows them all' <<<"$v" || fail "no more-lines note"
grep -Eq 'Allow\? Create b.txt · y yes · n no · a always for file edits · v all lines' <<<"$v" ||
    fail "the prompt does not name the file"
grep -q 'line 150' <<<"$v" && fail "the diff was not cut"
# the request's usage is shown with it, before its question
u=$(grep -n '4321 in · 99 out' <<<"$v" | cut -d: -f1)
a=$(grep -n '^● Create b.txt' <<<"$v" | cut -d: -f1)
[[ -n $u && $u -lt $a ]] || fail "the usage line is not before the approval ($u, $a)"
keys v Enter
wait_for '^ +150 \+line 150$' || fail "v did not show the rest"
wait_for 'Allow\?.*›[^›]*Allow\?' 1 && true
keys n Enter
wait_for '✗ denied' || fail "the denied edit is not marked"
# the next request waits for its first byte: the status line says how full the context is
wait_for 'waiting for the model · [0-9]+s · 2% context  · Ctrl-C to stop' ||
    fail "no context use in the status line"
grep -q '4321 in · 99 out · \$0.0144 (task \$0.0144) · 2% context' <<<"$(screen)" ||
    fail "no context use on the usage line"
wait_for 'Allow\? Create c.txt' || fail "no second approval"
[[ -e $work/ws/b.txt ]] && fail "the denied file was written"
stop_hew

# 3. a failed command's exit code; a plan's options numbered, a number picking one
cat >"$work/s3.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<execute_command>\n<command>echo some output; exit 2</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>ran it</result>\n</attempt_completion>"}
]}
JSON
start_hew "$work/s3.json" --model claude-sonnet-4-5
keys 'run it' Enter
wait_for 'Allow\? \$ echo some output; exit 2' || fail "no command approval naming the command"
keys y Enter
wait_for '^  ✗ exit 2$' || fail "the command's exit code is not shown"
s=$(screen)
grep -q '^  some output$' <<<"$s" || fail "the command's output is not indented"
grep -q '^some output' <<<"$s" && fail "the command's output was drawn unindented"
wait_for 'ran it' || fail "no completion after the command"
stop_hew
cat >"$work/s4.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<plan_mode_respond>\n<response>Two ways to do it.</response>\n<options>[\"Use a list\", \"Use a table\"]</options>\n</plan_mode_respond>"},
  {"protocol": "anthropic", "text": "<plan_mode_respond>\n<response>A table it is.</response>\n</plan_mode_respond>"}
]}
JSON
start_hew "$work/s4.json" --model claude-sonnet-4-5 --plan
keys 'how should I show it' Enter
wait_for 'a number picks an option' || fail "no hint for the plan's options"
s=$(screen)
grep -q '^  1\. Use a list$' <<<"$s" && grep -q '^  2\. Use a table$' <<<"$s" ||
    fail "the plan's options are not shown numbered"
keys 2 Enter
wait_for 'A table it is' || fail "the plan did not go on"
python3 - "$FAKE_RECORD" <<'PY' || fail "the picked option did not reach the model"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert "Use a table" in json.dumps(reqs[1]["body"]["messages"][-1]), reqs[1]["body"]["messages"][-1]
PY
stop_hew
echo ok
