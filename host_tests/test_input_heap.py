"""The polling and decoding path allocates nothing (micropython heap_lock)."""
import pytest

from mpy import PICO_HEAP, check

SCRIPT = r"""
import micropython
from array import array
from fakepins import Pin
from board import config
from input.build import Input
from ticks import ticks_add, TICKS_MAX

pins = {}
def make_pin(g):
    p = Pin(g, Pin.IN, Pin.PULL_UP)
    pins[g] = p
    return p

T = array("i", [0])
def clock():
    return T[0]

inp = Input(config.PANEL, (config.ENCODER, config.ENCODER2), make_pin,
            clock=clock if CAPTURE else None)
enc2 = inp.encoders.sources[1]
enc2.use_irq(Pin.IRQ_RISING | Pin.IRQ_FALLING)
if CAPTURE:       # the board's encoders run in PIO; here both on pin interrupts
    inp.encoders.sources[0].use_irq(Pin.IRQ_RISING | Pin.IRQ_FALLING)
ok = pins[config.PANEL["OK"]]
undo = pins[config.PANEL["UNDO"]]
a = pins[config.ENCODER[1]]
b = pins[config.ENCODER[2]]
a2 = pins[config.ENCODER2[1]]
b2 = pins[config.ENCODER2[2]]
CW = b"\x03\x02\x00\x01"
CCW = b"\x03\x01\x00\x02"
counts = array("i", [0] * 8)
ring = inp.ring
t0 = TICKS_MAX - 1500

def run(n):
    for k in range(n):
        T[0] = ticks_add(t0, k)
        ok.drive(0 if k % 200 >= 100 else 1)
        undo.drive(0 if 1000 <= k < 2500 else 1)
        s = CW[(k >> 1) & 3]
        a.drive(s & 1)
        b.drive(s >> 1)
        s = CCW[(k >> 1) & 3]
        a2.drive(s & 1)
        b2.drive(s >> 1)
        if CAPTURE and k % 7:
            continue              # a busy loop: the interrupts keep the key edges
        now = ticks_add(t0, k)      # a pass of the main loop: keys first, encoders last
        inp.buttons.poll(now)
        inp.encoders.poll(now)
        if 2000 <= k < 2400:
            continue
        ev = ring.get()
        while ev:
            counts[ev >> 8] += 1
            ev = ring.get()

run(10)               # warm up (first-poll set-up)
for i in range(8):
    counts[i] = 0
micropython.heap_lock()
run(4000)
micropython.heap_unlock()
print("counts", counts[1], counts[2], counts[3], counts[4], counts[5], ring.overflows)
"""


@pytest.mark.parametrize("capture", [False, True], ids=["polled", "captured"])
def test_poll_and_decode_do_not_allocate(capture):
    """Polled, and with key edges captured by (fake) pin interrupts, whose
    handler runs inside the heap lock as a hard interrupt would."""
    res = check(code="CAPTURE = %r\n" % capture + SCRIPT, heapsize=PICO_HEAP)
    line = [ln for ln in res.lines() if ln.startswith("counts")]
    assert line, res.out
    press, release, long_, cw, ccw, lost = (int(v) for v in line[0].split()[1:])
    # OK: 20 presses (100, 300, ... 3900), 19 releases; UNDO: held 1000..2500
    # encoder 1: CW every 8 ms (499), encoder 2 (on pin IRQs): CCW every 8 ms (499);
    # the ring is not read for 400 ms: it fills and counts what it drops
    assert lost > 0
    assert long_ == 1
    # (a loop looking every 7 ms sees the encoders at rest less often: detents
    # may merge into one look, or the last one be seen too)
    detents = press + release + long_ + cw + ccw + lost - (21 + 20 + 1)
    if capture:
        assert 990 <= detents <= 1000
    else:
        assert detents == 499 + 499
    assert press >= 20 - 2 and cw >= 499 - 50 and ccw >= 499 - 50


def test_input_modules_import_without_machine_or_rp2():
    """Only the board factory and main touch machine/rp2: the input package
    imports under micropython with no fakes on the path at all."""
    from mpy import FIRMWARE
    res = check(code="import input.build, input.pio_quadrature, input.events\nprint('ok')\n",
                path=(FIRMWARE,))
    assert res.lines() == ["ok"]
