#!/usr/bin/env bash
# End to end: `hew --ephemeral` in the interactive terminal (tmux) stores nothing — no
# task, no checkpoint, no log, no prompt history — and a "y" at the workspace-trust
# question trusts the project's MCP server for that session only (it starts) without
# writing trust.json. HOME and every XDG folder point at an empty fake home: anything
# hew writes there shows. Skipped when tmux is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v tmux >/dev/null || { echo "isolation_tty: no tmux, skipped"; exit 0; }
work=$(mktemp -d)
sock=hew-e2e-ephemeral-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; fake_stop; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/ws/.hew"
jq -n --arg mark "$work/started" --arg py "$here/data/stderr_mcp_server.py" \
    '{mcpServers: {projsrv: {command: "sh", args: ["-c", "touch \"$0\"; exec python3 \"$1\"", $mark, $py]}}}' \
    >"$work/ws/.hew/mcp.json"
fake_start "$here/data/tty_done_scenario.json"
tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 50 \
    "cd '$work/ws' && env -u HEW_DATA_DIR HOME='$work/home' XDG_CONFIG_HOME='$work/home/.config' \
     XDG_DATA_HOME='$work/home/.local/share' XDG_STATE_HOME='$work/home/.local/state' \
     ANTHROPIC_API_KEY=e2e-test-key HEW_LOG=debug TERM=xterm-256color \
     '$HEW_BIN' --ephemeral --provider anthropic --model claude-e2e --base-url '$FAKE_URL' \
     --auto-approve read,edit; echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
screen() { tmux -L "$sock" capture-pane -p -t t -S -200; }
wait_for() { # a safety net only: each step waits for what the screen shows
    local i
    for ((i = 0; i < ${2:-30} * 20; i++)); do screen | grep -Eq -- "$1" && return 0; sleep 0.05; done
    return 1
}
wait_for 'Trust this folder\? \[y/N\]' || fail "no trust question: $(screen)"
tmux -L "$sock" send-keys -t t y Enter
wait_for 'trusted for this session only' || fail "no session-only trust: $(screen)"
wait_for 'Ctrl-D to leave' || fail "no banner: $(screen)"
for ((i = 0; i < 600; i++)); do [[ -e $work/started ]] && break; sleep 0.05; done
[[ -e $work/started ]] || fail "the server trusted for the session did not start"
tmux -L "$sock" send-keys -t t "Finish the work" Enter
wait_for 'All done here' || fail "the task did not complete: $(screen)"
tmux -L "$sock" send-keys -t t C-d
wait_for 'EXIT=' || fail "hew did not leave: $(screen)"
screen | grep -q 'EXIT=0' || fail "exit: $(screen | grep EXIT=)"
left=$(find "$work/home" -mindepth 1)
[[ -z $left ]] || fail "--ephemeral wrote under the home: $left"
echo "isolation_tty: ok"
