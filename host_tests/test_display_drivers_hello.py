"""The seven-segment builds' wiring check drawn by the drivers alone
(chips/build.py hello(), factory.py before the screens are imported):
the same picture as the screens draw, and the screens made next send nothing."""
import pytest

from board import config
from chips import build as chipbuild
from display.screens import Screens, build as build_screens
from fakedisplays import fake_board, TM1637Device, HT16K33Device

SEVEN = [name for name, b in config.BUILDS.items()
         if config.CHIPS[b["displays"][0][0]][1] != "oled"]


def state(models):
    """What each display holds: segments, on/off and brightness registers."""
    out = []
    for m in models:
        if isinstance(m, TM1637Device):
            out.append((bytes(m.grid), m.on, m.pulse))
        elif isinstance(m, HT16K33Device):
            out.append((bytes(m.ram), m.osc, m.on, m.blink, m.dimming))
        else:                                           # a MAX7219 chain's module
            out.append(bytes(m.chain.chips[m.pos].reg))
    return out


def traffic(buses, models):
    """Everything sent so far: I2C and SPI writes, TM1637 frames."""
    n = 0
    for b in buses.values():
        n += len(b.log)
    for m in models:
        if isinstance(m, TM1637Device):
            n += len(m.log)
    return n


@pytest.mark.parametrize("name", SEVEN)
def test_hello_draws_what_the_screens_draw_and_they_send_nothing_more(name):
    build = config.BUILDS[name]
    buses, pin, models = fake_board(build)
    screens = build_screens(build, buses, pin)
    screens.settle(None, None, 0)
    want = state(models)
    texts = [m.text() for m in models]
    assert texts[0].replace(" ", "") in ("P1", "PLAyEr1")    # each its player number
    assert texts[-1].replace(" ", "") in ("P%d" % len(models), "PLAyEr%d" % len(models))

    buses, pin, models = fake_board(build)
    ds = chipbuild.drivers(build, buses, pin)
    chipbuild.hello(ds)
    assert state(models) == want
    sent = traffic(buses, models)
    assert sent
    Screens(ds).settle(None, None, 0)
    assert traffic(buses, models) == sent
    assert state(models) == want


def test_a_failing_display_is_left_to_the_screens():
    build = config.BUILDS["ht16k33"]
    buses, pin, models = fake_board(build)
    models[2].present = False                     # NACK: not plugged in
    ds = chipbuild.drivers(build, buses, pin)
    chipbuild.hello(ds)                                   # no OSError out of it
    assert models[1].text().replace(" ", "") == "P2"
    assert models[3].text().replace(" ", "") == "P4"
    screens = Screens(ds)
    screens.settle(None, None, 0)
    assert screens.failed == 1 << 2
