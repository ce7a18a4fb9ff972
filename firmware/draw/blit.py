"""Byte loops for composing OLED columns, portable Python.

On the Pico (sys.platform "rp2") the same functions come from draw/blit_viper.py (native code,
imported below); CPython, the unix and the WebAssembly MicroPython use these. Each function's
contract is in its docstring. Nothing here allocates (MicroPython v1.24 allocates a slice
object for `dst[a:b] = src`, so whole-buffer copies use these too). The page table `diff()`
reads: docs/DISPLAYS.md, "Text cells".
"""
import sys

from micropython import const

# draw/cells.py's WIDTH, HEAD and MARK, folded here (test_display_blit.py holds them equal)
_WIDTH = const(128)     # columns of a panel
_HEAD = const(11)       # header bytes of a layout's lay table
_MARK = const(73)       # 'I': the at-table mark


def blit(dst, d, src, s, n, x):
    """dst[d + i] = src[s + i] ^ x for i < n."""
    for i in range(n):
        dst[d + i] = src[s + i] ^ x


def fill(dst, d, n, v):
    """dst[d + i] = v for i < n."""
    for i in range(d, d + n):
        dst[i] = v


def changes(dst, src, n, mask):
    """Copy src[:n] into dst[:n]; return the OR of mask[i] over the i where they differed
    (an OLED's changed pages)."""
    m = 0
    for i in range(n):
        if dst[i] != src[i]:
            dst[i] = src[i]
            m |= mask[i]
    return m


def frame(tx, src, x, n, page, col):
    """An OLED I2C write of columns src[x:x + n] to `page` from RAM column `col`, into
    tx[:n + 7]: page and column as single commands (control byte 0x80 each), then 0x40 and the
    data."""
    tx[0] = 0x80
    tx[1] = 0xB0 | page
    tx[2] = 0x80
    tx[3] = col & 0x0F
    tx[4] = 0x80
    tx[5] = 0x10 | col >> 4
    tx[6] = 0x40
    for i in range(n):
        tx[7 + i] = src[x + i]


def decimal(buf, p, size, v, width):
    """v in decimal at buf[p:], right-aligned in `width` characters (spaces before it; 0: as
    wide as needed), nothing written at or past `size`; returns the position after it (draw/text.py
    Text.n)."""
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


def diff(new, old, spans, lay, want, sent, base, dx, p, merge, small, big, index, double):
    """The columns of page p to send, in one call. From the header of `lay` (draw/cells.py:
    [0] the mark flag's text index, [1] the mark's first column, [2 + q] the first entry of page
    q, entries of 4 bytes from byte 11) it finds the columns of the cells whose character differs
    between `want` (what is to show) and sent[base:] (what page p shows), composes both pictures
    over those columns into new and old, and writes the runs of differing columns (gaps of at most
    `merge` equal columns bridged, each rounded up to a multiple of 4 columns) as (first, end) byte
    pairs into spans; returns their number. merge < 0: the whole page composed into new, one span
    0-128."""
    a = lay[2 + p] * 4 + _HEAD
    e = lay[3 + p] * 4 + _HEAD
    inv = lay[0]
    mx = lay[1]
    winv = 1 if p == 0 and want[inv] == _MARK else 0
    sinv = 1 if p == 0 and sent[base + inv] == _MARK else 0
    if merge < 0:
        x0 = 0
        x1 = _WIDTH
    else:
        x0 = _WIDTH
        x1 = 0
        if winv != sinv:
            x0 = mx + dx if mx else 0
            x1 = _WIDTH
        for k in range(a, e, 4):
            c = lay[k]
            if want[c] != sent[base + c]:
                x = lay[k + 2] + dx
                if x < _WIDTH:
                    if x < x0:
                        x0 = x
                    kind = lay[k + 1]
                    x += 5 if kind == 1 else (28 if kind == 2 else 10)
                    if x > _WIDTH:
                        x = _WIDTH
                    if x > x1:
                        x1 = x
        if x0 >= x1:
            return 0
        x0 = x0 - 3 if x0 > 3 else 0            # room to round the runs up
        x1 = x1 + 3 if x1 < _WIDTH - 3 else _WIDTH
    for which in range(2):
        if which == 0:
            buf = new
            text = want
            t = 0
            invd = winv
        else:
            buf = old
            text = sent
            t = base
            invd = sinv
        bg = 0xFF if invd and mx == 0 else 0
        for i in range(x0, x1):
            buf[i] = bg
        for k in range(a, e, 4):
            x = lay[k + 2] + dx
            if x >= x1:
                break
            kind = lay[k + 1]
            w = 5 if kind == 1 else (28 if kind == 2 else 10)
            if x + w <= x0:
                continue
            c = text[t + lay[k]] & 0x7F
            row = lay[k + 3]
            i0 = x0 - x if x < x0 else 0
            i1 = x1 - x if x + w > x1 else w
            if kind == 1:
                s = c * 5
                for i in range(i0, i1):
                    buf[x + i] = small[s + i] ^ bg
            elif kind == 2:
                s = index[c] * 168 + row * 28
                for i in range(i0, i1):
                    buf[x + i] = big[s + i]
            else:
                s = c * 5
                for i in range(i0, i1):
                    buf[x + i] = double[2 * (small[s + (i >> 1)] >> 1) + row]
        if invd and mx:
            m = mx + dx
            for i in range(m if m > x0 else x0, x1):
                buf[i] ^= 0xFF
        if merge < 0:
            spans[0] = 0
            spans[1] = _WIDTH
            return 1
    n = 0
    i = x0
    while i < x1:
        while i < x1 and new[i] == old[i]:
            i += 1
        if i >= x1:
            break
        first = i
        end = i + 1
        i += 1
        while i < x1:
            if new[i] != old[i]:
                end = i + 1
            elif i - end >= merge:
                break
            i += 1
        end = first + ((end - first + 3) & ~3)  # a multiple of 4 columns
        if end > x1:
            first -= end - x1
            end = x1
        spans[2 * n] = first
        spans[2 * n + 1] = end
        n += 1
    return n


if sys.platform == "rp2":
    from draw.blit_viper import (blit, fill, changes,  # noqa: F811 (native)
                                    frame, decimal, diff)
