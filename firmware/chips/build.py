"""The display chips of a build: one driver per seat, made from its entry in board/config.py
BUILDS, on the buses and pins the caller made. Only the driver modules a build uses are
imported (seven-segment builds load no glyphs). A new chip is a driver module in chips/ and one
branch of `drivers()` here (docs/ARCHITECTURE.md, "Adding a display chip"). `hello()` draws the
start-up wiring check on seven-segment drivers alone, before the screens and the views are
imported (docs/DISPLAYS.md, "The recorded wiring check").
"""


def drivers(build, buses, pin, tm1637=None, burst=None):
    """The list of display drivers, one per seat (display/screens.py build(), factory.py).
    Only the driver modules the build uses are imported (seven-segment builds
    load no glyphs). `tm1637`: the TM1637 transport class, called as
    tm1637(clk_pin, dio_pin, clk_gpio, dio_gpio) (None: chips/tm1637.py);
    `burst`: the OLEDs' I2C stream transport, called as burst(bus_id) (None: one
    writeto() per transaction)."""

    pins = {}

    def get_pin(n):
        if n not in pins:
            pins[n] = pin[n] if isinstance(pin, dict) else pin(n)
        return pins[n]

    entries = build["displays"]
    chains = {}
    muxes = {}
    bursts = {}
    out = []
    for e in entries:
        kind = e[0]
        if kind == "tm1637":
            if tm1637 is not None:
                out.append(tm1637(get_pin(e[1]), get_pin(e[2]), e[1], e[2]))
            else:
                from chips.tm1637 import TM1637
                out.append(TM1637(get_pin(e[1]), get_pin(e[2])))
        elif kind == "max7219":
            name = e[1]
            if name not in chains:
                from chips.max7219 import MAX7219Chain
                count = 0
                for x in entries:
                    if x[0] == "max7219" and x[1] == name:
                        count += 1
                cfg = build["buses"][name]
                chains[name] = MAX7219Chain(buses[name], get_pin(cfg["cs"]), count)
            out.append(chains[name].module(e[2]))
        elif kind == "ht16k33":
            from chips.ht16k33 import HT16K33
            out.append(HT16K33(buses[e[1]], e[2]))
        elif kind == "ssd1306" or kind == "sh1106":
            bus = buses[e[1]]
            if len(e) > 3:
                name = e[1]
                if name not in muxes:
                    from chips.tca9548a import TCA9548A
                    muxes[name] = TCA9548A(bus, build["buses"][name].get("mux", 0x70))
                bus = muxes[name].channel(e[3])
            if burst is not None:
                from chips import oled_fifo as O
                cls = O.SH1106_FIFO if kind == "sh1106" else O.SSD1306_FIFO
                if e[1] not in bursts:          # one transport per I2C controller
                    bursts[e[1]] = burst(build["buses"][e[1]]["id"])
                out.append(cls(bus, e[2], burst=bursts[e[1]]))
            else:
                from chips import oled as O
                cls = O.SH1106_I2C if kind == "sh1106" else O.SSD1306_I2C
                out.append(cls(bus, e[2]))
        else:
            raise ValueError(kind)
    if muxes and burst is not None:
        from chips.oled_fifo import share
        share(out)          # one start-up picture for all the multiplexer's OLEDs
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
