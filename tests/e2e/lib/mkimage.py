#!/usr/bin/env python3
"""mkimage.py — image files for the end-to-end tests, written with the standard library
only (zlib): a real PNG of any size, and crafted ones.

  mkimage.py png W H OUT        an RGB gradient PNG of W x H pixels
  mkimage.py truncated W H OUT  the same PNG cut in the middle of its pixel data
  mkimage.py bomb OUT           a PNG whose header says 100000 x 100000 pixels

Several in one call (python starts slowly on a loaded machine): the commands one after
the other, "mkimage.py png 40 30 a.png bomb b.png".
"""
import struct
import sys
import zlib


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(w, h, rows=None):
    raw = bytearray()
    red = bytes((x * 255) // max(w - 1, 1) for x in range(w))
    row = bytearray(3 * w)
    row[0::3] = red
    row[2::3] = b"\x80" * w
    for y in range(h if rows is None else rows):
        raw.append(0)  # filter: none
        row[1::3] = bytes(((y * 255) // max(h - 1, 1),)) * w
        raw += row
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))


def main(args):
    while args:
        kind = args[0]
        if kind == "png":
            data, n = png(int(args[1]), int(args[2])), 4
        elif kind == "truncated":
            full = png(int(args[1]), int(args[2]))
            data, n = full[: len(full) // 2], 4
        elif kind == "bomb":
            data = png(1, 1)
            ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
            data, n = data[:8] + chunk(b"IHDR", ihdr) + data[8 + 25:], 2
        else:
            sys.exit("usage: mkimage.py (png|truncated W H OUT | bomb OUT)...")
        open(args[n - 1], "wb").write(data)
        args = args[n:]


main(sys.argv[1:])
