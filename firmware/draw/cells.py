"""An OLED picture made of character cells, composed page by page.

A layout (views/oled.py, `OLED_CELLS`) places each index of a text at a fixed position with a
kind of glyph (SMALL, BIG, DOUBLE); `Cells` turns it into `lay`, the table draw/blit.py's
`diff()` reads, and `page(buf, p, text, t, dx)` draws one page of a text (tests and tools).
`Picture` is what a panel shows of such a text and what it still lacks: the changed columns,
composed for the panel's driver (chips/oled.py, a subclass) to send. An OLED needs no frame
buffer: its own RAM is the picture. Nothing here allocates after construction, but `page()`
its buffers at its first call. The layout and `lay`: docs/DISPLAYS.md, "Text cells"; the
picture: "The OLED driver".
"""
from micropython import const

from draw.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE, BIG_PAGES
from draw.blit import blit, changes, diff

TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)

NONE = 0
SMALL_CELL = 1
BIG_CELL = 2
DOUBLE_CELL = 3

HEIGHTS = (0, 1, BIG_PAGES, 2)    # pages it covers
WIDTH = const(128)                # columns of a panel
PAGES = const(8)
HEAD = const(11)                  # header bytes of Cells.lay
MARK = const(73)                  # 'I' at the layout's mark index: the at-table mark
# (draw/blit.py and draw/blit_viper.py fold these as constants of their own: a name
# imported from here would be looked up on every call; test_display_blit.py holds
# them equal)


class Cells:
    def __init__(self, table, size, inv, mark_x=0, width=WIDTH, pages=PAGES):
        if width != WIDTH:
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
        if pages != PAGES or n > 255 or inv > 255 or size > 256:
            raise ValueError("layout too large")
        lay = bytearray(HEAD + 4 * n)
        lay[0] = inv
        lay[1] = mark_x
        i = HEAD
        for p in range(pages):
            lay[2 + p] = (i - HEAD) // 4
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
            self._page = bytearray(WIDTH)
            self._spans = bytearray(2)
        blit(self._text, 0, text, t, self.size, 0)
        diff(self._page, self._page, self._spans, self.lay, self._text, self._text, 0, dx,
             p, -1, SMALL, BIG, BIG_INDEX, DOUBLE)
        blit(buf, off, self._page, 0, WIDTH, 0)


UNKNOWN = const(255)      # a page whose content the panel's driver does not know
MERGE = const(20)         # spans this close go out as one: a span costs 7 bytes and a
                          # call of some 0.3 ms on the chip, the time of 13 more bytes
# A page's columns as composed by diff(), shared by every picture (one page is
# composed at a time, and its spans are sent before the next): the driver sends
# them from NEW.
NEW = bytearray(WIDTH)    # a page as it is to show, composed (its changed columns)
OLD = bytearray(WIDTH)    # the same columns as the panel shows them, composed again
SPANS = bytearray(2 * (WIDTH // (MERGE + 1) + 1))  # (first, end) of each run to send


class Picture:
    """What an OLED panel shows, as text cells, and what it still lacks.

    No frame buffer: the panel's own RAM is the picture. `layout(cells)` gives the Cells
    layout, `show(text, dx)` the text to show; the picture keeps the text each page last
    received and `step()` composes the columns that differ, page by page, into NEW and hands
    each run of them to the chip's driver, about SLICE_BYTES of data a call; `flush()` sends
    everything, `refresh()` sends the chip's set-up and every page again. The driver, a
    subclass (chips/oled.py), supplies `_setup()` (its initialisation), `_span(page, x, n)`
    (columns x..x+n-1 of NEW to `page`), `_settings()` (its brightness and the like, after the
    pages) and `pending()`. How it works and why: docs/DISPLAYS.md, "The OLED driver".
    """
    SLICE_BYTES = 240         # data bytes a step() sends at most (unless one page is more)
    cells: "Cells"            # the layout: drawing starts once layout() gave it

    def __init__(self):
        self._init = True         # the chip's set-up goes before any page
        self.cells = None  # pyright: ignore[reportAttributeAccessIssue]  no layout yet

    def layout(self, cells):
        """Take a Cells layout; everything is resent."""
        self.cells = cells
        self.want = bytearray(cells.size)          # the text to show
        self.sent = bytearray(PAGES * cells.size)  # per page: the text it last got
        self.sent_dx = bytearray(PAGES)
        self.dirty = 0                             # pages whose text changed
        self.resend = 0                            # pages to resend whole
        self._half = 0                             # ... whose first half went
        self.dx = 0
        self.refresh()

    def refresh(self, known=False):
        """Set the chip up again and resend every page (over the next steps).
        `known`: the panel still shows what it was sent (the periodic refresh,
        against upsets), so changed columns may go before the whole pages."""
        self._init = True
        self.resend = 0xFF
        if not known:
            for p in range(PAGES):
                self.sent_dx[p] = UNKNOWN

    def assume(self):
        """The panel shows what it was given, set up and on (start-up: a
        recording sent it, display/hello.py): nothing is pending."""
        size = self.cells.size
        for p in range(PAGES):
            blit(self.sent, p * size, self.want, 0, size, 0)
            self.sent_dx[p] = self.dx
        self.dirty = 0
        self.resend = 0
        self._half = 0
        self._init = False

    def adopt(self, other):
        """Take what `other` was sent as what this panel shows (its picture went
        to both at once): from now on only what differs is sent."""
        blit(self.sent, 0, other.sent, 0, len(self.sent), 0)
        blit(self.sent_dx, 0, other.sent_dx, 0, PAGES, 0)
        self.dirty = 0xFF           # every page compared with its own text
        self.resend = 0
        self._init = False

    def show(self, text, dx=0):
        """Show `text` (bytes of the layout's size), dx columns to the right."""
        if dx != self.dx:
            self.dx = dx
            self.dirty = 0xFF
        # (one native call on the Pico: a loop here cost some 1.5 ms)
        self.dirty |= changes(self.want, text, self.cells.size, self.cells.pmask)

    def changing(self):
        """Changed text still to send (not only a refresh's whole pages)."""
        return self.dirty != 0

    def flush(self, full=False):
        """Send everything that is pending (all, set up again, if `full`).
        Returns the number of data bytes sent."""
        if full:
            self.refresh()
        n = 0
        while self.pending():
            n += self.step()
        return n

    def step(self):
        """One slice of work; returns the number of data bytes sent. An OSError
        from the bus propagates and makes the next steps a full refresh."""
        try:
            return self._step()
        except OSError:
            self.refresh()
            raise

    def _step(self):
        count = 0
        if self._init:
            self._setup()
            self._init = False
        cells = self.cells
        size = cells.size
        want = self.want
        sent = self.sent
        dx = self.dx
        lay = cells.lay
        # Changed pages first, only the columns that differ from what they show ...
        for p in range(PAGES):
            d = self.dirty >> p
            if not d:
                break                 # no changed page from here on
            if not d & 1 or self.sent_dx[p] != dx:
                continue
            base = p * size
            # one call: the changed cells' columns composed as they are to show and
            # as the page shows them, and the runs that differ (native on the Pico)
            n = diff(NEW, OLD, SPANS, lay, want, sent, base, dx, p, MERGE,
                     SMALL, BIG, BIG_INDEX, DOUBLE)
            for k in range(n):
                x = SPANS[2 * k]
                count += self._span(p, x, SPANS[2 * k + 1] - x)
            blit(sent, base, want, 0, size, 0)
            self.dirty &= ~(1 << p)
            if count >= self.SLICE_BYTES:
                return count
        # ... then, in a step of its own, one page resent whole: a refresh, a shift
        # of the picture, or a page whose content is not known
        todo = self.dirty | self.resend
        if todo:
            if count:
                return count
            p = 0
            while not todo >> p & 1:
                p += 1
            base = p * size
            diff(NEW, OLD, SPANS, lay, want, sent, base, dx, p, -1,
                 SMALL, BIG, BIG_INDEX, DOUBLE)
            if self.sent_dx[p] == dx:
                # a page the panel already shows (the periodic refresh): half of
                # it a step, so that a key's answer waits for 1.6 ms of bus at
                # most, not a whole page's 3 ms
                h = self._half >> p & 1
                count += self._span(p, h * (WIDTH // 2), WIDTH // 2)
                if not h:
                    self._half |= 1 << p
                    return count
            else:
                count += self._span(p, 0, WIDTH)
            self._half &= ~(1 << p)
            blit(sent, base, want, 0, size, 0)
            self.sent_dx[p] = dx
            self.dirty &= ~(1 << p)
            self.resend &= ~(1 << p)
            return count
        self._settings()
        return count

    def whole(self, page_out):
        """Every page composed whole into NEW, in order, each handed to
        `page_out(p)` and taken as sent (start-up: a whole picture as one stream,
        chips/oled_fifo.py)."""
        cells = self.cells
        size = cells.size
        for p in range(PAGES):
            base = p * size
            diff(NEW, OLD, SPANS, cells.lay, self.want, self.sent, base, self.dx, p, -1,
                 SMALL, BIG, BIG_INDEX, DOUBLE)
            page_out(p)
            blit(self.sent, base, self.want, 0, size, 0)
            self.sent_dx[p] = self.dx
        self.dirty = 0
        self.resend = 0

    def unknown(self):
        """Nothing known of the panel yet: it is to be set up and drawn whole."""
        return self._init and self.resend == 0xFF and self.sent_dx[0] == UNKNOWN

    if TYPE_CHECKING:     # the driver's (a definition here would cost RAM on the Pico)
        def pending(self) -> bool:
            """Something is still to send: pages (dirty, resend, _init), or its settings."""
            ...

        def _setup(self) -> None:
            """Send the chip's initialisation."""

        def _span(self, page: int, x: int, n: int) -> int:
            """Send columns x..x+n-1 of `page`, composed in NEW; returns n."""
            ...

        def _settings(self) -> None:
            """Send the chip's settings that changed, once the pages are sent."""
