#!/usr/bin/env zsh
# zsh_complete.zsh FPATH_DIR LINE...: types each LINE and a Tab into an interactive zsh on a
# pseudo-terminal (compinit over FPATH_DIR) and prints one line per LINE: the matches
# completion offered, space-separated (what compadd was given, after zsh's own matching).
emulate -L zsh
fdir=$1; shift
out=$(mktemp)
zmodload zsh/zpty || { print -u2 "no zsh/zpty"; exit 1 }
zpty z env HOME=$(mktemp -d) TERM=dumb zsh -f -i
zpty -w z "PS1=''; PS2=''; fpath=($fdir \$fpath); autoload -Uz compinit; compinit -u -d \$HOME/.zcd"
# Every match completion would show, written to $out; a marker when the widget is done.
zpty -w z "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a hits; builtin compadd -A hits \"\$@\"; builtin compadd \"\$@\"; print -rl -- \"\${hits[@]/#/\$IPREFIX}\" >> $out; }"
zpty -w z "_t_complete() { _main_complete; print -r -- '<<done>>' >> $out }; zle -C t-complete complete-word _t_complete; zstyle ':completion:*' insert-tab false; bindkey '^I' t-complete"
for l in "$@"; do
  : > $out
  zpty -w -n z "$l"$'\t'
  for i in {1..300}; do grep -q '<<done>>' $out && break; sleep 0.1; done
  grep -q '<<done>>' $out || print -u2 "zsh_complete: no answer for [$l]"
  print -r -- "$(grep -v '<<done>>' $out | sort -u | tr '\n' ' ')"
  zpty -w -n z $'\x15' # ^U: kill the line
done
zpty -d z
rm -f $out
