"""OLEDs over I2C with a step's writes as one stream (the Pico's transport).

OLED_FIFO makes the same transactions as chips/oled.py's OLED_I2C, composed as the RP2040's
IC_DATA_CMD words and handed one by one to a transport (chips/i2c_viper.py) that queues them in
the controller's FIFO, so the bus does not wait while the next page is composed. Without one
(`burst` None: the host tests) each transaction is an `i2c.writeto()`. Nothing here allocates
after construction but flush_with(), start-up only. Why, and the start-up paths:
docs/DISPLAYS.md, "The OLED transport on the Pico".
"""
import sys

from micropython import const

from draw.blit import blit
from draw.cells import NEW, PAGES, WIDTH
from chips.oled import OLED_I2C, SH1106_INIT, _TX, _WRITES, bus


def words(dst, at, src, n):
    """src[:n] as one transaction from word `at` of dst (two bytes a word, little-endian, as
    the RP2040 reads them): the byte, and on the last one the STOP bit (bit 9); returns the word
    after it. On the Pico the native twin from draw/blit_viper.py replaces it (below)."""
    d = 2 * at
    for i in range(n):
        dst[d] = src[i]
        dst[d + 1] = 0
        d += 2
    dst[d - 1] = 2                  # STOP (bit 9) after the last byte
    return at + n


def frame_words(dst, at, src, x, n, page, col):
    """What draw/blit.py's `frame()` writes (page and column commands, 0x40, then
    src[x:x + n]) as one transaction of such words from word `at` of dst; returns the word after
    it. On the Pico the native twin from draw/blit_viper.py replaces it (below)."""
    d = 2 * at
    for i in range(14):
        dst[d + i] = 0
    dst[d] = 0x80
    dst[d + 2] = 0xB0 | page
    dst[d + 4] = 0x80
    dst[d + 6] = col & 0x0F
    dst[d + 8] = 0x80
    dst[d + 10] = 0x10 | col >> 4
    dst[d + 12] = 0x40
    d += 14
    for i in range(n):
        dst[d] = src[x + i]
        dst[d + 1] = 0
        d += 2
    dst[d - 1] = 2                  # STOP (bit 9) after the last byte
    return at + 7 + n


# OLED_FIFO composes one transaction at a time (at most 7 + 128 bytes), each handed
# to the transport at once: its words, 2 bytes each, made by the first OLED_FIFO
_STREAM = const(136)
_W = None


class OLED_FIFO(OLED_I2C):
    """OLED_I2C whose writes go out as one stream per step() (the Pico's
    transport): the same transactions, composed one at a time as IC_DATA_CMD
    words into a shared buffer of 136 words and handed at once to `burst`:
    begin(addr) before the first, feed(words, k, n) after each (queues words
    k..n-1, returns once the last is queued), end() once the step is composed
    (waits for the last STOP); each raises OSError on a bus error
    (chips/i2c_viper.py), and the driver then resends everything. Behind a
    TCA9548A the channel is selected once per stream (a writeto() to the
    multiplexer). `burst` None: the portable twin, each transaction an
    i2c.writeto() as OLED_I2C makes it. `flush()` (start-up) is one stream for
    everything pending."""

    def __init__(self, i2c, addr=0x3C, cells=None, burst=None):
        global _W
        if _W is None:
            _W = bytearray(2 * _STREAM)
        self._open = False    # begin() done, end() not yet
        self.burst = burst
        self._mux = getattr(i2c, "mux", None)     # a chips/tca9548a.py Channel
        self._ch = getattr(i2c, "ch", 0)
        self._mask = 0        # while broadcasting: the multiplexer channels written
        self._cap = None      # flush_with(): the stream composed here, not sent
        self._at = 0
        self.twins = []       # OLEDs at this address on the other channels (oled.make())
        OLED_I2C.__init__(self, i2c, addr, cells)

    def write_cmds(self, src, n):
        _TX[0] = 0x00
        blit(_TX, 1, src, 0, n, 0)
        self._push(words(_W, 0, _TX, n + 1))

    def _span(self, page, x, n):
        self._push(frame_words(_W, 0, NEW, x, n, page, x + self.COL_OFFSET))
        return n

    def _push(self, n):
        """Hand the transaction composed in _W[:n] (words) to the transport."""
        c = self._cap
        if c is not None:
            if self._at + 2 * n > len(c):
                c.extend(bytes(2 * n + 256))
            blit(c, self._at, _W, 0, 2 * n, 0)
            self._at += 2 * n
            return
        b = self.burst
        if b is None:
            self._twin(n)
            return
        if not self._open:
            if self._mask:
                self._mux.connect(self._mask)  # pyright: ignore[reportOptionalMemberAccess]  a mask only behind a multiplexer
            elif self._mux is not None:
                self._mux.select(self._ch)
            b.begin(self.addr)
            self._open = True
        b.feed(_W, 0, n)

    def _twin(self, n):
        """The transaction as a writeto() (no native transport)."""
        for k in range(n):
            _TX[k] = _W[2 * k]  # pyright: ignore[reportOptionalSubscript]  _W: made by the first OLED_FIFO
        if self._mask:
            self._mux.connect(self._mask)  # pyright: ignore[reportOptionalMemberAccess]  a mask only behind a multiplexer
            self._mux.i2c.writeto(self.addr, _WRITES[n])  # pyright: ignore[reportOptionalMemberAccess]  a mask only behind a multiplexer
        else:
            self.i2c.writeto(self.addr, _WRITES[n])

    def _close(self):
        if self._open:
            self._open = False
            self.burst.end()  # pyright: ignore[reportOptionalMemberAccess]  _open: begin() went to the burst

    def _failed(self):
        self._open = False
        self.refresh()

    def step(self):
        """One slice of work (OLED.step), its writes as one stream."""
        try:
            count = self._step()
            self._close()
        except OSError:
            self._failed()
            raise
        return count

    def flush(self, full=False):
        """Everything pending as one stream (start-up: the initialisation and
        every page); returns the number of data bytes sent. At start-up, when
        every one of its `twins` is still to be drawn whole, the picture goes
        to all their channels at once (see broadcast())."""
        if full:
            self.refresh()
        if self.twins and self.unknown() and self._twins_unknown():
            return self.broadcast()
        return self._stream()

    def _stream(self):
        """Everything pending as one stream; returns the data bytes sent."""
        n = 0
        try:
            while self.pending():
                n += self._step()
            self._close()
        except OSError:
            self._failed()
            raise
        return n

    def pairs_with(self, other):
        """Whether flush_with(other) can send both at once: two transports (one
        per I2C controller: display/screens.py makes them), no multiplexer."""
        return (isinstance(other, OLED_FIFO) and self.burst is not None
                and other.burst is not None and self.burst is not other.burst
                and self._mux is None and other._mux is None)

    def flush_with(self, other):
        """Start-up: everything both displays have pending (init and whole
        pages), each composed first into a stream of its own, then both streams
        fed at once, one on each I2C controller: two pictures in the time of
        one. Returns 0, or bit 1 (this display) / 2 (other) for a bus that
        failed; a failed display will resend everything (as step() does)."""
        wa, na = self._compose()
        wb, nb = other._compose()
        a, b = self.burst, other.burst
        bad = 0
        try:
            a.begin(self.addr)  # pyright: ignore[reportOptionalMemberAccess]  pairs_with() said: two bursts
            b.begin(other.addr)
            bad = a.feed_with(b, wa, na, wb, nb)  # pyright: ignore[reportOptionalMemberAccess]  pairs_with() said: two bursts
        except OSError:
            bad = 3
        for d, bit in ((self, 1), (other, 2)):
            try:
                d.burst.end()  # pyright: ignore[reportOptionalMemberAccess]  pairs_with() said: two bursts
            except OSError:
                bad |= bit
            if bad & bit:
                d._failed()
        return bad

    def _compose(self):
        """Everything pending as one stream of words, composed, not sent:
        (buffer, number of words). (Start-up only: the buffer is made here, the
        size of a whole picture.)"""
        self._cap = bytearray(2 * (len(self.INIT) + 1 + PAGES * (7 + 128) + 5))
        self._at = 0
        try:
            if self._init and self.resend == 0xFF:
                self._whole()
            while self.pending():
                self._step()
            return self._cap, self._at // 2
        finally:
            self._cap = None

    def _whole(self):
        """The initialisation and every page, whole, composed straight into the
        stream: what step() would make, page by page, without its per-step work
        (7 ms a picture on the RP2040 that way, on the start-up's critical path)."""
        self.write_cmds(self.INIT, len(self.INIT))
        self._init = False
        self.whole(self._page_words)

    def _page_words(self, p):
        """Page p, composed whole in NEW (Picture.whole), into the stream."""
        self._at = 2 * frame_words(self._cap, self._at // 2, NEW, 0, WIDTH, p, self.COL_OFFSET)

    def _twins_unknown(self):
        for t in self.twins:
            if not t.unknown() or t.cells is not self.cells or t.INIT != self.INIT:
                return False
        return True

    def broadcast(self):
        """This display's whole picture, initialisation included, written once to
        its channel and its twins' at the same time (the multiplexer connects
        them all), without the display-on command; each twin then takes it as
        what its panel holds (adopt()), so its own picture costs only the columns
        that differ, and each panel is switched on alone once its own picture is
        in. At start-up behind a TCA9548A this replaces a whole picture per panel
        (about 25 ms of bus each at 400 kHz) by one, plus the differences."""
        mask = 1 << self._ch
        for t in self.twins:
            mask |= 1 << t._ch
        self._mask = mask
        self._on = True             # (no display-on in the shared stream)
        try:
            n = self._stream()
        finally:
            self._mask = 0
        self._on = False            # on alone, at its next step
        for t in self.twins:
            t.adopt(self)
            t._on = False           # on alone, at its next step
        return n


def make(entry, parts, cls=None):
    """The driver of an ("ssd1306" | "sh1106", bus, address[, mux_channel]) entry
    on the I2C stream transport the caller gave (`parts.burst`, one made per I2C
    controller): chips/build.py uses this module for the OLEDs then. `cls`: the
    OLED_FIFO subclass of another controller (its module's make() passes it)."""
    bus_id = parts.build["buses"][entry[1]]["id"]
    burst = parts.shared.get(bus_id)
    if burst is None:
        burst = parts.shared[bus_id] = parts.burst(bus_id)
    if cls is None:
        cls = SH1106_FIFO if entry[0] == "sh1106" else SSD1306_FIFO
    d = cls(bus(entry, parts), entry[2], burst=burst)
    if d._mux is not None:
        # the first OLED at this address behind this multiplexer sends its
        # start-up picture to all of them (broadcast())
        for first in parts.made:
            if isinstance(first, OLED_FIFO) and first._mux is d._mux and first.addr == d.addr:
                first.twins.append(d)
                break
    return d


class SSD1306_FIFO(OLED_FIFO):
    pass


class SH1106_FIFO(OLED_FIFO):
    COL_OFFSET = 2
    INIT = SH1106_INIT


if sys.platform == "rp2":
    from draw.blit_viper import words, frame_words  # noqa: F811 (native)
