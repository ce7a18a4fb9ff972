# The hall client's long polls, for `make bench-pico-night PICO_STEPS=1` only: imported by
# the bench's boot.py after the firmware's own. Hall.poll is wrapped: a poll that took
# over 3 ms prints "POLL <ticks_ms> <us> <connected> <reading> <quiet>" (a step, the
# collection after an action, a flash write). The printing itself takes time: keys
# measured with it on are not the product's figures.
import time

from net import hall

_poll = hall.Hall.poll


def _watched(self, now):
    t = time.ticks_us()
    _poll(self, now)
    d = time.ticks_diff(time.ticks_us(), t)
    if d > 3000:
        print("POLL %d %d %d %d %d" % (time.ticks_ms(), d, self.connected,
                                       self._client.reading, self._quiet))


hall.Hall.poll = _watched
