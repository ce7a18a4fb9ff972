"""The PIO quadrature program, run word by word on the pioemu emulator.

The program comes from firmware/input/pio_quadrature.py assembled by the
host stand-in for rp2.asm_pio (host_tests/fakes/rp2.py); the emulated state
machine reads the fake pin pads. Every result is compared with the portable
decoder (input.quadrature), which is what the host and the fallback use.
"""
import pytest

import rp2
from fakepins import Pin
from input import pio_quadrature
from input.quadrature import STEP, Encoders, PinQuadrature
from input.ring import EventRing
from input.events import CW, CCW
from input_scenarios import Rng

A, B = 11, 12        # board.config.ENCODER


@pytest.fixture(autouse=True)
def fresh():
    Pin.reset_all()
    rp2.PIO.reset_all()
    yield


def pins():
    return Pin(A, Pin.IN, Pin.PULL_UP), Pin(B, Pin.IN, Pin.PULL_UP)


def put(a, b, s):
    a.drive(s & 1)
    b.drive(s >> 1)


def signed32(v):
    return v - (1 << 32) if v >= 1 << 31 else v


# -- the assembler stand-in against the RP2040 datasheet encodings -------------

def test_assembler_matches_datasheet_encodings():
    @rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
    def sample():
        wrap_target()
        label("top")
        nop()
        jmp(x_dec, "top")
        wait(1, pin, 0)
        wait(0, gpio, 5)
        in_(pins, 1)
        out(pins, 1)
        push(noblock)
        push()
        pull()
        mov(isr, null)
        mov(x, invert(y))
        set(pins, 1)[3]
        irq(block, 2)
        wrap()
    words = list(sample[0])
    assert words == [0xA042, 0x0040, 0x20A0, 0x2005, 0x4001, 0x6001, 0x8000, 0x8020,
                     0x80A0, 0xA0C3, 0xA02A, 0xE301, 0xC022]
    assert (sample[3] >> 12) & 31 == 12 and (sample[3] >> 7) & 31 == 0


def test_start_up_instructions_are_encoded_as_their_text_assembles():
    """PioQuadrature runs its start-up instructions as words (exec() of the text
    assembles it on the chip, some 4 ms each); the words are the text's. (On the
    emulated Pico, MicroPython v1.24.1 and v1.26.1's own rp2.asm_pio_encode gave
    the same four words.)"""
    assert pio_quadrature.SET_X_0 == rp2.asm_pio_encode("set(x, 0)", 0) == 0xE020
    assert pio_quadrature.MOV_ISR_NULL == rp2.asm_pio_encode("mov(isr, null)", 0) == 0xA0C3
    assert pio_quadrature.IN_PINS_2 == rp2.asm_pio_encode("in_(pins, 2)", 0) == 0x4002
    assert pio_quadrature.MOV_OSR_ISR == rp2.asm_pio_encode("mov(osr, isr)", 0) == 0xA0E6


def test_program_fills_memory_and_jumps_through_a_table():
    prog = pio_quadrature.program()
    words = list(prog[0])
    assert len(words) == 32                       # forces load address 0
    assert all(w >> 5 == 0 for w in words[:16])   # 16 unconditional jmps
    assert 0xA0A6 in words                        # mov pc, isr: the dispatch
    shiftctrl = prog[4]
    assert shiftctrl >> 30 == rp2.PIO.JOIN_RX
    assert (shiftctrl >> 18) & 1 == rp2.PIO.SHIFT_LEFT


def test_loader_places_it_at_zero_and_encoders_share_it():
    a, b = pins()
    q0 = pio_quadrature.PioQuadrature(0, a)
    c = Pin(14, Pin.IN, Pin.PULL_UP)
    Pin(15, Pin.IN, Pin.PULL_UP)
    q1 = pio_quadrature.PioQuadrature(1, c)
    assert q0.sm.offset == 0 and q1.sm.offset == 0
    with pytest.raises(OSError):                  # nothing else fits in PIO0
        rp2.PIO(0).add_program(pio_quadrature._assemble(rp2))


# -- instruction by instruction ------------------------------------------------

@pytest.mark.parametrize("prev", range(4))
@pytest.mark.parametrize("cur", range(4))
def test_each_transition_matches_the_table(prev, cur):
    a, b = pins()
    put(a, b, prev)
    q = pio_quadrature.PioQuadrature(0, a)
    q.sm.run(60)
    x0 = q.sm.state.x_register
    put(a, b, cur)
    q.sm.run(30)
    assert signed32((q.sm.state.x_register - x0) & 0xFFFFFFFF) == STEP[prev << 2 | cur]
    assert q.read() >> 16 == cur


def test_samples_at_least_every_13_cycles():
    """Whatever path a pass takes (none, +1, -1), the pins are read again
    within 13 PIO cycles, so any state lasting that long is seen."""
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    sm = q.sm
    seq = [3, 2, 0, 1, 3, 1, 0, 2, 3, 0, 3]
    reads = []
    for s in seq:
        put(a, b, s)
        for _ in range(40):
            if sm.mem[sm.state.program_counter] == 0x4002:    # in pins, 2
                reads.append(sm.cycles)
            sm.step()
    gaps = [y - x for x, y in zip(reads, reads[1:])]
    assert max(gaps) <= 13
    assert min(gaps) >= 9


# -- against the portable decoder ----------------------------------------------

def walk(rng, n):
    """A random path: legal steps both ways, jitter, some illegal jumps."""
    s = 3
    out = []
    for _ in range(n):
        r = rng.next() % 100
        if r < 45:
            s = {3: 2, 2: 0, 0: 1, 1: 3}[s]                                 # cw
        elif r < 80:
            s = {2: 3, 0: 2, 1: 0, 3: 1}[s]                                 # ccw
        elif r < 92:
            s ^= 1                                                          # A chatter
        else:
            s ^= 3                                                          # illegal
        out.append(s)
    return out


@pytest.mark.parametrize("seed,hold", [(1, 40), (2, 20), (3, 13)])
def test_random_paths_match_portable_decoder(seed, hold):
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    p = PinQuadrature(a, b)
    r1, r2 = EventRing(256), EventRing(256)
    e1, e2 = Encoders([q], r1), Encoders([p], r2)
    e1.every_ms = 0                  # the PIO read at every poll, as the portable one
    for k, s in enumerate(walk(Rng(seed), 300)):
        put(a, b, s)
        q.sm.run(hold)
        assert q.read() == p.read()
        e1.poll(k)
        e2.poll(k)
    ev1 = [r1.get() for _ in range(r1.count())]
    ev2 = [r2.get() for _ in range(r2.count())]
    assert ev1 == ev2
    assert ev1                                    # the walk did turn it


def test_fast_turn_at_minimum_hold():
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    ring = EventRing(64)
    enc = Encoders([q], ring)
    for _ in range(10):
        for s in (2, 0, 1, 3):
            put(a, b, s)
            q.sm.run(13)
    enc.poll(0)
    assert [ring.get() for _ in range(ring.count())] == [CW << 8] * 10


def test_no_step_lost_while_cpu_is_busy():
    """25 detents turned while nobody reads (a GC pause, a flash write): the
    FIFO overflows and drops words, but the count lives in X and is exact."""
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    ring = EventRing(64)
    enc = Encoders([q], ring)
    for _ in range(25):
        for s in (1, 0, 2, 3):
            put(a, b, s)
            q.sm.run(30)
    assert q.sm.dropped > 0
    enc.poll(0)
    assert [ring.get() for _ in range(ring.count())] == [CCW << 8] * 25
    assert enc.position[0] == -25


def test_pio_count_read_every_few_ms_loses_nothing():
    """The loop polls every ms but the PIO FIFO is read only every READ_EVERY_MS
    (a read costs about 0.2 ms on the chip); detents come out all the same."""
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    ring = EventRing(64)
    enc = Encoders([q], ring)
    assert enc.every_ms == pio_quadrature.PioQuadrature.READ_EVERY_MS == 4
    reads = [0]
    real = q.read

    def counting():
        reads[0] += 1
        return real()
    q.read = counting
    t = 0
    for _ in range(12):
        for s in (2, 0, 1, 3):
            put(a, b, s)
            q.sm.run(30)
            enc.poll(t)
            t += 1
    enc.poll(t + 10)
    assert [ring.get() for _ in range(ring.count())] == [CW << 8] * 12
    assert reads[0] <= t // 4 + 2


def test_jitter_on_one_line_gives_nothing():
    a, b = pins()
    q = pio_quadrature.PioQuadrature(0, a)
    ring = EventRing(64)
    enc = Encoders([q], ring)
    for k in range(60):
        put(a, b, 3 if k % 2 else 2)          # A chatters at the detent
        q.sm.run(7 + k % 11)                  # sometimes faster than a pass
        enc.poll(k)
    put(a, b, 3)
    q.sm.run(30)
    enc.poll(60)
    assert ring.count() == 0
