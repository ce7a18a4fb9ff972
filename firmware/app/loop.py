"""The main loop: input poll -> panel -> game (through the journal) -> displays.

`make()` assembles the application from ready parts (real ones from
board/factory.py on the Pico, fakes in the simulator and the tests); `App.step(now)`
is one pass of the loop with the time passed in, so the simulator and the tests
drive it in simulated time. A pass allocates nothing.
"""
from board import config
from cowboy.game import Game
from display import ui
from app.panel import Panel

from ticks import ticks_diff


class App:
    """One scoreboard: `game`, `panel`, `inputs` (input.build.Input), `screens`
    (display.screens.Screens), optional `buzzer`, `journal`, `watchdog`."""

    FRAME_MS = 20          # displays are brought up to date at least this often

    def __init__(self, game, panel, inputs, screens, buzzer=None, journal=None,
                 watchdog=None):
        self.game = game
        self.panel = panel
        self.inputs = inputs
        self.screens = screens
        self.buzzer = buzzer
        self.journal = journal
        self.watchdog = watchdog
        self.frame_at = 0
        self.passes = 0
        self.save_errors = 0
        self.persist = True        # save settings changed in the menu

    def start(self, now):
        """Resume the journaled game (or start one), then show the wiring check."""
        s = self.panel.settings
        resumed = False
        if self.journal is not None:
            self.journal.resume(s.players, s.opener)
            resumed = True
        self.panel.start(now, resumed)
        self.frame_at = now
        if self.screens is not None:
            self.screens.update(self.game, self.panel, now)

    def step(self, now):
        """One pass: events in, state out, displays refreshed, watchdog fed."""
        inputs = self.inputs
        panel = self.panel
        inputs.poll(now)
        ring = inputs.ring
        ev = ring.get()
        seen = ev != 0
        while ev:
            panel.event(ev, ring.time)
            ev = ring.get()
        panel.tick(now)
        if self.buzzer is not None:
            self.buzzer.update(now)
        if panel.settings_dirty and panel.mode != ui.MODE_MENU:
            panel.settings_dirty = False
            if self.persist:
                self._save()
        screens = self.screens
        if screens is not None:
            if seen:
                screens.wake(now)
            if seen or screens.busy or ticks_diff(now, self.frame_at) >= self.FRAME_MS:
                self.frame_at = now
                screens.update(self.game, panel, now)
        if self.watchdog is not None:
            self.watchdog.feed()
        self.passes += 1

    def _save(self):
        try:
            self.panel.settings.save()
        except OSError:
            self.save_errors += 1
            self.panel.note = ui.NOTE_STORAGE

    def run(self, ticks_ms, sleep_ms, period_ms=1):
        """The device's endless loop: a pass every `period_ms`."""
        self.start(ticks_ms())
        while True:
            self.step(ticks_ms())
            sleep_ms(period_ms)


def encoders(build):
    """The encoders a build has: the first always, the second when fitted."""
    if build.get("encoder2"):
        return (config.ENCODER, config.ENCODER2)
    return (config.ENCODER,)


def make(key_pin, buses, display_pin, build=None, pwm=None, root=None, quadrature=None,
         watchdog=None, settings=None):
    """The application from ready parts.

    key_pin: GPIO -> input pin with pull-up (buttons, encoder lines).
    buses, display_pin: what display.screens.build() takes.
    build: a board.config.BUILDS entry (default: the selected one).
    pwm: a PWM object on the buzzer pin, or None.
    root: filesystem directory ("/" on the Pico) for the journal and the
        settings; None keeps nothing (the simulator's default).
    quadrature: optional (index, pin_a, pin_b) -> decoder (PIO on the Pico).
    """
    from input.build import build as build_input
    from display.screens import build as build_screens
    from app.settings import Settings
    from app.buzzer import Buzzer
    if build is None:
        build = config.selected()
    game = Game()
    if settings is None:
        settings = Settings(root if root is not None else "/")
        if root is not None:
            settings.load()
    journal = None
    if root is not None:
        from app.journal import Journal
        journal = Journal(game, root)
    inputs = build_input(config.PANEL, encoders(build), key_pin, quadrature)
    screens = build_screens(build, buses, display_pin)
    buzzer = Buzzer(pwm) if pwm is not None else None
    panel = Panel(game, settings, buzzer=buzzer, journal=journal)
    panel.bind(inputs.names)
    app = App(game, panel, inputs, screens, buzzer, journal, watchdog)
    app.persist = root is not None
    return app
