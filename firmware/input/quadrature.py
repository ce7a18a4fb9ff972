"""Rotary encoders: quadrature state machine, detent counting, turn events.

The state is `A | B << 1`; STEP, indexed by `prev << 2 | cur`, gives +1 or -1 for a legal
quarter step and 0 for no change or an illegal one (both lines changed), which is rejected, not
guessed; pio_quadrature.py uses the same table. `Encoders` turns a quarter-step count into detent
events when the encoder is at rest, so jitter counts nothing and a detent is lost, never
invented. The walk, the table and the proof: docs/INPUT.md, "Rotary encoders".
"""
from array import array

from input.events import CW, CCW
from ticks import ticks_diff

# prev << 2 | cur -> quarter step (+1 clockwise, -1 counter-clockwise, 0 none/illegal)
STEP = (
    0, 1, -1, 0,     # prev 0: 0->1 cw, 0->2 ccw, 0->3 illegal
    -1, 0, 0, 1,     # prev 1: 1->0 ccw, 1->2 illegal, 1->3 cw
    1, 0, 0, -1,     # prev 2: 2->0 cw, 2->1 illegal, 2->3 ccw
    0, -1, 1, 0,     # prev 3: 3->0 illegal, 3->1 ccw, 3->2 cw
)
_STEP = bytes(s + 1 for s in STEP)   # stored offset by one: 0, 1, 2 = -1, 0, +1
# state -> its place in the clockwise cycle 3, 2, 0, 1: a legal step moves the
# count and the place alike, an illegal one moves the place by 2 and the count not
_PLACE = bytes((2, 3, 1, 0))


class PinQuadrature:
    """Portable decoder on two pins; counts quarter steps with STEP.

    Feed it by calling `sample()` often enough to see every state (polling),
    or call `use_irq()` to sample on every edge of A and B.
    `read()` returns `state << 16 | count & 0xFFFF`, like the PIO program;
    state and count are kept in that one int, so a reader never sees one
    updated without the other when an interrupt samples in between.
    """

    def __init__(self, pin_a, pin_b):
        self.pin_a = pin_a
        self.pin_b = pin_b
        self.word = (pin_a.value() | pin_b.value() << 1) << 16
        self.illegal = 0          # rejected transitions seen (diagnostics)
        self._irq = False
        self._on_edge_cb = self._on_edge    # bound once, not per interrupt

    def sample(self):
        """Read both lines and apply the transition."""
        cur = self.pin_a.value() | self.pin_b.value() << 1
        w = self.word
        prev = w >> 16
        if cur != prev:
            d = _STEP[prev << 2 | cur]
            if d == 1:
                self.illegal += 1
            self.word = cur << 16 | (w + d - 1) & 0xFFFF

    def _on_edge(self, pin):
        self.sample()

    def use_irq(self, trigger):
        """Sample on both edges of both lines (trigger: Pin.IRQ_RISING | Pin.IRQ_FALLING)."""
        self._irq = True
        self.pin_a.irq(handler=self._on_edge_cb, trigger=trigger)
        self.pin_b.irq(handler=self._on_edge_cb, trigger=trigger)

    def read(self):
        if not self._irq:
            self.sample()
        return self.word


class Encoders:
    """Detent events from quarter-step sources.

    sources: objects with `read()` -> `state << 16 | count & 0xFFFF`
    (PinQuadrature on any board, PioQuadrature on the RP2040).
    ring: where CW/CCW events go; source = first + encoder index.
    """

    steps = 4          # quarter steps per detent (2 for half-step encoders)
    rest = 3           # state at a detent: A and B both open (pull-ups)
    reverse = False    # swap the meaning of CW and CCW

    def __init__(self, sources, ring, first=0):
        self.sources = list(sources)
        self.encoder_count = len(self.sources)
        self.ring = ring
        self.first = first
        n = self.encoder_count
        self._base = array("i", bytes(4 * n))      # count at the last rest
        self._skew = bytearray(n)                  # (count - place) & 3 last seen
        self._jumps = array("i", bytes(4 * n))     # illegal transitions since the rest
        self._rest = bytearray(4)
        self.position = array("i", bytes(4 * n))   # detents, signed, for the app
        # Sources that keep their own count (PIO) need not be read every pass:
        # a read costs some 0.2 ms on the RP2040 (see PioQuadrature.READ_EVERY_MS).
        every = 0
        for s in self.sources:
            every = max(every, getattr(s, "READ_EVERY_MS", 0))
        self.every_ms = every
        self._read_at = 0
        self._read_once = False
        self.restart()

    def restart(self):
        """Take the current counts as the reference (after changing tunables)."""
        rest = self._rest
        for s in range(4):
            rest[s] = 0
        rest[self.rest] = 1
        if self.steps == 2:
            rest[3 - self.rest] = 1
        for i in range(self.encoder_count):
            w = self.sources[i].read()
            self._base[i] = w & 0xFFFF
            self._skew[i] = (w - _PLACE[w >> 16]) & 3
            self._jumps[i] = 0

    def poll(self, now):
        """Read every encoder; at a rest state queue one event per detent turned
        since the previous rest, stamped `now`.

        Each illegal transition seen since that rest may have been two quarter
        steps either way, so the count is taken 2 closer to zero per jump (to
        zero if the jumps could have cancelled the turn): a detent is reported
        only if the encoder made it whichever way the jumps went. A jump shows
        as a change of `(count - place) & 3`; two jumps between two polls cancel
        there and are not seen (only possible when the source samples more often
        than `poll()` runs: on pin IRQs, or the PIO, which samples every 100 ns).
        """
        if self.every_ms:
            if self._read_once and ticks_diff(now, self._read_at) < self.every_ms:
                return
            self._read_at = now
            self._read_once = True
        for i in range(self.encoder_count):
            w = self.sources[i].read()
            state = w >> 16
            skew = (w - _PLACE[state]) & 3
            if skew != self._skew[i]:
                self._skew[i] = skew
                self._jumps[i] += 1
            if not self._rest[state]:
                continue
            d = ((w & 0xFFFF) - self._base[i]) & 0xFFFF
            if d >= 0x8000:
                d -= 0x10000
            lost = 2 * self._jumps[i]
            if d > lost:
                n = (d - lost) // self.steps
            elif d < -lost:
                n = -((-d - lost) // self.steps)
            else:
                n = 0
            self._base[i] = w & 0xFFFF
            self._jumps[i] = 0
            if n:
                self._emit(i, n, now)

    def _emit(self, i, n, now):
        self.position[i] += n
        ev = CW
        if (n < 0) != self.reverse:
            ev = CCW
        if n < 0:
            n = -n
        src = self.first + i
        for _ in range(n):
            self.ring.put(ev << 8 | src, now)
