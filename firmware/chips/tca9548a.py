"""TCA9548A I2C multiplexer: eight downstream channels behind one address.

`Channel(mux, n)` looks like an I2C bus to a driver: it selects its channel (one
control byte) before each write, so drivers on different channels can share
addresses. Nothing is allocated per write.
"""


class TCA9548A:
    def __init__(self, i2c, addr=0x70):
        self.i2c = i2c
        self.addr = addr
        self._ctl = bytearray(1)

    def select(self, ch):
        """Connect channel ch (0-7) alone; -1 disconnects all. It goes before
        every write to an OLED behind it. (connect() written out:
        docs/PERFORMANCE.md, "Calls written out")"""
        self._ctl[0] = 0 if ch < 0 else 1 << ch
        self.i2c.writeto(self.addr, self._ctl)

    def connect(self, mask):
        """Connect the channels of `mask` (bit n: channel n) together: a write
        then reaches a device at its address on each of them (their ACKs overlap
        on the wire; a read would collide)."""
        self._ctl[0] = mask
        self.i2c.writeto(self.addr, self._ctl)

    def channel(self, ch):
        return Channel(self, ch)


class Channel:
    def __init__(self, mux, ch):
        self.mux = mux
        self.ch = ch

    def writeto(self, addr, buf, stop=True):
        self.mux.select(self.ch)
        return self.mux.i2c.writeto(addr, buf, stop)

    def writeto_mem(self, addr, memaddr, buf):
        self.mux.select(self.ch)
        return self.mux.i2c.writeto_mem(addr, memaddr, buf)

    def readfrom(self, addr, n):
        self.mux.select(self.ch)
        return self.mux.i2c.readfrom(addr, n)
