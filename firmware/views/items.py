"""What a seat says, as codes: its main value and its items (views/seat.py sets
them; views/digits.py and views/oled.py draw them), and what a previewed stroke
would do. Small ints only: the device build folds them into the modules that
read them (tools/constfold.py)."""
from micropython import const

# Main value of a seat.
MAIN_BLANK = const(0)     # seat not in the game
MAIN_HELLO = const(1)     # player number (start-up wiring check)
MAIN_SCORE = const(2)     # the score: banked, or the live total at the table
MAIN_OUT = const(3)       # eliminated (codes.FOULS_OUT fouls in a row)
MAIN_WIN = const(4)       # the winner
MAIN_OVER = const(5)      # game over, not the winner: final score
MAIN_MENU = const(6)      # set-up menu value
MAIN_OFFER = const(7)     # the desk's offer of the next game: this seat's place in it

# Items, shown in turn (ordinary) or alone (urgent, >= IT_URGENT).
IT_INNING = const(1)      # arg: the run (inning points) of the player at the table
IT_NEED = const(2)        # arg: points to reach exactly 90
IT_CAROMS = const(3)      # arg: points to 100 (caroms only)
IT_CALL = const(4)        # the called 101st point
IT_OPENING = const(5)     # opening stroke: 3 ball first
IT_HAND = const(6)        # cue ball in hand
IT_HELD = const(7)        # arg: ball mask off the table
IT_FOULS = const(8)       # arg: consecutive fouls (1 to codes.FOULS_LAST_CHANCE)
IT_REASON = const(9)      # arg: foul reason of this player's last stroke
IT_OUT = const(10)
IT_WAIT = const(11)       # arg: winner (game over, other players)
IT_STAT_BEST = const(12)  # arg: best inning
IT_STAT_INN = const(13)   # arg: innings played
IT_STAT_FOULS = const(14)  # arg: fouls
IT_STAT_AVG = const(15)   # arg: points per inning x10
IT_LOST = const(16)       # arg: the run a foul just wiped (fouler's display)
IT_BUILD = const(17)      # start-up: the display build (panel.build)
IT_NOTICE = const(18)     # arg: start-up notice (ui.NOTICE_*), panel.notice_arg
IT_RULE = const(19)       # arg: house rule k, on (start-up pages)
IT_NAME = const(20)       # arg: the seat whose name shows (start-up pages, the winner)
IT_URGENT = const(32)
IT_NOTE = const(32)       # arg: note code (panel.reject for NOTE_REJECTED)
IT_PREVIEW = const(33)    # arg: the core's outcome code, or -reject
IT_FIELD = const(34)      # arg: field code (value from panel.facts)
IT_CHOICE = const(35)     # failed opening: repeat or take
IT_MENU = const(36)       # arg: menu item

MAX_ITEMS = const(8)

# What a previewed stroke says, in this order of importance (views/seat.py outcome()); the
# texts come first, a number or a reason follows for a reject, a foul, points.
PV_REJECT = const(0)
PV_WIN = const(1)
PV_FAILED = const(2)
PV_OUT = const(3)
PV_FOUL = const(4)
PV_POINTS = const(5)
