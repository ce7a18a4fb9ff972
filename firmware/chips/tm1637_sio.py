"""TM1637 at its own speed on the RP2040: one native call per frame (device only).

One viper function sends a whole frame (start, the bytes with their ACKs, stop) by writing the
SIO registers, a half-bit being HALF_LOOPS turns of a busy loop: a 5-byte frame takes 0.25 ms,
where the portable chips/tm1637.py took 1 ms a byte. Compiled with -march=armv6m; factory.py
chooses it for the drivers on the Pico (chips/build.py `native`); elsewhere the portable driver
speaks the same frames. The registers and the timing: docs/DISPLAYS.md, "Native seven-segment
transports".
"""
import micropython

from chips.sevenseg import SevenSegment

_EIO = 5
HALF_LOOPS = 14        # busy-loop turns per half-bit: 2.5 us on the emulated Pico (docs/DISPLAYS.md)


@micropython.viper
def _frame(clk: int, dio: int, buf, n: int, half: int) -> int:
    """Start, n bytes of buf, stop on the pins of masks clk and dio; returns the
    number of bytes the chip did not acknowledge."""
    sio = ptr32(0xD0000000)
    src = ptr8(buf)
    nack = 0
    # start: DIO falls while CLK is high
    sio[9] = clk | dio           # GPIO_OE_SET: both driven
    sio[5] = clk                 # GPIO_OUT_SET
    sio[6] = dio                 # GPIO_OUT_CLR
    j = half
    while j > 0:
        j -= 1
    sio[6] = clk
    j = half
    while j > 0:
        j -= 1
    k = 0
    while k < n:
        b = src[k]
        i = 0
        while i < 8:
            if b & 1:
                sio[5] = dio
            else:
                sio[6] = dio
            b = b >> 1
            j = half
            while j > 0:
                j -= 1
            sio[5] = clk
            j = half
            while j > 0:
                j -= 1
            sio[6] = clk
            i += 1
        sio[10] = dio            # GPIO_OE_CLR: release DIO, the chip acknowledges
        j = half
        while j > 0:
            j -= 1
        sio[5] = clk
        j = half
        while j > 0:
            j -= 1
        if sio[1] & dio:         # GPIO_IN: still high = no ACK
            nack += 1
        sio[6] = clk
        j = half
        while j > 0:
            j -= 1
        sio[6] = dio
        sio[9] = dio             # drive DIO (low) again
        k += 1
    # stop: DIO rises while CLK is high
    sio[6] = dio
    j = half
    while j > 0:
        j -= 1
    sio[5] = clk
    j = half
    while j > 0:
        j -= 1
    sio[5] = dio
    j = half
    while j > 0:
        j -= 1
    return nack


@micropython.viper
def _changed(seg, sent, buf, n: int) -> int:
    """Put the address command and the digits of seg that differ from sent
    (first to last changed) into buf, mark them sent; returns the frame's length
    (0: nothing changed). The diff and copy in Python cost some 0.3 ms a frame."""
    s = ptr8(seg)
    t = ptr8(sent)
    b = ptr8(buf)
    first = -1
    last = -1
    i = 0
    while i < n:
        if s[i] != t[i]:
            if first < 0:
                first = i
            last = i
        i += 1
    if first < 0:
        return 0
    b[0] = 0xC0 | first          # address command
    k = first
    while k <= last:
        b[1 + k - first] = s[k]
        t[k] = s[k]
        k += 1
    return 2 + last - first


class TM1637SIO(SevenSegment):
    """The TM1637 driver of chips/tm1637.py, sending through _frame()."""

    def __init__(self, clk, dio, clk_gpio, dio_gpio, digits=4):
        SevenSegment.__init__(self, digits)
        self.clk_mask = 1 << clk_gpio
        self.dio_mask = 1 << dio_gpio
        self.half = HALF_LOOPS
        self._buf = bytearray(1 + digits)
        dio.init(dio.OUT, dio.PULL_UP)   # the pad pull-up holds released DIO high
        dio.value(1)
        clk.init(clk.OUT)
        clk.value(1)

    def _send(self, n):
        if _frame(self.clk_mask, self.dio_mask, self._buf, n, self.half):
            raise OSError(_EIO)

    def _command(self, c):
        self._buf[0] = c
        self._send(1)

    def _init(self):
        self._command(0x40)          # data command: write display, auto-increment

    def _write(self, i, j):
        b = self._buf
        b[0] = 0xC0 | i              # address command
        seg = self.seg
        for k in range(i, j):
            b[1 + k - i] = seg[k]
        self._send(1 + j - i)

    def _changes(self):
        """SevenSegment._changes with the changed digits found and framed natively."""
        self._valid = False          # until the frame is acknowledged
        n = _changed(self.seg, self._sent, self._buf, self.digits)
        if n:
            self._send(n)
        self._valid = True
        return n - 1 if n else 0

    def _level(self):
        self._command(0x88 | (self.level >> 1))   # display on, pulse width 0-7


def make(entry, parts):
    """The driver of a ("tm1637", clk_gpio, dio_gpio) entry (chips/build.py), when
    factory.py chose this module for the TM1637s."""
    return TM1637SIO(parts.pin(entry[1]), parts.pin(entry[2]), entry[1], entry[2])
