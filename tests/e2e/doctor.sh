#!/usr/bin/env bash
# End to end: `hew doctor` against the fake provider. Everything in place → every check
# ok or warn, exit 0, the key masked; --json → one object whose checks agree; a closed
# port → FAIL provider (exit 1); the provider refusing the key (401) → FAIL; no key →
# FAIL naming the variable; a data directory that cannot be made → FAIL; an MCP server
# that does not start → warn with why, MCP settings that do not parse → FAIL; a config file
# that does not parse → FAIL naming the file.
set -euo pipefail
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-doctor.XXXXXX")
trap 'fake_stop; rm -rf -- "$work"' EXIT
export XDG_CONFIG_HOME=$work/xdg XDG_DATA_HOME=$work/data
unset HEW_PROVIDER HEW_MODEL HEW_BASE_URL ANTHROPIC_API_KEY
mkdir -p "$XDG_CONFIG_HOME/hew" "$work/ws"
key=sk-e2e-doctor-secret-0123456789

cat >"$work/scenario.json" <<'JSON'
{"responses": [
  {"status": 200, "body": {"data": [{"id": "claude-sonnet-4-5"}]}},
  {"status": 200, "body": {"data": []}},
  {"status": 401, "body": {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}}
]}
JSON
fake_start "$work/scenario.json"

doctor() { # doctor [args]: exit status in $rc, stdout in $work/out
    set +e
    "$HEW_BIN" doctor --provider anthropic --cwd "$work/ws" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    set -e
}
line() { grep -E "^$1 +$2 " "$work/out" || fail "no '$1 $2' line in: $(cat "$work/out")"; }

# 1. Everything in place: exit 0, no FAIL, the provider answered, the key masked.
ANTHROPIC_API_KEY=$key doctor --base-url "$FAKE_URL"
[[ $rc -eq 0 ]] || fail "all ok: exit $rc: $(cat "$work/out" "$work/err")"
grep -q '^FAIL' "$work/out" && fail "a FAIL when all is in place: $(cat "$work/out")"
line ok config >/dev/null
line ok "api key" | grep -q 'sk-\*\*\* from environment ANTHROPIC_API_KEY' || fail "key line: $(cat "$work/out")"
line ok provider | grep -q "HTTP 200 from GET $FAKE_URL/v1/models" || fail "provider line: $(cat "$work/out")"
line ok store | grep -q "$XDG_DATA_HOME/hew/hew.db" || fail "store line: $(cat "$work/out")"
for what in git ctags node terminal; do
    grep -Eq "^(ok|warn) +$what " "$work/out" || fail "no $what line: $(cat "$work/out")"
done
grep -q "$key" "$work/out" "$work/err" && fail "the key was printed"
python3 - "$FAKE_RECORD" <<'PY'
import json, sys
req = json.loads(open(sys.argv[1]).readline())
assert req["method"] == "GET" and req["path"] == "/v1/models", req
assert req["headers"]["x-api-key"] == "sk-***", req["headers"]
assert req["headers"]["anthropic-version"] == "2023-06-01", req["headers"]
PY

# 2. --json: one object, ok true, the same checks.
ANTHROPIC_API_KEY=$key doctor --base-url "$FAKE_URL" --json
[[ $rc -eq 0 ]] || fail "--json: exit $rc"
python3 - "$work/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True, d
names = [c["name"] for c in d["checks"]]
for want in ("config", "api key", "provider", "store", "git", "ctags", "node", "terminal"):
    assert want in names, names
for c in d["checks"]:
    assert c["status"] in ("ok", "warn"), c
    assert c["status"] == "ok" or "hint" in c, c
PY

# 3. The provider refuses the key: FAIL provider, exit 1.
ANTHROPIC_API_KEY=$key doctor --base-url "$FAKE_URL"
[[ $rc -eq 1 ]] || fail "refused key: exit $rc"
line FAIL provider | grep -q "the key was refused: HTTP 401" || fail "401 line: $(cat "$work/out")"

# 4. A closed port: FAIL provider, with a hint, exit 1.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
[[ $rc -eq 1 ]] || fail "closed port: exit $rc: $(cat "$work/out")"
line FAIL provider | grep -q "not reachable" || fail "closed port line: $(cat "$work/out")"
grep -A1 '^FAIL  provider' "$work/out" | grep -q -- '->' || fail "no hint under the FAIL"

# 5. No key: FAIL naming the variable.
doctor --base-url "http://127.0.0.1:$port"
[[ $rc -eq 1 ]] || fail "no key: exit $rc"
line FAIL "api key" | grep -q "ANTHROPIC_API_KEY is not set" || fail "no-key line: $(cat "$work/out")"
grep -q "export ANTHROPIC_API_KEY=" "$work/out" || fail "no hint to export the key"

# 6. A data directory that cannot be made (its parent is a file): FAIL data dir.
touch "$work/file"
XDG_DATA_HOME=$work/file/data ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
[[ $rc -eq 1 ]] || fail "bad data dir: exit $rc"
line FAIL "data dir" | grep -q "$work/file/data/hew" || fail "data dir line: $(cat "$work/out")"

# 6b. MCP servers: a broken one is a warning with its last words; a wrong settings file
#     is a FAIL naming it; none configured is fine.
line ok mcp | grep -q "no MCP servers configured" || fail "mcp line: $(cat "$work/out")"
echo '{"mcpServers": {"broken": {"command": "sh", "args": ["-c", "echo no database >&2; exit 3"]}}}' \
    >"$XDG_CONFIG_HOME/hew/mcp.json"
ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
line warn mcp | grep -q "broken: disconnected: .*status 3: no database" || fail "mcp warn: $(cat "$work/out")"
echo '{"mcpServers": {"bad name!": {"command": "x"}}}' >"$XDG_CONFIG_HOME/hew/mcp.json"
ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
line FAIL mcp | grep -q "mcp.json" || fail "mcp settings FAIL: $(cat "$work/out")"
# More checks than the list holds (70 broken servers): the rest are counted, not lost.
python3 -c 'import json; print(json.dumps({"mcpServers": {"s%d" % i: {"command": "false"} for i in range(70)}}))' \
    >"$XDG_CONFIG_HOME/hew/mcp.json"
ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
grep -Eq "^ +[0-9]+ more checks not shown" "$work/out" || fail "dropped checks not said: $(tail -3 "$work/out")"
rm "$XDG_CONFIG_HOME/hew/mcp.json"

# 7. A config file that does not parse: FAIL config naming it.
echo '{"model": ' >"$XDG_CONFIG_HOME/hew/config.json"
ANTHROPIC_API_KEY=$key doctor --base-url "http://127.0.0.1:$port"
[[ $rc -eq 1 ]] || fail "bad config: exit $rc"
line FAIL config | grep -q "config.json" || fail "config line: $(cat "$work/out")"
fake_stop
