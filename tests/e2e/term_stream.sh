#!/usr/bin/env bash
# End to end: a long answer streamed into the interactive terminal in small deltas
# reaches the screen whole and once — the terminal builds the text from the appends the
# event queue hands over (cli/evq.c, cli/msgtext.c), so every paragraph and every line of
# a code block longer than the live region (committed while it streams) shows exactly
# once and in order, and an escape sequence cut across deltas shows as text (^[), never
# reaching the terminal. Driven through tmux (a server of its own) against the fake
# provider. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
TMUX_SCROLLBACK=2000
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-tstream.XXXXXX")
sock=hew-e2e-tstream-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT

python3 - "$work/s.json" <<'PY'
import json, sys
parts = ["Paragraph %02d says hello to the terminal.\n\n" % i for i in range(1, 41)]
parts.append("```\n" + "".join("code line %02d\n" % i for i in range(1, 51)) + "```\n\n")
parts.append("Evil \x1b]52;c;SGk=\x07 end.\n\nThe last paragraph.\n\n")
parts.append("<attempt_completion>\n<result>\ndone streaming\n</result>\n</attempt_completion>")
json.dump({"responses": [{"protocol": "anthropic", "text": "".join(parts),
                          "delta_size": 5, "delay_ms": 2}]}, open(sys.argv[1], "w"))
PY
fake_start "$work/s.json" || fail "fake_start"
mkdir -p "$work/ws"
tmux -L "$sock" -f /dev/null new-session -d -s t -x 100 -y 40 \
    "env ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
     TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
     --xml-tools --base-url '$FAKE_URL' --cwd '$work/ws' --retry-delay-ms 10; \
     echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
wait_for 'Ctrl-D to leave' || fail "no banner"
tmux -L "$sock" send-keys -t t 'Write a lot' Enter
wait_for 'done streaming' 30 || fail "the answer did not end"
s=$(screen)
want=$(printf 'Paragraph %02d\n' $(seq 1 40))
got=$(grep -o 'Paragraph [0-9][0-9]' <<<"$s")
[[ $got == "$want" ]] || fail "paragraphs not once each, in order: $(tr '\n' ' ' <<<"$got")"
want=$(printf 'code line %02d\n' $(seq 1 50))
got=$(grep -o 'code line [0-9][0-9]' <<<"$s")
[[ $got == "$want" ]] || fail "code lines not once each, in order: $(tr '\n' ' ' <<<"$got")"
grep -qF 'Evil ^[]52;c;SGk=^G end.' <<<"$s" || fail "the escape was not shown as text"
[[ $(grep -c 'The last paragraph.' <<<"$s") == 1 ]] || fail "the last paragraph not once"
tmux -L "$sock" send-keys -t t C-d
wait_for 'EXIT=0' || fail "Ctrl-D did not leave cleanly"
echo "ok"
