"""The display chips of a build: one driver per seat, made from its entry in board/config.py
BUILDS, on the buses and pins the caller made. Each entry's chip names its driver module in
board/config.py CHIPS, and that module's `make(entry, parts)` makes the driver; only the driver
modules a build uses are imported (seven-segment builds load no glyphs). `hello()` draws the
start-up wiring check on seven-segment drivers alone, before the screens and the views are
imported (docs/DISPLAYS.md, "The recorded wiring check").
"""
from board.config import CHIPS


class Parts:
    """What a driver module's make(entry, parts) is given: the build, its buses,
    its pins (`pin(gpio)`: one object per GPIO), the OLEDs' I2C stream transport
    the caller chose (`burst`), the drivers made so far (`made`) and `shared`,
    where the drivers on one bus find what they share: a chain or a multiplexer
    under the bus object, a transport under the controller's id."""

    def __init__(self, build, buses, pin, burst, made):
        self.build = build
        self.buses = buses
        self._pin = pin
        self._pins = {}
        self.burst = burst
        self.made = made
        self.shared = {}

    def pin(self, n):
        """The pin object of GPIO n (made at the first call)."""
        pins = self._pins
        if n not in pins:
            p = self._pin
            pins[n] = p[n] if isinstance(p, dict) else p(n)
        return pins[n]


def drivers(build, buses, pin, native=None, burst=None):
    """The list of display drivers, one per seat (display/screens.py build(), factory.py).
    `native`: driver modules to use in place of others, {"tm1637": "tm1637_sio"}
    on the Pico (factory.py); `burst`: the OLEDs' I2C stream transport, called as
    burst(bus_id) once per I2C controller, and fed by chips/oled_fifo.py's
    drivers (None: chips/oled.py's, one writeto() per transaction)."""
    out = []
    parts = Parts(build, buses, pin, burst, out)
    makers = {}             # chip -> its module's make() (imported once: start-up time)
    for e in build["displays"]:
        make = makers.get(e[0])
        if make is None:
            name = CHIPS[e[0]][0]
            if native is not None and name in native:
                name = native[name]
            elif burst is not None and name == "oled":
                name = "oled_fifo"            # the OLEDs' drivers that feed `burst`
            make = makers[e[0]] = __import__("chips." + name, None, None, ("make",)).make
        out.append(make(e, parts))
    return out


def hello(displays):
    """The start-up wiring check on seven-segment drivers, as the views
    renders it without a panel (Screens.settle(None, None, now)): `P  1` on a
    4-digit display, `PLAYEr 1` on an 8-digit one, each display its seat's
    number, at the drivers' own brightness. Every text is given before the first
    flush (a MAX7219 chain then sends all its modules in one set-up). A display
    that fails (OSError) is left unknown: the screens made next retry it."""
    n = len(displays)
    for i in range(n):
        d = displays[i]
        if d is not None:
            if d.digits >= 8:
                text = bytearray(b"PLAYEr 1")
                text[7] += i
            else:
                text = bytearray(b"P  1")
                text[3] += i
            d.text(text)
    for i in range(n):
        d = displays[i]
        if d is not None:
            try:
                d.flush()
            except OSError:
                pass
