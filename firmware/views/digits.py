"""The seven-segment layouts: what a seat's main value and items look like on
4 digits (`Layout4Digits`: the score page and the items take turns, urgent items
alone) and on 8 (`Layout8Digits`: an item, the player's name or number on the left,
the score always on the right three). Names show folded to what seven segments
draw (draw/fold.py): 4 digits on the start-up and winner pages, 8 digits beside
the score (4 digits) and on the start-up page (8). The player at the table shows the live total
with every decimal point lit (provisional).

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
from views.words import (REASON_4DIGITS, NOTE_4DIGITS, CUE_4DIGITS, MENU_4DIGITS,
                         MENU_8DIGITS, RULE_4DIGITS, ONOFF_4DIGITS, ONOFF_8DIGITS,
                         BUILD_4DIGITS, NOTICE_4DIGITS, RUN_4DIGITS, NEED_4DIGITS,
                         LOST_4DIGITS, BEST_4DIGITS, INN_4DIGITS, AVG_4DIGITS,
                         FOULS_4DIGITS, HELLO_4DIGITS, PREVIEW_4DIGITS, VERSION_TEXT,
                         pick)

_SPACE = const(32)
_END = const(95)      # '_': the name editor's end mark
_NAMES = None    # every seat's name as this display draws it (draw/fold.py Folded)


def _folded():
    global _NAMES
    _NAMES = folded(0)     # draw/fold.py SEVEN: seven segments
    return _NAMES


def item_4digits(t, seat, k):
    """Four characters for item k of the seat, at the write position of t."""
    it = seat.items[k]
    a = seat.args[k]
    if it == items.IT_INNING:
        t.write(RUN_4DIGITS)
        t.number(a, 3)
    elif it == items.IT_REASON:            # (the items a stroke shows, first)
        t.write(REASON_4DIGITS[a] if 0 <= a < len(REASON_4DIGITS) else REASON_4DIGITS[0])   # pick()
    elif it == items.IT_HAND:
        t.write(b"hAnd")
    elif it == items.IT_FOULS:
        t.write(FOULS_4DIGITS)
        t.number(a, 3)
    elif it == items.IT_NEED:
        t.write(NEED_4DIGITS)
        t.number(a, 2)
    elif it == items.IT_CAROMS:
        t.write(b"CAro")
    elif it == items.IT_CALL:
        t.write(b"CALL")
    elif it == items.IT_OPENING:
        t.write(b"oPEn")
    elif it == items.IT_HELD:
        t.char(111)                     # 'o' for off
        start = t.pos
        t.balls(a, 0)
        while t.pos < start + 3:
            t.char(_SPACE)
    elif it == items.IT_OUT:
        t.write(b"Out ")
    elif it == items.IT_WAIT:
        t.write(b"End ")
    elif it == items.IT_STAT_BEST:
        if a < 100:
            t.write(BEST_4DIGITS)
            t.number(a, 2)
        else:
            t.char(BEST_4DIGITS[0])
            t.number(a, 3)
    elif it == items.IT_STAT_INN:
        if a < 100:
            t.write(INN_4DIGITS)
            t.number(a, 2)
        else:
            t.char(INN_4DIGITS[1])
            t.number(a, 3)
    elif it == items.IT_STAT_AVG:
        t.write(AVG_4DIGITS)
        if a >= 1000:
            t.number(a // 10, 3)
        else:
            t.number(a // 10, 2)
            t.char(46)
            t.number(a % 10)
    elif it == items.IT_STAT_FOULS:
        t.write(FOULS_4DIGITS)
        t.number(a, 3)
    elif it == items.IT_LOST:
        t.write(LOST_4DIGITS)
        t.number(a, 3)
    elif it == items.IT_BUILD:
        t.write(_build_4digits(seat.build))
    elif it == items.IT_NOTICE:
        t.write(pick(NOTICE_4DIGITS, a))
    elif it == items.IT_RULE:
        _rule_4digits(t, a, 1)
    elif it == items.IT_NOTE:
        if a == ui.NOTE_REJECTED:
            t.write(b"E")
            t.number(seat.reject, 3)
        else:
            t.write(pick(NOTE_4DIGITS, a))
    elif it == items.IT_CHOICE:
        t.write(b"rEP?")
    elif it == items.IT_FIELD:
        _field_4digits(t, a, seat.facts)
    elif it == items.IT_PREVIEW:
        k = outcome(a)
        t.write(PREVIEW_4DIGITS[k])
        if k == items.PV_REJECT:
            t.number(-a, 3)
        elif k == items.PV_FOUL:
            t.write(pick(REASON_4DIGITS, a >> codes.REASON_SHIFT & codes.REASON_MASK))
        elif k == items.PV_POINTS:
            t.number(a & codes.POINTS_MASK, 3)
    elif it == items.IT_NAME:
        _name(t, seat, a, 4)
    elif it == items.IT_MENU:
        if ui.MENU_RULE <= a < ui.MENU_RULE + ui.RULES:
            _rule_4digits(t, a - ui.MENU_RULE, seat.value)
        elif a == ui.MENU_BUILD:
            t.write(_build_4digits(seat.build))
        elif a == ui.MENU_NAMES:
            names_7seg(t, seat, 4)
        elif a >= ui.MENU_NET:
            if not hall().item_7seg(t, seat, a, 4):
                editor_7seg(t, seat.menu_panel.editor, 4)
        else:
            t.write(MENU_4DIGITS[a])
            if a < ui.MENU_RULE:
                t.number(seat.value, 2)


def editor_7seg(t, e, digits):
    """The name editor `e` (app/nameedit.py NameEditor) on `digits` seven segments,
    on every name item: the `digits` characters up to the cursor, its point lit,
    `_` the end mark."""
    c = e.cursor
    n = e.length
    first = c - digits + 1 if c >= digits else 0
    for i in range(first, first + digits):
        t.char(e.chars[i] if i < n else _END if i == c else _SPACE)
        if i == c:
            t.char(46)


def names_7seg(t, seat, digits):
    """MENU_NAMES on `digits` seven segments: the seat picked `n.` and the start of
    its name (`n.--` without one), the others theirs (`P  2` without one); the
    seat being edited the editor (editor_7seg). A character past ASCII shows as `-`."""
    p = seat.menu_panel
    if seat.at_table and p.editor.cursor >= 0:
        editor_7seg(t, p.editor, digits)
        return
    name = p.names[seat.index]
    k = digits
    if seat.at_table:
        t.write(b"n.")
        k -= 1
        if not name:
            t.write(b"--")
    elif not name:
        t.char(80)                               # P
        t.number(seat.value, digits - 1)
    for i in range(len(name)):
        b = name[i]
        if 0x80 <= b < 0xC0:
            continue                          # the rest of a UTF-8 character
        if k == 0:
            break
        t.char(b if b < 0x80 else 45)
        k -= 1


def _name(t, seat, i, width):
    """Seat i's name, its first `width` (4 or 8) digits; the player number
    (`P  1`, `PLAYEr 1`) when it has nothing seven segments can draw (draw/fold.py)."""
    f = _NAMES
    if f is None and seat.names[i]:
        f = _folded()
    if f is not None and f.refresh(seat.names, i):
        t.part(f.text, i * f.cap, f.cut_4digits[i] if width == 4 else f.cut_8digits[i])
    elif width == 4:
        t.write(HELLO_4DIGITS)
        t.number(i + 1, 3)
    else:
        t.write(b"PLAYEr ")
        t.number(i + 1)


def _rule_4digits(t, k, on):
    """`CA.on`: house rule k's short name, a point, on or off."""
    t.write(RULE_4DIGITS[k])
    t.char(46)
    t.write(ONOFF_4DIGITS[1 if on else 0])


def _build_4digits(name):
    """The 4-digit code of a display build's name (bytes)."""
    for i in range(len(BUILD_4DIGITS)):
        if BUILD_4DIGITS[i][0] == name:
            return BUILD_4DIGITS[i][1]
    return b"----"


def _field_4digits(t, field, f):
    """`1St3`, `rL y`, `J35`, `h3`, `CPoc`: the field and its value in 4 digits."""
    if field == ui.FIELD_FIRST:
        t.write(b"1St")
        v = f >> facts.FIRST & facts.FIRST_MASK
        if v == facts.FIRST_REQUIRED:
            t.char(45)
        elif v == facts.FIRST_NONE:
            t.char(48)
        else:
            t.char(49 + 2 * (v - facts.FIRST_B1))
    elif field == ui.FIELD_RAIL:
        t.write(b"rL n" if f & facts.F_NO_RAIL else b"rL y")
    elif field == ui.FIELD_JUMPED or field == ui.FIELD_HELD:
        t.char(74 if field == ui.FIELD_JUMPED else 104)     # J or h
        start = t.pos
        t.balls(field_balls(field, f), 0)
        if t.pos == start:
            t.char(45)
        while t.pos < start + 3:
            t.char(_SPACE)
    elif field == ui.FIELD_CUE:
        t.char(67)                      # C
        t.write(CUE_4DIGITS[f >> facts.CUE & facts.CUE_MASK])


class Layout4Digits:
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
        if m == items.MAIN_BLANK:
            return t
        if m == items.MAIN_HELLO:
            d = ticks_diff(now_ms, seat.t0)
            k = turn(seat, d, True)
            if k >= 0 and seat.items[k] == items.IT_BUILD and d % ui.PAGE_MS >= ui.PAGE_MS // 2:
                t.write(VERSION_TEXT)       # the build page's second half: the version
            elif k >= 0:
                item_4digits(t, seat, k)
            else:
                t.write(HELLO_4DIGITS)
                t.number(seat.value, 3)
            return t
        if m == items.MAIN_MENU:
            item_4digits(t, seat, 0)
            return t
        if m == items.MAIN_OFFER:
            hall().offer_7seg(t, seat, now_ms, 4)
            return t
        k = turn(seat, ticks_diff(now_ms, seat.t0), not seat.urgent) if seat.count else -1
        if k >= 0:
            item_4digits(t, seat, k)
            return t
        if m == items.MAIN_WIN:
            if blink(ticks_diff(now_ms, seat.t0)):
                t.write(b"----")
            else:
                t.number(seat.value, 4)
            return t
        if m == items.MAIN_OUT:
            t.write(b"Out ")
            return t
        _score_dots(t, seat.value, 4, seat.at_table)
        return t


def _score_dots(t, v, width, dots):
    """v right-aligned in `width` (3 or 4) digits; every digit gets a point when
    `dots`."""
    s = t.pos
    t.number(v, width)
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


class Layout8Digits:
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
        if m == items.MAIN_BLANK:
            return t
        if m == items.MAIN_HELLO:
            d = ticks_diff(now_ms, seat.t0)
            k = turn(seat, d, True)
            if k >= 0 and seat.items[k] == items.IT_BUILD and d % ui.PAGE_MS >= ui.PAGE_MS // 2:
                t.write(VERSION_TEXT)       # the build page's second half: the version
            elif k >= 0 and seat.items[k] == items.IT_NAME:
                _name(t, seat, seat.args[k], 8)      # the whole width: no score beside it
            elif k >= 0:
                item_4digits(t, seat, k)
            else:
                t.write(b"PLAYEr ")
                t.number(seat.value)
            return t
        if m == items.MAIN_OFFER:
            hall().offer_7seg(t, seat, now_ms, 8)
            return t
        if m == items.MAIN_MENU:
            a = seat.args[0]
            if ui.MENU_RULE <= a < ui.MENU_RULE + ui.RULES:
                t.write(RULE_4DIGITS[a - ui.MENU_RULE])
                t.at(5)
                t.write(ONOFF_8DIGITS[1 if seat.value else 0])
                return t
            if a == ui.MENU_NAMES:
                names_7seg(t, seat, 8)
                return t
            if a >= ui.MENU_NET:
                if not hall().item_7seg(t, seat, a, 8):
                    editor_7seg(t, seat.menu_panel.editor, 8)
                return t
            t.write(MENU_8DIGITS[a])
            if a < ui.MENU_RULE:
                t.at(5)
                t.number(seat.value, 3)
            elif a == ui.MENU_BUILD:
                t.at(4)
                t.write(_build_4digits(seat.build))
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
            item_4digits(t, seat, k)
        elif m == items.MAIN_WIN:
            t.write(b"1St ")
        elif named:
            t.part(f.text, i * f.cap, f.cut_4digits[i])  # pyright: ignore[reportOptionalMemberAccess]  named: f
        elif seat.index < 9:
            b = t.buf                  # `P` and the seat's digit, no calls
            b[0] = 80
            b[1] = 49 + seat.index
            t.pos = 2
        else:
            t.write(b"P")
            t.number(seat.index + 1)
        if t.pos <= 5 and b"." not in t.buf:
            t.pos = 5        # no point in it: clear()'s spaces are the padding
        else:
            t.pad_digits(5)
        if m == items.MAIN_WIN and blink(ticks_diff(now_ms, seat.t0)):
            t.write(b"---")
        elif m == items.MAIN_OUT:
            t.write(b"Out")
        else:
            _score_dots(t, seat.value, 3, seat.at_table)
        return t


# OLED text: [0:21] status line, [21] 'I': the at-table mark (see OLED_MARK_X), [22:26] big characters,
