#!/usr/bin/env bash
# End to end: the thinking budget (--thinking N, config "thinking") reaches the request a
# model that thinks gets — Anthropic's thinking.budget_tokens (raised to its minimum of
# 1024, temperature dropped, max_tokens above the budget), Gemini's thinkingBudget, an
# effort for an OpenAI reasoning model — and nothing is sent when it is 0 or the model
# does not think (then hew says on stderr that the budget is ignored). The fake provider
# records each request; one response per run, in order.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-thinking.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL
mkdir -p "$XDG_CONFIG_HOME/hew" "$work/ws"
export ANTHROPIC_API_KEY=e2e-test-key OPENAI_API_KEY=e2e-test-key GEMINI_API_KEY=e2e-test-key

done_xml='<attempt_completion>\n<result>\ndone\n</result>\n</attempt_completion>'
anthropic="{\"protocol\": \"anthropic\", \"text\": \"$done_xml\"}"
cat >"$work/scenario.json" <<JSON
{"responses": [
  $anthropic, $anthropic, $anthropic, $anthropic, $anthropic, $anthropic,
  {"protocol": "openai-chat", "text": "$done_xml"},
  {"protocol": "gemini", "text": "$done_xml"}
]}
JSON
fake_start "$work/scenario.json"

run() { # run PROVIDER MODEL [flags...]: one task, its stderr in $work/err
    local provider=$1 model=$2
    shift 2
    "$HEW_BIN" -p "Say done." --provider "$provider" --model "$model" --xml-tools \
        --base-url "$FAKE_URL" --cwd "$work/ws" --timeout 30 "$@" >/dev/null 2>"$work/err" ||
        fail "run $provider $model $*: $(cat "$work/err")"
}

run anthropic claude-sonnet-4-5 --thinking 2048                   # 0
grep -q "ignored" "$work/err" && fail "a note for a model that thinks: $(cat "$work/err")"
run anthropic claude-sonnet-4-5                                   # 1: default 0
echo '{"thinking": 3000}' >"$XDG_CONFIG_HOME/hew/config.json"
run anthropic claude-sonnet-4-5                                   # 2: from the config
run anthropic claude-sonnet-4-5 --thinking 0                      # 3: the flag wins
rm "$XDG_CONFIG_HOME/hew/config.json"
run anthropic claude-3-5-haiku --thinking 2048                    # 4: cannot think
grep -q "thinking budget (flag --thinking) is ignored" "$work/err" ||
    fail "no note for a model that does not think: $(cat "$work/err")"
run anthropic claude-sonnet-4-5 --thinking 500                    # 5: Anthropic's minimum
run openai gpt-5 --thinking 20000                                 # 6: an effort
run gemini gemini-2.5-pro --thinking 500                          # 7

python3 - "$FAKE_RECORD" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 8, len(reqs)
body = [r["body"] for r in reqs]
assert body[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}, body[0].get("thinking")
assert body[0]["max_tokens"] > 2048 and "temperature" not in body[0], body[0]["max_tokens"]
assert "thinking" not in body[1], body[1]["thinking"]
assert body[2]["thinking"]["budget_tokens"] == 3000, body[2].get("thinking")
assert "thinking" not in body[3], body[3]["thinking"]
assert "thinking" not in body[4], body[4]["thinking"]
assert body[5]["thinking"]["budget_tokens"] == 1024, body[5].get("thinking")
assert body[6].get("reasoning_effort") == "high", {k: v for k, v in body[6].items() if k != "messages"}
thinking_config = body[7]["generationConfig"]["thinkingConfig"]
assert thinking_config["thinkingBudget"] == 500, thinking_config
PY
fake_stop
