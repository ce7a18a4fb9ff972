"""The native OLED byte loops (draw/blit_viper.py, the Pico's) do to the byte
what the portable ones (draw/blit.py) do, and allocate nothing: run under the
unix micropython, which has a native emitter too. diff()'s runs, written over the
page as it was drawn (Cells.page), give the page as it is to show."""
import mpy

SCRIPT = r"""
import micropython
from draw import blit as P
from draw import blit_viper as N
from draw.cells import Cells
from draw.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE
from views import oled as VO

cells = Cells(VO.OLED_CELLS, VO.OLED_TEXT, VO.OLED_INV, VO.OLED_MARK_X)
cells0 = Cells(VO.OLED_CELLS, VO.OLED_TEXT, VO.OLED_INV)
seed = [12345]


def rnd(n):
    s = seed[0]
    s ^= (s << 13) & 0x3FFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0x3FFFFFFF
    seed[0] = s
    return s % n


chars = b" 0123456789+-ABCDEFINORSTWXYZ!:,.?I" + bytes(range(128, 140))
texts = []
for k in range(40):
    t = bytearray(VO.OLED_TEXT + 3)
    for i in range(len(t)):
        t[i] = chars[rnd(len(chars))]
    texts.append(t)
a = bytearray(140)
b = bytearray(140)

# diff(): the same spans and bytes both ways, and the spans of `new` written over
# the page as `sent` draws it give the page as `want` draws it
bad = 0
wrong = 0
sends = 0
spans1 = bytearray(128)
spans2 = bytearray(128)
full = bytearray(128)
goal = bytearray(128)
for k in range(len(texts)):
    cl = cells if k % 2 else cells0          # the mark on part of page 0, or all
    want = bytearray(texts[k][:VO.OLED_TEXT])
    sent = bytearray(8 * VO.OLED_TEXT)
    for p in range(8):
        for i in range(VO.OLED_TEXT):       # the page's text: some cells differ
            sent[p * VO.OLED_TEXT + i] = want[i] if rnd(3) else chars[rnd(len(chars))]
    for dx in (0, 2):
        for p in range(8):
            base = p * VO.OLED_TEXT
            for merge in (-1, 0, 20):
                n1 = bytearray(128)
                o1 = bytearray(128)
                n2 = bytearray(128)
                o2 = bytearray(128)
                c1 = P.diff(n1, o1, spans1, cl.lay, want, sent, base, dx, p, merge,
                            SMALL, BIG, BIG_INDEX, DOUBLE)
                c2 = N.diff(n2, o2, spans2, cl.lay, want, sent, base, dx, p, merge,
                            SMALL, BIG, BIG_INDEX, DOUBLE)
                if c1 != c2 or n1 != n2 or o1 != o2 or spans1[:2 * c1] != spans2[:2 * c2]:
                    bad += 1
                cl.page(full, p, sent, base, dx)
                for j in range(c1):
                    sends += 1
                    for x in range(spans1[2 * j], spans1[2 * j + 1]):
                        full[x] = n1[x]
                cl.page(goal, p, want, 0, dx)
                if full != goal:
                    wrong += 1
print("diff", sends, "differ", bad, "wrong", wrong)


bad = 0
for k in range(200):
    src = bytearray(rnd(60) + 1)
    for i in range(len(src)):
        src[i] = rnd(4)
    mask = bytearray(len(src))
    for i in range(len(mask)):
        mask[i] = 1 << rnd(8)
    d1 = bytearray(len(src))
    d2 = bytearray(len(src))
    if P.changes(d1, src, len(src), mask) != N.changes(d2, src, len(src), mask) or d1 != d2 \
            or d1 != src:
        bad += 1
    P.blit(d1, 1, src, 0, len(src) - 1, 0x5A)
    N.blit(d2, 1, src, 0, len(src) - 1, 0x5A)
    P.fill(d1, 0, len(src) // 2, k & 0xFF)
    N.fill(d2, 0, len(src) // 2, k & 0xFF)
    if d1 != d2:
        bad += 1
    f1 = bytearray(80)
    f2 = bytearray(80)
    n = rnd(len(src) + 1)
    P.frame(f1, src, len(src) - n, n, k & 7, k % 132)
    N.frame(f2, src, len(src) - n, n, k & 7, k % 132)
    if f1 != f2 or f1[:7] != bytes((0x80, 0xB0 | k & 7, 0x80, k % 132 & 15, 0x80,
                                    0x10 | k % 132 >> 4, 0x40)):
        bad += 1
print("bytes differ", bad)

bad = 0
nums = 0
for v in (0, 1, 9, 10, 99, 100, 101, 999, 1000, 12345, 99999, 100000, 1073741823,
          -1, -9, -10, -45, -1073741823):
    for width in (0, 1, 3, 5, 12):
        for p in (0, 2, 6, 9, 12):
            b1 = bytearray(b"." * 10)
            b2 = bytearray(b"." * 10)
            r1 = P.decimal(b1, p, 10, v, width)
            r2 = N.decimal(b2, p, 10, v, width)
            nums += 1
            if r1 != r2 or b1 != b2:
                bad += 1
            if p == 0 and width <= 10 and v == 12345 and b1[:max(width, 5)].strip() != b"12345":
                bad += 1
print("decimal", nums, "differ", bad)

def locked(t):
    micropython.heap_lock()
    try:
        for p in range(8):
                cells.page(b, p, t, 0, 2)
        N.changes(a, b, 100, b)
        N.blit(a, 0, b, 0, 100, 0)
        N.fill(a, 0, 100, 0)
        N.decimal(a, 3, 100, -4567, 8)
        N.frame(a, b, 3, 20, 5, 66)
        N.diff(a, b, spans1, cells.lay, t, t, 0, 1, 3, 20, SMALL, BIG, BIG_INDEX, DOUBLE)
    finally:
        micropython.heap_unlock()
    return "no allocation"


locked = locked(texts[0])
print(locked)
"""


def test_native_loops_match_the_portable_ones_and_allocate_nothing():
    out = mpy.check(code=SCRIPT).lines()
    words = out[0].split()
    got = dict(zip(words[0::2], map(int, words[1::2])))      # "diff N differ 0 wrong 0"
    assert got == {"diff": got["diff"], "differ": 0, "wrong": 0} and got["diff"] > 500, got
    assert out[1] == "bytes differ 0"
    assert out[2] == "decimal %d differ 0" % (18 * 5 * 5)
    assert out[3] == "no allocation"


def test_the_folded_constants_are_the_layouts():
    """draw/blit.py, draw/blit_viper.py and views/oled.py fold draw/cells.py's
    WIDTH, HEAD and MARK as constants of their own (an imported name is looked up
    on every call): each copy has the value of its original."""
    import os
    import re
    from draw import cells
    want = {"_WIDTH": cells.WIDTH, "_HEAD": cells.HEAD, "_MARK": cells.MARK}
    for name, keys in (("draw/blit.py", want), ("draw/blit_viper.py", want),
                       ("views/oled.py", {"_MARK": cells.MARK})):
        with open(os.path.join(mpy.FIRMWARE, name)) as f:
            text = f.read()
        for key, value in keys.items():
            got = re.findall(r"^%s = const\((\d+)\)" % key, text, re.M)
            assert got == [str(value)], (name, key, got)
        code = re.sub(r"^_\w+ = const\(\d+\).*$", "", text, flags=re.M)
        assert not re.search(r"== 73\b|\(73\)|= 73\b", code), name
    assert cells.MARK == ord("I")
