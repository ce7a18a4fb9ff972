"""The application: its parts assembled by `assemble()`, the one builder.

factory.py gives it the Pico's pins, buses, buzzer, PIO encoders and clock; the
simulator, the web page, the benchmarks and the tests give it fakes. Each part is made
once, in the order that shows the board's wiring check soonest (docs/ARCHITECTURE.md,
start-up): the keys first (a press is kept from then on), the displays, the game's
storage while the heap is still young, the encoders, then app.loop.App with the rest.
Here, not in a module of its own: the board imports this package before its first
picture anyway, and a module more made that picture 1.2 ms later on the emulated Pico.
"""
import gc
import sys

_MPY = sys.implementation.name == "micropython"     # (CPython's heap needs no tidying)


def assemble(key_pin, buses, display_pin, build=None, root=None, settings=None, pwm=None,
             quadrature=None, clock=None, watchdog=None, hello_first=False):
    """The application (app.loop.App), ready to start().

    key_pin: GPIO -> input pin with pull-up (buttons, encoder lines).
    buses: bus name -> bus object (machine.I2C / SPI or a fake), or a callable
        build -> that (the board's: its buses made once the build is known).
    display_pin: what display.screens.build() takes as `pin`.
    build: a board.config.BUILDS entry (default: the one chosen under `root`).
    root: filesystem directory ("/" on the Pico) for the journal and the
        settings, made consistent first (app/fsready.py); None keeps nothing.
    settings: an app.settings.Settings (default: the one saved under `root`).
    pwm: a PWM object on the buzzer pin, or None.
    quadrature: (index, pin_a, pin_b) -> an encoder's decoder (PIO on the Pico),
        called after the displays are made; None: input/quadrature.py PinQuadrature.
    clock: ms clock (time.ticks_ms on the Pico): key edges are then captured by
        pin interrupts from this moment on, so a key pressed while the displays
        start or the journal is resumed is applied once the loop runs.
    hello_first: the board's start-up (needs `clock`): the wiring check shown
        before the game, the screens and the views are made (display/hello.py's
        recording on an OLED build, chips/build.py's drivers on a seven-segment
        one), its moment the app's `shown_at`; on the RP2040 with the native
        display transports. Else the screens are made here and show the check
        once start() is called.
    """
    from board import config    # (here: a module of app/ imported alone does not load it)
    if root is not None:
        from app.fsready import prepare
        prepare(root)       # littlefs consistent before any file is read (docs/JOURNAL.md)
    name = None
    if build is None:
        name = config.chosen("/" if root is None else root)
        build = config.BUILDS[name]
    else:
        for n in config.BUILDS:
            if config.BUILDS[n] is build:
                name = n
    # the keys first: a press from here on is kept (pin interrupts), whatever follows;
    # the encoders after the displays (input/quadrature.py imported only then)
    from input.build import build as build_input
    encoders = config.encoders(build)
    inputs = build_input(config.PANEL, encoders, key_pin, False, clock=clock)
    if callable(buses):
        buses = buses(build)
    shown = drivers = burst = None
    if hello_first:
        shown, drivers, burst = _hello(name, build, buses, display_pin, clock)
    # the game's storage (its 8 KB undo history in one piece) while the heap is
    # still young: made after the display modules it could find no room there
    from cowboy.game import Game
    game = Game()
    from display.screens import Screens, build as build_screens
    if not hello_first:
        if _MPY:
            gc.collect()    # the imports' garbage, before the displays' many small buffers
        screens = build_screens(build, buses, display_pin)
    elif drivers is not None:
        screens = Screens(drivers)
        screens.settle(None, None, shown)   # the same texts: nothing more is sent
    else:
        screens = build_screens(build, buses, display_pin, burst=burst)
        if shown is not None:
            screens.assume(shown)           # the drivers take the recorded picture
        elif clock is not None:             # (always, with hello_first)
            shown = clock()
            screens.settle(None, None, shown)   # no game, no panel yet: the wiring check
    # the encoders after the displays (on the Pico assembling PIO programs takes a while)
    inputs.start_encoders(encoders, key_pin, quadrature)
    if not hello_first and _MPY:
        gc.collect()        # the display modules' garbage, before the application's modules
    from app.loop import App
    return App(game, inputs, screens, root, settings, pwm, watchdog, name, shown)


def _hello(name, build, buses, display_pin, clock):
    """The wiring check, before the display modules (OLED) or the screens and the
    views (seven segments) are imported: (when it began to show, or None when
    an OLED build's is still to be drawn live; a seven-segment build's drivers,
    else None; the OLEDs' I2C stream transport, or None)."""
    from board import config
    oled = config.CHIPS[build["displays"][0][0]][1] == "oled"
    rp2 = sys.platform == "rp2"
    if oled:
        burst = None
        if rp2:
            # an OLED's writes as streams into the I2C controller's FIFO (the
            # recording's too: on oled4 into both controllers at once)
            from chips.i2c_viper import Burst as burst
        # played from its recording (display/hello.py); without one (or if a write
        # fails) drawn live by the screens, as on the other builds
        from display import hello
        data = hello.read(name) if name is not None else None
        if data is not None and hello.play(data, {build["buses"][b]["id"]: buses[b]
                                                  for b in buses}, burst):
            return clock(), None, burst
        return None, None, burst
    # drawn by the drivers alone, before the screens and the views are imported
    from chips import build as chipbuild
    # on the Pico, TM1637 frames by direct SIO register writes (native code)
    ds = chipbuild.drivers(build, buses, display_pin, {"tm1637": "tm1637_sio"} if rp2 else None)
    if rp2:
        # MAX7219 chains: a flush's frames in one native call (chips/max7219_viper.py)
        for i in range(len(build["displays"])):
            e = build["displays"][i]
            if e[0] == "max7219":
                from chips import max7219_viper
                b = build["buses"][e[1]]
                ds[i].chain.use(max7219_viper, b["id"], b["cs"])
    shown = clock()
    chipbuild.hello(ds)
    return shown, ds, None
