#!/usr/bin/env bash
# End to end: hew's configuration. The user's file ($XDG_CONFIG_HOME/hew/config.json), the
# project's (.hew/config.json), the environment and the flags, in that order of strength;
# `hew config` shows each value with where it came from and masks the API key; a
# project's file may not redirect the key or approve actions; a bad file is named with the
# JSON path of the problem (exit 2); settings from the files reach a real run (the model
# in the request, an auto-approved edit, the key read from the variable api_key_env
# names); no API key explains what to set and how to use a local model.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-config.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME/hew" "$work/proj/.hew" "$work/proj/sub"
git -C "$work/proj" init -q # the project file is read at the workspace root: the git top
cat >"$XDG_CONFIG_HOME/hew/config.json" <<'JSON'
{"provider": "anthropic", "model": "claude-user", "api_key_env": "MY_HEW_KEY",
 "auto_approve": ["read", "edit"], "limits": {"retry_delay_ms": 7}}
JSON
echo '{"model": "claude-project", "mode": "plan"}' >"$work/proj/.hew/config.json"
export MY_HEW_KEY=sk-e2e-very-secret-0123456789

show() { "$HEW_BIN" config "$@"; }
val() { # val KEY [args]: "value|source" from hew config --json
    local key=$1; shift
    show --json "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin)[sys.argv[1]]; print("%s|%s" % (d["value"], d["source"]))' "$key"
}

# 1. precedence: default < user < project (the git root's, from a subdirectory) < environment < flag
[[ $(val model --cwd "$work") == "claude-user|$XDG_CONFIG_HOME/hew/config.json" ]] || fail "user model: $(val model --cwd "$work")"
[[ $(val model --cwd "$work/proj/sub") == "claude-project|$work/proj/.hew/config.json" ]] || fail "project model"
[[ $(val mode --cwd "$work/proj") == "plan|$work/proj/.hew/config.json" ]] || fail "project mode"
[[ $(HEW_MODEL=claude-env val model --cwd "$work/proj") == "claude-env|environment HEW_MODEL" ]] || fail "env model"
[[ $(HEW_MODEL=claude-env val model --cwd "$work/proj" --model claude-flag) == "claude-flag|flag --model" ]] || fail "flag model"
[[ $(val mode --cwd "$work/proj" --act) == "act|flag --act" ]] || fail "flag mode"
[[ $(val limits.retry_delay_ms --cwd "$work") == "7|$XDG_CONFIG_HOME/hew/config.json" ]] || fail "limits"
[[ $(val auto_approve --cwd "$work" --auto-approve read,commands) == "read,commands|flag --auto-approve" ]] || fail "flag auto-approve"
[[ $(val tools --cwd "$work") == "auto|default" ]] || fail "default tools"
# a provider chosen by a flag does not inherit the file's model meant for another provider
[[ $(val model --cwd "$work" --provider openai) == "None|default" ]] || fail "model tied to provider: $(val model --cwd "$work" --provider openai)"

# 2. the key is masked, in both forms, and its source named
out=$(show --cwd "$work")
grep -q 'sk-e2e-very-secret' <<<"$out" && fail "hew config shows the key"
grep -Eq '^api_key +sk-\*\*\* +environment MY_HEW_KEY' <<<"$out" || fail "masked key line: $out"
show --json --cwd "$work" | grep -q 'very-secret' && fail "hew config --json shows the key"
echo '{"api_key": "inline-secret-abcdefghijkl"}' >"$work/inline.json"
XDG_CONFIG_HOME=$work/x2 bash -c 'mkdir -p "$XDG_CONFIG_HOME/hew"; cp "$1" "$XDG_CONFIG_HOME/hew/config.json"; "$2" config' _ "$work/inline.json" "$HEW_BIN" >"$work/out2"
grep -q 'inline-secret' "$work/out2" && fail "inline key shown"
grep -q 'inl\*\*\*' "$work/out2" || fail "inline key not masked as expected: $(cat "$work/out2")"

# 3. errors a user can act on: exit 2, the file and the JSON path
bad() { # bad JSON WANT...
    local json=$1; shift
    printf '%s\n' "$json" >"$work/proj/.hew/config.json"
    set +e
    show --cwd "$work/proj" >/dev/null 2>"$work/err"; local rc=$?
    set -e
    [[ $rc -eq 2 ]] || fail "bad config $json: exit $rc"
    for w in "$@"; do grep -qF -- "$w" "$work/err" || fail "bad config $json: no '$w' in: $(cat "$work/err")"; done
}
bad '{"base_url": "http://attacker.example"}' "$work/proj/.hew/config.json" "base_url" "not allowed in a project"
bad '{"auto_approve": "all"}' "auto_approve" "not allowed in a project"
bad '{"limits": {"request_timeout_s": "soon"}}' "limits.request_timeout_s" "whole number"
bad '{"limits": {"timeout": 3}}' "limits.timeout" "unknown setting"
bad '{"modle": "x"}' "modle" "unknown setting"
bad '{"mode": "fast"}' "mode" "act|plan"
bad '{"model": ' "config.json:" "not valid JSON"
echo '{}' >"$work/proj/.hew/config.json"
set +e
show --auto-approve read,everything >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "everything" "$work/err" || fail "bad --auto-approve: $rc $(cat "$work/err")"

# 4. the files reach a real run: the user's model and key variable, edits auto-approved
#    by the user's file (no --yolo), the project's plan mode overridden by --act.
mkdir -p "$work/proj/src"
printf 'old line\n' >"$work/proj/src/f.txt"
echo '{"mode": "plan"}' >"$work/proj/.hew/config.json"
cat >"$work/scenario.json" <<'JSON'
{"responses": [
  {"protocol": "anthropic", "text": "<replace_in_file>\n<path>src/f.txt</path>\n<diff>\n------- SEARCH\nold line\n=======\nnew line\n+++++++ REPLACE\n</diff>\n</replace_in_file>"},
  {"protocol": "anthropic", "text": "<attempt_completion>\n<result>edited</result>\n</attempt_completion>"}
]}
JSON
fake_start "$work/scenario.json" || fail "fake_start"
out=$(env -u ANTHROPIC_API_KEY "$HEW_BIN" -p "edit it" --act --xml-tools --base-url "$FAKE_URL" \
    --cwd "$work/proj" --timeout 60 </dev/null 2>"$work/err") || fail "run: $(cat "$work/err")"
[[ $out == edited ]] || fail "run result: $out"
grep -q 'new line' "$work/proj/src/f.txt" || fail "the edit was not auto-approved by the user's config"
python3 - "$FAKE_RECORD" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert reqs[0]["body"]["model"] == "claude-user", reqs[0]["body"]["model"]
assert reqs[0]["headers"]["x-api-key"].startswith("sk-"), reqs[0]["headers"]
PY
fake_stop

# 5. a key variable named in the config but not set: say which
set +e
env -u MY_HEW_KEY "$HEW_BIN" -p "x" --cwd "$work" </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q 'MY_HEW_KEY' "$work/err" || fail "unset api_key_env: $rc $(cat "$work/err")"

# 6. no API key at all: which variable, and how to run a local model
set +e
env -u ANTHROPIC_API_KEY "$HEW_BIN" -p "x" --no-config --provider anthropic </dev/null >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "no key: exit $rc"
grep -q 'ANTHROPIC_API_KEY' "$work/err" && grep -q -- '--provider openai-compatible --base-url' "$work/err" ||
    fail "no key message: $(cat "$work/err")"
echo "config: ok"
