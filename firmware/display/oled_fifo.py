"""OLEDs over I2C with a step's writes as one stream (the Pico's transport).

display/oled.py's OLED_I2C makes one `i2c.writeto()` per span: on the RP2040 each
call costs some 0.3-0.4 ms besides its bytes (the Python loop and the call), about
a quarter of a scoring stroke's update. Here the same transactions (the same bytes
in the same order: control byte, page and column commands, 0x40 and the data; the
initialisation commands) are composed into one stream of 16-bit words, the format
of the RP2040 I2C controller's IC_DATA_CMD register: a byte in bits 0-7, the STOP
bit (bit 9) on the last byte of each transaction (`display/blit.py` `words()`,
native on the Pico). At the end of `step()` the whole stream goes out in one call
of the burst transport, `burst.burst(addr, words, n)`: on the Pico
`display/i2c_viper.py`, which feeds the controller's transmit FIFO directly, so the
transactions follow each other on the bus with a START after each STOP and no gap.
`flush()` (start-up: `Screens.settle`) composes everything pending, the
initialisation and the eight pages, into one stream.

Behind a TCA9548A (display/tca9548a.py `Channel`) the channel is selected once per
stream by an ordinary `writeto()` to the multiplexer, then the stream follows.

Without a burst transport (CPython, the unix and the WebAssembly MicroPython, the
host tests) the stream is cut back into its transactions, each an
`i2c.writeto()`: the portable twin, which shows on the fake buses exactly the
writes OLED_I2C makes for the same updates. A bus error in a stream is an
OSError as from `writeto()`; the driver then resends everything (a full refresh).
Nothing here allocates after construction.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from display.blit import blit, frame, words
from display.oled import OLED_I2C, SH1106_INIT, _NEW, _TX, _TXV

STOP = const(0x200)       # IC_DATA_CMD: STOP after this byte
# Words in the stream: a whole picture (initialisation, 8 pages of 7 + 128 bytes,
# contrast and display on) is 1,105; a step's changed spans fewer. A transaction
# that would not fit sends the stream composed so far first.
MAX_WORDS = const(1152)
_W = bytearray(2 * MAX_WORDS)


def transactions(w, n):
    """The stream's first n words as a list of byte strings, one per transaction
    (tests and tools; allocates)."""
    out = []
    cur = bytearray()
    for k in range(n):
        v = w[2 * k] | w[2 * k + 1] << 8
        cur.append(v & 0xFF)
        if v & STOP:
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        out.append(bytes(cur))
    return out


class OLED_FIFO(OLED_I2C):
    """OLED_I2C whose step() sends its transactions as one stream (see above).
    `burst`: an object with burst(addr, words, n) (display/i2c_viper.py), or None
    for the portable twin (one writeto per transaction)."""

    def __init__(self, i2c, addr=0x3C, cells=None, burst=None):
        self._at = 0
        self.burst = burst
        # behind a multiplexer: select its channel once per stream
        self._mux = getattr(i2c, "mux", None)
        self._ch = getattr(i2c, "ch", 0)
        OLED_I2C.__init__(self, i2c, addr, cells)

    def _room(self, n):
        if self._at + n > MAX_WORDS:
            self._send()

    def write_cmds(self, src, n):
        self._room(n + 1)
        _TX[0] = 0x00
        blit(_TX, 1, src, 0, n, 0)
        self._at = words(_W, self._at, _TX, n + 1)

    def _span(self, page, x, n):
        self._room(n + 7)
        frame(_TX, _NEW, x, n, page, x + self.COL_OFFSET)
        self._at = words(_W, self._at, _TX, n + 7)
        return n

    def _send(self):
        n = self._at
        self._at = 0
        if not n:
            return
        if self.burst is None:
            self._twin(n)
            return
        if self._mux is not None:
            self._mux.select(self._ch)
        self.burst.burst(self.addr, _W, n)

    def _twin(self, n):
        """The stream cut back into writeto() calls (no native transport)."""
        i2c = self.i2c
        addr = self.addr
        k = 0
        m = 0
        while k < n:
            _TX[m] = _W[2 * k]
            m += 1
            if _W[2 * k + 1] & 2:           # STOP: the transaction is complete
                i2c.writeto(addr, _TXV[m])
                m = 0
            k += 1

    def step(self):
        """One slice of work (OLED.step), its writes as one stream."""
        self._at = 0
        try:
            count = self._step()
            self._send()
        except OSError:
            self._at = 0
            self.refresh()
            raise
        return count

    def flush(self, full=False):
        """Everything pending as one stream (start-up: the initialisation and
        every page); returns the number of data bytes sent."""
        if full:
            self.refresh()
        self._at = 0
        n = 0
        try:
            while self.pending():
                n += self._step()
            self._send()
        except OSError:
            self._at = 0
            self.refresh()
            raise
        return n


class SSD1306_FIFO(OLED_FIFO):
    pass


class SH1106_FIFO(OLED_FIFO):
    COL_OFFSET = 2
    INIT = SH1106_INIT


def driver(kind, bus, addr, burst=None):
    """The stream driver for a display entry's kind ("sh1106" or "ssd1306")."""
    cls = SH1106_FIFO if kind == "sh1106" else SSD1306_FIFO
    return cls(bus, addr, burst=burst)

