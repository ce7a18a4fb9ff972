"""The OLED stream transport (chips/oled_fifo.py): a step's writes composed as
one stream of IC_DATA_CMD words decode to exactly the transactions the writeto()
path (chips/oled.py OLED_I2C) makes for the same updates, in the same order;
behind a TCA9548A the channel is selected once per stream; a failing stream makes
the driver refresh; start-up sends each display's whole picture as one stream, or
behind a multiplexer one picture to all panels at once, then each one's differences;
and composing and sending allocate nothing (under micropython, heap locked)."""
import errno

import pytest

import mpy
from hellorec import transactions
from fakebuses import I2C
from fakedisplays import OLEDDevice, TCA9548ADevice, read_oled
from draw.cells import Cells
from chips.oled import SH1106_I2C, SSD1306_I2C
from chips.oled_fifo import SH1106_FIFO, SSD1306_FIFO, _STREAM
from chips.tca9548a import TCA9548A
from display.screens import build as build_screens
from views import oled as oledview
from board import config
from xorshift import XorShift32

CHARS = b" 0123456789+-ABCDEFINORSTWXYZ!:,.?"


class Recorder:
    """A burst transport on a fake bus: each stream decoded into its transactions
    (written to the bus, so the devices see them), the streams kept."""

    def __init__(self, bus):
        self.bus = bus
        self.streams = []
        self.fail = False
        self.addr = None

    def begin(self, addr):
        assert self.addr is None                # the previous stream ended
        self.addr = addr
        self.streams.append((addr, []))

    def feed(self, words, k, n):
        assert self.addr is not None and 0 <= k < n <= _STREAM
        if self.fail:
            raise OSError(errno.EIO)
        tx = transactions(words, k, n)
        self.streams[-1][1].extend(tx)
        for t in tx:
            self.bus.writeto(self.addr, t)
        return n

    def feed_with(self, other, wa, na, wb, nb):
        """Both streams at once (as two controllers would send them): their
        transactions interleaved on the two buses."""
        assert other is not self and self.addr is not None and other.addr is not None
        ta, tb = transactions(wa, 0, na), transactions(wb, 0, nb)
        self.paired = getattr(self, "paired", 0) + 1
        self.streams[-1][1].extend(ta)
        other.streams[-1][1].extend(tb)
        for k in range(max(len(ta), len(tb))):
            if k < len(ta):
                self.bus.writeto(self.addr, ta[k])
            if k < len(tb):
                other.bus.writeto(other.addr, tb[k])
        return 0

    def end(self):
        assert self.addr is not None
        self.addr = None


def cells():
    return Cells(oledview.OLED_CELLS, oledview.OLED_TEXT, oledview.OLED_INV, oledview.OLED_MARK_X)


def texts(seed, count):
    rnd = XorShift32(seed)
    out = []
    t = bytearray(oledview.OLED_TEXT)
    for k in range(count):
        for i in range(len(t)):
            if rnd.next() % 4 == 0 or k == 0:
                t[i] = CHARS[rnd.next() % len(CHARS)]
        out.append(bytes(t))
    return out


def drive(d, seq):
    """Updates of every kind, a step at a time; the number of data bytes per step."""
    counts = []
    for k, t in enumerate(seq):
        d.show(t, (0, 1, 2, 1)[k // 7 % 4])
        if k % 5 == 3:
            d.brightness(k % 16)
        if k % 11 == 6:
            d.refresh(known=k % 2 == 0)
        for _ in range(k % 3):                 # a slice or two, then more changes
            counts.append(d.step())
    while d.pending():
        counts.append(d.step())
    return counts


@pytest.mark.parametrize("old,new,chip", [(SH1106_I2C, SH1106_FIFO, "sh1106"),
                                          (SSD1306_I2C, SSD1306_FIFO, "ssd1306")])
def test_streams_decode_to_the_writeto_transactions(old, new, chip):
    seq = texts(7, 60)
    bus1 = I2C(0)
    dev1 = bus1.attach(OLEDDevice(0x3D, chip))
    d1 = old(bus1, 0x3D, cells())
    c1 = drive(d1, seq)
    bus2 = I2C(0)
    dev2 = bus2.attach(OLEDDevice(0x3D, chip))
    rec = Recorder(bus2)
    d2 = new(bus2, 0x3D, cells(), burst=rec)
    c2 = drive(d2, seq)
    assert c1 == c2 and sum(c1) > 3000
    assert bus2.log == bus1.log                # the same writes, bytes and order
    assert dev2.ram == dev1.ram and dev2.commands == dev1.commands
    assert all(addr == 0x3D for addr, _ in rec.streams)
    # one stream per step that sent something; several transactions in some
    assert len(rec.streams) <= len(c2)
    assert max(len(tx) for _, tx in rec.streams) >= 3
    assert read_oled(dev2.pixels())["bottom"] == read_oled(dev1.pixels())["bottom"]


def test_portable_twin_makes_the_same_writes():
    seq = texts(3, 40)
    bus1 = I2C(0)
    bus1.attach(OLEDDevice(0x3C, "sh1106"))
    drive(SH1106_I2C(bus1, 0x3C, cells()), seq)
    bus2 = I2C(0)
    dev = bus2.attach(OLEDDevice(0x3C, "sh1106"))
    drive(SH1106_FIFO(bus2, 0x3C, cells()), seq)
    assert bus2.log == bus1.log and len(bus1.log) > 60
    assert dev.on


def test_behind_a_mux_the_channel_is_selected_once_per_stream():
    seq = texts(11, 30)
    i2c = I2C(0)
    mux = i2c.attach(TCA9548ADevice(0x71))
    dev = mux.channels[6].attach(OLEDDevice(0x3C, "sh1106"))
    other = mux.channels[2].attach(OLEDDevice(0x3C, "sh1106"))
    m = TCA9548A(i2c, 0x71)
    rec = Recorder(i2c)
    d = SH1106_FIFO(m.channel(6), 0x3C, cells(), burst=rec)
    od = SH1106_I2C(m.channel(2), 0x3C, cells())     # another seat between streams
    ref = I2C(0)
    want = ref.attach(OLEDDevice(0x3C, "sh1106"))
    r = SH1106_I2C(ref, 0x3C, cells())
    n = 0
    for k, t in enumerate(seq):
        d.show(t)
        od.show(t)
        before = len(rec.streams)
        i2c.clear_log()
        d.step()
        if len(rec.streams) > before:
            n += 1
            # the select, then the stream's transactions, nothing between them
            assert i2c.log[0] == (0x71, b"\x40")
            assert [a for a, _ in i2c.log[1:]] == [0x3C] * len(rec.streams[-1][1])
        od.step()
        r.show(t)
        r.step()
    d.flush()
    od.flush()
    r.flush()
    assert n > 10
    assert dev.ram == want.ram and other.ram == want.ram


def test_a_failed_stream_makes_a_full_refresh():
    i2c = I2C(0)
    dev = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    rec = Recorder(i2c)
    d = SH1106_FIFO(i2c, 0x3C, cells(), burst=rec)
    seq = texts(5, 3)
    d.show(seq[0])
    d.flush()
    d.show(seq[1])
    rec.fail = True
    with pytest.raises(OSError):
        d.step()
    assert d.pending()
    rec.fail = False
    rec.streams = []
    rec.addr = None
    d.show(seq[2])
    d.flush()
    # one stream: the initialisation first, then every page whole
    assert len(rec.streams) == 1
    tx = rec.streams[0][1]
    assert tx[0][0] == 0x00 and tx[0][1:] == bytes(SH1106_FIFO.INIT)
    pages = [t for t in tx if len(t) == 7 + 128]
    assert sorted(t[1] & 7 for t in pages) == list(range(8))
    ref = I2C(0)
    want = ref.attach(OLEDDevice(0x3C, "sh1106"))
    r = SH1106_I2C(ref, 0x3C, cells())
    r.show(seq[2])
    r.flush()
    assert dev.ram == want.ram


def test_a_missing_display_fails_through_the_twin_too():
    i2c = I2C(0)
    d = SH1106_FIFO(i2c, 0x3C, cells())        # nothing answers at 0x3C
    d.show(texts(1, 1)[0])
    with pytest.raises(OSError):
        d.step()
    assert d.pending() and not d._open


def _board_with_recorders(name):
    from fakedisplays import fake_board
    build = config.BUILDS[name]
    buses, pin, seats = fake_board(build)
    recs = {}

    def burst(bus_id):
        for bname, b in build["buses"].items():
            if b["id"] == bus_id:
                recs[bus_id] = recs.get(bus_id) or Recorder(buses[bname])
                return recs[bus_id]
    return build, buses, pin, seats, recs, burst


def test_behind_a_mux_start_up_writes_one_picture_to_all_then_the_differences():
    build, buses, pin, seats, recs, burst = _board_with_recorders("oled8")
    # what each panel shows at the moment it is switched on
    first_lit = {}
    for i, seat in enumerate(seats):
        def write(data, seat=seat, i=i, inner=seat.i2c_write):
            was = seat.on
            inner(data)
            if seat.on and not was and i not in first_lit:
                first_lit[i] = read_oled(seat.pixels())
        seat.i2c_write = write
    screens = build_screens(build, buses, pin, burst=burst)
    mux = buses["i2c0"].devices[build["buses"]["i2c0"]["mux"]]
    mux.log.clear()
    screens.settle(None, None, 0)
    streams = recs[build["buses"]["i2c0"]["id"]].streams
    sizes = [sum(len(t) for t in tx) for _, tx in streams]
    assert mux.log[0] == bytes((0xFF,))            # all eight channels at once
    assert sizes[0] > 1100                          # init and 8 whole pages, once
    assert max(sizes[1:]) < 400                     # then each panel's own differences
    assert sum(sizes) < 1100 + 7 * 400
    for i, seat in enumerate(seats):
        assert seat.on
        shown = read_oled(seat.pixels())
        assert "PLAYER %d" % (i + 1) in shown["top"] + shown["bottom"], shown
        assert first_lit[i] == shown                # never lit with another's picture


def test_no_broadcast_once_a_twin_holds_a_picture():
    """Only panels that all still wait for their first picture share one: a panel
    already drawn (here seat 4, out of turn) keeps its own and the others go one
    by one."""
    build, buses, pin, seats, recs, burst = _board_with_recorders("oled8")
    screens = build_screens(build, buses, pin, burst=burst)
    assert len(screens.displays[0].twins) == 7
    d = screens.displays[3]
    d.show(b"X" * oledview.OLED_TEXT)
    d.flush()
    mux = buses["i2c0"].devices[build["buses"]["i2c0"]["mux"]]
    mux.log.clear()
    screens.settle(None, None, 0)
    assert bytes((0xFF,)) not in mux.log
    for i, seat in enumerate(seats):
        shown = read_oled(seat.pixels())
        assert "PLAYER %d" % (i + 1) in shown["top"] + shown["bottom"], shown


def test_start_up_sends_each_display_whole_as_one_stream():
    """(oled4: two displays on each I2C controller, two at a time, one on each)"""
    build, buses, pin, seats, recs, burst = _board_with_recorders("oled4")
    screens = build_screens(build, buses, pin, burst=burst)
    screens.settle(None, None, 0)
    streams = [s for r in recs.values() for s in r.streams]
    assert len(streams) == len(build["displays"])
    assert sum(getattr(r, "paired", 0) for r in recs.values()) == 2
    for addr, tx in streams:
        assert sum(len(t) for t in tx) > 1100    # init + 8 whole pages + display on
    for i, seat in enumerate(seats):
        assert seat.on
        shown = read_oled(seat.pixels())
        assert "PLAYER %d" % (i + 1) in shown["top"] + shown["bottom"], shown


SCRIPT = r'''
import micropython
from draw import blit as P
from draw import blit_viper as N
from chips.oled_fifo import SH1106_FIFO, SSD1306_FIFO
from chips import oled_fifo as F
from draw.cells import Cells
from chips.tca9548a import TCA9548A
from views import oled as VO
from fakebuses import CountingI2C

# words(), frame_words(): the native ones write what the portable ones write
bad = 0
for n in (1, 2, 7, 20, 135):
    src = bytearray((k * 37 + n) & 0xFF for k in range(n + 9))
    a = bytearray(600)
    b = bytearray(600)
    ra = F.words(a, 3, src, n)
    rb = N.words(b, 3, src, n)
    if ra != rb or a != b or ra != 3 + n:
        bad += 1
    for k in range(n):
        if a[6 + 2 * k] != src[k] or a[7 + 2 * k] != (2 if k == n - 1 else 0):
            bad += 1
    f = bytearray(80 + 2 * n)
    ra = F.frame_words(a, 5, src, 9, n, n & 7, 7 * n % 132)
    rb = N.frame_words(b, 5, src, 9, n, n & 7, 7 * n % 132)
    P.frame(f, src, 9, n, n & 7, 7 * n % 132)
    if ra != rb or a != b or ra != 5 + 7 + n:
        bad += 1
    for k in range(n + 7):
        if a[10 + 2 * k] != f[k] or a[11 + 2 * k] != (2 if k == n + 6 else 0):
            bad += 1
print("words differ", bad)

class Count:
    def __init__(self):
        self.words = 0
        self.streams = 0
    def begin(self, addr):
        self.streams += 1
    def feed(self, w, k, n):
        self.words += n - k
        return n
    def end(self):
        pass

cells = Cells(VO.OLED_CELLS, VO.OLED_TEXT, VO.OLED_INV, VO.OLED_MARK_X)
i2c = CountingI2C()
mux = TCA9548A(i2c, 0x71)
c = Count()
ds = [SH1106_FIFO(i2c, 0x3C, cells, burst=c), SSD1306_FIFO(mux.channel(3), 0x3C, cells),
      SH1106_FIFO(mux.channel(5), 0x3D, cells, burst=c)]
ok = None
t1 = bytearray(b"x" * VO.OLED_TEXT)
t2 = bytearray(b"y" * VO.OLED_TEXT)
for d in ds:
    d.show(t1)
    d.flush()
def run():
    for k in range(30):
        for d in ds:
            t = t1 if k % 2 else t2
            t[k % VO.OLED_TEXT] = 48 + k % 10
            d.show(t, k % 3)
            if k % 7 == 3:
                d.refresh(True)
            d.step()
            if k % 5 == 0:
                d.flush()


micropython.heap_lock()
try:
    run()
    ok = "no allocation"
except MemoryError:
    ok = "allocated"
micropython.heap_unlock()
print(ok, c.streams > 30, i2c.writes > 30)
'''


def test_native_words_and_no_allocation_under_micropython():
    out = mpy.check(code=SCRIPT).lines()
    assert out[0] == "words differ 0"
    assert out[1] == "no allocation True True"


@pytest.mark.parametrize("cls", [SH1106_FIFO, SSD1306_FIFO])
def test_a_whole_picture_composed_at_once_is_the_step_by_step_stream(cls, monkeypatch):
    """flush_with()'s start-up compose of a whole picture (OLED_FIFO._whole)
    makes the words step() would make, page by page."""
    got = []
    for whole in (True, False):
        if not whole:
            monkeypatch.setattr(cls, "_whole", lambda self: None)
        d = cls(I2C(), 0x3C, cells(), burst=Recorder(I2C()))
        d.show(texts(7, 1)[0], 2)
        d.brightness(5)
        d.shift_rows(3)
        buf, n = d._compose()
        got.append(transactions(buf, 0, n))
        assert not d.pending()
    assert got[0] == got[1] and len(got[0]) == 10      # init, 8 pages, commands
