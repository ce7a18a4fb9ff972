"""The views' texts that go by a code, as tables indexed by it (foul reasons, notes,
rejections, fields, set-up items, house rules, notices, previews), the words the
4-digit layout draws beside a number, and the fouls' texts that spell the rules
core's limits: four characters for seven segments (see draw/segments.py for what
reads well), up to 21 for the OLED text line. tools/legend.py writes
docs/DISPLAYS.md's legend from what views/digits.py draws with them, so a code
shown on a display has its meaning written down.

A layout's own fixed words stay in it as literals (views/oled.py `BANKED `,
`NEED `, ...; views/digits.py `hAnd`, `CALL`, ...; views/hall.py): a literal is a
constant of the code that draws it, a name taken from here a global lookup on
every render (tools/constfold.py folds integers only)."""
from views import ui
from version import VERSION

# Foul reasons (cowboy.codes R_*): the cue-ball ones read as the CUE field's values.
REASON_4DIGITS = (b"FoUL", b"noHt", b"not1", b"othr", b"CoFF", b"CPoc", b"rL n", b"FoUL",
                  b"b 90", b"P 90", b"P100", b"b100")
REASON_OLED = (b"FOUL", b"FOUL: NO CONTACT", b"FOUL: 1 BALL NOT 1ST",
               b"FOUL: OTHER BALL HIT", b"FOUL: CUE BALL OFF", b"FOUL: SCRATCH",
               b"FOUL: NO RAIL", b"FOUL", b"FOUL: BALL AT 90+", b"FOUL: PAST 90",
               b"FOUL: PAST 100", b"FOUL: BALL AT 100")
NOTE_4DIGITS = (b"    ", b"bAL?", b"UndO", b"Err ", b"nonE", b"nonE", b"rEP?", b"101?",
                b"End ", b"FLSh")
NOTE_OLED = (b"", b"BALLS/CAROM, THEN OK", b"CLEAR FIRST (UNDO)", b"NOT POSSIBLE",
             b"NOTHING TO UNDO", b"NOTHING TO REDO", b"OK=REPEAT  ENC=TAKE",
             b"OK AGAIN: 101", b"GAME OVER", b"STORAGE FAILING")
REJECT_OLED = (b"OK", b"CONTACT MISSING", b"NO RAIL BUT POCKETED", b"POCKETED AND JUMPED",
               b"BALL IS OFF TABLE", b"CAROM: TOO MANY", b"HELD BALL ON TABLE",
               b"CANNOT HOLD ALL 3", b"CHOICE IS DUE", b"NO CHOICE DUE", b"GAME IS OVER",
               b"NOTHING TO UNDO", b"NOTHING TO REDO", b"VALUE OUT OF RANGE",
               b"PLAYERS 2 TO 8")
FIELD_OLED = (b"", b"FIRST CONTACT:", b"RAIL AFTER CONTACT:", b"JUMPED:", b"HELD OFF:",
              b"CUE BALL:")
CUE_4DIGITS = (b"tAb", b"Poc", b"CAL", b"oFF")
CUE_OLED = (b"TABLE", b"POCKET", b"CALLED", b"OFF")
# Set-up menu items (ui.MENU_*, in order); the house rule items show RULE_4DIGITS/RULE_OLED
# instead, so their places are blank here, one per rule.
_RULE_ITEMS = (b"",) * ui.RULES
MENU_4DIGITS = (b"PL", b"oP", b"br") + _RULE_ITEMS + (b"", b"Go", b"Go ?")
MENU_OLED = (b"PLAYERS", b"OPENING PLAYER", b"BRIGHTNESS") + _RULE_ITEMS + (
    b"DISPLAYS: ", b"START: PRESS OK", b"OK=NEW GAME UNDO=BACK")
MENU_8DIGITS = (b"PLAy ", b"oPEn ", b"brItE") + _RULE_ITEMS + (b"bLd", b"Go", b"Go ?")
# House rules (cowboy/houserules.py NAMES order): a short name, on or off.
RULE_4DIGITS = (b"CA", b"90", b"10", b"tA")
RULE_OLED = (b"CAROM: NO CUSHION", b"90-99: POCKET NO FOUL", b"100: POCKETING = FOUL",
             b"TAKE AS THE BALLS LIE")
ONOFF_4DIGITS = (b"oF", b"on")
ONOFF_8DIGITS = (b"oFF", b" on")
# The display builds (board/config.py BUILDS names) and their 4-digit codes.
BUILD_4DIGITS = ((b"tm1637", b"1637"), (b"max7219", b"7219"), (b"ht16k33", b"Ht16"),
                 (b"oled4", b"oLd4"), (b"oled8", b"oLd8"))
# What start-up found (ui.NOTICE_*).
NOTICE_4DIGITS = (b"", b"CUt ", b"bAd ", b"FLSh", b"CUt ")
NOTICE_OLED = (b"", b"LOST LAST ACTIONS: ", b"UNREADABLE: NEW GAME", b"STORAGE FAILING",
               b"LOST UP TO ")
# The items' own words (IT_*), each followed by its number where it has one.
RUN_4DIGITS = b"r"               # the run: r 17
NEED_4DIGITS = b"to"             # to 8: 8 points to exactly 90
LOST_4DIGITS = b"-"              # - 17: the run a foul wiped
BEST_4DIGITS = b"hi"             # statistics: high run (best inning)
INN_4DIGITS = b"In"              # statistics: innings played
AVG_4DIGITS = b"A"               # statistics: average
FOULS_4DIGITS = b"F"             # fouls in a row; statistics: fouls
HELLO_4DIGITS = b"P"             # start-up: the player number
# Fouls in a row (IT_FOULS, IT_OUT, the third-foul preview): the limits of rule R6
# (cowboy/codes.py FOULS_OUT, FOULS_LAST_CHANCE) in words; test_legend.py holds the
# words to the limits.
FOUL_OLED = b"1 FOUL (3 LOSE)"
FOULS_LAST_OLED = b"2 FOULS: LAST CHANCE"
OUT_OLED = b"OUT: THREE FOULS"
# What a previewed stroke says (views/items.py PV_*).
PREVIEW_4DIGITS = (b"E", b" 101", b"not3", b"Out?", b"", b"=")
PREVIEW_OLED = (b"NO: ", b"WINS THE GAME: 101", b"FAILED OPENING",
                b"THIRD FOUL: OUT", b"", b"STROKE +")


def pick(table, i):
    """table[i], or table[0] for a code the table does not have."""
    return table[i] if 0 <= i < len(table) else table[0]


VERSION_TEXT = VERSION.encode()  # the firmware's version as the displays draw it
