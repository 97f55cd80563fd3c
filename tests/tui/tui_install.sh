#!/usr/bin/env bash
# meson install --destdir D installs everything the TUI needs, and D's benchtop does not depend
# on the tree it was built from: the source path is nowhere in the installed binary, and run
# from elsewhere with fresh XDG dirs it opens the bundled example and finds the shipped themes
# (t cycles through them) from D alone.
. "$(dirname "$0")/lib.sh"
BUILD=${1:?usage: tui_install.sh BUILD_DIR SOURCE_ROOT}
SRC=${2:?usage: tui_install.sh BUILD_DIR SOURCE_ROOT}
D="$TUI_TMP/destdir"
meson install -C "$BUILD" --destdir "$D" --no-rebuild --quiet > "$TUI_TMP/install.log" 2>&1 ||
  { cat "$TUI_TMP/install.log"; fail "meson install --destdir failed"; }
BT=$(find "$D" -type f -name benchtop -path '*/bin/*' | head -n 1)
[ -x "$BT" ] || fail "no bin/benchtop under $D"
share=$(cd "$(dirname "$BT")/../share" && pwd)
for f in benchtop/themes/dark.theme benchtop/themes/light.theme man/man1/benchtop.1 \
         bash-completion/completions/benchtop zsh/site-functions/_benchtop; do
  [ -f "$share/$f" ] || fail "not installed: share/$f"
done
ls "$share"/benchtop/examples/*.json > /dev/null 2>&1 || fail "no example installed in share/benchtop/examples"
step "installed: $(cd "$share" && find . -type f | sort | tr '\n' ' ')"
# (Debug information names the build folder for debuggers; the program's own data must not.)
objcopy --strip-debug "$BT" "$TUI_TMP/benchtop.nodebug" || fail "objcopy --strip-debug"
if grep -qaF "$SRC" "$TUI_TMP/benchtop.nodebug"; then fail "the installed binary names the source tree $SRC"; fi
[ ! -e "$(dirname "$BT")/benchtop-source-root" ] || fail "the build tree's marker was installed"
step "the installed binary does not name $SRC"
cd / || fail "cd /"
tui_start 120 30 "$BT"
wait_for "example, read-only"
step "D's benchtop opened the installed example: $(screen | head -n 1 | sed 's/ *$//')"
seen="" prev=""
theme_shown() { screen | grep -o 'theme: [a-z-]*' | head -n 1 | cut -d' ' -f2; }
for _ in 1 2 3 4; do
  keys t
  # The previous press's message stays up until this one is handled: wait for a new name.
  for _ in $(seq 100); do
    cur=$(theme_shown)
    [ -n "$cur" ] && [ "$cur" != "$prev" ] && break
    sleep 0.05
  done
  seen="$seen $cur" prev=$cur
done
for t in light monochrome high-contrast; do
  grep -qw "$t" <<< "$seen" || fail "theme $t not found (t went through:$seen)"
done
step "t cycles the installed themes:$seen"
keys q
