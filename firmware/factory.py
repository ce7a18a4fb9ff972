"""The selected build of board/config.py as machine/rp2 objects (device only).

With boot.py the one module that uses `machine` (fastimport.py only keeps it
loaded): everything else receives the objects made here. `make()` returns the application
(app.loop.App) assembled from them by app.assemble(), ready to `run()`; `start()` and
`run()` are main.py's work.
"""
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


def quadrature(index, pin_a, pin_b):
    """An encoder's PIO decoder (input/pio_quadrature.py, imported at the first
    call: after the wiring check shows)."""
    from input.pio_quadrature import factory
    return factory(index, pin_a, pin_b)


def make(watchdog=None, root="/"):
    """The scoreboard application on this board (app.loop.App): app.assemble()
    given the Pico's pins, buses, buzzer, PIO encoders and clock, the wiring check
    shown first (the start-up order: docs/ARCHITECTURE.md)."""
    from app import assemble
    return assemble(key_pin, buses, display_pin, root=root, pwm=buzzer(),
                    quadrature=quadrature, clock=time.ticks_ms, watchdog=watchdog,
                    hello_first=True)


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
