"""SSD1306 and SH1106 128x64 monochrome OLED drivers.

Logic (frame buffer, what changed, init, contrast) is separate from transport:
subclasses implement `write_cmds(src, n)` and `write_data(src, start, n)` for I2C
or SPI, as in micropython-lib's ssd1306. The frame buffer is MONO_VLSB: byte
`page * 128 + x` holds 8 vertical pixels (bit 0 on top), which is the chips' own
page layout, so a changed run of columns in a page goes out as one write.

Both chips are driven in page addressing mode (page, column low, column high, then
data), which they share; the SH1106 has 132 columns of RAM with the panel on 2-129,
hence its 2-column offset.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

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

# One transmit buffer and a view of each length, shared by every OLED: writes
# happen one at a time, and a view per length lets a span go out without slicing.
_TX = bytearray(WIDTH + 2)
_TXV = []


def _views():
    if not _TXV:
        mv = memoryview(_TX)
        for n in range(WIDTH + 3):
            _TXV.append(mv[0:n])


class OLED:
    """`buf` is the frame buffer to draw in; several OLEDs may share one when each
    is drawn just before its flush (display/screens.py does): 1 KB saved per OLED.
    What the panel holds is tracked per display, so flushes stay differential."""
    COL_OFFSET = 0
    INIT = SSD1306_INIT

    def __init__(self, buf=None):
        _views()
        self.buf = buf if buf is not None else bytearray(WIDTH * PAGES)
        self._sent = bytearray(WIDTH * PAGES)
        self._cmd = bytearray(4)
        self.level = 8
        self.start_line = 0
        self._sent_level = -1
        self._sent_start = -1
        self._valid = False

    def brightness(self, level):
        """0-15, mapped onto the contrast register."""
        self.level = 0 if level < 0 else (15 if level > 15 else level)

    def shift_rows(self, n):
        """Show RAM row n on top (hardware, nothing redrawn): moves the picture up."""
        self.start_line = n & 63

    def flush(self, full=False):
        """Send the changed column span of each page (everything if `full`).
        Returns the number of data bytes sent."""
        count = 0
        buf = self.buf
        sent = self._sent
        if full or not self._valid:
            self._valid = False
            self.write_cmds(self.INIT, len(self.INIT))
            for p in range(PAGES):
                self._span(p, 0, WIDTH)
            count = WIDTH * PAGES     # all sent: the display goes on below
            self._sent_level = -1
            self._sent_start = -1
        else:
            for p in range(PAGES):
                base = p * WIDTH
                first = -1
                last = -1
                for x in range(WIDTH):
                    if buf[base + x] != sent[base + x]:
                        if first < 0:
                            first = x
                        last = x
                if first >= 0:
                    self._valid = False
                    self._span(p, first, last + 1 - first)
                    count += last + 1 - first
        if self.level != self._sent_level or self.start_line != self._sent_start:
            self._valid = False
            c = self._cmd
            c[0] = SET_CONTRAST
            c[1] = self.level * 17
            c[2] = SET_START_LINE | self.start_line
            c[3] = SET_DISP | 1       # on after (re)initialisation: content is in place
            self.write_cmds(c, 4 if count == WIDTH * PAGES else 3)
            self._sent_level = self.level
            self._sent_start = self.start_line
        self._valid = True
        return count

    def _span(self, page, x, n):
        c = self._cmd
        col = x + self.COL_OFFSET
        c[0] = SET_PAGE | page
        c[1] = SET_LOW_COLUMN | (col & 0x0F)
        c[2] = SET_HIGH_COLUMN | (col >> 4)
        self.write_cmds(c, 3)
        start = page * WIDTH + x
        self.write_data(self.buf, start, n)
        sent = self._sent
        buf = self.buf
        for i in range(start, start + n):
            sent[i] = buf[i]


class OLED_I2C(OLED):
    """I2C transport: a control byte (0x00 commands, 0x40 data) opens each write."""

    def __init__(self, i2c, addr=0x3C, buf=None):
        OLED.__init__(self, buf)
        self.i2c = i2c
        self.addr = addr

    def write_cmds(self, src, n):
        _TX[0] = 0x00
        for i in range(n):
            _TX[i + 1] = src[i]
        self.i2c.writeto(self.addr, _TXV[n + 1])

    def write_data(self, src, start, n):
        _TX[0] = 0x40
        for i in range(n):
            _TX[i + 1] = src[start + i]
        self.i2c.writeto(self.addr, _TXV[n + 1])


class OLED_SPI(OLED):
    """4-wire SPI transport: the DC pin tells commands (0) from data (1)."""

    def __init__(self, spi, dc, cs, buf=None):
        OLED.__init__(self, buf)
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

    def write_data(self, src, start, n):
        for i in range(n):
            _TX[i] = src[start + i]
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
