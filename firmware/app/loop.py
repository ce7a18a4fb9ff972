"""The main loop: input poll -> panel -> game (through the journal) -> displays.

`app.assemble()` (app/__init__.py) makes the application from its parts (real
ones from factory.py on the Pico, fakes in the simulator and the tests); `App.step(now)`
is one pass of the loop with the time passed in, so the simulator and the tests
drive it in simulated time. A pass allocates nothing, except the rare idle pass
that writes a journal checkpoint when the players pause (docs/ARCHITECTURE.md,
"Main loop", step 5).
"""
import gc

from board import config
from views import ui

from ticks import ticks_diff

try:                                    # MicroPython: the hot path runs with the heap locked
    from micropython import heap_lock, heap_unlock
    LOCKS = True
except ImportError:                     # CPython (the simulator, the tools; its stand-in
    LOCKS = False                       # tools/micropython.py has const() only): nothing to lock

    def heap_lock() -> int:
        return 0

    def heap_unlock() -> int:
        return 0


class App:
    """One scoreboard: `game`, `panel` (app.panel.Panel), `inputs`
    (input.build.Input), `screens` (display.screens.Screens), optional `buzzer`
    (app.buzzer.Buzzer), `journal` (app.journal.Journal), `watchdog`."""

    UPDATE_MS = 20         # the loop calls screens.update() at least this often
    SETTLE_WAIT_MS = 60    # ... and no later than this while a key settles
    AWAIT_MS = 4           # a key's confirmation this close is awaited without passes
    QUIET_MS = 1500        # no key for this long: a due journal checkpoint is written

    def __init__(self, game, inputs, screens, root=None, settings=None, pwm=None,
                 watchdog=None, board=None, shown_at=None):
        """The application around the parts app.assemble() made (`game`, `inputs`,
        `screens`), with its own: the settings (`settings`, else those saved under
        `root`), the journal under `root` (None: nothing kept), the buzzer on `pwm`,
        the panel, told the display build's name `board` (board.config.BUILDS) if known;
        `shown_at`: when the board began to show the wiring check (ms clock), if it
        did before start()."""
        from app.panel import Panel
        from app.settings import Settings
        from app.buzzer import Buzzer
        if settings is None:
            settings = Settings("/" if root is None else root)
            if root is not None:
                settings.load()
        journal = None
        if root is not None:
            from app.journal import Journal
            journal = Journal(game, root)
        buzzer = Buzzer(pwm) if pwm is not None else None
        panel = Panel(game, settings, buzzer=buzzer, journal=journal)
        panel.bind(inputs.names)
        if board is not None:
            panel.board(board)      # its name at start-up and in the menu, its seats
        screens.hold = inputs.buttons.settling    # a key being confirmed: no refresh slice
        self.game = game
        self.panel = panel
        self.inputs = inputs
        self.screens = screens
        self.buzzer = buzzer
        self.journal = journal
        self.watchdog = watchdog
        self.frame_at = 0
        self.event_at = 0          # the last input event (a checkpoint waits for quiet)
        self.checkpoints = 0       # journal checkpoints written
        self.passes = 0
        self.wrote = False         # the last pass wrote to flash
        self.worst_us = 0          # longest pass without a flash write (run() with ticks_us)
        self.worst_write_us = 0    # longest pass with one
        self.save_errors = 0
        self.persist = root is not None    # save settings changed in the menu
        self.net = None            # hall publisher (net/hall.py, Pico W): after_action, poll
        self.shown_at = shown_at   # when the wiring check was drawn, if before start()
        self.resumed_at = None     # run(): when the journal was read back (ms clock)
        # Under MicroPython the keys' work and the display passes run with the heap
        # locked (docs/PERFORMANCE.md, "Frames on the heap"): a function's frame then
        # goes on the C stack instead of the heap, and an allocation is an error.
        self.locked = LOCKS
        self.lock_errors = 0       # MemoryErrors under the lock (then it is off)

    def start(self, now):
        """Show the wiring check at once (each display its player number), then
        resume the journaled game (or start one): the displays come up before a
        long journal is read back (about 1 ms an action on the RP2040), and keys
        pressed meanwhile wait in the input layer."""
        s = self.panel.settings
        screens = self.screens
        if screens is not None:             # the panel starts in MODE_HELLO
            screens.settle(self.game, self.panel, now)
        resumed = False
        if self.journal is not None:
            self.journal.resume(s.players, s.opener, s.rules)
            resumed = True
            self._load_names(self.journal.root)
        self.panel.start(now, resumed, self.shown_at)
        self.game.live = True     # from now on snapshots wait for keep() (cowboy/game.py)
        self.frame_at = now
        self.event_at = now
        if self.screens is not None:
            self.screens.update(self.game, self.panel, now)

    def step(self, now):
        """One pass: take the events, draw, store, then the encoders, the watchdog
        and the network (docs/ARCHITECTURE.md, "Main loop").

        Work per pass is bounded: the displays do one slice (display/screens.py),
        and an action's record goes to flash only once the displays show it
        (journal.pending -> sync); until then further events wait in the ring, so
        at most one action is ever shown but not yet stored. While an action's
        answer goes out (its record held, the displays busy) a pass is the
        displays' alone: the keys' edges wait in the interrupts' ring (with their
        times), the encoders' counts in PIO, the time-driven panel work for the
        next full pass; the answer's second display goes out a pass sooner.

        The phases run on every pass or on a key's way to the displays are written
        out, not methods: this method runs unlocked, where a method's frame past
        11 words comes from the heap (docs/PERFORMANCE.md, "Calls written out").
        What runs now and then is a method: a flash write, a redraw unlocked."""
        inputs = self.inputs
        panel = self.panel
        journal = self.journal
        screens = self.screens
        seen = False
        answering = journal is not None and journal.pending and \
            screens is not None and screens.busy
        locked = self.locked
        # ---- take the events (written out: on a key's way to the displays) ----
        if not answering:
            # (each finally unlocks at its first instruction: a Ctrl-C is raised at
            # the next jump, and one before heap_unlock() would leave the heap locked)
            if locked:
                heap_lock()
                try:
                    inputs.buttons.poll(now)
                finally:
                    heap_unlock()
            else:
                inputs.buttons.poll(now)
            acted = False
            if journal is None or not journal.pending:
                ring = inputs.ring
                ev = ring.get()
                while ev:
                    seen = True
                    self.event_at = now
                    # a stroke, an undo, a redo: locked; the menus and the desk's
                    # offers make their objects, and are not
                    if locked and panel.mode == ui.MODE_GAME:
                        heap_lock()
                        try:
                            panel.event(ev, ring.time)
                        finally:
                            heap_unlock()
                    else:
                        panel.event(ev, ring.time)
                    if journal is not None and journal.pending:
                        acted = True
                        break             # shown first, stored next, then the next event
                    ev = ring.get()
            if not acted:
                # (after an action its answer first: the time-driven work waits
                # for the next pass, as in the passes that send the answer)
                panel.tick(now)
        # ---- draw (written out: on a key's way to the displays) ----
        busy = False
        self.wrote = False
        if screens is not None:
            if seen:
                screens.wake(now)
            due = ticks_diff(now, self.frame_at)
            # While a key settles its event is a few passes away: periodic frames
            # (pages, blinking, refresh slices) wait for it, within limits, so the
            # pass that confirms the key is a short one.
            if seen or screens.busy or due >= self.UPDATE_MS and \
                    (due >= self.SETTLE_WAIT_MS or not inputs.buttons.settling()):
                self.frame_at = now
                # (answering: nothing could change the game or the panel since
                # the last update, which the screens then need not look for)
                if locked:
                    failed = False
                    heap_lock()
                    try:
                        screens.update(self.game, panel, now, answering)
                    except MemoryError:
                        failed = True
                    finally:
                        heap_unlock()
                    if failed:
                        self._draw_unlocked(now)
                else:
                    screens.update(self.game, panel, now, answering)
            busy = screens.busy
        if self.buzzer is not None:
            self.buzzer.update(now)       # after the displays: a beep can wait 1 ms
        # ---- store (once the displays show it; each write a method: it takes ms) ----
        if not busy:
            self.game.keep()              # the last action's undo snapshot
            if journal is not None and journal.pending:
                self._store_action(journal)
            elif panel.settings_dirty and panel.mode != ui.MODE_MENU:
                self._store_settings()
            elif panel.names_dirty and panel.mode != ui.MODE_MENU:
                self._store_names(journal)
            elif (journal is not None and journal.checkpoint_due()
                  and self.paused(now) and not self.inputs.buttons.settling()):
                self._store_checkpoint(journal)
        # ---- the encoders, the watchdog, the network (written out: every pass) ----
        # The encoders last: reading them (every few ms) does not delay a key's
        # answer in the pass that accepts it; their turns are taken next pass.
        # Nor while the answer of an action taken in this pass still goes out
        # (the next pass is the displays' alone): the counts wait in PIO.
        if not answering and not (busy and journal is not None and journal.pending):
            inputs.encoders.poll(now)
        if self.watchdog is not None:
            self.watchdog.feed()
        if self.net is not None and self.idle() and not inputs.buttons.active():
            # network work only when nothing else waits and no key is down: a
            # client step takes some 5 ms on the RP2040 and cannot be cut short
            self.net.poll(now)
        self.passes += 1

    def _draw_unlocked(self, now):
        """A display pass allocated under the heap lock after all: the lock is off
        from now on (slower passes, not a lost game) and the displays are drawn
        again without it."""
        self.locked = False
        self.lock_errors += 1
        self.screens.wake(now)
        self.screens.update(self.game, self.panel, now)

    def _store_action(self, journal):
        """The held record of the action the displays show, to flash; in hall mode
        the publisher told of it."""
        self.wrote = True
        journal.sync()
        if journal.failed:
            self.panel.note = ui.NOTE_STORAGE
            self.panel.version += 1
        elif self.net is not None:
            self.net.after_action(journal.records, journal.last_record())

    def _store_settings(self):
        """The settings changed in the menu, once it is left."""
        self.panel.settings_dirty = False
        if self.persist:
            self.wrote = True
            self._save()

    def _store_names(self, journal):
        """The names beside the journal (app/playernames.py), once the menu is
        left; then the hall's copy."""
        self.panel.names_dirty = False
        if journal is not None and not journal.failed:
            self.wrote = True
            self._save_names(journal.root)
        if self.net is not None:
            self.net.names_changed()

    def _store_checkpoint(self, journal):
        """The game's image on flash, so that a reset replays only the records
        after it (docs/JOURNAL.md, "Checkpoint"): when the players have paused, as
        it reads the journal, allocates and erases some blocks; its garbage is
        collected at once."""
        self.wrote = True
        if journal.checkpoint():
            self.checkpoints += 1
        gc.collect()

    def paused(self, now):
        """True once the players have paused (no input event for QUIET_MS): the
        moment for the work that stalls the chip and can wait, the journal's
        checkpoint here, the hall's collection and hall.ack (net/hall.py)."""
        return ticks_diff(now, self.event_at) >= self.QUIET_MS

    def idle(self):
        """True when nothing waits: no display work, no record to store, no key
        edge being debounced (its event is due within milliseconds)."""
        if self.screens is not None and self.screens.busy:
            return False
        if self.inputs.buttons.settling():
            return False
        return self.journal is None or not self.journal.pending

    def _save(self):
        try:
            self.panel.settings.save()
        except OSError:
            self.save_errors += 1
            self.panel.note = ui.NOTE_STORAGE
            self.panel.version += 1

    def _load_names(self, root):
        """The names kept beside the journal (app/playernames.py, imported only
        when there is a names file: a plain game never loads it)."""
        import os
        from app.journalformat import NAMES
        try:
            os.stat(root + NAMES)
        except OSError:
            return
        from app import playernames
        self.panel.names = playernames.load(root, self.game.players)
        self.panel.version += 1

    def _save_names(self, root):
        names = self.panel.names
        try:
            if not any(names):          # no names: no file (nothing to import)
                import os
                from app.journalformat import NAMES
                os.remove(root + NAMES)
                return
            from app import playernames
            playernames.save(root, names, self.game.players)
        except OSError:
            if not any(names):
                return                  # there was none
            self.save_errors += 1
            self.panel.note = ui.NOTE_STORAGE
            self.panel.version += 1

    def start_offer(self, players, opener, rules=0, names=None):
        """Start a game given from elsewhere (the desk's offer, accepted on the
        panel): app.panel.Panel.start_game() with the same arguments (`opener`
        0-based, `names` a list of str or None per seat); returns 0 once started,
        else the rules core's code; ValueError for names cowboy/names.py refuses.
        The names are saved beside the journal in the loop's next flash step and
        published with the game in hall mode."""
        return self.panel.start_game(players, opener, rules, names)

    def run(self, ticks_ms, sleep_ms, period_ms=1, ticks_us=None, started=None):
        """The device's endless loop: a pass every `period_ms` when idle, at once
        while work waits. With `ticks_us`, the longest passes are kept in
        `worst_us` / `worst_write_us` (read them over the REPL, docs/PERFORMANCE.md).
        `started()` is called once the game is resumed and shown (the first
        moment nothing waits), after the start-up garbage is collected."""
        self.start(ticks_ms())
        self.resumed_at = ticks_ms()
        # Start-up garbage (imports, the journal's resume) goes at the first moment
        # nothing waits: once the displays show what start() gave them (on an OLED
        # build a resumed game, drawn at once when the resume outlasted the wiring
        # check's 400 ms), which then does not wait for it (some 40 ms on the chip).
        # A pass allocates nothing, so nothing is collected before; and on the chip
        # a collection left for later stalled a key's update by some 10 ms.
        collect = True
        while True:
            if ticks_us is None:
                self.step(ticks_ms())
            else:
                t0 = ticks_us()
                self.step(ticks_ms())
                d = ticks_diff(ticks_us(), t0)
                if self.wrote:
                    if d > self.worst_write_us:
                        self.worst_write_us = d
                elif d > self.worst_us:
                    self.worst_us = d
            if self.idle():
                if collect:
                    collect = False
                    gc.collect()
                    if started is not None:
                        started()
                        gc.collect()
                    continue
                sleep_ms(period_ms)
            else:
                self._await_key(ticks_ms)

    def _await_key(self, ticks_ms):
        """When only a key's confirmation is awaited (no display work, no record
        to store), wait for its moment here instead of in passes of the loop: the
        pass that accepts it then starts at once, not up to a pass later."""
        if (self.screens is not None and self.screens.busy) or \
                (self.journal is not None and self.journal.pending):
            return
        buttons = self.inputs.buttons
        at = buttons.due()
        if at < 0 and buttons.settling():
            # edges caught during the last pass: replayed now, so that their moment
            # is known here (else a pass goes by first, and a long one, such as a
            # refresh slice's, could end after that moment)
            buttons.poll(ticks_ms())
            at = buttons.due()
        if at < 0 or ticks_diff(at, ticks_ms()) > self.AWAIT_MS:
            return
        while ticks_diff(at, ticks_ms()) > 0:
            pass


encoders = config.encoders      # (the tools' and the page's name for it)
