"""Bytes on the bus per display type, and the time they take at the configured clock.

Measured on the fake buses (the same bytes the Pico would send): a two-player game
with two displays of one type; the traffic of the one update after
  - a scoring stroke (the shooter's inning points change),
  - the end of an inning (banked score changes, the other player comes to the table),
and one full redraw (re-initialisation and all content) of one display; compared
with what a naive full-frame OLED refresh sends (micropython-lib ssd1306 `show()`:
six addressing commands and 1024 bytes of data).

Bus time: I2C 9 bits per byte (8 + ACK) plus start and stop per transaction, at
the build's clock; SPI 8 bits per byte at its baud rate; TM1637 9 clocks per byte
plus start/stop, at the 5 us clock of the Pico's SIO transport (chips/tm1637_sio.py).

    python tools/busbytes.py
"""
import os
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in ("host_tests", os.path.join("tools", "models"), "firmware"):
    sys.path.insert(0, os.path.join(ROOT, p))

from board import config                       # noqa: E402
from cowboy import facts                  # noqa: E402
from views.ui import PAGE_MS              # noqa: E402
from displayrig import Rig                     # noqa: E402

TYPES = (
    ("TM1637 (4 digits)", {"buses": {}, "displays": [("tm1637", 16, 17), ("tm1637", 16, 18)]}),
    ("HT16K33 (4 digits)", {"buses": {"i2c0": config.I2C0},
                            "displays": [("ht16k33", "i2c0", 0x70), ("ht16k33", "i2c0", 0x71)]}),
    ("MAX7219 (8 digits)", {"buses": {"spi0": config.SPI0},
                            "displays": [("max7219", "spi0", 0), ("max7219", "spi0", 1)]}),
    ("SSD1306 OLED", {"buses": {"i2c0": config.I2C0},
                      "displays": [("ssd1306", "i2c0", 0x3C), ("ssd1306", "i2c0", 0x3D)]}),
    ("SH1106 OLED", {"buses": {"i2c0": config.I2C0},
                     "displays": [("sh1106", "i2c0", 0x3C), ("sh1106", "i2c0", 0x3D)]}),
    ("SH1106 behind TCA9548A", {"buses": {"i2c0": dict(config.I2C0, mux=0x71)},
                               "displays": [("sh1106", "i2c0", 0x3C, 0),
                                            ("sh1106", "i2c0", 0x3C, 1)]}),
)


class Meter:
    """Bytes and transactions on whatever carries a build's displays."""

    def __init__(self, rig):
        self.rig = rig

    def read(self):
        nbytes = trans = 0
        for bus in self.rig.buses.values():
            nbytes += bus.bytes
            trans += len(bus.log)
        for m in self.rig.models:
            if hasattr(m, "acks"):               # TM1637: bytes are acknowledged
                nbytes += m.acks
                trans += len(m.log)
        return nbytes, trans


def bus_ms(cfg, nbytes, trans):
    bus = next(iter(cfg["buses"].values()), None)
    if bus is None:
        clock_us = 5.0          # chips/tm1637_sio.py on the Pico: 2.5 us half-bits
        return (nbytes * 9 + trans * 3) * clock_us / 1000.0, "%d kHz bit-banged" % (
            1000 // clock_us)
    if bus["kind"] == "spi":
        return nbytes * 8 * 1000.0 / bus["baudrate"], "%g MHz SPI" % (bus["baudrate"] / 1e6)
    return (nbytes * 9 + trans * 2) * 1000.0 / bus["freq"], "%d kHz I2C" % (bus["freq"] // 1000)


def measure(cfg):
    out = {}
    # A scoring stroke shows where the inning points are on show: beside the score
    # on an OLED, on the first item page of an 8-digit display, on the second page
    # of a 4-digit one. Take the larger of the first two page phases.
    for phase in (0, 1):
        rig = Rig(cfg, players=2)
        meter = Meter(rig)
        rig.now = PAGE_MS * 60 + phase * PAGE_MS + 1
        for f in (facts.B1 | facts.B3 | (3 << facts.CAROM), 0, facts.B3, 0, facts.B5):
            rig.game.shot(f)
        rig.drain()
        b0, t0 = meter.read()
        rig.game.shot(facts.B3 | (2 << facts.CAROM))
        rig.drain()
        b1, t1 = meter.read()
        if "stroke" not in out or b1 - b0 > out["stroke"][0]:
            out["stroke"] = (b1 - b0, t1 - t0)
    rig.now = PAGE_MS * 60 + 1
    rig.drain()
    b0, t0 = meter.read()
    rig.game.shot(0)
    rig.drain()
    b1, t1 = meter.read()
    out["inning"] = (b1 - b0, t1 - t0)
    b0, t0 = meter.read()
    rig.screens.displays[0].flush(True)
    b1, t1 = meter.read()
    out["full"] = (b1 - b0, t1 - t0)
    return out


def main(argv):
    args = options.argparser("busbytes.py", __doc__).read(argv)
    if type(args) is int:
        return args
    naive = 6 * 3 + 1 + 1 + 1024             # 6 x [addr 0x80 cmd] + [addr 0x40 data...]
    rows = []
    for name, cfg in TYPES:
        r = measure(cfg)
        cells = []
        for key in ("stroke", "inning", "full"):
            nb, tr = r[key]
            ms, how = bus_ms(cfg, nb, tr)
            cells.append("%d B, %.2f ms" % (nb, ms))
        rows.append("| %s | %s | %s |" % (name, " | ".join(cells), how))
    ms, _ = bus_ms({"buses": {"i2c0": config.I2C0}}, naive, 7)
    print("| display | scoring stroke | end of inning | full redraw of one display | clock |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(r)
    print("| naive OLED `show()` (full frame) | %d B, %.2f ms | %d B, %.2f ms | %d B, %.2f ms "
          "| 400 kHz I2C |" % (naive, ms, naive, ms, naive, ms))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
