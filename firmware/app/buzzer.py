"""Optional piezo buzzer on a PWM pin: short sounds that never block the loop.

`tick()` for an accepted key, `refuse()` for a refused one, `fanfare()` for the win.
Each starts a tone sequence that `update(now_ms)` steps through from the main
loop; a new sound replaces the one playing. Sequences are preallocated arrays of
(frequency Hz, duration ms) pairs, frequency 0 being a rest.
"""
from array import array

from ticks import ticks_add, ticks_diff

_TICK = array("H", (2400, 12))
_REFUSE = array("H", (330, 90, 0, 40, 250, 140))
_FANFARE = array("H", (523, 110, 0, 20, 659, 110, 0, 20, 784, 110, 0, 20,
                       1047, 280, 0, 40, 784, 110, 1047, 420))


class Buzzer:
    """Plays tone sequences on a PWM object (`freq(hz)`, `duty_u16(v)`)."""

    DUTY = 32768          # half duty: loudest square wave for a piezo
    TICK = _TICK
    REFUSE = _REFUSE
    FANFARE = _FANFARE

    def __init__(self, pwm):
        self.pwm = pwm
        self.seq = None
        self.index = 0        # index of the pair playing
        self.t0 = 0           # when it started
        self.pending = False  # a sequence was requested and starts at the next update
        self.muted = pwm is None
        if pwm is not None:
            pwm.duty_u16(0)

    def _start(self, seq):
        if self.muted:
            return
        self.seq = seq
        self.index = 0
        self.pending = True

    def tick(self):
        # (_start() written out: docs/PERFORMANCE.md, "Calls written out")
        if not self.muted:
            self.seq = self.TICK
            self.index = 0
            self.pending = True

    def refuse(self):
        self._start(self.REFUSE)

    def fanfare(self):
        self._start(self.FANFARE)

    def playing(self):
        return self.seq is not None

    def _tone(self, hz):
        if hz:
            self.pwm.freq(hz)
            self.pwm.duty_u16(self.DUTY)
        else:
            self.pwm.duty_u16(0)

    def update(self, now):
        """Start, advance or end the sequence; call often (every loop pass)."""
        seq = self.seq
        if seq is None:
            return
        if self.pending:
            self.pending = False
            self.t0 = now
            self._tone(seq[0])
            return
        while ticks_diff(now, self.t0) >= seq[self.index + 1]:
            self.t0 = ticks_add(self.t0, seq[self.index + 1])
            self.index += 2
            if self.index >= len(seq):
                self.seq = None
                self.pwm.duty_u16(0)
                return
            self._tone(seq[self.index])
