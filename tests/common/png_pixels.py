# Reads a PNG (8-bit RGB or RGBA, not interlaced: what Chromium's
# --screenshot writes) with zlib alone, for tests that check a screenshot's
# content (colours present, area not blank), never its pixels one by one.
import struct
import zlib


def read_png(path):
    """(width, height, rows): rows is a list of bytes, 3 bytes a pixel (RGB)"""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("%s: PNG depth %d colour type %d interlace %d "
                                 "(8-bit RGB/RGBA only)" % (path, depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else
                    bytes(b for i, b in enumerate(line) if i % 4 != 3))
    return w, h, rows


def count_near(rows, rgb, tol=8):
    """pixels within tol of colour rgb on each channel"""
    r0, g0, b0 = rgb
    n = 0
    for row in rows:
        for i in range(0, len(row), 3):
            if (abs(row[i] - r0) <= tol and abs(row[i + 1] - g0) <= tol
                    and abs(row[i + 2] - b0) <= tol):
                n += 1
    return n


def count_ink(rows, white=235):
    """pixels that are not (near) white: something was drawn there"""
    n = 0
    for row in rows:
        for i in range(0, len(row), 3):
            if row[i] < white or row[i + 1] < white or row[i + 2] < white:
                n += 1
    return n
