"""benchtop's attention problems on PyTorch's side: the shape grammar (docs/problems.md),
FLOPs and bytes as benchtop counts them, inputs, and the SDPA call that computes the same thing.

  B x Hq[/Hkv] x Sq[/Skv] x D [:causal] [:bf16|:fp16]      e.g. 8x32/8x1/8192x128:bf16

Grouped-query heads go to SDPA with enable_gqa=True; causal with Sq < Skv is aligned bottom-right
(query i sees keys 0 .. i + Skv - Sq), which SDPA spells as the causal_lower_right bias; with
Sq == Skv it is is_causal=True, as today. Pure parsing needs no torch (the unit test imports it)."""
from collections import namedtuple

Problem = namedtuple("Problem", "b hq hkv sq skv d causal dtype")


def _pair(text, what):
    first, _, second = text.partition("/")
    a = int(first)
    b = int(second) if second else a
    if a < 1 or b < 1:
        raise ValueError("%s must be positive" % what)
    return a, b


def parse(text):
    """A Problem from benchtop's shape text; ValueError naming the bad part otherwise."""
    dims, *suffixes = text.split(":")
    parts = dims.split("x")
    if len(parts) != 4:
        raise ValueError("expected B x Hq[/Hkv] x Sq[/Skv] x D in '%s'" % text)
    b = int(parts[0])
    hq, hkv = _pair(parts[1], "heads")
    sq, skv = _pair(parts[2], "lengths")
    d = int(parts[3])
    causal, dtype = False, "fp16"
    for s in suffixes:
        if s == "causal" and not causal:
            causal = True
        elif s in ("bf16", "fp16"):
            dtype = s
        else:
            raise ValueError("unknown or repeated suffix ':%s' in '%s'" % (s, text))
    if hq % hkv:
        raise ValueError("Hq %d is not a multiple of Hkv %d in '%s'" % (hq, hkv, text))
    if sq > skv:
        raise ValueError("Sq %d exceeds Skv %d in '%s'" % (sq, skv, text))
    return Problem(b, hq, hkv, sq, skv, d, causal, dtype)


def visible_pairs(p):
    """(query, key) pairs per (batch, query head), as benchtop's Shape_pairs counts them: causal
    is the area Sq*Skv - Sq*Sq/2 (today's S*S/2 when Sq == Skv)."""
    return p.sq * p.skv - p.sq * p.sq / 2.0 if p.causal else float(p.sq * p.skv)


def flops(text):
    p = parse(text)
    return 4.0 * p.b * p.hq * visible_pairs(p) * p.d


def bytes_moved(text):
    """Q and O once per query head, K and V once per KV head, 2 bytes an element."""
    p = parse(text)
    return 2.0 * p.b * p.d * (2 * p.hq * p.sq + 2 * p.hkv * p.skv)


def inputs(p, torch, gen):
    dt = torch.bfloat16 if p.dtype == "bf16" else torch.float16
    q = torch.randn(p.b, p.hq, p.sq, p.d, dtype=dt, device="cuda", generator=gen)
    k = torch.randn(p.b, p.hkv, p.skv, p.d, dtype=dt, device="cuda", generator=gen)
    v = torch.randn(p.b, p.hkv, p.skv, p.d, dtype=dt, device="cuda", generator=gen)
    return q, k, v


def sdpa_kwargs(p):
    """The keyword arguments that make F.scaled_dot_product_attention compute problem p."""
    kw = {}
    if p.hkv != p.hq:
        kw["enable_gqa"] = True
    if p.causal and p.sq == p.skv:
        kw["is_causal"] = True
    elif p.causal:
        from torch.nn.attention.bias import causal_lower_right
        kw["attn_mask"] = causal_lower_right(p.sq, p.skv)
    return kw
