"""The legend of the seven-segment codes: every text a 4-digit (and 8-digit)
display can show, drawn by the views' own tables (views/words.py) and item code, with its
meaning. One list for every place that explains the codes: docs/DISPLAYS.md
(tools/legend.py writes it), the simulator's help (tools/sim.py, `h`) and the web
page (web/webboard.py). Runs under CPython and MicroPython.
"""
import toolpaths

toolpaths.add("../firmware")

from cowboy import facts  # noqa: E402
from cowboy import codes  # noqa: E402
from views import ui  # noqa: E402
from draw import text  # noqa: E402
from views import digits  # noqa: E402
from views import items  # noqa: E402
from views import seat as seatview  # noqa: E402
from views import words  # noqa: E402
from views import hall as hallview  # noqa: E402
from app.nameedit import NameEditor  # noqa: E402

# Items of the game (IT_*): a sample argument and what the page means.
ITEMS = (
    ("IT_INNING", 7, "the run of this inning (here 7), on the display of the player at the "
                     "table; the score beside it is the total with the run"),
    ("IT_NEED", 8, "8 points still needed for exactly 90"),
    ("IT_CAROMS", 7, "90 reached: caroms only, up to 100"),
    ("IT_CALL", 0, "100 reached: call the pocket of the 101st point"),
    ("IT_OPENING", 0, "the opening stroke: the 3 ball first"),
    ("IT_HAND", 0, "cue ball in hand"),
    ("IT_HELD", facts.B3 | facts.B5, "balls 3 and 5 held off the table (their spots are covered)"),
    ("IT_FOULS", 2, "fouls in a row (here 2; the third puts the player out)"),
    ("IT_LOST", 66, "a foul just wiped this player's run of 66"),
    ("IT_OUT", 0, "out of the game after three fouls in a row"),
    ("IT_WAIT", 0, "the game is over (another player won)"),
    ("IT_STAT_BEST", 23, "statistics: best inning (high run) 23"),
    ("IT_STAT_BEST", 101, "statistics: best inning 101 (the whole game in one inning)"),
    ("IT_STAT_INN", 12, "statistics: innings played, 12"),
    ("IT_STAT_INN", 123, "statistics: innings played, 123"),
    ("IT_STAT_AVG", 47, "statistics: average points per inning, 4.7"),
    ("IT_STAT_FOULS", 3, "statistics: fouls in the game, 3"),
)
MAIN = (
    ("    ", "dark: the seat is not in the game (or not in the players set up)"),
    ("  45", "score (banked) of a player not at the table"),
    ("  4.5.", "the player at the table: the total with this inning's run, points lit "
              "(provisional: a foul wipes the run)"),
    (" 101", "the winner (blinks with ----)"),
    ("----", "the winner's blink"),
    ("P  1", "start-up: this display is player 1's (wiring check)"),
)
FIELDS = (
    (ui.FIELD_FIRST, 3 << facts.FIRST, "field FIRST: the first ball contacted, here the 3"),
    (ui.FIELD_FIRST, facts.FIRST_REQUIRED << facts.FIRST,
     "field FIRST: the ball the rules require"),
    (ui.FIELD_FIRST, facts.FIRST_NONE << facts.FIRST, "field FIRST: no ball contacted"),
    (ui.FIELD_RAIL, 0, "field RAIL: a ball or the cue ball reached a cushion after contact"),
    (ui.FIELD_RAIL, facts.F_NO_RAIL, "field RAIL: no rail; as a foul reason: no rail"),
    (ui.FIELD_JUMPED, (facts.B3 | facts.B5) << facts.JUMPED,
     "field JUMPED: balls 3 and 5 left the table"),
    (ui.FIELD_JUMPED, 0, "field JUMPED: none"),
    (ui.FIELD_HELD, facts.B3 << facts.HELD, "field HELD: ball 3 stays off the table"),
    (ui.FIELD_HELD, 0, "field HELD: none"),
)
NOTICES = ("", "start-up: the journal's last records could not be read; the game goes on "
              "from its last good record (the OLEDs say how many actions were lost)",
           "start-up: the journal could not be read; it was moved aside and a new game "
           "started",
           "start-up: the flash could not be read or written; the game is not being kept",
           "start-up: the journal's last part (journal.tail) is gone or damaged; the game "
           "goes on from the journal's other file, and up to a tail's worth of its last "
           "actions may be lost (the OLEDs say up to how many)")
CUE = ("field CUE: the cue ball stayed on the table",
       "field CUE: cue ball pocketed; as a foul reason: scratch",
       "field CUE: cue ball in the called pocket",
       "field CUE: cue ball off the table; as a foul reason: the same")
WORDS_8DIGITS = (
    ("PLAYEr 1", "8 digits, start-up: player 1's display"),
    ("1St  101", "8 digits: the winner"),
    ("1St  ---", "8 digits: the winner's blink"),
    ("P1    45", "8 digits: player 1 and the score"),
    ("PLAy   3", "8 digits, set-up menu: players"),
    ("oPEn   2", "8 digits, set-up menu: who opens"),
    ("brItE  8", "8 digits, set-up menu: brightness"),
    ("CA    on", "8 digits, set-up menu: a house rule on"),
    ("CA   oFF", "8 digits, set-up menu: a house rule off"),
    ("bLd 7219", "8 digits, set-up menu: the display build"),
    ("onLn", "8 digits, set-up menu (hall mode): online"),
    ("nobr   3", "8 digits, set-up menu (hall mode): the connection, and 3 actions not yet "
                 "acknowledged by the broker"),
    ("H.club", "8 digits, set-up menu (hall mode): the hall's name (here club)"),
)
# Hall mode (a Pico W with hall settings): the connection (ui.NET_*) and the names.
NET = ("", "set-up menu (hall mode): no Wi-Fi",
       "set-up menu (hall mode): Wi-Fi, but no connection to the broker",
       "set-up menu (hall mode): online; 3 actions not yet acknowledged by the broker "
       "(at most 99 shown)")
NAMES = (
    (ui.MENU_HALL, b"bar", -1, "set-up menu (hall mode): the hall's name (here bar; 4 "
                              "digits show its first three characters, 8 digits seven)"),
    (ui.MENU_TABLE, b"t01", -1, "set-up menu (hall mode): the table's name (here t01)"),
    (ui.MENU_TABLE, b"t01", 1, "name editor: the point marks the character under the "
                              "cursor (here the 0 of t01); a longer name shows the four "
                              "(8 digits: eight) characters up to the cursor"),
    (ui.MENU_TABLE, b"t01", 3, "name editor: `_` is the end mark: turn for a character "
                              "more, ENC or OK saves the name"),
)
NAME_ERRORS = ("", "name editor: not saved: the name is empty or has a character other "
                   "than a-z (not w, x), 0-9 and -",
               "name editor: not saved: hall.json could not be written")


def _text(b):
    return (b.decode() if hasattr(b, "decode") else str(b)).rstrip()


def _item(code, arg, seat=None):
    """Item `code` with `arg`, drawn by the views' own 4-digit code."""
    seat = seat or seatview.Seat(0)
    seat.count = 1
    seat.items[0] = code
    seat.args[0] = arg
    t = text.Text(8)
    digits.item_4digits(t, seat, 0)
    return _text(bytes(t.buf))


def entries():
    """(code, meaning) for every 4-digit text, then the 8-digit words."""
    out = []

    def add(code, meaning):
        if (code, meaning) not in out:
            out.append((code, meaning))

    for code, meaning in MAIN:
        add(code, meaning)
    for name, arg, meaning in ITEMS:
        add(_item(getattr(items, name), arg), meaning)
    for k in range(1, len(words.REASON_4DIGITS)):
        if words.REASON_OLED[k] != words.REASON_OLED[0]:
            add(_item(items.IT_REASON, k),
                "foul reason: " + _text(words.REASON_OLED[k])[6:].lower())
    add(_item(items.IT_REASON, codes.R_FOUL), "foul reason: a foul of the general rules")
    for k in range(1, len(words.NOTICE_4DIGITS)):
        add(_item(items.IT_NOTICE, k), NOTICES[k])
    for name, code in words.BUILD_4DIGITS:
        seat = seatview.Seat(0)
        seat.build = name
        add(_item(items.IT_BUILD, 0, seat), "start-up and set-up menu: the display build %s"
            % name.decode())
    for k in range(len(words.RULE_4DIGITS)):
        add(_item(items.IT_RULE, k), "house rule on: " + _text(words.RULE_OLED[k]).lower())
        seat = seatview.Seat(0)
        seat.value = 0
        add(_item(items.IT_MENU, ui.MENU_RULE + k, seat), "set-up menu: house rule %s off"
            % words.RULE_4DIGITS[k].decode())
    for k in range(1, len(words.NOTE_4DIGITS)):
        if k == ui.NOTE_REJECTED:
            continue
        add(_text(words.NOTE_4DIGITS[k]), "note: " + _text(words.NOTE_OLED[k]).lower())
    for k in range(1, len(words.REJECT_OLED)):
        add(_item(items.IT_NOTE, ui.NOTE_REJECTED, _seat_reject(k)),
            "refused: " + _text(words.REJECT_OLED[k]).lower())
    add(_item(items.IT_PREVIEW, 6), "preview before OK: the stroke scores 6")
    add(_item(items.IT_PREVIEW, codes.WIN), "preview before OK: the winning stroke, 101")
    add(_item(items.IT_PREVIEW, codes.FAILED_OPENING), "preview before OK: a failed opening")
    add(_item(items.IT_PREVIEW, codes.ELIMINATED | codes.FOUL_FLAG),
        "preview before OK: a third foul, out")
    add(_item(items.IT_CHOICE, 0), "failed opening: OK repeats, ENC takes")
    for field, bits, meaning in FIELDS:
        seat = seatview.Seat(0)
        seat.facts = bits
        add(_item(items.IT_FIELD, field, seat), meaning)
    for k in range(len(words.CUE_4DIGITS)):
        seat = seatview.Seat(0)
        seat.facts = k << facts.CUE
        add(_item(items.IT_FIELD, ui.FIELD_CUE, seat), CUE[k])
    for item, what in ((ui.MENU_PLAYERS, "players"), (ui.MENU_OPENER, "who opens"),
                       (ui.MENU_BRIGHTNESS, "brightness")):
        seat = seatview.Seat(0)
        seat.value = 3
        add(_item(items.IT_MENU, item, seat), "set-up menu: %s (here 3)" % what)
    add(_item(items.IT_MENU, ui.MENU_START), "set-up menu: start (OK or ENC)")
    add(_item(items.IT_MENU, ui.MENU_CONFIRM), "set-up menu: new house rules, OK starts a new game")
    for k in range(1, len(hallview.NET_4DIGITS)):
        seat = name_seat(b"", -1)
        seat.menu_panel.net_state = k
        seat.menu_panel.net_pending = 3
        add(_item(items.IT_MENU, ui.MENU_NET, seat), NET[k])
    for item, name, cursor, meaning in NAMES:
        add(_item(items.IT_MENU, item, name_seat(name, cursor)), meaning)
    for k in range(1, len(hallview.NAMEERR_4DIGITS)):
        seat = name_seat(b"", 0)
        seat.menu_panel.menu_value = k
        add(_item(items.IT_MENU, ui.MENU_HALL, seat), NAME_ERRORS[k])
    for code, meaning in WORDS_8DIGITS:
        add(code, meaning)
    return out


class _Panel:
    """What views/hall.py reads of the panel (views/ui.py; `editor` too)."""
    net_state = 0
    net_pending = 0
    menu_value = 0


def name_seat(name, cursor):
    """A seat on a hall item, showing `name` (bytes) edited at `cursor` (-1: not
    editing)."""
    seat = seatview.Seat(0)
    seat.menu_panel = _Panel()
    seat.menu_panel.editor = e = NameEditor()
    e.chars[:len(name)] = name
    e.length = len(name)
    e.cursor = cursor
    return seat


def _seat_reject(k):
    seat = seatview.Seat(0)
    seat.reject = k
    return seat
