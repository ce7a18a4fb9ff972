"""Players' names folded to what a display can draw: UTF-8 in, ASCII out.

A name (cowboy/names.py: 1-16 characters, any script) is decoded once, when it
changes, into a preallocated bytearray of characters the display kind draws:
Latin letters with diacritics lose them (`é` -> `e`, `ß` -> `ss`, `Ø` -> `O`),
combining marks and variation selectors vanish, and anything else becomes one
placeholder (`?` on the OLED, `-` on seven segments) for each run of such
characters. A name left with nothing but placeholders, spaces and points folds to
nothing: the views show the player number instead. The rules, with the table:
docs/DISPLAYS.md, "Players' names". Folding allocates nothing.
"""
from micropython import const

SEVEN = const(0)        # seven segments (draw/segments.py)
OLED = const(1)         # the OLED's small font (draw/glyphs.py SMALL)
PLACEHOLDER = b"-?"     # per kind: what stands for characters it cannot draw
CAP = const(24)         # folded bytes kept per name: the OLED's 21 cells, 8 digits and points

# U+00C0-U+017F (Latin-1 Supplement letters, Latin Extended-A) -> the ASCII letter,
# or 1-9: the two letters at PAIRS[2 * (n - 1)], or 0: the placeholder (only U+00F7).
# host_tests/test_display_names.py derives it again from Unicode's decompositions.
LATIN = (
    b"AAAAAA\x01CEEEEIIIIDNOOOOOxOUUUUY\x02\x03aaaaaa\x04ceeeeiiii"
    b"dnooooo\x00ouuuuy\x05yAaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGg"
    b"GgGgHhHhIiIiIiIiIi\x06\x07JjKkkLlLlLlLlLlNnNnNnnNnOoOo"
    b"Oo\x08\x09RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs")
PAIRS = b"AETHssaethIJijOEoe"

# ASCII -> what a display kind shows for it (0: the placeholder; 1: `uu`, seven
# segments' W). Seven segments: the letters as typed but O as o (O reads as 0), W
# as uu, X and the signs draw/segments.py leaves blank as the placeholder, brackets
# as [ ]. OLED: capitals (the font's lower case is its capitals), the signs the
# font lacks as their nearest sign or the placeholder. Constants, not loops at
# start-up; the test derives them again from draw/segments.py and draw/glyphs.py.
SEVEN_MAP = (
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b" \0\"\0\0\0\0'[]\0\0\0-./0123456789\0\0\0=\0?"
    b"\0ABCDEFGHIJKLMNoPQRSTUV\x01\0YZ[\0]^_"
    b"\0abcdefghijklmnopqrstuv\x01\0yz[\0]\0\0")
OLED_MAP = (
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b" !'#\0%+'()*+,-./0123456789::<=>?"
    b"\0ABCDEFGHIJKLMNOPQRSTUVWXYZ(\0)\0-"
    b"'ABCDEFGHIJKLMNOPQRSTUVWXYZ(\0)\0\0")


def fold(src, dst, at, cap, kind):
    """Name `src` (UTF-8 bytes) as display `kind` (SEVEN, OLED) draws it, into
    dst[at:at + cap]; returns its length, 0 when nothing of it can be drawn but
    placeholders, spaces and points (show the player number). Cut at cap bytes.
    Allocates nothing (ints only)."""
    amap = SEVEN_MAP if kind == SEVEN else OLED_MAP
    ph = PLACEHOLDER[kind]
    size = len(src)
    n = 0
    i = 0
    seen = False          # a character other than the placeholder, a space, a point
    run = False           # the last character written is a placeholder
    while i < size and n < cap:
        c = src[i]
        # one code point (cowboy/names.py checked the UTF-8; a bad byte still
        # gives a placeholder and moves on, never a read out of range)
        if c < 0x80:
            cp = c
            i += 1
        elif 0xC2 <= c <= 0xDF and i + 1 < size:
            cp = (c & 0x1F) << 6 | src[i + 1] & 0x3F
            i += 2
        elif 0xE0 <= c <= 0xEF and i + 2 < size:
            cp = (c & 0x0F) << 12 | (src[i + 1] & 0x3F) << 6 | src[i + 2] & 0x3F
            i += 3
        elif 0xF0 <= c <= 0xF4 and i + 3 < size:
            cp = ((c & 0x07) << 18 | (src[i + 1] & 0x3F) << 12 | (src[i + 2] & 0x3F) << 6
                  | src[i + 3] & 0x3F)
            i += 4
        else:
            cp = -1
            i += 1
        # up to two ASCII characters (0: the placeholder)
        b = 0
        if 0x20 <= cp < 0x7F:
            a = cp
        elif cp == 0xA0:
            a = 32                          # no-break space
        elif 0xC0 <= cp < 0x180:
            a = LATIN[cp - 0xC0]
            if 0 < a < 10:
                b = PAIRS[2 * a - 1]
                a = PAIRS[2 * a - 2]
        elif (0x300 <= cp <= 0x36F or 0x1AB0 <= cp <= 0x1AFF or 0x1DC0 <= cp <= 0x1DFF
              or 0x20D0 <= cp <= 0x20FF or 0xFE00 <= cp <= 0xFE0F or 0xFE20 <= cp <= 0xFE2F
              or 0x1F3FB <= cp <= 0x1F3FF or 0xE0100 <= cp <= 0xE01EF or cp == 0x200D):
            continue                        # it changes the one before: nothing shows
        else:
            a = 0
        # each through the display's map, then written
        while n < cap:
            m = amap[a] if a else 0
            if m == 1:                      # seven segments' W: two u's
                m = 117
                if b == 0:
                    b = 117
                elif n + 1 < cap:
                    dst[at + n] = 117
                    n += 1
            if m == 0:
                if not run:
                    dst[at + n] = ph
                    n += 1
                    run = True
            elif m == 46 and kind == SEVEN and (n == 0 or dst[at + n - 1] == 46):
                pass                        # a point lights the digit before it
            else:
                dst[at + n] = m
                n += 1
                run = False
                if m != 32 and m != 46:
                    seen = True
            if not b:
                break
            a = b
            b = 0
    return n if seen else 0


def digits(b, at, n, width):
    """How many of the n bytes of a folded name at b[at:] make its first `width`
    seven-segment digits (a point after a character takes no digit of its own)."""
    d = 0
    for k in range(n):
        if b[at + k] != 46:
            if d == width:
                return k
            d += 1
    return n


class Folded:
    """Every seat's name as one display kind draws it: `len[i]` bytes of `text`
    from i * CAP (one buffer for all seats), and
    for seven segments `cut_4digits[i]`, `cut_8digits[i]`: the bytes of its first 4 or 8 digits.
    Folded again only when `names[i]` is another object than the one last folded
    (refresh()): a name is a bytes object, replaced, never changed in place (the
    panel's contract, views/ui.py), so a render checks one identity, not bytes."""

    def __init__(self, kind, seats=8):
        self.kind = kind
        self.cap = CAP            # text's bytes per seat
        self.text = bytearray(seats * CAP)
        self.len = bytearray(seats)
        self.cut_4digits = bytearray(seats)
        self.cut_8digits = bytearray(seats)
        self.src = [b""] * seats

    def refresh(self, names, i):
        """Seat i's folded length, folding names[i] again when it changed."""
        raw = names[i]
        if raw is not self.src[i]:
            self.src[i] = raw
            b = self.text
            at = i * CAP
            n = self.len[i] = fold(raw, b, at, CAP, self.kind)
            self.cut_4digits[i] = digits(b, at, n, 4)
            self.cut_8digits[i] = digits(b, at, n, 8)
        return self.len[i]


TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)
if TYPE_CHECKING:
    from typing import List, Optional

_folded = [None, None]    # type: List[Optional[Folded]]


def folded(kind):
    """The one Folded of a display kind, shared by its layouts (a seat's layout
    also shows the winner's name)."""
    f = _folded[kind]
    if f is None:
        f = _folded[kind] = Folded(kind)
    return f


def prepare():
    """Both kinds' Folded made now. Called where names are set (app/playernames.py),
    never while drawing: a layout then finds its Folded ready, and drawing a name
    allocates nothing."""
    folded(SEVEN)
    folded(OLED)
