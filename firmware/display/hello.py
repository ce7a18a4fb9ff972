"""The start-up wiring check drawn before the screens and the views are imported,
and the display drivers of a build.

On a seven-segment build `draw()` shows it (each display its player number) on
the drivers alone (`drivers()`, which display/screens.py uses too): the first
picture then does not wait for the screens and the views (some 80 ms of imports
on the RP2040); the screens made next render the same texts and find nothing to
send (host_tests/test_display_drivers_hello.py).

An OLED build's check is played from a recording. Drawn live, its first picture (each display its player number)
waits for what it needs: display/screens.py, views, the OLED drivers, glyphs and
cells, some 150 ms of imports on the RP2040, then every seat rendered. Yet it is
the same picture at every start. `tools/deploy.py build` records it for each
build whose displays are all OLEDs on I2C (tools/hellorec.py: the I2C
transactions that Screens.settle() makes on the Pico's transport, run on the
host) and packs it with the modules as hello/<build>.bin. factory.py plays
it once the keys are set up, before those imports; Screens.assume() then renders
the same views and takes them as what the panels show, so the next update sends
only what changes.

Recording: MAGIC, then streams, each the transactions in a row to one address
on one I2C controller: the controller id (1 byte), the address (1 byte), the
number of words (2 bytes, little-endian), then the words, as the RP2040's
IC_DATA_CMD takes them (2 bytes each, little-endian: the byte, and bit 9, STOP,
on the last byte of each transaction). On the Pico they go straight into the
controllers' FIFOs (chips/i2c_viper.py), a stream on one controller at the
same time as the next one on the other (oled4: two panels drawn at once).
"""
import os

MAGIC = b"CWH2"
FOLDER = "hello/"
_STOP = 2                 # bit 9 of a word: its high byte's bit 1


def read(name, root="/"):
    """The recording of build `name` (a bytearray), from the mounted pack
    (fastimport.py) or else from `root`; None when there is none."""
    from fastimport import MOUNT
    for base in (MOUNT + "/", root):
        path = base + FOLDER + name + ".bin"
        try:
            buf = bytearray(os.stat(path)[6])
            f = open(path, "rb")
            n = f.readinto(buf)
            f.close()
        except OSError:
            continue
        if n == len(buf) and buf[:4] == MAGIC:
            return buf
    return None


def streams(data):
    """[(controller id, address, first byte of the words, number of words)];
    ValueError for a recording cut short."""
    out = []
    i = len(MAGIC)
    end = len(data)
    while i < end:
        if i + 4 > end:
            raise ValueError("cut short")
        n = data[i + 2] | data[i + 3] << 8
        if i + 4 + 2 * n > end:
            raise ValueError("cut short")
        out.append((data[i], data[i + 1], i + 4, n))
        i += 4 + 2 * n
    return out


def play(data, i2cs, burst=None):
    """Send a recording. `i2cs`: controller id -> bus (machine.I2C); `burst`:
    None (each transaction a writeto()), or the FIFO transport's class
    (chips/i2c_viper.py Burst, made per controller id). True once all of it
    went out; False on a bus error or a damaged recording, and nothing more is
    sent: the caller then draws the check live, and a display that fails is
    found and retried there."""
    try:
        todo = streams(data)
    except ValueError:
        return False
    mv = memoryview(data)
    try:
        if burst is None:
            for c, addr, at, n in todo:
                writes(i2cs[c], addr, data, at, n)
            return True
        made = {}
        k = 0
        while k < len(todo):
            c, addr, at, n = todo[k]
            if c not in made:
                made[c] = burst(c)
            b = made[c]
            b.begin(addr)
            nxt = todo[k + 1] if k + 1 < len(todo) else None
            if nxt is not None and nxt[0] != c:
                if nxt[0] not in made:
                    made[nxt[0]] = burst(nxt[0])
                o = made[nxt[0]]
                o.begin(nxt[1])
                bad = b.feed_with(o, mv[at:at + 2 * n], n, mv[nxt[2]:nxt[2] + 2 * nxt[3]],
                                  nxt[3])
                b.end()
                o.end()
                if bad:
                    return False
                k += 2
            else:
                b.feed(mv[at:at + 2 * n], 0, n)
                b.end()
                k += 1
    except (OSError, KeyError, ValueError):
        return False
    return True


def writes(i2c, addr, data, at, n):
    """The n words of a stream from byte `at` of `data` as writeto() transactions
    (each up to its STOP) to `addr` on `i2c`."""
    out = bytearray(n)
    m = 0
    for k in range(at, at + 2 * n, 2):
        out[m] = data[k]
        m += 1
        if data[k + 1] & _STOP:
            i2c.writeto(addr, out[:m])
            m = 0
    if m:
        raise ValueError("a transaction without its STOP")


def drivers(build, buses, pin, tm1637=None, burst=None):
    """The list of display drivers, one per seat (display/screens.py build()).
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


def draw(displays):
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
