#!/usr/bin/env bash
# End to end: where a headless run writes (issue #18, isolation flags) — through the real
# binary against the fake provider, with HOME and every XDG folder pointed at an empty
# fake home so that any stray write shows:
#   --data-dir DIR (and HEW_DATA_DIR): the store, the checkpoints' shadow repository and
#     the log all under DIR (created 0700), nothing under the home; `hew history` with
#     the flag or the variable sees the task; a DIR that is a file is a usage error;
#   --ephemeral: the task runs (the workspace changes) but nothing is stored anywhere —
#     no store, no shadow repository, no log; with --continue it is a usage error (2);
#   --no-checkpoints: a store but no shadow repository and no checkpoint events;
#   --no-mcp: neither the user's MCP server nor a trusted project's is started, and the
#     model is not told of them (each checked against the same run without the flag).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'fake_stop; rm -rf "$work"' EXIT
export ANTHROPIC_API_KEY=e2e-test-key HEW_LOG=debug
unset HEW_DATA_DIR
fresh_home() { # a new empty home: HOME and every XDG folder inside it
    rm -rf "$work/home"
    mkdir -p "$work/home"
    export HOME=$work/home XDG_DATA_HOME=$work/home/.local/share \
        XDG_STATE_HOME=$work/home/.local/state XDG_CONFIG_HOME=$work/home/.config
}
fresh_ws() { rm -rf "$work/ws"; mkdir -p "$work/ws"; }
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work/ws" --retry-delay-ms 10 --auto-approve read,edit "$@"; }
home_is_empty() { [[ -z $(find "$work/home" -mindepth 1 -print -quit) ]]; }

# 1. --data-dir: everything under DIR, nothing under the home.
fresh_home; fresh_ws
fake_start "$here/data/isolation_scenario.json"
out=$(hew -p "Write the notes" --data-dir "$work/data" </dev/null 2>"$work/err") ||
    fail "--data-dir run failed: $(cat "$work/err")"
[[ $out == "Wrote notes.txt." ]] || fail "--data-dir result: '$out'"
[[ $(cat "$work/ws/notes.txt") == isolated ]] || fail "the task did not write notes.txt"
home_is_empty || fail "--data-dir wrote under the home: $(find "$work/home" -mindepth 1)"
[[ -f $work/data/hew.db ]] || fail "no store in the data dir: $(find "$work/data")"
[[ -n $(find "$work/data/checkpoints" -mindepth 1 -maxdepth 1 2>/dev/null) ]] ||
    fail "no shadow repository in the data dir: $(find "$work/data" -maxdepth 2)"
[[ -s $work/data/log/hew.log ]] || fail "no log in the data dir: $(find "$work/data" -maxdepth 2)"
[[ $(stat -c %a "$work/data") == 700 ]] || fail "the data dir is not 0700: $(stat -c %a "$work/data")"
fake_stop
# `hew history` sees the task with the flag (before or after the command word) and with
# HEW_DATA_DIR, and not without either.
n=$("$HEW_BIN" history --json --data-dir "$work/data" | jq length)
[[ $n == 1 ]] || fail "hew history --data-dir: $n tasks"
n=$("$HEW_BIN" --data-dir="$work/data" history --json | jq length)
[[ $n == 1 ]] || fail "hew --data-dir= history: $n tasks"
n=$(HEW_DATA_DIR=$work/data "$HEW_BIN" history --json | jq length)
[[ $n == 1 ]] || fail "HEW_DATA_DIR history: $n tasks"
n=$("$HEW_BIN" history --json | jq length)
[[ $n == 0 ]] || fail "the default store has the task: $n"
rm -rf "$work/home"; mkdir -p "$work/home"
# `hew config` says which data folder is used, and why
cfg=$("$HEW_BIN" config --json --data-dir "$work/data")
[[ $(jq -r .data_dir.value <<<"$cfg") == "$(realpath "$work/data")" &&
   $(jq -r .data_dir.source <<<"$cfg") == "flag --data-dir" ]] || fail "hew config: $(jq -c .data_dir <<<"$cfg")"
[[ $(HEW_DATA_DIR=$work/data "$HEW_BIN" config --json | jq -r .data_dir.source) == "environment HEW_DATA_DIR" ]] ||
    fail "hew config: HEW_DATA_DIR not named"

# 1b. HEW_DATA_DIR alone moves a run's writes too (a relative one is made absolute).
fresh_home; fresh_ws
fake_start "$here/data/isolation_scenario.json"
(cd "$work" && HEW_DATA_DIR=rel-data hew -p "Write the notes" </dev/null >/dev/null 2>"$work/err") ||
    fail "HEW_DATA_DIR run failed: $(cat "$work/err")"
home_is_empty || fail "HEW_DATA_DIR wrote under the home: $(find "$work/home" -mindepth 1)"
[[ -f $work/rel-data/hew.db && -s $work/rel-data/log/hew.log ]] ||
    fail "HEW_DATA_DIR: no store or log in it: $(find "$work/rel-data" -maxdepth 2)"
fake_stop

# 1c. A data dir that cannot be one: exit 2, said, no request.
fresh_home
touch "$work/a-file"
set +e
"$HEW_BIN" -p "x" --data-dir "$work/a-file" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--data-dir FILE: exit $rc, want 2"
grep -q "is not a folder" "$work/err" || fail "--data-dir FILE: $(cat "$work/err")"

# 2. --ephemeral: the task runs, nothing is stored — not under the home, not in --data-dir.
fresh_home; fresh_ws
fake_start "$here/data/isolation_scenario.json"
out=$(hew -p "Write the notes" --ephemeral --json </dev/null 2>"$work/err") ||
    fail "--ephemeral run failed: $(cat "$work/err")"
[[ $(cat "$work/ws/notes.txt") == isolated ]] || fail "--ephemeral: the task did not run"
jq -e 'select(.type == "task_end") | .status == "completed"' <<<"$out" >/dev/null ||
    fail "--ephemeral: not completed: $out"
! grep -q '"checkpoint_created"' <<<"$out" || fail "--ephemeral made a checkpoint"
home_is_empty || fail "--ephemeral wrote under the home: $(find "$work/home" -mindepth 1)"
fake_stop
fresh_ws
fake_start "$here/data/isolation_scenario.json"
hew -p "Write the notes" --ephemeral --data-dir "$work/eph" </dev/null >/dev/null 2>"$work/err" ||
    fail "--ephemeral --data-dir run failed: $(cat "$work/err")"
[[ -z $(find "$work/eph" -mindepth 1 -print -quit) ]] ||
    fail "--ephemeral wrote in the data dir: $(find "$work/eph" -mindepth 1)"
home_is_empty || fail "--ephemeral --data-dir wrote under the home: $(find "$work/home" -mindepth 1)"
fake_stop
for how in "--continue" "--resume 123"; do
    set +e
    "$HEW_BIN" -p "more" --ephemeral $how </dev/null >/dev/null 2>"$work/err"; rc=$?
    set -e
    [[ $rc -eq 2 ]] || fail "--ephemeral $how: exit $rc, want 2"
    grep -q "ephemeral stores nothing" "$work/err" || fail "--ephemeral $how: $(cat "$work/err")"
done

# 3. --no-checkpoints: the task is stored, but no shadow repository, no checkpoint events.
fresh_home; fresh_ws
fake_start "$here/data/isolation_scenario.json"
out=$(hew -p "Write the notes" --data-dir "$work/nock" --no-checkpoints --json </dev/null 2>"$work/err") ||
    fail "--no-checkpoints run failed: $(cat "$work/err")"
[[ $(cat "$work/ws/notes.txt") == isolated ]] || fail "--no-checkpoints: the task did not run"
! grep -q '"checkpoint_created"' <<<"$out" || fail "--no-checkpoints made a checkpoint"
[[ -f $work/nock/hew.db ]] || fail "--no-checkpoints: no store"
[[ ! -e $work/nock/checkpoints ]] || fail "--no-checkpoints: a shadow repository: $(find "$work/nock/checkpoints" -maxdepth 1)"
fake_stop
# (the same run without the flag does make them: the checks above can fail)
fresh_ws
fake_start "$here/data/isolation_scenario.json"
out=$(hew -p "Write the notes" --data-dir "$work/withck" --json </dev/null 2>"$work/err")
grep -q '"checkpoint_created"' <<<"$out" || fail "without --no-checkpoints: no checkpoint event"
[[ -d $work/withck/checkpoints ]] || fail "without --no-checkpoints: no shadow repository"
fake_stop

# 4. --no-mcp: the user's server and a trusted project's are not started nor offered.
fresh_home; fresh_ws
mkdir -p "$HOME/.config/hew" "$work/ws/.hew"
server() { # an MCP server that leaves a mark when it starts
    jq -n --arg mark "$work/started-$1" --arg py "$here/data/stderr_mcp_server.py" \
        --arg name "$1" '{mcpServers: {($name): {command: "sh", args: ["-c", "touch \"$0\"; exec python3 \"$1\"", $mark, $py]}}}'
}
server usersrv >"$HOME/.config/hew/mcp.json"
server projsrv >"$work/ws/.hew/mcp.json"
for flag in "" --no-mcp; do
    rm -f "$work"/started-*
    fake_start "$here/data/isolation_scenario.json"
    hew -p "Write the notes" --ephemeral --trust $flag </dev/null >/dev/null 2>"$work/err" ||
        fail "mcp run '$flag' failed: $(cat "$work/err")"
    system=$(jq -r 'select(.index == 0) | .body.system | tostring' "$FAKE_RECORD")
    if [[ -z $flag ]]; then # the control: without the flag both start and are offered
        [[ -e $work/started-usersrv && -e $work/started-projsrv ]] ||
            fail "without --no-mcp the servers did not start: $(ls "$work")"
        grep -q "usersrv" <<<"$system" || fail "without --no-mcp the prompt lacks the server"
    else
        [[ ! -e $work/started-usersrv ]] || fail "--no-mcp started the user's server"
        [[ ! -e $work/started-projsrv ]] || fail "--no-mcp started the project's server"
        ! grep -q "usersrv\|projsrv" <<<"$system" || fail "--no-mcp: the prompt names a server"
    fi
    fake_stop
done
echo "isolation: ok"
