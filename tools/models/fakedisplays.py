"""Device models that decode display wire protocols into what a person sees.

TM1637 (bit-banged on two `Net` wires), MAX7219 chain (SPI + CS), HT16K33 (I2C),
SSD1306 / SH1106 (I2C) and the TCA9548A multiplexer. Each model keeps the chip's
registers as the datasheet describes them and offers:
  `.text()`  the characters a person reads (seven-segment) or `.pixels()` (OLED),
  `.art()`   the same drawn with text characters (the terminal simulator uses it),
  `.log`     the transactions it received, for byte-exact protocol tests: the
             latest `keep` of them (KEEP; fake_board(keep=0): none), so a model
             that runs for hours (the simulator, a hall table) keeps a bounded heap.
`present = False` makes a device stop acknowledging (unplugged).
Rendering to PNG lives in `pictures` helpers below (`png_bytes`).
"""
import struct

from fakebuses import KEEP, Net, note

# What a person reads from a lit segment pattern (bit 0 = a ... bit 6 = g).
# Written out independently of the firmware's encoding table on purpose.
_SHAPES = {
    "abcdef": "0", "bc": "1", "abdeg": "2", "abcdg": "3", "bcfg": "4",
    "acdfg": "5", "acdefg": "6", "abc": "7", "abcdefg": "8", "abcdfg": "9",
    "abcefg": "A", "cdefg": "b", "adef": "C", "deg": "c", "bcdeg": "d",
    "adefg": "E", "aefg": "F", "acdef": "G", "bcefg": "H", "cefg": "h",
    "ef": "I", "e": "i", "bcde": "J", "acefg": "K", "def": "L", "abcef": "M",
    "ceg": "n", "cdeg": "o", "abefg": "P", "abcfg": "q", "eg": "r",
    "defg": "t", "bcdef": "U", "cde": "u", "bcdfg": "y", "g": "-", "d": "_",
    "dg": "=", "abeg": "?", "": " ", "b": "'", "bf": '"', "abcd": "]",
    "abf": "^", "beg": "/",
}


def seg_names(s):
    return "".join("abcdefg"[k] for k in range(7) if s >> k & 1)


def seg_char(s):
    """The character a segment byte shows ('.' appended for the decimal point);
    '~' for a pattern no character has."""
    ch = _SHAPES.get(seg_names(s), "~")
    return ch + "." if s & 0x80 else ch


def seg_text(segs):
    return "".join(seg_char(s) for s in segs)


def seg_art(segs, on=True):
    """Three text rows drawing the digits with _ and | (blank when off)."""
    rows = ["", "", ""]
    for s in segs:
        if not on:
            s = 0
        rows[0] += " " + ("_" if s & 0x01 else " ") + "  "
        rows[1] += ("|" if s & 0x20 else " ") + ("_" if s & 0x40 else " ") + \
                   ("|" if s & 0x02 else " ") + " "
        rows[2] += ("|" if s & 0x10 else " ") + ("_" if s & 0x08 else " ") + \
                   ("|" if s & 0x04 else " ") + ("." if s & 0x80 else " ")
    return "\n".join(rows)


class TM1637Device:
    """A TM1637 on a CLK and a DIO wire (several may share CLK)."""
    GRIDS = 6

    def __init__(self, clk_net, dio_net, digits=4):
        self.clk = clk_net
        self.dio = dio_net
        self.digits = digits
        self.present = True
        self.grid = bytearray(self.GRIDS)
        self.on = False
        self.pulse = 0               # brightness 0-7
        self.fixed = False
        self.addr = 0
        self.log = []                # one list of bytes per start..stop (the latest)
        self.keep = KEEP
        self._tx = []                # this transaction's bytes
        self.acks = 0
        self._ack = dio_net.pin()    # the chip's open-drain output
        self._in = False
        self._bits = 0
        self._byte = 0
        self._count = 0              # bytes in this transaction
        self._acking = False
        clk_net.watch(self._clk_edge)
        dio_net.watch(self._dio_edge)

    def _dio_edge(self, net, level):
        if not self.present or self.clk.level != 1 or self._acking:
            return
        if level == 0:
            self._in = True          # start
            self._bits = 0
            self._byte = 0
            self._count = 0
            self._tx = []
            note(self.log, self._tx, self.keep)
        elif self._in:
            self._in = False         # stop

    def _clk_edge(self, net, level):
        if not self._in or not self.present:
            return
        if level == 1:
            if self._bits < 8:
                self._byte |= self.dio.level << self._bits
                self._bits += 1
            return
        # falling edge
        if self._acking:
            self._acking = False
            self._ack.pulled_low = False
            self.dio.update()
            self._bits = 0
            self._byte = 0
        elif self._bits == 8:
            self._take(self._byte)
            self._acking = True
            self.acks += 1
            self._ack.pulled_low = True
            self.dio.update()

    def _take(self, b):
        self._tx.append(b)
        first = self._count == 0
        self._count += 1
        if first and b & 0xC0 == 0x40:
            self.fixed = bool(b & 0x04)
        elif first and b & 0xC0 == 0x80:
            self.on = bool(b & 0x08)
            self.pulse = b & 0x07
        elif first and b & 0xC0 == 0xC0:
            self.addr = b & 0x0F
        elif not first:
            if self.addr < self.GRIDS:
                self.grid[self.addr] = b
            if not self.fixed:
                self.addr += 1

    def segments(self):
        return bytes(self.grid[:self.digits])

    def text(self):
        return seg_text(self.segments()) if self.on else " " * self.digits

    def art(self):
        return seg_art(self.segments(), self.on)


class HT16K33Device:
    """An HT16K33 seven-segment backpack on I2C (4 digits on rows 0,1,3,4)."""

    def __init__(self, addr=0x70, digits=4):
        self.addr = addr
        self.digits = digits
        self.rows = (0, 1, 3, 4) if digits == 4 else tuple(range(digits))
        self.present = True
        self.ram = bytearray(16)
        self.osc = False
        self.on = False
        self.blink = 0
        self.dimming = 15
        self.log = []
        self.keep = KEEP

    def i2c_write(self, data):
        note(self.log, data, self.keep)
        c = data[0]
        if c & 0xF0 == 0x00:
            a = c & 0x0F
            for b in data[1:]:
                self.ram[a & 0x0F] = b
                a += 1
        elif c & 0xF0 == 0x20:
            self.osc = bool(c & 1)
        elif c & 0xF0 == 0x80:
            self.on = bool(c & 1)
            self.blink = (c >> 1) & 3
        elif c & 0xF0 == 0xE0:
            self.dimming = c & 0x0F

    def i2c_read(self, n):
        return bytes(n)

    def segments(self):
        return bytes(self.ram[2 * r] for r in self.rows)

    def lit(self):
        return self.osc and self.on

    def text(self):
        return seg_text(self.segments()) if self.lit() else " " * self.digits

    def art(self):
        return seg_art(self.segments(), self.lit())


class MAX7219Device:
    """A daisy chain of `count` MAX7219s on an SPI bus with one CS wire."""

    class Chip:
        def __init__(self):
            self.reg = bytearray(16)
            self.reg[0x0C] = 0       # shutdown after power-up

        def digit_segments(self, digits=8):
            out = bytearray(digits)
            for k in range(digits):
                v = self.reg[0x01 + digits - 1 - k]     # DIGIT0 is the rightmost
                s = 0x80 if v & 0x80 else 0
                for bit in range(7):                    # dp a b c d e f g -> a..g
                    if v & (1 << (6 - bit)):
                        s |= 1 << bit
                out[k] = s
            return bytes(out)

    def __init__(self, cs_net, count):
        self.count = count
        self.chips = [self.Chip() for _ in range(count)]
        self.shift = bytearray(2 * count)   # shift[0:2] is chip 0 (nearest)
        self.frames = []                     # bytes clocked in per CS low period
        self.keep = KEEP
        self._frame = None
        self.cs = cs_net
        cs_net.watch(self._cs_edge)

    def spi_write(self, data):
        if self.cs.level != 0:
            return
        self._frame.extend(data)
        for b in data:
            # a new byte enters chip 0; every byte moves one place down the chain
            self.shift[1:] = self.shift[:-1]
            self.shift[0] = b

    def _cs_edge(self, net, level):
        if level == 0:
            self._frame = bytearray()
        else:
            if self.keep:
                note(self.frames, bytes(self._frame), self.keep)
            for p, chip in enumerate(self.chips):
                addr = self.shift[2 * p + 1] & 0x0F
                data = self.shift[2 * p]
                if addr:
                    chip.reg[addr] = data

    def segments(self, p):
        return self.chips[p].digit_segments()

    def lit(self, p):
        r = self.chips[p].reg
        return r[0x0C] & 1 and not r[0x0F] & 1

    def text(self, p):
        r = self.chips[p].reg
        if r[0x0F] & 1:
            return "8." * 8
        if not r[0x0C] & 1:
            return " " * 8
        if r[0x09]:
            return "?" * 8           # BCD decoding is not used by the firmware
        return seg_text(self.segments(p)[8 - 1 - r[0x0B]:])

    def art(self, p):
        return seg_art(self.segments(p), self.lit(p))


class OLEDDevice:
    """SSD1306 (128 columns of RAM) or SH1106 (132, panel on columns 2-129)."""
    # commands followed by this many argument bytes
    _ARGS_SSD1306 = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xDA: 1,
                     0xD5: 1, 0xD9: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5,
                     0x2A: 5, 0xA3: 2}
    _ARGS_SH1106 = {0x81: 1, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1, 0xD9: 1, 0xDB: 1,
                    0xAD: 1}

    def __init__(self, addr=0x3C, chip="ssd1306"):
        self.addr = addr
        self.chip = chip
        self.present = True
        self.cols = 132 if chip == "sh1106" else 128
        self.offset = 2 if chip == "sh1106" else 0
        self.ram = [bytearray(self.cols) for _ in range(8)]
        self.args = self._ARGS_SH1106 if chip == "sh1106" else self._ARGS_SSD1306
        self.on = False
        self.contrast = 0x7F
        self.start_line = 0
        self.remap = False
        self.com_rev = False
        self.invert = False
        self.entire_on = False
        self.mode = 2                  # page addressing
        self.page = 0
        self.col = 0
        self.col_range = (0, 127)
        self.page_range = (0, 7)
        self.log = []
        self.commands = []             # every command with its arguments (the latest)
        self.keep = KEEP
        self.data_bytes = 0
        self._pending = None           # (command, args so far, args needed)

    def i2c_read(self, n):
        return bytes(n)

    def i2c_write(self, data):
        note(self.log, data, self.keep)
        i = 0
        while i < len(data):
            ctl = data[i]
            i += 1
            co = ctl & 0x80
            dc = ctl & 0x40
            if co:
                if i < len(data):
                    self._byte(data[i], dc)
                    i += 1
            else:
                for b in data[i:]:
                    self._byte(b, dc)
                return

    def _byte(self, b, dc):
        if dc:
            self._data(b)
        else:
            self._command(b)

    def _data(self, b):
        self.data_bytes += 1
        if self.page < 8 and self.col < self.cols:
            self.ram[self.page][self.col] = b
        if self.mode == 2:
            if self.col < self.cols - 1:
                self.col += 1
        elif self.mode == 0:
            self.col += 1
            if self.col > self.col_range[1]:
                self.col = self.col_range[0]
                self.page += 1
                if self.page > self.page_range[1]:
                    self.page = self.page_range[0]
        else:
            self.page += 1
            if self.page > self.page_range[1]:
                self.page = self.page_range[0]
                self.col += 1
                if self.col > self.col_range[1]:
                    self.col = self.col_range[0]

    def _command(self, b):
        if self._pending is not None:
            cmd, args, need = self._pending
            args.append(b)
            if len(args) == need:
                self._pending = None
                self._run(cmd, args)
            return
        need = self.args.get(b, 0)
        if need:
            self._pending = (b, [], need)
        else:
            self._run(b, [])

    def _run(self, c, a):
        if self.keep:
            note(self.commands, (c, tuple(a)), self.keep)
        if c <= 0x0F:
            self.col = (self.col & 0xF0) | c
        elif c <= 0x1F:
            self.col = (self.col & 0x0F) | ((c & 0x0F) << 4)
        elif c == 0x20:
            self.mode = a[0] & 3
        elif c == 0x21:
            self.col_range = (a[0] & 0x7F, a[1] & 0x7F)
            self.col = self.col_range[0]
        elif c == 0x22:
            self.page_range = (a[0] & 7, a[1] & 7)
            self.page = self.page_range[0]
        elif 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F
        elif c == 0x81:
            self.contrast = a[0]
        elif c in (0xA0, 0xA1):
            self.remap = c == 0xA1
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5
        elif c in (0xA6, 0xA7):
            self.invert = c == 0xA7
        elif c in (0xAE, 0xAF):
            self.on = c == 0xAF
        elif 0xB0 <= c <= 0xB7:
            self.page = c & 7
        elif c in (0xC0, 0xC8):
            self.com_rev = c == 0xC8

    def pixels(self):
        """64 rows of 128 ints (1 = lit) as the viewer sees the panel."""
        rows = []
        for y in range(64):
            ram_row = (y + self.start_line) & 63
            if not self.com_rev:
                ram_row = 63 - ram_row
            page, bit = ram_row >> 3, ram_row & 7
            row = []
            for x in range(128):
                col = x if self.remap else 127 - x
                lit = (self.ram[page][col + self.offset] >> bit) & 1
                if self.entire_on:
                    lit = 1
                if self.invert:
                    lit ^= 1
                row.append(lit if self.on else 0)
            rows.append(row)
        return rows

    def art(self):
        """Half-block characters: one text line per two pixel rows."""
        px = self.pixels()
        lines = []
        for y in range(0, 64, 2):
            line = ""
            for x in range(128):
                t, b = px[y][x], px[y + 1][x]
                line += "█" if t and b else "▀" if t else "▄" if b else " "
            lines.append(line)
        return "\n".join(lines)


class TCA9548ADevice:
    """An I2C multiplexer: each channel is a fake I2C bus of its own."""

    def __init__(self, addr=0x70):
        from fakebuses import I2C
        self.addr = addr
        self.present = True
        self.control = 0
        self.channels = [I2C(id=100 + ch) for ch in range(8)]
        self.log = []
        self.keep = KEEP

    def i2c_write(self, data):
        note(self.log, data, self.keep)
        self.control = data[-1]

    def i2c_read(self, n):
        return bytes((self.control,)) * n

    def route(self, addr):
        found = []
        for ch in range(8):
            if self.control >> ch & 1:
                dev = self.channels[ch].devices.get(addr)
                if dev is not None and dev.present:
                    found.append(dev)
        if not found:
            return None
        return found[0] if len(found) == 1 else _Fanout(found)


class _Fanout:
    """Devices at one address on several connected channels: a write reaches
    every one of them (their ACKs overlap on the wire); a read would collide."""

    present = True

    def __init__(self, devices):
        self.devices = devices

    def i2c_write(self, data):
        for d in self.devices:
            d.i2c_write(data)

    def i2c_read(self, n):
        raise OSError(5)


# ---- pictures -----------------------------------------------------------------

def png_bytes(rgb_rows):
    """PNG file bytes for rows of (r, g, b) tuples (8-bit RGB, no filter).
    CPython only: zlib is imported here, so the models load under micropython."""
    import zlib
    h = len(rgb_rows)
    w = len(rgb_rows[0])
    raw = bytearray()
    for row in rgb_rows:
        raw.append(0)
        for r, g, b in row:
            raw += bytes((r, g, b))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


LED_ON = (255, 40, 30)
LED_OFF = (45, 12, 10)
BACK = (18, 18, 18)


def seg_image(segs, on=True, digit_w=36, digit_h=64, color=LED_ON):
    """Rows of RGB pixels drawing seven-segment digits, slanted a little."""
    t = max(3, digit_w // 7)
    pad = 8
    w = pad + len(segs) * (digit_w + pad) + pad
    h = digit_h + 2 * pad
    img = [[BACK] * w for _ in range(h)]
    for k, s in enumerate(segs):
        x0 = pad + k * (digit_w + pad) + 4
        y0 = pad
        mid = digit_h // 2
        boxes = {
            0: (x0 + t, y0, digit_w - 2 * t - 6, t),
            6: (x0 + t, y0 + mid - t // 2, digit_w - 2 * t - 6, t),
            3: (x0 + t, y0 + digit_h - t, digit_w - 2 * t - 6, t),
            5: (x0, y0 + t, t, mid - t - t // 2),
            1: (x0 + digit_w - t - 6, y0 + t, t, mid - t - t // 2),
            4: (x0, y0 + mid + t // 2 + 1, t, mid - t - t // 2 - 1),
            2: (x0 + digit_w - t - 6, y0 + mid + t // 2 + 1, t, mid - t - t // 2 - 1),
            7: (x0 + digit_w - 4, y0 + digit_h - t, t, t),
        }
        for bit, (bx, by, bw, bh) in boxes.items():
            lit = on and (s >> bit) & 1
            c = color if lit else LED_OFF
            for y in range(by, by + bh):
                slant = (y0 + digit_h - y) // 8
                for x in range(bx + slant, bx + bw + slant):
                    if 0 <= x < w:
                        img[y][x] = c
    return img


def oled_image(pixels, scale=3, color=(120, 200, 255)):
    """Rows of RGB pixels drawing an OLED's pixels; a thin darker seam between
    pixels, as on the panel, so lit areas read as solid."""
    dark = (8, 10, 14)
    seam = tuple(c * 2 // 3 for c in color)
    pad = 6
    w = 128 * scale + 2 * pad
    h = 64 * scale + 2 * pad
    img = [[(30, 30, 30)] * w for _ in range(h)]
    for y in range(64):
        for yy in range(scale):
            row = img[pad + y * scale + yy]
            for x in range(128):
                lit = pixels[y][x]
                for xx in range(scale):
                    edge = scale > 1 and (xx == scale - 1 or yy == scale - 1)
                    row[pad + x * scale + xx] = (seam if edge else color) if lit else dark
    return img


# ---- a whole board's displays ------------------------------------------------

class ChainSeat:
    """One module of a MAX7219 chain, seen like the other seven-segment models."""

    def __init__(self, chain, pos):
        self.chain = chain
        self.pos = pos
        self.digits = 8

    @property
    def present(self):
        return True

    def segments(self):
        return self.chain.segments(self.pos)

    def text(self):
        return self.chain.text(self.pos)

    def art(self):
        return self.chain.art(self.pos)


def _oled(chip):
    return lambda addr: OLEDDevice(addr, chip)


# The display chips as devices (board/config.py CHIPS names them), for the simulator, the
# tests and the tools: the model that decodes the chip's wire protocol (made as its entry's
# wiring says: (clk, dio) wires, (cs wire, chain length) or an I2C address), the supply rail
# it is wired to (tools/wiring.py; docs/ELECTRICAL.md), its Wokwi part
# (tools/wokwi_diagram.py; None: Wokwi has none) and the pico-emulator's decoder of its
# protocol (tools/bench_pico.py, host_tests/picoboard.py).
DEVICES = {
    "tm1637": {"model": lambda clk, dio: TM1637Device(clk, dio), "rail": "+3V3D",
               "wokwi": "wokwi-tm1637-7segment", "decoder": "tm1637"},
    "max7219": {"model": lambda cs, count: MAX7219Device(cs, count), "rail": "+5V",
                "wokwi": None, "decoder": "max7219"},
    "ht16k33": {"model": lambda addr: HT16K33Device(addr), "rail": "+5V",
                "wokwi": None, "decoder": "ht16k33"},
    "ssd1306": {"model": _oled("ssd1306"), "rail": "+3V3D",
                "wokwi": "board-ssd1306", "decoder": "sh1106"},
    "sh1106": {"model": _oled("sh1106"), "rail": "+3V3D",
               "wokwi": "board-ssd1306", "decoder": "sh1106"},
}


def fake_board(build, keep=KEEP):
    """Fake buses, pins and device models for a board build (config.BUILDS entry).

    Returns (buses, pin, models): `buses` name -> fake bus, `pin(gpio)` -> a pin on
    that GPIO's wire, `models` one device model per seat (player 1 first).
    Pass buses and pin to display.screens.build(). `keep`: the entries each
    model's histories keep (0: none; the simulator reads the chips' registers only)."""
    from fakebuses import I2C, SPI
    from board.config import CHIPS
    nets = {}

    def net(n):
        if n not in nets:
            nets[n] = Net("GP%d" % n)
        return nets[n]

    def pin(n):
        return net(n).pin()

    buses = {}
    for name, cfg in build["buses"].items():
        if cfg["kind"] == "i2c":
            buses[name] = I2C(cfg["id"], freq=cfg["freq"])
        else:
            buses[name] = SPI(cfg["id"], baudrate=cfg["baudrate"])
    models = []
    chains = {}
    muxes = {}
    entries = build["displays"]
    for e in entries:
        chip = e[0]
        make = DEVICES[chip]["model"]
        wiring = CHIPS[chip][2]
        if wiring == "pins":
            models.append(make(net(e[1]), net(e[2])))
        elif wiring == "chain":
            name = e[1]
            if name not in chains:
                count = sum(1 for x in entries if x[0] == chip and x[1] == name)
                cs = net(build["buses"][name]["cs"])
                chains[name] = buses[name].attach(make(cs, count))
            models.append(ChainSeat(chains[name], e[2]))
        else:
            bus = buses[e[1]]
            if len(e) > 3:
                name = e[1]
                if name not in muxes:
                    addr = build["buses"][name].get("mux", 0x70)
                    muxes[name] = bus.attach(TCA9548ADevice(addr))
                bus = muxes[name].channels[e[3]]
            models.append(bus.attach(make(e[2])))
    for dev in models + list(chains.values()) + list(muxes.values()) + list(buses.values()):
        dev.keep = keep
    return buses, pin, models


# ---- reading an OLED picture back into text ------------------------------------

def _glyph_tables():
    from draw import fonts
    small = {}
    for code in list(range(48, 58)) + list(range(65, 91)) + list(range(32, 48)) + \
            list(range(58, 65)):
        cols = bytes(fonts.SMALL[code * 5:code * 5 + 5])
        small.setdefault(cols, chr(code))
    big = {}
    for k, ch in enumerate(fonts.BIG_CHARS):
        n = fonts.BIG_W * fonts.BIG_PAGES
        big.setdefault(bytes(fonts.BIG[k * n:(k + 1) * n]), chr(ch))
    return small, big


def _cols(px, x0, y0, n, rows=8, step=1):
    """Column bytes (bit r = row y0 + r*step) for n columns from x0."""
    out = bytearray()
    for x in range(x0, x0 + n):
        v = 0
        for r in range(rows):
            y = y0 + r * step
            if 0 <= x < 128 and 0 <= y < 64 and px[y][x]:
                v |= 1 << r
        out.append(v)
    return bytes(out)


def read_oled(px):
    """What the OLED view shows, read from its pixels by matching the fonts:
    {"top", "inverted", "big", "side", "bottom"} (text, stripped); "inverted": the
    at-table mark (views.OLED_MARK_X) is lit.
    Tries the pixel-shift positions and keeps the one that reads best."""
    from draw import fonts
    from views.oled import OLED_MARK_X as MARK_X
    small, big = _glyph_tables()
    best = None
    for dy in (0, 1):
        for dx in (0, 1, 2):
            score = 0
            res = {}
            # the at-table mark: the status line lit from column MARK_X on
            lit = sum(px[(y - dy) % 64][x] for y in range(1, 8)
                      for x in range(MARK_X + dx, 128))
            inv = lit > 7 * (128 - MARK_X - dx) // 2
            for name, page in (("top", 0), ("bottom", 7)):
                text = ""
                for k in range(21):
                    cols = _cols(px, dx + 1 + 6 * k, 8 * page - dy, 5)
                    if name == "top" and inv and 1 + 6 * k > MARK_X:
                        cols = bytes(c ^ 0xFF for c in cols)
                    ch = small.get(cols)
                    score += ch is not None
                    text += ch if ch else "~"
                res[name] = text.rstrip()
            text = ""
            for k in range(3):
                x0 = dx + k * (fonts.BIG_W + 2)
                g = bytearray()
                for p in range(fonts.BIG_PAGES):
                    g += _cols(px, x0, 8 * (1 + p) - dy, fonts.BIG_W)
                ch = big.get(bytes(g))
                score += ch is not None
                text += ch if ch else "~"
            res["big"] = text.strip()
            text = ""
            for k in range(3):
                cols = bytes(v << 1 for v in (_cols(px, dx + 90 + 12 * k + 2 * j,
                                                    16 + 1 - dy, 1, rows=7, step=2)[0]
                                              for j in range(5)))
                ch = small.get(cols)
                score += ch is not None
                text += ch if ch else "~"
            res["side"] = text.strip()
            res["inverted"] = inv
            if best is None or score > best[0]:
                best = (score, res)
    return best[1]


def seats_art(models, per_row=4):
    """All seats' displays as one block of text (the terminal simulator's view):
    seven-segment displays side by side, OLEDs below one another."""
    blocks = []
    for i, m in enumerate(models):
        art = m.art() if getattr(m, "present", True) else "(unplugged)"
        lines = ["P%d" % (i + 1)] + art.split("\n")
        blocks.append(lines)
    out = []
    for k in range(0, len(blocks), per_row):
        group = blocks[k:k + per_row]
        if any(len(b) > 8 for b in group):       # OLEDs: one under the other
            for b in group:
                out.extend(b)
            continue
        width = [max(len(line) for line in b) for b in group]
        for r in range(max(len(b) for b in group)):
            out.append("   ".join((b[r] if r < len(b) else "").ljust(w)
                                  for b, w in zip(group, width)).rstrip())
    return "\n".join(out)
