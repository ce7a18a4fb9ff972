"""The measuring side of tools/bench.py: runs under micropython (and CPython).

    micropython tools/bench_mpy.py MODE ARGS...
    (MICROPYPATH: host_tests/fakes, tools/models, firmware, host_tests)

Each mode prints one line `BENCH {json}` as its last line:
  stroke GAMES [ROUNDS]     rules core: time and heap per applied stroke
  undo [ACTIONS]            undo of the last action with a long history
  event BUILD GAMES [LIMIT] key events through the whole loop to the counting buses:
                            time per event, heap per event and per stroke, heap lock
                            (LIMIT: the first LIMIT recorded actions only)
  naive                     reference drivers that allocate per update

GAMES is a file written by bench.py from host_tests/gamegen.py: lines
`G players opener` starting a game, then `A kind word` (kind 0 shot, 1 choice,
2 undo, 3 redo; word: the action word as the rules core stores it).
Timings come from time.ticks_us (time.perf_counter under CPython) and are host
figures. Measuring code allocates nothing inside the timed or counted loops.
"""
import gc
import sys
import time
from array import array

import toolpaths

toolpaths.add("../firmware")    # run alone (--help), not by bench.py with MICROPYPATH

import options  # noqa: E402
from app.journalformat import WORD_MASK  # noqa: E402   # an action in `acts`: kind << 20 | word

MPY = sys.implementation.name == "micropython"
if MPY:
    import micropython
else:       # CPython: tools/micropython.py, const() only, would answer the import
    micropython = None

if hasattr(time, "ticks_us"):
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
else:
    def ticks_us():
        return int(time.perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b

SHOT, CHOICE, UNDO, REDO = 0, 1, 2, 3
COUNTS = array("i", bytes(12))    # results besides the return value (a tuple allocates)
ENDS = array("i", bytes(4 * 200))  # play_path: times of the events that ended a game


def mem_alloc():
    return gc.mem_alloc() if MPY else 0


def emit(d):
    import json
    print("BENCH " + json.dumps(d))


def load_games(path):
    """(games, acts): games array of (start, players, opener) triples, acts of kind<<20|word."""
    games = array("i")
    acts = array("i")
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "G":
                games.append(len(acts))
                games.append(int(p[1]))
                games.append(int(p[2]))
            else:
                acts.append(int(p[1]) << 20 | int(p[2]))
    games.append(len(acts))
    return games, acts


def stats(a, n):
    """Median, 90th percentile, min and max of the first n entries of array `a`."""
    s = sorted(a[i] for i in range(n))
    if not n:
        return {"n": 0}
    return {"n": n, "median": s[n // 2], "p90": s[n * 9 // 10], "max": s[-1],
            "min": s[0]}


# ---- rules core ---------------------------------------------------------------
def play_core(g, games, acts, times):
    """Every game once; times of applied strokes into `times`; returns the strokes
    applied (COUNTS[2]: strokes the core refused, none for accepted records)."""
    n = 0
    bad = 0
    ng = (len(games) - 1) // 3
    for k in range(ng):
        a0 = games[3 * k]
        a1 = games[3 * k + 3] if k + 1 < ng else games[len(games) - 1]
        g.new_game(games[3 * k + 1], games[3 * k + 2])
        for i in range(a0, a1):
            a = acts[i]
            kind = a >> 20
            w = a & WORD_MASK
            if kind == SHOT:
                t0 = ticks_us()
                err = g.shot(w)
                dt = ticks_diff(ticks_us(), t0)
                if err:
                    bad += 1
                elif times is not None and n < len(times):
                    times[n] = dt
                    n += 1
            elif kind == CHOICE:
                g.apply(w)
            elif kind == UNDO:
                g.undo()
            else:
                g.redo()
    COUNTS[2] = bad
    return n


def mode_stroke(path, rounds):
    from cowboy.game import Game
    games, acts = load_games(path)
    g = Game()
    times = array("i", bytes(4 * (len(acts) * rounds + 1)))
    play_core(g, games, acts, None)               # warm-up
    gc.collect()
    gc.disable()
    a0 = mem_alloc()
    total = 0
    for r in range(rounds):
        total += play_core(g, games, acts, None)
    a1 = mem_alloc()
    gc.enable()
    n = 0
    for r in range(rounds):
        n += play_core(g, games, acts, memoryview(times)[n:])
    bad = COUNTS[2]
    locked = heap_locked(lambda: play_core(g, games, acts, None))
    emit({"strokes": n, "rejected": bad, "time_us": stats(times, n),
          "alloc_per_stroke": (a1 - a0) / total if total else 0, "heap_lock_ok": locked,
          "games": (len(games) - 1) // 3})


def heap_locked(fn):
    """True when fn() runs to the end with the heap locked (None under CPython).

    fn must close over few variables: MicroPython allocates the arguments of a call
    to a closure with more than a handful of cells."""
    if not MPY:
        return None
    gc.collect()
    micropython.heap_lock()
    try:
        fn()
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    return ok


def mode_undo(actions):
    """A game held going for `actions` actions (random play, undo when it ends), then
    each of the last 64 undos timed (every distance from a snapshot), undo/redo of
    the last action repeated, and one recount of the statistics over that history."""
    from cowboy.game import Game, STEP
    import journal_harness

    class Own(Game):
        @property
        def game(self):
            return self
    g = Own()
    g.new_game(8, 0)
    rng = journal_harness.Rng(12)
    while g.position() < actions:
        journal_harness.step(g, rng)
    k = 2 * STEP
    each = array("i", bytes(4 * k))
    for i in range(k):
        t0 = ticks_us()
        err = g.undo()
        each[i] = ticks_diff(ticks_us(), t0)
        assert err == 0
    for i in range(k):
        g.redo()
    reps = 101
    last = array("i", bytes(4 * reps))
    for i in range(reps):
        t0 = ticks_us()
        g.undo()
        last[i] = ticks_diff(ticks_us(), t0)
        g.redo()
    # The end of a game recounts the statistics from the history (app/stats.py).
    from app.stats import Stats
    st = Stats()
    t0 = ticks_us()
    st.count(g)
    recount = ticks_diff(ticks_us(), t0)
    emit({"history": g.position() - g.oldest(), "last_us": stats(last, reps), "each_us": stats(each, k),
          "step": STEP, "stats_recount_us": recount})


# ---- the whole path -----------------------------------------------------------
def bench_builds():
    """board.config builds, and an SSD1306 one (the oled4 wiring with SSD1306s)."""
    from board import config
    b = dict(config.BUILDS)
    o = config.BUILDS["oled4"]
    b["ssd1306"] = {"buses": o["buses"], "encoder2": True,
                    "displays": [("ssd1306",) + tuple(d[1:]) for d in o["displays"]]}
    return b


def make_app(name, players=8):
    from fakepins import Pin
    from fakebuses import CountingI2C, CountingSPI, CountingPin
    from app import assemble
    from app.settings import Settings
    build = bench_builds()[name]
    buses = {}
    for k in build["buses"]:
        buses[k] = CountingI2C() if build["buses"][k]["kind"] == "i2c" else CountingSPI()
    s = Settings("/nonexistent/")
    s.players = players
    app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), buses, lambda n: CountingPin(),
                   build=build, settings=s)
    return app, buses


class Keys:
    """Turns action words into the key events a player would press."""

    def __init__(self, names):
        from app.keys import KEYS
        from app.panel import PRESS, RELEASE
        from cowboy import facts
        self.facts = facts
        self.press = PRESS << 8
        self.release = RELEASE << 8
        src = {}
        for i in range(len(names)):
            src[names[i]] = i
        self.src = [src[k] if k in src else 0 for k in KEYS]
        self.KEYS = KEYS
        self.buf = array("i", bytes(4 * 32))

    def key(self, n, name_idx):
        s = self.src[name_idx]
        self.buf[n] = self.press | s
        self.buf[n + 1] = self.release | s
        return n + 2

    def fill(self, kind, w, over):
        """Events for one action into self.buf; returns their number."""
        facts = self.facts
        n = 0
        if over:                      # a new game: OK opens the menu, OK starts it
            n = self.key(n, 5)
            n = self.key(n, 5)
        if kind == UNDO:
            return self.key(n, 9)
        if kind == REDO:
            return self.key(n, 10)
        if kind == CHOICE:
            return self.key(n, 5 if facts.kind(w) == facts.KIND_REPEAT else 11)
        p = w & 7
        for b in range(3):
            if p & (1 << b):
                n = self.key(n, b)
        c = (w >> facts.CAROM) & 3
        if c:
            n = self.key(n, 3 if c == 2 else 4)
        cue = (w >> facts.CUE) & 3
        if cue == facts.CUE_POCKET or cue == facts.CUE_OFF:
            return self.key(n, 8)
        if w & facts.F_FOUL:
            return self.key(n, 7)
        if p or c:
            return self.key(n, 5)
        return self.key(n, 6)


def play_path(app, keys, games, acts, now, times, limit, over):
    """Feed every game's actions as key events through the loop, one event per pass.

    Between two events an idle pass runs (pages, blinking, periodic refresh), not
    timed. Returns the time reached; COUNTS holds events and applied strokes."""
    g = app.game
    ring = app.inputs.ring
    buf = keys.buf
    ev = 0
    strokes = 0
    COUNTS[2] = 0
    na = games[len(games) - 1]
    if limit and limit < na:
        na = limit
    for i in range(na):
        a = acts[i]
        kind = a >> 20
        k = keys.fill(kind, a & WORD_MASK, g.phase == over)
        for j in range(k):
            now += 150
            app.step(now - 75)
            ring.put(buf[j], now)
            before = g._n if kind != REDO else -1
            was = g.phase
            t0 = ticks_us()
            app.step(now)
            dt = ticks_diff(ticks_us(), t0)
            if times is not None and ev < len(times):
                times[ev] = dt
                if was != over and g.phase == over and COUNTS[2] < len(ENDS):
                    ENDS[COUNTS[2]] = dt          # the stroke that ended a game
                    COUNTS[2] += 1
            ev += 1
            if before >= 0 and g._n > before:
                strokes += 1
    COUNTS[0] = ev
    COUNTS[1] = strokes
    return now


def mode_event(name, path, limit):
    from cowboy import codes
    from chips.tm1637 import TM1637
    # The bit delay is a real sleep_us: on the host one costs ~80 us of scheduler time,
    # which says nothing about the Pico. The bus time is reported separately.
    TM1637.DELAY_US = 0
    games, acts = load_games(path)
    app, buses = make_app(name)
    keys = Keys(app.inputs.names)
    app.start(0)
    now = 0
    for t in range(0, 2600, 20):
        app.step(t)
        now = t
    na = games[len(games) - 1]
    if limit and limit < na:
        na = limit
    times = array("i", bytes(4 * (na * 12 + 1)))
    over = codes.PHASE_OVER
    now = play_path(app, keys, games, acts, now, None, limit, over)   # warm-up
    gc.collect()
    gc.disable()
    a0 = mem_alloc()
    now = play_path(app, keys, games, acts, now, times, limit, over)
    a1 = mem_alloc()
    gc.enable()
    events = COUNTS[0]
    strokes = COUNTS[1]
    ends = COUNTS[2]

    locked = None
    if MPY:                             # the same keys again, the heap locked
        gc.collect()
        micropython.heap_lock()
        try:
            play_path(app, keys, games, acts, now, None, limit, over)
            locked = True
        except MemoryError:
            locked = False
        micropython.heap_unlock()
    # one display's full redraw (re-initialisation and all content), timed
    d = app.screens.displays[0]
    reps = 20
    full = array("i", bytes(4 * reps))
    for i in range(reps):
        t0 = ticks_us()
        d.flush(True)
        full[i] = ticks_diff(ticks_us(), t0)
    alloc = a1 - a0
    emit({"build": name, "events": events, "strokes": strokes,
          "displays": len(app.screens.displays), "time_us": stats(times, min(events, len(times))),
          "alloc_bytes": alloc, "alloc_per_event": alloc / events if events else 0,
          "alloc_per_stroke": alloc / strokes if strokes else 0, "heap_lock_ok": locked,
          "full_redraw_us": stats(full, reps), "failed": app.screens.failed,
          "game_end_us": stats(ENDS, ends)})


# ---- reference drivers that allocate --------------------------------------------
_DIGITS = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)


class NaiveSevenSeg:
    """An HT16K33 driver written the obvious way: the frame rebuilt per update."""

    def __init__(self, i2c, addr=0x70):
        self.i2c = i2c
        self.addr = addr

    def show(self, score):
        text = "%4d" % score
        buf = bytearray([0x00] + [_DIGITS[int(c)] if c != " " else 0 for c in text])
        self.i2c.writeto(self.addr, buf)


class NaiveOLED:
    """A full-frame show() written the obvious way: commands and data built per call."""

    def __init__(self, i2c, addr=0x3C):
        self.i2c = i2c
        self.addr = addr
        self.fb = bytearray(1024)

    def show(self):
        for cmd in (0x21, 0, 127, 0x22, 0, 7):
            self.i2c.writeto(self.addr, bytearray([0x80, cmd]))
        self.i2c.writeto(self.addr, b"\x40" + self.fb)


def mode_naive():
    from fakebuses import CountingI2C
    out = {}
    reps = 200
    times = array("i", bytes(4 * reps))
    for name in ("seven_segment", "oled_full_frame"):
        i2c = CountingI2C()
        if name == "seven_segment":
            d = NaiveSevenSeg(i2c)

            def upd(i):
                d.show(i)
        else:
            d = NaiveOLED(i2c)

            def upd(i):
                d.fb[i & 1023] = i & 255
                d.show()
        upd(0)
        gc.collect()
        gc.disable()
        a0 = mem_alloc()
        for i in range(reps):
            t0 = ticks_us()
            upd(i)
            times[i] = ticks_diff(ticks_us(), t0)
        a1 = mem_alloc()
        gc.enable()
        b = i2c.bytes
        out[name] = {"alloc_per_update": (a1 - a0) / reps, "time_us": stats(times, reps),
                     "bus_bytes_per_update": b // (reps + 1),
                     "heap_lock_ok": heap_locked(lambda: upd(1))}
    emit(out)


MODES = {"stroke": (1, 2), "undo": (0, 1), "event": (2, 3), "naive": (0, 0)}


def main(argv):
    got = options.parse(argv[1:], "bench_mpy", lambda: options.usage_of(__file__))
    if type(got) is int:
        return got
    args = got[1]
    if not args or args[0] not in MODES:
        return options.fail("bench_mpy", "give a mode: %s" % ", ".join(sorted(MODES)))
    mode = args[0]
    least, most = MODES[mode]
    if not least <= len(args) - 1 <= most:
        return options.fail("bench_mpy", "%s takes %d to %d arguments" % (mode, least, most))
    for a in args[2 if mode == "stroke" else 3 if mode == "event" else 1:]:
        if not a.isdigit():
            return options.fail("bench_mpy", "%s: %r is not a number" % (mode, a))
    argv = [argv[0]] + args
    if mode == "stroke":
        mode_stroke(argv[2], int(argv[3]) if len(argv) > 3 else 3)
    elif mode == "undo":
        mode_undo(int(argv[2]) if len(argv) > 2 else 2000)
    elif mode == "event":
        mode_event(argv[2], argv[3], int(argv[4]) if len(argv) > 4 else 0)
    else:
        mode_naive()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
