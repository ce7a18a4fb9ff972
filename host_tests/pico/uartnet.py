# The emulated Pico W's network, for `make test-pico` only: imported by the test's
# boot.py after the firmware's own. Wi-Fi is not emulated: `network` joins at once,
# and asyncio.open_connection() is a connection over UART0, which the instrument
# wires to a host port where host_tests/uartlink.py carries it on to the broker.
# Above the streams, everything is the firmware's own.
import sys

import asyncio
import machine
from asyncio import core

OPEN = b"\x00\xfeLINK-OPEN\xfe\x00"
CLOSE = b"\x00\xfeLINK-CLOSE\xfe\x00"
READY = b"\x00\xfeLINK-READY\xfe\x00"
FAILED = b"\x00\xfeLINK-FAILED\xfe\x00"

_uart = machine.UART(0, 1000000, rxbuf=4096, txbuf=2048)


class WLAN:
    def __init__(self, *args):
        pass

    def active(self, *args):
        return True

    def connect(self, *args, **kw):
        pass

    def isconnected(self):
        return True

    def status(self, *args):
        return 3                # joined


class network:                  # what `import network` finds (sys.modules)
    STA_IF = 0
    WLAN = WLAN


class _Reader(asyncio.StreamReader):
    """A socket's readinto: what has come, at once (lwIP's does not wait for more).
    The UART's own waits for each byte missing while they come, up to a character's
    time apart: a read of the client's 2.3 KB buffer lasted as long as the line took
    to bring them (44 ms of a client step at 1 Mbaud)."""

    async def readinto(self, buf):
        yield core._io_queue.queue_read(self.s)
        return self.s.readinto(buf, max(1, min(len(buf), self.s.any())))


class _Writer(asyncio.StreamWriter):
    def close(self):
        _uart.write(CLOSE)

    async def aclose(self):
        _uart.write(CLOSE)

    async def wait_closed(self):
        pass


async def open_connection(host, port, ssl=False):
    while _uart.any():              # what a connection before this one left
        _uart.read()
    _uart.write(OPEN)
    reader = _Reader(_uart)
    seen = b""
    while not seen.endswith(READY):
        if seen.endswith(FAILED):
            raise OSError(113)      # EHOSTUNREACH
        b = await reader.read(1)
        seen = (seen + b)[-16:]
    return reader, _Writer(_uart, {})


sys.modules["network"] = network
asyncio.open_connection = open_connection
