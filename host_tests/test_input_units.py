"""Event ring, tick arithmetic, encoders on interrupts, the builder."""
import pytest

from board import config
from fakepins import Pin
from input import events
from input.build import Input, key_names
from input.quadrature import Encoders, PinQuadrature
from input.ring import EventRing
from ticks import TICKS_MAX, ticks_add, ticks_diff
from input_scenarios import Rng

PERIOD = TICKS_MAX + 1


@pytest.fixture(autouse=True)
def fresh_pins():
    Pin.reset_all()


# -- ring -----------------------------------------------------------------------

def test_ring_is_fifo_with_times_and_wraps_around():
    r = EventRing(4)
    out = []
    for n in range(50):
        assert r.put(events.event(events.PRESS, n % 7), 1000 + n)
        if n % 3 == 2:
            while r.count():
                ev = r.get()
                out.append((ev, r.time))
    while r.count():
        ev = r.get()
        out.append((ev, r.time))
    assert out == [(events.PRESS << 8 | n % 7, 1000 + n) for n in range(50)]
    assert r.get() == events.NONE


def test_ring_overflow_is_counted_not_raised():
    r = EventRing(8)
    results = [r.put(events.event(events.CW, 0), n) for n in range(20)]
    assert results == [True] * 8 + [False] * 12
    assert r.overflows == 12 and r.count() == 8
    assert [r.get() for _ in range(8)] == [events.CW << 8] * 8
    assert r.time == 7                     # the oldest were kept
    r.put(events.event(events.LONG, 3), 99)
    r.clear()
    assert r.count() == 0 and r.get() == events.NONE


def test_event_helpers():
    ev = events.event(events.LONG, 12)
    assert ev == 3 << 8 | 12 and events.kind(ev) == events.LONG and events.source(ev) == 12


# -- ticks ----------------------------------------------------------------------

def test_ticks_match_the_modular_definition():
    rng = Rng(7)
    for _ in range(20000):
        a = rng.next() % PERIOD
        b = rng.next() % PERIOD
        if rng.next() % 2:
            b = (a - rng.randint(-5000, 5000)) % PERIOD      # near each other, often wrapping
        want = (a - b + PERIOD // 2) % PERIOD - PERIOD // 2
        assert ticks_diff(a, b) == want
        d = rng.randint(-(PERIOD // 2) + 1, PERIOD // 2 - 1)
        assert ticks_add(a, d) == (a + d) % PERIOD
    assert ticks_add(TICKS_MAX, 1) == 0
    assert ticks_diff(0, TICKS_MAX) == 1
    assert ticks_diff(TICKS_MAX, 0) == -1


# -- encoders -------------------------------------------------------------------

def drive(a, b, s):
    a.drive(s & 1)
    b.drive(s >> 1)


def test_encoders_on_pin_interrupts_see_steps_between_polls():
    """Several quarter steps between two polls: the polled decoder misses the
    states it never sampled (an illegal jump it rejects); on IRQs every edge counts."""
    pins = [Pin(g, Pin.IN, Pin.PULL_UP) for g in (11, 12, 14, 15)]
    polled = PinQuadrature(pins[0], pins[1])
    irq = PinQuadrature(pins[2], pins[3])
    irq.use_irq(Pin.IRQ_RISING | Pin.IRQ_FALLING)
    ring = EventRing(32)
    enc = Encoders([polled, irq], ring)
    for t in range(5):
        for s in (2, 0, 1, 3):
            drive(pins[0], pins[1], s)
            drive(pins[2], pins[3], s)
            if s in (0, 3):
                enc.poll(t)
    got = [ring.get() for _ in range(ring.count())]
    assert got == [events.CW << 8 | 1] * 5
    assert polled.illegal == 10 and irq.illegal == 0


def test_two_encoders_reverse_and_position():
    pins = [Pin(g, Pin.IN, Pin.PULL_UP) for g in (11, 12, 14, 15)]
    ring = EventRing(32)
    enc = Encoders([PinQuadrature(pins[0], pins[1]), PinQuadrature(pins[2], pins[3])],
                   ring, first=0)
    enc.reverse = True
    for s in (2, 0, 1, 3) * 3:
        drive(pins[0], pins[1], s)
        enc.poll(0)
    for s in (1, 0, 2, 3):
        drive(pins[2], pins[3], s)
        enc.poll(5)
    got = [(ring.get(), ring.time) for _ in range(ring.count())]
    assert got == [(events.CCW << 8, 0)] * 3 + [(events.CW << 8 | 1, 5)]
    assert list(enc.position) == [3, -1]


# -- builder --------------------------------------------------------------------

def test_key_names_follow_gpio_order_then_encoder_switches():
    names = key_names(config.PANEL, (config.ENCODER, config.ENCODER2))
    assert names == ("1", "3", "5", "C2", "C3", "OK", "MISS", "FOUL", "SCRATCH",
                     "UNDO", "REDO", "ENC", "ENC2")


def make_pin(gpio):
    return Pin(gpio, Pin.IN, Pin.PULL_UP)


def test_builder_wires_every_configured_pin():
    made = []
    inp = Input(config.PANEL, (config.ENCODER, config.ENCODER2),
                lambda g: made.append(g) or make_pin(g))
    want = set(config.PANEL.values()) | set(config.ENCODER[1:]) | set(config.ENCODER2[1:])
    assert set(made) == want and len(made) == len(want)

    def tap(gpio, t0):
        for k in range(60):
            Pin(gpio).drive(0 if 5 <= k < 40 else 1)
            inp.buttons.poll(t0 + k)

    tap(config.PANEL["OK"], 0)
    tap(config.ENCODER[3], 100)
    tap(config.ENCODER2[3], 200)
    a, b = Pin(config.ENCODER2[1]), Pin(config.ENCODER2[2])
    for k, s in enumerate((2, 0, 1, 3)):
        drive(a, b, s)
        inp.encoders.poll(300 + k)
    got = []
    while inp.ring.count():
        ev = inp.ring.get()
        got.append((events.kind(ev), events.source(ev), inp.ring.time))
    assert got == [(events.PRESS, inp.key("OK"), 5), (events.RELEASE, inp.key("OK"), 40),
                   (events.PRESS, 11, 105), (events.RELEASE, 11, 140),
                   (events.PRESS, 12, 205), (events.RELEASE, 12, 240),
                   (events.CW, 1, 303)]
    assert inp.key("ENC2") == 12 and inp.encoder_names == ("ENC", "ENC2")


def test_builder_uses_the_given_quadrature_factory():
    calls = []

    def quad(i, a, b):
        calls.append((i, a.id, b.id))
        return PinQuadrature(a, b)

    Input(config.PANEL, (config.ENCODER, config.ENCODER2), make_pin, quadrature=quad)
    assert calls == [(0, 11, 12), (1, 14, 15)]


def test_encoders_can_start_after_the_keys():
    """quadrature=False: the keys (and the encoders' switches) work at once, the
    decoders come with start_encoders() (the board: after the wiring check)."""
    encs = (config.ENCODER, config.ENCODER2)
    inp = Input(config.PANEL, encs, make_pin, quadrature=False)
    assert inp.encoders is None and len(inp.buttons.pins) == len(inp.names)
    inp.buttons.poll(0)
    assert inp.ring.get() == 0
    inp.start_encoders(encs, make_pin, lambda i, a, b: PinQuadrature(a, b))
    assert inp.encoders.encoder_count == 2
    a = make_pin(config.ENCODER[1])
    b = make_pin(config.ENCODER[2])
    for t, (la, lb) in enumerate(((0, 1), (0, 0), (1, 0), (1, 1))):   # one detent
        a.drive(la)
        b.drive(lb)
        inp.encoders.poll(10 + t)
    ev = inp.ring.get()
    assert ev >> 8 in (events.CW, events.CCW) and ev & 0xFF == 0     # encoder 0 turned


def test_due_names_the_moment_a_settling_key_will_be_accepted():
    """Buttons.due(): when the next change is accepted if the line holds (the
    main loop waits for that moment rather than passing through the loop)."""
    from input.buttons import Buttons
    now = [1000]
    pins = [Pin(30 + i, Pin.IN, Pin.PULL_UP) for i in range(2)]
    ring = EventRing(8)
    b = Buttons(pins, ring, clock=lambda: now[0])
    b.poll(now[0])
    assert b.due() == -1                      # nothing settles
    pins[1].drive(0)                          # key 1 pressed at 1000
    assert b.due() == -1                      # the edge is not replayed yet
    now[0] = 1001
    b.poll(now[0])
    assert b.due() == 1000 + Buttons.confirm_ms
    now[0] = 1000 + Buttons.confirm_ms
    b.poll(now[0])
    assert ring.get() >> 8 == events.PRESS and b.due() == -1
    now[0] = 1010
    pins[1].drive(1)                          # released inside the lockout
    b.poll(now[0])
    assert b.due() == 1000 + Buttons.confirm_ms + Buttons.lockout_ms


def test_active_while_a_key_is_down_settling_or_locked_out():
    """Buttons.active(): the loop starts no hall step while a key's event may be a few
    ms away: an edge not yet taken, a key settling, held down, or in its lockout."""
    from input.buttons import Buttons
    now = [1000]
    pins = [Pin(30 + i, Pin.IN, Pin.PULL_UP) for i in range(2)]
    ring = EventRing(8)
    b = Buttons(pins, ring, clock=lambda: now[0])
    b.poll(now[0])
    assert not b.active()
    pins[0].drive(0)                          # pressed: the edge waits for poll()
    assert b.active()
    for t in range(1001, 1000 + Buttons.confirm_ms + 1):
        now[0] = t
        b.poll(t)
        assert b.active()                     # settling, then down
    assert ring.get() >> 8 == events.PRESS
    now[0] = 1500
    b.poll(now[0])
    assert b.active()                         # held down
    pins[0].drive(1)                          # released at 1500
    for t in range(1501, 1500 + Buttons.confirm_ms + Buttons.lockout_ms):
        now[0] = t
        b.poll(t)
        assert b.active(), t                  # settling, then its lockout
    now[0] = 1500 + Buttons.confirm_ms + Buttons.lockout_ms + 1
    b.poll(now[0])
    assert not b.active()
