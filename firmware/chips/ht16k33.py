"""HT16K33 LED driver on I2C (0x70-0x77), as on seven-segment backpacks.

The chip has 16 bytes of display RAM, two per row (COM). A 4-digit backpack wires
its digits to rows 0, 1, 3, 4 (row 2 drives the colon); an 8-digit board to rows
0-7. Changed digits are sent as one RAM write from the first to the last.
"""
from micropython import const

from draw.blit import changes
from chips.sevenseg import SevenSegment

HT16K33_RAM = const(0x00)         # | address 0x00-0x0F, then data (auto-increment)
HT16K33_SYSTEM = const(0x20)      # | 1: oscillator on
HT16K33_DISPLAY = const(0x80)     # | 1: display on, | blink << 1
HT16K33_DIMMING = const(0xE0)     # | 0-15: duty 1/16 .. 16/16

ROWS_4DIGITS = b"\x00\x01\x03\x04"
ROWS_8DIGITS = b"\x00\x01\x02\x03\x04\x05\x06\x07"
_BITS = b"\x01\x02\x04\x08\x10\x20\x40\x80"     # digit k -> bit k (changes())


class HT16K33(SevenSegment):
    def __init__(self, i2c, addr=0x70, digits=4):
        SevenSegment.__init__(self, digits)
        self.i2c = i2c
        self.addr = addr
        self.rows = ROWS_4DIGITS if digits == 4 else ROWS_8DIGITS
        # The RAM write as it goes on the wire: frame[1 + a] is RAM byte a, and the
        # address command goes just before the first byte sent. One writeto(), no
        # writeto_mem(): MicroPython's hardware I2C joins the address and the data
        # in a buffer from the heap (extmod/machine_i2c.c).
        self.frame = bytearray(17)
        self._cmd = bytearray(1)
        mv = memoryview(self.frame)
        # One view per span of digits: views[i * digits + j - 1] covers digits i..j-1
        # with the byte before them (an odd RAM byte, unused: 0) for the command.
        self._views = []
        for i in range(digits):
            for j in range(1, digits + 1):
                lo = 2 * self.rows[i]
                hi = 2 * self.rows[j - 1] + 1
                self._views.append(mv[lo:hi + 1] if j > i else None)

    def _send(self, c):
        self._cmd[0] = c
        self.i2c.writeto(self.addr, self._cmd)

    def _init(self):
        """Oscillator on, the whole RAM (unused rows dark), display on: the
        digits are in RAM before the display goes on, and a periodic refresh of
        a lit display never blanks it."""
        self._send(HT16K33_SYSTEM | 1)
        frame = self.frame
        for i in range(17):
            frame[i] = 0
        frame[0] = HT16K33_RAM
        for k in range(self.digits):
            frame[1 + 2 * self.rows[k]] = self.seg[k]
        self.i2c.writeto(self.addr, frame)
        self._send(HT16K33_DISPLAY | 1)

    def _write(self, i, j):
        frame = self.frame
        seg = self.seg
        rows = self.rows
        for k in range(i, j):
            frame[1 + 2 * rows[k]] = seg[k]
        lo = 2 * rows[i]
        frame[lo] = HT16K33_RAM | lo         # the command in the unused byte before
        try:
            self.i2c.writeto(self.addr, self._views[i * self.digits + j - 1])
        finally:
            if lo:
                frame[lo] = 0

    def _changes(self):
        """SevenSegment._changes with the changed digits found and marked sent
        in one call (draw/blit.py changes(): native code on the Pico)."""
        m = changes(self._sent, self.seg, self.digits, _BITS)
        if not m:
            return 0
        i = 0
        while not m >> i & 1:
            i += 1
        j = self.digits
        while not m >> (j - 1) & 1:
            j -= 1
        self._valid = False          # until the write went through
        self._write(i, j)
        self._valid = True
        return j - i

    def _level(self):
        self._send(HT16K33_DIMMING | self.level)


def make(entry, parts):
    """The driver of an ("ht16k33", bus, address) entry (chips/build.py)."""
    return HT16K33(parts.buses[entry[1]], entry[2])
