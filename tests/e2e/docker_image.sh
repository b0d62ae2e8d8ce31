#!/usr/bin/env bash
# The Dockerfile, checked without a docker daemon (hadolint is not in Debian): parsed, its
# stages and apt lists held against what the binary needs —
#   1. two stages on the same Debian slim release as this machine (package names are
#      checked with this machine's dpkg); the final stage installs no compiler and no -dev
#      package, runs as a non-root USER, and its ENTRYPOINT is the exec form ["hew"];
#   2. every library in the built hew's ELF NEEDED list (objdump -p; the sanitizer
#      runtimes of a test build left out) and the libcurl src/net/curl_lib.c dlopens come
#      from a package the final stage installs (or from libc6, in every image), found by
#      dpkg -S on the library's path;
#   3. the build stage installs the -dev package of every pkg-config module
#      CMakeLists.txt requires (dpkg -S on the .pc file), and only packages that
#      scripts/install-deps --build lists (no test-only package such as the fake
#      provider's libmicrohttpd-dev); the binary it copies out is the one it builds;
#   4. each apt-get install is --no-install-recommends, in one RUN with its update and
#      with the removal of /var/lib/apt/lists (no stale or leftover lists);
#   5. .dockerignore keeps out build/ and .git.
# The checker is also fed broken copies of the Dockerfile (part 6) and must refuse each
# with the right reason, so a check that cannot fail is caught.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hew-e2e-docker.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
command -v objdump >/dev/null || fail "objdump is missing (binutils, from build-essential)"

cat >"$work/check.py" <<'PY'
import json, os, re, shlex, subprocess, sys

dockerfile, root, binary = sys.argv[1], sys.argv[2], sys.argv[3]
problems = []
def bad(msg):
    problems.append(msg)

# -- parse: logical lines (backslash continuations joined, comments dropped), stages
lines, cur = [], ""
for raw in open(dockerfile, encoding="utf-8"):
    s = raw.rstrip("\n")
    if not cur and s.lstrip().startswith("#"):
        continue
    if s.endswith("\\"):
        cur += s[:-1] + " "
        continue
    cur += s
    if cur.strip():
        lines.append(cur.strip())
    cur = ""
args, stages = {}, []
for l in lines:
    word, _, rest = l.partition(" ")
    word = word.upper()
    if word == "ARG" and not stages:
        k, _, v = rest.partition("=")
        args[k.strip()] = v.strip()
    elif word == "FROM":
        image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), rest.split()[0])
        name = rest.split()[2] if len(rest.split()) >= 3 and rest.split()[1].upper() == "AS" else None
        stages.append({"image": image, "name": name, "cmds": []})
    elif stages:
        stages[-1]["cmds"].append((word, rest))
    else:
        bad("instruction before the first FROM: " + l)

def installs(stage):
    pkgs = []
    for word, rest in stage["cmds"]:
        if word != "RUN":
            continue
        for part in re.split(r"&&|;", rest):
            w = shlex.split(part)
            if len(w) >= 2 and w[0] == "apt-get" and "install" in w:
                if "--no-install-recommends" not in w:
                    bad(f"apt-get install without --no-install-recommends: {part.strip()}")
                if "apt-get update" not in rest:
                    bad(f"apt-get install in a RUN without its apt-get update: {part.strip()}")
                if "rm -rf /var/lib/apt/lists/*" not in rest:
                    bad(f"a RUN that installs but leaves /var/lib/apt/lists: {part.strip()}")
                pkgs += [x for x in w[w.index("install") + 1:] if not x.startswith("-")]
    return pkgs

# -- 1. the stages
if len(stages) < 2:
    sys.exit(print("FAIL: want a build stage and a runtime stage, found %d" % len(stages)) or 1)
build = next((s for s in stages if s["name"] == "build"), None)
final = stages[-1]
if build is None or build is final:
    bad("no stage named 'build' before the final one")
    build = stages[0]
codename = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release")
                 if l.startswith("VERSION_CODENAME=")), "")
for s in (build, final):
    if s["image"] != f"debian:{codename}-slim":
        bad(f"stage {s['name'] or 'final'} is FROM {s['image']}: want debian:{codename}-slim "
            f"(this machine's release, whose package names this test checks)")
final_pkgs, build_pkgs = installs(final), installs(build)
for p in final_pkgs:
    if p.endswith("-dev") or p in ("build-essential", "gcc", "clang", "cmake", "make", "pkg-config"):
        bad(f"the final stage installs build package {p}")
user = [rest.split()[0] for word, rest in final["cmds"] if word == "USER"]
if not user or user[-1].split(":")[0] in ("root", "0"):
    bad("the final stage must switch to a non-root USER")
entry = [rest for word, rest in final["cmds"] if word == "ENTRYPOINT"]
try:
    ep = json.loads(entry[-1]) if entry else None
except ValueError:
    ep = None
if not ep or os.path.basename(ep[0]) != "hew":
    bad(f"the final ENTRYPOINT must be the exec form [\"hew\"], got {entry[-1] if entry else 'none'}")
copies = [rest.split() for word, rest in final["cmds"] if word == "COPY"]
if not any(c[0] == "--from=build" and c[-1] in ("/usr/local/bin/hew", "/usr/local/bin/") for c in copies):
    bad("the final stage must COPY --from=build the binary to /usr/local/bin/hew")
for c in copies:
    if not c[0].startswith("--from="):
        bad(f"the final stage copies from the build context: COPY {' '.join(c)}")

# What this machine says (objdump, ldconfig, pkg-config, dpkg), found once and kept in
# the facts file the later runs of this checker (the broken copies) read back.
def machine_facts():
    needed = re.findall(r"^\s*NEEDED\s+(\S+)", subprocess.run(
        ["objdump", "-p", binary], capture_output=True, text=True, check=True).stdout, re.M)
    needed = [n for n in needed if not re.match(r"lib(asan|ubsan|lsan|tsan)\.", n)]
    curl_src = open(os.path.join(root, "src/net/curl_lib.c")).read()
    dl = re.search(r"sonames\[\]\s*=\s*\{\s*\"([^\"]+)\"", curl_src)
    if dl:
        needed.append(dl.group(1))
    ldc = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    so_path = {}
    for l in ldc.splitlines():
        name = l.strip().split(" ")[0]
        if name in needed and "=>" in l and name not in so_path:
            so_path[name] = l.split("=>")[1].strip()
    cm = open(os.path.join(root, "CMakeLists.txt")).read()
    mods = re.findall(r"pkg_check_modules\(\s*\w+\s+REQUIRED\s+IMPORTED_TARGET\s+([\w.+-]+)", cm)
    mod_path = {}
    for m in mods:
        d = subprocess.run(["pkg-config", "--variable=pcfiledir", m], capture_output=True, text=True).stdout.strip()
        if d:
            mod_path[m] = os.path.join(d, m + ".pc")
    paths = set()
    for p in list(so_path.values()) + list(mod_path.values()):
        paths |= {p, os.path.realpath(p)}
    owner = {}
    r = subprocess.run(["dpkg", "-S"] + sorted(paths), capture_output=True, text=True)
    for l in r.stdout.splitlines():   # "pkg[:arch]: path"
        pkg, _, path = l.partition(": ")
        owner[path.strip()] = pkg.split(":")[0]
    def own(p):
        return owner.get(p) or owner.get(os.path.realpath(p))
    return {"needed": needed, "dlopen": bool(dl), "mods": mods,
            "so_pkg": {so: own(so_path[so]) if so in so_path else None for so in needed},
            "mod_pkg": {m: own(mod_path[m]) if m in mod_path else None for m in mods}}
facts_file = sys.argv[4] if len(sys.argv) > 4 else None
if facts_file and os.path.exists(facts_file):
    facts = json.load(open(facts_file))
else:
    facts = machine_facts()
    if facts_file:
        json.dump(facts, open(facts_file, "w"))

# -- 2. what the binary needs at run time
needed = facts["needed"]
if not facts["dlopen"]:
    bad("cannot find the dlopen'd libcurl soname in src/net/curl_lib.c")
if not needed or "libc.so.6" not in needed:
    bad(f"objdump found no sensible NEEDED list in {binary}: {needed}")
for so in needed:
    pkg = facts["so_pkg"].get(so)
    if not pkg:
        bad(f"{so}: cannot tell which package holds it on this machine")
    elif pkg != "libc6" and pkg not in final_pkgs:
        bad(f"hew needs {so} (package {pkg}) but the final stage does not install {pkg}")

# -- 3. the build stage: every pkg-config module CMakeLists.txt requires, nothing unlisted
mods = facts["mods"]
if len(mods) < 5:
    bad(f"found only {mods} in CMakeLists.txt's pkg_check_modules")
for m in mods:
    pkg = facts["mod_pkg"].get(m)
    if not pkg:
        bad(f"pkg-config module {m}: no package on this machine")
    elif pkg not in build_pkgs:
        bad(f"CMakeLists.txt needs {m} (package {pkg}); the build stage does not install it")
listed = subprocess.run([os.path.join(root, "scripts/install-deps"), "--build", "--list"],
                        capture_output=True, text=True, check=True).stdout.split()
for p in build_pkgs:
    if p not in listed:
        bad(f"the build stage installs {p}, which scripts/install-deps --build does not list")
runs = " ".join(rest for word, rest in build["cmds"] if word == "RUN")
if "--target hew_cli" not in runs or "build/release/hew" not in runs:
    bad("the build stage must build the hew_cli target into build/release/hew")

# -- 5. .dockerignore
di = os.path.join(os.path.dirname(dockerfile), ".dockerignore")
ign = [l.strip().strip("/") for l in open(di)] if os.path.exists(di) else []
for want in ("build", ".git"):
    if want not in ign:
        bad(f".dockerignore must keep out {want}")

for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

check() { python3 "$work/check.py" "$1" "$root" "$HEW_BIN" "$work/facts.json"; }

# 1–5: the real Dockerfile passes.
check "$root/Dockerfile" || fail "the Dockerfile (see above)"

# 6. Broken copies are refused, each for its reason.
broken() { # broken NAME WANT-IN-OUTPUT PYTHON-EXPR-ON-s (the Dockerfile's text)
    local d=$work/$1
    mkdir -p "$d"
    cp "$root/.dockerignore" "$d/.dockerignore"
    python3 -c "import sys; s = open(sys.argv[1]).read(); t = $3; assert t != s or sys.argv[3], 'no change'; open(sys.argv[2], 'w').write(t)" \
        "$root/Dockerfile" "$d/Dockerfile" "${4:-}" || fail "$1: could not make the broken copy"
    [[ -n ${4:-} ]] && printf '%s\n' "$4" >"$d/.dockerignore"
    if check "$d/Dockerfile" >"$d/out" 2>&1; then
        fail "$1: a broken Dockerfile passed"
    fi
    grep -qF -- "$2" "$d/out" || fail "$1: refused, but not for '$2': $(cat "$d/out")"
}
broken no-curl "libcurl.so.4 (package libcurl4)" "s.replace(' libcurl4 ', ' ')"
broken no-md4c "libmd4c.so.0 (package libmd4c0)" "s.replace('libmd4c0 ', '')"
broken dev-in-final "final stage installs build package libjansson-dev" "s.replace('libjansson4 ', 'libjansson-dev ')"
broken no-pcre2-dev "(package libpcre2-dev); the build stage does not install it" "s.replace('libpcre2-dev ', '')"
broken root "non-root USER" "s.replace('USER hew', 'USER root')"
broken shell-entry "exec form" "s.replace('ENTRYPOINT [\"hew\"]', 'ENTRYPOINT hew')"
broken recommends "without --no-install-recommends" "s.replace('--no-install-recommends', '', 1)"
broken lists "leaves /var/lib/apt/lists" "s.replace(' \\\\\n && rm -rf /var/lib/apt/lists/*', '', 1)"
broken other-release "want debian:" "s.replace('ARG DEBIAN_RELEASE=bookworm', 'ARG DEBIAN_RELEASE=sid')"
broken unlisted "scripts/install-deps --build does not list" "s.replace('build-essential ', 'build-essential golang ')"
broken test-only "installs libmicrohttpd-dev, which scripts/install-deps --build does not list" "s.replace('build-essential ', 'build-essential libmicrohttpd-dev ')"
broken context-copy "copies from the build context" "s.replace('COPY --from=build /src/build/release/hew', 'COPY build/release/hew')"
broken ignore "must keep out build" "s" ".git"
echo "docker_image: ok"
