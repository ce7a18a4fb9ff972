"""Device entry: make the board, run the scoreboard under the watchdog."""
import time

import machine

from app import watchdog
from board import factory

wd = watchdog.shared(machine.WDT, machine.Timer)   # the one boot.py started
wd.start()
app = factory.make(watchdog=wd)
try:
    import network      # only the Pico W's firmware has it: hall mode (docs/HALL.md)
except ImportError:
    network = None
if network is not None:
    from net import board as hall_board
    hall_board.start(app, network)
watchdog.run(lambda: app.run(time.ticks_ms, time.sleep_ms, ticks_us=time.ticks_us), wd)
