# fakeprov.sh — start and stop hew-fake-provider from an end-to-end test (bash).
#
#   source "$HEW_E2E_LIB/fakeprov.sh"
#   trap fake_stop EXIT
#   fake_start my_scenario.json || exit 1
#   "$HEW_BIN" --base-url "$FAKE_URL" ...
#   grep '"path":"/v1/messages"' "$FAKE_RECORD"
#   fake_stop
#
# fake_start SCENARIO_FILE starts $HEW_FAKE_PROVIDER on a free loopback port with
# --record in a new temp dir, waits (10 s at most) for the URL line and sets FAKE_URL,
# FAKE_PID, FAKE_RECORD and FAKE_DIR. If the scenario contains @FIXTURES@, a copy with
# it replaced by $HEW_TEST_FIXTURES is served instead (relative paths in such a copy
# resolve against FAKE_DIR, so use @FIXTURES@ for every file it names). Relative paths
# in an unmodified scenario resolve against the scenario file's directory.
# fake_stop sends SIGTERM, waits, removes the temp dir; it is idempotent and safe in an
# EXIT trap, and returns non-zero if the provider did not exit cleanly.
# fake_violations prints, one per line, the messages of the requests the strict provider
# refused (their record lines have "violation"; docs/fake-provider.md): empty output means
# every request so far was valid.
# Set HEW_FAKE_VERBOSE=1 to see the provider's per-request log on stderr.
# Never kills anything but the provider it started.

fake_start() {
    local scenario=$1
    if [[ -z $scenario || ! -f $scenario ]]; then
        echo "fake_start: no scenario file '$scenario'" >&2
        return 1
    fi
    if [[ -z ${HEW_FAKE_PROVIDER:-} || ! -x $HEW_FAKE_PROVIDER ]]; then
        echo "fake_start: HEW_FAKE_PROVIDER is not set to the built hew-fake-provider" >&2
        return 1
    fi
    FAKE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hew-fake-e2e.XXXXXX") || return 1
    FAKE_RECORD=$FAKE_DIR/requests.jsonl
    if grep -q '@FIXTURES@' "$scenario"; then
        local text
        text=$(<"$scenario")
        printf '%s\n' "${text//@FIXTURES@/${HEW_TEST_FIXTURES:?HEW_TEST_FIXTURES is not set}}" \
            >"$FAKE_DIR/scenario.json"
        scenario=$FAKE_DIR/scenario.json
    fi
    local quiet=--quiet
    [[ -n ${HEW_FAKE_VERBOSE:-} ]] && quiet=
    "$HEW_FAKE_PROVIDER" --scenario "$scenario" --port 0 --record "$FAKE_RECORD" $quiet \
        >"$FAKE_DIR/url" &
    FAKE_PID=$!
    local i
    for ((i = 0; i < 200; i++)); do
        if [[ -s $FAKE_DIR/url ]] && IFS= read -r FAKE_URL <"$FAKE_DIR/url" &&
            [[ $FAKE_URL == http://127.0.0.1:* ]]; then
            export FAKE_URL FAKE_PID FAKE_RECORD FAKE_DIR
            return 0
        fi
        if ! kill -0 "$FAKE_PID" 2>/dev/null; then
            wait "$FAKE_PID" 2>/dev/null
            echo "fake_start: hew-fake-provider exited before listening (bad scenario $1?)" >&2
            FAKE_PID=
            fake_stop
            return 1
        fi
        sleep 0.05
    done
    echo "fake_start: hew-fake-provider printed no URL within 10 s" >&2
    fake_stop
    return 1
}

fake_stop() {
    local rc=0
    if [[ -n ${FAKE_PID:-} ]]; then
        kill -TERM "$FAKE_PID" 2>/dev/null
        local i
        for ((i = 0; i < 200; i++)); do
            kill -0 "$FAKE_PID" 2>/dev/null || break
            sleep 0.05
        done
        if kill -0 "$FAKE_PID" 2>/dev/null; then
            echo "fake_stop: provider $FAKE_PID ignored SIGTERM; killing it" >&2
            kill -KILL "$FAKE_PID" 2>/dev/null
            rc=1
        fi
        wait "$FAKE_PID" 2>/dev/null || rc=$?
        FAKE_PID=
    fi
    if [[ -n ${FAKE_DIR:-} && -d $FAKE_DIR ]]; then
        rm -rf -- "$FAKE_DIR"
    fi
    FAKE_DIR=
    return $rc
}

fake_violations() {
    [[ -n ${FAKE_RECORD:-} && -f $FAKE_RECORD ]] || return 0
    python3 - "$FAKE_RECORD" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        v = json.loads(line).get("violation")
        if v is not None:
            print(v)
PY
}
