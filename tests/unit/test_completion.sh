#!/usr/bin/env bash
# The generated bash and zsh completions complete subcommands, options, option values,
# variants (comma lists), shapes (with :causal) and session files, by asking the real
# benchtop. bash: the completion function called as bash calls it; zsh: typed into an
# interactive zsh on a pseudo-terminal (tests/unit/zsh_complete.zsh), skipped without zsh.
BT=${1:?usage: test_completion.sh BENCHTOP BASH_COMPLETION ZSH_COMPLETION}
BASH_FILE=${2:?} ZSH_FILE=${3:?}
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
BT=$(abs "$BT") BASH_FILE=$(abs "$BASH_FILE") ZSH_FILE=$(abs "$ZSH_FILE")
HERE=$(cd "$(dirname "$0")" && pwd)
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/sessions/sub" "$work/fpath"
ln -s "$BT" "$work/bin/benchtop"
touch "$work/sessions/old.json" "$work/sessions/new.json" "$work/sessions/notes.txt"
cp "$ZSH_FILE" "$work/fpath/_benchtop"
export PATH="$work/bin:$PATH"
cd "$work/sessions" || exit 1

# LINE WANT...: the completions of LINE (completed at its end), sorted, must be exactly WANT.
cases=(
  "benchtop r|replay run"
  "benchtop li|list"
  "benchtop help ch|check-kernels"
  "benchtop run --ti|--timing"
  "benchtop run --timing |events kernel"
  "benchtop run --format=j|--format=json"
  "benchtop run -v mm|mma"
  "benchtop run -v mma,f|mma,fa3 mma,fp8"
  "benchtop run -v al|all"
  "benchtop run -s 4x16|4x16x2048x128 4x16x2048x128:causal"
  "benchtop run -s 2x8x512x64:c|2x8x512x64:causal"
  "benchtop run -v mma -s 1x8x512x64,4x16x2048x128:|1x8x512x64,4x16x2048x128:causal"
  "benchtop list |metrics shapes variants"
  "benchtop list variants --n|--names"
  "benchtop show --b|--best"
  "benchtop show |new.json old.json sub"
  "benchtop diff old.json n|new.json"
  "benchtop check-kernels -v cp|cp_async"
  "benchtop bench-m|"
)

bash_complete() { # LINE
  bash -c 'source "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; _benchtop
           printf "%s\n" "${COMPREPLY[@]}"' _ "$BASH_FILE" "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

check() { # SHELL LINE WANT GOT
  # bash replaces only what follows the word's last ':' or '=' (COMP_WORDBREAKS): WANT is the
  # whole word, as zsh gives it.
  local want=$3 got=$4
  if [ "$1" = bash ]; then
    local word=${2##* } pre=""
    [[ $word == *[:=]* ]] && pre=${word%"${word##*[:=]}"}
    want=$(for w in $want; do printf '%s\n' "${w#"$pre"}"; done | sort -u | tr '\n' ' ' | sed 's/ $//')
  fi
  if [ "$got" = "$want" ]; then echo "ok   $1 [$2] -> $got"
  else echo "FAIL $1 [$2] -> '$got', want '$want'"; fail=1; fi
}

for c in "${cases[@]}"; do
  line=${c%%|*} want=${c#*|}
  check bash "$line" "$want" "$(bash_complete "$line")"
done

if command -v zsh > /dev/null; then
  lines=()
  for c in "${cases[@]}"; do lines+=("${c%%|*}"); done
  mapfile -t got < <(zsh -f "$HERE/zsh_complete.zsh" "$work/fpath" "${lines[@]}")
  if [ ${#got[@]} -ne ${#cases[@]} ]; then
    echo "FAIL zsh: ${#got[@]} answers for ${#cases[@]} lines: ${got[*]}"; fail=1
  else
    for i in "${!cases[@]}"; do
      c=${cases[i]}
      check zsh "${c%%|*}" "${c#*|}" "$(tr ' ' '\n' <<< "${got[i]}" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//')"
    done
  fi
else
  echo "zsh is not installed: its completion was not tried"
fi
exit $fail
