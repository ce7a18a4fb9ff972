"""The byte loops of draw/blit.py as viper native code (device only).

Compiled by mpy-cross with -march=armv6m (tools/deploy.py); a port without a
native emitter (CPython, the WebAssembly MicroPython) cannot load this module,
so draw/blit.py imports it only on the Pico. Each function does what its
portable twin in draw/blit.py does (words() and frame_words(): in
chips/oled_fifo.py), to the byte (host_tests compare them under
the unix micropython, which has a native emitter too).
"""
import micropython
from micropython import const

# draw/cells.py's WIDTH, HEAD and MARK, folded here (test_display_blit.py holds them equal)
_WIDTH = const(128)     # columns of a panel
_HEAD = const(11)       # header bytes of a layout's lay table
_MARK = const(73)       # 'I': the at-table mark


@micropython.viper
def blit(dst, d: int, src, s: int, n: int, x: int):
    pd = ptr8(dst)
    ps = ptr8(src)
    i = 0
    while i < n:
        pd[d + i] = ps[s + i] ^ x
        i += 1


@micropython.viper
def fill(dst, d: int, n: int, v: int):
    pd = ptr8(dst)
    i = d
    e = d + n
    while i < e:
        pd[i] = v
        i += 1


@micropython.viper
def changes(dst, src, n: int, mask) -> int:
    pd = ptr8(dst)
    ps = ptr8(src)
    pm = ptr8(mask)
    m = 0
    i = 0
    while i < n:
        if pd[i] != ps[i]:
            pd[i] = ps[i]
            m |= pm[i]
        i += 1
    return m


@micropython.viper
def frame(tx, src, x: int, n: int, page: int, col: int):
    pt = ptr8(tx)
    ps = ptr8(src)
    pt[0] = 0x80
    pt[1] = 0xB0 | page
    pt[2] = 0x80
    pt[3] = col & 0x0F
    pt[4] = 0x80
    pt[5] = 0x10 | (col >> 4)
    pt[6] = 0x40
    i = 0
    while i < n:
        pt[7 + i] = ps[x + i]
        i += 1


@micropython.viper
def words(dst, at: int, src, n: int) -> int:
    pd = ptr16(dst)
    ps = ptr8(src)
    i = 0
    while i < n:
        pd[at + i] = ps[i]
        i += 1
    pd[at + n - 1] = ps[n - 1] | 0x200     # STOP after the last byte
    return at + n


@micropython.viper
def frame_words(dst, at: int, src, x: int, n: int, page: int, col: int) -> int:
    pd = ptr16(dst)
    ps = ptr8(src)
    pd[at] = 0x80
    pd[at + 1] = 0xB0 | page
    pd[at + 2] = 0x80
    pd[at + 3] = col & 0x0F
    pd[at + 4] = 0x80
    pd[at + 5] = 0x10 | (col >> 4)
    pd[at + 6] = 0x40
    d = at + 7
    i = 0
    while i < n:
        pd[d + i] = ps[x + i]
        i += 1
    pd[d + n - 1] = pd[d + n - 1] | 0x200  # STOP after the last byte
    return d + n


@micropython.viper
def decimal(buf, p: int, size: int, v: int, width: int) -> int:
    # (no division: the RP2040's core has none; digits by subtraction)
    pb = ptr8(buf)
    neg = 0
    if v < 0:
        neg = 1
        v = 0 - v
    digits = 1
    top = 1                 # 10 ** (digits - 1)
    while top <= 100000000 and v >= top * 10:
        top = top * 10
        digits += 1
    w = digits + neg
    while width > w:
        if p < size:
            pb[p] = 32
        p += 1
        width -= 1
    if neg:
        if p < size:
            pb[p] = 45
        p += 1
    i = 0
    while i < digits:
        d = 0
        while v >= top:
            v -= top
            d += 1
        if 0 <= p + i and p + i < size:
            pb[p + i] = 48 + d
        t = 1               # the next power of ten down
        while t * 10 < top:
            t = t * 10
        top = t
        i += 1
    return p + digits


@micropython.viper
def diff(new, old, spans, lay, want, sent, base: int, dx: int, p: int, merge: int,
         small, big, index, double) -> int:
    pn = ptr8(new)
    po = ptr8(old)
    sp = ptr8(spans)
    pl = ptr8(lay)
    pw = ptr8(want)
    pz = ptr8(sent)
    ps = ptr8(small)
    pg = ptr8(big)
    pi = ptr8(index)
    pd = ptr8(double)
    a = pl[2 + p] * 4 + _HEAD
    e = pl[3 + p] * 4 + _HEAD
    inv = pl[0]
    mx = pl[1]
    winv = 0
    sinv = 0
    if p == 0:
        if pw[inv] == _MARK:
            winv = 1
        if pz[base + inv] == _MARK:
            sinv = 1
    x0 = 0
    x1 = _WIDTH
    if merge >= 0:
        x0 = _WIDTH
        x1 = 0
        if winv != sinv:
            x0 = 0
            if mx:
                x0 = mx + dx
            x1 = _WIDTH
        k = a
        while k < e:
            c = pl[k]
            if pw[c] != pz[base + c]:
                x = pl[k + 2] + dx
                if x < _WIDTH:
                    if x < x0:
                        x0 = x
                    kind = pl[k + 1]
                    if kind == 1:
                        x += 5
                    elif kind == 2:
                        x += 28
                    else:
                        x += 10
                    if x > _WIDTH:
                        x = _WIDTH
                    if x > x1:
                        x1 = x
            k += 4
        if x0 >= x1:
            return 0
        x0 -= 3
        if x0 < 0:
            x0 = 0
        x1 += 3
        if x1 > _WIDTH:
            x1 = _WIDTH
    which = 0
    while which < 2:
        pb = pn
        pt = pw
        t = 0
        invd = winv
        if which:
            pb = po
            pt = pz
            t = base
            invd = sinv
        bg = 0
        if invd and mx == 0:
            bg = 0xFF
        i = x0
        while i < x1:
            pb[i] = bg
            i += 1
        k = a
        while k < e:
            x = pl[k + 2] + dx
            if x >= x1:
                break
            kind = pl[k + 1]
            w = 10
            if kind == 1:
                w = 5
            elif kind == 2:
                w = 28
            if x + w > x0:
                c = pt[t + pl[k]] & 0x7F
                row = pl[k + 3]
                i = 0
                if x < x0:
                    i = x0 - x
                i1 = w
                if x + w > x1:
                    i1 = x1 - x
                if kind == 1:
                    s = c * 5
                    while i < i1:
                        pb[x + i] = ps[s + i] ^ bg
                        i += 1
                elif kind == 2:
                    s = pi[c] * 168 + row * 28
                    while i < i1:
                        pb[x + i] = pg[s + i]
                        i += 1
                else:
                    s = c * 5
                    while i < i1:
                        pb[x + i] = pd[2 * (ps[s + (i >> 1)] >> 1) + row]
                        i += 1
            k += 4
        if invd and mx:
            i = mx + dx
            if i < x0:
                i = x0
            while i < x1:
                pb[i] = pb[i] ^ 0xFF
                i += 1
        if merge < 0:
            sp[0] = 0
            sp[1] = _WIDTH
            return 1
        which += 1
    n = 0
    i = x0
    while i < x1:
        while i < x1 and pn[i] == po[i]:
            i += 1
        if i >= x1:
            break
        first = i
        end = i + 1
        i += 1
        while i < x1:
            if pn[i] != po[i]:
                end = i + 1
            elif i - end >= merge:
                break
            i += 1
        end = first + ((end - first + 3) & 0xFFFC)
        if end > x1:
            first -= end - x1
            end = x1
        sp[2 * n] = first
        sp[2 * n + 1] = end
        n += 1
    return n
