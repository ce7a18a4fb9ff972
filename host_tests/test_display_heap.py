"""Rendering and display updates allocate nothing: every layout and game situation
runs under the real micropython with the heap locked (MemoryError fails)."""
from mpy import check

# What the views read of the panel (views/ui.py contract), as plain class attributes.
PANEL = r'''
from views import ui as U

class Settings:
    players = 4
    opener = 0
    brightness = 8
    rules = 0

class Stats:
    innings = bytearray(8)
    best = bytearray(8)
    points = bytearray(8)
    fouls = bytearray(8)
    ready = True

class Editor:
    chars = bytearray(b"abcdefghijklmnop")
    length = 0
    cursor = -1
    limit = 12

class Panel:
    version = 0
    names = [b""] * 8
    mode = U.MODE_HELLO
    facts = 0
    composing = False
    preview = 0
    note = 0
    reject = 0
    field = 0
    menu_item = 0
    menu_value = 0
    settings = Settings()
    stats = Stats()
    t_start = 0
    notice = U.NOTICE_CUT
    notice_arg = 3
    build = b"oled8"
    net_state = 0
    net_pending = 0
    editor = Editor()
'''

SCRIPT = r'''
import gc, micropython
from cowboy.game import Game
from cowboy import facts as F, codes as C
g = Game()
from fakebuses import CountingI2C, CountingSPI, CountingPin
from chips.tm1637 import TM1637
from chips.ht16k33 import HT16K33
from chips.max7219 import MAX7219Chain
from chips.oled import SH1106_I2C, SSD1306_I2C
from chips.tca9548a import TCA9548A
from display.screens import Screens
''' + PANEL + r'''
i2c = CountingI2C()
spi = CountingSPI()
mux = TCA9548A(i2c, 0x71)
chain = MAX7219Chain(spi, CountingPin(), 2)
clk = CountingPin()
shown = [TM1637(clk, CountingPin(), delay_us=0), HT16K33(i2c, 0x70), chain.module(0),
         SH1106_I2C(i2c, 0x3C), SSD1306_I2C(mux.channel(3), 0x3C), chain.module(1)]
scr = Screens(shown)
scr.SHIFT_MS = 700
scr.DIM_MS = 1500
p = Panel()
g.new_game(4, 0)
now = 0
fails = 0
# Names of every kind (accents, CJK, emoji, combining marks, a placeholder-only one),
# and others put in their place while the heap is locked: folding allocates nothing.
NAMES = ("Zo\u00eb M\u00fcller".encode(), b"Wim", "\u674e\u5c0f\u9f8d".encode(),
         "\U0001f3b1 Ace".encode(), "Ren\u00e9e\u0301 \u0141uk".encode(),
         b"Anna-Katharina Z", b"J.R. Ewing", "\u00c6r\u00f8 Stra\u00dfe".encode())
OTHERS = (b"Bob", "\u03a9mega".encode(), b"Max", b"Jo", b"O'Neil!", "\u00d8ystein".encode(),
          "\u674e".encode(), b"")
for i in range(8):
    p.names[i] = NAMES[i]
from draw import fold
fold.prepare()                  # as app/playernames.py does when names are set
flip = 0


def swap():
    global flip
    flip ^= 1
    src = OTHERS if flip else NAMES
    for i in range(8):
        p.names[i] = src[i]
    p.version += 1

def run(steps):
    global now, fails
    p.version += 1                  # as the panel does on each change it makes
    for k in range(3):              # warm-up: first draw of this situation
        now += 37
        scr.update(g, p, now)
    gc.collect()
    micropython.heap_lock()
    try:
        for k in range(steps):
            now += 97
            scr.update(g, p, now)
            if k == steps // 2:
                scr.wake(now)
            if k == steps // 3:
                swap()
    except MemoryError:
        fails += 1
    micropython.heap_unlock()

ELEVEN = 7 | (3 << F.CAROM)
run(40)                                            # hello: build, notice
g.new_game(4, 0, 15)
for notice in range(4):
    p.notice = notice
    run(20)                                        # hello: notices, house rules
g.new_game(4, 0)
p.mode = U.MODE_MENU
for item in range(U.MENU_CONFIRM + 1):
    p.menu_item = item
    p.menu_value = 3 if item < U.MENU_RULE else 1
    run(15)
for state in range(4):                             # hall mode: the connection
    p.menu_item = U.MENU_NET
    p.net_state = state
    p.net_pending = 120 * state
    run(10)
for item in (U.MENU_HALL, U.MENU_TABLE):           # the names, then the editor
    p.menu_item = item
    for value in range(3):
        p.menu_value = value
        for cursor in (-1, 0, 3, 11):
            p.editor.cursor = cursor
            p.editor.length = 12 if cursor == 11 else 3
            run(8)
p.menu_item = U.MENU_NAMES                         # the players' names, then the editor
p.editor.limit = 16
for value in range(2):
    p.menu_value = value
    for cursor in (-1, 0, 3, 15):
        p.editor.cursor = cursor
        p.editor.length = 16 if cursor == 15 else 3
        run(8)
p.editor.cursor = -1
p.menu_value = 0
p.mode = U.MODE_GAME
run(60)                                            # opening, ball in hand
g.shot(ELEVEN); run(40)                            # inning points
for k in range(6):
    g.shot(ELEVEN)
g.shot(F.B5); run(40)                              # need 8 for 90
g.shot(ELEVEN); run(10)
g.shot(C and (F.CUE_POCKET << F.CUE)); run(40)     # foul reason, run lost, fouls, ball in hand
g.shot(F.B3 | (F.B3 << F.HELD)); run(40)           # ball held off the table
p.composing = True
for f in (F.B5, F.CUE_POCKET << F.CUE, F.B1 | (F.B1 << F.JUMPED)):
    p.facts = f
    p.preview = g.preview(f)
    for field in range(6):
        p.field = field
        run(12)
p.composing = False
p.field = 0
for note in range(10):
    p.note = note
    p.reject = 4
    run(12)
p.note = 0
g.new_game(2, 0)
g.shot(F.FIRST_NONE << F.FIRST); run(30)           # failed opening: choice
g.choice(False)
for k in range(8):
    g.shot(ELEVEN)
g.shot(3 << F.CAROM); run(30)                      # caroms only
for k in range(5):
    g.shot(3 << F.CAROM)
run(30)                                            # the called 101st point
g.shot((F.FIRST_B1 << F.FIRST) | (F.CUE_CALLED << F.CUE)); run(40)   # winner
p.mode = U.MODE_STATS
Stats.innings[0] = 7
Stats.points[0] = 101
Stats.best[0] = 100
run(40)                                            # winner and statistics
p.note = U.NOTE_GAME_OVER
run(20)                                            # a refused key after the win
p.note = 0
print("fails", fails, "bytes", i2c.bytes + spi.bytes, "winner", g.winner)
'''


def test_screens_update_allocates_nothing_in_any_situation():
    res = check(code=SCRIPT, heapsize="512K")
    words = res.lines()[-1].split()
    got = dict(zip(words[0::2], map(int, words[1::2])))      # "fails 0 bytes ..."
    assert got["fails"] == 0, res.out
    assert got["bytes"] > 0 and got["winner"] == 0, got


BUILDS_SCRIPT = r'''
import gc, micropython
from cowboy.game import Game
g = Game()
from board import config
from fakebuses import CountingI2C, CountingSPI, CountingPin
from display.screens import build
''' + PANEL + r'''
p = Panel()
g.new_game(8, 0)
for name in ("tm1637", "max7219", "ht16k33", "oled4", "oled8"):
    cfg = config.BUILDS[name]
    buses = {}
    for b in cfg["buses"]:
        buses[b] = CountingSPI() if cfg["buses"][b]["kind"] == "spi" else CountingI2C()
    scr = build(cfg, buses, lambda n: CountingPin())
    for d in scr.displays:
        if hasattr(d, "DELAY_US"):
            d.DELAY_US = 0
    now = 0
    p.mode = U.MODE_HELLO
    for k in range(5):
        now += 50
        scr.update(g, p, now)
    p.mode = U.MODE_GAME
    scr.update(g, p, now)
    gc.collect()
    fails = 0
    micropython.heap_lock()
    try:
        for k in range(60):
            now += 101
            scr.update(g, p, now)
    except MemoryError:
        fails = 1
    micropython.heap_unlock()
    sent = 0
    for b in buses.values():
        sent += b.bytes
    print(name, len(scr.displays), fails, sent)
    scr = None
    gc.collect()
'''


def test_every_board_build_builds_and_updates_without_allocating():
    res = check(code=BUILDS_SCRIPT, heapsize="512K")
    rows = [line.split() for line in res.lines()]
    assert [r[0] for r in rows] == ["tm1637", "max7219", "ht16k33", "oled4", "oled8"]
    for name, count, fails, sent in rows:
        assert count == ("4" if name == "oled4" else "8")
        assert fails == "0", name
        assert name == "tm1637" or int(sent) > 0
