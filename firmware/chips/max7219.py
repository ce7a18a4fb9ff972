"""MAX7219 LED drivers daisy-chained on one SPI bus with one CS pin.

Each chip is a 16-bit shift register (register address, data; MSB first) that
passes older bits on to the next chip; all latch on the rising edge of CS. To
write one chip, a frame carries its word and the no-op register for every other
chip. Chain position 0 is nearest the Pico, so its word is sent last.
Digits are driven without BCD decoding; register DIGIT0 is the rightmost digit.
"""
from micropython import const

from draw.blit import fill
from draw.segments import encode_with, CHARS
from chips.sevenseg import SevenSegment

MAX7219_NOOP = const(0x00)
MAX7219_DIGIT0 = const(0x01)      # DIGIT0-DIGIT7: 0x01-0x08
MAX7219_DECODE_MODE = const(0x09)
MAX7219_INTENSITY = const(0x0A)
MAX7219_SCAN_LIMIT = const(0x0B)
MAX7219_SHUTDOWN = const(0x0C)
MAX7219_DISPLAY_TEST = const(0x0F)

# a..g, dp (bits 0-7) -> the MAX7219's no-decode order: dp a b c d e f g (bits 7-0).
# A constant rather than a loop that builds it at every start-up;
# host_tests/test_display_drivers.py derives it again.
ORDER = (
    b"\x00\x40\x20\x60\x10\x50\x30\x70\x08\x48\x28\x68\x18\x58\x38\x78"
    b"\x04\x44\x24\x64\x14\x54\x34\x74\x0c\x4c\x2c\x6c\x1c\x5c\x3c\x7c"
    b"\x02\x42\x22\x62\x12\x52\x32\x72\x0a\x4a\x2a\x6a\x1a\x5a\x3a\x7a"
    b"\x06\x46\x26\x66\x16\x56\x36\x76\x0e\x4e\x2e\x6e\x1e\x5e\x3e\x7e"
    b"\x01\x41\x21\x61\x11\x51\x31\x71\x09\x49\x29\x69\x19\x59\x39\x79"
    b"\x05\x45\x25\x65\x15\x55\x35\x75\x0d\x4d\x2d\x6d\x1d\x5d\x3d\x7d"
    b"\x03\x43\x23\x63\x13\x53\x33\x73\x0b\x4b\x2b\x6b\x1b\x5b\x3b\x7b"
    b"\x07\x47\x27\x67\x17\x57\x37\x77\x0f\x4f\x2f\x6f\x1f\x5f\x3f\x7f"
    b"\x80\xc0\xa0\xe0\x90\xd0\xb0\xf0\x88\xc8\xa8\xe8\x98\xd8\xb8\xf8"
    b"\x84\xc4\xa4\xe4\x94\xd4\xb4\xf4\x8c\xcc\xac\xec\x9c\xdc\xbc\xfc"
    b"\x82\xc2\xa2\xe2\x92\xd2\xb2\xf2\x8a\xca\xaa\xea\x9a\xda\xba\xfa"
    b"\x86\xc6\xa6\xe6\x96\xd6\xb6\xf6\x8e\xce\xae\xee\x9e\xde\xbe\xfe"
    b"\x81\xc1\xa1\xe1\x91\xd1\xb1\xf1\x89\xc9\xa9\xe9\x99\xd9\xb9\xf9"
    b"\x85\xc5\xa5\xe5\x95\xd5\xb5\xf5\x8d\xcd\xad\xed\x9d\xdd\xbd\xfd"
    b"\x83\xc3\xa3\xe3\x93\xd3\xb3\xf3\x8b\xcb\xab\xeb\x9b\xdb\xbb\xfb"
    b"\x87\xc7\xa7\xe7\x97\xd7\xb7\xf7\x8f\xcf\xaf\xef\x9f\xdf\xbf\xff")


_EIO = const(5)
_FRAMES = const(13)      # the most frames a flush sends (flush_full)


class MAX7219Chain:
    """The SPI bus, the CS pin and the frames of one flush, shared by the chain.

    A flush composes all its frames first (`frames`: frame j at j * 2 * count,
    no-op words where a frame carries nothing for a chip), then sends them in one
    go (`_send`): on the Pico one native call does it (`use()`,
    chips/max7219_viper.py), elsewhere a CS low, `spi.write` and CS high per
    frame."""
    _at: "list[MAX7219 | None]"
    _todo: "list[MAX7219]"    # the modules a flush sends: its first slots, the rest cleared

    def __init__(self, spi, cs, count):
        self.spi = spi
        self.cs = cs
        self.count = count
        size = 2 * count
        self.frames = bytearray(_FRAMES * size)
        mv = memoryview(self.frames)
        self._views = [mv[j * size:(j + 1) * size] for j in range(_FRAMES)]
        self.modules = []
        self._at = [None] * count          # the module at each chain position
        self.dirty = 0                     # bit pos: that module has new text
        self._todo = [None] * count  # pyright: ignore[reportAttributeAccessIssue]  cleared slots
        self._native = None                # use(): the native frame writer
        self._compose = None               # ... and the changed rows' composer
        self._spi_id = 0
        self._cs_gpio = 0
        cs.init(cs.OUT)
        cs.value(1)

    def use(self, native, spi_id, cs_gpio):
        """Compose and send in native code: `native` (chips/max7219_viper.py)
        has `frames(spi_id, cs_gpio, buf, n, size)`, which sends n frames of
        `size` bytes from buf (nonzero: it failed), and
        `compose(at, dirty, todo, ORDER, buf, size)`, which takes the modules
        of `dirty` that are in a known state into todo (marked unknown) and
        composes flush_rows' frames for them as the portable loop does;
        it returns the frames | the modules taken << 8."""
        self._native = native.frames
        self._compose = native.compose
        self._spi_id = spi_id
        self._cs_gpio = cs_gpio

    def send(self, pos, reg, data):
        """Write one register of the chip at `pos`; the others get a no-op."""
        k = 2 * (self.count - 1 - pos)
        self.frames[k] = reg
        self.frames[k + 1] = data
        self._send(1)

    def module(self, pos, digits=8):
        m = MAX7219(self, pos, digits)
        self.modules.append(m)
        self._at[pos] = m
        return m

    def _send(self, n):
        """Shift the first n frames out, each latched by a CS rising edge, then
        make them all no-ops again: a frame carries only the words set for it."""
        size = 2 * self.count
        try:
            w = self._native
            if w is not None:
                if w(self._spi_id, self._cs_gpio, self.frames, n, size):
                    raise OSError(_EIO)
            else:
                cs = self.cs
                spi = self.spi
                views = self._views
                for j in range(n):
                    cs.value(0)
                    try:
                        spi.write(views[j])
                    finally:
                        cs.value(1)
        finally:
            fill(self.frames, 0, n * size, 0)

    def _release(self, n):
        """The n modules in `_todo` hold what they were sent."""
        todo = self._todo
        for i in range(n):
            todo[i]._valid = True
            todo[i] = None  # pyright: ignore[reportArgumentType, reportCallIssue]  cleared slot

    def flush_rows(self):
        """Send the digit rows changed on the modules given new text since their
        last flush (`dirty`), one frame per row carrying that row for each of
        them (a row changed on two modules costs one frame, not two), all the
        frames in one `_send`; returns the frames sent. Until it returns those
        modules count as unknown: a bus error makes each one's next flush a full
        one."""
        if not self.dirty:
            return 0
        f = self.frames
        todo = self._todo              # the dirty modules in a known state
        if self._compose is not None:
            # native: those modules taken (marked unknown), every one's changed
            # rows, then each one's words; frames | modules taken << 8
            size = 2 * self.count
            r = self._compose(self._at, self.dirty, todo, ORDER, f, size)
            self.dirty = 0
            frames = r & 0xFF
            if frames:
                # (_send() written out: docs/PERFORMANCE.md, "Calls written out")
                try:
                    if self._native(self._spi_id, self._cs_gpio, f, frames, size):  # pyright: ignore[reportOptionalCall]  use() set both
                        raise OSError(_EIO)
                finally:
                    fill(f, 0, frames * size, 0)
            self._release(r >> 8)
            return frames
        n = 0
        d = self.dirty
        self.dirty = 0
        at = self._at
        p = 0
        while d:                       # (the dirty bits, not all the modules)
            if d & 1:
                m = at[p]
                if m is not None and m._valid:
                    m._valid = False
                    todo[n] = m
                    n += 1
            d >>= 1
            p += 1
        size = 2 * self.count
        last = self.count - 1
        frames = 0
        for k in range(8):
            base = frames * size
            words = False
            for i in range(n):
                m = todo[i]
                if k < m.digits and m.seg[k] != m._sent[k]:
                    o = base + 2 * (last - m.pos)
                    f[o] = MAX7219_DIGIT0 + m.digits - 1 - k
                    f[o + 1] = ORDER[m.seg[k]]
                    m._sent[k] = m.seg[k]
                    words = True
            if words:
                frames += 1
        if frames:
            self._send(frames)
        self._release(n)
        return frames

    def flush_full(self, first):
        """Set up and send everything to `first` and to every module in an
        unknown state, each register in one frame for all of them (13 frames
        for the chain, not 13 per module, in one `_send`); returns the frames
        sent."""
        todo = self._todo
        n = 0
        for m in self.modules:
            if m is first or not m._valid:
                m._valid = False
                todo[n] = m
                n += 1
        f = self.frames
        size = 2 * self.count
        last = self.count - 1
        for step in range(_FRAMES):   # 4 set-up registers, 8 digit rows, brightness
            base = step * size
            for i in range(n):
                m = todo[i]
                o = base + 2 * (last - m.pos)
                if step < 4:
                    f[o] = _SETUP_REG[step]
                    f[o + 1] = m.digits - 1 if step == 2 else _SETUP_VAL[step]
                elif step < 12:
                    k = step - 4
                    if k >= m.digits:
                        continue
                    f[o] = MAX7219_DIGIT0 + m.digits - 1 - k
                    f[o + 1] = ORDER[m.seg[k]]
                    m._sent[k] = m.seg[k]
                else:
                    f[o] = MAX7219_INTENSITY
                    f[o + 1] = m.level
                    m._sent_level = m.level
        self._send(_FRAMES)
        self._release(n)
        return _FRAMES


# flush_full's set-up registers, in order (the scan limit's value is per module)
_SETUP_REG = bytes((MAX7219_DISPLAY_TEST, MAX7219_DECODE_MODE, MAX7219_SCAN_LIMIT,
                    MAX7219_SHUTDOWN))
_SETUP_VAL = b"\x00\x00\x07\x01"


class MAX7219(SevenSegment):
    """One 8-digit module of a chain (one per player). Its set-up and digits go
    through the chain (MAX7219Chain.flush_full, flush_rows: several modules in the
    same frames, so the next module's flush finds its changes sent); only the
    brightness is its own frame."""

    def __init__(self, chain, pos, digits=8):
        SevenSegment.__init__(self, digits)
        self.chain = chain
        self.pos = pos
        # flush()'s changed digits: the chain's rows, called without a method of
        # this class in between (a call less on a stroke's path)
        self._changes = chain.flush_rows

    # (SevenSegment.text written out: docs/PERFORMANCE.md, "Calls written out")
    def text(self, chars):
        encode_with(CHARS, chars, self.seg, self.digits)
        self.chain.dirty |= 1 << self.pos

    def _full(self):
        return self.chain.flush_full(self)

    def _level(self):
        self.chain.send(self.pos, MAX7219_INTENSITY, self.level)


def make(entry, parts):
    """The driver of a ("max7219", bus, chain_position) entry (chips/build.py): a
    module of the chain on that bus, made with the first one (as long as the
    build has entries on it)."""
    name = entry[1]
    spi = parts.buses[name]
    chain = parts.shared.get(spi)
    if chain is None:
        entries = parts.build["displays"]
        count = 0
        for x in entries:
            if x[0] == entry[0] and x[1] == name:
                count += 1
        chain = MAX7219Chain(spi, parts.pin(parts.build["buses"][name]["cs"]), count)
        parts.shared[spi] = chain
    return chain.module(entry[2])
