"""System parts of `machine` on the host: watchdog, timers, PWM, reset, clocks.

Time is simulated: nothing happens until a test calls `advance(ms)`, which fires
due timer callbacks in order and lets the watchdog bite when it was not fed in
time. The rp2 facts modelled: a started WDT cannot be stopped or slowed down, and
a soft reset (Ctrl-D, as mpremote does) stops every Timer but not the WDT.
"""

WDT_MAX_MS = 8388           # rp2: the longest watchdog timeout


class Board:
    """What the system is doing: the simulated clock, the timers, resets."""

    def __init__(self):
        self.now = 0               # ms since power-up
        self.timers = []
        self.wdt_deadline = -1     # ms at which the watchdog resets the board; -1 off
        self.wdt_timeout = 0
        self.wdts = 0              # WDT objects created
        self.resets = 0            # watchdog or machine.reset() resets
        self.soft_resets = 0
        self.freq = 125000000
        self.tones = []            # (ms, pin, freq, duty_u16): the last TONES PWM changes

    def advance(self, ms):
        """Let `ms` milliseconds pass, one millisecond at a time."""
        end = self.now + ms
        while self.now < end:
            self.now += 1
            for t in list(self.timers):
                if t._due is not None and self.now >= t._due:
                    if t._mode == Timer.PERIODIC:
                        t._due += t._period
                    else:
                        t._due = None
                        self.timers.remove(t)
                    t._callback(t)
            if self.wdt_deadline >= 0 and self.now >= self.wdt_deadline:
                self.hard_reset()

    def hard_reset(self):
        """Everything stops and starts again; the watchdog is off after a reset."""
        self.resets += 1
        self.timers = []
        self.wdt_deadline = -1

    def soft_reset(self):
        """Ctrl-D: timers stop, the watchdog keeps counting."""
        self.soft_resets += 1
        for t in list(self.timers):
            t.deinit()


board = Board()


def power_on():
    """A fresh board (for a new test)."""
    global board
    board = Board()
    return board


class WDT:
    def __init__(self, id=0, timeout=5000):
        if timeout > WDT_MAX_MS:
            raise ValueError("timeout too long")
        board.wdts += 1
        board.wdt_timeout = timeout
        board.wdt_deadline = board.now + timeout

    def feed(self):
        if board.wdt_deadline >= 0:
            board.wdt_deadline = board.now + board.wdt_timeout


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kw):
        self._due = None
        if kw:
            self.init(**kw)

    def init(self, mode=PERIODIC, period=-1, freq=-1, callback=None, hard=False):
        if freq > 0:
            period = 1000 // freq
        self.deinit()
        self._mode = mode
        self._period = max(1, period)
        self._callback = callback
        self._hard = hard
        self._due = board.now + self._period
        board.timers.append(self)

    def deinit(self):
        self._due = None
        if self in board.timers:
            board.timers.remove(self)

    def running(self):
        return self._due is not None


TONES = 64


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self._log()

    def _log(self):
        t = board.tones
        if len(t) >= TONES:         # only the latest: a long game must not fill the heap
            del t[0]
        t.append((board.now, self.pin, self._freq, self._duty))

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        self._log()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        self._log()

    def deinit(self):
        self._duty = 0
        self._log()


class Reset(Exception):
    """machine.reset() on the host: the program stops here."""


def reset():
    board.hard_reset()
    raise Reset()


def soft_reset():
    board.soft_reset()


def freq(hz=None):
    if hz is None:
        return board.freq
    board.freq = hz


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x2b\x5c\x29"
