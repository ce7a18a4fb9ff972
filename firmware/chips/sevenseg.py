"""Logic shared by the seven-segment drivers: what to show and what was sent.

A driver subclass implements three transport steps: `_init()` (wake the chip and set its modes),
`_write(i, j)` (send digits i..j-1 of `seg`) and `_level()` (send the brightness); one that sends
differently replaces `_changes()` (the changed digits) or `_full()` (everything). `flush()` sends
only what changed since the last flush; `flush(True)` re-initialises the chip and sends
everything, so a chip upset by interference or a power dip recovers. Bus errors propagate as
OSError; after one, the next flush is a full one.
"""
from draw.segments import encode_with, CHARS


class SevenSegment:
    LEVELS = 16          # brightness() takes 0..LEVELS-1 on every driver

    def __init__(self, digits):
        self.digits = digits
        self.seg = bytearray(digits)      # segments wanted, leftmost digit first
        self._sent = bytearray(digits)    # segments the chip holds
        self.level = 8
        self._sent_level = -1
        self._valid = False               # False: chip content unknown

    def text(self, chars):
        """Show ASCII bytes (see segments.encode); takes effect at flush()."""
        encode_with(CHARS, chars, self.seg, self.digits)

    def brightness(self, level):
        self.level = 0 if level < 0 else (15 if level > 15 else level)

    def flush(self, full=False):
        """Send what changed (everything if `full`); return digits sent."""
        if full or not self._valid:
            return self._full()
        count = self._changes()
        if self.level != self._sent_level:
            self._valid = False
            self._level()
            self._sent_level = self.level
            self._valid = True
        return count

    def _init(self):
        """Wake the chip and set its modes (the driver's transport)."""
        raise NotImplementedError

    def _write(self, i, j):
        """Send digits i..j-1 of `seg` (the driver's transport)."""
        raise NotImplementedError

    def _level(self):
        """Send the brightness (the driver's transport)."""
        raise NotImplementedError

    def _full(self):
        """Re-initialise the chip and send every digit and the brightness."""
        n = self.digits
        seg = self.seg
        sent = self._sent
        self._valid = False
        self._init()
        self._write(0, n)
        self._level()
        for i in range(n):
            sent[i] = seg[i]
        self._sent_level = self.level
        self._valid = True
        return n

    def _changes(self):
        """Send the digits from the first to the last that changed; their count."""
        n = self.digits
        seg = self.seg
        sent = self._sent
        first = -1
        last = -1
        for i in range(n):
            if seg[i] != sent[i]:
                if first < 0:
                    first = i
                last = i
        if first < 0:
            return 0
        self._valid = False
        self._write(first, last + 1)
        for i in range(first, last + 1):
            sent[i] = seg[i]
        self._valid = True
        return last + 1 - first
