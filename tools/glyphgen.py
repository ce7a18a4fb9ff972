"""Pre-render the OLED glyphs into firmware/draw/glyphs.py (bytes constants).

The chip never computes a glyph: this tool draws the 5x7 small font from the
pattern table below, the 28x48 big digits from the seven-segment shapes of
draw/segments.py (so every character the segment table knows has a big
form), and the table that doubles a small glyph column for the double-size text.
The generated module is committed; host_tests/test_display_glyphs.py fails when
it differs from what this tool writes.

    python tools/glyphgen.py            # rewrite firmware/draw/glyphs.py
    python tools/glyphgen.py --check    # exit 1 if it is out of date
"""
import os
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from draw.segments import CHARS, SEG_A, SEG_B, SEG_C, SEG_D, SEG_E, SEG_F, SEG_G  # noqa: E402

OUT = os.path.join(ROOT, "firmware", "draw", "glyphs.py")

SMALL_W = 6           # cell width: 5 pixels and a gap
BIG_W = 28
BIG_H = 48
BIG_PAGES = 6
BIG_STROKE = 7
# Big glyphs are made for these characters; others draw blank (index 0, the space).
BIG_CHARS = b" 0123456789-=_?AbCdEFHLnoOPrStUy"

# Each row: the character, then its 7 rows of 5 pixels ("#" lit).
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


def small():
    """ASCII -> 5 column bytes (bit 0 on top; the glyph on rows 1-7)."""
    out = bytearray(128 * 5)
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
            out[code * 5 + x] = col
    for c in range(26):       # lower case shows as capitals
        out[(97 + c) * 5:(97 + c) * 5 + 5] = out[(65 + c) * 5:(65 + c) * 5 + 5]
    return bytes(out)


def _bar(g, horizontal, c, lo, hi):
    """A bevelled bar: centre line c, from lo to hi along its length."""
    h = BIG_STROKE // 2
    for d in range(-h, h + 1):
        a = lo + abs(d)
        b = hi - abs(d)
        for t in range(a, b + 1):
            x, y = (t, c + d) if horizontal else (c + d, t)
            g[(y >> 3) * BIG_W + x] |= 1 << (y & 7)


def big():
    """(index: ASCII -> glyph number, glyphs: BIG_PAGES pages of BIG_W bytes each)."""
    h = BIG_STROKE // 2
    left, right = h, BIG_W - 1 - h
    top, mid, bot = h + 1, BIG_H // 2, BIG_H - 1 - h
    index = bytearray(128)
    out = bytearray(len(BIG_CHARS) * BIG_W * BIG_PAGES)
    for k, ch in enumerate(BIG_CHARS):
        index[ch] = k
        s = CHARS[ch]
        g = bytearray(BIG_W * BIG_PAGES)
        for seg, horizontal, c, lo, hi in (
                (SEG_A, True, top, left + 1, right - 1),
                (SEG_G, True, mid, left + 1, right - 1),
                (SEG_D, True, bot, left + 1, right - 1),
                (SEG_F, False, left, top + 1, mid - 1),
                (SEG_B, False, right, top + 1, mid - 1),
                (SEG_E, False, left, mid + 1, bot - 1),
                (SEG_C, False, right, mid + 1, bot - 1)):
            if s & seg:
                _bar(g, horizontal, c, lo, hi)
        # a glyph that is one stroke wide (1, I) stands in the middle of its cell
        used = [x for x in range(BIG_W) if any(g[p * BIG_W + x] for p in range(BIG_PAGES))]
        shift = 0
        if used and used[-1] - used[0] <= BIG_STROKE:
            shift = (BIG_W - (used[-1] - used[0] + 1)) // 2 - used[0]
        base = k * BIG_W * BIG_PAGES
        for p in range(BIG_PAGES):
            for x in range(BIG_W):
                src = x - shift
                out[base + p * BIG_W + x] = g[p * BIG_W + src] if 0 <= src < BIG_W else 0
    return bytes(index), bytes(out)


def double():
    """A small glyph column (shifted down to rows 0-6) at twice the height: the
    bytes of the two pages it covers (rows 1-14 of 16), low page first."""
    out = bytearray(256)
    for v in range(128):
        w = 0
        for r in range(7):
            if v >> r & 1:
                w |= 3 << (2 * r + 1)
        out[2 * v] = w & 0xFF
        out[2 * v + 1] = w >> 8
    return bytes(out)


def _bytes(name, data, per_line=24):
    lines = ["%s = (" % name]
    for i in range(0, len(data), per_line):
        lines.append("    b\"" + "".join("\\x%02x" % b for b in data[i:i + per_line]) + "\"")
    lines.append(")")
    return "\n".join(lines)


def render():
    """The text of the generated module."""
    index, glyphs = big()
    parts = [
        '"""OLED glyphs, pre-rendered by tools/glyphgen.py: do not edit by hand.',
        "",
        "SMALL: ASCII -> 5 column bytes (MONO_VLSB, bit 0 on top, glyph on rows 1-7).",
        "BIG: %d glyphs of %d pages x %d columns; BIG_INDEX: ASCII -> glyph number." % (
            len(BIG_CHARS), BIG_PAGES, BIG_W),
        "DOUBLE: small column >> 1 -> its two bytes at twice the height (low page first).",
        '"""',
        "SMALL_W = %d" % SMALL_W,
        "BIG_W = %d" % BIG_W,
        "BIG_H = %d" % BIG_H,
        "BIG_PAGES = %d" % BIG_PAGES,
        "BIG_CHARS = %r" % BIG_CHARS,
        _bytes("SMALL", small()),
        _bytes("BIG_INDEX", index),
        _bytes("BIG", glyphs, 28),
        _bytes("DOUBLE", double()),
    ]
    return "\n".join(parts) + "\n"


def main(argv):
    p = options.argparser("glyphgen.py", __doc__, short="python tools/glyphgen.py [--check]")
    p.add_argument("--check", action="store_true")
    args = p.read(argv[1:])
    if type(args) is int:
        return args
    text = render()
    if args.check:
        with open(OUT) as f:
            if f.read() != text:
                print("firmware/draw/glyphs.py is out of date: run python tools/glyphgen.py")
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
