"""Wiring diagrams, one SVG per build, drawn from firmware/board/config.py.

    python tools/wiring.py            write hardware/wiring-<build>.svg for every build
    python tools/wiring.py --check    exit 1 when a committed drawing is out of date

The Pico is drawn with its 40 header pins. Buttons are drawn in place (switch to
GND, internal pull-up); everything else is joined by net names: a flag on a Pico
pin and the same flag on a device pin are one wire. Each Pico pin carries
data-gpio/data-net attributes and each device pin data-device/data-pin/data-net,
so the tests can follow every wire.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pinout  # noqa: E402
from pinout import config  # noqa: E402
from hwsvg import Svg  # noqa: E402

sys.path.insert(0, os.path.join(pinout.ROOT, "tools", "models"))
from fakedisplays import DEVICES  # noqa: E402  (the display chips as devices)

PITCH = 30
TOP = 150
PICO_X, PICO_W = 600, 240
WIDTH = 1660
COL_W, COL_GAP = 380, 20



def rail_of(chip):
    """The supply rail a display chip is wired to (tools/models/fakedisplays.py DEVICES;
    ELECTRICAL.md explains the choice)."""
    return DEVICES[chip]["rail"]


def net(use):
    """Net name of a GPIO use, as printed on the flags."""
    f = use["function"]
    if f == "encoder":
        return "%s %s" % (use["encoder"], "SW" if use["signal"] == "switch" else use["signal"])
    if f == "buzzer":
        return "BUZZER"
    if f == "display":
        if use["bus"] in config.CHIPS:      # a two-wire chip's clock or data
            return "TM CLK" if use["signal"] == "CLK" else "TM DIO%d" % use["player"]
        return "%s %s" % (use["bus"].upper(), use["signal"])
    return "KEY %s" % use["key"]


def _flag(s, x, y, name, right=True):
    """A net flag: a label box that starts at (x, y) and points away from the wire."""
    w = 16 + 7.2 * len(name)
    if right:
        s.poly([(x, y), (x + 8, y - 9), (x + w, y - 9), (x + w, y + 9), (x + 8, y + 9), (x, y)],
               fill="#eef4ff", width=1)
        s.text(x + 10, y + 4, name, size=11)
    else:
        s.poly([(x, y), (x - 8, y - 9), (x - w, y - 9), (x - w, y + 9), (x - 8, y + 9), (x, y)],
               fill="#eef4ff", width=1)
        s.text(x - w + 3, y + 4, name, size=11)


def _switch(s, x, y):
    """Normally-open push switch between x and x-50 on row y."""
    s.circle(x - 10, y, 3)
    s.circle(x - 40, y, 3)
    s.line(x - 40, y - 3, x - 8, y - 14)
    s.line(x - 24, y - 8, x - 24, y - 18)
    s.line(x - 30, y - 18, x - 18, y - 18)


def pico(s, uses):
    """The Pico with every header pin and what hangs on it."""
    bottom = TOP + 19 * PITCH
    s.rect(PICO_X, TOP - 30, PICO_W, bottom - TOP + 60, fill="#e9f5e9", rx=8)
    s.rect(PICO_X + PICO_W / 2 - 22, TOP - 42, 44, 16, fill="#ccc", rx=3)
    s.text(PICO_X + PICO_W / 2, TOP - 46, "USB", size=11, anchor="middle")
    s.text(PICO_X + PICO_W / 2, TOP - 12, "Raspberry Pi Pico (top view)", size=12,
           anchor="middle", weight="bold")
    gnd_x = 150
    s.line(gnd_x, TOP - 20, gnd_x, bottom + 20, width=2.5)
    s.text(gnd_x, TOP - 26, "GND", size=12, anchor="middle", weight="bold")
    for pin in range(1, 41):
        name = pinout.HEADER[pin]
        left = pin <= 20
        row = pin - 1 if left else 40 - pin
        y = TOP + row * PITCH
        edge = PICO_X if left else PICO_X + PICO_W
        inner = edge + 6 if left else edge - 6
        s.text(inner, y + 4, "%d %s" % (pin, name) if left else "%s %d" % (name, pin), size=11,
               anchor="start" if left else "end")
        gpio = int(name[2:]) if name.startswith("GP") else None
        use = uses.get(gpio)
        attrs = [("data-pin", pin)]
        if use is not None:
            attrs += [("data-gpio", gpio), ("data-net", net(use))]
        s.group(attrs)
        if left:
            if name == "GND":
                s.line(edge, y, gnd_x, y)
                s.circle(gnd_x, y, 3, fill="#000")
            elif use is None:
                s.line(edge, y, edge - 20, y, stroke="#999")
                s.text(edge - 24, y + 4, "free", size=10, anchor="end", fill="#999")
            elif use["function"] == "panel":
                s.line(edge, y, 380, y)
                _switch(s, 380, y)
                s.line(340, y, gnd_x, y)
                s.circle(gnd_x, y, 3, fill="#000")
                s.text(480, y - 5, use["key"], size=12, anchor="middle", weight="bold")
            else:
                s.line(edge, y, edge - 60, y)
                _flag(s, edge - 60, y, net(use), right=False)
        else:
            out = edge + 60
            if use is not None and use.get("signal") == "MISO":
                s.line(edge, y, edge + 20, y, stroke="#999")
                s.text(edge + 24, y + 4, "%s MISO: taken by the SPI block, leave open"
                       % use["bus"].upper(), size=10, fill="#666")
            elif use is not None:
                s.line(edge, y, out, y)
                _flag(s, out, y, net(use))
            elif name in ("GND", "AGND"):
                s.line(edge, y, out, y)
                _flag(s, out, y, "GND")
            elif name == "VSYS":
                s.line(edge, y, out, y)
                _flag(s, out, y, "VSYS")
            elif name == "3V3(OUT)":
                s.line(edge, y, out, y)
                _flag(s, out, y, "+3V3")
            elif name == "VBUS":
                s.line(edge, y, edge + 20, y, stroke="#999")
                s.text(edge + 24, y + 4, "USB 5 V: leave open (supply goes to VSYS)",
                       size=10, fill="#666")
            else:
                s.line(edge, y, edge + 20, y, stroke="#999")
                s.text(edge + 24, y + 4, "open" if name.startswith("GP") is False else "free",
                       size=10, fill="#999")
        s.end()
    s.text(250, bottom + 50, "Buttons: normally-open arcade switches from the GPIO to GND.",
           size=11)
    s.text(250, bottom + 66, "The RP2040 pull-ups hold the lines high; no resistors needed.",
           size=11)
    return bottom + 90


class Block:
    """A device box: title, notes, and pins that each end in a net flag."""

    def __init__(self, title, pins, notes=()):
        self.title, self.pins, self.notes = title, pins, list(notes)

    def height(self):
        return 34 + 22 * len(self.pins) + 15 * len(self.notes) + 10

    def draw(self, s, x, y):
        h = self.height()
        s.rect(x + 120, y, COL_W - 120, h, fill="#fffbe8", rx=5)
        s.text(x + 128, y + 18, self.title, size=12, weight="bold")
        py = y + 40
        for pin, net_name in self.pins:
            s.group([("data-device", self.title), ("data-pin", pin), ("data-net", net_name)])
            s.line(x + 110, py, x + 120, py)
            s.text(x + 126, py + 4, pin, size=11)
            _flag(s, x + 110, py, net_name, right=False)
            s.end()
            py += 22
        for note in self.notes:
            s.text(x + 128, py + 2, note, size=10, fill="#444")
            py += 15


def blocks(build):
    """Device boxes of a build: encoders, display bus parts, displays, buzzer, power."""
    out = []
    uses = dict(pinout.assignments(build))
    for name, a, b, sw in pinout.encoders(build):
        out.append(Block("%s rotary encoder" % name,
                         [("A", "%s A" % name), ("B", "%s B" % name), ("C (common)", "GND"),
                          ("SW", "%s SW" % name), ("SW (other)", "GND")],
                         ["EC11 with push switch, contacts to GND;",
                          "RP2040 pull-ups; optional 10 nF A/B to GND"]))
    spec = config.BUILDS[build]
    shown = pinout.displays(build)
    kinds = set(d["type"] for d in shown)
    for bus_name, bus in spec["buses"].items():
        b = bus_name.upper()
        if bus["kind"] == "i2c":
            out.append(Block("%s pull-ups 2 x 2.2 kOhm" % b,
                             [("SDA to +3V3", "%s SDA" % b), ("SCL to +3V3", "%s SCL" % b),
                              ("top", "+3V3")],
                             ["to 3.3 V only: GPIO are not 5 V tolerant;",
                              "remove 5 V pull-ups on display boards"]))
            if "mux" in bus:
                addr = bus["mux"] - 0x70
                pins = [("SDA", "%s SDA" % b), ("SCL", "%s SCL" % b), ("VIN", "+3V3"),
                        ("GND", "GND"), ("RESET", "+3V3")]
                for i, a in enumerate(("A0", "A1", "A2")):
                    pins.append((a, "+3V3" if addr >> i & 1 else "GND"))
                channels = sorted(set(d["mux_channel"] for d in shown if "mux_channel" in d))
                for ch in channels:
                    pins.append(("SD%d / SC%d" % (ch, ch), "CH%d SDA/SCL" % ch))
                out.append(Block("TCA9548A I2C mux at 0x%02X" % bus["mux"], pins,
                                 ["address pins strapped to 0x%02X, away from" % bus["mux"],
                                  "0x70 (HT16K33); each channel needs pull-ups"]))
        else:
            out.append(Block("74AHCT125 level shifter", [
                ("1A", "%s SCK" % b), ("1Y", "SCK 5V"),
                ("2A", "%s MOSI" % b), ("2Y", "DIN 5V"),
                ("3A", "%s CS" % b), ("3Y", "LOAD 5V"),
                ("1OE 2OE 3OE 4OE 4A", "GND"), ("VCC", "+5V"), ("GND", "GND")],
                ["3.3 V in, 5 V out (MAX7219 high is 3.5 V)",
                 "100 nF from VCC to GND at the chip"]))
    for d in shown:
        title = "P%d %s" % (d["player"], d["type"].upper())
        rail = rail_of(d["type"])
        if "clk" in d:
            pins = [("CLK", "TM CLK"), ("DIO", "TM DIO%d" % d["player"]),
                    ("VCC", rail), ("GND", "GND")]
            notes = ["3.3 V supply keeps CLK/DIO at 3.3 V"]
        elif "chain" in d:
            first = d["chain"] == 0
            last = d["chain"] == len(shown) - 1
            pins = [("DIN", "DIN 5V" if first else "CHAIN %d" % d["chain"]),
                    ("CLK", "SCK 5V"), ("CS", "LOAD 5V"), ("VCC", rail), ("GND", "GND")]
            if not last:
                pins.append(("DOUT", "CHAIN %d" % (d["chain"] + 1)))
            title += " chain %d" % d["chain"]
            notes = ["8-digit module; DOUT feeds the next DIN"]
        else:
            b = d["bus"].upper()
            if "mux_channel" in d:
                sda = scl = "CH%d SDA/SCL" % d["mux_channel"]
                pins = [("SDA / SCL", sda), ("VCC", rail), ("GND", "GND")]
            else:
                sda, scl = "%s SDA" % b, "%s SCL" % b
                pins = [("SDA", sda), ("SCL", scl), ("VCC", rail), ("GND", "GND")]
            title += " 0x%02X" % d["address"]
            if config.CHIPS[d["type"]][1] != "oled":
                a = d["address"] - 0x70
                notes = ["address jumpers A2 A1 A0 = %d %d %d" % (a >> 2 & 1, a >> 1 & 1, a & 1)]
            else:
                notes = ["address jumper %s" % ("0x3C (default)" if d["address"] == 0x3C
                                                 else "0x3D (SA0 high)")]
        out.append(Block(title, pins, notes))
    if any(u["function"] == "buzzer" for u in uses.values()):
        out.append(Block("Buzzer driver", [("1 kOhm to NPN base", "BUZZER"),
                                           ("buzzer +", "+5V"), ("NPN emitter", "GND")],
                         ["piezo between +5V and the NPN collector"]))
    rails = set(rail_of(k) for k in kinds)
    out.append(Block("5 V supply", [("+", "+5V"), ("-", "GND")],
                     ["regulated 5 V, size from ELECTRICAL.md"]))
    out.append(Block("Schottky diode 1N5819", [("anode", "+5V"), ("cathode", "VSYS")],
                     ["lets USB and the supply both be connected"]))
    if "+3V3D" in rails:
        out.append(Block("3.3 V display regulator", [("IN", "+5V"), ("OUT", "+3V3D"),
                                                     ("GND", "GND")],
                         ["not the Pico's 3V3(OUT) (300 mA max)"]))
    return out


def render(build):
    uses = dict(pinout.assignments(build))
    bs = blocks(build)
    cols = (WIDTH - 40) // (COL_W + COL_GAP)
    # Row by row, in the order of `blocks()`, so players read P1, P2, ... left to right.
    placed = []
    row_y = 0
    for start in range(0, len(bs), cols):
        row = bs[start:start + cols]
        for c, b in enumerate(row):
            placed.append((b, c, row_y))
        row_y += max(b.height() for b in row) + COL_GAP
    y0 = TOP + 19 * PITCH + 110
    height = y0 + row_y + 40
    s = Svg(WIDTH, height, "Cowboy scoreboard wiring, build %s" % build)
    s.text(30, 36, "Wiring: build \"%s\" (%d players)" % (build, pinout.seats(build)), size=22,
           weight="bold")
    s.text(30, 60, "Drawn by tools/wiring.py from firmware/board/config.py. Flags with the "
                   "same name are one wire. GND, +5V, +3V3 (Pico 3V3 OUT) and +3V3D are rails.",
           size=12)
    s.text(30, 78, "Pin numbers: GPn = RP2040 GPIO; small numbers = Pico header pins. "
                   "See PINOUT.md and ELECTRICAL.md.", size=12)
    pico(s, uses)
    s.text(30, y0 - 20, "Devices", size=16, weight="bold")
    for b, c, y in placed:
        b.draw(s, 20 + c * (COL_W + COL_GAP), y0 + y)
    return s.document()


def outputs():
    return {"wiring-%s.svg" % b: (lambda b=b: render(b)) for b in pinout.builds()}


def main(argv):
    return pinout.run(outputs, argv, "wiring.py", __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
