"""Fonts for the OLED frame buffer (MONO_VLSB, 128 columns per page).

SMALL: 5x7 capitals, digits and a few signs, drawn in a 6-pixel cell on one 8-row
page; the glyph sits on rows 1-7, so row 0 spaces it from the line above (and
gives an inverted line a lit margin).
BIG: 28x48 cells (six pages) with bevelled strokes on rows 1-47, generated at
start-up from the seven-segment shapes, so that any character the segment table
knows has a big form.
Drawing writes whole bytes into the buffer: nothing is allocated.
"""
from display.segments import CHARS, SEG_A, SEG_B, SEG_C, SEG_D, SEG_E, SEG_F, SEG_G

SMALL_W = 6           # cell width: 5 pixels and a gap
BIG_W = 28
BIG_H = 48
BIG_PAGES = 6
BIG_STROKE = 7

_SMALL_SRC = """
0 .###. #...# #..## #.#.# ##..# #...# .###.
1 ..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.
2 .###. #...# ....# ...#. ..#.. .#... #####
3 ##### ...#. ..#.. ...#. ....# #...# .###.
4 ...#. ..##. .#.#. #..#. ##### ...#. ...#.
5 ##### #.... ####. ....# ....# #...# .###.
6 ..##. .#... #.... ####. #...# #...# .###.
7 ##### ....# ...#. ..#.. .#... .#... .#...
8 .###. #...# #...# .###. #...# #...# .###.
9 .###. #...# #...# .#### ....# ...#. .##..
A .###. #...# #...# ##### #...# #...# #...#
B ####. #...# #...# ####. #...# #...# ####.
C .###. #...# #.... #.... #.... #...# .###.
D ###.. #..#. #...# #...# #...# #..#. ###..
E ##### #.... #.... ####. #.... #.... #####
F ##### #.... #.... ####. #.... #.... #....
G .###. #...# #.... #.### #...# #...# .####
H #...# #...# #...# ##### #...# #...# #...#
I .###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
J ..### ...#. ...#. ...#. ...#. #..#. .##..
K #...# #..#. #.#.. ##... #.#.. #..#. #...#
L #.... #.... #.... #.... #.... #.... #####
M #...# ##.## #.#.# #.#.# #...# #...# #...#
N #...# #...# ##..# #.#.# #..## #...# #...#
O .###. #...# #...# #...# #...# #...# .###.
P ####. #...# #...# ####. #.... #.... #....
Q .###. #...# #...# #...# #.#.# #..#. .##.#
R ####. #...# #...# ####. #.#.. #..#. #...#
S .#### #.... #.... .###. ....# ....# ####.
T ##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
U #...# #...# #...# #...# #...# #...# .###.
V #...# #...# #...# #...# #...# .#.#. ..#..
W #...# #...# #...# #.#.# #.#.# #.#.# .#.#.
X #...# #...# .#.#. ..#.. .#.#. #...# #...#
Y #...# #...# .#.#. ..#.. ..#.. ..#.. ..#..
Z ##### ....# ...#. ..#.. .#... #.... #####
- ..... ..... ..... ##### ..... ..... .....
+ ..... ..#.. ..#.. ##### ..#.. ..#.. .....
: ..... .##.. .##.. ..... .##.. .##.. .....
. ..... ..... ..... ..... ..... .##.. .##..
, ..... ..... ..... ..... .##.. ..#.. .#...
/ ....# ....# ...#. ..#.. .#... #.... #....
! ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..
? .###. #...# ....# ...#. ..#.. ..... ..#..
> .#... ..#.. ...#. ....# ...#. ..#.. .#...
< ...#. ..#.. .#... #.... .#... ..#.. ...#.
= ..... ..... ##### ..... ##### ..... .....
( ...#. ..#.. .#... .#... .#... ..#.. ...#.
) .#... ..#.. ...#. ...#. ...#. ..#.. .#...
# .#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.
% ##..# ##..# ...#. ..#.. .#... #..## #..##
* ..... #.#.# .###. ##### .###. #.#.# .....
' ..#.. ..#.. .#... ..... ..... ..... .....
"""

SMALL = bytearray(128 * 5)     # ASCII -> 5 column bytes


def _small():
    for line in _SMALL_SRC.split("\n"):
        if not line:
            continue
        parts = line.split(" ")
        code = ord(parts[0])
        for x in range(5):
            col = 0
            for r in range(7):
                if parts[1 + r][x] == "#":
                    col |= 1 << (r + 1)
            SMALL[code * 5 + x] = col
    for c in range(26):       # lower case shows as capitals
        for x in range(5):
            SMALL[(97 + c) * 5 + x] = SMALL[(65 + c) * 5 + x]


_small()
del _small, _SMALL_SRC

# Big glyphs are made for these characters; others draw blank.
BIG_CHARS = b" 0123456789-=_?AbCdEFHLnoOPrStUy"
_BIG_INDEX = bytearray(128)
BIG = bytearray(len(BIG_CHARS) * BIG_W * BIG_PAGES)


def _bar(g, horizontal, c, lo, hi):
    """A bevelled bar: centre line c, from lo to hi along its length."""
    h = BIG_STROKE // 2
    for d in range(-h, h + 1):
        a = lo + (d if d > 0 else -d)
        b = hi - (d if d > 0 else -d)
        for t in range(a, b + 1):
            x, y = (t, c + d) if horizontal else (c + d, t)
            g[(y >> 3) * BIG_W + x] |= 1 << (y & 7)


def _big():
    h = BIG_STROKE // 2
    left, right = h, BIG_W - 1 - h
    top, mid, bot = h + 1, BIG_H // 2, BIG_H - 1 - h
    g = bytearray(BIG_W * BIG_PAGES)
    for k in range(len(BIG_CHARS)):
        ch = BIG_CHARS[k]
        _BIG_INDEX[ch] = k
        s = CHARS[ch]
        for i in range(len(g)):
            g[i] = 0
        if s & SEG_A:
            _bar(g, True, top, left + 1, right - 1)
        if s & SEG_G:
            _bar(g, True, mid, left + 1, right - 1)
        if s & SEG_D:
            _bar(g, True, bot, left + 1, right - 1)
        if s & SEG_F:
            _bar(g, False, left, top + 1, mid - 1)
        if s & SEG_B:
            _bar(g, False, right, top + 1, mid - 1)
        if s & SEG_E:
            _bar(g, False, left, mid + 1, bot - 1)
        if s & SEG_C:
            _bar(g, False, right, mid + 1, bot - 1)
        # a glyph that is one stroke wide (1, I) stands in the middle of its cell
        lo, hi = BIG_W, -1
        for x in range(BIG_W):
            for p in range(BIG_PAGES):
                if g[p * BIG_W + x]:
                    lo, hi = min(lo, x), max(hi, x)
        shift = 0
        if 0 <= hi - lo <= BIG_STROKE:
            shift = (BIG_W - (hi - lo + 1)) // 2 - lo
        base = k * BIG_W * BIG_PAGES
        for p in range(BIG_PAGES):
            for x in range(BIG_W):
                src = x - shift
                BIG[base + p * BIG_W + x] = g[p * BIG_W + src] if 0 <= src < BIG_W else 0


_big()
del _big, _bar


def small(buf, x, page, text, n, width=128):
    """Draw the first n characters of ASCII `text` at column x of `page`."""
    row = page * width
    for i in range(n):
        c = text[i] & 0x7F
        for j in range(5):
            if 0 <= x < width:
                buf[row + x] = SMALL[c * 5 + j]
            x += 1
        if 0 <= x < width:
            buf[row + x] = 0
        x += 1
    return x


def big(buf, x, page, ch, width=128):
    """Draw one big character with its top-left corner at column x of `page`."""
    base = _BIG_INDEX[ch & 0x7F] * BIG_W * BIG_PAGES
    for p in range(BIG_PAGES):
        row = (page + p) * width
        src = base + p * BIG_W
        for j in range(BIG_W):
            if 0 <= x + j < width:
                buf[row + x + j] = BIG[src + j]
    return x + BIG_W


def clear(buf, page, pages, width=128):
    for i in range(page * width, (page + pages) * width):
        buf[i] = 0


def small_from(buf, x, page, text, start, n, inverse=False, width=128):
    """Draw n characters of `text` from index `start`; `inverse` draws dark on lit."""
    row = page * width
    for i in range(n):
        c = text[start + i] & 0x7F
        for j in range(6):
            if 0 <= x < width:
                col = SMALL[c * 5 + j] if j < 5 else 0
                buf[row + x] = (col ^ 0xFF) if inverse else col
            x += 1
    return x


def small2(buf, x, page, text, start, n, width=128):
    """Draw n characters at twice the size (12-pixel cells, two pages)."""
    row0 = page * width
    row1 = row0 + width
    for i in range(n):
        c = text[start + i] & 0x7F
        for j in range(5):
            col = SMALL[c * 5 + j] >> 1          # the 7 glyph rows
            lo = 0
            hi = 0
            for r in range(7):
                if col >> r & 1:
                    y = 2 * r + 1                # doubled rows 1-14 of 16
                    if y < 8:
                        lo |= 3 << y if y < 7 else 1 << 7
                        if y == 7:
                            hi |= 1
                    else:
                        hi |= 3 << (y - 8)
            for k in range(2):
                xx = x + 2 * j + k
                if 0 <= xx < width:
                    buf[row0 + xx] = lo & 0xFF
                    buf[row1 + xx] = hi & 0xFF
        x += 12
    return x
