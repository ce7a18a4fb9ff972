"""Record the wiring check of each OLED build for firmware/display/hello.py.

The firmware's own display/screens.py draws the check (Screens.settle() with no
game and no panel) on the Pico's transport (chips/oled_fifo.py, a step's
writes as one stream; behind a multiplexer one picture to all panels, then each
one's differences), here on recording buses: every I2C transaction, the
multiplexer's included, in the order the board sends them. `tools/deploy.py
build` packs the recordings with the modules.

    python3 tools/hellorec.py [BUILD ...]     # sizes and transactions per build
"""
import os
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from board import config           # noqa: E402
from display import hello          # noqa: E402
from display.screens import build as build_screens   # noqa: E402

STOP = 0x200                       # IC_DATA_CMD: STOP after this byte


def transactions(w, k, n):
    """Words k..n-1 of an IC_DATA_CMD stream (two bytes each, little-endian) as
    byte strings, one per transaction (ended by a STOP)."""
    out = []
    cur = bytearray()
    for i in range(k, n):
        v = w[2 * i] | w[2 * i + 1] << 8
        if v & ~(STOP | 0xFF):
            raise ValueError("not a write word: 0x%x" % v)
        cur.append(v & 0xFF)
        if v & STOP:
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        raise ValueError("a transaction without its STOP")
    return out


class Bus:
    """machine.I2C's writeto(), into a shared log of (controller, addr, bytes)."""

    def __init__(self, bus_id, log):
        self.id = bus_id
        self.log = log

    def writeto(self, addr, buf, stop=True):
        self.log.append((self.id, addr, bytes(buf)))


class Burst:
    """chips/i2c_viper.py's Burst on one controller, over `bus` (anything with
    machine.I2C's writeto()): each stream decoded into its transactions, written."""

    def __init__(self, bus):
        self.bus = bus
        self.addr = None

    def begin(self, addr):
        self.addr = addr

    def feed(self, words, k, n):
        for t in transactions(words, k, n):
            self.bus.writeto(self.addr, t)
        return n

    def feed_with(self, other, wa, na, wb, nb):
        """Both streams, one after the other (the board sends them at once)."""
        self.feed(wa, 0, na)
        other.feed(wb, 0, nb)
        return 0

    def end(self):
        self.addr = None


def recordable(build):
    """Whether a build's displays are all OLEDs on I2C (what hello.py plays)."""
    return bool(build["displays"]) and all(
        config.CHIPS[e[0]][1] == "oled" and build["buses"][e[1]]["kind"] == "i2c"
        for e in build["displays"])


def log(build):
    """The check's transactions, [(controller id, addr, bytes)], in order."""
    out = []
    buses = {name: Bus(b["id"], out) for name, b in build["buses"].items()}
    screens = build_screens(build, buses, None, burst=lambda bus_id: Burst(Bus(bus_id, out)))
    screens.settle(None, None, 0)
    return out


def encode(transactions):
    """A recording (display/hello.py's format) of [(controller id, addr, bytes)]:
    transactions in a row to one address on one controller make a stream."""
    out = bytearray(hello.MAGIC)
    k = 0
    while k < len(transactions):
        bus_id, addr = transactions[k][0], transactions[k][1]
        words = bytearray()
        while k < len(transactions) and transactions[k][:2] == (bus_id, addr):
            data = transactions[k][2]
            for i, byte in enumerate(data):
                words += bytes((byte, STOP >> 8 if i == len(data) - 1 else 0))
            k += 1
        n = len(words) // 2
        if n > 0xFFFF:
            raise ValueError("stream too long")
        out += bytes((bus_id, addr, n & 0xFF, n >> 8)) + words
    return bytes(out)


def record(name):
    """The recording of build `name`, or None when it is not all OLEDs."""
    build = config.BUILDS[name]
    if not recordable(build):
        return None
    return encode(log(build))


def write(out):
    """hello/<build>.bin under `out` for each recordable build; their paths."""
    made = []
    for name in sorted(config.BUILDS):
        data = record(name)
        if data is None:
            continue
        rel = hello.FOLDER + name + ".bin"
        os.makedirs(os.path.join(out, hello.FOLDER), exist_ok=True)
        with open(os.path.join(out, rel), "wb") as f:
            f.write(data)
        made.append(rel)
    return made


def main(argv):
    p = options.argparser("hellorec", __doc__)
    p.add_argument("builds", nargs="*")
    args = p.read(argv)
    if type(args) is int:
        return args
    for name in args.builds or sorted(config.BUILDS):
        if name not in config.BUILDS:
            print("hellorec: unknown build %r (builds: %s)" % (name, ", ".join(config.BUILDS)),
                  file=sys.stderr)
            return 2
        build = config.BUILDS[name]
        if not recordable(build):
            print("%-8s drawn live (not all OLEDs)" % name)
            continue
        tx = log(build)
        print("%-8s %d transactions, %d bytes" % (name, len(tx), sum(len(t[2]) for t in tx)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
