"""Hall mode's views (the layouts import this the first time one shows): the set-up
menu's hall items (the connection, the hall and the table name; the layouts draw
the name editor open on a name, views/digits.py editor7, views/oled.py editor21)
and the desk's offer of the next game. Every text comes from the tables below (their codes are in
docs/DISPLAYS.md's legend); rendering allocates nothing."""
from views import ui as U
from views import hallui as HU
from draw.blit import fill
from views.words import pick

# The connection (hallui.NET_*); the OLED adds ", N UNSENT".
NET4 = (b"----", b"noFi", b"nobr", b"on")
NET8 = (b"----", b"noFi", b"nobr", b"onLn")
NET21 = (b"NO NETWORK", b"NO WI-FI", b"NO BROKER", b"ONLINE")
# A name not being edited: its letter (seven segments) or its word (OLED) first,
# by item (MENU_HALL, MENU_TABLE).
NAME4 = (b"H.", b"t.")
NAME21 = (b"HALL: ", b"TABLE: ")
EDIT21 = (b"HALL NAME", b"TABLE NAME")     # the OLED editor's status line (views/oled.py)
# Why a save was refused (panel.menu_value: hallui.NAME_BAD, NAME_FAILED).
NAMEERR4 = (b"", b"Err ", b"FLSh")
NAMEERR21 = (b"", b"NAME: A-Z 0-9 - ONLY", b"STORAGE FAILING")

_SPACE = 32


def item7(t, seat, a, digits):
    """Item `a` on `digits` seven segments: the connection and its count, a name
    after its letter (`H.club`), why its save was refused; False, nothing drawn,
    when the editor is open on the name (the layout draws it: views/digits.py
    editor7)."""
    p = seat.hall
    if a == U.MENU_NET:
        v = p.net_state
        if digits == 4:
            t.s(pick(NET4, v))
            if v == HU.NET_ONLINE:
                t.n(min(p.net_pending, 99), 2)
        else:
            t.s(pick(NET8, v))
            if p.net_pending:
                t.at(5)
                t.n(min(p.net_pending, 999), 3)
        return True
    if p.menu_value != HU.NAME_OK:
        t.s(pick(NAMEERR4, p.menu_value))
        return True
    e = p.editor
    if e.cursor >= 0:
        return False
    t.s(NAME4[a - U.MENU_HALL])
    for i in range(e.length):
        t.c(e.chars[i])
    return True


def big21(t, seat, a):
    """The OLED's big characters on a hall item: `on` or `oFF` for the connection."""
    if a == U.MENU_NET:
        t.s(b" on" if seat.hall.net_state == HU.NET_ONLINE else b"oFF")


def item21(t, seat, a):
    """The OLED's item line: the connection in words, a name after its word."""
    p = seat.hall
    if a == U.MENU_NET:
        t.s(pick(NET21, p.net_state))
        if p.net_pending:
            t.s(b", ")
            t.n(p.net_pending)
            t.s(b" UNSENT")
    elif not refused21(t, seat):
        e = p.editor
        if e.cursor < 0:
            t.s(NAME21[a - U.MENU_HALL])
        for i in range(e.length):
            t.c(e.chars[i])


def refused21(t, seat):
    """Why the last save of a name was refused, on the OLED's item line: True, or
    False and nothing written when it was not."""
    v = seat.hall.menu_value
    if v == HU.NAME_OK:
        return False
    t.s(pick(NAMEERR21, v))
    return True


# The desk's offer of the next game (ui.MODE_OFFER, hall mode): the notice, the
# opener's mark, the OLED's lines (names drawn in capitals, '?' for the rest).
OFFER4 = b"oFFr"
OPENER4 = b"oP"
OFFER21 = b"NEXT: "
OFFERVS21 = b" V "
OFFERN21 = b" PLAYERS"
OFFERKEYS21 = b"OK=START  UNDO=BACK"
OPENS21 = b" OPENS"


def offer7(t, seat, now_ms, digits):
    """The desk's offer: `oFFr` and the seat's number in the offered game (`P  2`,
    the opener `oP 1`), taking turns on 4 digits, side by side on 8."""
    if digits == 4 and (now_ms // U.PAGE_MS) & 1 == 0:
        t.s(OFFER4)
        return
    if digits == 8:
        t.s(OFFER4)
        t.at(5)
    t.s(OPENER4 if seat.at_table else b" P")
    t.n(seat.index + 1, digits - 2 if digits == 4 else 1)


def offer21(t, seat, now_ms, cols, big, bottom):
    """The desk's offer: who plays whom on the status line (`NEXT: ANNA V BEN`, or
    the number of players without names), the seat's number big, its name (and
    `OPENS` for the opener) taking turns with the keys on the item line."""
    o = seat.offer
    t.s(OFFER21)
    names = o.names
    if names is None:
        t.n(o.players)
        t.s(OFFERN21)
    else:
        for i in range(o.players):
            if i:
                t.s(OFFERVS21)
            t.ascii21(names[i], cols)
            if t.pos >= cols:
                break
    fill(t.buf, cols, t.size - cols, _SPACE)       # what ran past the line
    t.pos = big
    t.c(80)                                         # 'P'
    t.n(seat.index + 1)
    t.pos = bottom
    if (now_ms // U.PAGE_MS) & 1:
        t.s(OFFERKEYS21)
        return
    if names is not None and names[seat.index]:
        t.ascii21(names[seat.index], bottom + cols)
    else:
        t.s(b"PLAYER ")
        t.n(seat.index + 1)
    if seat.at_table:
        t.s(OPENS21)
