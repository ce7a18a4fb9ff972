"""A faithful stand-in for machine.Pin (RP2040 flavour) on the host.

Every GPIO is a pad shared by all Pin objects made for that number, as on the
chip. What the pad reads is worked out like the hardware does it: a level
driven from outside (a test, the simulator: `drive()` / `release()`) wins,
then the pin's own output (OUT; OPEN_DRAIN only pulls low), then the pull
resistor; a floating input keeps its last level. Handlers set with `irq()` run
on every edge that matches their trigger, with the pin as argument, like a
MicroPython IRQ. value() allocates nothing, so heap-locked tests can use it.
"""


class _Pad:
    def __init__(self, gpio):
        self.gpio = gpio
        self.mode = Pin.IN
        self.pull = None
        self.out = 0          # output latch
        self.ext = -1         # level driven from outside, -1 = released
        self.level = 0
        self.handler = None
        self.trigger = 0
        self.irq_pin = None
        self.edges = 0        # edges seen (tests and the simulator may read it)
        self.contention = 0   # times the outside drove against an active output


class _Irq:
    def __init__(self, pad):
        self._pad = pad

    def flags(self):
        return self._pad.trigger

    def trigger(self):
        return self._pad.trigger


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    _pads = {}

    @classmethod
    def reset_all(cls):
        """Forget every pad (between tests)."""
        cls._pads = {}

    @classmethod
    def pad(cls, gpio):
        """The pad of GPIO `gpio` (created on first use)."""
        p = cls._pads.get(gpio)
        if p is None:
            p = cls._pads[gpio] = _Pad(gpio)
        return p

    def __init__(self, id, mode=-1, pull=-1, *, value=None, **kw):
        self.id = id
        self._pad = Pin.pad(id)
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, **kw):
        pad = self._pad
        if value is not None:
            pad.out = 1 if value else 0
        if mode != -1:
            if mode not in (Pin.IN, Pin.OUT, Pin.OPEN_DRAIN, Pin.ALT):
                raise ValueError("invalid pin mode")
            pad.mode = mode
        if pull != -1:
            if pull not in (None, Pin.PULL_UP, Pin.PULL_DOWN):
                raise ValueError("invalid pull")
            pad.pull = pull
        self._update()

    # -- what the pin itself does --------------------------------------
    def value(self, x=None):
        if x is None:
            return self._pad.level
        self._pad.out = 1 if x else 0
        self._update()
        return None

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off

    def toggle(self):
        self.value(1 - self._pad.out)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        pad = self._pad
        pad.handler = handler
        pad.trigger = trigger if handler is not None else 0
        pad.irq_pin = self
        return _Irq(pad)

    def mode(self, m=None):
        if m is None:
            return self._pad.mode
        self.init(m)

    def pull(self, p=-1):
        if p == -1:
            return self._pad.pull
        self.init(pull=p)

    # -- the outside world (tests, simulator) -------------------------
    def drive(self, level):
        """Drive the wire to `level` from outside (a switch, a signal)."""
        self._pad.ext = 1 if level else 0
        self._update()

    def release(self):
        """Stop driving from outside; the pull resistor or output takes over."""
        self._pad.ext = -1
        self._update()

    def __repr__(self):
        return "Pin(%d)" % self.id

    def _update(self):
        pad = self._pad
        old = pad.level
        driving = pad.mode == Pin.OUT or (pad.mode == Pin.OPEN_DRAIN and pad.out == 0)
        if pad.ext >= 0:
            new = pad.ext
            if driving and pad.out != pad.ext:
                pad.contention += 1
        elif driving:
            new = pad.out
        elif pad.pull == Pin.PULL_UP:
            new = 1
        elif pad.pull == Pin.PULL_DOWN:
            new = 0
        else:
            new = old
        if new == old:
            return
        pad.level = new
        pad.edges += 1
        if pad.handler is not None:
            edge = Pin.IRQ_RISING if new else Pin.IRQ_FALLING
            if pad.trigger & edge:
                pad.handler(pad.irq_pin)


def apply_due(timeline, now):
    """Apply the pin changes of `timeline` ((time, gpio, level) tuples) that are due at
    `now` (level 1: released, the pull-up takes the line high; 0: driven low, a
    switch closed); returns the ones still to come. The simulator and the browser
    page's glue press their keys this way."""
    keep = []
    for ev in timeline:
        if ev[0] <= now:
            p = Pin(ev[1])
            if ev[2]:
                p.release()
            else:
                p.drive(0)
        else:
            keep.append(ev)
    return keep
