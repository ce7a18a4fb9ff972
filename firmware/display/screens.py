"""All players' displays as one object the main loop calls (docs/DISPLAYS.md, "The display set").

    screens = build(config.selected(), buses, pin)   # at start-up
    screens.update(game, panel, now_ms)   # each pass: a seat rendered, a slice of bus work
    screens.busy          # True: call again next pass, changed content is not yet sent
    screens.wake(now_ms)  # on any key: the OLEDs undim

Nothing here allocates after construction; a failing display is retried, the others carry on.
"""
from ticks import ticks_diff, ticks_add

TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)
if TYPE_CHECKING:
    from typing import Callable, Optional

from draw.text import Text
from views.seat import Seat, Context
from draw.blit import blit
from views.ui import MAX_BRIGHTNESS

KIND_4DIGITS = 4
KIND_8DIGITS = 8
KIND_OLED = 64

# Columns the OLED picture moves right, in turn, against burn-in. (Vertically the
# layout has no spare row: the status line, big digits and item line fill 64 rows.)
SHIFTS = (0, 1, 2, 1)


class Screens:
    hold: "Optional[Callable[[], bool]]"   # see __init__
    REFRESH_MS = 4000     # each display re-initialised and resent this often
    RETRY_MS = 3000       # a failed display is tried again after this long
    DIM_MS = 120000       # OLEDs dim after this long without a key or a change
    DIM_LEVEL = 1         # OLED brightness while dimmed (0-15)
    SHIFT_MS = 90000      # OLED content moves by a column this often
    RENDER_MS = 40        # at most one render per this long, unless game or panel changed

    def __init__(self, displays):
        """`displays`: one driver per seat, player 1 first (None: no display)."""
        self.displays = displays
        n = len(displays)
        self.count = n
        self.seats = [Seat(i) for i in range(n)]
        self.kinds = bytearray(n)
        self.layouts = []
        self.shown = []            # the text last rendered per seat
        cells = None
        for i in range(n):
            d = displays[i]
            if hasattr(d, "show"):         # an OLED (draw/cells.py Picture): text cells
                self.kinds[i] = KIND_OLED
                from views import oled as oledview       # only the layouts a build uses
                lay = oledview.LayoutOLED()
                if cells is None:
                    from draw.cells import Cells
                    cells = Cells(oledview.OLED_CELLS, oledview.OLED_TEXT, oledview.OLED_INV,
                                  oledview.OLED_MARK_X)
                d.layout(cells)
            elif d is not None and d.digits >= 8:
                self.kinds[i] = KIND_8DIGITS
                from views.digits import Layout8Digits
                lay = Layout8Digits()
            else:
                self.kinds[i] = KIND_4DIGITS
                from views.digits import Layout4Digits
                lay = Layout4Digits()
            self.layouts.append(lay)
            self.shown.append(Text(lay.text.size))
        self.ctx = Context()
        self.seven = n > 0     # every seat has a seven-segment display
        for i in range(n):
            if displays[i] is None or self.kinds[i] == KIND_OLED:
                self.seven = False
        self.failed = 0            # bit i: display i failed and waits for a retry
        self.errors = bytearray(n)  # failures per display (saturating)
        self.retry_at = [0] * n
        self.dirty = bytearray(n)  # 1: hand the text over even if it is the same
        self.changed = bytearray(n)  # 1: the driver holds content not yet sent
        self._none = bytes(n)        # `changed` with nothing in it
        self.levels = bytearray(b"\xff" * n)  # brightness last given to each driver
        self._sig = [0] * 5         # what a key or a stroke changes
        self.prev_shooter = -1      # who was at the table before the last change
        self.left = -1              # who left the table in this frame's change (-1: none)
        self._force = True
        self.frame_at = 0
        self.level = 8
        self.last_input = 0
        self.dimmed = False
        self.shift = 0
        self.shift_at = 0
        self.refresh_at = 0
        self.refresh_next = 0
        self.refreshing = -1       # display under periodic refresh, -1: none
        self.to_render = 0         # bit i: seat i still to render in this frame
        self.urgent = False        # the frame follows a change: busy until rendered
        self.started = False
        self.busy = False          # changed content not yet fully sent
        self.settling = False      # in settle(): an OLED's slice is all it has to send
        self.holding = False       # in settle(): render every seat, no bus work yet
        # a function: True while a key's edge is being confirmed (the loop gives
        # input.buttons.Buttons.settling): the periodic refresh's slices wait then,
        # so that the key's answer finds the bus free
        self.hold = None

    def wake(self, now_ms):
        """A key was pressed: OLEDs come back to full brightness."""
        self._force = True

    def _start(self, now_ms):
        self.started = True
        self.last_input = now_ms
        self.shift_at = now_ms
        # every display is drawn whole now: the periodic refresh starts REFRESH_MS
        # later (not in the start-up's busiest second, the journal's resume)
        self.refresh_at = ticks_add(now_ms, self.REFRESH_MS - self.REFRESH_MS // (self.count or 1))
        for i in range(self.count):
            self.dirty[i] = 1

    def update(self, game, panel, now_ms, same=False):
        """Render what changed, then at most one slice of bus work (see above).
        `same`: the caller knows that neither the game nor the panel changed
        since the last call, and no wake() came (a pass that only sends an
        action's answer): the look for a change is skipped."""
        if not self.started:
            self._start(now_ms)
        if panel is not None and panel.settings is not None:
            b = panel.settings.brightness
            self.level = 0 if b < 0 else (MAX_BRIGHTNESS if b > MAX_BRIGHTNESS else b)
        if not same and self._activity(game, panel, now_ms):
            if self.left == -2:
                self.left = self.prev_shooter      # the shooter changed just now
            else:
                self.left = -1
            if game is not None:
                self.ctx.update(game, now_ms)   # read by the seats: only the game changes it
            self._frame(now_ms, True)
        elif not self.to_render and ticks_diff(now_ms, self.frame_at) >= self.RENDER_MS:
            self._frame(now_ms, False)
        if self.count and self.refreshing < 0 and \
                ticks_diff(now_ms, self.refresh_at) >= self.REFRESH_MS // self.count:
            self.refresh_at = now_ms
            i = self.refresh_next
            self.refresh_next = i + 1 if i + 1 < self.count else 0
            if self.displays[i] is not None and not self.failed >> i & 1:
                self.refreshing = i
                if self.kinds[i] == KIND_OLED:
                    self.displays[i].refresh(True)   # changed columns may go first
        # After a change the two displays a stroke changes (the player at the table,
        # then the one who just left it) go first, both in this call when they are
        # seven-segment ones (renders and frames: a few ms in all). Seven-segment
        # builds render both, then send (a chain of MAX7219s then carries both
        # modules' changed rows in the same frames). Otherwise, in a frame after a
        # change, once those two are rendered their bus work goes before the other
        # seats' renders (an OLED seat costs about 1 ms).
        if self.holding:
            while self.to_render:
                self._render_next(game, panel, now_ms)
            self.busy = True
            return
        if self.urgent and self.seven:
            for k in range(2):
                if self.to_render:
                    self._render_next(game, panel, now_ms)
            self._slice(game, now_ms)
            if self.changed != self._none:
                self._slice(game, now_ms)
        else:
            for k in range(2 if self.urgent else 1):
                if self.to_render and (not self.urgent or self._render_first(game)):
                    self._render_next(game, panel, now_ms)
                if k == 0:
                    kind = self._slice(game, now_ms)
                    if kind == KIND_OLED or not (self.to_render or
                                                 self.changed != self._none):
                        break
                else:
                    self._slice(game, now_ms)
        busy = self.to_render != 0 and self.urgent
        if not busy and self.changed != self._none:   # (a C comparison: cheap)
            for i in range(self.count):
                if self.changed[i] and (not self.failed >> i & 1 or
                                        ticks_diff(now_ms, self.retry_at[i]) >= 0):
                    busy = True
        self.busy = busy

    def settle(self, game, panel, now_ms):
        """Update until every display shows its view (start-up only: unbounded
        work, up to a full refresh of every display: an OLED's slice is all it
        has to send, one stream on the Pico)."""
        self.settling = True
        try:
            # OLEDs on two I2C controllers: every seat rendered before any bus
            # work, so that two of them can be flushed at the same time (_work)
            self.holding = self._pairs()
            self.update(game, panel, now_ms)
            self.holding = False
            for _ in range(64 * self.count):
                if not self.busy:
                    return
                self.update(game, panel, now_ms)
        finally:
            self.settling = False

    def assume(self, now_ms):
        """Start-up, once display/hello.py played the recording of the wiring
        check (OLED builds): every seat rendered as settle(None, None, now_ms)
        renders it, and taken as what its panel shows; nothing is sent."""
        self.holding = True
        try:
            self.update(None, None, now_ms)
        finally:
            self.holding = False
        for i in range(self.count):
            if self.changed[i]:
                self.displays[i].assume()
                self.changed[i] = 0
        self.busy = False

    def _frame(self, now_ms, urgent):
        """A new frame: every seat is rendered again, one per call. `urgent`: after
        a change (it makes `busy`), else the periodic frame (pages, blinking)."""
        self.frame_at = now_ms
        self.urgent = urgent
        self.to_render = (1 << self.count) - 1
        # burn-in shift and dimming (OLEDs)
        if ticks_diff(now_ms, self.shift_at) >= self.SHIFT_MS:
            self.shift_at = now_ms
            self.shift += 1
            if self.shift >= len(SHIFTS):
                self.shift = 0
            for i in range(self.count):
                if self.kinds[i] == KIND_OLED:
                    self.dirty[i] = 1
        self.dimmed = ticks_diff(now_ms, self.last_input) >= self.DIM_MS

    def _activity(self, game, panel, now_ms):
        """True when a stroke, an undo or a key changed something since the last
        pass; that counts as input (OLEDs stay bright) and renders at once.
        (Written out rather than a helper per field, as it runs every pass:
        docs/PERFORMANCE.md, "Calls written out".)"""
        sig = self._sig
        n = 0
        if game is not None:
            v = game.shooter
            if sig[1] != v:
                self.prev_shooter = sig[1]
                self.left = -2
                sig[1] = v
                n = 1
            v = game.last
            if sig[0] != v:
                sig[0] = v
                n = 1
            v = game.inning
            if sig[2] != v:
                sig[2] = v
                n = 1
            v = game.players
            if sig[3] != v:
                sig[3] = v
                n = 1
        if panel is not None:
            v = panel.version
            if sig[4] != v:
                sig[4] = v
                n = 1
        if self._force:
            self._force = False
            n = 1
        if n:
            self.last_input = now_ms
        return n > 0

    def _render_first(self, game):
        """In a frame after a change: whether to render before a slice of bus work
        (the shooter, or the player who just left the table, is still to render,
        or no display has changed content it can send now)."""
        n = self.count
        i = game.shooter if game is not None else -1
        if 0 <= i < n and self.to_render >> i & 1:
            return True
        i = self.left
        if 0 <= i < n and self.to_render >> i & 1:
            return True
        if self.changed == self._none:
            return True
        for i in range(n):
            if self.changed[i] and not self.failed >> i & 1:
                return False
        return True

    def _render_next(self, game, panel, now_ms):
        """Render the next seat of the frame (the shooter, the previous shooter,
        then in seat order): its text; a changed text or level goes to its driver
        (no bus work). (One method, no helpers: docs/PERFORMANCE.md, "Calls written out".)"""
        i = game.shooter if game is not None else -1
        if i < 0 or i >= self.count or not self.to_render >> i & 1:
            i = self.prev_shooter
            if i < 0 or i >= self.count or not self.to_render >> i & 1:
                i = 0
                while not self.to_render >> i & 1:
                    i += 1
        self.to_render &= ~(1 << i)
        d = self.displays[i]
        if d is None:
            return
        seat = self.seats[i]
        seat.update(game, panel, self.ctx)
        text = self.layouts[i].render(seat, now_ms)
        shown = self.shown[i]
        kind = self.kinds[i]
        if self.dirty[i] or text.buf != shown.buf:     # (Text.same, .copy: no calls)
            blit(shown.buf, 0, text.buf, 0, shown.size, 0)
            self.dirty[i] = 0
            if kind == KIND_OLED:
                d.show(shown.buf, SHIFTS[self.shift])
                if d.pending():
                    self.changed[i] = 1
            else:
                d.text(shown.buf)
                self.changed[i] = 1
        level = self.level
        if kind == KIND_OLED and self.dimmed:
            level = self.DIM_LEVEL
        if level != self.levels[i]:
            self.levels[i] = level
            d.brightness(level)
            self.changed[i] = 1

    def _slice(self, game, now_ms):
        """One slice of bus work; returns the kind of display it went to (0: none)."""
        n = self.count
        if self.changed != self._none:
            # an OLED under its periodic refresh whose own change is sent waits
            # (r): the other displays' changes go before its remaining whole pages
            r = self.refreshing
            if r >= 0 and (self.kinds[r] != KIND_OLED or self.displays[r].changing()):
                r = -1
            first = game.shooter if game is not None else -1
            if first >= 0 and first < n and first != r and self.changed[first] and \
                    not self.failed >> first & 1:
                self._work(first, now_ms, False)
                return self.kinds[first]
            for i in range(n):
                if self.changed[i] and i != r and not self.failed >> i & 1:
                    self._work(i, now_ms, False)
                    return self.kinds[i]
        if self.failed:
            for i in range(n):
                if self.failed >> i & 1 and ticks_diff(now_ms, self.retry_at[i]) >= 0:
                    self._work(i, now_ms, True)
                    return self.kinds[i]
        i = self.refreshing
        if i >= 0 and (self.hold is None or not self.hold()):
            self._work(i, now_ms, self.kinds[i] != KIND_OLED)
            return self.kinds[i]
        return 0

    def _pairs(self):
        """Whether two displays can be flushed at the same time (OLEDs on two I2C
        controllers, chips/oled_fifo.py)."""
        d = self.displays
        for i in range(self.count):
            for j in range(i + 1, self.count):
                if d[i] is not None and self.kinds[i] == KIND_OLED and d[i].pairs_with(d[j]):
                    return True
        return False

    def _work(self, i, now_ms, full):
        """One slice for display i; `full`: re-initialise and resend it."""
        d = self.displays[i]
        if self.settling and self.kinds[i] == KIND_OLED and not full:
            for j in range(self.count):
                if j != i and self.changed[j] and not self.failed >> j & 1 and \
                        self.kinds[j] == KIND_OLED and d.pairs_with(self.displays[j]):
                    bad = d.flush_with(self.displays[j])
                    self._done(i, now_ms, bad & 1, False)
                    self._done(j, now_ms, bad & 2, False)
                    return
        try:
            if self.kinds[i] == KIND_OLED:
                if full:
                    d.refresh()
                if self.settling:
                    d.flush()
                else:
                    d.step()
            else:
                d.flush(full)
            bad = False
        except OSError:
            bad = True
        self._done(i, now_ms, bad, full)

    def _done(self, i, now_ms, bad, full):
        """After display i's slice: its failure or success noted."""
        more = False
        if not bad:
            more = self.kinds[i] == KIND_OLED and self.displays[i].pending()
            self.failed &= ~(1 << i)
        else:
            self.failed |= 1 << i
            if self.errors[i] < 255:
                self.errors[i] += 1
            self.retry_at[i] = ticks_add(now_ms, self.RETRY_MS)
            self.changed[i] = 1            # all of it goes again at the retry
            more = True
        if not more:
            self.changed[i] = 0
            if self.refreshing == i:
                self.refreshing = -1
        elif self.failed >> i & 1:
            if self.refreshing == i:
                self.refreshing = -1
        elif full:
            self.changed[i] = 1            # a retry found it: the rest as changed content
        elif i == self.refreshing and not self.displays[i].changing():
            # its change is sent; the rest is the periodic refresh's pages, which
            # go as refresh slices (waiting while a key settles): not busy
            self.changed[i] = 0


def build(build, buses, pin, native=None, burst=None):
    """Drivers for the displays of a board build, wrapped in a Screens.

    `build`: an entry of board.config.BUILDS ("buses", "displays").
    `buses`: bus name -> ready bus object (machine.I2C / SPI or a fake).
    `pin`: GPIO number -> ready pin object (a callable or a dict); called once per
    GPIO, the same object is used for a shared clock.
    `native`, `burst`: the Pico's driver modules and transport, as chips/build.py
    drivers() takes them (None: the portable ones; factory.py gives the Pico's).
    """
    from chips.build import drivers
    return Screens(drivers(build, buses, pin, native, burst))
