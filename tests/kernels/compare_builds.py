#!/usr/bin/env python3
"""Compare every kernel build of two source trees: ptxas resources, SASS and PTX.

  tests/kernels/compare_builds.py [--base REF|DIR] [--head DIR] [--all-knobs | --knobs SPEC]
                                  [--arch LIST] [--variant NAME] [--build DIR] [--keep DIR]

Builds what check-kernels builds (presets, or every knob setting with --all-knobs) twice with
the product's NVRTC path (BUILD/tests/kernels/kernel_dump): once from git REF's kernels/
(default main; or REF may be a folder of kernel sources), once from the working tree's
kernels/ (or --head DIR), and compares build by build:
  res   the ptxas report of every entry (registers, stack, spills, shared and constant memory)
  sass  the machine code of every entry (.text.* sections of the cubin): identical, reordered
        (the same instructions, scheduling bits aside, in another order), "same opcodes" (the
        same opcode mix, other operands: register naming) or the opcode counts that changed.
        With cuobjdump on PATH (the GPU machine has one) the changed lines are shown too.
  ptx   the PTX with register numbers, labels, comments and line info taken out: identical,
        reordered, or the number of lines that changed.
Exit 0 when every build exists on both sides with the same resources (a refactor's contract),
1 otherwise. SASS and PTX differences are reported, not failed: say why in the commit.
"""
import argparse
import collections
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def dump(build, src_dir, out, args):
    cmd = [str(build / "tests" / "kernels" / "kernel_dump"), str(out), "--arch", args.arch]
    if args.all_knobs:
        cmd.append("--all-knobs")
    if args.variant:
        cmd += ["--variant", args.variant]
    if args.knobs:
        cmd += ["--knobs", args.knobs]
    env = dict(os.environ, BENCHTOP_KERNEL_DIR=str(src_dir))
    return subprocess.Popen(cmd, env=env)


def resources(log):
    """The ptxas lines that describe resources, in order, per entry."""
    keep = ("Compiling entry", "Function properties", "bytes stack frame", "Used ")
    return [" ".join(l.split()) for l in log.splitlines() if any(k in l for k in keep)]


def text_sections(cubin):
    """{section name: bytes} of the .text.* sections of an ELF64 cubin."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return {}
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    strtab_off, strtab_size = heads[shstrndx][4], heads[shstrndx][5]
    names = cubin[strtab_off:strtab_off + strtab_size]
    out = {}
    for h in heads:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        if name.startswith(".text."):
            out[name] = cubin[h[4]:h[4] + h[5]]
    return out


CONTROL = ((1 << 128) - 1) ^ ((1 << 105) - 1)  # stall counts, barriers, yield: the scheduler's


def words(code):
    return [int.from_bytes(code[i:i + 16], "little") & ~CONTROL for i in range(0, len(code), 16)]


def cuobjdump_sass(path):
    tool = shutil.which("cuobjdump")
    if not tool:
        return None
    r = subprocess.run([tool, "-sass", str(path)], capture_output=True, text=True)
    lines = []
    for l in r.stdout.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?);", l)
        if m:
            lines.append(re.sub(r"\bU?R\d+\b", "R", re.sub(r"\bP\d\b", "P", m.group(1))))
    return lines


def compare_sass(a_path, b_path):
    a, b = text_sections(a_path.read_bytes()), text_sections(b_path.read_bytes())
    if a.keys() != b.keys():
        return "entries differ: %s" % sorted(set(a) ^ set(b)), []
    verdicts, detail = [], []
    for name in sorted(a):
        if a[name] == b[name]:
            continue
        wa, wb = words(a[name]), words(b[name])
        if sorted(wa) == sorted(wb):
            verdicts.append("reordered")
            continue
        oa = collections.Counter(w & 0xFFF for w in wa)
        ob = collections.Counter(w & 0xFFF for w in wb)
        if oa == ob:
            verdicts.append("same opcodes")
            continue
        delta = {op: ob[op] - oa[op] for op in set(oa) | set(ob) if ob[op] != oa[op]}
        verdicts.append("%s %d->%d instr, opcode deltas %s" % (
            name[6:], len(wa), len(wb), ", ".join("%03x:%+d" % kv for kv in sorted(delta.items()))))
        sa, sb = cuobjdump_sass(a_path), cuobjdump_sass(b_path)
        if sa is not None:
            import difflib
            detail += [l for l in difflib.unified_diff(sa, sb, lineterm="", n=0)][:40]
    if not verdicts:
        return "identical", detail
    worst = [v for v in verdicts if v not in ("reordered", "same opcodes")]
    return (worst[0] if worst else ("same opcodes" if "same opcodes" in verdicts else "reordered")), detail


def ptx_lines(text):
    out, in_debug = [], False
    for l in text.splitlines():
        l = l.split("//")[0].strip()
        if l.startswith(".section") and ".debug" in l:
            in_debug = True
        if in_debug:
            if l == "}":
                in_debug = False
            continue
        if not l or l.startswith((".loc", ".file")):
            continue
        l = re.sub(r"%(r|rd|rs|f|fd|p|h|hh)\d+", r"%\1", l)
        l = re.sub(r"\$L__\w+", "$L", l)
        out.append(l)
    return out


def compare_ptx(a, b):
    la, lb = ptx_lines(a), ptx_lines(b)
    if la == lb:
        return "identical"
    if sorted(la) == sorted(lb):
        return "reordered"
    ca, cb = collections.Counter(la), collections.Counter(lb)
    return "-%d +%d lines" % (sum((ca - cb).values()), sum((cb - ca).values()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="main", help="git ref whose kernels/ is the 'before', or a folder")
    ap.add_argument("--head", default=str(ROOT / "kernels"), help="the 'after' folder (default: kernels/)")
    ap.add_argument("--all-knobs", action="store_true")
    ap.add_argument("--arch", default="sm_80,sm_89,sm_90")
    ap.add_argument("--variant")
    ap.add_argument("--knobs", help="one knob setting (k=v,k=v) instead of the presets; use with --variant")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--keep", help="write the dumps here (base/, head/) and keep them")
    args = ap.parse_args()
    build = pathlib.Path(args.build)
    if not (build / "tests" / "kernels" / "kernel_dump").exists():
        sys.exit("compare_builds: no %s/tests/kernels/kernel_dump: run ninja -C %s first" % (build, build))
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="compare_builds."))
    try:
        if os.path.isdir(args.base):
            base_kernels = pathlib.Path(args.base)
        else:
            base_src = work / "base-src"
            base_src.mkdir(parents=True, exist_ok=True)
            arch = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "kernels"],
                                  capture_output=True, check=False)
            if arch.returncode != 0:
                sys.exit("compare_builds: git archive %s failed: %s" % (args.base, arch.stderr.decode().strip()))
            subprocess.run(["tar", "-x", "-C", str(base_src)], input=arch.stdout, check=True)
            base_kernels = base_src / "kernels"
        procs = [dump(build, base_kernels, work / "base", args),
                 dump(build, pathlib.Path(args.head), work / "head", args)]
        rcs = [p.wait() for p in procs]
        names = sorted({p.stem for side in ("base", "head") for p in (work / side).glob("*.log")})
        bad, counts = 0, collections.Counter()
        for name in names:
            a, b = work / "base" / name, work / "head" / name
            if not a.with_suffix(".log").exists() or not b.with_suffix(".log").exists():
                print("%-90s only in %s" % (name, "head" if not a.with_suffix(".log").exists() else "base"))
                bad += 1
                continue
            res = resources(a.with_suffix(".log").read_text()) == resources(b.with_suffix(".log").read_text())
            sass, detail = compare_sass(a.with_suffix(".cubin"), b.with_suffix(".cubin"))
            ptx = compare_ptx(a.with_suffix(".ptx").read_text(), b.with_suffix(".ptx").read_text())
            bad += not res
            counts["res " + ("same" if res else "DIFFERENT")] += 1
            counts["sass " + (sass if sass in ("identical", "reordered", "same opcodes") else "changed")] += 1
            counts["ptx " + (ptx if ptx in ("identical", "reordered") else "changed")] += 1
            print("%-90s res %-9s sass %-14s ptx %s" % (name, "same" if res else "DIFFERENT", sass, ptx))
            for l in detail:
                print("    " + l)
        print("%d builds compared against %s: %s" % (len(names), args.base,
                                                     ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
        if any(rcs):
            print("compare_builds: a build failed (see above)")
        return 1 if bad or any(rcs) or not names else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
