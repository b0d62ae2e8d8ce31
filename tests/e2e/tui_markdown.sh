#!/usr/bin/env bash
# End to end: the interactive terminal's markdown at 60 columns, driven through tmux
# against the fake provider. An answer with a table wider than the pane (its cells wrapped
# at word boundaries, borders on the same columns on every line, every line within the
# pane), a table with too many columns (shown as "Header: value" lines), a code block
# (its language label shown; a block longer than the screen shown the same while it
# streams), and a question with `code` (shown without backticks). Under
# NO_COLOR the reasoning is set apart by a "│ " prefix on each line, in the terminal and
# in hew -p --verbose's transcript. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
TMUX_SCROLLBACK=400
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t -S -400 >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tuimd.XXXXXX")
sock=hew-e2e-md-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT

# start_hew SCENARIO ENV...: the fake provider, then hew in a 60-column tmux session "t"
start_hew() {
    local scenario=$1
    shift
    fake_start "$scenario" || fail "fake_start"
    mkdir -p "$work/ws"
    tmux -L "$sock" kill-server 2>/dev/null
    nsock=$((${nsock:-0} + 1))
    sock=hew-e2e-md-$$-$nsock
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 60 -y 60 \
        "env $* ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
         TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
         --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10; \
         echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "no banner"
}

python3 - "$work/s.json" <<'PY'
import json, sys
text = """Here is the summary:

| Module | State | What it does in the agent |
|:-------|:-----:|--------------------------:|
| parser | flaky | Parses the incoming stream of server-sent events into messages for the agent loop |
| store | ok | Keeps tasks and checkpoints on disk in an append-only log |

| a | b | c | d | e | f | g | h | i | j |
|---|---|---|---|---|---|---|---|---|---|
| alpha | beta | gamma | delta | epsilon | zeta | eta | theta | iota | kappa |

```python
def greet(name):
    return "hello " + name
```

""" + "```go\nfunc main() {\n" + "".join('    fmt.Println("line %d")\n' % i for i in range(70)) + """}
```

<ask_followup_question>
<question>Build it with `make` or with `ninja`?</question>
<options>["`make -j4`", "`ninja`"]</options>
</ask_followup_question>"""
scenario = {"responses": [{"protocol": "anthropic", "delay_ms": 2,
                           "reasoning": "Let me think about the layout.\nA second thought.",
                           "text": text}]}
json.dump(scenario, open(sys.argv[1], "w"))
PY

# 1. colour on: the table fits, the list fallback, the label, the question
start_hew "$work/s.json"
keys 'Summarise the modules' Enter
wait_for 'Build it with' 15 || fail "no question"
s=$(screen)
python3 - "$s" <<'PY' || fail "the pane's layout"
import sys, unicodedata
lines = sys.argv[1].split("\n")
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
for l in lines:
    assert width(l) <= 60, ("wider than the pane", l)
grid = [l for l in lines if "│" in l and "┼" not in l and l.count("│") == 2]
assert len(grid) >= 5, ("the table should wrap its cells", grid)
cols = {tuple(i for i, c in enumerate(l) if c == "│") for l in grid}
assert len(cols) == 1, ("borders moved", grid)
body = "\n".join(lines)
for word in ["server-sent", "incoming", "checkpoints", "append-only", "messages"]:
    assert word in body, ("a word was cut", word)
for line in ["a: alpha", "b: beta", "j: kappa"]:
    assert line in lines, ("no list form for the wide table", line)
assert "  ── python" in lines, "no code label"
assert '      return "hello " + name' in lines, "code not shown as it is"
# a code block longer than the live region: its lines went up before its end, shown
# as the whole block would be (one label, indented, no fence)
assert lines.count("  ── go") == 1, "the long block's label"
assert '      fmt.Println("line 0")' in lines and '      fmt.Println("line 69")' in lines
assert not any("```" in l for l in lines), "a fence left on screen"
q = [l for l in lines if "Build it with" in l]
assert q and "`" not in q[0] and "make" in q[0], ("question shown raw", q)
assert "  1. make -j4" in lines and "  2. ninja" in lines, "options shown raw"
PY
stop_hew

# 2. NO_COLOR: the reasoning has its prefix on every line, the answer none; the line still
#    streaming has it too (seen before the line's end has come: a 600-byte line, 40 ms a
#    piece of 8 bytes)
python3 - "$work/s.json" "$work/s2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = s["responses"][0]
r["delay_ms"] = 40
r["reasoning"] = "Let me think about the layout" + " and more" * 63 + " END1.\nA second thought."
json.dump(s, open(sys.argv[2], "w"))
PY
start_hew "$work/s2.json" NO_COLOR=1
keys 'Summarise the modules' Enter
wait_for '^│ Let me think' 15 || fail "the streaming reasoning without its prefix"
tmux -L "$sock" capture-pane -p -J -t t -S -400 | grep -q 'END1' && # rows joined: END1 whole
    fail "the reasoning line was whole before its prefix showed"
wait_for 'Build it with' 30 || fail "no question"
s=$(screen)
grep -q '^│ Let me think about the layout and more' <<<"$s" || fail "reasoning without its prefix"
grep -q '^│ A second thought\.$' <<<"$s" || fail "the second line of reasoning without its prefix"
grep -q '^Here is the summary:$' <<<"$s" || fail "the answer got a prefix"
grep -q '^  ── python$' <<<"$s" || fail "no code label without colour"
stop_hew

# 3. hew -p --verbose: the plain transcript sets the reasoning apart the same way
python3 - "$work/p.json" <<'PY'
import json, sys
json.dump({"responses": [{"protocol": "anthropic", "reasoning": "First idea.\nSecond idea.",
                          "text": "<attempt_completion>\n<result>\ndone\n</result>\n</attempt_completion>"}]},
          open(sys.argv[1], "w"))
PY
fake_start "$work/p.json" || fail "fake_start"
env NO_COLOR=1 ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME="$work/cfg" XDG_STATE_HOME="$work/state" \
    "$HEW_BIN" -p "Think" --verbose --provider anthropic --model claude-sonnet-4-5 --xml-tools \
    --base-url "$FAKE_URL" --cwd "$work/ws" </dev/null >"$work/out" 2>"$work/transcript" ||
    fail "hew -p: $(cat "$work/transcript")"
grep -q '^│ First idea\.$' "$work/transcript" || fail "transcript reasoning: $(cat "$work/transcript")"
grep -q '^│ Second idea\.$' "$work/transcript" || fail "transcript reasoning, line 2"
fake_stop
echo ok
