"""Every display chip of board/config.py CHIPS, declared once, is driven end to end: its
driver module makes its drivers (make()), its device model (fakedisplays.py DEVICES) decodes
what they send, and the screens' start-up picture reads back on it. A new chip of a known
kind is tested here without a line of its own (docs/ARCHITECTURE.md, "Adding a display
chip")."""
import importlib

import pytest

from board import config
from display.screens import build as build_screens
from fakedisplays import DEVICES, fake_board, read_oled

KINDS = ("4digit", "8digit", "oled")
WIRINGS = ("pins", "chain", "i2c")


def two_seats(chip):
    """A build of two displays of `chip`, wired as its CHIPS entry says."""
    module, kind, wiring = config.CHIPS[chip]
    if wiring == "pins":
        return {"buses": {}, "displays": [(chip, 16, 17), (chip, 16, 18)]}
    if wiring == "chain":
        return {"buses": {"spi0": config.SPI0}, "displays": [(chip, "spi0", 0), (chip, "spi0", 1)]}
    first = 0x3C if kind == "oled" else 0x70
    return {"buses": {"i2c0": config.I2C0},
            "displays": [(chip, "i2c0", first), (chip, "i2c0", first + 1)]}


def test_every_chip_is_declared_whole():
    assert set(DEVICES) == set(config.CHIPS)
    for chip, (module, kind, wiring) in config.CHIPS.items():
        assert kind in KINDS and wiring in WIRINGS, chip
        assert callable(importlib.import_module("chips." + module).make), chip
        assert set(DEVICES[chip]) == {"model", "rail", "wokwi", "decoder"}, chip
    for build in config.BUILDS.values():
        assert all(e[0] in config.CHIPS for e in build["displays"])


@pytest.mark.parametrize("chip", sorted(config.CHIPS))
def test_every_chip_shows_the_wiring_check_on_its_model(chip):
    build = two_seats(chip)
    buses, pin, models = fake_board(build)
    screens = build_screens(build, buses, pin)
    screens.settle(None, None, 0)
    kind = config.CHIPS[chip][1]
    for i, m in enumerate(models):
        if kind == "oled":
            assert read_oled(m.pixels())["top"] == "PLAYER %d" % (i + 1)
        elif kind == "8digit":
            assert m.text() == "PLAyEr %d" % (i + 1)     # (Y and y: one pattern)
        else:
            assert m.text() == "P  %d" % (i + 1)
