"""The hall items of the set-up menu (hall mode only): codes the panel's hall menu
(app/hallmenu.py), the hall publisher (net/hall.py) and the views
(views/hall.py) share, and what a name may be. Apart from views/ui.py so
that a plain Pico does not load them."""
from micropython import const

# The connection state (panel.net_state, from net.state()).
NET_NONE = const(0)        # no hall mode (app/hallmenu.py NoNet)
NET_NO_WIFI = const(1)     # the Wi-Fi has not joined
NET_NO_BROKER = const(2)   # Wi-Fi, but no connection to the broker
NET_ONLINE = const(3)      # connected to the broker

# Hall and table names: one MQTT topic level each, readable on seven segments
# (no w or x: they have no seven-segment form). panel.cursor is the character being
# edited (-1: not editing); a cursor at name_len is the end mark. menu_value on a
# name item: NAME_OK, or why the last save was refused.
NAME_CHARS = b"abcdefghijklmnopqrstuvyz0123456789-"
MAX_NAME = const(12)
NAME_OK = const(0)
NAME_BAD = const(1)        # empty, or a character outside NAME_CHARS
NAME_FAILED = const(2)     # hall.json could not be written


def name_ok(b, n=-1):
    """True when the first n bytes of b (all of it for n < 0) are a valid name."""
    if n < 0:
        n = len(b)
    if n < 1 or n > MAX_NAME:
        return False
    for i in range(n):
        if char_index(b[i]) < 0:
            return False
    return True


def char_index(c):
    """The index of byte `c` in NAME_CHARS, or -1. (A loop: MicroPython's `in`
    does not take an int for bytes.)"""
    for k in range(len(NAME_CHARS)):
        if NAME_CHARS[k] == c:
            return k
    return -1
