"""Debounced push buttons, polled: confirm, then lock out; press, release, long.

Policy per key (times in ms, tunable as class attributes or per instance):
a change of the debounced state is accepted only after the line has read the
new level continuously for `confirm_ms` (a noise spike shorter than that is
never reported); after each accepted change the key ignores its line for
`lockout_ms` (contact bounce). A key held for `long_ms` reports LONG once.
Every key has its own state, so keys held together, or a key stuck down,
never affect the others. Nothing here allocates after construction.
"""
from array import array

from input.events import PRESS, RELEASE, LONG
from ticks import ticks_diff, ticks_add

# flag bits per key
_LOCKED = 0x01      # inside the lockout after a reported change
_LONG_DUE = 0x02    # pressed, LONG not yet reported


class Buttons:
    """Keys on pins (anything with `.value()` returning 0/1).

    pins: sequence of pin objects, index = event source offset by `first`.
    ring: an EventRing (or anything with put(event, ms)).
    first: source number of pins[0].
    active: the level a pressed key reads (0: switch to ground, pull-up).
    """

    confirm_ms = 3      # line must read the new level this long to count
    lockout_ms = 30     # then changes are ignored this long
    long_ms = 800       # held this long: LONG

    def __init__(self, pins, ring, first=0, active=0):
        n = len(pins)
        self.pins = list(pins)
        self.n = n
        self.ring = ring
        self.first = first
        self._flip = 1 if active == 0 else 0
        self._raw = bytearray(n)        # last sampled level, 1 = pressed
        self._state = bytearray(n)      # debounced, 1 = pressed
        self._flags = bytearray(n)
        self._since = array("i", bytes(4 * n))    # when _raw last changed
        self._locked = array("i", bytes(4 * n))   # when the lockout began
        self._pressed = array("i", bytes(4 * n))  # when the reported press began
        self._started = False

    def down(self, i):
        """Debounced state of key i (True while pressed)."""
        return self._state[i] == 1

    def poll(self, now):
        """Sample every key at time `now` (ms, ticks_ms domain) and queue events."""
        flip = self._flip
        raw = self._raw
        state = self._state
        flags = self._flags
        since = self._since
        pins = self.pins
        if not self._started:
            for i in range(self.n):
                since[i] = now
            self._started = True
        for i in range(self.n):
            p = pins[i].value() ^ flip
            if p != raw[i]:
                raw[i] = p
                since[i] = now
            elif p == state[i] and flags[i] == 0:
                continue
            self._step(i, p, now)

    def _step(self, i, p, now):
        flags = self._flags
        f = flags[i]
        if f & _LOCKED:
            if ticks_diff(now, self._locked[i]) >= self.lockout_ms:
                f &= ~_LOCKED
        if not f & _LOCKED and p != self._state[i]:
            t = self._since[i]
            if ticks_diff(now, t) >= self.confirm_ms:
                self._state[i] = p
                f |= _LOCKED
                self._locked[i] = now
                if p:
                    self._pressed[i] = t
                    f |= _LONG_DUE
                    self.ring.put(PRESS << 8 | (self.first + i), t)
                else:
                    f &= ~_LONG_DUE
                    self.ring.put(RELEASE << 8 | (self.first + i), t)
        if f & _LONG_DUE:
            t = self._pressed[i]
            if ticks_diff(now, t) >= self.long_ms:
                f &= ~_LONG_DUE
                self.ring.put(LONG << 8 | (self.first + i), ticks_add(t, self.long_ms))
        flags[i] = f
