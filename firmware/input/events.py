"""Input event encoding: one small int per event, `kind << 8 | source`.

`source` is the key's index in the build's key list (panel keys, then each
encoder's push switch) or, for turns, the encoder's index.
"""
from micropython import const

NONE = const(0)      # what EventRing.get() returns when empty
PRESS = const(1)
RELEASE = const(2)
LONG = const(3)      # held past the long-press time; a RELEASE still follows
CW = const(4)        # one detent clockwise
CCW = const(5)       # one detent counter-clockwise


def event(kind, source):
    """The event int for `kind` from `source`."""
    return kind << 8 | source


def kind(ev):
    return ev >> 8


def source(ev):
    return ev & 0xFF
