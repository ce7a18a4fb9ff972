"""Wokwi simulator diagram (hardware/wokwi/diagram.json) for the default build.

    python tools/wokwi_diagram.py            write hardware/wokwi/diagram.json
    python tools/wokwi_diagram.py --check    exit 1 when the committed file is out of date

Parts are those Wokwi ships: wokwi-pi-pico, wokwi-pushbutton (one per PANEL key,
labelled with the key), wokwi-ky-040 (rotary encoder with push switch),
wokwi-tm1637-7segment (or board-ssd1306 for an OLED build) and wokwi-buzzer. Every GPIO wire comes from firmware/board/config.py.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pinout  # noqa: E402
from pinout import config  # noqa: E402

sys.path.insert(0, os.path.join(pinout.ROOT, "tools", "models"))
from fakedisplays import DEVICES  # noqa: E402  (the display chips as devices: Wokwi parts)

GND_PINS = ["GND.%d" % i for i in range(1, 9)]


class Diagram:
    def __init__(self):
        self.parts = [{"type": "wokwi-pi-pico", "id": "pico", "top": 0, "left": 0,
                       "attrs": {}}]
        self.connections = []
        self._gnd = 0

    def part(self, type_, id_, top, left, attrs=None, rotate=0):
        p = {"type": type_, "id": id_, "top": top, "left": left, "attrs": attrs or {}}
        if rotate:
            p["rotate"] = rotate
        self.parts.append(p)

    def wire(self, a, b, color):
        self.connections.append([a, b, color, []])

    def gpio(self, gpio, part_pin, color="green"):
        self.wire("pico:GP%d" % gpio, part_pin, color)

    def gnd(self, part_pin):
        # Spread ground wires over the Pico's eight GND pins.
        self.wire(part_pin, "pico:" + GND_PINS[self._gnd % len(GND_PINS)], "black")
        self._gnd += 1

    def document(self):
        return {"version": 1, "author": "Cowboy scoreboard",
                "editor": "wokwi", "parts": self.parts,
                "connections": self.connections, "dependencies": {}}


def build(name=None):
    """The diagram of a build (default: the firmware's BUILD) as a dict."""
    name = name or config.BUILD
    d = Diagram()
    for i, (key, gpio) in enumerate(config.PANEL.items()):
        pid = "key_%s" % key
        d.part("wokwi-pushbutton", pid, 20 + 45 * i, -260,
               {"color": "red" if key in ("FOUL", "SCRATCH") else "green",
                "label": key})
        d.gpio(gpio, "%s:1.l" % pid)
        d.gnd("%s:2.l" % pid)
    for i, (ename, a, b, sw) in enumerate(pinout.encoders(name)):
        pid = "enc%d" % (i + 1)
        d.part("wokwi-ky-040", pid, 540 + 90 * i, -260)
        d.gpio(a, "%s:CLK" % pid, "blue")
        d.gpio(b, "%s:DT" % pid, "blue")
        d.gpio(sw, "%s:SW" % pid, "blue")
        d.wire("%s:VCC" % pid, "pico:3V3", "red")
        d.gnd("%s:GND" % pid)
    for disp in pinout.displays(name):
        p = disp["player"]
        pid = "p%d" % p
        top, left = -120 + 70 * (p - 1), 260
        part = DEVICES[disp["type"]]["wokwi"]
        if part is not None and "clk" in disp:
            d.part(part, pid, top, left, {"color": "red"})
            d.gpio(disp["clk"], "%s:CLK" % pid, "orange")
            d.gpio(disp["dio"], "%s:DIO" % pid, "orange")
            d.wire("%s:VCC" % pid, "pico:3V3", "red")
            d.gnd("%s:GND" % pid)
        elif part is not None and "address" in disp:
            bus = config.BUILDS[name]["buses"][disp["bus"]]
            d.part(part, pid, top, left, {"i2cAddress": "0x%02x" % disp["address"]})
            d.gpio(bus["sda"], "%s:SDA" % pid, "purple")
            d.gpio(bus["scl"], "%s:SCL" % pid, "purple")
            d.wire("%s:VCC" % pid, "pico:3V3", "red")
            d.gnd("%s:GND" % pid)
        else:
            raise ValueError("no Wokwi part for %s" % disp["type"])
    if config.BUZZER is not None:
        d.part("wokwi-buzzer", "buzzer", 640, 260)
        d.gpio(config.BUZZER, "buzzer:2", "red")
        d.gnd("buzzer:1")
    return d.document()


def render(name=None):
    return json.dumps(build(name), indent=2) + "\n"


def main(argv):
    return pinout.run(lambda: {"wokwi/diagram.json": render}, argv, "wokwi_diagram.py",
                      __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
