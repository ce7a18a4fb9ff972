"""What the simulator keeps stays within a bound: the display models keep the latest
transactions only (fakedisplays.KEEP, none in the simulator), so a board left idle for
hours, under the host MicroPython's fixed heap, neither runs out of memory nor grows."""
import ast

import pytest

from chips.tm1637 import TM1637
from fakebuses import I2C, SPI, Net
from fakedisplays import (KEEP, HT16K33Device, MAX7219Device, OLEDDevice, TCA9548ADevice,
                          TM1637Device, fake_board)
from mpy import FAKES, FIRMWARE, MODELS, TOOLS, check


def test_every_history_keeps_the_latest_entries_only():
    n = KEEP + 300
    i2c = I2C(0)
    ht = i2c.attach(HT16K33Device(0x70))
    oled = i2c.attach(OLEDDevice(0x3C, "sh1106"))
    mux = i2c.attach(TCA9548ADevice(0x71))
    for k in range(n):
        i2c.writeto(0x70, bytes((0x81,)) + k.to_bytes(2, "big"))
        i2c.writeto(0x3C, bytes((0x00, 0xB0 | k & 7, k & 0x0F)))   # page, column
        i2c.writeto(0x71, k.to_bytes(2, "big"))
    for dev in (ht, mux):
        assert len(dev.log) == KEEP and dev.log[-1][-2:] == (n - 1).to_bytes(2, "big")
        assert dev.log[0][-2:] == (n - KEEP).to_bytes(2, "big")
    assert oled.log == [bytes((0x00, 0xB0 | k & 7, k & 0x0F)) for k in range(n - KEEP, n)]
    assert oled.commands[-2:] == [(0xB0 | (n - 1) & 7, ()), ((n - 1) & 0x0F, ())]
    assert len(oled.commands) == KEEP
    cs = Net("cs")
    spi = SPI(0)
    chain = spi.attach(MAX7219Device(cs, 1))
    select = cs.pin()
    for k in range(n):
        select.init(1, value=0)
        spi.write(k.to_bytes(2, "big"))
        select.value(1)
    assert len(chain.frames) == KEEP and chain.frames[-1] == (n - 1).to_bytes(2, "big")
    clk, dio = Net("clk"), Net("dio")
    tm = TM1637Device(clk, dio)
    drv = TM1637(clk.pin(), dio.pin(), delay_us=0)
    for k in range(n):
        drv._command(0x80 | k & 0x0F)           # one byte a transaction
    assert len(tm.log) == KEEP and tm.log[-1] == [0x80 | (n - 1) & 0x0F]
    assert tm.log[0] == [0x80 | (n - KEEP) & 0x0F]


def test_the_simulators_models_keep_no_history():
    from board import config
    for name in sorted(config.BUILDS):
        buses, pin, models = fake_board(config.BUILDS[name], keep=0)
        assert {m.keep for m in models} == {0}, name


IDLE = """
import gc
import simboard
s = simboard.Sim(2, %r)
s.run_to(3000)                  # the start-up pages over: the game, idle
gc.collect()
seen = [gc.mem_alloc()]
for k in range(%d):
    s.run_to(s.now + %d)
    gc.collect()
    seen.append(gc.mem_alloc())
print(seen)
"""


@pytest.mark.parametrize("build", ["tm1637", "max7219", "ht16k33", "oled4", "oled8"])
def test_an_idle_board_keeps_a_flat_heap_under_micropython(build):
    """A simulated minute idle, the heap sampled every 20 s after a collection:
    the last sample within 5 % of the first (while the models kept every
    transaction, each sample was larger than the last, until the heap ran out)."""
    res = check(code=IDLE % (build, 3, 20000), path=(TOOLS, FAKES, MODELS, FIRMWARE), timeout=600)
    seen = ast.literal_eval(res.out.strip().splitlines()[-1])
    assert abs(seen[-1] - seen[0]) <= seen[0] * 0.05, seen
