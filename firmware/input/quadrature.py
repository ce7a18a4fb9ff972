"""Rotary encoders: quadrature state machine, detent counting, turn events.

A and B are read as a 2-bit state `s = A | B << 1` (1 = line high, open). One
turn clockwise (A leads) walks 3 -> 2 -> 0 -> 1 -> 3; counter-clockwise walks
the reverse. STEP is the transition table indexed by `prev << 2 | cur`: +1 and
-1 for the eight legal quarter steps, 0 for no change and for the four
illegal ones (both lines changed at once: a missed sample or noise), which
are rejected rather than guessed. The PIO program in `pio_quadrature` uses the
same table, so both give the same quarter-step count.

`Encoders` turns a quarter-step count into one event per detent: contact
jitter on one line only moves the count back and forth by one and never
reaches a detent boundary; at a rest state the reference is re-aligned, so
an illegal transition costs at most the detent it happened in.
"""
from array import array

from input.events import CW, CCW

# prev << 2 | cur -> quarter step (+1 clockwise, -1 counter-clockwise, 0 none/illegal)
STEP = (
    0, 1, -1, 0,     # prev 0: 0->1 cw, 0->2 ccw, 0->3 illegal
    -1, 0, 0, 1,     # prev 1: 1->0 ccw, 1->2 illegal, 1->3 cw
    1, 0, 0, -1,     # prev 2: 2->0 cw, 2->1 illegal, 2->3 ccw
    0, -1, 1, 0,     # prev 3: 3->0 illegal, 3->1 ccw, 3->2 cw
)
_STEP = bytes(s + 1 for s in STEP)   # stored offset by one: 0, 1, 2 = -1, 0, +1


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
        self.n = len(self.sources)
        self.ring = ring
        self.first = first
        self._base = array("i", bytes(4 * self.n))
        self._rest = bytearray(4)
        self.position = array("i", bytes(4 * self.n))   # detents, signed, for the app
        self.restart()

    def restart(self):
        """Take the current counts as the reference (after changing tunables)."""
        rest = self._rest
        for s in range(4):
            rest[s] = 0
        rest[self.rest] = 1
        if self.steps == 2:
            rest[3 - self.rest] = 1
        for i in range(self.n):
            self._base[i] = self.sources[i].read() & 0xFFFF

    def poll(self, now):
        """Read every encoder and queue one event per detent turned, stamped `now`."""
        for i in range(self.n):
            w = self.sources[i].read()
            d = ((w & 0xFFFF) - self._base[i]) & 0xFFFF
            if d >= 0x8000:
                d -= 0x10000
            if d >= 0:
                n = d // self.steps
            else:
                n = -((-d) // self.steps)
            if self._rest[w >> 16]:
                self._base[i] = w & 0xFFFF
            elif n:
                self._base[i] = (self._base[i] + n * self.steps) & 0xFFFF
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
