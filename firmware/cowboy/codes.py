"""Codes the rules core answers with: phases, outcomes, foul reasons, rejections.

An outcome is one small int: bits 0-3 the points the stroke scored, bits 4-7 the
foul reason (0 when none), then flags. Texts are short English labels; views may
abbreviate them for small displays.
"""
from micropython import const

PHASE_OPENING = const(0)   # the next stroke is the opening stroke
PHASE_CHOICE = const(1)    # failed opening: the incoming player chooses
PHASE_POINTS = const(2)    # shooter's total 0-89: balls and caroms score
PHASE_CAROMS = const(3)    # 90-99: caroms only
PHASE_FINAL = const(4)     # 100: the called 101st point
PHASE_OVER = const(5)

PHASE_NAME = ("opening", "choice", "points", "caroms", "final", "over")

# Foul reasons, most fundamental first: a stroke reports the first that applies.
R_NONE = const(0)
R_NO_CONTACT = const(1)      # the cue ball contacted no object ball
R_NOT_ONE_FIRST = const(2)   # at 100: the cue ball did not contact the 1 ball first
R_OTHER_BALL = const(3)      # at 100: the cue ball contacted another object ball
R_CUE_OFF = const(4)         # the cue ball left the table
R_SCRATCH = const(5)         # the cue ball was pocketed
R_NO_RAIL = const(6)         # after contact nothing was pocketed or touched a cushion
R_FOUL = const(7)            # another foul of the general rules (operator's "foul")
R_BALL_AT_90 = const(8)      # 90-99: an object ball was pocketed
R_PAST_90 = const(9)         # below 90: the stroke took the total past 90
R_PAST_100 = const(10)       # 90-99: the stroke took the total past 100 (ruling R3)
R_BALL_AT_100 = const(11)    # at 100, house rule win_pockets_nothing: an object ball pocketed

REASON_TEXT = (
    "", "no contact", "1 ball not first", "other ball hit", "cue ball off table",
    "scratch", "no rail", "foul", "ball pocketed at 90+", "past 90", "past 100",
    "ball pocketed at 100",
)

POINTS_MASK = const(15)         # bits 0-3: the points the stroke scored
REASON_SHIFT = const(4)
REASON_MASK = const(15)         # bits 4-7 (after REASON_SHIFT): the foul reason
ENDS_INNING = const(1 << 8)     # the inning ends (scored nothing, foul, or win)
FOUL_FLAG = const(1 << 9)       # the stroke is a foul (reason says which)
WIN = const(1 << 10)            # the winning stroke, 101
FAILED_OPENING = const(1 << 11)  # an opening stroke that missed the 3 ball (R2)
ELIMINATED = const(1 << 12)     # the shooter's third consecutive foul
CUE_IN_HAND = const(1 << 13)    # the next stroke is played with the cue ball in hand
RESPOT = const(1 << 14)         # the balls were set as at the start (section 7 exception)
CHOICE = const(1 << 15)         # the action was a failed-opening choice

# Fouls in a row (docs/RULES.md, "Fouls and their reasons"; ruling R6): FOULS_OUT of
# them put a player out, so a foul with FOULS_LAST_CHANCE already counted is ELIMINATED.
FOULS_OUT = const(3)
FOULS_LAST_CHANCE = const(FOULS_OUT - 1)


def points(outcome):
    return outcome & POINTS_MASK


def reason(outcome):
    return (outcome >> REASON_SHIFT) & REASON_MASK


# Rejections: the action does not fit the facts or the moment; nothing changes.
OK = const(0)
E_CAROM_NO_CONTACT = const(1)  # a carom, or a ball pocketed or jumped, with no contact
E_RAIL_POCKET = const(2)     # "no rail" with a ball or the cue ball in a pocket
E_POCKET_AND_JUMP = const(3)  # a ball both pocketed and jumped
E_BALL_OFF_TABLE = const(4)  # contacting, pocketing or jumping a ball that is off the table
E_CAROM_TOO_MANY = const(5)  # a carom off more balls than are on the table
E_HELD_ON_TABLE = const(6)   # held: a ball neither off the table, pocketed nor jumped
E_HELD_ALL = const(7)        # held: all three balls (one spot is always free)
E_CHOICE_DUE = const(8)      # a stroke while a choice is due
E_NO_CHOICE = const(9)       # a choice when none is due
E_GAME_OVER = const(10)      # a stroke or a choice after the game is over
E_NOTHING_TO_UNDO = const(11)
E_NOTHING_TO_REDO = const(12)
E_BAD_VALUE = const(13)      # a field out of range (carom 1, a bad action word)
E_PLAYERS = const(14)        # players not in 2..MAX_PLAYERS, or opener out of range

REJECT_TEXT = (
    "ok", "carom or ball without contact", "no rail but pocketed",
    "ball pocketed and jumped", "ball is off the table", "carom off too many balls",
    "held ball was on the table", "cannot hold all three balls", "choice is due",
    "no choice is due", "game is over", "nothing to undo", "nothing to redo",
    "value out of range", "players 2 to 8",
)
