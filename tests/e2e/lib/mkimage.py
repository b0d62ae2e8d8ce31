#!/usr/bin/env python3
"""mkimage.py — image files for the end-to-end tests, written with the standard library
only (zlib): a real PNG of any size, and crafted ones.

  mkimage.py png W H OUT        an RGB gradient PNG of W x H pixels
  mkimage.py truncated W H OUT  the same PNG cut in the middle of its pixel data
  mkimage.py bomb OUT           a PNG whose header says 100000 x 100000 pixels
"""
import struct
import sys
import zlib


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(w, h, rows=None):
    raw = bytearray()
    for y in range(h if rows is None else rows):
        raw.append(0)  # filter: none
        for x in range(w):
            raw += bytes(((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1), 128))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def main():
    kind = sys.argv[1]
    if kind == "png":
        data = png(int(sys.argv[2]), int(sys.argv[3]))
    elif kind == "truncated":
        full = png(int(sys.argv[2]), int(sys.argv[3]))
        data = full[: len(full) // 2]
    elif kind == "bomb":
        data = png(1, 1)
        ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
        data = data[:8] + chunk(b"IHDR", ihdr) + data[8 + 25:]
    else:
        sys.exit("usage: mkimage.py png|truncated W H OUT | bomb OUT")
    open(sys.argv[-1], "wb").write(data)


main()
