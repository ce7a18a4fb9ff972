"""Host stand-ins for machine.I2C, machine.SoftI2C and machine.SPI, plus wires.

Buses carry bytes to device models attached at an address (I2C) or behind a chip
select (SPI), and keep a log of transactions so tests can check the bytes that went
over the wire (every one, or the latest `keep`: note()). A device that is absent or unplugged does not acknowledge its
address, and the bus raises OSError the way MicroPython does: EIO from the
hardware I2C (rp2), ENODEV from SoftI2C.

`Net` is a wire with pull-up: pins driving it low win (open drain), so a device
can pull DIO low to acknowledge while the driver has released it. `Net.pin()`
gives a pin-like object (`value()`, `init(mode, pull)`, `IN`, `OUT`, `PULL_UP`).

The `Counting*` classes only count bytes and allocate nothing, for tests that run
the drivers under micropython with the heap locked.
"""
import errno

KEEP = 1024         # entries each history of a model or bus keeps (the latest)


def note(history, item, keep):
    """Append `item` to the list `history`, keeping its latest `keep` entries
    (0: none; None: every one). One entry out for one in: the list stays the same
    size."""
    if keep is None:
        history.append(item)
        return
    if keep <= 0:
        return
    if len(history) >= keep:
        del history[:len(history) - keep + 1]
    history.append(item)


class Net:
    """A wire pulled up to 1; the level is 0 while anything drives it low."""

    def __init__(self, name=""):
        self.name = name
        self.drivers = []
        self.watchers = []
        self.level = 1

    def pin(self):
        p = NetPin(self)
        self.drivers.append(p)
        return p

    def watch(self, fn):
        self.watchers.append(fn)

    def update(self):
        level = 1
        for d in self.drivers:
            if d.driving_low():
                level = 0
        if level != self.level:
            self.level = level
            for fn in self.watchers:
                fn(self, level)


class NetPin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, net):
        self.net = net
        self.mode = self.IN
        self.latch = 1
        self.pulled_low = False       # a device holding the line low

    def driving_low(self):
        if self.pulled_low:
            return True
        if self.mode == self.OUT or self.mode == self.OPEN_DRAIN:
            return self.latch == 0
        return False

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if value is not None:
            self.latch = 1 if value else 0
        self.net.update()

    def value(self, v=None):
        if v is None:
            return self.net.level
        self.latch = 1 if v else 0
        self.net.update()

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


def wire_pin():
    """A pin on its own wire (chip select, DC): Net().pin()."""
    return Net().pin()


class I2C:
    """machine.I2C: devices attach by address; a log of (addr, bytes) writes."""
    NACK_ERRNO = errno.EIO

    def __init__(self, id=0, scl=None, sda=None, freq=400000, timeout=50000):
        self.id = id
        self.scl = scl
        self.sda = sda
        self.freq = freq
        self.devices = {}
        self.log = []
        self.keep = None          # the log's entries (note(); fake_board sets it)
        self.bytes = 0            # bytes on the wire, address bytes included

    def attach(self, device, addr=None):
        addr = device.addr if addr is None else addr
        device.addr = addr
        self.devices[addr] = device
        return device

    def _find(self, addr):
        dev = self.devices.get(addr)
        if dev is not None and dev.present:
            return dev
        for mux in self.devices.values():
            routed = getattr(mux, "route", None)
            if routed is not None and mux.present:
                dev = routed(addr)
                if dev is not None:
                    return dev
        return None

    def scan(self):
        found = []
        for a in range(0x08, 0x78):
            if self._find(a) is not None:
                found.append(a)
        return found

    def writeto(self, addr, buf, stop=True):
        data = bytes(buf)
        self.bytes += 1 + len(data)
        dev = self._find(addr)
        if dev is None:
            raise OSError(self.NACK_ERRNO)
        note(self.log, (addr, data), self.keep)
        dev.i2c_write(data)
        return len(data) + 1

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self.writeto(addr, bytes((memaddr,)) + bytes(buf))

    def writevto(self, addr, vector, stop=True):
        return self.writeto(addr, b"".join(bytes(b) for b in vector), stop)

    def readfrom(self, addr, n, stop=True):
        self.bytes += 1 + n
        dev = self._find(addr)
        if dev is None:
            raise OSError(self.NACK_ERRNO)
        return dev.i2c_read(n)

    def readfrom_mem(self, addr, memaddr, n, addrsize=8):
        self.writeto(addr, bytes((memaddr,)))
        return self.readfrom(addr, n)

    def clear_log(self):
        self.log = []
        self.bytes = 0


class SoftI2C(I2C):
    NACK_ERRNO = errno.ENODEV


class SPI:
    """machine.SPI: every attached device sees the bytes; each watches its own CS."""

    def __init__(self, id=0, baudrate=1000000, polarity=0, phase=0, bits=8,
                 firstbit=0, sck=None, mosi=None, miso=None):
        self.id = id
        self.sck = sck
        self.mosi = mosi
        self.miso = miso            # None: the real port claims its default MISO pin
        self.baudrate = baudrate
        self.devices = []
        self.log = []
        self.keep = None            # the log's entries (note(); fake_board sets it)
        self.bytes = 0

    MSB = 0
    LSB = 1

    def init(self, baudrate=None, **kw):
        if baudrate:
            self.baudrate = baudrate

    def attach(self, device):
        self.devices.append(device)
        return device

    def write(self, buf):
        data = bytes(buf)
        self.bytes += len(data)
        note(self.log, data, self.keep)
        for d in self.devices:
            d.spi_write(data)

    def read(self, n, write=0):
        self.bytes += n
        return bytes(n)

    def clear_log(self):
        self.log = []
        self.bytes = 0


class CountingI2C:
    """An I2C bus that acknowledges everything and counts bytes; allocates nothing."""

    def __init__(self):
        self.bytes = 0
        self.writes = 0

    def writeto(self, addr, buf, stop=True):
        self.bytes += 1 + len(buf)
        self.writes += 1
        return 1

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        # MicroPython's hardware I2C joins the address and the data in a buffer from
        # the heap (extmod/machine_i2c.c, mp_machine_i2c_transfer_adaptor): so does
        # this one, and a driver that uses it fails the heap-locked tests
        joined = bytearray(1 + len(buf))
        self.bytes += 1 + len(joined)
        self.writes += 1


class CountingSPI:
    def __init__(self):
        self.bytes = 0
        self.writes = 0

    def write(self, buf):
        self.bytes += len(buf)
        self.writes += 1


class CountingPin:
    """A pin that reads 0 (so a TM1637 driver sees every ACK) and counts edges."""
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self):
        self.edges = 0
        self.latch = 1

    def init(self, mode=-1, pull=-1):
        pass

    def value(self, v=None):
        if v is None:
            return 0
        if v != self.latch:
            self.edges += 1
            self.latch = v
