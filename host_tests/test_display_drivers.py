"""Display drivers against the fake devices: what a person sees, and the bytes
on the wire as the datasheets describe them."""
import errno

import pytest

from fakebuses import I2C, SoftI2C, SPI, Net
from fakedisplays import (TM1637Device, HT16K33Device, MAX7219Device, OLEDDevice,
                          TCA9548ADevice, seg_text, seg_art)
from chips.tm1637 import TM1637
from chips.ht16k33 import HT16K33
from chips.max7219 import MAX7219Chain
from chips.oled import SSD1306_I2C, SH1106_I2C, SSD1306_SPI
from chips.tca9548a import TCA9548A
from draw.cells import Cells
from draw import fonts
from views import oled as oledview
from fakedisplays import read_oled
from draw.segments import CHARS, encode
from mpy import check


# ---- seven-segment encoding ----------------------------------------------------

def test_encoding_reads_as_the_characters_it_encodes():
    text = b"0123456789AbCdEFHLnoPrtUy-"
    segs = bytearray(len(text))
    encode(text, segs, len(text))
    assert seg_text(segs) == "0123456789AbCdEFHLnoPrtUy-"
    encode(b"S", segs, 1)
    assert seg_text(segs[:1]) == "5"        # S and 5 share one shape


def test_encoding_puts_a_point_on_the_previous_digit_and_blanks_the_rest():
    segs = bytearray(4)
    encode(b"4.5", segs, 4)
    assert seg_text(segs) == "4.5  "
    assert segs[0] == CHARS[ord("4")] | 0x80 and segs[2] == 0 and segs[3] == 0


def test_segment_table_is_the_digits_and_the_shapes():
    """CHARS (a constant in draw/segments.py) derived again from its shapes."""
    from draw.segments import DIGITS
    want = bytearray(128)
    for i in range(10):
        want[48 + i] = DIGITS[i]
    shapes = (
        ("Aa", 0x77), ("Bb", 0x7C), ("C", 0x39), ("c", 0x58), ("Dd", 0x5E),
        ("Ee", 0x79), ("Ff", 0x71), ("Gg", 0x3D), ("H", 0x76), ("h", 0x74),
        ("I", 0x30), ("i", 0x10), ("Jj", 0x1E), ("Kk", 0x75), ("Ll", 0x38),
        ("Mm", 0x37), ("Nn", 0x54), ("O", 0x3F), ("o", 0x5C), ("Pp", 0x73),
        ("Qq", 0x67), ("Rr", 0x50), ("Ss", 0x6D), ("Tt", 0x78), ("U", 0x3E),
        ("u", 0x1C), ("Vv", 0x3E), ("Yy", 0x6E), ("Zz", 0x5B),
        ("-", 0x40), ("_", 0x08), ("=", 0x48), ("?", 0x53), ("'", 0x02),
        ('"', 0x22), ("[", 0x39), ("]", 0x0F), ("^", 0x23), ("/", 0x52),
    )
    for chars, seg in shapes:
        for ch in chars:
            want[ord(ch)] = seg
    assert bytes(CHARS) == bytes(want)


def test_unknown_characters_are_blank():
    segs = bytearray(2)
    encode(b"W&", segs, 2)
    assert bytes(segs) == b"\x00\x00"


# ---- TM1637 --------------------------------------------------------------------

def tm_pair():
    clk = Net("clk")
    nets = [Net("dio0"), Net("dio1")]
    devs = [TM1637Device(clk, n) for n in nets]
    drivers = [TM1637(clk.pin(), n.pin(), delay_us=0) for n in nets]
    return clk, nets, devs, drivers


def test_tm1637_first_flush_sends_data_address_and_control_commands():
    _, _, (dev, _), (drv, _) = tm_pair()
    drv.text(b"P  1")
    drv.brightness(15)
    drv.flush()
    p, one = CHARS[ord("P")], CHARS[ord("1")]
    assert dev.log == [[0x40], [0xC0, p, 0, 0, one], [0x8F]]
    assert dev.text() == "P  1"
    assert dev.on and dev.pulse == 7
    assert dev.acks == 7          # every byte acknowledged


def test_tm1637_sends_only_the_changed_digits_and_nothing_when_unchanged():
    _, _, (dev, _), (drv, _) = tm_pair()
    drv.text(b"  45")
    drv.flush()
    n = len(dev.log)
    drv.flush()
    assert len(dev.log) == n
    drv.text(b"  46")
    assert drv.flush() == 1
    assert dev.log[n:] == [[0xC3, CHARS[ord("6")]]]
    assert dev.text() == "  46"


def test_tm1637_modules_sharing_clk_do_not_hear_each_other():
    _, _, devs, drivers = tm_pair()
    drivers[0].text(b"  12")
    drivers[0].flush()
    assert devs[1].log == [] and devs[1].text() == "    "
    drivers[1].text(b"  34")
    drivers[1].flush()
    assert [d.text() for d in devs] == ["  12", "  34"]


def test_tm1637_wire_sequence_is_start_lsb_first_ack_stop():
    clk = Net("clk")
    dio = Net("dio")
    TM1637Device(clk, dio)
    drv = TM1637(clk.pin(), dio.pin(), delay_us=0)
    trace = []
    clk.watch(lambda n, v: trace.append(("C", v)))
    dio.watch(lambda n, v: trace.append(("D", v)))
    drv._command(0x8A)             # 1000 1010: display on, pulse width 2
    # start: DIO falls while CLK high, then CLK falls
    assert trace[:2] == [("D", 0), ("C", 0)]
    # sample DIO at each CLK rising edge for the 8 data bits
    level = {"C": 1, "D": 0}
    bits = []
    for what, v in trace[1:]:
        level[what] = v
        if what == "C" and v == 1:
            bits.append(level["D"])
    data = bits[:8]
    assert sum(b << i for i, b in enumerate(data)) == 0x8A
    assert bits[8] == 0            # ninth clock: the chip pulls DIO low (ACK)
    # stop: CLK rises with DIO low, then DIO rises
    assert trace[-2:] == [("C", 1), ("D", 1)]


def test_tm1637_missing_module_raises_oserror():
    _, _, (dev, _), (drv, _) = tm_pair()
    dev.present = False
    drv.text(b"  12")
    with pytest.raises(OSError) as e:
        drv.flush()
    assert e.value.args[0] == errno.EIO
    dev.present = True
    drv.flush()                    # a failed flush leaves the next one full
    assert dev.text() == "  12" and dev.log[0] == [0x40]


# ---- MAX7219 -------------------------------------------------------------------

def max_chain(count=3):
    spi = SPI(0)
    cs = Net("cs")
    dev = spi.attach(MAX7219Device(cs, count))
    chain = MAX7219Chain(spi, cs.pin(), count)
    return spi, dev, chain


def test_max7219_frames_carry_no_ops_for_the_other_chips():
    spi, dev, chain = max_chain(3)
    m = chain.module(1)
    m.text(b"P2   101")
    m.brightness(5)
    m.flush()
    frames = dev.frames
    # every frame: 3 words; chip 1's word in the middle, no-op (0x00 0x00) elsewhere
    assert all(len(f) == 6 and f[0:2] == b"\0\0" and f[4:6] == b"\0\0" for f in frames)
    words = [f[2:4] for f in frames]
    assert words[:4] == [b"\x0f\x00", b"\x09\x00", b"\x0b\x07", b"\x0c\x01"]
    assert words[-1] == b"\x0a\x05"
    assert dev.text(1) == "P2   101"
    assert dev.text(0) == " " * 8 and dev.text(2) == " " * 8   # still shut down


def test_max7219_digit_registers_and_segment_order():
    spi, dev, chain = max_chain(1)
    m = chain.module(0)
    m.text(b"       7")
    m.flush()
    # DIGIT0 (register 1) is the rightmost digit; '7' = a b c -> D6 D5 D4 = 0x70
    assert b"\x01\x70" in dev.frames
    assert dev.chips[0].reg[0x01] == 0x70


def test_max7219_changed_digit_is_one_frame_and_modules_are_independent():
    spi, dev, chain = max_chain(2)
    a, b = chain.module(0), chain.module(1)
    a.text(b"P1    45")
    b.text(b"P2    12")
    a.flush()
    b.flush()
    n = len(dev.frames)
    a.text(b"P1    46")
    a.flush()
    assert len(dev.frames) == n + 1
    # chip 0 is nearest: its word goes last, chip 1 gets a no-op first
    assert dev.frames[-1] == b"\x00\x00\x01" + bytes((0x5F,))
    assert [dev.text(0), dev.text(1)] == ["P1    46", "P2    12"]


def test_max7219_a_row_changed_on_two_modules_is_one_frame():
    spi, dev, chain = max_chain(3)
    a, b, c = chain.module(0), chain.module(1), chain.module(2)
    for m, t in ((a, b"P1    45"), (b, b"P2    12"), (c, b"P3     7")):
        m.text(t)
        m.flush()
    n = len(dev.frames)
    a.text(b"P1    46")
    b.text(b"P2    13")
    assert a.flush() == 1           # the last digit of both: one frame
    assert b.flush() == 0           # already sent with a's
    assert len(dev.frames) == n + 1
    assert [dev.text(0), dev.text(1), dev.text(2)] == ["P1    46", "P2    13", "P3     7"]


# ---- HT16K33 -------------------------------------------------------------------

def test_ht16k33_initialises_and_writes_the_backpack_rows():
    i2c = I2C(0)
    dev = i2c.attach(HT16K33Device(0x72))
    d = HT16K33(i2c, 0x72)
    d.text(b"hAnd")
    d.brightness(9)
    d.flush()
    h, a, n, dd = (CHARS[ord(c)] for c in "hAnd")
    assert [data for _, data in i2c.log] == [
        b"\x21", bytes((0x00, h, 0, a, 0, 0, 0, n, 0, dd)) + bytes(7), b"\x81",
        bytes((0x00, h, 0, a, 0, 0, 0, n, 0, dd)), b"\xe9"]
    assert dev.text() == "hAnd" and dev.dimming == 9


def test_ht16k33_sends_the_changed_span_only():
    i2c = I2C(0)
    dev = i2c.attach(HT16K33Device(0x70))
    d = HT16K33(i2c, 0x70)
    d.text(b"  45")
    d.flush()
    i2c.clear_log()
    d.text(b"  47")
    d.flush()
    assert i2c.log == [(0x70, bytes((0x08, CHARS[ord("7")])))]
    assert dev.text() == "  47"
    i2c.clear_log()
    d.text(b" 517")                # the middle digits: rows 1 to 3, the colon's between
    assert d.flush() == 2
    assert i2c.log == [(0x70, bytes((0x02, CHARS[ord("5")], 0, 0, 0, CHARS[ord("1")])))]
    assert dev.text() == " 517"
    i2c.clear_log()
    assert d.flush() == 0 and i2c.log == []


def test_i2c_nack_raises_like_micropython():
    for cls, code in ((I2C, errno.EIO), (SoftI2C, errno.ENODEV)):
        i2c = cls(0)
        d = HT16K33(i2c, 0x75)         # nothing at 0x75
        with pytest.raises(OSError) as e:
            d.flush()
        assert e.value.args[0] == code


# ---- OLEDs ---------------------------------------------------------------------

def page_writes(log):
    """(page, column, data) for every run of data after page/column commands,
    reading the control bytes as the chip does (0x80/0xC0: one command/data byte
    follows, then another control byte; 0x00/0x40: the rest are commands/data)."""
    out = []
    page = col = None
    for _, data in log:
        i = 0
        while i < len(data):
            ctrl = data[i]
            if ctrl & 0x80:
                chunk = data[i + 1:i + 2]
                i += 2
            else:
                chunk = data[i + 1:]
                i = len(data)
            if ctrl & 0x40:
                out.append((page, col, chunk))
                col += len(chunk)
                continue
            for b in chunk:
                if b & 0xF0 == 0xB0:
                    page = b & 7
                elif b & 0xF0 == 0x00:
                    col = (col or 0) & 0xF0 | b
                elif b & 0xF0 == 0x10:
                    col = (col or 0) & 0x0F | (b & 0x0F) << 4
    return out


def oled_text(top=b"", big=b"", side=b"", bottom=b"", inverted=False):
    """A LayoutOLED text: status line, big characters, side text, item line."""
    t = bytearray(b" " * oledview.OLED_TEXT)
    t[0:len(top)] = top
    t[22:22 + len(big)] = big
    t[26:26 + len(side)] = side
    t[30:30 + len(bottom)] = bottom
    if inverted:
        t[oledview.OLED_INV] = ord("I")
    return t


def oled_cells():
    return Cells(oledview.OLED_CELLS, oledview.OLED_TEXT, oledview.OLED_INV, oledview.OLED_MARK_X)


@pytest.mark.parametrize("cls,chip,offset", [(SSD1306_I2C, "ssd1306", 0),
                                             (SH1106_I2C, "sh1106", 2)])
def test_oled_shows_its_text_and_first_sends_whole_pages(cls, chip, offset):
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3D, chip))
    d = cls(i2c, 0x3D, oled_cells())
    d.show(oled_text(b"PLAYER 2", b" 45", b"+17", b"NEED 8"))
    d.flush()
    seen = read_oled(dev.pixels())
    assert seen == {"top": "PLAYER 2", "big": "45", "side": "+17", "bottom": "NEED 8",
                    "inverted": False}
    assert dev.on
    writes = page_writes(i2c.log)
    assert [(p, c, len(b)) for p, c, b in writes] == [(p, offset, 128) for p in range(8)]


def test_sh1106_changed_cell_lands_two_columns_in():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    d = SH1106_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(bottom=b"A"))
    d.flush()
    i2c.clear_log()
    d.show(oled_text(bottom=b"AB"))            # cell 1 of the item line: column 7
    assert d.flush() == 8                      # 5 columns, rounded up to 8
    b = bytes(fonts.SMALL[66 * 5:66 * 5 + 5])
    # one write: page 7, column 9 (7 + the SH1106's offset 2) as single commands, the
    # data: the glyph, its gap and the next (blank) cell's first columns
    assert i2c.log == [(0x3C, b"\x80\xb7\x80\x09\x80\x10\x40" + b + b"\x00" * 3)]
    assert dev.ram[7][9:14] == b
    assert read_oled(dev.pixels())["bottom"] == "AB"


def test_oled_big_digit_change_sends_only_the_columns_where_the_glyphs_differ():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "ssd1306"))
    d = SSD1306_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(big=b" 38"))
    d.flush()
    i2c.clear_log()
    d.show(oled_text(big=b" 39"))              # 8 -> 9: only the lower left bar goes
    n = d.flush()
    writes = page_writes(i2c.log)
    g8 = fonts.BIG_INDEX[ord("8")] * 28 * 6
    g9 = fonts.BIG_INDEX[ord("9")] * 28 * 6
    sent = {}
    for p, c, data in writes:
        assert 60 <= c and c + len(data) <= 88            # inside the third big cell
        for i, v in enumerate(data):
            assert v == fonts.BIG[g9 + (p - 1) * 28 + c - 60 + i]
            sent[p, c + i] = v
    differ = [(p, 60 + i) for p in range(1, 7) for i in range(28)
              if fonts.BIG[g8 + (p - 1) * 28 + i] != fonts.BIG[g9 + (p - 1) * 28 + i]]
    assert differ and all(k in sent for k in differ)
    # the columns that differ, and at most the few equal ones between them
    assert n == len(sent) < 2 * len(differ) < 6 * 28
    assert read_oled(dev.pixels())["big"] == "39"


def test_oled_step_sends_a_bounded_slice():
    i2c = I2C(0)
    i2c.attach(OLEDDevice(0x3C, "ssd1306"))
    d = SSD1306_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(b"X"))
    d.flush()
    d.show(oled_text(b"Y", b"888", b"+99", b"Z"))
    slices = []
    while d.pending():
        slices.append(d.step())
    assert len(slices) > 1
    assert all(n < d.SLICE_BYTES + 128 for n in slices)   # a page at most past it
    d.refresh()                                # a full refresh: one page a step
    slices = []
    while d.pending():
        slices.append(d.step())
    assert slices[:8] == [128] * 8


def test_oled_at_table_mark_sends_its_columns_and_a_shift_resends_whole_pages():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    d = SH1106_I2C(i2c, 0x3C, oled_cells())
    top = b"PLAYER 1     AT TABLE"
    d.show(oled_text(top, b" 12"))
    d.flush()
    assert not read_oled(dev.pixels())["inverted"]
    i2c.clear_log()
    d.show(oled_text(top, b" 12", inverted=True))
    # page 0 from the mark's column to the edge, one write
    assert d.flush() == 128 - oledview.OLED_MARK_X
    assert [(p, c) for p, c, _ in page_writes(i2c.log)] == [(0, oledview.OLED_MARK_X + 2)]
    seen = read_oled(dev.pixels())
    assert seen["inverted"] and seen["top"] == "PLAYER 1     AT TABLE"
    assert dev.ram[0][2 + oledview.OLED_MARK_X] == 0xFF            # a lit margin
    assert dev.ram[0][2 + 127] == 0xFF
    assert dev.ram[0][2 + oledview.OLED_MARK_X - 1] == 0x00        # left of it: dark
    d.show(oled_text(top, b" 12", inverted=True), 2)
    assert d.flush() == 8 * 128
    px = dev.pixels()
    seen = read_oled(px)
    assert seen["top"] == "PLAYER 1     AT TABLE" and seen["big"] == "12"
    assert seen["inverted"]
    assert not any(px[y][x] for y in range(8, 56) for x in range(0, 2))


def test_oled_unchanged_text_sends_nothing_and_contrast_is_one_command():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "ssd1306"))
    d = SSD1306_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(b"HELLO"))
    d.flush()
    i2c.clear_log()
    d.show(oled_text(b"HELLO"))
    assert not d.pending() and d.flush() == 0 and i2c.log == []
    d.brightness(2)
    d.flush()
    assert i2c.log == [(0x3C, b"\x00\x81\x22\x40")]
    assert dev.contrast == 34


def test_oled_shift_rows_uses_the_start_line():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "ssd1306"))
    d = SSD1306_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(big=b"  8"))
    d.flush()
    before = dev.pixels()
    d.shift_rows(1)
    d.flush()
    assert dev.start_line == 1
    after = dev.pixels()
    assert after != before
    assert all(after[y] == before[(y + 1) % 64] for y in range(64))


def test_oled_over_spi_uses_dc_for_commands_and_data():
    spi = SPI(0)
    dc = Net("dc")
    cs = Net("cs")
    seen = []

    class Probe:
        def spi_write(self, data):
            seen.append((dc.level, cs.level, bytes(data)))
    spi.attach(Probe())
    d = SSD1306_SPI(spi, dc.pin(), cs.pin(), oled_cells())
    d.show(oled_text(b"A"))
    d.flush()
    assert seen[0][:2] == (0, 0) and seen[0][2][0] == 0x20      # init: page mode
    assert seen[1] == (0, 0, b"\xb0\x00\x10")
    assert seen[2][:2] == (1, 0) and len(seen[2][2]) == 128
    assert seen[2][2][1:6] == bytes(fonts.SMALL[65 * 5:65 * 5 + 5])


def test_tca9548a_selects_the_channel_before_each_write():
    i2c = I2C(0)
    mux = i2c.attach(TCA9548ADevice(0x71))
    a = mux.channels[0].attach(OLEDDevice(0x3C, "sh1106"))
    b = mux.channels[5].attach(OLEDDevice(0x3C, "sh1106"))
    m = TCA9548A(i2c, 0x71)
    cells = oled_cells()
    da = SH1106_I2C(m.channel(0), 0x3C, cells)
    db = SH1106_I2C(m.channel(5), 0x3C, cells)
    da.show(oled_text(b"A"))
    db.show(oled_text(b"B"))
    da.flush()
    db.flush()
    log = i2c.log
    for k, (addr, data) in enumerate(log):
        if addr == 0x3C:
            assert log[k - 1][0] == 0x71
    assert (0x71, b"\x01") in log and (0x71, b"\x20") in log
    assert a.ram[0][3:8] == bytes(fonts.SMALL[65 * 5:65 * 5 + 5])
    assert b.ram[0][3:8] == bytes(fonts.SMALL[66 * 5:66 * 5 + 5])


def test_seven_segment_art_draws_segments():
    segs = bytearray(2)
    encode(b"8.1", segs, 2)
    assert seg_art(segs) == " _      \n|_|   | \n|_|.  | "


def test_png_writer_round_trip():
    import struct
    import zlib
    from fakedisplays import png_bytes
    img = [[(x * 10, y * 20, 7) for x in range(5)] for y in range(3)]
    data = png_bytes(img)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
    assert (w, h, depth, ctype) == (5, 3, 8, 2)
    n = struct.unpack(">I", data[33:37])[0]
    assert data[37:41] == b"IDAT"
    raw = zlib.decompress(data[41:41 + n])
    rows = [raw[1 + r * 16:(r + 1) * 16] for r in range(3)]
    assert rows[2][3 * 4:3 * 4 + 3] == bytes((40, 40, 7))


def test_fake_i2c_scan_read_and_memory_writes():
    i2c = I2C(0)
    a = i2c.attach(HT16K33Device(0x70))
    i2c.attach(OLEDDevice(0x3C, "sh1106"))
    assert i2c.scan() == [0x3C, 0x70]
    a.present = False
    assert i2c.scan() == [0x3C]
    with pytest.raises(OSError):
        i2c.readfrom(0x70, 1)
    a.present = True
    i2c.writeto_mem(0x70, 0x02, b"\x06")
    assert a.ram[2] == 0x06 and i2c.log[-1] == (0x70, b"\x02\x06")
    assert len(i2c.readfrom(0x70, 2)) == 2


def test_seats_render_as_text_for_the_terminal():
    from board import config
    from fakedisplays import fake_board, seats_art
    from display.screens import build
    cfg = config.BUILDS["ht16k33"]
    buses, pin, models = fake_board(cfg)
    scr = build(cfg, buses, pin)
    scr.update(None, None, 0)
    while scr.busy or scr.to_render:
        scr.update(None, None, 0)
    art = seats_art(models).split("\n")
    assert art[0].split() == ["P1", "P2", "P3", "P4"]
    assert art[1].startswith(" _ ") and art[2].startswith("|_|")   # a P


def test_oled_full_refresh_never_blanks_the_panel():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    d = SH1106_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(bottom=b"45"))
    d.flush()
    assert dev.on
    dev.commands.clear()
    d.flush(True)
    cmds = [c for c, _ in dev.commands]
    assert 0xAE not in cmds and cmds[-1] == 0xAF    # on again only after the content
    assert dev.ram[7][3:8] == bytes(fonts.SMALL[52 * 5:52 * 5 + 5])


def test_max7219_chain_starts_in_thirteen_frames_whatever_its_length():
    """The first (full) flush sets up and fills every module not yet started in
    the same 13 frames: 4 set-up registers, 8 digit rows, the brightness."""
    spi, dev, chain = max_chain(3)
    mods = [chain.module(i) for i in range(3)]
    for i, m in enumerate(mods):
        m.text(b"P%d    %2d" % (i + 1, 10 + i))
        m.brightness(3 + i)
    assert mods[0].flush() == 13
    assert len(dev.frames) == 13
    assert mods[1].flush() == 0 and mods[2].flush() == 0
    assert len(dev.frames) == 13
    assert [dev.text(i) for i in range(3)] == ["P1    10", "P2    11", "P3    12"]
    mods[1].flush(True)                 # a refresh of one module: its own 13 frames
    assert len(dev.frames) == 26
    assert [dev.text(i) for i in range(3)] == ["P1    10", "P2    11", "P3    12"]


def test_oled_change_during_a_periodic_refresh_goes_first_as_changed_columns():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    d = SH1106_I2C(i2c, 0x3C, oled_cells())
    d.show(oled_text(b"PLAYER 1", b" 38"))
    d.flush()
    d.refresh(True)                            # the periodic refresh: content known
    d.step()                                   # init, the first half of page 0
    i2c.clear_log()
    d.show(oled_text(b"PLAYER 1", b" 39"))     # 8 -> 9 while the rest waits
    d.step()
    writes = page_writes(i2c.log)
    assert writes and all(len(b) < 28 for _, _, b in writes)   # columns, not pages
    assert read_oled(dev.pixels())["big"] == "39"
    i2c.clear_log()
    d.flush()                                  # then the refresh goes on, half pages
    assert [(p, len(b)) for p, _, b in page_writes(i2c.log)] == \
        [(0, 64)] + [(p, 64) for p in range(1, 8) for _ in range(2)]
    assert read_oled(dev.pixels())["big"] == "39"
    d.refresh()                                # content not known (a retry): whole pages
    d.step()
    i2c.clear_log()
    d.show(oled_text(b"PLAYER 1", b" 40"))
    d.step()
    assert [(p, len(b)) for p, _, b in page_writes(i2c.log)] == [(1, 128)]
    d.flush()
    assert read_oled(dev.pixels())["big"] == "40"


def test_max7219_segment_order_table_is_the_bit_mapping():
    """ORDER maps a..g, dp (bits 0-7) to the MAX7219's dp a b c d e f g (bits 7-0)."""
    from chips.max7219 import ORDER
    assert len(ORDER) == 256
    for s in range(256):
        want = 0x80 if s & 0x80 else 0
        for k in range(7):
            if s & (1 << k):
                want |= 1 << (6 - k)
        assert ORDER[s] == want, s


# ---- MAX7219 on the Pico: the native composer ----------------------------------

# chips/max7219_viper.py's compose() is viper; the unix micropython compiles
# it for the host. Its frames() writes the RP2040's registers, so here a writer
# with the same signature sends over the fake bus; the chain composed natively
# must put the same frames on the wire as the portable chain, whatever changes.
NATIVE_ROWS = r'''
from fakebuses import SPI, Net
from fakedisplays import MAX7219Device
from chips.max7219 import MAX7219Chain
from chips import max7219_viper as N


class Native:
    """The chain's native writer but over the fake bus: compose is the real
    viper code, frames sends as the portable path does."""
    compose = staticmethod(N.compose)

    def __init__(self):
        self.calls = 0
        self.fail = False

    def frames(self, spi_id, cs_gpio, buf, n, size):
        self.calls += 1
        if self.fail:
            return 1                     # a stalled bus: nothing sent
        for j in range(n):
            self.cs.value(0)
            self.spi.write(buf[j * size:(j + 1) * size])
            self.cs.value(1)
        return 0


NATIVE = Native()


def rig(count, native):
    spi = SPI(0)
    cs = Net("cs")
    dev = spi.attach(MAX7219Device(cs, count))
    chain = MAX7219Chain(spi, cs.pin(), count)
    if native:
        nat = NATIVE
        nat.spi = spi
        nat.cs = chain.cs
        nat.frames = nat.frames          # a bound method, stored as the writer
        chain.use(nat, 0, 17)
    dev.spi = spi
    return dev, chain, [chain.module(i, 4 if i == 1 else 8) for i in range(count)]


seed = 12345


def rnd(n):
    global seed
    seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
    return seed % n

CH = b"0123456789 PrAbCdEF-."
rigs = [rig(3, False), rig(3, True)]
differ = 0
frames = 0
for step in range(400):
    texts = []
    for i in range(3):
        if rnd(3):
            t = bytearray(8)
            for k in range(8):
                t[k] = CH[rnd(len(CH))]
            texts.append((i, bytes(t)))
    first = rnd(3)
    full = rnd(40) == 0
    for dev, chain, mods in rigs:
        for i, t in texts:
            mods[i].text(t)
        mods[first].flush(full)
        for m in mods:
            m.flush()
    a, b = rigs[0][0], rigs[1][0]
    differ += a.frames != b.frames
    differ += [a.text(i) for i in range(3)] != [b.text(i) for i in range(3)]
    frames += len(b.frames)
    a.frames.clear()
    b.frames.clear()
    a.spi.clear_log()
    b.spi.clear_log()
print("differ", differ, "frames", frames, "calls", NATIVE.calls)
dev, chain, mods = rigs[1]
NATIVE.fail = True
mods[0].text(b"12345678")
mods[1].text(b"87654321")
try:
    mods[0].flush()
    print("no error")
except OSError:
    pass
NATIVE.fail = False
print("after", mods[0]._valid, mods[1]._valid, mods[0].flush(), mods[1].flush(),
      dev.text(0), dev.text(1))
'''


def test_max7219_native_composer_sends_the_portable_frames():
    res = check(code=NATIVE_ROWS)
    words = res.lines()[-2].split()
    got = dict(zip(words[0::2], map(int, words[1::2])))      # "differ 0 frames ..."
    assert got["differ"] == 0 and got["frames"] > 2000 and got["calls"] > 300, got
    # a send that failed leaves both modules unknown: the next flush is a full one
    assert res.lines()[-1].split() == ["after", "False", "False", "13", "0",
                                       "12345678", "8765"]
