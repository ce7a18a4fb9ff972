"""Preallocated event ring: one producer context, one consumer, no allocation.

Events are small ints (see `input.events`); each carries a timestamp in a
parallel array. When the ring is full a new event is dropped and counted in
`overflows`: the events already queued stay in order, nothing raises.
"""
from array import array

from input.events import NONE


class EventRing:
    """FIFO of (event, ms) pairs; `get()` returns the event and sets `time`."""

    def __init__(self, size=32):
        self.size = size
        self._ev = array("H", bytes(2 * (size + 1)))
        self._t = array("i", bytes(4 * (size + 1)))
        self._w = 0          # written only by put()
        self._r = 0          # written only by get()/clear()
        self.time = 0        # timestamp of the event get() returned last
        self.overflows = 0   # events dropped because the ring was full

    def put(self, ev, t):
        """Queue `ev` stamped `t`; False (and counted) when full."""
        w = self._w + 1
        if w > self.size:
            w = 0
        if w == self._r:
            self.overflows += 1
            return False
        self._ev[self._w] = ev
        self._t[self._w] = t
        self._w = w
        return True

    def get(self):
        """Oldest event (setting `time`), or NONE (0) when empty."""
        r = self._r
        if r == self._w:
            return NONE
        ev = self._ev[r]
        self.time = self._t[r]
        r += 1
        if r > self.size:
            r = 0
        self._r = r
        return ev

    def count(self):
        """Number of queued events."""
        n = self._w - self._r
        if n < 0:
            n += self.size + 1
        return n

    def clear(self):
        self._r = self._w
