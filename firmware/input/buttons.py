"""Debounced push buttons: confirm, then lock out; press, release, long.

A change counts only once the line has read the new level for `confirm_ms`; the key then ignores
its line for `lockout_ms`; held for `long_ms`, it reports LONG once. Keys are independent.
`poll(now)` samples the pins, or (`clock` given) replays the edges a hard pin interrupt stamped
into a ring, so that a press is seen however long the loop was busy; both give the events a poll
every millisecond would. Nothing here allocates after construction. The policy, its numbers and
why: docs/INPUT.md, "Buttons: edges captured when they happen" and "Buttons: the debounce policy".
"""
from array import array

from input.events import PRESS, RELEASE, LONG
from ticks import ticks_diff, ticks_add

# flag bits per key
_LOCKED = 0x01      # inside the lockout after a reported change
_LONG_DUE = 0x02    # pressed, LONG not yet reported


class Buttons:
    """Keys on pins (anything with `.value()` returning 0/1; for capture also
    `.irq(handler, trigger, hard)` and IRQ_FALLING/IRQ_RISING, as machine.Pin).

    pins: sequence of pin objects, index = event source offset by `first`.
    ring: an EventRing (or anything with put(event, ms)).
    first: source number of pins[0].
    active: the level a pressed key reads (0: switch to ground, pull-up).
    clock: None to poll; or a function giving the time in ms (time.ticks_ms)
        to capture edges with pin interrupts.
    """

    confirm_ms = 3      # line must read the new level this long to count
    lockout_ms = 30     # then changes are ignored this long
    long_ms = 800       # held this long: LONG
    EDGES = 64          # edges held between two polls when capturing

    def __init__(self, pins, ring, first=0, active=0, clock=None):
        n = len(pins)
        self.pins = list(pins)
        self.key_count = n
        self.ring = ring
        self.first = first
        self._flip = 1 if active == 0 else 0
        self._raw = bytearray(n)        # last known level, 1 = pressed
        self._state = bytearray(n)      # debounced, 1 = pressed
        self._none = bytearray(n)       # _state with no key pressed
        self._flags = bytearray(n)
        self._since = array("i", bytes(4 * n))    # when _raw last changed
        self._locked = array("i", bytes(4 * n))   # when the lockout began
        self._pressed = array("i", bytes(4 * n))  # when the reported press began
        self._pending = 0               # bit i: key i has a change, lockout or LONG due
        self._bit = {1 << i: i for i in range(n)}   # a pending bit -> its key
        self._started = False
        self._ew = 0                    # edge ring: written only by the interrupt
        self._er = 0                    # and only by poll()
        self.edges_lost = 0             # edge-ring overflows (then keys are resampled)
        self._lost_seen = 0
        self.capturing = False
        if clock is not None:
            self._capture(clock)

    def active(self):
        """True while a key is down, settling or in its lockout: its next event
        may be a few ms away (work that cannot be cut short waits for it)."""
        return self._pending != 0 or self._state != self._none or self._er != self._ew

    def down(self, i):
        """Debounced state of key i (True while pressed)."""
        return self._state[i] == 1

    def settling(self):
        """True while some key's line differs from its debounced state: an event
        is due as soon as the line has held for confirm_ms (or the lockout ends)."""
        return self._raw != self._state or self._er != self._ew

    def due(self):
        """The ms tick at which the next key change will be accepted if its line
        holds, or -1 when none is waiting for that (or edges wait to be replayed:
        the next poll knows)."""
        if self._er != self._ew:
            return -1
        at = -1
        raw = self._raw
        state = self._state
        for i in range(self.key_count):
            if raw[i] != state[i]:
                t = ticks_add(self._since[i], self.confirm_ms)
                if self._flags[i] & _LOCKED:
                    end = ticks_add(self._locked[i], self.lockout_ms)
                    if ticks_diff(end, t) > 0:
                        t = end
                if at < 0 or ticks_diff(t, at) < 0:
                    at = t
        return at

    # ---- edge capture (interrupt side) ---------------------------------------
    def _capture(self, clock):
        size = self.EDGES
        self._clock = clock
        self._eb = bytearray(size)            # i << 1 | level
        self._et = array("i", bytes(4 * size))
        now = clock()
        for i in range(self.key_count):
            self._raw[i] = self.pins[i].value() ^ self._flip
            self._since[i] = now
            if self._raw[i]:
                self._pending |= 1 << i
        self._started = True
        self.capturing = True
        for i in range(self.key_count):
            p = self.pins[i]
            p.irq(self._handler(i, clock), p.IRQ_FALLING | p.IRQ_RISING, True)

    def _handler(self, i, clock):
        """The hard interrupt handler of key i: stamp the level, allocate nothing.
        (It closes over two names only: MicroPython calls a closure with at most
        five closed-over names plus arguments without a heap allocation.)"""
        self._clock = clock
        tag = i << 1

        def edge(pin):
            w = self._ew
            nxt = w + 1
            if nxt == self.EDGES:
                nxt = 0
            if nxt == self._er:
                self.edges_lost += 1
                return
            self._eb[w] = tag | (pin.value() ^ self._flip)
            self._et[w] = self._clock()
            self._ew = nxt
        return edge

    # ---- main loop side ------------------------------------------------------
    def poll(self, now):
        """Bring every key up to time `now` (ms, ticks_ms domain); events go to
        the ring stamped with the time the line changed."""
        if self.capturing:
            if self._er != self._ew:
                self._replay()
            if self.edges_lost != self._lost_seen:
                self._lost_seen = self.edges_lost
                self._sample(now)
        else:
            if not self._started:
                for i in range(self.key_count):
                    self._since[i] = now
                self._started = True
            self._sample(now)
        if self._pending:
            self._advance(now)

    def _replay(self):
        eb = self._eb
        et = self._et
        raw = self._raw
        size = len(eb)
        r = self._er
        while r != self._ew:
            v = eb[r]
            t = et[r]
            r += 1
            if r == size:
                r = 0
            self._er = r
            if self._pending:
                self._advance(ticks_add(t, -1))   # the old level lasted until t
            i = v >> 1
            p = v & 1
            if p != raw[i]:
                raw[i] = p
                self._since[i] = t
                self._pending |= 1 << i

    def _sample(self, now):
        flip = self._flip
        raw = self._raw
        pins = self.pins
        for i in range(self.key_count):
            p = pins[i].value() ^ flip
            if p != raw[i]:
                raw[i] = p
                self._since[i] = now
                self._pending |= 1 << i

    def _advance(self, now):
        """Step every key with work pending up to `now`."""
        pend = self._pending
        bit = self._bit
        while pend:
            low = pend & -pend          # (the pending keys only, not every bit
            self._step(bit[low], now)   # below them: a turn costs ~8 us on the chip)
            pend ^= low

    def _step(self, i, now):
        flags = self._flags
        f = flags[i]
        p = self._raw[i]
        if p != self._state[i]:
            at = ticks_add(self._since[i], self.confirm_ms)
            if f & _LOCKED:
                end = ticks_add(self._locked[i], self.lockout_ms)
                if ticks_diff(end, at) > 0:
                    at = end
            if ticks_diff(now, at) >= 0:
                t = self._since[i]
                self._state[i] = p
                f |= _LOCKED
                self._locked[i] = at
                if p:
                    self._pressed[i] = t
                    f |= _LONG_DUE
                    self.ring.put(PRESS << 8 | (self.first + i), t)
                else:
                    f &= ~_LONG_DUE
                    self.ring.put(RELEASE << 8 | (self.first + i), t)
        if f & _LOCKED and ticks_diff(now, self._locked[i]) >= self.lockout_ms:
            f &= ~_LOCKED
        if f & _LONG_DUE:
            t = self._pressed[i]
            if ticks_diff(now, t) >= self.long_ms:
                f &= ~_LONG_DUE
                self.ring.put(LONG << 8 | (self.first + i), ticks_add(t, self.long_ms))
        flags[i] = f
        if f == 0 and p == self._state[i]:
            self._pending &= ~(1 << i)
