"""What each player's display shows: the view rules.

`Seat` reads the rules core (`cowboy.game.Game`) and the panel (`views.ui`) and
decides, for one player, a main value (score, player number, menu value ...) and a
short list of items (the run, stage cue, fouls, cue ball in hand, balls held off
the table, the reason of a foul and the run it wiped, a note, the preview of a
stroke). Three layouts turn that into text:

- `Layout4`  4-digit seven-segment: the score page and the items take turns.
- `Layout8`  8-digit seven-segment: an item (or the player number) on the left four
             digits, the score always on the right three.
- `LayoutOLED` 128x64: a status line, the score in big digits, the run beside
             them, and a line of text for the items, which take turns.

The player at the table shows the live total (banked score + the run of this
inning), marked provisional: decimal points lit on seven segments, the run beside
the big digits on an OLED. A foul wipes the run: the fouler's display drops back
to the banked score and shows the run it lost.

An urgent item (a note, a preview, the failed-opening choice) shows alone.

Every text a seven-segment display can show comes from the tables below (the
`*4` tables, with their `*21` OLED twins); docs/DISPLAYS.md's legend is generated
from them by tools/legend.py.

Rendering writes into preallocated bytearrays and allocates nothing; texts are
bytes constants. See docs/DISPLAYS.md for the rules with pictures.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Only named constants of these three are read here (an outcome's or a stroke's
# fields by their shifts, not codes.reason() and the like): the device build folds
# them in (tools/constfold.py), so the board draws its first picture without
# importing any of them.
from cowboy import codes as C
from cowboy import facts as F
from views import ui as U
from draw.blit import blit, fill, decimal
from ticks import ticks_diff

# Main value of a seat.
MAIN_BLANK = const(0)     # seat not in the game
MAIN_HELLO = const(1)     # player number (start-up wiring check)
MAIN_SCORE = const(2)     # the score: banked, or the live total at the table
MAIN_OUT = const(3)       # eliminated (three fouls)
MAIN_WIN = const(4)       # the winner
MAIN_OVER = const(5)      # game over, not the winner: final score
MAIN_MENU = const(6)      # set-up menu value

# Items, shown in turn (ordinary) or alone (urgent, >= IT_URGENT).
IT_INNING = const(1)      # arg: the run (inning points) of the player at the table
IT_NEED = const(2)        # arg: points to reach exactly 90
IT_CAROMS = const(3)      # arg: points to 100 (caroms only)
IT_CALL = const(4)        # the called 101st point
IT_OPENING = const(5)     # opening stroke: 3 ball first
IT_HAND = const(6)        # cue ball in hand
IT_HELD = const(7)        # arg: ball mask off the table
IT_FOULS = const(8)       # arg: consecutive fouls (1 or 2)
IT_REASON = const(9)      # arg: foul reason of this player's last stroke
IT_OUT = const(10)
IT_WAIT = const(11)       # arg: winner (game over, other players)
IT_STAT_BEST = const(12)  # arg: best inning
IT_STAT_INN = const(13)   # arg: innings played
IT_STAT_FOULS = const(14)  # arg: fouls
IT_STAT_AVG = const(15)   # arg: points per inning x10
IT_LOST = const(16)       # arg: the run a foul just wiped (fouler's display)
IT_BUILD = const(17)      # start-up: the display build (panel.build)
IT_NOTICE = const(18)     # arg: start-up notice (ui.NOTICE_*), panel.notice_arg
IT_RULE = const(19)       # arg: house rule k, on (start-up pages)
IT_URGENT = const(32)
IT_NOTE = const(32)       # arg: note code (panel.reject for NOTE_REJECTED)
IT_PREVIEW = const(33)    # arg: the core's outcome code, or -reject
IT_FIELD = const(34)      # arg: field code (value from panel.facts)
IT_CHOICE = const(35)     # failed opening: repeat or take
IT_MENU = const(36)       # arg: menu item

MAX_ITEMS = const(8)
PAGE_MS = U.PAGE_MS       # how long each item shows when several take turns

# ---- texts -------------------------------------------------------------------
# Four characters for seven segments (see segments.py for what reads well) and up
# to 21 for the OLED text line. Indexed by code.
# Foul reasons (cowboy.codes R_*): the cue-ball ones read as the CUE field's values.
REASON4 = (b"FoUL", b"noHt", b"not1", b"othr", b"CoFF", b"CPoc", b"rL n", b"FoUL",
           b"b 90", b"P 90", b"P100", b"b100")
REASON21 = (b"FOUL", b"FOUL: NO CONTACT", b"FOUL: 1 BALL NOT 1ST",
            b"FOUL: OTHER BALL HIT", b"FOUL: CUE BALL OFF", b"FOUL: SCRATCH",
            b"FOUL: NO RAIL", b"FOUL", b"FOUL: BALL AT 90+", b"FOUL: PAST 90",
            b"FOUL: PAST 100", b"FOUL: BALL AT 100")
NOTE4 = (b"    ", b"bAL?", b"UndO", b"Err ", b"nonE", b"nonE", b"rEP?", b"101?",
         b"End ", b"FLSh")
NOTE21 = (b"", b"BALLS/CAROM, THEN OK", b"CLEAR FIRST (UNDO)", b"NOT POSSIBLE",
          b"NOTHING TO UNDO", b"NOTHING TO REDO", b"OK=REPEAT  ENC=TAKE",
          b"OK AGAIN: 101", b"GAME OVER", b"STORAGE FAILING")
REJECT21 = (b"OK", b"CONTACT MISSING", b"NO RAIL BUT POCKETED", b"POCKETED AND JUMPED",
            b"BALL IS OFF TABLE", b"CAROM: TOO MANY", b"HELD BALL ON TABLE",
            b"CANNOT HOLD ALL 3", b"CHOICE IS DUE", b"NO CHOICE DUE", b"GAME IS OVER",
            b"NOTHING TO UNDO", b"NOTHING TO REDO", b"VALUE OUT OF RANGE",
            b"PLAYERS 2 TO 8")
FIELD21 = (b"", b"FIRST CONTACT:", b"RAIL AFTER CONTACT:", b"JUMPED:", b"HELD OFF:",
           b"CUE BALL:")
CUE4 = (b"tAb", b"Poc", b"CAL", b"oFF")
CUE21 = (b"TABLE", b"POCKET", b"CALLED", b"OFF")
# Set-up menu items (ui.MENU_*); the house rule items show RULE4/RULE21 instead.
MENU4 = (b"PL", b"oP", b"br", b"", b"", b"", b"", b"", b"Go", b"Go ?")
MENU21 = (b"PLAYERS", b"OPENING PLAYER", b"BRIGHTNESS", b"", b"", b"", b"",
          b"DISPLAYS: ", b"START: PRESS OK", b"OK=NEW GAME UNDO=BACK")
MENU8 = (b"PLAy ", b"oPEn ", b"brItE", b"", b"", b"", b"", b"bLd", b"Go", b"Go ?")
# House rules (cowboy/houserules.py NAMES order): a short name, on or off.
RULE4 = (b"CA", b"90", b"10", b"tA")
RULE21 = (b"CAROM: NO CUSHION", b"90-99: POCKET NO FOUL", b"100: POCKETING = FOUL",
          b"TAKE AS THE BALLS LIE")
ONOFF4 = (b"oF", b"on")
ONOFF8 = (b"oFF", b" on")
# The display builds (board/config.py BUILDS names) and their 4-digit codes.
BUILD4 = ((b"tm1637", b"1637"), (b"max7219", b"7219"), (b"ht16k33", b"Ht16"),
          (b"oled4", b"oLd4"), (b"oled8", b"oLd8"))
# What start-up found (ui.NOTICE_*).
NOTICE4 = (b"", b"CUt ", b"bAd ", b"FLSh")
NOTICE21 = (b"", b"LOST LAST ACTIONS: ", b"UNREADABLE: NEW GAME", b"STORAGE FAILING")
# The items' own words (IT_*), each followed by its number where it has one.
RUN4 = b"r"               # the run: r 17
NEED4 = b"to"             # to 8: 8 points to exactly 90
LOST4 = b"-"              # - 17: the run a foul wiped
BEST4 = b"hi"             # statistics: high run (best inning)
INN4 = b"In"              # statistics: innings played
AVG4 = b"A"               # statistics: average
FOULS4 = b"F"             # fouls in a row; statistics: fouls
HELLO4 = b"P"             # start-up: the player number

# What a previewed stroke says, in this order of importance (see _outcome); the
# texts come first, a number or a reason follows for a reject, a foul, points.
PV_REJECT = const(0)
PV_WIN = const(1)
PV_FAILED = const(2)
PV_OUT = const(3)
PV_FOUL = const(4)
PV_POINTS = const(5)
PREVIEW4 = (b"E", b" 101", b"not3", b"Out?", b"", b"=")
PREVIEW21 = (b"NO: ", b"WINS THE GAME: 101", b"FAILED OPENING", b"THIRD FOUL: OUT", b"",
             b"STROKE +")

_SPACE = const(32)


def _pick(table, i):
    """table[i], or table[0] for a code the table does not have."""
    return table[i] if 0 <= i < len(table) else table[0]


def _outcome(a):
    """PV_* for a preview: the core's outcome code, or -reject."""
    if a < 0:
        return PV_REJECT
    if a & C.WIN:
        return PV_WIN
    if a & C.FAILED_OPENING:
        return PV_FAILED
    if a & C.ELIMINATED:
        return PV_OUT
    if a & C.FOUL_FLAG:
        return PV_FOUL
    return PV_POINTS


def _blink(now_ms):
    """True in the dark half of the winner's blink."""
    return (now_ms // (PAGE_MS // 2)) & 1


class Text:
    """A fixed-size line of ASCII bytes with a write position; allocates nothing."""

    def __init__(self, size):
        self.buf = bytearray(size)
        self.size = size
        self.pos = 0
        self.clear()

    # Whole-buffer work in C or native code: a loop in Python costs some 15 us
    # per byte on the RP2040 (and a slice store allocates on MicroPython v1.24).
    def clear(self):
        fill(self.buf, 0, self.size, _SPACE)
        self.pos = 0

    def at(self, pos):
        self.pos = pos

    def s(self, b):
        p = self.pos
        n = len(b)
        self.pos = p + n
        if p + n > self.size:
            n = self.size - p
        if n > 0:
            blit(self.buf, p, b, 0, n, 0)

    def c(self, ch):
        if self.pos < self.size:
            self.buf[self.pos] = ch
        self.pos += 1

    def n(self, v, width=0):
        """v in decimal, right-aligned in `width` characters (0: as wide as needed)."""
        self.pos = decimal(self.buf, self.pos, self.size, v, width)

    def balls(self, mask, sep):
        """The numbers of the balls in `mask` (F.B1, B3, B5), separated by `sep`."""
        first = True
        for k in range(3):
            if mask & (1 << k):
                if not first and sep:
                    self.c(sep)
                self.c(49 + 2 * k)
                first = False

    def pad_digits(self, n):
        """Cut or pad with spaces so that exactly n digits precede the position
        (a '.' lights the point of the digit before it and takes no digit)."""
        buf = self.buf
        size = self.size
        d = 0
        for i in range(self.pos):
            if buf[i] != 46 or i == 0:
                d += 1
            if d > n:
                self.pos = i
                fill(buf, i, size - i, _SPACE)
                return
        p = self.pos
        while d < n:
            if p < size:
                buf[p] = _SPACE
            p += 1
            d += 1
        self.pos = p

    def same(self, other):
        return self.buf == other.buf

    def copy(self, other):
        blit(self.buf, 0, other.buf, 0, self.size, 0)


class Context:
    """What all seats share in one update: who played the last stroke if it was a
    foul (the core's `last` says a foul happened, not who played it).

    After a foul the next player in the rotation comes to the table, so the fouler
    is the first player before the shooter who is still in. A foul that eliminated
    its player leaves a run of players out; then the player seen at the table
    before the state changed is taken (the main loop updates once per action)."""

    def __init__(self):
        self.fouler = -1
        self.lost = 0             # the run the fouler's foul wiped (0: none or unknown)
        self._shooter = -1
        self._seen = -1
        self._pos = -1
        self._run = 0

    def update(self, game):
        last = game.last
        s = game.shooter
        if s != self._shooter:
            self._seen = self._shooter
            self._shooter = s
        # The run a foul wiped is the one seen just before it: known when the foul
        # was seen being played (one action forward), not after an undo back to it.
        pos = game.position()
        if pos != self._pos:
            self.lost = self._run if pos == self._pos + 1 and last & C.FOUL_FLAG else 0
            self._pos = pos
        self._run = game.inning
        self.fouler = -1
        if not last & C.FOUL_FLAG:
            return
        if last & C.ELIMINATED or s < 0:
            p = self._seen
            if p >= 0 and game.out >> p & 1:
                self.fouler = p
            return
        p = s
        for _ in range(game.players):
            p = p - 1 if p > 0 else game.players - 1
            if not game.out >> p & 1:
                self.fouler = p
                return


class Seat:
    """One player's situation: main value, items, at the table or not."""

    def __init__(self, index):
        self.index = index
        self.t0 = 0              # when the start-up pages began (panel.t_start)
        self.build = b""         # the display build's name (start-up, menu)
        self.notice = 0          # start-up notice arg (records lost)
        self.main = MAIN_BLANK
        self.value = 0           # the main number
        self.at_table = False
        self.inning = 0
        self.items = bytearray(MAX_ITEMS)
        self.args = [0] * MAX_ITEMS     # ints (outcome codes exceed a byte)
        self.count = 0
        self.urgent = False
        self.facts = 0
        self.reject = 0
        self.hall = None         # hall items of the menu: the panel (hallviews reads it)

    def _add(self, item, arg):
        if self.count < MAX_ITEMS:
            self.items[self.count] = item
            self.args[self.count] = arg
            self.count += 1

    def _note(self, panel):
        """The panel's note, alone (urgent)."""
        self.urgent = True
        self.count = 0
        self.reject = panel.reject
        self._add(IT_NOTE, panel.note)

    def update(self, game, panel, ctx):
        i = self.index
        self.count = 0
        self.urgent = False
        self.at_table = False
        self.inning = 0
        self.value = i + 1
        mode = panel.mode if panel is not None else U.MODE_HELLO
        if mode == U.MODE_HELLO or game is None:
            self.main = MAIN_HELLO
            if panel is not None:
                self._hello(game, panel)
            return
        if mode == U.MODE_MENU:
            self._menu(panel)
            return
        if i >= game.players:
            self.main = MAIN_BLANK
            return
        self.value = game.scores[i]
        if game.phase == C.PHASE_OVER:
            # The winner view stays; the statistics join its pages once counted.
            if game.winner == i:
                self.main = MAIN_WIN
            else:
                self.main = MAIN_OUT if game.out >> i & 1 else MAIN_OVER
                self._add(IT_WAIT, game.winner)
            if mode == U.MODE_STATS and panel.stats.ready:
                self._stats(panel)
            if game.shooter < 0 and panel.note != U.NOTE_NONE:
                self._note(panel)
            return
        if game.out >> i & 1:
            self.main = MAIN_OUT
            if ctx.fouler == i:
                self._add(IT_REASON, game.last >> C.REASON_SHIFT & C.REASON_MASK)
                if ctx.lost:
                    self._add(IT_LOST, ctx.lost)
            self._add(IT_OUT, 0)
            return
        self.main = MAIN_SCORE
        if game.shooter != i:
            # (at most three items from none: _add's writes without its calls,
            # this runs for a seat a stroke changes)
            items = self.items
            args = self.args
            n = 0
            if ctx.fouler == i:
                items[0] = IT_REASON
                args[0] = game.last >> C.REASON_SHIFT & C.REASON_MASK
                n = 1
                if ctx.lost:
                    items[1] = IT_LOST
                    args[1] = ctx.lost
                    n = 2
            f = game.fouls[i]
            if f:
                items[n] = IT_FOULS
                args[n] = f
                n += 1
            self.count = n
            return
        # at the table: the live total, the run of this inning in it
        self.at_table = True
        self.inning = game.inning
        self.value += self.inning
        if panel.note != U.NOTE_NONE:
            self._note(panel)
            return
        if game.phase == C.PHASE_CHOICE:
            self.urgent = True
            self._add(IT_CHOICE, 0)
            return
        if panel.composing:
            self.urgent = True
            self.facts = panel.facts
            if panel.field != U.FIELD_NONE:
                self._add(IT_FIELD, panel.field)
            self._add(IT_PREVIEW, panel.preview)
            return
        # (at most five items from none: _add's writes without its calls)
        total = self.value
        items = self.items
        args = self.args
        n = 0
        if self.inning:
            items[0] = IT_INNING
            args[0] = self.inning
            n = 1
        ph = game.phase
        if ph == C.PHASE_OPENING:
            items[n] = IT_OPENING
            args[n] = 0
            n += 1
        elif ph == C.PHASE_POINTS:
            if 90 - total <= 11:
                items[n] = IT_NEED
                args[n] = 90 - total
                n += 1
        elif ph == C.PHASE_CAROMS:
            items[n] = IT_CAROMS
            args[n] = 100 - total
            n += 1
        elif ph == C.PHASE_FINAL:
            items[n] = IT_CALL
            args[n] = 0
            n += 1
        if game.cue_in_hand:
            items[n] = IT_HAND
            args[n] = 0
            n += 1
        if game.off_table:
            items[n] = IT_HELD
            args[n] = game.off_table
            n += 1
        f = game.fouls[i]
        if f:
            items[n] = IT_FOULS
            args[n] = f
            n += 1
        self.count = n

    def _hello(self, game, panel):
        """Start-up pages besides the player number: the display build, what the
        journal's resume found, each house rule the game plays with."""
        self.t0 = panel.t_start
        self.build = panel.build
        self._add(IT_BUILD, 0)
        if panel.notice:
            self.notice = panel.notice_arg
            self._add(IT_NOTICE, panel.notice)
        r = game.rules if game is not None else 0
        for k in range(U.RULES):
            if r >> k & 1:
                self._add(IT_RULE, k)

    def _menu(self, panel):
        item = panel.menu_item
        v = panel.menu_value
        st = panel.settings
        self.main = MAIN_MENU
        self.urgent = True
        self.build = panel.build
        self._add(IT_MENU, item)
        self.value = v
        n = v if item == U.MENU_PLAYERS else (st.players if st is not None else 8)
        if self.index >= n:
            self.main = MAIN_BLANK       # seats beyond the player count stay dark
        elif item == U.MENU_OPENER:
            self.value = v + 1           # menu_value is the 0-based opener
            self.at_table = self.index == v
        elif item == U.MENU_START:
            self.value = st.players if st is not None else 8
        elif item >= U.MENU_NET:         # hall mode (views/hall.py)
            self.hall = panel

    def _stats(self, panel):
        i = self.index
        st = panel.stats
        self._add(IT_STAT_BEST, st.best[i])
        self._add(IT_STAT_INN, st.innings[i])
        n = st.innings[i]
        self._add(IT_STAT_AVG, (st.points[i] * 10) // n if n else 0)
        self._add(IT_STAT_FOULS, st.fouls[i])


def _turn(seat, now_ms, with_main, skip=0):
    """Index of the item on show (-1: the main page) when items take turns;
    items with code `skip` are left out."""
    if not skip:
        # every item takes its turn (no item code is 0): no loops
        n = seat.count + 1 if with_main else seat.count
        if n == 0:
            return -1
        k = (now_ms // PAGE_MS) % n
        return k - 1 if with_main else k
    n = 0
    for i in range(seat.count):
        if seat.items[i] != skip:
            n += 1
    if with_main:
        n += 1
    if n == 0:
        return -1
    k = (now_ms // PAGE_MS) % n
    if with_main:
        if k == 0:
            return -1
        k -= 1
    for i in range(seat.count):
        if seat.items[i] != skip:
            if k == 0:
                return i
            k -= 1
    return -1


def item4(t, seat, k):
    """Four characters for item k of the seat, at the write position of t."""
    it = seat.items[k]
    a = seat.args[k]
    if it == IT_INNING:
        t.s(RUN4)
        t.n(a, 3)
    elif it == IT_REASON:            # (the items a stroke shows, first)
        t.s(REASON4[a] if 0 <= a < len(REASON4) else REASON4[0])   # _pick()
    elif it == IT_HAND:
        t.s(b"hAnd")
    elif it == IT_FOULS:
        t.s(FOULS4)
        t.n(a, 3)
    elif it == IT_NEED:
        t.s(NEED4)
        t.n(a, 2)
    elif it == IT_CAROMS:
        t.s(b"CAro")
    elif it == IT_CALL:
        t.s(b"CALL")
    elif it == IT_OPENING:
        t.s(b"oPEn")
    elif it == IT_HELD:
        t.c(111)                     # 'o' for off
        start = t.pos
        t.balls(a, 0)
        while t.pos < start + 3:
            t.c(_SPACE)
    elif it == IT_OUT:
        t.s(b"Out ")
    elif it == IT_WAIT:
        t.s(b"End ")
    elif it == IT_STAT_BEST:
        if a < 100:
            t.s(BEST4)
            t.n(a, 2)
        else:
            t.c(BEST4[0])
            t.n(a, 3)
    elif it == IT_STAT_INN:
        if a < 100:
            t.s(INN4)
            t.n(a, 2)
        else:
            t.c(INN4[1])
            t.n(a, 3)
    elif it == IT_STAT_AVG:
        t.s(AVG4)
        if a >= 1000:
            t.n(a // 10, 3)
        else:
            t.n(a // 10, 2)
            t.c(46)
            t.n(a % 10)
    elif it == IT_STAT_FOULS:
        t.s(FOULS4)
        t.n(a, 3)
    elif it == IT_LOST:
        t.s(LOST4)
        t.n(a, 3)
    elif it == IT_BUILD:
        t.s(_build4(seat.build))
    elif it == IT_NOTICE:
        t.s(_pick(NOTICE4, a))
    elif it == IT_RULE:
        _rule4(t, a, 1)
    elif it == IT_NOTE:
        if a == U.NOTE_REJECTED:
            t.s(b"E")
            t.n(seat.reject, 3)
        else:
            t.s(_pick(NOTE4, a))
    elif it == IT_CHOICE:
        t.s(b"rEP?")
    elif it == IT_FIELD:
        _field4(t, a, seat.facts)
    elif it == IT_PREVIEW:
        k = _outcome(a)
        t.s(PREVIEW4[k])
        if k == PV_REJECT:
            t.n(-a, 3)
        elif k == PV_FOUL:
            t.s(_pick(REASON4, a >> C.REASON_SHIFT & C.REASON_MASK))
        elif k == PV_POINTS:
            t.n(a & C.POINTS_MASK, 3)
    elif it == IT_MENU:
        if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
            _rule4(t, a - U.MENU_RULE, seat.value)
        elif a == U.MENU_BUILD:
            t.s(_build4(seat.build))
        elif a >= U.MENU_NET:
            _hall().item7(t, seat, a, 4)
        else:
            t.s(MENU4[a])
            if a < U.MENU_RULE:
                t.n(seat.value, 2)


def _hall():
    """views/hall.py, the hall items of the set-up menu: imported the first
    time one shows (hall mode only), so a plain Pico keeps the RAM."""
    global _hallviews
    if _hallviews is None:
        from views import hall as hallviews
        _hallviews = hallviews
    return _hallviews


_hallviews = None


def _rule4(t, k, on):
    """`CA.on`: house rule k's short name, a point, on or off."""
    t.s(RULE4[k])
    t.c(46)
    t.s(ONOFF4[1 if on else 0])


def _build4(name):
    """The 4-digit code of a display build's name (bytes)."""
    for i in range(len(BUILD4)):
        if BUILD4[i][0] == name:
            return BUILD4[i][1]
    return b"----"


def _field4(t, field, f):
    """`1St3`, `rL y`, `J35`, `h3`, `CPoc`: the field and its value in 4 digits."""
    if field == U.FIELD_FIRST:
        t.s(b"1St")
        v = f >> F.FIRST & F.FIRST_MASK
        if v == F.FIRST_REQUIRED:
            t.c(45)
        elif v == F.FIRST_NONE:
            t.c(48)
        else:
            t.c(49 + 2 * (v - F.FIRST_B1))
    elif field == U.FIELD_RAIL:
        t.s(b"rL n" if f & F.F_NO_RAIL else b"rL y")
    elif field == U.FIELD_JUMPED or field == U.FIELD_HELD:
        t.c(74 if field == U.FIELD_JUMPED else 104)     # J or h
        start = t.pos
        t.balls(_field_balls(field, f), 0)
        if t.pos == start:
            t.c(45)
        while t.pos < start + 3:
            t.c(_SPACE)
    elif field == U.FIELD_CUE:
        t.c(67)                      # C
        t.s(CUE4[f >> F.CUE & F.CUE_MASK])


def _field_balls(field, f):
    """The ball mask FIELD_JUMPED or FIELD_HELD edits."""
    return f >> (F.JUMPED if field == U.FIELD_JUMPED else F.HELD) & F.ALL_BALLS


class Layout4:
    """4-digit seven-segment: score page and items take turns; urgent items alone."""
    DIGITS = 4

    def __init__(self):
        self.text = Text(8)          # room for decimal points

    def render(self, seat, now_ms):
        t = self.text
        fill(t.buf, 0, t.size, _SPACE)     # t.clear() without its call
        t.pos = 0
        m = seat.main
        if m == MAIN_BLANK:
            return t
        if m == MAIN_HELLO:
            k = _turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0:
                item4(t, seat, k)
            else:
                t.s(HELLO4)
                t.n(seat.value, 3)
            return t
        if m == MAIN_MENU:
            item4(t, seat, 0)
            return t
        k = _turn(seat, now_ms, not seat.urgent) if seat.count else -1
        if k >= 0:
            item4(t, seat, k)
            return t
        if m == MAIN_WIN:
            if _blink(now_ms):
                t.s(b"----")
            else:
                t.n(seat.value, 4)
            return t
        if m == MAIN_OUT:
            t.s(b"Out ")
            return t
        _score_dots(t, seat.value, 4, seat.at_table)
        return t


def _score_dots(t, v, width, dots):
    """v right-aligned in `width` (3 or 4) digits; every digit gets a point when
    `dots`."""
    s = t.pos
    t.n(v, width)
    if dots:
        b = t.buf
        # the digits moved apart, the last first (no loop: this runs on every
        # stroke, and a Python loop turn costs tens of microseconds on the chip)
        if width > 3:
            b[s + 7] = 46
            b[s + 6] = b[s + 3]
        b[s + 5] = 46
        b[s + 4] = b[s + 2]
        b[s + 3] = 46
        b[s + 2] = b[s + 1]
        b[s + 1] = 46
        t.pos = s + 2 * width


class Layout8:
    """8-digit seven-segment: item or player number left, banked score right."""
    DIGITS = 8

    def __init__(self):
        self.text = Text(16)

    def render(self, seat, now_ms):
        t = self.text
        fill(t.buf, 0, t.size, _SPACE)     # t.clear() without its call
        t.pos = 0
        m = seat.main
        if m == MAIN_BLANK:
            return t
        if m == MAIN_HELLO:
            k = _turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0:
                item4(t, seat, k)
            else:
                t.s(b"PLAYEr ")
                t.n(seat.value)
            return t
        if m == MAIN_MENU:
            a = seat.args[0]
            if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
                t.s(RULE4[a - U.MENU_RULE])
                t.at(5)
                t.s(ONOFF8[1 if seat.value else 0])
                return t
            if a >= U.MENU_NET:
                _hall().item7(t, seat, a, 8)
                return t
            t.s(MENU8[a])
            if a < U.MENU_RULE:
                t.at(5)
                t.n(seat.value, 3)
            elif a == U.MENU_BUILD:
                t.at(4)
                t.s(_build4(seat.build))
            return t
        k = _turn(seat, now_ms, False) if seat.count else -1
        if k >= 0:
            item4(t, seat, k)
        elif m == MAIN_WIN:
            t.s(b"1St ")
        elif seat.index < 9:
            b = t.buf                  # `P` and the seat's digit, no calls
            b[0] = 80
            b[1] = 49 + seat.index
            t.pos = 2
        else:
            t.s(b"P")
            t.n(seat.index + 1)
        if t.pos <= 5 and b"." not in t.buf:
            t.pos = 5        # no point in it: clear()'s spaces are the padding
        else:
            t.pad_digits(5)
        if m == MAIN_WIN and _blink(now_ms):
            t.s(b"---")
        elif m == MAIN_OUT:
            t.s(b"Out")
        else:
            _score_dots(t, seat.value, 3, seat.at_table)
        return t


# OLED text: [0:21] status line, [21] 'I': the at-table mark (see OLED_MARK_X), [22:26] big characters,
# [26:30] side text (inning points), [30:51] item line.
_TOP = const(0)
_INV = const(21)
_BIG = const(22)
_SIDE = const(26)
_BOTTOM = const(30)
OLED_TEXT = const(51)
COLS = const(21)
OLED_INV = _INV
# The at-table mark: 'I' at _INV lights the status line from this column to the
# right edge, around " AT TABLE" (cells 12-20); a change of shooter rewrites these
# 56 columns on two displays, not two whole pages.
OLED_MARK_X = const(72)
# Where each character of the OLED text is drawn (draw/cells.py): (first index,
# count, kind, x of the first cell, step, top page); kinds 1 small (5x7 on one
# page), 2 big (28x48, pages 1-6), 3 small at double size (two pages).
OLED_CELLS = (
    (_TOP, COLS, 1, 1, 6, 0),         # status line, 6-pixel cells from column 1
    (_BIG, 3, 2, 0, 30, 1),           # big score: 28 columns and a 2-column gap
    (_SIDE, 3, 3, 90, 12, 2),         # inning points beside the score
    (_BOTTOM, COLS, 1, 1, 6, 7),      # item line
)


def item21(t, seat, k):
    it = seat.items[k]
    a = seat.args[k]
    if it == IT_INNING:
        t.s(b"BANKED ")
        t.n(seat.value - a)
        t.s(b" + RUN ")
        t.n(a)
    elif it == IT_NEED:
        t.s(b"NEED ")
        t.n(a)
        t.s(b" FOR EXACTLY 90")
    elif it == IT_CAROMS:
        t.s(b"CAROMS ONLY: ")
        t.n(a)
        t.s(b" LEFT")
    elif it == IT_CALL:
        t.s(b"CALL THE 101ST POINT")
    elif it == IT_OPENING:
        t.s(b"OPENING: 3 BALL FIRST")
    elif it == IT_HAND:
        t.s(b"CUE BALL IN HAND")
    elif it == IT_HELD:
        t.s(b"OFF THE TABLE: ")
        t.balls(a, _SPACE)
    elif it == IT_FOULS:
        if a >= 2:
            t.s(b"2 FOULS: LAST CHANCE")
        else:
            t.s(b"1 FOUL (3 LOSE)")
    elif it == IT_REASON:
        t.s(_pick(REASON21, a))
    elif it == IT_OUT:
        t.s(b"OUT: THREE FOULS")
    elif it == IT_WAIT:
        t.s(b"WINNER: PLAYER ")
        t.n(a + 1)
    elif it == IT_STAT_BEST:
        t.s(b"BEST INNING ")
        t.n(a)
    elif it == IT_STAT_INN:
        t.s(b"INNINGS ")
        t.n(a)
    elif it == IT_STAT_AVG:
        t.s(b"AVERAGE ")
        t.n(a // 10)
        t.c(46)
        t.n(a % 10)
    elif it == IT_STAT_FOULS:
        t.s(b"FOULS ")
        t.n(a)
    elif it == IT_LOST:
        t.s(b"RUN LOST: ")
        t.n(a)
    elif it == IT_BUILD:
        t.s(MENU21[U.MENU_BUILD])
        _upper(t, seat.build)
    elif it == IT_NOTICE:
        t.s(_pick(NOTICE21, a))
        if a == U.NOTICE_CUT:
            t.n(seat.notice)
    elif it == IT_RULE:
        t.s(RULE21[a])
    elif it == IT_NOTE:
        if a == U.NOTE_REJECTED:
            t.s(b"NO: ")
            t.s(_pick(REJECT21, seat.reject))
        else:
            t.s(_pick(NOTE21, a))
    elif it == IT_CHOICE:
        t.s(NOTE21[U.NOTE_CHOOSE])
    elif it == IT_FIELD:
        _field21(t, a, seat.facts)
    elif it == IT_PREVIEW:
        k = _outcome(a)
        t.s(PREVIEW21[k])
        if k == PV_REJECT:
            t.s(_pick(REJECT21, -a))
        elif k == PV_FOUL:
            t.s(_pick(REASON21, a >> C.REASON_SHIFT & C.REASON_MASK))
        elif k == PV_POINTS:
            t.n(a & C.POINTS_MASK)
            if a & C.ENDS_INNING:
                t.s(b", INNING ENDS")
    elif it == IT_MENU:
        if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
            t.s(RULE21[a - U.MENU_RULE])
        elif a >= U.MENU_NET:
            _hall().item21(t, seat, a)
        else:
            t.s(MENU21[a])
            if a == U.MENU_BUILD:
                _upper(t, seat.build)


def _upper(t, name):
    """A build's name in capitals (the OLED font has no lower case)."""
    for i in range(len(name)):
        c = name[i]
        t.c(c - 32 if 97 <= c <= 122 else c)


def _field21(t, field, f):
    t.s(FIELD21[field])
    t.c(_SPACE)
    if field == U.FIELD_FIRST:
        v = f >> F.FIRST & F.FIRST_MASK
        if v == F.FIRST_REQUIRED:
            t.s(b"AS REQUIRED")
        elif v == F.FIRST_NONE:
            t.s(b"NONE")
        else:
            t.c(49 + 2 * (v - F.FIRST_B1))
    elif field == U.FIELD_RAIL:
        t.s(b"NO" if f & F.F_NO_RAIL else b"YES")
    elif field == U.FIELD_JUMPED or field == U.FIELD_HELD:
        m = _field_balls(field, f)
        if m:
            t.balls(m, _SPACE)
        else:
            t.s(b"NONE")
    elif field == U.FIELD_CUE:
        t.s(CUE21[f >> F.CUE & F.CUE_MASK])


class LayoutOLED:
    """128x64: status line, big score, inning points beside it, item line."""

    def __init__(self):
        self.text = Text(OLED_TEXT)

    def render(self, seat, now_ms):
        t = self.text
        fill(t.buf, 0, t.size, _SPACE)     # t.clear() without its call
        t.pos = 0
        m = seat.main
        if m == MAIN_BLANK:
            return t
        if m == MAIN_HELLO:
            t.s(b"PLAYER ")
            t.n(seat.value)
            t.at(_BIG)
            t.s(b"P")
            t.n(seat.value, 1)
            k = _turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0 and seat.items[k] == IT_RULE:
                t.at(11)
                t.s(b"HOUSE RULE")
            t.at(_BOTTOM)
            if k >= 0:
                item21(t, seat, k)
            else:
                t.s(b"HELLO")
            return t
        if m == MAIN_MENU:
            a = seat.args[0]
            if a >= U.MENU_HALL and seat.hall.cursor >= 0:
                _hall().editor21(t, seat, a, _blink(now_ms), COLS, _BIG, _SIDE, _BOTTOM)
                return t
            t.s(b"SET-UP")
            t.at(COLS - len(seat.build))      # the display build, right-aligned
            _upper(t, seat.build)
            t.at(_BIG)
            if a >= U.MENU_NET:
                _hall().big21(t, seat, a)
            elif a < U.MENU_RULE:
                t.n(seat.value, 3)
            elif a < U.MENU_RULE + U.RULES:
                t.s(ONOFF8[1 if seat.value else 0])
            elif a == U.MENU_START:
                t.s(b" Go")
            elif a == U.MENU_CONFIRM:
                t.s(b"Go?")
            if seat.at_table:
                t.at(_INV)
                t.c(73)
            t.at(_BOTTOM)
            item21(t, seat, 0)
            return t
        # (the positions and single characters written without Text's calls:
        # this runs for each seat a stroke changes, a call costs some 10 us)
        t.s(b"PLAYER ")
        t.n(seat.index + 1)
        t.pos = 12
        if m == MAIN_WIN:
            # the word blinks, the score stays: a blink costs a few columns of the
            # status line on the bus, not three big digits (480 bytes at 400 kHz),
            # and an UNDO of the win redraws only the digit that changes
            if not _blink(now_ms):
                t.s(b"  WINNER!")
        elif m == MAIN_OUT:
            t.s(b"      OUT")
        elif m == MAIN_OVER:
            t.s(b"GAME OVER")
        elif seat.at_table:
            t.s(b" AT TABLE")
            t.buf[_INV] = 73         # 'I': the at-table mark (OLED_MARK_X)
        t.pos = _BIG
        t.n(seat.value, 3)
        if seat.at_table and seat.inning:
            t.buf[_SIDE] = 43        # '+'
            t.pos = _SIDE + 1
            t.n(seat.inning)
        t.pos = _BOTTOM
        if seat.count:
            item21(t, seat, _turn(seat, now_ms, False))
        return t


