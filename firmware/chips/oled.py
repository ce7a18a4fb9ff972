"""SSD1306 and SH1106 128x64 monochrome OLED controllers over I2C or SPI: their bytes only.

A driver is a draw/cells.py `Picture` (what the panel shows, as text cells, and the columns
that changed, composed) that sends: the controller's initialisation, a run of composed columns
to a page from a column, and its contrast, start line and display-on commands. `OLED` holds
what both controllers share; the transports subclass it (`write_cmds()`, and `send_span()` or
`_span()`): OLED_I2C and OLED_SPI here, OLED_FIFO in chips/oled_fifo.py; SH1106 adds its column
offset and its initialisation. Why: docs/DISPLAYS.md, "The OLED driver".
"""
from micropython import const

from draw.blit import blit, frame
from draw.cells import Picture, NEW, WIDTH

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

# One transmit buffer and a slice of it for each length a write can have, shared by
# every OLED: writes happen one at a time, and a ready slice lets a write go out
# without slicing (which allocates). diff() rounds runs up to a multiple of 4 columns
# (the extra columns are composed like the others), which keeps the slices to 85.
_CMDS = const(32)         # command writes are at most this long
_TX = bytearray(WIDTH + 8)
_WRITES = []              # _WRITES[n]: memoryview of _TX[0:n] (None: no write is n long)


def _make_writes():
    """Fill _WRITES once, for the first OLED made."""
    if not _WRITES:
        mv = memoryview(_TX)
        for n in range(WIDTH + 9):
            # commands; a SPI span (data only); an I2C span (7 header bytes + data)
            ok = n <= _CMDS or n % 4 == 0 or (n - 7) % 4 == 0
            _WRITES.append(mv[0:n] if ok else None)


class OLED(Picture):
    """What both controllers take: the initialisation, contrast, start line, on."""
    COL_OFFSET = 0
    INIT = SSD1306_INIT

    def __init__(self, cells=None):
        _make_writes()
        Picture.__init__(self)
        self._cmd = bytearray(4)
        self.level = 8
        self.start_line = 0
        self._sent_level = -1
        self._sent_start = -1
        self._on = False
        if cells is not None:
            self.layout(cells)

    def brightness(self, level):
        """0-15, mapped onto the contrast register."""
        self.level = 0 if level < 0 else (15 if level > 15 else level)

    def shift_rows(self, n):
        """Show RAM row n on top (hardware, nothing redrawn): moves the picture up."""
        self.start_line = n & 63

    def refresh(self, known=False):
        """Re-initialise the chip and resend every page (Picture.refresh)."""
        Picture.refresh(self, known)
        self._sent_level = -1
        self._sent_start = -1
        self._on = False

    def assume(self):
        """The panel shows what it was given, initialised and on (Picture.assume)."""
        Picture.assume(self)
        self._on = True
        self._sent_level = self.level
        self._sent_start = self.start_line

    def pairs_with(self, other) -> bool:
        """Whether this display and `other` can be flushed at the same time
        (chips/oled_fifo.py: two I2C controllers on the Pico)."""
        return False

    def pending(self):
        """Something is still to send: pages, or the chip's settings."""
        return (self.dirty != 0 or self.resend != 0 or self._init or not self._on
                or self.level != self._sent_level or self.start_line != self._sent_start)

    def _setup(self):
        self.write_cmds(self.INIT, len(self.INIT))

    def _settings(self):
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

    def _span(self, page, x, n):
        """Send columns x..x+n-1 of `page` (composed in NEW); returns n."""
        blit(_TX, 0, NEW, x, n, 0)
        self.send_span(page, x + self.COL_OFFSET, n)
        return n

    def write_cmds(self, src, n):
        """Send commands src[0:n] (the transport's)."""
        raise NotImplementedError

    def send_span(self, page, col, n):
        """Send the n data bytes at the start of _TX to `page` from column `col`
        (the transport's)."""
        raise NotImplementedError


class OLED_I2C(OLED):
    """I2C transport: a control byte (0x00 commands, 0x40 data) opens each write.
    A span goes out as one write: page and column as single commands, each after
    a control byte with Co set (0x80), then 0x40 and the data: one I2C transaction
    instead of two (a call less: docs/PERFORMANCE.md, "Calls written out")."""

    def __init__(self, i2c, addr=0x3C, cells=None):
        OLED.__init__(self, cells)
        self.i2c = i2c
        self.addr = addr

    def write_cmds(self, src, n):
        _TX[0] = 0x00
        for i in range(n):
            _TX[i + 1] = src[i]
        self.i2c.writeto(self.addr, _WRITES[n + 1])

    def _span(self, page, x, n):
        # the header and the columns composed in NEW in one call (native on the
        # Pico), then the write: little work between two writes
        frame(_TX, NEW, x, n, page, x + self.COL_OFFSET)
        self.i2c.writeto(self.addr, _WRITES[n + 7])
        return n


class OLED_SPI(OLED):
    """4-wire SPI transport: the DC pin tells commands (0) from data (1)."""

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
        self.spi.write(_WRITES[n])
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


def make(entry, parts):
    """The driver of an ("ssd1306" | "sh1106", bus, address[, mux_channel]) entry
    (chips/build.py): one writeto() per transaction (with the Pico's I2C stream
    transport chips/oled_fifo.py make() makes them instead)."""
    cls = SH1106_I2C if entry[0] == "sh1106" else SSD1306_I2C
    return cls(bus(entry, parts), entry[2])


def bus(entry, parts):
    """The bus of an OLED's entry: its I2C bus, or the channel of the bus's
    TCA9548A (made with the first OLED behind it) when the entry has one."""
    name = entry[1]
    i2c = parts.buses[name]
    if len(entry) <= 3:
        return i2c
    mux = parts.shared.get(i2c)
    if mux is None:
        from chips.tca9548a import TCA9548A
        mux = parts.shared[i2c] = TCA9548A(i2c, parts.build["buses"][name].get("mux", 0x70))
    return mux.channel(entry[3])
