#!/usr/bin/env bash
# End to end: `hew mcp add|remove|import` edit the MCP settings files. A stdio server and a
# URL server go to the user's $XDG_CONFIG_HOME/hew/mcp.json (or .hew/mcp.json with
# --project) and are printed with secrets masked; other keys of the file stay; remove
# takes one out and says where a server is when it is in the other file; import copies
# every server of a Cline cline_mcp_settings.json (renaming Cline's marketplace names);
# bad input exits 2 (usage) or 1 (failure) with a message and leaves the files as they
# were; every file written is valid JSON.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-mcp.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg
export XDG_DATA_HOME=$work/data # its own trust.json (hew trust) and task store
mkdir -p "$work/proj"
cd "$work/proj"
user=$XDG_CONFIG_HOME/hew/mcp.json
proj=$work/proj/.hew/mcp.json

# run WANT_RC ARGS...: run hew, keep stdout/stderr in $work/out, $work/err; check the status
run() {
    local want=$1; shift
    set +e
    "$HEW_BIN" "$@" >"$work/out" 2>"$work/err"; local rc=$?
    set -e
    [[ $rc -eq $want ]] || fail "hew $* exited $rc, want $want; stderr: $(cat "$work/err")"
}
q() { jq -c "$1" "$2"; }
valid() { jq -e . "$1" >/dev/null || fail "$1 is not valid JSON: $(cat "$1")"; }

# 1. add a stdio server: a new file, 0600, printed with the plain secret masked
run 0 mcp add fs --env 'TOKEN=${env:GH_TOKEN}' --env PLAIN=s3cret --timeout 30 \
    --auto-approve read_file -- npx -y @modelcontextprotocol/server-filesystem /tmp
valid "$user"
[[ $(stat -c %a "$user") == 600 ]] || fail "new settings file mode $(stat -c %a "$user")"
[[ $(q '.mcpServers.fs' "$user") == '{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"env":{"TOKEN":"${env:GH_TOKEN}","PLAIN":"s3cret"},"timeout":30,"autoApprove":["read_file"]}' ]] \
    || fail "stdio server: $(q '.mcpServers.fs' "$user")"
grep -q "added MCP server fs to $user" "$work/out" || fail "add output: $(cat "$work/out")"
grep -q 's3cret' "$work/out" && fail "add printed the secret"
grep -q '"PLAIN": "\*\*\*"' "$work/out" || fail "masked value not shown: $(cat "$work/out")"
grep -q '${env:GH_TOKEN}' "$work/out" || fail "env reference not shown"

# 2. add URL servers (Streamable HTTP, SSE, inferred); other keys of the file stay
jq '. + {"theme": "dark"}' "$user" >"$work/t" && cp "$work/t" "$user"
run 0 mcp add web --url https://example.com/mcp --header 'Authorization: Bearer tok' --type http
run 0 mcp add old --url http://127.0.0.1:9/sse --type sse
run 0 mcp add auto --url https://example.com/auto
valid "$user"
[[ $(q '.mcpServers.web' "$user") == '{"type":"streamableHttp","url":"https://example.com/mcp","headers":{"Authorization":"Bearer tok"}}' ]] \
    || fail "http server: $(q '.mcpServers.web' "$user")"
[[ $(q '.mcpServers.old.type' "$user") == '"sse"' ]] || fail "sse type"
[[ $(q '.mcpServers.auto' "$user") == '{"url":"https://example.com/auto"}' ]] || fail "auto server"
[[ $(q '.theme' "$user") == '"dark"' ]] || fail "other key lost"
[[ $(q '.mcpServers | keys_unsorted' "$user") == '["fs","web","old","auto"]' ]] || fail "order: $(q '.mcpServers | keys_unsorted' "$user")"
grep -q 'Bearer tok' "$work/out" && fail "header value printed"

# 3. replacing keeps the place
run 0 mcp add web -- node server.js --port 1
grep -q "replaced MCP server web in $user" "$work/out" || fail "replace output: $(cat "$work/out")"
[[ $(q '.mcpServers | keys_unsorted' "$user") == '["fs","web","old","auto"]' ]] || fail "replace moved the server"
[[ $(q '.mcpServers.web' "$user") == '{"command":"node","args":["server.js","--port","1"]}' ]] || fail "replaced server"

# 4. the project file
run 0 mcp add local --project -- ./tools/mcp-server
valid "$proj"
[[ $(q '.mcpServers.local.command' "$proj") == '"./tools/mcp-server"' ]] || fail "project server"
grep -q "added MCP server local to $proj" "$work/out" || fail "project output"
run 2 mcp add local2 --project --auto-approve x -- ./y
grep -q 'cannot approve its own tools' "$work/err" || fail "project auto-approve message"

# 5. remove
run 0 mcp remove old
grep -q "removed MCP server old from $user" "$work/out" || fail "remove output"
[[ $(q '.mcpServers | keys_unsorted' "$user") == '["fs","web","auto"]' ]] || fail "after remove"
valid "$user"
cp "$user" "$work/before"
run 1 mcp remove old
grep -q 'no MCP server "old"' "$work/err" || fail "absent server message: $(cat "$work/err")"
cmp -s "$user" "$work/before" || fail "removing an absent server changed the file"
run 1 mcp remove local
grep -q "local is in $proj: add --project" "$work/err" || fail "other-file hint: $(cat "$work/err")"
run 0 mcp remove local --project
[[ $(q '.mcpServers' "$proj") == '{}' ]] || fail "project remove"

# 6. import a Cline file: marketplace names renamed, same names replaced, all printed
cat >"$work/cline_mcp_settings.json" <<'JSON'
{
  "mcpServers": {
    "github.com/modelcontextprotocol/servers/tree/main/src/github": {
      "autoApprove": ["search_repositories"],
      "disabled": false,
      "timeout": 60,
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdef"}
    },
    "fs": {"command": "uvx", "args": ["mcp-server-fs"], "disabled": true},
    "remote": {"url": "https://mcp.example.com/sse", "transportType": "sse", "autoApprove": []}
  }
}
JSON
run 0 mcp import "$work/cline_mcp_settings.json"
valid "$user"
gh=github.com-modelcontextprotocol-servers-tree-main-src-github
[[ $(q '.mcpServers | keys_unsorted' "$user") == "[\"fs\",\"web\",\"auto\",\"$gh\",\"remote\"]" ]] \
    || fail "import order: $(q '.mcpServers | keys_unsorted' "$user")"
[[ $(q ".mcpServers[\"$gh\"].env.GITHUB_PERSONAL_ACCESS_TOKEN" "$user") == '"ghp_abcdef"' ]] || fail "imported env"
[[ $(q '.mcpServers.fs' "$user") == '{"command":"uvx","args":["mcp-server-fs"],"disabled":true}' ]] || fail "imported fs"
grep -q "imported github.com/modelcontextprotocol/servers/tree/main/src/github as $gh" "$work/out" || fail "rename not shown: $(cat "$work/out")"
grep -q 'imported fs (replacing the one there)' "$work/out" || fail "replace not shown"
grep -q "3 MCP servers imported from $work/cline_mcp_settings.json into $user" "$work/out" || fail "import summary"
grep -q 'ghp_abcdef' "$work/out" && fail "import printed a secret"
[[ $(q '.theme' "$user") == '"dark"' ]] || fail "import lost another key"

# 7. bad input: usage errors exit 2, failures 1, files unchanged
cp "$user" "$work/before"
run 2 mcp
run 2 mcp frobnicate
grep -q "unknown command 'frobnicate'" "$work/err" || fail "unknown subcommand message"
run 0 mcp --help
grep -q 'hew mcp import FILE' "$work/out" || fail "help"
run 2 mcp add
run 2 mcp add x
grep -q 'say how to reach x' "$work/err" || fail "no command message"
run 2 mcp add x --url https://h -- cmd
run 2 mcp add x --url https://h --type websocket
run 2 mcp add x --url https://h --env A=b
run 2 mcp add x --header 'A: b' -- cmd
run 2 mcp add x --timeout soon -- cmd
run 2 mcp add x --timeout 0 -- cmd
run 2 mcp add x --env NOEQUALS -- cmd
run 2 mcp add x --header NOCOLON --url https://h
run 2 mcp add x --frob -- cmd
run 2 mcp remove
run 2 mcp import
run 1 mcp add 'bad name' -- cmd
grep -q '"bad name" is not allowed' "$work/err" || fail "bad name message: $(cat "$work/err")"
grep -q 'e.g. "bad-name"' "$work/err" || fail "bad name suggestion"
run 1 mcp add x --url ftp://h/mcp
grep -q 'not an http:// or https:// URL' "$work/err" || fail "bad url message: $(cat "$work/err")"
run 1 mcp import "$work/missing.json"
grep -q 'no such file' "$work/err" || fail "missing import file message"
echo '{"mcpServers": {"a": {"command": "x", "args": ["ok", 7]}}}' >"$work/bad.json"
run 1 mcp import "$work/bad.json"
grep -q "bad.json: mcpServers.a.args\[1\]: expected a string, got a number" "$work/err" || fail "bad import message: $(cat "$work/err")"
echo '{"servers": {}}' >"$work/empty.json"
run 1 mcp import "$work/empty.json"
grep -q 'has no MCP servers' "$work/err" || fail "empty import message"
cmp -s "$user" "$work/before" || fail "a refused command changed the settings"

# a settings file hew cannot read is never overwritten
echo '{"mcpServers": {' >"$proj"
run 1 mcp add y --project -- cmd
grep -q 'invalid JSON' "$work/err" || fail "broken file message: $(cat "$work/err")"
grep -q 'fix the file by hand first' "$work/err" || fail "broken file hint"
[[ $(cat "$proj") == '{"mcpServers": {' ]] || fail "broken file was overwritten"

# 8. list is dispatched (its own engineer fills it in)
set +e
"$HEW_BIN" mcp list >/dev/null 2>&1; rc=$?
set -e
[[ $rc -ne 2 ]] || fail "hew mcp list is not dispatched"
echo "mcp_settings: ok"
