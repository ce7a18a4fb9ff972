"""A stroke's facts as one small int, and the action words of a game's history.

Bit fields follow the FACTS of GAME-RECORD.md; every default is 0, so 0 is the
ordinary stroke that contacted a ball, reached a cushion and scored nothing.
Balls are masks: B1, B3, B5 (bit i is ball BALL_VALUE[i]).
"""
from micropython import const

B1 = const(1)
B3 = const(2)
B5 = const(4)
ALL_BALLS = const(7)

POCKETED = const(0)          # bits 0-2: ball mask
CAROM = const(3)             # bits 3-4: 0, 2 or 3 object balls contacted (1 is invalid)
FIRST = const(5)             # bits 5-7: FIRST_* below
NO_RAIL = const(8)           # bit 8: nothing pocketed or touched a cushion after contact
CUE = const(9)               # bits 9-10: CUE_* below
JUMPED = const(11)           # bits 11-13: ball mask
FOUL = const(14)             # bit 14: any other foul of the general rules
HELD = const(15)             # bits 15-17: ball mask, spot occupied after this stroke
KIND = const(18)             # bits 18-19 of an action word: KIND_* below

FIRST_MASK = const(7)        # FIRST's field, after the shift
CUE_MASK = const(3)          # CUE's field, after the shift
FIRST_REQUIRED = const(0)    # omitted: the ball the stroke needed
FIRST_NONE = const(1)        # the cue ball contacted nothing
FIRST_B1 = const(2)          # then 3: ball 3, 4: ball 5 (FIRST_B1 + ball index)

CUE_TABLE = const(0)
CUE_POCKET = const(1)
CUE_CALLED = const(2)        # in the called pocket; a plain pocket except for point 101
CUE_OFF = const(3)

KIND_SHOT = const(0)
KIND_REPEAT = const(1)       # after a failed opening: the opener plays it again
KIND_TAKE = const(2)         # after a failed opening: the incoming player takes it

FACTS_MASK = const(0x3FFFF)
F_FOUL = const(1 << 14)
F_NO_RAIL = const(1 << 8)

BALL_VALUE = (1, 3, 5)


def pocketed(f):
    return f & 7


def carom(f):
    return (f >> CAROM) & 3


def first(f):
    return (f >> FIRST) & FIRST_MASK


def cue(f):
    return (f >> CUE) & CUE_MASK


def jumped(f):
    return (f >> JUMPED) & ALL_BALLS


def held(f):
    return (f >> HELD) & ALL_BALLS


def kind(action):
    return (action >> KIND) & 3


def ball_mask(number):
    """Mask of ball 1, 3 or 5; 0 for anything else."""
    if number == 1:
        return B1
    if number == 3:
        return B3
    if number == 5:
        return B5
    return 0


def make(pocketed=0, carom=0, first=FIRST_REQUIRED, rail=True, cue=CUE_TABLE,
         jumped=0, foul=False, held=0):
    """Facts from named fields (host tools and tests; the panel sets bits directly)."""
    f = pocketed | carom << CAROM | first << FIRST | cue << CUE | jumped << JUMPED
    f |= held << HELD
    if not rail:
        f |= F_NO_RAIL
    if foul:
        f |= F_FOUL
    return f
