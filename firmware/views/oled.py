"""The 128x64 OLED layout: a status line, the score in big digits, the run
beside them, and a line of text for the items, which take turns; as one text
whose every index has its place on the panel (`OLED_CELLS`, drawn by
draw/cells.py). The player at the table has the at-table mark and the run
beside the big digits. The status line names the player: the name folded to the
font (draw/fold.py), else `PLAYER n`.

Rendering writes into a preallocated line (draw/text.py) and allocates nothing.
"""
from micropython import const
from cowboy import codes as C
from cowboy import facts as F
from draw.blit import fill
from draw.text import Text
from ticks import ticks_diff
from views import ui as U
from views import items as I
from views.seat import turn, blink, outcome, field_balls, hall, folded
from views.words import (REASON21, NOTE21, REJECT21, FIELD21, CUE21, MENU21, RULE21, ONOFF8,
                         NOTICE21, PREVIEW21, FOUL21, FOULS_LAST21, OUT21, pick)

_SPACE = const(32)
_END = const(42)      # '*': the name editor's end mark (the small font has no '_')
_NAMES = None    # every seat's name as this display draws it (draw/fold.py Folded)


def _folded():
    global _NAMES
    _NAMES = folded(1)     # draw/fold.py OLED: the OLED's font
    return _NAMES


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
# A player's name on the status line: the whole line for a player waiting, 17
# cells beside "OUT", 11 beside the words from cell 12 (AT TABLE, WINNER!, GAME
# OVER: cell 11 stays blank before the mark).
_NAME_ALL = const(21)
_NAME_OUT = const(17)
_NAME_BESIDE = const(11)
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
    if it == I.IT_INNING:
        t.s(b"BANKED ")
        t.n(seat.value - a)
        t.s(b" + RUN ")
        t.n(a)
    elif it == I.IT_NEED:
        t.s(b"NEED ")
        t.n(a)
        t.s(b" FOR EXACTLY 90")
    elif it == I.IT_CAROMS:
        t.s(b"CAROMS ONLY: ")
        t.n(a)
        t.s(b" LEFT")
    elif it == I.IT_CALL:
        t.s(b"CALL THE 101ST POINT")
    elif it == I.IT_OPENING:
        t.s(b"OPENING: 3 BALL FIRST")
    elif it == I.IT_HAND:
        t.s(b"CUE BALL IN HAND")
    elif it == I.IT_HELD:
        t.s(b"OFF THE TABLE: ")
        t.balls(a, _SPACE)
    elif it == I.IT_FOULS:
        if a >= C.FOULS_LAST_CHANCE:
            t.s(FOULS_LAST21)
        else:
            t.s(FOUL21)
    elif it == I.IT_REASON:
        t.s(pick(REASON21, a))
    elif it == I.IT_OUT:
        t.s(OUT21)
    elif it == I.IT_WAIT:
        t.s(b"WINNER: ")
        _name21(t, seat, a, COLS - 8)
    elif it == I.IT_NAME:
        _name21(t, seat, a, COLS)
    elif it == I.IT_STAT_BEST:
        t.s(b"BEST INNING ")
        t.n(a)
    elif it == I.IT_STAT_INN:
        t.s(b"INNINGS ")
        t.n(a)
    elif it == I.IT_STAT_AVG:
        t.s(b"AVERAGE ")
        t.n(a // 10)
        t.c(46)
        t.n(a % 10)
    elif it == I.IT_STAT_FOULS:
        t.s(b"FOULS ")
        t.n(a)
    elif it == I.IT_LOST:
        t.s(b"RUN LOST: ")
        t.n(a)
    elif it == I.IT_BUILD:
        t.s(MENU21[U.MENU_BUILD])
        _upper(t, seat.build)
    elif it == I.IT_NOTICE:
        t.s(pick(NOTICE21, a))
        if a == U.NOTICE_CUT:
            t.n(seat.notice)
    elif it == I.IT_RULE:
        t.s(RULE21[a])
    elif it == I.IT_NOTE:
        if a == U.NOTE_REJECTED:
            t.s(b"NO: ")
            t.s(pick(REJECT21, seat.reject))
        else:
            t.s(pick(NOTE21, a))
    elif it == I.IT_CHOICE:
        t.s(NOTE21[U.NOTE_CHOOSE])
    elif it == I.IT_FIELD:
        _field21(t, a, seat.facts)
    elif it == I.IT_PREVIEW:
        k = outcome(a)
        t.s(PREVIEW21[k])
        if k == I.PV_REJECT:
            t.s(pick(REJECT21, -a))
        elif k == I.PV_FOUL:
            t.s(pick(REASON21, a >> C.REASON_SHIFT & C.REASON_MASK))
        elif k == I.PV_POINTS:
            t.n(a & C.POINTS_MASK)
            if a & C.ENDS_INNING:
                t.s(b", INNING ENDS")
    elif it == I.IT_MENU:
        if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
            t.s(RULE21[a - U.MENU_RULE])
        elif a == U.MENU_NAMES:
            names21(t, seat)
        elif a >= U.MENU_NET:
            hall().item21(t, seat, a)
        else:
            t.s(MENU21[a])
            if a == U.MENU_BUILD:
                _upper(t, seat.build)


def names21(t, seat):
    """MENU_NAMES on the item line: `NAME: ` and the seat's name (`-` without
    one), in capitals; a character past ASCII shows as `?`."""
    t.s(b"NAME: ")
    name = seat.hall.names[seat.index]
    if not name:
        t.c(45)
    t.ascii21(name, t.size)


def editor21(t, seat, a, dark):
    """The name editor (app/nameedit.py NameEditor) open on item `a`: the name's
    title (`NAME 2`, `TABLE NAME`) and the cursor's place (`2/12`) on the status
    line, that place big, the cursor's character at double size beside it, the
    whole name on the item line with the cursor's character as `*` in the `dark`
    half of the blink (`*` is also the end mark); why a hall name's save was
    refused instead of the name. (Small letters need no capitals: the font's
    small letters are its capitals.)"""
    e = seat.hall.editor
    c = e.cursor
    n = e.length
    if a == U.MENU_NAMES:
        t.s(b"NAME ")
        t.n(seat.value)
    else:
        t.s(hall().EDIT21[a - U.MENU_HALL])
    t.at(COLS - 5)
    t.n(c + 1, 2)
    t.c(47)                          # '/'
    t.n(e.limit, 2)
    t.at(_BIG)
    t.n(c + 1, 3)
    t.at(_SIDE + 1)
    t.c(e.chars[c] if c < n else _END)
    t.at(_BOTTOM)
    if a != U.MENU_NAMES and hall().refused21(t, seat):
        return
    for i in range(n):
        t.c(_END if i == c and dark else e.chars[i])
    if c >= n:
        t.c(_END)


def _name21(t, seat, i, cells):
    """Seat i's name in at most `cells` cells, or `PLAYER n` when it has none
    that the font can draw (draw/fold.py)."""
    f = _NAMES
    if f is None and seat.names[i]:
        f = _folded()
    n = f.refresh(seat.names, i) if f is not None else 0
    if n and f is not None:
        t.part(f.text, i * f.cap, n if n < cells else cells)
    else:
        t.s(b"PLAYER ")
        t.n(i + 1)


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
        m = field_balls(field, f)
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
        # (t.clear() written out: docs/PERFORMANCE.md, "Calls written out")
        fill(t.buf, 0, t.size, _SPACE)
        t.pos = 0
        m = seat.main
        if m == I.MAIN_BLANK:
            return t
        if m == I.MAIN_HELLO:
            t.s(b"PLAYER ")
            t.n(seat.value)
            t.at(_BIG)
            t.s(b"P")
            t.n(seat.value, 1)
            k = turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0 and seat.items[k] == I.IT_RULE:
                t.at(11)
                t.s(b"HOUSE RULE")
            t.at(_BOTTOM)
            if k >= 0:
                item21(t, seat, k)
            else:
                t.s(b"HELLO")
            return t
        if m == I.MAIN_OFFER:
            hall().offer21(t, seat, now_ms, COLS, _BIG, _BOTTOM)
            return t
        if m == I.MAIN_MENU:
            a = seat.args[0]
            if (a >= U.MENU_HALL or a == U.MENU_NAMES and seat.at_table) and \
                    seat.hall.editor.cursor >= 0:
                editor21(t, seat, a, blink(now_ms))
                return t
            t.s(b"SET-UP")
            t.at(COLS - len(seat.build))      # the display build, right-aligned
            _upper(t, seat.build)
            t.at(_BIG)
            if a >= U.MENU_NET:
                hall().big21(t, seat, a)
            elif a < U.MENU_RULE or a == U.MENU_NAMES:
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
        # (the positions and single characters without Text's calls, at() and c()
        # written out: docs/PERFORMANCE.md, "Calls written out")
        i = seat.index
        f = _NAMES
        if f is None and seat.names[i]:
            f = _folded()
        n = 0
        if f is not None:
            if seat.names[i] is not f.src[i]:
                f.refresh(seat.names, i)      # (a name changed: folded once)
            n = f.len[i]
        if n and f is not None:
            c = _NAME_BESIDE
            if m == I.MAIN_OUT:
                c = _NAME_OUT
            elif m == I.MAIN_SCORE and not seat.at_table:
                c = _NAME_ALL
            t.part(f.text, i * f.cap, n if n < c else c)
        else:
            t.s(b"PLAYER ")
            t.n(i + 1)
        t.pos = 12
        if m == I.MAIN_WIN:
            # the word blinks, the score stays: a blink costs a few columns of the
            # status line on the bus, not three big digits (480 bytes at 400 kHz),
            # and an UNDO of the win redraws only the digit that changes
            if not blink(ticks_diff(now_ms, seat.t0)):
                t.s(b"  WINNER!")
        elif m == I.MAIN_OUT:
            t.pos = 18               # (a name may take the cells before it)
            t.s(b"OUT")
        elif m == I.MAIN_OVER:
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
            item21(t, seat, turn(seat, ticks_diff(now_ms, seat.t0), False))
        return t
