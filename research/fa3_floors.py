#!/usr/bin/env python3
"""Floor kernels for fa3 (the 2x8x512x64 shape): copies of kernels/ with parts of the work
compiled out, so that benchtop's own clock (BENCHTOP_KERNEL_DIR=DIR/MODE) says what each part
of the chain costs. The records fail verification, by design; their timing is what counts.

  python3 research/fa3_floors.py OUTDIR      # writes OUTDIR/{launch,loads,nomma,nosoftmax}/

Modes (each keeps the launch shape, shared memory, barriers, merge and TMA store of fa3):
  launch     the kernel returns at entry: block launch and retirement only
  loads      no wgmma, no softmax: the TMA loads, barrier waits, merge and O store
  nomma      the softmax without its GEMMs (scores are whatever the registers hold)
  nosoftmax  the GEMMs without the softmax (P is packed from the raw scores)
  loads_qk   as loads, but no V bytes move (V's full barriers are arrived on, not filled)
  loads_q    as loads, but only Q moves (no K or V bytes)
The replaced bodies use empty asm statements with register operands, which cost no
instructions but keep the compiler from folding the work that is left.
"""
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "kernels"

QK_BODY = """  bt_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
    const unsigned koff = (kk & 3) * 32;
    wgmma_qk(s, bt_wgmma_desc(q + (kk >> 2) * (64 * 128) + koff, 16, 1024),
             bt_wgmma_desc(k + (kk >> 2) * (BLOCK_N * 128) + koff, 16, 1024), kk > 0);
  }
  bt_wgmma_commit();"""
QK_NONE = """  bt_wgmma_fence();
#pragma unroll
  for (int i = 0; i < SREGS; i++) asm volatile("" : "+f"(s[i]) : "r"(q), "r"(k));
  bt_wgmma_commit();"""
PV_BODY = """  bt_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < BLOCK_N / 16; kk++)
    wgmma_pv(o, pa[kk], bt_wgmma_desc(v + kk * 2048, BLOCK_N * 128, 1024));
  bt_wgmma_commit();"""
PV_NONE = """  bt_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < BLOCK_N / 16; kk++)
    asm volatile("" : "+f"(o[kk % OREGS]) : "r"(pa[kk][0]), "r"(pa[kk][1]), "r"(pa[kk][2]), "r"(pa[kk][3]), "r"(v));
  bt_wgmma_commit();"""
SOFTMAX_MAX = """                                            float &al_a, float &al_b) {
"""
SOFTMAX_MAX_NONE = SOFTMAX_MAX + """  al_a = 1.f;
  al_b = 1.f;
#pragma unroll
  for (int i = 0; i < SREGS; i++) asm volatile("" :: "f"(s[i]));
  asm volatile("" : "+f"(r.m_a), "+f"(r.m_b) : "f"(sl2));
  return;
"""
SOFTMAX_EXP = """                                            float al_b) {
"""
SOFTMAX_EXP_NONE = SOFTMAX_EXP + """#pragma unroll
  for (int i = 0; i < SREGS; i++) asm volatile("" : "+f"(s[i]));
  asm volatile("" : "+f"(r.l_a), "+f"(r.l_b) : "f"(sl2), "f"(al_a), "f"(al_b));
  return;
"""
KV_HEAD = """  const unsigned full = sm.bar(r, st, FULL_K + kind);
"""
ENTRY = "attn_fwd(const __grid_constant__ AttnParams p) {\n"


def patch(text, old, new, what):
    if text.count(old) != 1:
        sys.exit(f"fa3_floors: the anchor for {what} is not in the kernel source once; update the tool")
    return text.replace(old, new)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    modes = {
        "launch": {"fa3.cu": [(ENTRY, ENTRY + "  if (p.B > 0) return;\n", "the entry")]},
        "loads": {"fa3_tile.cuh": [(QK_BODY, QK_NONE, "QK^T"), (PV_BODY, PV_NONE, "PV"),
                                   (SOFTMAX_MAX, SOFTMAX_MAX_NONE, "the row max"),
                                   (SOFTMAX_EXP, SOFTMAX_EXP_NONE, "the exponentials")]},
        "nomma": {"fa3_tile.cuh": [(QK_BODY, QK_NONE, "QK^T"), (PV_BODY, PV_NONE, "PV")]},
        "nosoftmax": {"fa3_tile.cuh": [(SOFTMAX_MAX, SOFTMAX_MAX_NONE, "the row max"),
                                   (SOFTMAX_EXP, SOFTMAX_EXP_NONE, "the exponentials")]},
    }
    for mode, cond in (("loads_qk", "kind == 1"), ("loads_q", "true")):
        skip = KV_HEAD + f"  if ({cond}) {{ bt_mbar_arrive(full); return; }}\n"
        modes[mode] = dict(modes["loads"], **{"fa3.cu": [(KV_HEAD, skip, "the K/V load")]})
    for mode, files in modes.items():
        d = out / mode
        d.mkdir(parents=True, exist_ok=True)
        for f in list(ROOT.glob("*.cu")) + list(ROOT.glob("*.cuh")) + [ROOT / "attn_params.h"]:
            shutil.copy(f, d / f.name)
        for name, edits in files.items():
            text = (d / name).read_text()
            for old, new, what in edits:
                text = patch(text, old, new, what)
            if "return;" in "".join(new for _, new, _ in edits):  # the code after it is dead
                text = "#pragma nv_diag_suppress 128\n" + text
            (d / name).write_text(text)
        print(d)


if __name__ == "__main__":
    main()
