#!/usr/bin/env bash
# End to end: the shell completions of docs/completions (bash, zsh, fish) against what
# `hew --help` offers — every subcommand and every long option it lists is named in each
# file — and the fish one parses (fish -n) and completes a flag's values, a subcommand
# and a comma list as fish would. A flag added to hew but to no completion fails here.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/../../docs/completions
command -v fish >/dev/null || fail "no fish (scripts/install-deps --test installs it)"

help=$("$HEW_BIN" --help)
usage=$(sed -n '/^usage:/,/^$/p' <<<"$help")
subs=$(grep -o '\bhew [a-z][a-z]*' <<<"$usage" | cut -d' ' -f2 | sort -u)
opts=$(sed -n '/^options:/,/^$/p' <<<"$help" | grep -o -- '--[a-z][a-z-]*' | sort -u)
[[ $(wc -w <<<"$subs") -ge 10 ]] || fail "found only these subcommands in hew --help: $subs"
[[ $(wc -w <<<"$opts") -ge 30 ]] || fail "found only these options in hew --help: $opts"

# What each shell would offer: bash and fish are asked (the flags after "hew --", the
# subcommands after "hew "); zsh is not installed, so _hew is read: an _arguments spec
# ('--flag[', ')--flag[', '*--flag[' or ',--flag}'[') and the subcommand list of its
# first argument.
bash_offers() {
    bash -c 'source "$1"; COMP_WORDS=(hew "$2"); COMP_CWORD=1; _hew; printf "%s\n" "${COMPREPLY[@]}"' _ \
        "$dir/hew.bash" "$1"
}
fish_offers() { fish --no-config -c "source '$dir/hew.fish'; complete -C '$1'" | cut -f1; }
fish -n "$dir/hew.fish" || fail "hew.fish does not parse"
b_opts=$(bash_offers --) b_subs=$(bash_offers "")
f_opts=$(fish_offers "hew --") f_subs=$(fish_offers "hew ")
for o in $opts; do
    grep -qx -- "$o" <<<"$b_opts" || fail "bash does not complete $o"
    grep -qx -- "$o" <<<"$f_opts" || fail "fish does not complete $o"
    grep -qE -- "([')*]$o|,$o\\}')\\[" "$dir/_hew" || fail "_hew (zsh) does not complete $o"
done
for s in $subs; do
    grep -qx -- "$s" <<<"$b_subs" || fail "bash does not complete the subcommand $s"
    grep -qx -- "$s" <<<"$f_subs" || fail "fish does not complete the subcommand $s"
    grep -q -- "[( ]$s\\\\:" "$dir/_hew" || fail "_hew (zsh) does not complete the subcommand $s"
done

complete_fish() { fish --no-config -c "source '$dir/hew.fish'; complete -C '$1'" | cut -f1 | tr '\n' ' '; }
out=$(complete_fish "hew --provider open")
[[ $out == "openai openai-compatible openrouter " ]] || fail "fish --provider: $out"
out=$(complete_fish "hew --auto-approve read,ed")
[[ $out == "read,edit read,edit-outside " ]] || fail "fish --auto-approve: $out"
out=$(complete_fish "hew che")
[[ $out == "checkpoints " ]] || fail "fish subcommand: $out"
out=$(complete_fish "hew mcp ")
[[ $out == "add import list remove " ]] || fail "fish mcp: $out"
out=$(complete_fish "hew --sandbox w")
[[ $out == "workspace-write " ]] || fail "fish --sandbox: $out"
echo "completions: ok"
