"""The 128x64 OLED layout: a status line, the score in big digits, the run
beside them, and a line of text for the items, which take turns; as one text
whose every index has its place on the panel (`OLED_CELLS`, drawn by
draw/cells.py). The player at the table has the at-table mark and the run
beside the big digits. The status line names the player: the name folded to the
font (draw/fold.py), else `PLAYER n`.

Rendering writes into a preallocated line (draw/text.py) and allocates nothing.
"""
from micropython import const
from cowboy import codes
from cowboy import facts
from draw.blit import fill
from draw.text import Text
from ticks import ticks_diff
from views import ui
from views import items
from views.seat import turn, blink, outcome, field_balls, hall, folded
from views.words import (REASON_OLED, NOTE_OLED, REJECT_OLED, FIELD_OLED, CUE_OLED,
                         MENU_OLED, RULE_OLED, ONOFF_8DIGITS, NOTICE_OLED, PREVIEW_OLED,
                         FOUL_OLED, FOULS_LAST_OLED, OUT_OLED, VERSION_TEXT, pick)

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
_MARK = const(73)           # 'I' (draw/cells.py MARK, folded here)
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


def item_oled(t, seat, k):
    it = seat.items[k]
    a = seat.args[k]
    if it == items.IT_INNING:
        t.write(b"BANKED ")
        t.number(seat.value - a)
        t.write(b" + RUN ")
        t.number(a)
    elif it == items.IT_NEED:
        t.write(b"NEED ")
        t.number(a)
        t.write(b" FOR EXACTLY 90")
    elif it == items.IT_CAROMS:
        t.write(b"CAROMS ONLY: ")
        t.number(a)
        t.write(b" LEFT")
    elif it == items.IT_CALL:
        t.write(b"CALL THE 101ST POINT")
    elif it == items.IT_OPENING:
        t.write(b"OPENING: 3 BALL FIRST")
    elif it == items.IT_HAND:
        t.write(b"CUE BALL IN HAND")
    elif it == items.IT_HELD:
        t.write(b"OFF THE TABLE: ")
        t.balls(a, _SPACE)
    elif it == items.IT_FOULS:
        if a >= codes.FOULS_LAST_CHANCE:
            t.write(FOULS_LAST_OLED)
        else:
            t.write(FOUL_OLED)
    elif it == items.IT_REASON:
        t.write(pick(REASON_OLED, a))
    elif it == items.IT_OUT:
        t.write(OUT_OLED)
    elif it == items.IT_WAIT:
        t.write(b"WINNER: ")
        _name_oled(t, seat, a, COLS - 8)
    elif it == items.IT_NAME:
        _name_oled(t, seat, a, COLS)
    elif it == items.IT_STAT_BEST:
        t.write(b"BEST INNING ")
        t.number(a)
    elif it == items.IT_STAT_INN:
        t.write(b"INNINGS ")
        t.number(a)
    elif it == items.IT_STAT_AVG:
        t.write(b"AVERAGE ")
        t.number(a // 10)
        t.char(46)
        t.number(a % 10)
    elif it == items.IT_STAT_FOULS:
        t.write(b"FOULS ")
        t.number(a)
    elif it == items.IT_LOST:
        t.write(b"RUN LOST: ")
        t.number(a)
    elif it == items.IT_BUILD:
        t.write(MENU_OLED[ui.MENU_BUILD])
        _upper(t, seat.build)
    elif it == items.IT_NOTICE:
        t.write(pick(NOTICE_OLED, a))
        if a == ui.NOTICE_CUT:
            t.number(seat.notice)
        elif a == ui.NOTICE_UPTO:
            t.number(seat.notice)
            t.write(b" ACTIONS")
    elif it == items.IT_RULE:
        t.write(RULE_OLED[a])
    elif it == items.IT_NOTE:
        if a == ui.NOTE_REJECTED:
            t.write(b"NO: ")
            t.write(pick(REJECT_OLED, seat.reject))
        else:
            t.write(pick(NOTE_OLED, a))
    elif it == items.IT_CHOICE:
        t.write(NOTE_OLED[ui.NOTE_CHOOSE])
    elif it == items.IT_FIELD:
        _field_oled(t, a, seat.facts)
    elif it == items.IT_PREVIEW:
        k = outcome(a)
        t.write(PREVIEW_OLED[k])
        if k == items.PV_REJECT:
            t.write(pick(REJECT_OLED, -a))
        elif k == items.PV_FOUL:
            t.write(pick(REASON_OLED, a >> codes.REASON_SHIFT & codes.REASON_MASK))
        elif k == items.PV_POINTS:
            t.number(a & codes.POINTS_MASK)
            if a & codes.ENDS_INNING:
                t.write(b", INNING ENDS")
    elif it == items.IT_MENU:
        if ui.MENU_RULE <= a < ui.MENU_RULE + ui.RULES:
            t.write(RULE_OLED[a - ui.MENU_RULE])
        elif a == ui.MENU_NAMES:
            names_oled(t, seat)
        elif a >= ui.MENU_NET:
            hall().item_oled(t, seat, a)
        else:
            t.write(MENU_OLED[a])
            if a == ui.MENU_BUILD:
                _upper(t, seat.build)


def names_oled(t, seat):
    """MENU_NAMES on the item line: `NAME: ` and the seat's name (`-` without
    one), in capitals; a character past ASCII shows as `?`."""
    t.write(b"NAME: ")
    name = seat.menu_panel.names[seat.index]
    if not name:
        t.char(45)
    t.ascii_oled(name, t.size)


def editor_oled(t, seat, a, dark):
    """The name editor (app/nameedit.py NameEditor) open on item `a`: the name's
    title (`NAME 2`, `TABLE NAME`) and the cursor's place (`2/12`) on the status
    line, that place big, the cursor's character at double size beside it, the
    whole name on the item line with the cursor's character as `*` in the `dark`
    half of the blink (`*` is also the end mark); why a hall name's save was
    refused instead of the name. (Small letters need no capitals: the font's
    small letters are its capitals.)"""
    e = seat.menu_panel.editor
    c = e.cursor
    n = e.length
    if a == ui.MENU_NAMES:
        t.write(b"NAME ")
        t.number(seat.value)
    else:
        t.write(hall().EDIT_OLED[a - ui.MENU_HALL])
    t.at(COLS - 5)
    t.number(c + 1, 2)
    t.char(47)                          # '/'
    t.number(e.limit, 2)
    t.at(_BIG)
    t.number(c + 1, 3)
    t.at(_SIDE + 1)
    t.char(e.chars[c] if c < n else _END)
    t.at(_BOTTOM)
    if a != ui.MENU_NAMES and hall().refused_oled(t, seat):
        return
    for i in range(n):
        t.char(_END if i == c and dark else e.chars[i])
    if c >= n:
        t.char(_END)


def _name_oled(t, seat, i, cells):
    """Seat i's name in at most `cells` cells, or `PLAYER n` when it has none
    that the font can draw (draw/fold.py)."""
    f = _NAMES
    if f is None and seat.names[i]:
        f = _folded()
    n = f.refresh(seat.names, i) if f is not None else 0
    if n and f is not None:
        t.part(f.text, i * f.cap, n if n < cells else cells)
    else:
        t.write(b"PLAYER ")
        t.number(i + 1)


def _upper(t, name):
    """A build's name in capitals (the OLED font has no lower case)."""
    for i in range(len(name)):
        c = name[i]
        t.char(c - 32 if 97 <= c <= 122 else c)


def _field_oled(t, field, f):
    t.write(FIELD_OLED[field])
    t.char(_SPACE)
    if field == ui.FIELD_FIRST:
        v = f >> facts.FIRST & facts.FIRST_MASK
        if v == facts.FIRST_REQUIRED:
            t.write(b"AS REQUIRED")
        elif v == facts.FIRST_NONE:
            t.write(b"NONE")
        else:
            t.char(49 + 2 * (v - facts.FIRST_B1))
    elif field == ui.FIELD_RAIL:
        t.write(b"NO" if f & facts.F_NO_RAIL else b"YES")
    elif field == ui.FIELD_JUMPED or field == ui.FIELD_HELD:
        m = field_balls(field, f)
        if m:
            t.balls(m, _SPACE)
        else:
            t.write(b"NONE")
    elif field == ui.FIELD_CUE:
        t.write(CUE_OLED[f >> facts.CUE & facts.CUE_MASK])


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
        if m == items.MAIN_BLANK:
            return t
        if m == items.MAIN_HELLO:
            t.write(b"PLAYER ")
            t.number(seat.value)
            t.at(_BIG)
            t.write(b"P")
            t.number(seat.value, 1)
            k = turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0 and seat.items[k] == items.IT_RULE:
                t.at(11)
                t.write(b"HOUSE RULE")
            elif k >= 0 and seat.items[k] == items.IT_BUILD:
                # the firmware's version on the build's page, as on seven segments (not
                # on the first picture: a resumed game, shown before that page, would
                # pay for erasing it on every display)
                t.at(COLS - len(VERSION_TEXT))
                t.write(VERSION_TEXT)
            t.at(_BOTTOM)
            if k >= 0:
                item_oled(t, seat, k)
            else:
                t.write(b"HELLO")
            return t
        if m == items.MAIN_OFFER:
            hall().offer_oled(t, seat, now_ms, COLS, _BIG, _BOTTOM)
            return t
        if m == items.MAIN_MENU:
            a = seat.args[0]
            if (a >= ui.MENU_HALL or a == ui.MENU_NAMES and seat.at_table) and \
                    seat.menu_panel.editor.cursor >= 0:
                editor_oled(t, seat, a, blink(now_ms))
                return t
            t.write(b"SET-UP")
            t.at(COLS - len(seat.build))      # the display build, right-aligned
            _upper(t, seat.build)
            t.at(_BIG)
            if a >= ui.MENU_NET:
                hall().big_oled(t, seat, a)
            elif a < ui.MENU_RULE or a == ui.MENU_NAMES:
                t.number(seat.value, 3)
            elif a < ui.MENU_RULE + ui.RULES:
                t.write(ONOFF_8DIGITS[1 if seat.value else 0])
            elif a == ui.MENU_START:
                t.write(b" Go")
            elif a == ui.MENU_CONFIRM:
                t.write(b"Go?")
            if seat.at_table:
                t.at(_INV)
                t.char(_MARK)
            t.at(_BOTTOM)
            item_oled(t, seat, 0)
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
            if m == items.MAIN_OUT:
                c = _NAME_OUT
            elif m == items.MAIN_SCORE and not seat.at_table:
                c = _NAME_ALL
            t.part(f.text, i * f.cap, n if n < c else c)
        else:
            t.write(b"PLAYER ")
            t.number(i + 1)
        t.pos = 12
        if m == items.MAIN_WIN:
            # the word blinks, the score stays: a blink costs a few columns of the
            # status line on the bus, not three big digits (480 bytes at 400 kHz),
            # and an UNDO of the win redraws only the digit that changes
            if not blink(ticks_diff(now_ms, seat.t0)):
                t.write(b"  WINNER!")
        elif m == items.MAIN_OUT:
            t.pos = 18               # (a name may take the cells before it)
            t.write(b"OUT")
        elif m == items.MAIN_OVER:
            t.write(b"GAME OVER")
        elif seat.at_table:
            t.write(b" AT TABLE")
            t.buf[_INV] = _MARK      # the at-table mark (OLED_MARK_X)
        t.pos = _BIG
        t.number(seat.value, 3)
        if seat.at_table and seat.inning:
            t.buf[_SIDE] = 43        # '+'
            t.pos = _SIDE + 1
            t.number(seat.inning)
        t.pos = _BOTTOM
        if seat.count:
            item_oled(t, seat, turn(seat, ticks_diff(now_ms, seat.t0), False))
        return t
