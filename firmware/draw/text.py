"""A fixed-size line of ASCII bytes with a write position: the views write
their texts into one per layout, and nothing is allocated per render."""
from micropython import const

from draw.blit import blit, fill, decimal

SPACE = const(32)


class Text:
    """A fixed-size line of ASCII bytes with a write position; allocates nothing."""

    def __init__(self, size):
        self.buf = bytearray(size)
        self.size = size
        self.pos = 0
        self.clear()

    # Whole-buffer work in C or native code: a Python loop pays a turn per byte
    # (docs/PERFORMANCE.md, "Calls written out"); a slice store allocates on MicroPython v1.24.
    def clear(self):
        fill(self.buf, 0, self.size, SPACE)
        self.pos = 0

    def at(self, pos):
        self.pos = pos

    def write(self, b):
        p = self.pos
        n = len(b)
        self.pos = p + n
        if p + n > self.size:
            n = self.size - p
        if n > 0:
            blit(self.buf, p, b, 0, n, 0)

    def part(self, b, at, n):
        """n bytes of b from b[at] (a folded name: draw/fold.py)."""
        p = self.pos
        self.pos = p + n
        if p + n > self.size:
            n = self.size - p
        if n > 0:
            blit(self.buf, p, b, at, n, 0)

    def char(self, ch):
        if self.pos < self.size:
            self.buf[self.pos] = ch
        self.pos += 1

    def number(self, v, width=0):
        """v in decimal, right-aligned in `width` characters (0: as wide as needed)."""
        self.pos = decimal(self.buf, self.pos, self.size, v, width)

    def balls(self, mask, sep):
        """The numbers of the balls in `mask` (facts.B1, B3, B5), separated by `sep`."""
        first = True
        for k in range(3):
            if mask & (1 << k):
                if not first and sep:
                    self.char(sep)
                self.char(49 + 2 * k)
                first = False

    def pad_digits(self, n):
        """Cut or pad with spaces so that exactly n digits precede the position
        (a '.' lights the point of the digit before it and takes no digit)."""
        buf = self.buf
        size = self.size
        d = 0
        for i in range(self.pos):
            if buf[i] != 46 or i == 0:
                d += 1
            if d > n:
                self.pos = i
                fill(buf, i, size - i, SPACE)
                return
        p = self.pos
        while d < n:
            if p < size:
                buf[p] = SPACE
            p += 1
            d += 1
        self.pos = p

    def ascii_oled(self, b, end):
        """A name (UTF-8 bytes) up to position `end`, for the OLED's font: letters in
        capitals, other printable ASCII as it is, any other character one '?' (the
        set-up menu and the desk's offer; the game's pages fold names, draw/fold.py)."""
        for i in range(len(b)):
            c = b[i]
            if 0x80 <= c < 0xC0:
                continue                    # the rest of a character already shown
            if self.pos >= end:
                return
            self.char(c - 32 if 97 <= c <= 122 else c if 32 <= c < 127 else 63)

    def same(self, other):
        return self.buf == other.buf

    def copy(self, other):
        blit(self.buf, 0, other.buf, 0, self.size, 0)

