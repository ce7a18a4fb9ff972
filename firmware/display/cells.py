"""An OLED picture made of character cells, composed column by column.

A layout (display/views.py, `OLED_CELLS`) places each index of a text at a fixed
position with a kind of glyph:

    (first index, count, kind, x of the first cell, step, top page)

SMALL: 5 columns on one page; BIG: 28 columns on six pages; DOUBLE: a small glyph
at twice the size, 10 columns on two pages. `inv` is the index of the flag that
inverts page 0 (the character "I"): the whole page lit, glyphs dark.

`Cells.compose(tx, off, page, x0, x1, text, dx)` writes columns x0..x1-1 of one
page of the picture (shifted dx columns right) into a transmit buffer, from the
pre-rendered glyphs: an OLED needs no frame buffer, its own RAM is the picture.
`Cells.span(c, dx)` and `Cells.pages` tell the driver where a changed cell lands.
Nothing here allocates after construction.
"""
from display.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE, BIG_W, BIG_PAGES
from display.blit import blit, fill

NONE = 0
SMALL_CELL = 1
BIG_CELL = 2
DOUBLE_CELL = 3

WIDTHS = (0, 5, BIG_W, 10)        # columns a cell kind draws
HEIGHTS = (0, 1, BIG_PAGES, 2)    # pages it covers
_BIG_BYTES = BIG_W * BIG_PAGES
_INVERTED = 73                    # "I"


class Cells:
    def __init__(self, table, size, inv, width=128, pages=8):
        self.size = size
        self.inv = inv
        self.width = width
        self.kind = bytearray(size)
        self.x = bytearray(size)
        self.page = bytearray(size)
        self.pmask = bytearray(size)      # bit p: the cell draws on page p
        for first, count, kind, x, step, page in table:
            for k in range(count):
                c = first + k
                self.kind[c] = kind
                self.x[c] = x + k * step
                self.page[c] = page
                self.pmask[c] = ((1 << HEIGHTS[kind]) - 1) << page
        self.pmask[inv] = 1
        # the cells of each page, left to right
        self.pages = []
        for p in range(pages):
            on = [c for c in range(size) if self.pmask[c] >> p & 1 and c != inv]
            on.sort(key=lambda c: self.x[c])
            self.pages.append(bytes(on))

    def width_of(self, c):
        return WIDTHS[self.kind[c]]

    def same_on_page(self, c, p, a, b):
        """Whether characters a and b draw the same bytes of cell c on page p."""
        if a == b:
            return True
        if self.kind[c] != BIG_CELL:
            return False
        ga = BIG_INDEX[a & 0x7F] * _BIG_BYTES + (p - self.page[c]) * BIG_W
        gb = BIG_INDEX[b & 0x7F] * _BIG_BYTES + (p - self.page[c]) * BIG_W
        if ga == gb:
            return True
        for i in range(BIG_W):
            if BIG[ga + i] != BIG[gb + i]:
                return False
        return True

    def compose(self, tx, off, p, x0, x1, text, dx):
        """Columns x0..x1-1 of page p of the picture of `text` into tx[off:]."""
        bg = 0xFF if p == 0 and text[self.inv] == _INVERTED else 0
        fill(tx, off, x1 - x0, bg)
        cells = self.pages[p]
        kinds = self.kind
        xs = self.x
        for k in range(len(cells)):      # left to right: stop past x1
            c = cells[k]
            x = xs[c] + dx
            if x >= x1:
                break
            kind = kinds[c]
            w = WIDTHS[kind]
            if x + w <= x0:
                continue
            a = x0 if x < x0 else x
            b = x1 if x + w > x1 else x + w
            ch = text[c] & 0x7F
            if kind == SMALL_CELL:
                blit(tx, off + a - x0, SMALL, ch * 5 + a - x, b - a, bg)
            elif kind == BIG_CELL:
                g = BIG_INDEX[ch] * _BIG_BYTES + (p - self.page[c]) * BIG_W
                blit(tx, off + a - x0, BIG, g + a - x, b - a, 0)
            else:
                hi = 1 if p != self.page[c] else 0
                for col in range(a, b):
                    v = SMALL[ch * 5 + ((col - x) >> 1)] >> 1
                    tx[off + col - x0] = DOUBLE[2 * v + hi]

    def draw(self, buf, text, dx):
        """The whole picture into a 1 KB MONO_VLSB frame buffer (tests, tools)."""
        for p in range(len(self.pages)):
            self.compose(buf, p * self.width, p, 0, self.width, text, dx)
