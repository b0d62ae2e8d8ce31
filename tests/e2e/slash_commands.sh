#!/usr/bin/env bash
# End to end: the interactive terminal's slash commands come from one table
# (cli/slashcmd.c). /help lists every command and alias of the table; /skills lists the
# workspace's Agent Skills; Tab after "/he"
# completes the line to "/help " and Enter runs it; Tab after "/re" grows it to "/res" (what
# /resume and /restore share) and a second Tab lists both, the line left as it is; /quit (an alias) leaves with status 0; and none of it
# reaches the model (no request). Driven through tmux on a socket of its own against the
# fake provider. Skips without tmux.
set -uo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
source "$HEW_E2E_LIB/tmux.sh"
src=$(cd "$HEW_E2E_LIB/../../.." && pwd)
fail() { echo "FAIL: $*" >&2; [[ -n ${sock:-} ]] && tmux -L "$sock" capture-pane -p -t t -S -200 >&2; exit 1; }
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-slash.XXXXXX")
sock=hew-e2e-slash-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; rm -rf -- "$work"; }
trap cleanup EXIT

wait_count() { # wait_count PATTERN N: the pane shows N lines matching PATTERN
    local i
    for ((i = 0; i < 200; i++)); do
        [[ $(screen | grep -Ec -- "$1") -ge $2 ]] && return 0
        sleep 0.05
    done
    return 1
}
wait_line() { # wait_line PATTERN: the line being edited (the last prompt line) is PATTERN
    local i
    for ((i = 0; i < 200; i++)); do
        screen | grep -E '^› ' | tail -n 1 | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    return 1
}

# The table's names and aliases, read from its source: { "name", "alias" or NULL, ...
mapfile -t rows < <(grep -oE '^    \{ "[a-z?]+", (NULL|"[a-z?]+")' "$src/cli/slashcmd.c")
((${#rows[@]} >= 10)) || fail "could not read the table from cli/slashcmd.c (${#rows[@]} rows)"

cat >"$work/s.json" <<'JSON'
{"responses": [{"protocol": "anthropic", "text": "never asked for"}]}
JSON
fake_start "$work/s.json" || fail "fake_start"
mkdir -p "$work/ws/.hew/skills/demo"
printf -- '---\nname: demo\ndescription: A demo skill\n---\nbody\n' >"$work/ws/.hew/skills/demo/SKILL.md"
tmux -L "$sock" -f /dev/null new-session -d -s t -x 110 -y 50 \
    "env ANTHROPIC_API_KEY=e2e-key XDG_CONFIG_HOME='$work/cfg' XDG_STATE_HOME='$work/state' \
     TERM=xterm-256color '$HEW_BIN' --provider anthropic --model claude-sonnet-4-5 \
     --base-url '$FAKE_URL' --cwd '$work/ws'; echo \"EXIT=\$?\"; sleep 60" || fail "tmux"
wait_for 'Ctrl-D to leave' || fail "no banner"

# 1. /help lists every row of the table: its name at the start of a line, its alias
keys '/help' Enter
wait_for 'approvals: y yes' || fail "no /help"
s=$(screen)
for row in "${rows[@]}"; do
    name=$(sed -E 's/^    \{ "([^"]+)".*/\1/' <<<"$row")
    alias=$(sed -nE 's/.*, "([^"]+)"$/\1/p' <<<"$row")
    grep -Eq "^  /${name//\?/\\?}([ ,]|$)" <<<"$s" || fail "/help does not list /$name"
    if [[ -n $alias ]]; then
        grep -Eq "^  /$name, /${alias//\?/\\?}( |$)" <<<"$s" || fail "/help does not list /$alias"
    fi
done

# 2. Tab after /he completes to /help; Enter runs it
keys '/he' Tab
wait_line '^› /help ?$' || fail "Tab did not complete /he to /help"
keys Enter
wait_count 'approvals: y yes' 2 || fail "the completed /help did not run"

# 3. Tab after /re: the line grows to what /resume and /restore share; Tab again lists
# both and leaves the line as it is
keys '/re' Tab
wait_line '^› /res$' || fail "Tab after /re did not grow the line to /res"
keys Tab
wait_for '^/resume +/restore$' || fail "a second Tab did not list /resume and /restore"
wait_line '^› /res$' || fail "the line changed after an ambiguous Tab"
keys C-u
# 4. /skills lists the workspace's skills
keys '/skills' Enter
wait_for '^demo \(project\)  A demo skill' || fail "/skills did not list the skill"
# 5. an alias dispatches: /quit leaves
keys '/quit' Enter
wait_for 'EXIT=0' || fail "/quit did not leave cleanly"

[[ ! -s $FAKE_RECORD ]] || fail "a slash command reached the model: $(cat "$FAKE_RECORD")"
echo "slash_commands: ok"
