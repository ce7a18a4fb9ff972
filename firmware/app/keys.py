"""The panel's keys by number: the order of KEYS (their names in
board/config.py PANEL and in the docs). app/panel.py's bind() maps the input
layer's event sources onto these; app/hallmenu.py reads OK and UNDO. Small ints:
the device build folds them into the modules that read them
(tools/constfold.py)."""
from micropython import const

BALL1 = const(0)        # the ball keys 1, 3, 5
BALL3 = const(1)
BALL5 = const(2)
CAROM2 = const(3)       # a carom off two balls, three balls
CAROM3 = const(4)
OK = const(5)
MISS = const(6)
FOUL = const(7)
SCRATCH = const(8)
UNDO = const(9)
REDO = const(10)
ENC = const(11)         # push switch of the encoder
ENC2 = const(12)        # push switch of the optional second encoder
KEYS = ("1", "3", "5", "C2", "C3", "OK", "MISS", "FOUL", "SCRATCH", "UNDO", "REDO",
        "ENC", "ENC2")

# Keys with a long-press meaning: they act on release, short or long.
LONG_PRESS = const((1 << BALL1) | (1 << BALL3) | (1 << BALL5) | (1 << MISS) | (1 << FOUL)
                   | (1 << SCRATCH) | (1 << ENC) | (1 << ENC2))
