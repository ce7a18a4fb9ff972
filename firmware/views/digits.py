"""The seven-segment layouts: what a seat's main value and items look like on
4 digits (`Layout4`: the score page and the items take turns, urgent items
alone) and on 8 (`Layout8`: an item, the player's name or number on the left,
the score always on the right three). Names show folded to what seven segments
draw (draw/fold.py): 4 digits on the start-up and winner pages, 8 digits beside
the score (4 digits) and on the start-up page (8). The player at the table shows the live total
with every decimal point lit (provisional).

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
from views.words import (REASON4, NOTE4, CUE4, MENU4, MENU8, RULE4, ONOFF4, ONOFF8, BUILD4,
                         NOTICE4, RUN4, NEED4, LOST4, BEST4, INN4, AVG4, FOULS4, HELLO4,
                         PREVIEW4, pick)

_SPACE = const(32)
_END = const(95)      # '_': the name editor's end mark
_NAMES = None    # every seat's name as this display draws it (draw/fold.py Folded)


def _folded():
    global _NAMES
    _NAMES = folded(0)     # draw/fold.py SEVEN: seven segments
    return _NAMES


def item4(t, seat, k):
    """Four characters for item k of the seat, at the write position of t."""
    it = seat.items[k]
    a = seat.args[k]
    if it == I.IT_INNING:
        t.s(RUN4)
        t.n(a, 3)
    elif it == I.IT_REASON:            # (the items a stroke shows, first)
        t.s(REASON4[a] if 0 <= a < len(REASON4) else REASON4[0])   # pick()
    elif it == I.IT_HAND:
        t.s(b"hAnd")
    elif it == I.IT_FOULS:
        t.s(FOULS4)
        t.n(a, 3)
    elif it == I.IT_NEED:
        t.s(NEED4)
        t.n(a, 2)
    elif it == I.IT_CAROMS:
        t.s(b"CAro")
    elif it == I.IT_CALL:
        t.s(b"CALL")
    elif it == I.IT_OPENING:
        t.s(b"oPEn")
    elif it == I.IT_HELD:
        t.c(111)                     # 'o' for off
        start = t.pos
        t.balls(a, 0)
        while t.pos < start + 3:
            t.c(_SPACE)
    elif it == I.IT_OUT:
        t.s(b"Out ")
    elif it == I.IT_WAIT:
        t.s(b"End ")
    elif it == I.IT_STAT_BEST:
        if a < 100:
            t.s(BEST4)
            t.n(a, 2)
        else:
            t.c(BEST4[0])
            t.n(a, 3)
    elif it == I.IT_STAT_INN:
        if a < 100:
            t.s(INN4)
            t.n(a, 2)
        else:
            t.c(INN4[1])
            t.n(a, 3)
    elif it == I.IT_STAT_AVG:
        t.s(AVG4)
        if a >= 1000:
            t.n(a // 10, 3)
        else:
            t.n(a // 10, 2)
            t.c(46)
            t.n(a % 10)
    elif it == I.IT_STAT_FOULS:
        t.s(FOULS4)
        t.n(a, 3)
    elif it == I.IT_LOST:
        t.s(LOST4)
        t.n(a, 3)
    elif it == I.IT_BUILD:
        t.s(_build4(seat.build))
    elif it == I.IT_NOTICE:
        t.s(pick(NOTICE4, a))
    elif it == I.IT_RULE:
        _rule4(t, a, 1)
    elif it == I.IT_NOTE:
        if a == U.NOTE_REJECTED:
            t.s(b"E")
            t.n(seat.reject, 3)
        else:
            t.s(pick(NOTE4, a))
    elif it == I.IT_CHOICE:
        t.s(b"rEP?")
    elif it == I.IT_FIELD:
        _field4(t, a, seat.facts)
    elif it == I.IT_PREVIEW:
        k = outcome(a)
        t.s(PREVIEW4[k])
        if k == I.PV_REJECT:
            t.n(-a, 3)
        elif k == I.PV_FOUL:
            t.s(pick(REASON4, a >> C.REASON_SHIFT & C.REASON_MASK))
        elif k == I.PV_POINTS:
            t.n(a & C.POINTS_MASK, 3)
    elif it == I.IT_NAME:
        _name(t, seat, a, 4)
    elif it == I.IT_MENU:
        if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
            _rule4(t, a - U.MENU_RULE, seat.value)
        elif a == U.MENU_BUILD:
            t.s(_build4(seat.build))
        elif a == U.MENU_NAMES:
            names7(t, seat, 4)
        elif a >= U.MENU_NET:
            if not hall().item7(t, seat, a, 4):
                editor7(t, seat.hall.editor, 4)
        else:
            t.s(MENU4[a])
            if a < U.MENU_RULE:
                t.n(seat.value, 2)


def editor7(t, e, digits):
    """The name editor `e` (app/nameedit.py NameEditor) on `digits` seven segments,
    on every name item: the `digits` characters up to the cursor, its point lit,
    `_` the end mark."""
    c = e.cursor
    n = e.length
    first = c - digits + 1 if c >= digits else 0
    for i in range(first, first + digits):
        t.c(e.chars[i] if i < n else _END if i == c else _SPACE)
        if i == c:
            t.c(46)


def names7(t, seat, digits):
    """MENU_NAMES on `digits` seven segments: the seat picked `n.` and the start of
    its name (`n.--` without one), the others theirs (`P  2` without one); the
    seat being edited the editor (editor7). A character past ASCII shows as `-`."""
    p = seat.hall
    if seat.at_table and p.editor.cursor >= 0:
        editor7(t, p.editor, digits)
        return
    name = p.names[seat.index]
    k = digits
    if seat.at_table:
        t.s(b"n.")
        k -= 1
        if not name:
            t.s(b"--")
    elif not name:
        t.c(80)                               # P
        t.n(seat.value, digits - 1)
    for i in range(len(name)):
        b = name[i]
        if 0x80 <= b < 0xC0:
            continue                          # the rest of a UTF-8 character
        if k == 0:
            break
        t.c(b if b < 0x80 else 45)
        k -= 1


def _name(t, seat, i, width):
    """Seat i's name, its first `width` (4 or 8) digits; the player number
    (`P  1`, `PLAYEr 1`) when it has nothing seven segments can draw (draw/fold.py)."""
    f = _NAMES
    if f is None and seat.names[i]:
        f = _folded()
    if f is not None and f.refresh(seat.names, i):
        t.part(f.text, i * f.cap, f.cut4[i] if width == 4 else f.cut8[i])
    elif width == 4:
        t.s(HELLO4)
        t.n(i + 1, 3)
    else:
        t.s(b"PLAYEr ")
        t.n(i + 1)


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
        t.balls(field_balls(field, f), 0)
        if t.pos == start:
            t.c(45)
        while t.pos < start + 3:
            t.c(_SPACE)
    elif field == U.FIELD_CUE:
        t.c(67)                      # C
        t.s(CUE4[f >> F.CUE & F.CUE_MASK])


class Layout4:
    """4-digit seven-segment: score page and items take turns; urgent items alone."""
    DIGITS = 4

    def __init__(self):
        self.text = Text(8)          # room for decimal points

    def render(self, seat, now_ms):
        t = self.text
        # (t.clear() written out: docs/PERFORMANCE.md, "Calls written out")
        fill(t.buf, 0, t.size, _SPACE)
        t.pos = 0
        m = seat.main
        if m == I.MAIN_BLANK:
            return t
        if m == I.MAIN_HELLO:
            k = turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0:
                item4(t, seat, k)
            else:
                t.s(HELLO4)
                t.n(seat.value, 3)
            return t
        if m == I.MAIN_MENU:
            item4(t, seat, 0)
            return t
        if m == I.MAIN_OFFER:
            hall().offer7(t, seat, now_ms, 4)
            return t
        k = turn(seat, ticks_diff(now_ms, seat.t0), not seat.urgent) if seat.count else -1
        if k >= 0:
            item4(t, seat, k)
            return t
        if m == I.MAIN_WIN:
            if blink(ticks_diff(now_ms, seat.t0)):
                t.s(b"----")
            else:
                t.n(seat.value, 4)
            return t
        if m == I.MAIN_OUT:
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
        # stroke; a loop's turns cost as calls do: docs/PERFORMANCE.md, "Calls written out")
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
        # (t.clear() written out: docs/PERFORMANCE.md, "Calls written out")
        fill(t.buf, 0, t.size, _SPACE)
        t.pos = 0
        m = seat.main
        if m == I.MAIN_BLANK:
            return t
        if m == I.MAIN_HELLO:
            k = turn(seat, ticks_diff(now_ms, seat.t0), True)
            if k >= 0 and seat.items[k] == I.IT_NAME:
                _name(t, seat, seat.args[k], 8)      # the whole width: no score beside it
            elif k >= 0:
                item4(t, seat, k)
            else:
                t.s(b"PLAYEr ")
                t.n(seat.value)
            return t
        if m == I.MAIN_OFFER:
            hall().offer7(t, seat, now_ms, 8)
            return t
        if m == I.MAIN_MENU:
            a = seat.args[0]
            if U.MENU_RULE <= a < U.MENU_RULE + U.RULES:
                t.s(RULE4[a - U.MENU_RULE])
                t.at(5)
                t.s(ONOFF8[1 if seat.value else 0])
                return t
            if a == U.MENU_NAMES:
                names7(t, seat, 8)
                return t
            if a >= U.MENU_NET:
                if not hall().item7(t, seat, a, 8):
                    editor7(t, seat.hall.editor, 8)
                return t
            t.s(MENU8[a])
            if a < U.MENU_RULE:
                t.at(5)
                t.n(seat.value, 3)
            elif a == U.MENU_BUILD:
                t.at(4)
                t.s(_build4(seat.build))
            return t
        # the name, when the seat has one, is the left's first page, in turn with the
        # items (not with an urgent one); else `P1`, shown only without items
        i = seat.index
        f = _NAMES
        if f is None and seat.names[i]:
            f = _folded()
        if f is not None and seat.names[i] is not f.src[i]:
            f.refresh(seat.names, i)          # (a name changed: folded once)
        named = f is not None and f.len[i] and not seat.urgent
        k = turn(seat, ticks_diff(now_ms, seat.t0), named) if seat.count else -1
        if k >= 0:
            item4(t, seat, k)
        elif m == I.MAIN_WIN:
            t.s(b"1St ")
        elif named:
            t.part(f.text, i * f.cap, f.cut4[i])  # pyright: ignore[reportOptionalMemberAccess]  named: f
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
        if m == I.MAIN_WIN and blink(ticks_diff(now_ms, seat.t0)):
            t.s(b"---")
        elif m == I.MAIN_OUT:
            t.s(b"Out")
        else:
            _score_dots(t, seat.value, 3, seat.at_table)
        return t


# OLED text: [0:21] status line, [21] 'I': the at-table mark (see OLED_MARK_X), [22:26] big characters,
