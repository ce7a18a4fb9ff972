"""Device entry: make the board, run the scoreboard under the watchdog."""
import gc
import time

import machine

from app import watchdog
from board import factory

wd = watchdog.shared(machine.WDT, machine.Timer)   # the one boot.py started
wd.start()
app = factory.make(watchdog=wd)
print("cowboy: made %d" % time.ticks_ms())   # the wiring check shows; the journal is next
try:
    import network      # only the Pico W's firmware has it: hall mode (docs/HALL.md)
except ImportError:
    network = None
if network is not None:
    from net import board as hall_board
    hall_board.start(app, network)


def report():
    """Boot report, once the game is resumed (read by tools/bench_pico.py)."""
    print("cowboy: up %d free=%d alloc=%d" % (time.ticks_ms(), gc.mem_free(), gc.mem_alloc()))


watchdog.run(lambda: app.run(time.ticks_ms, time.sleep_ms, ticks_us=time.ticks_us,
                             started=report), wd)
