#!/usr/bin/env python3
"""Checks that a PNG holds a picture, not a blank page: decodes it with the standard library
(zlib, no imaging package) and requires enough non-background pixels and enough colours.
   png_stats.py FILE.png MIN_INK_FRACTION MIN_COLOURS"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = hdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    path, min_ink, min_colours = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    width, height, channels, rows = decode(path)
    counts = {}
    for line in rows:
        for x in range(0, len(line), channels):
            px = line[x:x + channels]
            if channels == 4 and px[3] == 0:
                px = b"\xff\xff\xff\x00"  # transparent reads as the white page
            counts[px[:3] if channels >= 3 else px[:1]] = counts.get(px[:3] if channels >= 3 else px[:1], 0) + 1
    background = max(counts, key=counts.get)
    ink = 1 - counts[background] / (width * height)
    colours = sum(1 for v in counts.values() if v >= 20)
    print(f"{path}: {width}x{height}, ink {ink:.3%}, {colours} colours of 20+ pixels")
    if ink < min_ink or colours < min_colours:
        sys.exit(f"{path}: looks blank (ink {ink:.3%} < {min_ink:.3%} or colours {colours} < {min_colours})")


main()
