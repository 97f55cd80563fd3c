#!/usr/bin/env python3
"""Held-out problems for judging a grid's tuned table: problems NOT in the grid, chosen across
the sequence length S (powers of two and the lengths between them, 128 to 16k), the tiles' share
of a wave of SMs (B*H from a tenth of a wave to ~30 waves of 128-row tiles on 132 SMs), the head
dimension (64, 128, a few 256) and causal or not; fp16, one KV head per query head. Each
problem's FLOPs stay under 5.5e11, as the default grid's do (a measurement under ~1 s on an
H100). The same seed prints the same problems; the default seed is the one the GPU test
(tests/gpu/gpu_grid.sh) uses, so its held-out set is fixed in the repository.

usage: tools/heldout_problems.py [--seed N] [--count N] [--grid FILE] [--comma]"""
import argparse, math, os, random, sys

DEFAULT_SEED = 20261128
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GRID = os.path.join(HERE, "..", "kernels", "grids", "default.grid")
SMS, BLOCK_M, MAX_FLOPS = 132, 128, 5.5e11
LENGTHS = [128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384]
HEADS = [4, 8, 12, 16, 32]


def canonical(text):
    """The problem string as benchtop formats it (no :fp16, /Hkv and /Skv only when they differ)."""
    parts = text.split(":")
    dims = parts[0].split("x")
    b, h, s, d = dims
    hq, _, hkv = h.partition("/")
    sq, _, skv = s.partition("/")
    h = hq if not hkv or hkv == hq else "%s/%s" % (hq, hkv)
    s = sq if not skv or skv == sq else "%s/%s" % (sq, skv)
    out = "x".join([b, h, s, d])
    if "causal" in parts[1:]:
        out += ":causal"
    if "bf16" in parts[1:]:
        out += ":bf16"
    return out


def grid_problems(path):
    probs = set()
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line and not line[0].isalpha():
            probs.add(canonical(line))
    return probs


def flops(b, h, s, d, causal):
    pairs = s * s - (s * s / 2 if causal else 0)
    return 4.0 * b * h * pairs * d


def draw(rng, i, count):
    """Problem i of count: S, D and causal cycle through their strata (shuffled by the seed), the
    wave share is drawn log-uniformly."""
    s = LENGTHS[(i * len(LENGTHS)) // count] if count >= len(LENGTHS) else rng.choice(LENGTHS)
    d = 256 if i % 8 == 7 else (64 if (i // 2) % 2 == 0 else 128)
    causal = i % 2 == 1
    waves = math.exp(rng.uniform(math.log(0.1), math.log(30)))
    tiles = max(1, round(waves * SMS))
    per_head = -(-s // BLOCK_M)
    bh = max(1, round(tiles / per_head))
    h = rng.choice(HEADS)
    b = max(1, round(bh / h))
    while b > 1 and flops(b, h, s, d, causal) > MAX_FLOPS:
        b = max(1, b // 2)
    while h > 1 and flops(b, h, s, d, causal) > MAX_FLOPS:
        h //= 2
    if flops(b, h, s, d, causal) > MAX_FLOPS:
        return None
    return "%dx%dx%dx%d%s" % (b, h, s, d, ":causal" if causal else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--grid", default=DEFAULT_GRID, help="the grid whose problems are left out")
    ap.add_argument("--comma", action="store_true", help="one line, comma-separated")
    a = ap.parse_args()
    if a.count < 1 or a.count > 1000:
        print("heldout_problems: --count takes 1 to 1000, not %d" % a.count, file=sys.stderr)
        return 2
    try:
        taken = grid_problems(a.grid)
    except OSError as e:
        print("heldout_problems: cannot read the grid %s: %s" % (a.grid, e.strerror), file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    out, tries = [], 0
    order = list(range(a.count))
    rng.shuffle(order)
    for i in order:
        for _ in range(200):
            tries += 1
            p = draw(rng, i, a.count)
            if p and p not in taken and p not in out:
                out.append(p)
                break
        else:
            print("heldout_problems: found no new problem for slot %d in 200 draws" % i, file=sys.stderr)
            return 1
    print(",".join(out) if a.comma else "\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
