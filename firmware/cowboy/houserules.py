"""The house rules of RULES.md section 10: the one table of their mask bits and
record names.

A game's house rules are one small int fixed by `Game.new_game(players, opener,
rules)`; all off (0) is the rule book as written. Bit i is NAMES[i], the name a
game record uses. The bits are const(): the device build folds them into the
modules that read them (tools/constfold.py), so the board loads this module only
where it shows or parses the names. Adding a rule: docs/RULES.md section 10.
"""
from micropython import const

CAROM_NO_CUSHION = const(1)     # a carom below 100 needs no cushion (replaces R1)
POCKET_90S_NO_FOUL = const(2)   # 90-99: a pocketed ball scores nothing, no foul
WIN_POCKETS_NOTHING = const(4)  # at 100: pocketing any object ball is a foul (R4)
TAKE_AS_LIES = const(8)         # "take" after a failed opening: balls as they lie
COUNT = const(4)                # how many (views/ui.py RULES is the same number)
ALL = const((1 << COUNT) - 1)   # every house rule on

NAMES = ("carom_no_cushion", "pocket_90s_no_foul", "win_pockets_nothing", "take_as_lies")


def bit(name):
    """The mask bit of a house rule's name, or 0 for a name that is none."""
    for i in range(len(NAMES)):
        if NAMES[i] == name:
            return 1 << i
    return 0


def names(mask):
    """The names of the house rules on in `mask`, in NAMES order (a new list)."""
    return [NAMES[i] for i in range(len(NAMES)) if mask & (1 << i)]
