#!/usr/bin/env bash
# End to end: a stored task's checkpoints on the command line. A task (`hew -p --yolo`)
# edits a committed file of a workspace that is itself a git repository over two turns,
# then completes; `hew checkpoints` lists initial, turn, turn, completion with commits;
# `hew diff` shows the edit; restoring the files to the initial checkpoint brings the
# file back while the user's untracked file and the user's repository (status, HEAD,
# index, stash) stay as they were; restoring to the reported safety checkpoint undoes
# that; restoring the task cuts the stored conversation; errors a user can act on; and
# /checkpoints, /diff, /restore in the interactive session (through tmux, when there is one),
# also while a finished task waits at the prompt; a resumed task makes checkpoints for its
# new turns ("resumed", then its turns).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v git >/dev/null || { echo "SKIP: git is not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'fake_stop; rm -rf "$tmp"' EXIT
work=$tmp/ws
mkdir -p "$work" "$tmp/data"
work=$(cd "$work" && pwd -P)
export XDG_DATA_HOME=$tmp/data
export ANTHROPIC_API_KEY=e2e-test-key
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 "$@"; }
json_field() { # json_field JSON PYTHON-EXPRESSION-OF-d
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}
ugit() { git -C "$work" "$@"; }
repo_refs() { # the user's repository, git-visibly, but for the work tree's status
    ugit rev-parse HEAD
    ugit ls-files --stage
    ugit stash list
    ugit branch -a
}
repo_state() { ugit status --porcelain; repo_refs; }

# The user's repository: a committed file and an untracked file of the user's own.
ugit init -q
printf 'original\n' >"$work/notes.txt"
ugit add notes.txt
ugit -c user.email=u@example.com -c user.name=User commit -qm "the user's commit"
printf 'mine\n' >"$work/user.txt"
before=$(repo_state)
refs=$(repo_refs)

# 1. The task: two edits of notes.txt, then attempt_completion.
fake_start "$here/data/checkpoints_scenario.json"
[[ $(hew -p --yolo "Edit the notes" </dev/null) == "Edited." ]] || fail "the task"
fake_stop
[[ $(<"$work/notes.txt") == "edited twice" ]] || fail "task edit: $(cat "$work/notes.txt")"
status=$(ugit status --porcelain)
[[ $status == " M notes.txt"$'\n'"?? user.txt" ]] || fail "status after the task: $status"
[[ $(repo_refs) == "$refs" ]] || fail "the task's checkpoints changed the user's repo"
id=$("$HEW_BIN" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

# 2. The list: initial, two turns, completion, each with a commit, numbered 1..4.
list=$("$HEW_BIN" checkpoints --json "$id") || fail "checkpoints --json"
python3 - "$list" <<'PY'
import json, re, sys
cps = json.loads(sys.argv[1])
assert [c["kind"] for c in cps] == ["initial", "turn", "turn", "completion"], cps
assert [c["n"] for c in cps] == [1, 2, 3, 4], cps
for c in cps:
    assert re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", c["hash"] or ""), c
    assert c["ts"] > 0 and c["index"] > 0, c
assert len({c["hash"] for c in cps}) == 4, cps
PY
initial=$(json_field "$list" 'd[0]["hash"]')
table=$("$HEW_BIN" checkpoints "$id") || fail "checkpoints"
grep -q "^  1  initial .*$initial" <<<"$table" || fail "table: $table"
grep -q "^  4  completion" <<<"$table" || fail "table: $table"

# 3. Diffs: initial -> now, and turn -> turn.
out=$("$HEW_BIN" diff "$id" 1) || fail "diff 1"
grep -q "^  M notes.txt" <<<"$out" && grep -q "^-original" <<<"$out" &&
    grep -q "^+edited twice" <<<"$out" || fail "diff 1: $out"
grep -q "user.txt" <<<"$out" && fail "the user's file is in the diff: $out"
# (initial to completion: a turn's commit runs on the checkpoint worker and may see a
# later turn's edit when the provider answers at once, so turns are not compared here)
out=$("$HEW_BIN" diff --json "$id" 1 4) || fail "diff 1 4"
python3 - "$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["files"] == [{"status": "M", "path": "notes.txt"}], d
assert "-original" in d["patch"] and "+edited twice" in d["patch"], d
assert d["from_n"] == 1 and d["to_n"] == 4, d
PY

# 4. Restore the files to the initial checkpoint: the file is back, the user's untracked
# file survives, the user's repository is as before.
out=$("$HEW_BIN" restore --json "$id" 1 files) || fail "restore files"
[[ $(<"$work/notes.txt") == "original" ]] || fail "restored: $(cat "$work/notes.txt")"
[[ $(<"$work/user.txt") == "mine" ]] || fail "the user's file did not survive"
[[ $(repo_state) == "$before" ]] || fail "restore changed the user's repo: $(repo_state)"
[[ $(json_field "$out" 'd["files"]["written"]') == "['notes.txt']" ]] || fail "report: $out"
[[ $(json_field "$out" 'd["files"]["deleted"]') == "[]" ]] || fail "report: $out"
[[ $(json_field "$out" '"task" in d') == False ]] || fail "files only: $out"
safety=$(json_field "$out" 'd["files"]["safety"]')
[[ -n $safety && $safety != "$initial" ]] || fail "safety: $out"
out=$("$HEW_BIN" diff "$id" 1) || fail "diff after restore"
grep -q "0 files" <<<"$out" || fail "diff after restore: $out"

# 5. Undo: restore to the safety checkpoint brings the edit back; the text form says how.
out=$("$HEW_BIN" restore "$id" "$safety" files) || fail "undo"
[[ $(<"$work/notes.txt") == "edited twice" ]] || fail "undo: $(cat "$work/notes.txt")"
[[ $(<"$work/user.txt") == "mine" ]] || fail "the user's file after undo"
[[ $(repo_refs) == "$refs" && $(ugit status --porcelain) == "$status" ]] ||
    fail "undo changed the user's repo"
grep -q "undo: hew restore $id [0-9a-f]* files" <<<"$out" || fail "undo text: $out"

# 6. Errors a user can act on.
set +e
"$HEW_BIN" restore "$id" "$safety" task >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "only its files can be restored" "$tmp/err" || fail "safety task: $(cat "$tmp/err")"
"$HEW_BIN" diff "$id" 9 >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "has checkpoints 1 to 4" "$tmp/err" || fail "range: $(cat "$tmp/err")"
"$HEW_BIN" checkpoints nosuchtask >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "no task 'nosuchtask'" "$tmp/err" || fail "unknown: $(cat "$tmp/err")"
"$HEW_BIN" restore "$id" 1 sideways >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc -eq 2 ]] || fail "bad mode: $rc"
set -e

# 7. Restore the task to the first turn checkpoint: the stored conversation is cut (the
# first request and its answer stay), later checkpoints leave the list, files stay.
n_before=$("$HEW_BIN" history show --json "$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["messages"])')
[[ $n_before -eq 6 ]] || fail "messages before: $n_before"
out=$("$HEW_BIN" restore --json "$id" 2 task) || fail "restore task"
n_after=$("$HEW_BIN" history show --json "$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["messages"])')
[[ $n_after -eq 2 ]] || fail "messages after: $n_after ($out)"
[[ $(json_field "$out" 'd["task"]["requests_removed"]') == 2 ]] || fail "report: $out"
[[ $(json_field "$out" 'd["task"]["api_messages_after"]') == 2 ]] || fail "report: $out"
[[ $(<"$work/notes.txt") == "edited twice" ]] || fail "task restore touched the files"
list=$("$HEW_BIN" checkpoints --json "$id")
[[ $(json_field "$list" '[c["kind"] for c in d]') == "['initial', 'turn']" ]] || fail "list after: $list"

# 8. Both, to the initial checkpoint: the files go back and the conversation keeps only the
# task's first message (a resume sends it again).
out=$("$HEW_BIN" restore "$id" 1 both) || fail "restore both"
[[ $(<"$work/notes.txt") == "original" ]] || fail "both: files"
n_after=$("$HEW_BIN" history show --json "$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["messages"])')
[[ $n_after -eq 1 ]] || fail "both: messages $n_after ($out)"
[[ $(<"$work/user.txt") == "mine" ]] || fail "the user's file after both"
[[ $(repo_state) == "$before" ]] || fail "both changed the user's repo"

# 9. The interactive session (through tmux, when there is one): /checkpoints before any
#    task says so; after a task, /checkpoints, /diff and /restore work on it.
if command -v tmux >/dev/null; then
    sock=hew-e2e-ckpt-$$
    trap 'tmux -L hew-e2e-ckpt-$$ kill-server 2>/dev/null || true; tmux -L hew-e2e-ckpt10-$$ \
        kill-server 2>/dev/null || true; fake_stop; rm -rf "$tmp"' EXIT
    pane() { tmux -L "$sock" capture-pane -p -t t -S -300; }
    wait_for() { local i; for ((i = 0; i < 200; i++)); do pane | grep -Eq -- "$1" && return 0; sleep 0.05; done
        pane >&2; return 1; }
    fake_start "$here/data/checkpoints_scenario.json"
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 60 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$tmp/cfg' \
         XDG_STATE_HOME='$tmp/state' TERM=xterm-256color '$HEW_BIN' --provider anthropic \
         --model claude-e2e --base-url '$FAKE_URL' --cwd '$work' --retry-delay-ms 10 --yolo; \
         echo EXIT=\$?; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "interactive: no banner"
    tmux -L "$sock" send-keys -t t "/checkpoints" Enter
    wait_for "no task has ended in this session yet" || fail "interactive: /checkpoints before a task"
    tmux -L "$sock" send-keys -t t "Edit the notes again" Enter
    wait_for "Edited\." || fail "interactive: the task did not complete"
    tmux -L "$sock" send-keys -t t "/checkpoints" Enter
    wait_for "^  4  completion" || fail "interactive /checkpoints"
    tmux -L "$sock" send-keys -t t "/diff 1" Enter
    wait_for "^\+edited twice" || fail "interactive /diff"
    # /restore says what it will change and asks: n leaves everything as it is
    tmux -L "$sock" send-keys -t t "/restore 1" Enter
    wait_for "Restore\? \[y/n\]" || fail "interactive /restore did not ask"
    grep -Eq "^  notes.txt  written back \(changed since\)" <<<"$(pane)" ||
        fail "interactive /restore: no preview of what changes"
    tmux -L "$sock" send-keys -t t n Enter
    wait_for "^not restored" || fail "interactive /restore: n"
    [[ $(<"$work/notes.txt") != "original" ]] || fail "interactive /restore: restored after n"
    tmux -L "$sock" send-keys -t t "/restore 1" Enter
    wait_for "Restore\? \[y/n\] › *$" || fail "interactive /restore did not ask again"
    tmux -L "$sock" send-keys -t t y Enter
    wait_for "written: notes.txt" || fail "interactive /restore"
    [[ $(<"$work/notes.txt") == "original" ]] || fail "interactive /restore: $(cat "$work/notes.txt")"
    [[ $(<"$work/user.txt") == "mine" ]] || fail "interactive: the user's file"
    tmux -L "$sock" send-keys -t t C-d
    wait_for 'EXIT=0' || fail "interactive: Ctrl-D"
    fake_stop

    # 10. Without --yolo the result waits at the prompt: /checkpoints and /diff work on
    #     it there (the task is ended with its completion checkpoint), and the next
    #     message still goes on with the same task.
    printf 'original\n' >"$work/notes.txt"
    cat >"$tmp/s10.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "model": "m", "text": "<write_to_file>\n<path>notes.txt</path>\n<content>\nwaiting edit\n</content>\n</write_to_file>"},
  {"protocol": "anthropic", "model": "m", "text": "<attempt_completion>\n<result>\nWaiting result.\n</result>\n</attempt_completion>"},
  {"protocol": "anthropic", "model": "m", "text": "<attempt_completion>\n<result>\nWent on after the diff.\n</result>\n</attempt_completion>"}
]}
JSON
    fake_start "$tmp/s10.json"
    tmux -L "$sock" kill-server 2>/dev/null
    sock=hew-e2e-ckpt10-$$ # a server of its own: the last one may still be going away
    tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 60 \
        "env ANTHROPIC_API_KEY=e2e-key XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$tmp/cfg' \
         XDG_STATE_HOME='$tmp/state' TERM=xterm-256color '$HEW_BIN' --provider anthropic \
         --model claude-e2e --base-url '$FAKE_URL' --cwd '$work' --retry-delay-ms 10 \
         --auto-approve read,edit; echo EXIT=\$?; sleep 60" || fail "tmux"
    wait_for 'Ctrl-D to leave' || fail "interactive 10: no banner"
    tmux -L "$sock" send-keys -t t "Edit and wait" Enter
    wait_for "Waiting result\." || fail "interactive 10: no result"
    tmux -L "$sock" send-keys -t t "/checkpoints" Enter
    wait_for "^  [0-9]+  completion" || fail "interactive 10: /checkpoints while the result waits"
    tmux -L "$sock" send-keys -t t "/diff 1" Enter
    wait_for "^\+waiting edit" || fail "interactive 10: /diff while the result waits"
    tmux -L "$sock" send-keys -t t "now say more" Enter
    wait_for "Went on after the diff\." || fail "interactive 10: the task did not go on"
    python3 - "$FAKE_RECORD" <<'PY' || fail "interactive 10: the message after /diff was not the same task"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 3, len(reqs)
msgs = json.dumps(reqs[2]["body"]["messages"]).replace("\\n", "\n")
assert "<task>\nEdit and wait\n</task>" in msgs and "now say more" in msgs, msgs[-3000:]
PY
    tmux -L "$sock" send-keys -t t C-d
    wait_for 'EXIT=0' || fail "interactive 10: Ctrl-D"
    fake_stop
fi

# 11. A resumed task makes checkpoints for its new turns: "resumed" (its first request in
#     the new run), a turn, the completion — each with a commit; the diff from "resumed"
#     shows the new edit.
printf 'before resume\n' >"$work/notes.txt"
cat >"$tmp/s11.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "model": "m", "text": "<write_to_file>\n<path>notes.txt</path>\n<content>\nafter resume\n</content>\n</write_to_file>"},
  {"protocol": "anthropic", "model": "m", "text": "<attempt_completion>\n<result>\nResumed and edited.\n</result>\n</attempt_completion>"}
]}
JSON
fake_start "$tmp/s11.json"
n0=$("$HEW_BIN" checkpoints --json "$id" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
out=$(hew --yolo --resume "$id" -p "edit once more" </dev/null) || fail "resume: $out"
[[ $out == "Resumed and edited." ]] || fail "resume result: $out"
fake_stop
list=$("$HEW_BIN" checkpoints --json "$id") || fail "checkpoints --json after resume"
python3 - "$list" "$n0" <<'PY' || fail "a resumed task made no checkpoints for its new turns: $list"
import json, sys
cps = json.loads(sys.argv[1])
new = cps[int(sys.argv[2]):]
assert [c["kind"] for c in new] == ["resumed", "turn", "completion"], [c["kind"] for c in cps]
assert all(c["hash"] for c in new), new
PY
n=$(( n0 + 1 ))
d=$("$HEW_BIN" diff "$id" "$n") || fail "diff from the resumed checkpoint"
grep -q '^+after resume' <<<"$d" && grep -q '^-before resume' <<<"$d" || fail "diff after resume: $d"
echo "checkpoints: ok"
