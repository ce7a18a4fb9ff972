"""The hardware watchdog, fed by the main loop, and kept quiet for USB tools.

The rp2 watchdog cannot be stopped and survives the soft reset mpremote makes before it works, so
a Timer keeper feeds it every KEEP_MS from boot.py on and whenever the main loop is interrupted
(`release()`); the main loop takes over (`take()`, then `feed()` each pass), and a loop that hangs
resets the board in TIMEOUT_MS. A file NO_WATCHDOG at the root keeps it off. The `machine`
classes are passed in (boot.py/main.py own the `machine` import). The sequence with the tools:
docs/DEPLOY.md, "The watchdog".
"""
import os

NO_WATCHDOG = "nowdt"


class Watchdog:
    TIMEOUT_MS = 8000     # rp2 allows up to 8388
    KEEP_MS = 1000        # keeper period: a missed tick or two still leaves margin

    def __init__(self, wdt_class, timer_class, root="/"):
        self._wdt_class = wdt_class
        self._timer_class = timer_class
        self.root = root
        self.wdt = None
        self.looping = False
        self._timer = None
        self._keep_cb = self._keep        # bound once: the timer calls it in an IRQ

    def disabled(self):
        try:
            os.stat(self.root + NO_WATCHDOG)
            return True
        except OSError:
            return False

    def start(self):
        """Start (or re-arm after a soft reset) the watchdog with the keeper feeding.

        Returns False when the NO_WATCHDOG file keeps it off.
        """
        if self.disabled():
            return False
        if self.wdt is None:
            self.wdt = self._wdt_class(timeout=self.TIMEOUT_MS)
        self.wdt.feed()
        self._keeper(True)
        self.looping = False
        return True

    def take(self):
        """The main loop feeds from now on; the keeper stops."""
        self._keeper(False)
        w = self.wdt
        self.looping = w is not None
        if w is not None:
            w.feed()

    def feed(self):
        """Once per pass of the main loop (allocation-free)."""
        if self.looping:
            self.wdt.feed()  # pyright: ignore[reportOptionalMemberAccess]  looping: take() found one

    def release(self):
        """The main loop stopped on purpose (KeyboardInterrupt): keep the board up."""
        self.looping = False
        if self.wdt is not None:
            self.wdt.feed()
            self._keeper(True)

    def _keeper(self, on):
        if self._timer is not None:
            self._timer.deinit()
            self._timer = None
        if on and self.wdt is not None:
            t = self._timer_class(-1)
            try:
                t.init(mode=t.PERIODIC, period=self.KEEP_MS, callback=self._keep_cb,
                       hard=True)
            except TypeError:       # a port whose Timer has no hard callbacks
                t.init(mode=t.PERIODIC, period=self.KEEP_MS, callback=self._keep_cb)
            self._timer = t

    def _keep(self, timer):
        self.wdt.feed()  # pyright: ignore[reportOptionalMemberAccess]  the keeper runs with one


_shared = None


def shared(wdt_class, timer_class, root="/"):
    """The one Watchdog of this boot: boot.py and main.py both get it from here."""
    global _shared
    if _shared is None:
        _shared = Watchdog(wdt_class, timer_class, root)
    return _shared


def run(main, wd):
    """Run the main loop `main()` under the watchdog `wd` (main.py's entry).

    Ctrl-C (a person or mpremote) hands feeding back to the keeper and returns to
    the REPL; any other exception stops the feeding, so the board resets and
    resumes from the journal.
    """
    wd.take()
    try:
        main()
    except KeyboardInterrupt:
        wd.release()
        raise
