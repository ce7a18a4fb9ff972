"""The fake Pin behaves like an RP2040 pad."""
import os

import pytest

from fakepins import Pin


@pytest.fixture(autouse=True)
def fresh():
    Pin.reset_all()


def test_pulls_and_external_drive():
    p = Pin(3, Pin.IN, Pin.PULL_UP)
    assert p.value() == 1 and p() == 1
    p.drive(0)
    assert p.value() == 0
    p.release()
    assert p.value() == 1
    q = Pin(4, Pin.IN, Pin.PULL_DOWN)
    assert q.value() == 0
    q.init(pull=Pin.PULL_UP)
    assert q.value() == 1


def test_floating_input_keeps_its_last_level():
    p = Pin(5, Pin.IN, Pin.PULL_UP)
    p.init(pull=None)
    assert p.value() == 1
    p.drive(0)
    p.release()
    assert p.value() == 0


def test_outputs_and_open_drain():
    p = Pin(6, Pin.OUT, value=1)
    assert p.value() == 1
    p.off()
    assert p.value() == 0
    p.toggle()
    assert p.value() == 1
    p.low()
    assert p.value() == 0
    od = Pin(7, Pin.OPEN_DRAIN, Pin.PULL_UP)
    od.value(0)
    assert od.value() == 0
    od.value(1)                       # released: the pull-up wins
    assert od.value() == 1
    od.drive(0)                       # another device pulls the line low: no fight
    assert od.value() == 0 and od._pad.contention == 0
    p.on()
    p.drive(0)                        # outside drives against a push-pull output
    assert p._pad.contention == 1


def test_pins_of_one_gpio_share_the_pad():
    a = Pin(8, Pin.IN, Pin.PULL_UP)
    Pin(8).drive(0)
    assert a.value() == 0
    assert Pin(8).mode() == Pin.IN and Pin(8).pull() == Pin.PULL_UP


def test_irq_triggers_on_matching_edges_only():
    p = Pin(9, Pin.IN, Pin.PULL_UP)
    seen = []
    p.irq(handler=lambda pin: seen.append((pin.id, pin.value())), trigger=Pin.IRQ_FALLING)
    p.drive(0)
    p.drive(0)                        # no edge
    p.release()                       # rising: not asked for
    p.drive(0)
    assert seen == [(9, 0), (9, 0)]
    p.irq(handler=lambda pin: seen.append("r"), trigger=Pin.IRQ_RISING)
    p.release()
    assert seen[-1] == "r"
    p.irq(handler=None)
    p.drive(0)
    p.release()
    assert len(seen) == 3
    assert p._pad.edges == 7          # the first: pad reset low, then the pull-up


def test_bad_mode_rejected():
    with pytest.raises(ValueError):
        Pin(1, 42)


def test_the_fake_buzzer_keeps_only_its_latest_tones():
    """A long game under the host MicroPython: the fake PWM's log of tones stays
    small (it kept every tone, and a table of the hall tests ran out of heap after
    some hundred actions)."""
    from mpy import MICROPYTHON, MODELS, run
    if not os.path.exists(MICROPYTHON):
        pytest.skip("needs the host micropython")
    res = run(code="""
import fakesystem
from fakesystem import PWM
b = fakesystem.board
pwm = PWM(28)
for i in range(200000):
    b.now = i
    pwm.freq(2000 + i % 7)
    pwm.duty_u16(i & 1)
print(len(b.tones), b.tones[-1])
""", heapsize="256K", path=(MODELS,))
    assert res.status == 0, res.out + res.err
    assert res.out.split() == ["64", "(199999,", "28,", "2002,", "1)"]
