"""An OLED picture made of character cells, composed page by page.

A layout (display/views.py, `OLED_CELLS`) places each index of a text at a fixed
position with a kind of glyph:

    (first index, count, kind, x of the first cell, step, top page)

SMALL: 5 columns on one page; BIG: 28 columns on six pages; DOUBLE: a small glyph
at twice the size, 10 columns on two pages. `inv` is the index of the flag that
inverts page 0 (the character "I") from column `mark_x` on (0: the whole page) to
the right edge: those columns lit, glyphs dark.

`Cells.page(buf, p, text, t, dx)` writes the 128 columns of page p of the picture
of text[t:t + size] (shifted dx columns right) into a buffer, from the
pre-rendered glyphs (tests and tools; an OLED needs no frame buffer, its own RAM
is the picture). The work is display/blit.py's `diff()` over
`lay`, the cells of each page left to right as 4 bytes (text index, kind, x, row
of the cell on that page), those of page p at lay[at[p]:at[p + 1]], after a header
(the OLED driver makes the same call, one a changed page). Nothing here allocates
after construction, but `page()` its buffers at its first call.
"""
from display.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE, BIG_W, BIG_PAGES
from display.blit import blit, diff

NONE = 0
SMALL_CELL = 1
BIG_CELL = 2
DOUBLE_CELL = 3

WIDTHS = (0, 5, BIG_W, 10)        # columns a cell kind draws
HEIGHTS = (0, 1, BIG_PAGES, 2)    # pages it covers
_INVERTED = 73                    # "I"
_HEAD = 11                        # header bytes of Cells.lay


class Cells:
    def __init__(self, table, size, inv, mark_x=0, width=128, pages=8):
        if width != 128:
            raise ValueError(width)
        self.size = size
        self.inv = inv
        self.mark_x = mark_x
        self.width = width
        self.kind = bytearray(size)
        self.x = bytearray(size)
        self.top = bytearray(size)        # the top page of each cell
        self.pmask = bytearray(size)      # bit p: the cell draws on page p
        for first, count, kind, x, step, top in table:
            for k in range(count):
                c = first + k
                self.kind[c] = kind
                self.x[c] = x + k * step
                self.top[c] = top
                self.pmask[c] = ((1 << HEIGHTS[kind]) - 1) << top
        self.pmask[inv] = 1
        # the cells of each page, left to right, packed for blit.page() and
        # blit.diff(): a header (the mark flag's index, the mark's column, the first
        # entry of each page and the end), then 4 bytes an entry
        entries = []
        first = []
        for p in range(pages):
            first.append(len(entries) // 4)
            on = [c for c in range(size) if self.pmask[c] >> p & 1 and c != inv]
            on.sort(key=lambda c: self.x[c])
            for c in on:
                entries += [c, self.kind[c], self.x[c], p - self.top[c]]
        first.append(len(entries) // 4)
        if pages != 8 or first[-1] > 255 or inv > 255:
            raise ValueError("layout too large")
        self.lay = bytes([inv, mark_x] + first + entries)
        self._text = None       # Cells.page()'s buffers, made at its first call
        self.at = tuple(_HEAD + 4 * k for k in first)
        self.pages = pages

    def inverted(self, p, text, t):
        """Whether page p of the picture of text[t:] has its mark (inverted columns)."""
        return p == 0 and text[t + self.inv] == _INVERTED

    def page(self, buf, p, text, t, dx, off=0):
        """The 128 columns of page p of the picture of text[t:t + size] into
        buf[off:] (tests and tools: the OLED driver calls diff() itself)."""
        if self._text is None:
            self._text = bytearray(self.size)
            self._page = bytearray(128)
            self._spans = bytearray(2)
        blit(self._text, 0, text, t, self.size, 0)
        diff(self._page, self._page, self._spans, self.lay, self._text, self._text, 0, dx,
             p, -1, SMALL, BIG, BIG_INDEX, DOUBLE)
        blit(buf, off, self._page, 0, 128, 0)

    def draw(self, buf, text, dx):
        """The whole picture into a 1 KB MONO_VLSB frame buffer (tests, tools)."""
        for p in range(self.pages):
            self.page(buf, p, text, 0, dx, p * 128)
