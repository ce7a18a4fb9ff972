"""Hall mode's views (the layouts import this the first time one shows): the set-up
menu's hall items (the connection, the hall and the table name; the layouts draw
the name editor open on a name, views/digits.py editor_7seg, views/oled.py editor_oled)
and the desk's offer of the next game. Every text comes from the tables below (their codes are in
docs/DISPLAYS.md's legend); rendering allocates nothing."""
from views import ui
from views import hallui
from draw.blit import fill
from views.words import pick

# The connection (hallui.NET_*); the OLED adds ", N UNSENT".
NET_4DIGITS = (b"----", b"noFi", b"nobr", b"on")
NET_8DIGITS = (b"----", b"noFi", b"nobr", b"onLn")
NET_OLED = (b"NO NETWORK", b"NO WI-FI", b"NO BROKER", b"ONLINE")
# A name not being edited: its letter (seven segments) or its word (OLED) first,
# by item (MENU_HALL, MENU_TABLE).
NAME_4DIGITS = (b"H.", b"t.")
NAME_OLED = (b"HALL: ", b"TABLE: ")
EDIT_OLED = (b"HALL NAME", b"TABLE NAME")     # the OLED editor's status line (views/oled.py)
# Why a save was refused (panel.menu_value: hallui.NAME_BAD, NAME_FAILED).
NAMEERR_4DIGITS = (b"", b"Err ", b"FLSh")
NAMEERR_OLED = (b"", b"NAME: A-Z 0-9 - ONLY", b"STORAGE FAILING")

_SPACE = 32


def item_7seg(t, seat, a, digits):
    """Item `a` on `digits` seven segments: the connection and its count, a name
    after its letter (`H.club`), why its save was refused; False, nothing drawn,
    when the editor is open on the name (the layout draws it: views/digits.py
    editor_7seg)."""
    p = seat.menu_panel
    if a == ui.MENU_NET:
        v = p.net_state
        if digits == 4:
            t.write(pick(NET_4DIGITS, v))
            if v == hallui.NET_ONLINE:
                t.number(min(p.net_pending, 99), 2)
        else:
            t.write(pick(NET_8DIGITS, v))
            if p.net_pending:
                t.at(5)
                t.number(min(p.net_pending, 999), 3)
        return True
    if p.menu_value != hallui.NAME_OK:
        t.write(pick(NAMEERR_4DIGITS, p.menu_value))
        return True
    e = p.editor
    if e.cursor >= 0:
        return False
    t.write(NAME_4DIGITS[a - ui.MENU_HALL])
    for i in range(e.length):
        t.char(e.chars[i])
    return True


def big_oled(t, seat, a):
    """The OLED's big characters on a hall item: `on` or `oFF` for the connection."""
    if a == ui.MENU_NET:
        t.write(b" on" if seat.menu_panel.net_state == hallui.NET_ONLINE else b"oFF")


def item_oled(t, seat, a):
    """The OLED's item line: the connection in words, a name after its word."""
    p = seat.menu_panel
    if a == ui.MENU_NET:
        t.write(pick(NET_OLED, p.net_state))
        if p.net_pending:
            t.write(b", ")
            t.number(p.net_pending)
            t.write(b" UNSENT")
    elif not refused_oled(t, seat):
        e = p.editor
        if e.cursor < 0:
            t.write(NAME_OLED[a - ui.MENU_HALL])
        for i in range(e.length):
            t.char(e.chars[i])


def refused_oled(t, seat):
    """Why the last save of a name was refused, on the OLED's item line: True, or
    False and nothing written when it was not."""
    v = seat.menu_panel.menu_value
    if v == hallui.NAME_OK:
        return False
    t.write(pick(NAMEERR_OLED, v))
    return True


# The desk's offer of the next game (ui.MODE_OFFER, hall mode): the notice, the
# opener's mark, the OLED's lines (names drawn in capitals, '?' for the rest).
OFFER_4DIGITS = b"oFFr"
OPENER_4DIGITS = b"oP"
OFFER_OLED = b"NEXT: "
OFFERVS_OLED = b" V "
OFFERN_OLED = b" PLAYERS"
OFFERKEYS_OLED = b"OK=START  UNDO=BACK"
OPENS_OLED = b" OPENS"


def offer_7seg(t, seat, now_ms, digits):
    """The desk's offer: `oFFr` and the seat's number in the offered game (`P  2`,
    the opener `oP 1`), taking turns on 4 digits, side by side on 8."""
    if digits == 4 and (now_ms // ui.PAGE_MS) & 1 == 0:
        t.write(OFFER_4DIGITS)
        return
    if digits == 8:
        t.write(OFFER_4DIGITS)
        t.at(5)
    t.write(OPENER_4DIGITS if seat.at_table else b" P")
    t.number(seat.index + 1, digits - 2 if digits == 4 else 1)


def offer_oled(t, seat, now_ms, cols, big, bottom):
    """The desk's offer: who plays whom on the status line (`NEXT: ANNA V BEN`, or
    the number of players without names), the seat's number big, its name (and
    `OPENS` for the opener) taking turns with the keys on the item line."""
    o = seat.offer
    t.write(OFFER_OLED)
    names = o.names
    if names is None:
        t.number(o.players)
        t.write(OFFERN_OLED)
    else:
        for i in range(o.players):
            if i:
                t.write(OFFERVS_OLED)
            t.ascii_oled(names[i], cols)
            if t.pos >= cols:
                break
    fill(t.buf, cols, t.size - cols, _SPACE)       # what ran past the line
    t.pos = big
    t.char(80)                                         # 'P'
    t.number(seat.index + 1)
    t.pos = bottom
    if (now_ms // ui.PAGE_MS) & 1:
        t.write(OFFERKEYS_OLED)
        return
    if names is not None and names[seat.index]:
        t.ascii_oled(names[seat.index], bottom + cols)
    else:
        t.write(b"PLAYER ")
        t.number(seat.index + 1)
    if seat.at_table:
        t.write(OPENS_OLED)
