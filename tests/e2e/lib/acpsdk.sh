# acpsdk.sh — the common start of an end-to-end test that drives `hew acp` with the
# official ACP SDK's client (tests/acp/*.mjs), in bash: fail() names the failure; the
# SDK and node must be installed (scripts/install-deps), else the test fails saying so;
# acp_work NAME makes $work (removed at exit, with the fake provider stopped) holding
# ws/ and config/, points hew's XDG folders into it and sets a test API key. $acpdir is
# where the SDK and the clients are. Sourced after fakeprov.sh.
fail() { echo "FAIL: $*" >&2; exit 1; }
acpdir=$(cd "$HEW_E2E_LIB/../../acp" && pwd)
[[ -f $acpdir/node_modules/@agentclientprotocol/sdk/package.json ]] ||
    fail "the ACP SDK is not installed in tests/acp: run scripts/install-deps"
command -v node >/dev/null || fail "no node (run scripts/install-deps)"

acp_work() { # acp_work NAME
    work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-$1.XXXXXX")
    trap 'fake_stop; rm -rf -- "$work"' EXIT
    mkdir -p "$work/ws" "$work/config"
    export XDG_CONFIG_HOME=$work/config
    export XDG_DATA_HOME=$work/data
    export XDG_STATE_HOME=$work/state
    export ANTHROPIC_API_KEY=e2e-test-key
}
