"""SSD1306 and SH1106 128x64 monochrome OLED drivers, drawn from text cells.

No frame buffer: the driver is given a cell layout (draw/cells.py) and the text to show
(`show(text, dx)`), keeps the text each page last received, and `step()` sends the columns that
differ, about SLICE_BYTES of data a call; `flush()` sends everything, `refresh()` re-initialises.
Transports subclass it (`write_cmds()`, and `send_span()` or `_span()`): OLED_I2C and OLED_SPI
here, OLED_FIFO in chips/oled_fifo.py. How it works and why: docs/DISPLAYS.md, "The OLED
driver".
"""
from micropython import const

from draw.blit import blit, changes, diff, frame
from draw.glyphs import SMALL, BIG, BIG_INDEX, DOUBLE

TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)
if TYPE_CHECKING:
    from draw.cells import Cells

SET_LOW_COLUMN = const(0x00)      # | column & 0x0F
SET_HIGH_COLUMN = const(0x10)     # | column >> 4
SET_MEM_MODE = const(0x20)        # SSD1306: 0x02 = page addressing
SET_START_LINE = const(0x40)      # | 0-63: the RAM row shown on top
SET_CONTRAST = const(0x81)
SET_CHARGE_PUMP = const(0x8D)     # SSD1306
SET_SEG_REMAP = const(0xA0)       # | 1: column 127 is SEG0
SET_ENTIRE_ON = const(0xA4)
SET_NORM_INV = const(0xA6)
SET_MUX_RATIO = const(0xA8)
SET_DCDC = const(0xAD)            # SH1106: 0x8B = DC-DC on
SET_DISP = const(0xAE)            # | 1: on
SET_PAGE = const(0xB0)            # | page 0-7
SET_COM_OUT_DIR = const(0xC0)     # | 0x08: scan COM from the bottom
SET_DISP_OFFSET = const(0xD3)
SET_DISP_CLK_DIV = const(0xD5)
SET_PRECHARGE = const(0xD9)
SET_COM_PIN_CFG = const(0xDA)
SET_VCOM_DESEL = const(0xDB)

# Initialisation, sent again at every full refresh; it never turns the panel off
# (that would blink): after a reset the panel is off until the content is written.
SSD1306_INIT = bytes((
    SET_MEM_MODE, 0x02, SET_START_LINE, SET_SEG_REMAP | 1,
    SET_MUX_RATIO, 63, SET_COM_OUT_DIR | 0x08, SET_DISP_OFFSET, 0,
    SET_COM_PIN_CFG, 0x12, SET_DISP_CLK_DIV, 0x80, SET_PRECHARGE, 0xF1,
    SET_VCOM_DESEL, 0x30, SET_ENTIRE_ON, SET_NORM_INV, SET_CHARGE_PUMP, 0x14))
SH1106_INIT = bytes((
    SET_DISP_CLK_DIV, 0x80, SET_MUX_RATIO, 63, SET_DISP_OFFSET, 0,
    SET_START_LINE, SET_DCDC, 0x8B, SET_SEG_REMAP | 1, SET_COM_OUT_DIR | 0x08,
    SET_COM_PIN_CFG, 0x12, SET_PRECHARGE, 0x22, SET_VCOM_DESEL, 0x35,
    SET_ENTIRE_ON, SET_NORM_INV))

WIDTH = const(128)
PAGES = const(8)
UNKNOWN = const(255)      # a page whose content the driver does not know
MERGE = const(20)         # spans this close go out as one: a span costs 7 bytes and a
                          # call of some 0.3 ms on the chip, the time of 13 more bytes
# One transmit buffer and a view of each length a write can have, shared by every
# OLED: writes happen one at a time, and a ready view lets a write go out without
# slicing (which allocates). diff() rounds runs up to a multiple of 4 columns (the
# extra columns are composed like the others), which keeps the views to 85.
_CMDS = const(32)         # command writes are at most this long
_TX = bytearray(WIDTH + 8)
_TXV = []
_NEW = bytearray(WIDTH)   # a page as it is to show, composed (its changed columns)
_OLD = bytearray(WIDTH)   # the same columns as the panel shows them, composed again
_SPANS = bytearray(2 * (WIDTH // (MERGE + 1) + 1))  # (first, end) of each run to send


def _views():
    if not _TXV:
        mv = memoryview(_TX)
        for n in range(WIDTH + 9):
            # commands; a SPI span (data only); an I2C span (7 header bytes + data)
            ok = n <= _CMDS or n % 4 == 0 or (n - 7) % 4 == 0
            _TXV.append(mv[0:n] if ok else None)


class OLED:
    COL_OFFSET = 0
    INIT = SSD1306_INIT
    DATA_AT = 0               # where send_span() finds its bytes in _TX
    SLICE_BYTES = 240         # data bytes a step() sends at most (unless one page is more)
    cells: "Cells"            # the layout: drawing starts once layout() gave it

    def __init__(self, cells=None):
        _views()
        self._cmd = bytearray(4)
        self.level = 8
        self.start_line = 0
        self.cells = None  # pyright: ignore[reportAttributeAccessIssue]  no layout yet
        if cells is not None:
            self.layout(cells)

    def layout(self, cells):
        """Take a draw.cells.Cells layout; everything is resent."""
        self.cells = cells
        self.want = bytearray(cells.size)          # the text to show
        self.sent = bytearray(PAGES * cells.size)  # per page: the text it last got
        self.sent_dx = bytearray(PAGES)
        self.dirty = 0                             # pages whose text changed
        self.resend = 0                            # pages to resend whole
        self._half = 0                             # ... whose first half went
        self.dx = 0
        self.refresh()

    def brightness(self, level):
        """0-15, mapped onto the contrast register."""
        self.level = 0 if level < 0 else (15 if level > 15 else level)

    def shift_rows(self, n):
        """Show RAM row n on top (hardware, nothing redrawn): moves the picture up."""
        self.start_line = n & 63

    def refresh(self, known=False):
        """Re-initialise the chip and resend every page (over the next steps).
        `known`: the panel still shows what it was sent (the periodic refresh,
        against upsets), so changed columns may go before the whole pages."""
        self._init = True
        self.resend = 0xFF
        if not known:
            for p in range(PAGES):
                self.sent_dx[p] = UNKNOWN
        self._sent_level = -1
        self._sent_start = -1
        self._on = False

    def assume(self):
        """The panel shows what it was given, initialised and on (start-up: a
        recording sent it, display/hello.py): nothing is pending."""
        size = self.cells.size
        for p in range(PAGES):
            blit(self.sent, p * size, self.want, 0, size, 0)
            self.sent_dx[p] = self.dx
        self.dirty = 0
        self.resend = 0
        self._half = 0
        self._init = False
        self._on = True
        self._sent_level = self.level
        self._sent_start = self.start_line

    def show(self, text, dx=0):
        """Show `text` (bytes of the layout's size), dx columns to the right."""
        if dx != self.dx:
            self.dx = dx
            self.dirty = 0xFF
        # (one native call on the Pico: a loop here cost some 1.5 ms)
        self.dirty |= changes(self.want, text, self.cells.size, self.cells.pmask)

    def pairs_with(self, other) -> bool:
        """Whether this display and `other` can be flushed at the same time
        (chips/oled_fifo.py: two I2C controllers on the Pico)."""
        return False

    def changing(self):
        """Changed text still to send (not only a refresh's whole pages)."""
        return self.dirty != 0

    def pending(self):
        """Something is still to send."""
        return (self.dirty != 0 or self.resend != 0 or self._init or not self._on
                or self.level != self._sent_level or self.start_line != self._sent_start)

    def flush(self, full=False):
        """Send everything that is pending (all, re-initialised, if `full`).
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
            self.write_cmds(self.INIT, len(self.INIT))
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
            n = diff(_NEW, _OLD, _SPANS, lay, want, sent, base, dx, p, MERGE,
                     SMALL, BIG, BIG_INDEX, DOUBLE)
            for k in range(n):
                x = _SPANS[2 * k]
                count += self._span(p, x, _SPANS[2 * k + 1] - x)
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
            diff(_NEW, _OLD, _SPANS, lay, want, sent, base, dx, p, -1,
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
        if self.level != self._sent_level or self.start_line != self._sent_start \
                or not self._on:
            c = self._cmd
            c[0] = SET_CONTRAST
            c[1] = self.level * 17
            c[2] = SET_START_LINE | self.start_line
            c[3] = SET_DISP | 1       # on after (re)initialisation: content is in place
            self.write_cmds(c, 3 if self._on else 4)
            self._sent_level = self.level
            self._sent_start = self.start_line
            self._on = True
        return count

    def _span(self, page, x, n):
        """Send columns x..x+n-1 of `page` (composed in _NEW); returns n."""
        blit(_TX, self.DATA_AT, _NEW, x, n, 0)
        self.send_span(page, x + self.COL_OFFSET, n)
        return n

    def write_cmds(self, src, n):
        """Send commands src[0:n] (the transport's)."""
        raise NotImplementedError

    def send_span(self, page, col, n):
        """Send the n data bytes at _TX[DATA_AT:] to `page` from column `col`
        (the transport's)."""
        raise NotImplementedError


class OLED_I2C(OLED):
    """I2C transport: a control byte (0x00 commands, 0x40 data) opens each write.
    A span goes out as one write: page and column as single commands, each after
    a control byte with Co set (0x80), then 0x40 and the data: one I2C transaction
    (a call costs some 100 us on the RP2040) instead of two."""

    def __init__(self, i2c, addr=0x3C, cells=None):
        OLED.__init__(self, cells)
        self.i2c = i2c
        self.addr = addr

    def write_cmds(self, src, n):
        _TX[0] = 0x00
        for i in range(n):
            _TX[i + 1] = src[i]
        self.i2c.writeto(self.addr, _TXV[n + 1])

    def _span(self, page, x, n):
        # the header and the columns composed in _NEW in one call (native on the
        # Pico), then the write: little work between two writes
        frame(_TX, _NEW, x, n, page, x + self.COL_OFFSET)
        self.i2c.writeto(self.addr, _TXV[n + 7])
        return n


class OLED_SPI(OLED):
    """4-wire SPI transport: the DC pin tells commands (0) from data (1)."""

    DATA_AT = 0

    def __init__(self, spi, dc, cs, cells=None):
        OLED.__init__(self, cells)
        self._span_cmd = bytearray(3)
        self.spi = spi
        self.dc = dc
        self.cs = cs
        dc.init(dc.OUT)
        cs.init(cs.OUT)
        cs.value(1)

    def _out(self, dc, n):
        self.dc.value(dc)
        self.cs.value(0)
        self.spi.write(_TXV[n])
        self.cs.value(1)

    def write_cmds(self, src, n):
        for i in range(n):
            _TX[i] = src[i]
        self._out(0, n)

    def send_span(self, page, col, n):
        c = self._span_cmd
        c[0] = SET_PAGE | page
        c[1] = SET_LOW_COLUMN | (col & 0x0F)
        c[2] = SET_HIGH_COLUMN | (col >> 4)
        self.dc.value(0)
        self.cs.value(0)
        self.spi.write(c)
        self.cs.value(1)
        self._out(1, n)


class SSD1306_I2C(OLED_I2C):
    pass


class SH1106_I2C(OLED_I2C):
    COL_OFFSET = 2
    INIT = SH1106_INIT


class SSD1306_SPI(OLED_SPI):
    pass


class SH1106_SPI(OLED_SPI):
    COL_OFFSET = 2
    INIT = SH1106_INIT
