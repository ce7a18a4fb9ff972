"""An OLED picture made of character cells, composed page by page.

A layout (views/oled.py, `OLED_CELLS`) places each index of a text at a fixed position with a
kind of glyph (SMALL, BIG, DOUBLE); `Cells` turns it into `lay`, the table draw/blit.py's
`diff()` reads, and `page(buf, p, text, t, dx)` draws one page of a text (tests and tools: an
OLED needs no frame buffer, its own RAM is the picture). Nothing here allocates after
construction, but `page()` its buffers at its first call. The layout and `lay`:
docs/DISPLAYS.md, "Text cells".
"""
from draw.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE, BIG_PAGES
from draw.blit import blit, diff

NONE = 0
SMALL_CELL = 1
BIG_CELL = 2
DOUBLE_CELL = 3

HEIGHTS = (0, 1, BIG_PAGES, 2)    # pages it covers
_HEAD = 11                        # header bytes of Cells.lay


class Cells:
    def __init__(self, table, size, inv, mark_x=0, width=128, pages=8):
        if width != 128:
            raise ValueError(width)
        self.size = size
        kinds = bytearray(size)
        xs = bytearray(size)
        tops = bytearray(size)                # the top page of each cell
        self.pmask = bytearray(size)          # bit p: the cell draws on page p
        # the cells of each page, left to right, packed for blit.diff(): a header
        # (the mark flag's index, the mark's column, the first entry of each page
        # and the end), then 4 bytes an entry. (Locals and one
        # pass per cell: this runs before the first picture; 6 ms on the RP2040.)
        on = [[] for _ in range(pages)]       # per page: x << 8 | cell
        for first, count, kind, x, step, top in table:
            h = HEIGHTS[kind]
            for k in range(count):
                c = first + k
                kinds[c] = kind
                xs[c] = x + k * step
                tops[c] = top
                self.pmask[c] = ((1 << h) - 1) << top
                if c != inv:
                    for p in range(top, top + h):
                        on[p].append(xs[c] << 8 | c)
        self.pmask[inv] = 1
        n = 0
        for p in range(pages):
            n += len(on[p])
        if pages != 8 or n > 255 or inv > 255 or size > 256:
            raise ValueError("layout too large")
        lay = bytearray(_HEAD + 4 * n)
        lay[0] = inv
        lay[1] = mark_x
        i = _HEAD
        for p in range(pages):
            lay[2 + p] = (i - _HEAD) // 4
            cells = on[p]
            cells.sort()
            for v in cells:
                c = v & 0xFF
                lay[i] = c
                lay[i + 1] = kinds[c]
                lay[i + 2] = xs[c]
                lay[i + 3] = p - tops[c]
                i += 4
        lay[2 + pages] = n
        self.lay = bytes(lay)
        self._text = None       # Cells.page()'s buffers, made at its first call

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
