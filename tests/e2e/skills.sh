#!/usr/bin/env bash
# End to end: Agent Skills (docs/skills.md) through `hew -p` and the fake provider — the
# first request lists each skill's name and description, never its body; the model calls
# use_skill and the next request carries the body and the skill's file list; use_skill
# with a path gives that file; a path out of the skill's folder is refused; hostile
# skills (SKILL.md a symlink out of the folder, a skills folder linked out of the
# workspace, a huge SKILL.md, no front matter, no description) are left out, named in
# the log; `skills: false` in the config offers none (and no use_skill tool).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$HEW_E2E_LIB/fakeprov.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'fake_stop; rm -rf "$tmp"' EXIT
work=$tmp/ws
mkdir -p "$work" "$tmp/data" "$tmp/xdg" "$tmp/state" "$tmp/home"
export XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/xdg XDG_STATE_HOME=$tmp/state HOME=$tmp/home
export ANTHROPIC_API_KEY=e2e-test-key
hew() { "$HEW_BIN" --provider anthropic --model claude-e2e --base-url "$FAKE_URL" \
    --cwd "$work" --retry-delay-ms 10 --xml-tools "$@"; }

# A good project skill with a file, a user skill, and hostile ones.
mkdir -p "$work/.claude/skills/release-notes" "$work/.hew/skills/nofm" "$work/.hew/skills/nodesc" \
    "$work/.hew/skills/huge" "$work/.agents/skills/linked" "$tmp/outside/skills/stolen" \
    "$tmp/xdg/hew/skills/tea"
cat >"$work/.claude/skills/release-notes/SKILL.md" <<'MD'
---
name: release-notes
description: >
  Write the release notes of a version
  from the git log.
---
# Release notes

BODY-MARKER-7431: group the commits by kind, newest first.
MD
echo "TEMPLATE-MARKER-5521 ## Added / ## Fixed" >"$work/.claude/skills/release-notes/template.md"
echo "SECRET-MARKER-9090" >"$tmp/secret.txt"
printf 'just text, no front matter\n' >"$work/.hew/skills/nofm/SKILL.md"
printf -- '---\nname: nodesc\n---\nbody\n' >"$work/.hew/skills/nodesc/SKILL.md"
{ printf -- '---\nname: huge\ndescription: too big\n---\n'; head -c 300000 /dev/zero | tr '\0' 'x'; } \
    >"$work/.hew/skills/huge/SKILL.md"
printf -- '---\nname: linked\ndescription: LINKED-MARKER\n---\nbody\n' >"$tmp/outside/linked.md"
ln -s "$tmp/outside/linked.md" "$work/.agents/skills/linked/SKILL.md"
printf -- '---\nname: stolen\ndescription: STOLEN-MARKER\n---\nbody\n' >"$tmp/outside/skills/stolen/SKILL.md"
ln -s "$tmp/outside/skills/stolen" "$work/.agents/skills/stolen"
printf -- '---\nname: tea\ndescription: Brew tea (TEA-MARKER)\n---\nTEA-BODY\n' >"$tmp/xdg/hew/skills/tea/SKILL.md"

fake_start "$here/data/skills_scenario.json"
out=$(hew -p "Write the release notes for 2.0" </dev/null) || fail "the task failed: $out"
[[ $out == "Notes written." ]] || fail "result: $out"
cp "$FAKE_RECORD" "$tmp/requests.jsonl"
fake_stop
python3 - "$tmp/requests.jsonl" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(reqs) == 4, len(reqs)
def system(r):
    s = r["body"]["system"]
    return s if isinstance(s, str) else "".join(b.get("text", "") for b in s)
def last_user(r):
    m = r["body"]["messages"][-1]
    c = m["content"]
    return c if isinstance(c, str) else "".join(b.get("text", "") for b in c if b.get("type") == "text")
sys0 = system(reqs[0])
assert "SKILLS" in sys0 and "- release-notes: Write the release notes of a version from the git log." in sys0, sys0[-3000:]
assert "- tea: Brew tea (TEA-MARKER)" in sys0, "the user's skill"
assert "## use_skill" in sys0 or "use_skill" in sys0
for marker in ("BODY-MARKER-7431", "TEMPLATE-MARKER-5521", "LINKED-MARKER", "STOLEN-MARKER",
               "nofm", "nodesc", "too big"):
    assert marker not in json.dumps(reqs[0]["body"]), marker
r1 = last_user(reqs[1])
assert "BODY-MARKER-7431" in r1 and "template.md" in r1, r1
assert "name: release-notes" not in r1, "the front matter is not the body"
r2 = last_user(reqs[2])
assert "TEMPLATE-MARKER-5521" in r2, r2
r3 = last_user(reqs[3])
assert "SECRET-MARKER-9090" not in r3 and "not a file of the skill" in r3, r3
PY
log=$tmp/state/hew/hew.log
for f in nofm nodesc huge linked stolen; do
    grep -q "skills/$f.*left out" "$log" || fail "no notice for $f in the log: $(grep skill "$log" || true)"
done

# `hew skills` lists what a task is offered and what was left out, and why.
"$HEW_BIN" skills --json --cwd "$work" >"$tmp/skills.json" || fail "hew skills --json"
python3 - "$tmp/skills.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["enabled"] is True, d
names = {s["name"]: s for s in d["skills"]}
assert set(names) == {"release-notes", "tea"}, names
assert names["release-notes"]["scope"] == "project" and names["tea"]["scope"] == "user", names
assert names["release-notes"]["path"].endswith("/.claude/skills/release-notes/SKILL.md"), names
notes = "\n".join(d["notices"])
for f in ("nofm", "nodesc", "huge", "linked", "stolen"):
    assert "skills/" + f in notes, (f, notes)
PY
text=$("$HEW_BIN" skills --cwd "$work")
grep -q "^release-notes (project)  Write the release notes" <<<"$text" || fail "hew skills: $text"

# Switched off: no SKILLS section, no use_skill tool.
mkdir -p "$work/.hew" && echo '{"skills": false}' >"$work/.hew/config.json"
fake_start "$here/data/history_done_scenario.json"
hew -p "Write the release notes" </dev/null >/dev/null || fail "the task without skills"
python3 - "$FAKE_RECORD" <<'PY'
import json, sys
body = json.dumps(json.loads(open(sys.argv[1]).readline())["body"])
assert "release-notes" not in body and "use_skill" not in body, "skills offered though off"
PY
fake_stop
[[ $("$HEW_BIN" skills --cwd "$work") == "skills are off (the skills setting)" ]] || fail "hew skills when off"
echo "skills: ok"
