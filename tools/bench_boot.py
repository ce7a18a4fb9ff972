"""Heap in use after the application has started: run by tools/bench.py under
`micropython -X heapsize=192K`, compiled to .mpy beside the .mpy firmware tree.

    import bench_boot; bench_boot.main(build, root)

Starts the application of `build` (board.config, or the SSD1306 variant of oled4)
with 8 players on counting buses and pins, a journal and settings under `root`,
measures the heap after the imports and after
assembling, runs 2.6 s of loop passes (past the start-up wiring check), collects, and prints
`BENCH {...}` with the heap in use and free. Kept small: its own code is in the
heap too.
"""
import gc


def main(name, root):
    gc.collect()
    base = gc.mem_alloc()
    from fakepins import Pin
    from fakebuses import CountingI2C, CountingSPI, CountingPin
    from board import config
    from app import assemble
    from app.settings import Settings
    from app import loop, panel, journal, buzzer   # noqa: F401 (loaded by assemble())
    from display import screens                     # noqa: F401
    from input import build as inputbuild          # noqa: F401
    gc.collect()
    code = gc.mem_alloc()
    if name == "ssd1306":
        o = config.BUILDS["oled4"]
        build = {"buses": o["buses"], "encoder2": True,
                 "displays": [("ssd1306",) + tuple(d[1:]) for d in o["displays"]]}
    else:
        build = config.BUILDS[name]
    buses = {}
    for k in build["buses"]:
        buses[k] = CountingI2C() if build["buses"][k]["kind"] == "i2c" else CountingSPI()
    s = Settings(root)
    s.players = 8
    app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), buses, lambda n: CountingPin(),
                   build=build, settings=s, root=root)
    gc.collect()
    made = gc.mem_alloc()
    app.start(0)
    for t in range(0, 2600, 10):
        app.step(t)
    gc.collect()
    print('BENCH {"build": "%s", "heap_after_boot": %d, "free": %d, "before_import": %d,'
          ' "modules_loaded": %d, "app_made": %d, "journal": %s, "players": %d}'
          % (name, gc.mem_alloc(), gc.mem_free(), base, code, made,
             "true" if app.journal is not None else "false", app.game.players))
