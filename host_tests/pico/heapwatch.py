# The heap's samples of `make bench-pico-night` only: imported by the bench's boot.py
# after the firmware's own. `time` is replaced by a copy whose sleep_ms, the one the
# main loop calls when it is idle (app/loop.py run()), first takes a sample once
# every PERIOD_MS of the board's clock, OFFSET_MS into the period (between the
# bench's measured keys, which act PHASE_MS into 400 ms cycles): a collection, then
# "HEAP <ticks_ms> <free>" and micropython.mem_info() (its "max free sz"). Nothing
# else changes: every other name is the port's own.
import gc
import sys

import micropython
import time as _t

PERIOD_MS = 60000
OFFSET_MS = 250


class time:                     # what `import time` finds (sys.modules)
    pass


for _name in dir(_t):
    if not _name.startswith("__"):
        setattr(time, _name, getattr(_t, _name))

_next = [PERIOD_MS + OFFSET_MS]


def _sleep_ms(ms):
    now = _t.ticks_ms()
    if _t.ticks_diff(now, _next[0]) >= 0:
        _next[0] = (now // PERIOD_MS + 1) * PERIOD_MS + OFFSET_MS
        gc.collect()
        print("HEAP %d %d" % (now, gc.mem_free()))
        micropython.mem_info()
    _t.sleep_ms(ms)


time.sleep_ms = _sleep_ms
sys.modules["time"] = time
