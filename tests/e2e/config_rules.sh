#!/usr/bin/env bash
# End to end: the rule sources and strict plan mode are settings of the config files
# (`hew config` shows where each value comes from), and a misspelt one is refused with
# the list of the right names.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws/.hew"
export XDG_CONFIG_HOME="$work/xdg"
cd "$work/ws"
echo '{"strict_plan": true, "rules": {"agents": false, "cursorrules": false}}' >.hew/config.json
"$HEW_BIN" config --json >"$work/cfg.json"
python3 - "$work/cfg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["strict_plan"]["value"] is True and d["strict_plan"]["source"].endswith(".hew/config.json"), d["strict_plan"]
assert d["rules.agents"]["value"] is False, d["rules.agents"]
assert d["rules.cursorrules"]["value"] is False, d["rules.cursorrules"]
assert d["rules.global"]["value"] is True and d["rules.global"]["source"] == "default", d["rules.global"]
PY
echo '{"rules": {"agnets": false}}' >.hew/config.json
set +e
"$HEW_BIN" config >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc -eq 2 ]] || fail "a misspelt rule source: exit $rc, want 2"
grep -q "rules.agnets: unknown setting" "$work/err" || fail "message: $(cat "$work/err")"
grep -q "agents" "$work/err" || fail "the right names are not listed"
echo "config_rules: ok"
