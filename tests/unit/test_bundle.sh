#!/usr/bin/env bash
# benchtop bundle and replay of a bundle, through the scripted worker reporting real source
# hashes (FAKE_SOURCES=1): the round trip runs the bundle's own sources (a user kernel whose file
# is deleted and shadowed by another of the same name, a built-in whose copy differs from the
# embedded one), a kernel changed since it ran is refused or left out (--partial), the manifest
# has its fields, -o never clobbers what is not a regular file, and hostile archives (.., an
# absolute path, links, a device, a huge member, a name outside the layout, an altered kernel)
# are refused with nothing written outside the private folder, which is removed.
BT=${1:?usage: test_bundle.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_bundle.sh BENCHTOP FAKE_WORKER}
export FAKE_SOURCES=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache
export TMPDIR=$T/tmp
unset BENCHTOP_KERNEL_DIR BENCHTOP_KERNEL_PATH BENCHTOP_EXTRA_KERNELS
mkdir -p "$TMPDIR" "$T/k" "$T/builtin" "$XDG_CONFIG_HOME/benchtop/kernels"
SRC=$(cd "$(dirname "$2")/../.." && pwd)
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
hash_of() { python3 -c 'import json,sys; print(" ".join(r["build"]["source_hash"] for r in json.load(open(sys.argv[1]))["records"] if r["variant"]==sys.argv[2]))' "$@"; }
no_leftovers() { [ -z "$(ls -A "$TMPDIR")" ] && ok "$1: the private folder is gone" || { bad "$1: left in TMPDIR: $(ls -A "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; }; }

# --- record: a user kernel (tiles, marked) and a built-in read from a changed copy ----------
cp "$SRC/examples/kernels/tiles.cu" "$T/k/tiles.cu"
echo "// marker: the bundled tiles" >> "$T/k/tiles.cu"
cp "$SRC/kernels/"*.cu "$SRC/kernels/"*.h "$SRC/kernels/"*.cuh "$T/builtin/"
echo "// marker: the bundled naive" >> "$T/builtin/naive.cu"
BENCHTOP_KERNEL_DIR=$T/builtin "$BT" run -v tiles,naive -s 2x8x512x64 --kernels "$T/k" --metrics none \
  -o "$T/s.json" > /dev/null 2> "$T/err.txt" || { bad "run"; cat "$T/err.txt"; }
H_TILES=$(hash_of "$T/s.json" tiles); H_NAIVE=$(hash_of "$T/s.json" naive)
EMBEDDED=$("$BT" run -v naive -s 2x8x512x64 --metrics none -o "$T/plain.json" >/dev/null 2>&1; hash_of "$T/plain.json" naive)
[ -n "$H_TILES" ] && [ -n "$H_NAIVE" ] && [ "$H_NAIVE" != "$EMBEDDED" ] \
  && ok "recorded hashes tiles $H_TILES, naive $H_NAIVE (the embedded naive is $EMBEDDED)" \
  || bad "recorded hashes: tiles '$H_TILES' naive '$H_NAIVE' embedded '$EMBEDDED'"

# --- bundle, with the same kernel path -------------------------------------------------------
BENCHTOP_KERNEL_DIR=$T/builtin "$BT" bundle "$T/s.json" -o "$T/b.tar.gz" > "$T/out.txt" 2>&1 \
  && ok "bundle exit 0" || { bad "bundle"; cat "$T/out.txt"; }
python3 - "$T/b.tar.gz" "$H_TILES" "$H_NAIVE" <<'PY' || fail=1
import json, sys, tarfile
t = tarfile.open(sys.argv[1])
names = t.getnames()
m = json.load(t.extractfile("bundle/manifest.json"))
bad = 0
def check(c, what):
    global bad
    print(("ok   " if c else "FAIL ") + what)
    bad += not c
for f in ["README.md", "session.json", "kernels/user/tiles/tiles.cu", "kernels/builtin/naive.cu",
          "kernels/builtin/attn_params.h", "kernels/builtin/common.cuh"]:
    check("bundle/" + f in names, "member " + f)
check(all(n.startswith("bundle/") for n in names), "every member under bundle/")
for k in ["schema", "bundled", "bundled_on", "bundled_by_revision", "session", "device", "kernels", "partial", "left_out", "replay"]:
    check(k in m, "manifest field " + k)
for k in ["gpu", "uuid", "compute_capability", "driver_cuda_version", "toolkit", "nvrtc", "cupti_api_version", "sm_mhz_min", "mem_mhz_max"]:
    check(k in m["device"], "manifest device field " + k)
for k in ["created", "host", "benchtop_revision"]:
    check(k in m["session"], "manifest session field " + k)
ks = {k["variant"]: k for k in m["kernels"]}
check(ks.get("tiles", {}).get("source_hash") == sys.argv[2] and ks["tiles"]["kind"] == "user", "tiles: user kernel, its hash")
check(ks.get("naive", {}).get("source_hash") == sys.argv[3] and ks["naive"]["kind"] == "built-in", "naive: built-in, its recorded hash")
check(b"marker: the bundled naive" in t.extractfile("bundle/kernels/builtin/naive.cu").read(), "naive's text is the copy it ran")
check(m["partial"] is False and m["left_out"] == [], "not partial")
check("benchtop replay" in t.extractfile("bundle/README.md").read().decode(), "README gives the replay command")
sys.exit(1 if bad else 0)
PY

# --- replay from the bundle alone: the user kernel deleted, other files of the same names -----
rm "$T/k/tiles.cu"
cp "$SRC/examples/kernels/tiles.cu" "$XDG_CONFIG_HOME/benchtop/kernels/tiles.cu"
echo "// marker: a local tiles" >> "$XDG_CONFIG_HOME/benchtop/kernels/tiles.cu"
mkdir -p "$T/other"; cp "$SRC/kernels/naive.cu" "$T/other/naive.cu"; echo "// local" >> "$T/other/naive.cu"
(cd "$T/tmp" && BENCHTOP_KERNEL_DIR=$T/other BENCHTOP_KERNEL_PATH=$T/home/.config/benchtop/kernels \
  "$BT" replay "$T/b.tar.gz" -o "$T/r.json") > "$T/out.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "replay exit 0" || { bad "replay exit $rc"; cat "$T/out.txt"; }
[ "$(hash_of "$T/r.json" tiles)" = "$H_TILES" ] && ok "tiles ran the bundle's source ($H_TILES)" || bad "tiles ran $(hash_of "$T/r.json" tiles)"
[ "$(hash_of "$T/r.json" naive)" = "$H_NAIVE" ] && ok "naive ran the bundle's source ($H_NAIVE)" || bad "naive ran $(hash_of "$T/r.json" naive)"
grep -q "sources: 2 record(s) ran the bundle's kernel sources" "$T/out.txt" && ok "replay says the sources were the bundle's" || bad "no sources line"
grep -q "recorded on .*; replayed on " "$T/out.txt" && ok "replay names each side's device" || bad "no device line"
grep -Eq "tiles .* (tied|faster|slower)" "$T/out.txt" && ok "verdicts against the recorded records" || bad "no verdicts"
no_leftovers "replay"
"$BT" replay "$T/b.tar.gz" --kernels "$T/k" > /dev/null 2>&1; [ $? -eq 2 ] && ok "--kernels with a bundle: usage error" || bad "--kernels with a bundle accepted"

# --- a kernel changed since it ran: refused, or left out with --partial ---------------------
cp "$SRC/examples/kernels/tiles.cu" "$T/k/tiles.cu"   # not the marked text that ran
BENCHTOP_KERNEL_DIR=$T/builtin "$BT" bundle "$T/s.json" -o "$T/c.tar.gz" > "$T/out.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "records\[0\] tiles.*changed since it ran" "$T/out.txt" && [ ! -e "$T/c.tar.gz" ] \
  && ok "changed kernel: refused, named, nothing written" || { bad "changed kernel: rc $rc"; cat "$T/out.txt"; }
BENCHTOP_KERNEL_DIR=$T/builtin "$BT" bundle "$T/s.json" -o "$T/c.tar.gz" --partial > "$T/out.txt" 2>&1
rc=$?
python3 - "$T/c.tar.gz" <<'PY' && [ $rc -eq 0 ] && ok "--partial: written, the manifest says what was left out" || { bad "--partial (rc $rc)"; cat "$T/out.txt"; }
import json, sys, tarfile
t = tarfile.open(sys.argv[1])
m = json.load(t.extractfile("bundle/manifest.json"))
assert m["partial"] is True, m["partial"]
assert len(m["left_out"]) == 1 and "tiles" in m["left_out"][0], m["left_out"]
assert [k["variant"] for k in m["kernels"]] == ["naive"], m["kernels"]
assert "bundle/kernels/user/tiles/tiles.cu" not in t.getnames()
PY
"$BT" replay "$T/c.tar.gz" -o "$T/p.json" > "$T/out.txt" 2>&1
grep -q "holds no source for variant tiles (left out of this partial bundle)" "$T/out.txt" && [ "$(hash_of "$T/p.json" tiles)" = "" ] \
  && [ "$(hash_of "$T/p.json" naive)" = "$H_NAIVE" ] && ok "partial replay runs only what it holds" || { bad "partial replay"; cat "$T/out.txt"; }
no_leftovers "partial replay"

# --- the output file: never clobbered unless regular and --force ------------------------------
cp "$SRC/kernels/naive.cu" "$T/k/naive.cu"; rm "$T/k/tiles.cu"
"$BT" run -v naive -s 2x8x512x64 --metrics none -o "$T/n.json" > /dev/null 2>&1
ln -s "$T/victim" "$T/link.tar.gz"; mkdir "$T/dir.tar.gz"; mkfifo "$T/fifo.tar.gz"; echo keep > "$T/exists.tar.gz"
for target in link dir fifo; do
  timeout 20 "$BT" bundle "$T/n.json" -o "$T/$target.tar.gz" > "$T/out.txt" 2>&1
  [ $? -eq 1 ] && grep -q "not a regular file" "$T/out.txt" && [ ! -e "$T/victim" ] \
    && ok "-o a $target: refused" || { bad "-o a $target"; cat "$T/out.txt"; }
done
"$BT" bundle "$T/n.json" -o "$T/exists.tar.gz" > /dev/null 2>&1
[ $? -eq 1 ] && [ "$(cat "$T/exists.tar.gz")" = keep ] && ok "-o an existing file: refused without --force" || bad "existing file replaced"
"$BT" bundle "$T/n.json" -o "$T/exists.tar.gz" --force > /dev/null 2>&1 && tar tzf "$T/exists.tar.gz" > /dev/null 2>&1 \
  && ok "--force replaces it" || bad "--force"
[ -z "$(ls -a "$T" | grep '^\.bundle-')" ] && ok "no temporary file left beside" || bad "temporary file left"

# --- no libarchive on this machine: the binary starts, bundles say why ------------------------
BENCHTOP_SIMULATE_NO_LIBARCHIVE=1 "$BT" bundle "$T/n.json" -o "$T/none.tar.gz" > "$T/out.txt" 2>&1
[ $? -eq 1 ] && grep -q "cannot load libarchive" "$T/out.txt" && [ ! -e "$T/none.tar.gz" ] \
  && ok "without libarchive: bundle says why" || { bad "without libarchive"; cat "$T/out.txt"; }
(cd "$T/tmp" && BENCHTOP_SIMULATE_NO_LIBARCHIVE=1 "$BT" replay "$T/b.tar.gz" -o "$T/none.json") > "$T/out.txt" 2>&1
[ $? -eq 1 ] && grep -q "cannot load libarchive" "$T/out.txt" && ok "without libarchive: replay of a bundle says why" || { bad "replay without libarchive"; cat "$T/out.txt"; }
no_leftovers "replay without libarchive"

# --- hostile archives --------------------------------------------------------------------------
python3 - "$T/b.tar.gz" "$T/h" <<'PY'
import io, os, sys, tarfile
good = tarfile.open(sys.argv[1])
members = [(m, good.extractfile(m).read()) for m in good.getmembers() if m.isfile()]
os.makedirs(sys.argv[2], exist_ok=True)
def make(name, extra):
    with tarfile.open(os.path.join(sys.argv[2], name + ".tar.gz"), "w:gz") as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data))
        extra(t)
def add(t, name, data=b"x", **kw):
    ti = tarfile.TarInfo(name)
    for k, v in kw.items(): setattr(ti, k, v)
    ti.size = len(data) if ti.type == tarfile.REGTYPE else 0
    t.addfile(ti, io.BytesIO(data) if ti.type == tarfile.REGTYPE else None)
make("dotdot", lambda t: add(t, "bundle/kernels/user/x/../../../../escape.cu"))
make("absolute", lambda t: add(t, "/tmp/escape-absolute.cu"))
make("symlink", lambda t: add(t, "bundle/kernels/user/x/x.cu", type=tarfile.SYMTYPE, linkname="/etc/passwd"))
make("hardlink", lambda t: add(t, "bundle/kernels/user/y/y.cu", type=tarfile.LNKTYPE, linkname="bundle/README.md"))
make("device", lambda t: add(t, "bundle/kernels/user/z/z.cu", type=tarfile.CHRTYPE, devmajor=1, devminor=3))
make("outside", lambda t: add(t, "bundle/run.sh", b"#!/bin/sh\n"))
make("dotfile", lambda t: add(t, "bundle/kernels/builtin/.hidden", b"x"))
def huge(t):  # a header that claims 300 MiB
    ti = tarfile.TarInfo("bundle/kernels/user/h/h.cu"); ti.size = 300 << 20
    t.addfile(ti, io.BytesIO(b"\0" * (300 << 20)))
make("huge", huge)
def twice(t):
    add(t, "bundle/kernels/builtin/naive.cu", b"// a second naive\n")
make("twice", twice)
# an altered kernel: same names, other text
with tarfile.open(os.path.join(sys.argv[2], "altered.tar.gz"), "w:gz") as t:
    for m, data in members:
        if m.name.endswith("tiles.cu"): data += b"// altered\n"; m.size = len(data)
        t.addfile(m, io.BytesIO(data))
open(os.path.join(sys.argv[2], "garbage.tar.gz"), "wb").write(b"\x1f\x8b" + os.urandom(2000))
PY
for h in dotdot absolute symlink hardlink device outside dotfile huge twice altered garbage; do
  (cd "$T/tmp" && timeout 60 "$BT" replay "$T/h/$h.tar.gz" -o "$T/hostile.json") > "$T/out.txt" 2>&1
  rc=$?
  if [ $rc -eq 1 ] && [ ! -e "$T/hostile.json" ] && [ ! -e "$T/escape.cu" ] && [ ! -e /tmp/escape-absolute.cu ]; then
    ok "hostile $h: refused ($(head -c 150 "$T/out.txt" | tr '\n' ' '))"
  else
    bad "hostile $h: rc $rc"; cat "$T/out.txt"
  fi
  no_leftovers "hostile $h"
done
exit $fail
