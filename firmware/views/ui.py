"""What the panel tells the views besides the game state.

The contract between `app/panel` (which sets these) and the views (which read
them): plain small-int codes, so rendering needs no strings built at run time.
Besides the codes, `panel.names`: 8 bytes objects, each seat's name in UTF-8 (b"":
none), a new object whenever a name changes (and `panel.version` bumped); the
views fold each once per change (draw/fold.py).
"""
from micropython import const

# What the displays are showing as a whole.
MODE_HELLO = const(0)    # start-up: each display shows its player number (wiring check)
MODE_GAME = const(1)     # the game
MODE_MENU = const(2)     # set-up menu on the encoder
MODE_STATS = const(3)    # statistics after a finished game
MODE_OFFER = const(4)    # the desk's offer of the next game (hall mode): panel.offer

# Short-lived notes on the shooter's display (panel.note), cleared by the next key.
NOTE_NONE = const(0)
NOTE_COMPOSE_FIRST = const(1)   # OK with nothing composed: "balls/carom, then OK"
NOTE_MISS_REFUSED = const(2)    # MISS while something is composed: "clear first (UNDO)"
NOTE_REJECTED = const(3)        # the core refused the facts: panel.reject holds the code
NOTE_NO_UNDO = const(4)         # nothing to undo
NOTE_NO_REDO = const(5)         # nothing to redo
NOTE_CHOOSE = const(6)          # failed opening: choose repeat (OK) or take (ENC)
NOTE_CONFIRM_WIN = const(7)     # at 100, first OK: preview of the winning stroke; OK again
NOTE_GAME_OVER = const(8)       # a key that needs a game while the game is over
NOTE_STORAGE = const(9)         # the journal could not be written (flash full or failing)

# What start-up found (panel.notice), shown on every display during MODE_HELLO.
NOTICE_NONE = const(0)
NOTICE_CUT = const(1)       # the journal's last records were unreadable: cut back (arg: lost)
NOTICE_NEW = const(2)       # the journal could not be read: moved aside, a new game started
NOTICE_STORAGE = const(3)   # the flash could not be read or written: the game is not kept
NOTICE_UPTO = const(4)      # journal.tail gone or cut in its count: up to arg records may be lost

# Rarer facts edited with the encoder (panel.field); the value lives in panel.facts.
FIELD_NONE = const(0)
FIELD_FIRST = const(1)     # first ball contacted: required / none / 1 / 3 / 5
FIELD_RAIL = const(2)      # after contact: rail / no rail
FIELD_JUMPED = const(3)    # balls that left the table
FIELD_HELD = const(4)      # balls whose spot is occupied (stay off the table)
FIELD_CUE = const(5)       # where the cue ball ended

# Set-up menu items (panel.menu_item), in the order the encoder walks them but
# for MENU_NAMES, walked after the build (and the hall items) just before
# MENU_START; the value being edited is panel.menu_value.
MENU_PLAYERS = const(0)
MENU_OPENER = const(1)
MENU_BRIGHTNESS = const(2)
MENU_RULE = const(3)       # MENU_RULE + k: house rule k (bit 1 << k) on or off
RULES = const(4)           # house rules: cowboy/houserules.py COUNT (a test holds them equal)
MENU_BUILD = const(MENU_RULE + RULES)   # the display build this board drives (read-only)
MENU_START = const(MENU_BUILD + 1)      # start the game with these settings
MENU_CONFIRM = const(MENU_BUILD + 2)    # house rules changed: OK starts a new game with them
# The name items edit with panel.editor (app/nameedit.py NameEditor: the name in
# editor.chars[:editor.length], editor.cursor >= 0 while it is edited).
# The players' names: menu_value the seat picked (0-based), its name edited.
MENU_NAMES = const(MENU_BUILD + 3)
# Hall mode only (panel.hall set), after MENU_NAMES: the connection (read-only),
# then the hall and the table name; their codes are in views/hallui.py.
MENU_NET = const(MENU_BUILD + 4)        # panel.net_state, panel.net_pending
MENU_HALL = const(MENU_BUILD + 5)       # the hall's name, shown and edited in panel.editor; menu_value
MENU_TABLE = const(MENU_BUILD + 6)      # the table's name, the same way

# How long each page shows where several take turns on a display (views), and
# so how long the start-up pages last (panel).
PAGE_MS = const(1200)

# settings.brightness is 0..MAX_BRIGHTNESS: the level every display driver takes.
MAX_BRIGHTNESS = const(15)
