"""The selected build of board/config.py as machine/rp2 objects (device only).

With boot.py the one module that uses `machine` (fastimport.py only keeps it
loaded): everything else receives the objects made here. `make()` returns the assembled application
(app.loop.App) ready to `run()`; `start()` and `run()` are main.py's work.
"""
import sys
import time

import machine

from board import config


def key_pin(gpio):
    """A panel key or encoder line: input, pull-up (switch to ground)."""
    return machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP)


def display_pin(gpio):
    """A display wire (TM1637 clock/data, MAX7219 chip select); the driver sets the mode."""
    return machine.Pin(gpio, machine.Pin.OUT, value=1)


def buses(build):
    """Bus name -> machine.I2C / machine.SPI for the build's bus table."""
    out = {}
    for name in build["buses"]:
        b = build["buses"][name]
        if b["kind"] == "i2c":
            out[name] = machine.I2C(b["id"], sda=machine.Pin(b["sda"]),
                                    scl=machine.Pin(b["scl"]), freq=b["freq"])
        else:
            # miso given even for write-only displays: without it the port claims
            # its default MISO pin anyway (config.py names it, PINOUT.md shows it)
            out[name] = machine.SPI(b["id"], baudrate=b["baudrate"], polarity=0, phase=0,
                                    sck=machine.Pin(b["sck"]), mosi=machine.Pin(b["mosi"]),
                                    miso=machine.Pin(b["miso"]))
    return out


def buzzer():
    """PWM on the buzzer pin, silent; None when the build has no buzzer."""
    if config.BUZZER is None:
        return None
    pwm = machine.PWM(machine.Pin(config.BUZZER))
    pwm.freq(2000)
    pwm.duty_u16(0)
    return pwm


def make(watchdog=None, root="/"):
    """The scoreboard application on this board (app.loop.App).

    The keys (pin interrupts) come first, then the displays show the wiring
    check before the rest of the firmware is imported (importing a module costs
    some 5-40 ms on the RP2040, about 0.3 s for all of them): on OLED builds
    played from its recording before any display module, on seven-segment builds
    drawn by the drivers before the screens and the views; then the game's
    storage, the screens, and the encoders' PIO programs."""
    from app.fsready import prepare
    prepare(root)           # before any file is read (docs/JOURNAL.md, start-up)
    name = config.chosen(root)
    build = config.BUILDS[name]
    # the keys first: a press from here on is kept (pin interrupts), whatever follows
    from input.build import build as build_input
    inputs = build_input(config.PANEL, config.encoders(build), key_pin, False,
                         clock=time.ticks_ms)
    bus = buses(build)
    oled = config.CHIPS[build["displays"][0][0]][1] == "oled"
    rp2 = sys.platform == "rp2"
    fifo = None
    if oled and rp2:
        # an OLED's writes as streams into the I2C controller's FIFO (the
        # recording's too: on oled4 into both controllers at once)
        from chips.i2c_viper import Burst as fifo
    shown = None
    ds = None
    if oled:
        # an OLED build's wiring check played from its recording, before the
        # display modules are imported (display/hello.py); without one (or if a
        # write fails) it is drawn live below, as on the other builds
        from display import hello
        data = hello.read(name)
        if data is not None and hello.play(data, {build["buses"][b]["id"]: bus[b]
                                                  for b in bus}, fifo):
            shown = time.ticks_ms()
        data = None
    else:
        # a seven-segment build's wiring check drawn by its drivers alone, before
        # the screens and the views are imported (chips/build.py)
        from chips import build as chipbuild
        # on the Pico, TM1637 frames by direct SIO register writes (native code)
        ds = chipbuild.drivers(build, bus, display_pin, {"tm1637": "tm1637_sio"} if rp2 else None)
        if rp2:
            # MAX7219 chains: a flush's frames in one native call (chips/max7219_viper.py)
            for i in range(len(build["displays"])):
                e = build["displays"][i]
                if e[0] == "max7219":
                    from chips import max7219_viper
                    b = build["buses"][e[1]]
                    ds[i].chain.use(max7219_viper, b["id"], b["cs"])
        shown = time.ticks_ms()
        chipbuild.hello(ds)
    # the game's storage (its 8 KB undo history in one piece) while the heap is
    # still young: made after the display modules it could find no room there
    from cowboy.game import Game
    game = Game()
    from display.screens import Screens, build as build_screens
    if ds is not None:
        screens = Screens(ds)
        screens.settle(None, None, shown)   # the same texts: nothing more is sent
    else:
        screens = build_screens(build, bus, display_pin, burst=fifo)
        if shown is not None:
            screens.assume(shown)           # the drivers take the recorded picture
        else:
            shown = time.ticks_ms()
            screens.settle(None, None, shown)   # no game, no panel yet: the wiring check
    # the encoders' PIO programs after it (assembling them takes a while)
    from input.pio_quadrature import factory as pio_quadrature
    inputs.start_encoders(config.encoders(build), key_pin, pio_quadrature)
    from app import loop
    return loop.make(key_pin, None, display_pin, build=build, pwm=buzzer(), root=root,
                     watchdog=watchdog, inputs=inputs, screens=screens, shown_at=shown,
                     game=game)


def start(root="/"):
    """The application under the watchdog boot.py started (`cowboy: made <ms>
    shown=<ms>` on the console once the wiring check shows: now, and when it began
    to show; then `cowboy: firmware <version>`, version.py)."""
    import fastimport
    fastimport.speak()          # a damaged pack, found while boot.py ran
    import watchdog
    wd = watchdog.shared(machine.WDT, machine.Timer)   # the one boot.py started
    wd.start()
    app = make(watchdog=wd, root=root)
    print("cowboy: made %d shown=%d" % (time.ticks_ms(), app.shown_at))
    from version import VERSION
    print("cowboy: firmware " + VERSION)
    return app


def run(app, root="/"):
    """The main loop under the watchdog, until Ctrl-C (watchdog.py run())."""
    import watchdog
    watchdog.run(lambda: app.run(time.ticks_ms, time.sleep_ms, ticks_us=time.ticks_us,
                                 started=lambda: started(app, root)), app.watchdog)


def started(app, root="/"):
    """Once the game is resumed and shown and the start-up garbage collected: hall
    mode when the firmware has `network` (the Pico W's, docs/HALL.md), its modules
    loaded now, into the room the resume left, not between the game's; then the
    boot report."""
    import fastimport
    # the Pico W's built-in module, or none: not looked for as a file (some 6 ms)
    network = fastimport.builtin("network")
    if network is not None:
        import gc
        from net import board as hall_board
        hall_board.start(app, network, root)
        gc.collect()
    report(app)


def report(app):
    """Boot report, once the game is shown and the start-up garbage collected
    (read by tools/bench_pico.py): now, the heap, and when the journal was read
    back; then MicroPython's heap summary, with its largest free block."""
    import gc
    import micropython
    print("cowboy: up %d free=%d alloc=%d resumed=%d" % (
        time.ticks_ms(), gc.mem_free(), gc.mem_alloc(), app.resumed_at))
    micropython.mem_info()
