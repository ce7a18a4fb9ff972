"""Byte loops for composing OLED columns, portable Python.

`blit(dst, d, src, s, n, x)`: dst[d + i] = src[s + i] ^ x for i < n.
`fill(dst, d, n, v)`: dst[d + i] = v for i < n.
`page(tx, off, lay, a, e, text, t, dx, bg, small, big, index, double)`: one
  128-column page of an OLED picture into tx[off:], from the layout entries
  lay[a:e] (display/cells.py: 4 bytes each, the text index, kind, x and row of a
  cell drawn on this page, left to right) and the characters text[t + index],
  dx columns to the right, on a background of bg (0xFF: inverted; small glyphs
  are drawn XOR bg); small, big, index, double: the tables of display/glyphs.py.
`changes(dst, src, n, mask)`: copies src[:n] into dst[:n] and returns the OR of
  mask[i] over the i where they differed (an OLED's changed pages).
`decimal(buf, p, size, v, width)`: v in decimal at buf[p:], right-aligned in
  `width` characters (spaces before it; 0: as wide as needed), nothing written at
  or past `size`; returns the position after it (display/views.py Text.n).
`run(new, old, i, merge)`: the next run of columns from i on where two composed
  pages differ, gaps of at most `merge` equal columns bridged, as a * 256 + b
  (columns a to b - 1), or -1 when none differs.

On the Pico (sys.platform "rp2") the same functions come from
display/blit_viper.py (native code, imported below); CPython, the unix and the
WebAssembly MicroPython use these. Nothing here allocates. (MicroPython v1.24
allocates a slice object for `dst[a:b] = src`, so whole-buffer copies use these
too.)
"""
import sys


def blit(dst, d, src, s, n, x):
    for i in range(n):
        dst[d + i] = src[s + i] ^ x


def fill(dst, d, n, v):
    for i in range(d, d + n):
        dst[i] = v


def page(tx, off, lay, a, e, text, t, dx, bg, small, big, index, double):
    for i in range(off, off + 128):
        tx[i] = bg
    while a < e:
        x = lay[a + 2] + dx
        if x >= 128:
            break
        c = text[t + lay[a]] & 0x7F
        kind = lay[a + 1]
        row = lay[a + 3]
        a += 4
        d = off + x
        if kind == 1:                       # small: 5 columns, one page
            n = 128 - x if x > 123 else 5
            s = c * 5
            for i in range(n):
                tx[d + i] = small[s + i] ^ bg
        elif kind == 2:                     # big: 28 columns, six pages
            n = 128 - x if x > 100 else 28
            s = index[c] * 168 + row * 28
            for i in range(n):
                tx[d + i] = big[s + i]
        else:                               # double: 10 columns, two pages
            n = 128 - x if x > 118 else 10
            s = c * 5
            for i in range(n):
                tx[d + i] = double[2 * (small[s + (i >> 1)] >> 1) + row]


def changes(dst, src, n, mask):
    m = 0
    for i in range(n):
        if dst[i] != src[i]:
            dst[i] = src[i]
            m |= mask[i]
    return m


def decimal(buf, p, size, v, width):
    neg = v < 0
    if neg:
        v = -v
    digits = 1
    t = v
    while t >= 10:
        t //= 10
        digits += 1
    w = digits + 1 if neg else digits
    while width > w:
        if p < size:
            buf[p] = 32
        p += 1
        width -= 1
    if neg:
        if p < size:
            buf[p] = 45
        p += 1
    q = p + digits - 1
    for i in range(digits):
        if 0 <= q - i < size:
            buf[q - i] = 48 + v % 10
        v //= 10
    return p + digits


def run(new, old, i, merge):
    while i < 128 and new[i] == old[i]:
        i += 1
    if i >= 128:
        return -1
    a = i
    b = i + 1
    i += 1
    while i < 128:
        if new[i] != old[i]:
            b = i + 1
        elif i - b >= merge:
            break
        i += 1
    return a * 256 + b


if sys.platform == "rp2":
    from display.blit_viper import blit, fill, page, changes, decimal, run  # noqa: F811 (native versions)
