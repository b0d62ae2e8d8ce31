#!/usr/bin/env bash
# batch_child.sh — a stand-in for `hew -p --json` that `hew batch --program` runs in
# tests/e2e/batch.sh: it saves its arguments and its standard input (the prompt) under
# $BATCH_LOG/<the prompt's first run of letters and digits>.{args,prompt}, then acts by the prompt's first word:
#   ok      two event lines, the last a task_end with "totals" (7 in, 3 out, $0.25, 1 request)
#   endnew  a task_end with the newer fields (usage, cost_usd, requests, reason, denied)
#           instead of totals, and exit 7 (it ended with an action denied)
#   noend   a line on stderr, exit 3, no task_end
#   crash   dies of SIGSEGV
#   hang    ignores SIGTERM and never ends (the runner must kill its group)
#   wait    marks $BATCH_LOG/<word>.running, then waits for SIGTERM: prints a task_end
#           "aborted" and exits 130
prompt=$(cat; printf x) # the x keeps trailing newlines
prompt=${prompt%x}
word=${prompt%%[^a-z0-9]*}
printf '%s\n' "$@" >"$BATCH_LOG/$word.args"
printf '%s' "$prompt" >"$BATCH_LOG/$word.prompt"
result=$(jq -Rs . <<<"$prompt")
case $word in
ok*)
    echo '{"v":2,"kind":"say","type":"task","text":"x"}'
    echo "{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"status\":\"completed\",\"result\":$result,\"totals\":{\"tokens_in\":7,\"tokens_out\":3,\"cache_reads\":1,\"cache_writes\":2,\"cost\":0.25,\"requests\":1}}"
    ;;
endnew*)
    echo "{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"status\":\"completed\",\"result\":\"r\",\"usage\":{\"input_tokens\":11,\"output_tokens\":13,\"cache_read_tokens\":17,\"cache_write_tokens\":19},\"cost_usd\":0.5,\"requests\":4,\"exit_code\":7,\"reason\":\"denied\",\"denied\":[{\"type\":\"tool\",\"tool\":\"write_to_file\",\"flag\":\"--auto-approve read,edit\"}]}"
    exit 7
    ;;
noend*)
    echo "hew: first line" >&2
    echo "hew: the provider said no" >&2
    exit 3
    ;;
crash*)
    kill -SEGV $$
    ;;
hang*)
    trap '' TERM
    while :; do sleep 1; done
    ;;
wait*)
    trap 'echo "{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"status\":\"aborted\",\"result\":\"interrupted\"}"; exit 130' TERM
    : >"$BATCH_LOG/$word.running"
    while :; do sleep 0.1; done
    ;;
esac
