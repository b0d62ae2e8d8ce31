#!/usr/bin/env bash
# End to end: `hew acp` given bad input answers with JSON-RPC errors and nothing else —
# not JSON (-32700), not a request (-32600: a batch, no "jsonrpc", a bad id, a request
# before initialize, a line past 64 MiB), an unknown method (-32601), wrong params (-32602), an unknown
# session (-32002) — keeps serving after each, writes only JSON-RPC lines on stdout, and
# exits 0 at the end of its input. No provider is needed: no prompt reaches a model.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "no jq (run scripts/install-deps)"
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-acpp.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
mkdir -p "$work/ws"
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state
export ANTHROPIC_API_KEY=e2e-test-key

ws=$work/ws
{
    echo '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"'"$ws"'","mcpServers":[]}}'
    echo '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"one"}}'
    echo '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":7,"clientCapabilities":{}}}'
    echo 'this is not json'
    echo '{"jsonrpc":"2.0","id":4,"method":"session/new","params":'
    echo '[{"jsonrpc":"2.0","id":5,"method":"initialize"}]'
    echo '{"id":6,"method":"session/new","params":{}}'
    echo '{"jsonrpc":"2.0","id":{"x":1},"method":"session/new"}'
    echo '{"jsonrpc":"2.0","id":7,"method":"session/fly","params":{}}'
    echo '{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"mcpServers":[]}}'
    echo '{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}'
    echo '{"jsonrpc":"2.0","id":10,"method":"session/new","params":[1,2]}'
    echo '{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}'
    echo '{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"'"$ws"'","mcpServers":[{"name":"x","type":"carrier-pigeon","url":"u","headers":[]}]}}'
    echo '{"jsonrpc":"2.0","id":13,"method":"session/new","params":{"cwd":"'"$ws"'","mcpServers":[]}}'
    echo '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}'
    echo '{"jsonrpc":"2.0","method":"no/such/notification"}'
    echo ''
    printf '\x01\x02\xff\xfe\n'
    printf '{"jsonrpc":"2.0","id":99,\x00"method":"initialize"}\n'
    echo '{"jsonrpc":"2.0","id":14,"method":"session/load","params":{"sessionId":"424242","cwd":"'"$ws"'","mcpServers":[]}}'
    echo '{"jsonrpc":"2.0","id":15,"result":{}}'
} >"$work/in.raw"

"$HEW_BIN" acp <"$work/in.raw" >"$work/out1" 2>"$work/err1"
rc=$?
[[ $rc -eq 0 ]] || fail "exit status $rc at EOF; stderr: $(cat "$work/err1")"

# every stdout line is a JSON-RPC 2.0 message
jq -e -s 'all(.[]; .jsonrpc == "2.0")' "$work/out1" >/dev/null ||
    fail "stdout holds something other than JSON-RPC: $(cat "$work/out1")"

# the answers by id (the first run)
code() { jq -r --argjson id "$1" 'select(.id == $id) | .error.code // "ok"' "$work/out1"; }
expect() { local got; got=$(code "$1"); [[ $got == "$2" ]] || fail "id $1: expected $2, got $got: $(jq -c --argjson id "$1" 'select(.id == $id)' "$work/out1")"; }
expect 1 -32600     # before initialize
expect 2 -32602     # protocolVersion not an integer
expect 3 ok
[[ $(jq -r 'select(.id == 3) | .result.protocolVersion' "$work/out1") == 1 ]] ||
    fail "a newer client version is answered with hew's: 1"
expect 7 -32601
expect 8 -32602     # no cwd
expect 9 -32602     # cwd not absolute
expect 10 -32602    # params not an object
expect 11 -32002    # no such session
expect 12 -32602    # an MCP server kind hew cannot connect
jq -r 'select(.id == 12) | .error.message' "$work/out1" | grep -q 'carrier-pigeon' ||
    fail "the MCP error does not name the kind"
expect 13 ok
expect 14 -32002    # load: no such stored task
# the parse errors and the invalid requests with no usable id: id null
n=$(jq -s '[.[] | select(.id == null and .error.code == -32700)] | length' "$work/out1")
[[ $n -eq 4 ]] || fail "expected 4 parse errors (text, a cut line, bytes, a NUL), got $n"
n=$(jq -s '[.[] | select(.error.code == -32600)] | length' "$work/out1")
[[ $n -eq 4 ]] || fail "expected 4 invalid requests (before init, batch, no jsonrpc, object id), got $n"
# notifications and the stray response got no answer; nothing for id 15
[[ -z $(jq -c 'select(.id == 15)' "$work/out1") ]] || fail "a response was answered"
total=$(wc -l <"$work/out1")
[[ $total -eq 18 ]] || fail "expected 18 answers, got $total: $(cat "$work/out1")"

# a message past the 64 MiB cap is refused whole, and the next one is served
{
    python3 -c 'import sys; sys.stdout.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":\"" + "a" * (65 << 20) + "\"}\n")'
    echo '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}'
} | "$HEW_BIN" acp >"$work/out4" 2>/dev/null || fail "hew acp failed on a huge line"
[[ $(jq -s -c '[.[] | .error.code // "ok"]' "$work/out4") == '[-32600,"ok"]' ]] ||
    fail "huge line: $(cut -c1-300 "$work/out4")"

# with the real session id: bad mode, an image prompt, a prompt that is not a list; a good mode
{
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}'
    echo '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"'"$ws"'","mcpServers":[]}}'
} >"$work/in3.raw"
coproc HEWACP { "$HEW_BIN" acp 2>"$work/err3"; }
cat "$work/in3.raw" >&"${HEWACP[1]}"
read -r -t 20 l1 <&"${HEWACP[0]}" || fail "no answer to initialize"
read -r -t 20 l2 <&"${HEWACP[0]}" || fail "no answer to session/new"
sid=$(jq -r .result.sessionId <<<"$l2")
send() { echo "$1" >&"${HEWACP[1]}"; read -r -t 20 reply <&"${HEWACP[0]}" || fail "no answer to $1"; }
send '{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"'"$sid"'","modeId":"warp"}}'
[[ $(jq -r .error.code <<<"$reply") == -32602 ]] || fail "bad mode: $reply"
send '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"'"$sid"'","prompt":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}'
[[ $(jq -r .error.code <<<"$reply") == -32602 ]] || fail "image prompt: $reply"
send '{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"'"$sid"'","prompt":"hi"}}'
[[ $(jq -r .error.code <<<"$reply") == -32602 ]] || fail "prompt not a list: $reply"
send '{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"'"$sid"'","prompt":[]}}'
[[ $(jq -r .error.code <<<"$reply") == -32602 ]] || fail "empty prompt: $reply"
send '{"jsonrpc":"2.0","id":7,"method":"session/set_mode","params":{"sessionId":"'"$sid"'","modeId":"plan"}}'
[[ $(jq -c .result <<<"$reply") == '{}' ]] || fail "set_mode plan: $reply"
exec {HEWACP[1]}>&-
wait "$HEWACP_PID" || fail "hew acp did not exit 0 at EOF"

# an image on the command line is refused: images come with the editor's prompts
"$HEW_BIN" acp -i "$work/shot.png" </dev/null >"$work/out-i" 2>"$work/err-i"
rc=$?
[[ $rc -eq 2 ]] || fail "hew acp -i: exit $rc, expected 2"
grep -q -- 'takes no task.* -i' "$work/err-i" || fail "hew acp -i: no message naming -i: $(cat "$work/err-i")"
[[ ! -s $work/out-i ]] || fail "hew acp -i wrote on stdout"
echo "PASS"
