"""Device entry: make the board, run the scoreboard under the watchdog."""
import time

import machine

from app import watchdog
from board import factory

wd = watchdog.shared(machine.WDT, machine.Timer)   # the one boot.py started
wd.start()
app = factory.make(watchdog=wd)
watchdog.run(lambda: app.run(time.ticks_ms, time.sleep_ms, ticks_us=time.ticks_us), wd)
