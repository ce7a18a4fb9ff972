"""TM1637 LED driver: two-wire serial, bit-banged on two pins.

Not I2C: no address, LSB first, the chip answers each byte with an ACK (pulls DIO
low during the ninth clock). Several modules may share CLK with their own DIO:
a module only listens after a start condition on its own DIO.
Pins need `value()` and `init(mode[, pull])`; DIO is released (input, pull-up)
to read the ACK. A missing ACK raises OSError(EIO) after the stop condition.
"""
from micropython import const
try:
    from time import sleep_us
except ImportError:
    def sleep_us(__us):
        pass

from chips.sevenseg import SevenSegment

TM1637_DATA_AUTO = const(0x40)    # data command: write display, auto-increment
TM1637_DATA_FIXED = const(0x44)   # data command: write display, fixed address
TM1637_ADDRESS = const(0xC0)      # address command, | grid 0-5
TM1637_CONTROL = const(0x80)      # display control, | 0x08 on, | pulse width 0-7
TM1637_ON = const(0x08)
_EIO = const(5)


class TM1637(SevenSegment):
    DELAY_US = 5         # half a clock period; the chip allows up to ~250 kHz

    def __init__(self, clk, dio, digits=4, delay_us=None):
        SevenSegment.__init__(self, digits)
        self.clk = clk
        self.dio = dio
        if delay_us is not None:
            self.DELAY_US = delay_us
        self._nack = False
        dio.value(1)
        dio.init(dio.OUT)
        clk.value(1)
        clk.init(clk.OUT)

    def _hal_delay(self):
        if self.DELAY_US:
            sleep_us(self.DELAY_US)

    def _start(self):
        self.dio.value(0)            # DIO falls while CLK is high
        self._hal_delay()
        self.clk.value(0)
        self._hal_delay()

    def _stop(self):
        self.dio.value(0)
        self._hal_delay()
        self.clk.value(1)
        self._hal_delay()
        self.dio.value(1)            # DIO rises while CLK is high
        self._hal_delay()

    def _byte(self, b):
        clk = self.clk
        dio = self.dio
        for i in range(8):
            dio.value((b >> i) & 1)  # LSB first, set while CLK is low
            self._hal_delay()
            clk.value(1)
            self._hal_delay()
            clk.value(0)
        dio.init(dio.IN, dio.PULL_UP)  # release DIO: the chip acknowledges
        self._hal_delay()
        clk.value(1)
        self._hal_delay()
        if dio.value():
            self._nack = True
        clk.value(0)
        self._hal_delay()
        dio.value(0)
        dio.init(dio.OUT)

    def _end(self):
        if self._nack:
            self._nack = False
            raise OSError(_EIO)

    def _command(self, c):
        self._start()
        self._byte(c)
        self._stop()

    def _init(self):
        self._nack = False
        self._command(TM1637_DATA_AUTO)
        self._end()

    def _write(self, i, j):
        self._start()
        self._byte(TM1637_ADDRESS | i)
        seg = self.seg
        for k in range(i, j):
            self._byte(seg[k])
        self._stop()
        self._end()

    def _level(self):
        self._command(TM1637_CONTROL | TM1637_ON | (self.level >> 1))
        self._end()


def make(entry, parts):
    """The driver of a ("tm1637", clk_gpio, dio_gpio) entry (chips/build.py)."""
    return TM1637(parts.pin(entry[1]), parts.pin(entry[2]))
