"""The panel under the real micropython: event handling allocates nothing (heap
locked through whole games, win, statistics, menu and new game), and 200 random
games leave the heap where it was."""
from mpy import check

GAME_CODE = r"""
import micropython, gc
from array import array
from cowboy.game import Game
from cowboy import codes as C
from app.keys import KEYS
from app.panel import Panel, PRESS, RELEASE, LONG, CW, CCW
from app.settings import Settings
from app.buzzer import Buzzer

class PWM:
    def __init__(self):
        self.f = 0
        self.d = 0
    def freq(self, f):
        self.f = f
    def duty_u16(self, d):
        self.d = d

def k(name):
    return KEYS.index(name)

seq = []
def key(name, long=False):
    seq.append(PRESS << 8 | k(name))
    if long:
        seq.append(LONG << 8 | k(name))
    seq.append(RELEASE << 8 | k(name))

def keys(*names):
    for n in names:
        if n.startswith("HOLD "):
            key(n[5:], True)
        elif n == "ENC+":
            seq.append(CW << 8)
        elif n == "ENC-":
            seq.append(CCW << 8)
        else:
            key(n)

# One full game: opening failed and repeated, points, fouls, rejects, fields,
# 100 and the win, undo and redo of it, statistics, menu, a new game.
keys("HOLD MISS", "3", "OK", "HOLD MISS", "OK")          # failed twice, repeated
keys("5", "OK", "MISS", "HOLD SCRATCH", "MISS", "HOLD FOUL")   # P1 banks 5; P2 fouls
for i in range(7):
    keys("1", "3", "5", "C3", "OK")
keys("5", "3", "OK")                                     # P1 at 90
keys("ENC+", "ENC", "ENC", "ENC+", "ENC", "ENC", "ENC-", "ENC-", "UNDO")
keys("OK", "C3", "MISS", "UNDO", "HOLD 1", "1", "UNDO", "REDO")
for i in range(5):
    keys("C3", "OK")                                     # 100
keys("HOLD 5", "UNDO", "OK", "OK", "3", "UNDO", "REDO")  # the win, undone, redone
keys("OK", "ENC+", "OK")                                 # new game, player 1 opens
# the set-up menu: players, who opens and brightness each turned and turned back (every
# round then starts from the same game)
keys("HOLD ENC", "ENC+", "ENC-", "ENC", "ENC-", "ENC+", "ENC", "ENC+", "ENC-", "UNDO")
# the house rules page: a switch on, asked, refused, dropped; on again and confirmed
# (a new game with it); then off again, confirmed by ENC
keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC+", "ENC", "ENC", "ENC", "ENC", "MISS", "UNDO")
keys("ENC+", "OK", "OK", "3", "OK")
keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC-", "ENC", "ENC", "ENC", "ENC", "ENC")
keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "HOLD ENC")
events = array("i", seq)

game = Game()
pwm = PWM()
panel = Panel(game, Settings(), buzzer=Buzzer(pwm))
panel.start(0)

# per round of the sequence: games won, keys refused, keys accepted, events with the
# house rule on, events with the statistics shown (preallocated: the lock is on)
FIGURES = ("won", "refused", "accepted", "ruled", "stats")
ROUNDS = 7
got = array("i", bytes(4 * len(FIGURES) * ROUNDS))

def play(t, r):
    at = r * len(FIGURES)
    refused = panel.refused
    accepted = panel.accepted
    over = game.phase == C.PHASE_OVER
    for i in range(len(events)):
        panel.event(events[i], t)
        panel.buzzer.update(t)
        panel.tick(t)
        if game.phase == C.PHASE_OVER and not over:
            got[at] += 1
        over = game.phase == C.PHASE_OVER
        if game.rules:
            got[at + 3] += 1
        if panel.mode == 3:
            got[at + 4] += 1
        t += 50
    got[at + 1] = panel.refused - refused
    got[at + 2] = panel.accepted - accepted
    return t

t = play(0, 0)         # warm-up: every path once
t = play(t, 1)
gc.collect()
micropython.heap_lock()
for r in range(2, ROUNDS):
    t = play(t, r)
micropython.heap_unlock()
print("ROUNDS", [{FIGURES[k]: got[r * len(FIGURES) + k] for k in range(len(FIGURES))}
                 for r in range(ROUNDS)])
print("RULES", game.rules, panel.settings.rules)
print("HEAP-LOCK-OK", len(events))
"""


def test_panel_handles_events_with_the_heap_locked():
    """The locked rounds play the sequence as the unlocked ones do: each round wins
    a game (the win undone and redone: twice), shows the statistics, switches the
    house rule on and off again, and refuses and accepts the same keys."""
    import ast
    res = check(code=GAME_CODE, heapsize="192K")
    lines = res.lines()
    assert lines[-1].startswith("HEAP-LOCK-OK"), res.out
    assert lines[-2] == "RULES 0 0", res.out     # the house rule switched off at the end
    assert lines[-3].startswith("ROUNDS "), res.out
    rounds = ast.literal_eval(lines[-3][len("ROUNDS "):])
    one = rounds[1]                               # unlocked, after the warm-up
    assert one["won"] == 2 and one["stats"] > 0 and one["ruled"] > 0, one
    assert one["refused"] > 0 and one["accepted"] > 100, one
    assert rounds[2:] == [one] * 5, rounds        # the 5 rounds with the heap locked
SOAK_CODE = r"""
import gc, random
from array import array
from cowboy.game import Game
from cowboy import codes as C
from app.keys import KEYS
from app.panel import Panel, PRESS, RELEASE, LONG, CW, CCW
from app.settings import Settings

random.seed(5)
game = Game()
panel = Panel(game, Settings())
panel.start(0)
NAMES = ("1", "3", "5", "C2", "C3", "OK", "OK", "OK", "MISS", "MISS", "FOUL",
         "SCRATCH", "UNDO", "REDO", "ENC")
codes = [KEYS.index(n) for n in NAMES]
LONGS = (KEYS.index("MISS"), KEYS.index("SCRATCH"), KEYS.index("FOUL"), KEYS.index("1"))

def press(c, long):
    panel.event(PRESS << 8 | c, 0)
    if long:
        panel.event(LONG << 8 | c, 0)
    panel.event(RELEASE << 8 | c, 0)

OK = KEYS.index("OK")
FOUL = KEYS.index("FOUL")
UNDO = KEYS.index("UNDO")
free = array("i", bytes(4 * 200))   # preallocated: the soak's own record
games = 0
keys = 0
winners = [0] * 8
ENC = KEYS.index("ENC")
while games < 200:
    # the next game through the keys: the set-up menu (HOLD ENC) for the number of
    # players, OK starts it
    players = 2 + games % 7
    press(ENC, True)
    if panel.mode != 2:
        raise SystemExit("menu did not open")
    while panel.settings.players != players:
        panel.event((CW if panel.settings.players < players else CCW) << 8, 0)
    press(OK, False)
    n = 0
    while game.phase != C.PHASE_OVER:
        n += 1
        if n > 400:                     # long games end by three fouls in a row
            if panel.composing:
                press(UNDO, False)
            else:
                press(OK if game.phase == C.PHASE_CHOICE else FOUL, False)
        else:
            r = random.getrandbits(5)
            if r < len(codes):
                press(codes[r], False)
            elif r < len(codes) + len(LONGS):
                press(LONGS[r - len(codes)], True)
            elif r < 28:
                panel.event((CW if r & 1 else CCW) << 8, 0)
            else:
                press(OK, False)
    keys += n
    winners[game.winner] += 1
    games += 1
    gc.collect()
    free[games - 1] = gc.mem_free()
print("games", games, "keys", keys, "winners", sum(winners), "players", game.players)
print("free", free[9], free[-1], min(free[10:]))
"""


def test_soak_200_random_games_heap_stays_flat():
    res = check(code=SOAK_CODE, heapsize="192K", timeout=60)
    lines = res.lines()
    words = lines[-2].split()
    got = dict(zip(words[0::2], words[1::2]))    # "games 200 keys ..." by name
    assert got["games"] == "200" and got["winners"] == "200"
    assert got["players"] == str(2 + 199 % 7)    # the last game set up through the menu
    free = [int(x) for x in lines[-1].split()[1:]]
    # After the first games warmed every path up, free memory never drops again.
    assert free[1] >= free[0] and free[2] >= free[0], res.out


HALL_CODE = r"""
import micropython, gc
from array import array
from cowboy.game import Game
from app.keys import KEYS
from app.panel import Panel, PRESS, RELEASE, LONG, CW, CCW
from app.hallmenu import NoNet
from app.settings import Settings

class Net(NoNet):
    # hall mode as the panel sees it: the state changes, the names; rename() saves
    def __init__(self):
        self.names = [b"club", b"t01"]
        self.st = 2
        self.n = 0
        self.saved = 0
    def state(self):
        return self.st
    def pending(self):
        return self.n
    def name(self, k):
        return self.names[k]
    def rename(self, hall, table):
        self.names = [hall, table]
        self.saved += 1
        return True

seq = []
def keys(*names):
    for n in names:
        if n == "ENC+":
            seq.append(CW << 8)
        elif n == "ENC-":
            seq.append(CCW << 8)
        else:
            long = n.startswith("HOLD ")
            c = KEYS.index(n[5:] if long else n)
            seq.append(PRESS << 8 | c)
            if long:
                seq.append(LONG << 8 | c)
            seq.append(RELEASE << 8 | c)

# the menu to the connection, the hall (edited, left with UNDO), the table (a turn
# opens the editor: characters changed, the end mark, on past it; UNDO), the end
keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC")
keys("ENC", "OK", "ENC+", "ENC", "ENC-", "ENC-", "ENC", "ENC", "ENC", "ENC+", "ENC-", "UNDO")
keys("ENC", "ENC+", "ENC+", "ENC", "ENC", "ENC", "ENC+", "ENC", "ENC+", "ENC", "ENC-",
     "MISS", "UNDO", "ENC", "HOLD ENC")
events = array("i", seq)
game = Game()
net = Net()
panel = Panel(game, Settings())
panel.set_net(net)
panel.start(0)

top = -1
def play(t):
    global top
    for i in range(len(events)):
        panel.event(events[i], t)
        panel.tick(t)
        if panel.editor.cursor > top:
            top = panel.editor.cursor           # how far the editor got
        if panel.menu_item == 10:
            net.st = 3 if net.st == 2 else 2    # the connection changes meanwhile
            net.n = (net.n + 1) & 7
        t += 50
    return t

t = play(0)
gc.collect()
micropython.heap_lock()
for r in range(5):
    t = play(t)
micropython.heap_unlock()
print("FIGURES", {"saved": net.saved, "refused": panel.refused, "accepted": panel.accepted,
                 "name_len": panel.editor.length, "cursor": panel.editor.cursor,
                 "mode": panel.mode, "top": top})
print("HEAP-LOCK-OK", len(events))
"""


def test_the_hall_items_and_the_name_editor_allocate_nothing():
    import ast
    res = check(code=HALL_CODE, heapsize="192K")
    lines = res.lines()
    assert lines[-1].startswith("HEAP-LOCK-OK"), res.out
    assert lines[-2].startswith("FIGURES "), res.out
    got = ast.literal_eval(lines[-2][len("FIGURES "):])
    assert got["saved"] == 0                  # every edit left with UNDO: nothing saved
    assert got["refused"] == 6                # MISS refused in the editor, in each of 6 runs
    assert got["accepted"] > 100
    assert (got["name_len"], got["cursor"], got["mode"]) == (3, -1, 1)   # t01 as it was,
    # not editing, the game
    assert got["top"] == 5                    # the editor went past the end of "t01"
