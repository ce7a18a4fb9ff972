"""Hall mode's views (the layouts import this the first time one shows): the set-up
menu's hall items (the connection, the hall and the table name, the name editor)
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
EDIT21 = (b"HALL NAME", b"TABLE NAME")     # the OLED editor's status line
# Why a save was refused (panel.menu_value: hallui.NAME_BAD, NAME_FAILED).
NAMEERR4 = (b"", b"Err ", b"FLSh")
NAMEERR21 = (b"", b"NAME: A-Z 0-9 - ONLY", b"STORAGE FAILING")

_SPACE = 32
_END7 = 95          # '_': the end mark on seven segments
_END21 = 42         # '*': on the OLED (its small font has no '_')


def item7(t, seat, a, digits):
    """Item `a` on `digits` seven segments: the connection and its count, a name
    after its letter (`H.club`), or the editor: the `digits` characters up to the
    cursor with the cursor's point lit (`_` is the end mark)."""
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
        return
    if p.menu_value != HU.NAME_OK:
        t.s(pick(NAMEERR4, p.menu_value))
        return
    c = p.cursor
    name = p.name
    n = p.name_len
    if c < 0:
        t.s(NAME4[a - U.MENU_HALL])
        for i in range(n):
            t.c(name[i])
        return
    first = c - digits + 1 if c >= digits else 0
    for i in range(first, first + digits):
        if i < n:
            t.c(name[i])
        elif i == c:
            t.c(_END7)
        else:
            t.c(_SPACE)
        if i == c:
            t.c(46)


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
    elif p.menu_value != HU.NAME_OK:
        t.s(pick(NAMEERR21, p.menu_value))
    else:
        if p.cursor < 0:
            t.s(NAME21[a - U.MENU_HALL])
        for i in range(p.name_len):
            t.c(p.name[i])


def editor21(t, seat, a, dark, cols, big, side, bottom):
    """The OLED name editor in views.LayoutOLED's text (`cols` wide status line,
    `big`, `side` and `bottom` where those parts begin): the item and the cursor's
    place on the status line, that number big, the cursor's character at double
    size beside it, the whole name on the item line with the cursor's character
    shown as `*` in the `dark` half of the blink (`*` is also the end mark)."""
    p = seat.hall
    c = p.cursor
    n = p.name_len
    t.s(EDIT21[a - U.MENU_HALL])
    t.at(cols - 5)
    t.n(c + 1, 2)
    t.c(47)                          # '/'
    t.n(HU.MAX_NAME, 2)
    t.at(big)
    t.n(c + 1, 3)
    t.at(side + 1)
    t.c(p.name[c] if c < n else _END21)
    t.at(bottom)
    if p.menu_value != HU.NAME_OK:
        t.s(pick(NAMEERR21, p.menu_value))
        return
    for i in range(n):
        t.c(_END21 if i == c and dark else p.name[i])
    if c >= n:
        t.c(_END21)


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
