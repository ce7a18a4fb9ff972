"""The panel: key and encoder events in, strokes and menu choices out.

Turns input events (`kind << 8 | source`, docs/ARCHITECTURE.md) into the facts of
the stroke being composed, commits them to the rules core, and keeps what the views
show besides the game (mode, note, field, menu; views/ui.py). docs/PANEL.md is
the operator's description of every key. Handling an event allocates nothing.
What a key means depends on the mode, the stroke being composed and the menu
together: one state machine over one set of fields.
"""
from cowboy import codes
from cowboy import facts
from app import keys
from views import ui
from app.stats import Stats
from app.settings import Settings, MIN_PLAYERS, MAX_PLAYERS, MAX_BRIGHTNESS
from input.events import PRESS, RELEASE, LONG, CW, CCW   # noqa: F401  (re-exported)

from micropython import const

from ticks import ticks_diff

TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)
if TYPE_CHECKING:
    from app.hallmenu import HallMenu
    from app.nameedit import NameEditor, NamesItem

_CAROM_MASK = 3 << facts.CAROM
_FIRST_MASK = 7 << facts.FIRST
_CUE_MASK = 3 << facts.CUE
_JUMPED_MASK = 7 << facts.JUMPED
_HELD_MASK = 7 << facts.HELD
# off the 1, called pocket
_WIN_FACTS = (facts.FIRST_B1 << facts.FIRST) | (facts.CUE_CALLED << facts.CUE)

_FIELDS = const(6)               # FIELD_NONE .. FIELD_CUE


class Panel:
    """State the views read: `mode`, `facts`, `composing`, `preview`, `note`,
    `reject`, `field`, `menu_item`, `menu_value`, `settings`, `stats`, `names`,
    on a name item `editor`, and at start-up `t_start`, `notice`, `notice_arg`,
    `build`.

    `names`: the players' names, a list of 8 bytes objects (UTF-8), b"" for a
    seat without one; replaced only by `set_names()`, the menu's editor and
    `App.start` (what the journal kept), each bumping `version`."""

    editor: "NameEditor"      # the name editor, made when the first name item shows
    names_item: "NamesItem"   # MENU_NAMES, made when the item first shows
    hall: "HallMenu"      # hall mode's menu items (set_net()); their items are reached only then

    HELLO_MS = 2000       # start-up at least this long: each display shows its number
    RESUMED_MS = 400      # a game resumed as it was: its start-up, from the wiring check

    def __init__(self, game, settings=None, stats=None, buzzer=None, journal=None):
        self.game = game
        self.settings = settings or Settings()   # players, opener (0-based), brightness
        self.stats = stats or Stats()
        self._stats_wait = False   # a recount begun in this pass starts in the next
        self.buzzer = buzzer
        self.journal = journal
        # Actions go through the journal when there is one: it applies them to the
        # game and records those the core accepts (app/journal.py).
        self.ref = game if journal is None else journal
        self.mode = ui.MODE_HELLO
        self.facts = 0
        self.base = 0             # facts of an untouched stroke: the held balls carried
        self.composing = False
        self.preview = 0
        self.note = ui.NOTE_NONE
        self.reject = 0
        self.field = ui.FIELD_NONE
        self.menu_item = ui.MENU_PLAYERS
        self.menu_value = 0
        self.back_mode = ui.MODE_GAME   # where UNDO leaves the menu to
        self.settings_dirty = False     # the loop saves the settings, then clears it
        self.version = 0          # bumped on every visible change (all the screens compare)
        self.down = 0             # keys held (bit = source)
        self.longed = 0           # held keys whose LONG event came
        self.t_start = 0
        self.keymap = bytearray(range(len(keys.KEYS)))   # event source -> app/keys.py number (bind)
        self.accepted = 0         # keys accepted and refused (figures for tests/bench)
        self.refused = 0
        self.hello_ms = self.HELLO_MS   # how long this start-up shows (start())
        self.notice = ui.NOTICE_NONE    # what start-up found in the journal
        self.notice_arg = 0             # NOTICE_CUT: records lost
        self.build = b""                # the display build's name (board())
        self.seats = MAX_PLAYERS        # players the build can show
        self.rules_edit = 0             # house rules being changed in the menu
        # Hall mode only (set_net): the menu's hall items, in app/hallmenu.py, which
        # a plain Pico never loads.
        self.net = None                 # the hall publisher (net/hall.py)
        self.hall = None  # pyright: ignore[reportAttributeAccessIssue]  until set_net()
        self.net_state = 0              # MENU_NET: net.state() (hallui.NET_*), net.pending()
        self.net_pending = 0
        # The players' names (app/playernames.py): bytes per seat, b"" for none;
        # the loop saves them (journal.names) outside the menu once names_dirty.
        self.names = [b""] * MAX_PLAYERS
        self.names_dirty = False
        # The name items (MENU_NAMES; MENU_HALL, MENU_TABLE) and their editor
        # (app/nameedit.py): the name shown or being edited, the cursor.
        self.names_item = None  # pyright: ignore[reportAttributeAccessIssue]  until MENU_NAMES shows
        self.editor = None  # pyright: ignore[reportAttributeAccessIssue]  until a name item shows
        # The desk's offer of the next game (hall mode, net/offers.py Offer): shown
        # as a notice (MODE_OFFER) once no game is in progress; OK starts it.
        self.offer = None
        self.offer_hidden = False       # UNDO on the notice: back until OK, or the game's end
        self.offer_back = ui.MODE_GAME   # where UNDO on the notice goes (GAME or STATS)
        # The game in hand is one the desk's offer started (OK on the notice): it is
        # in progress from that OK to its end, before its first stroke too, so the
        # next offer waits for it and never takes its place. net/hall.py sets it
        # again after a reboot (offer.ack names the accepted offer's game).
        self.offered = False

    def set_net(self, net):
        """Hall mode: the set-up menu gets the connection and the names from `net`
        (the interface of app.hallmenu.NoNet)."""
        from app.hallmenu import HallMenu
        self.net = net
        self.hall = HallMenu(self, net)

    def set_names(self, names):
        """The players' names of the game in progress: a list of str, bytes or None
        per seat (shorter: the other seats have none; None or "": no name). Checked
        by cowboy/names.py (ValueError naming the first refused name, nothing
        changed); saved by the loop's next flash step, published in hall mode."""
        from app.playernames import given
        self.names = given(names)
        self.names_dirty = True
        self.version += 1

    def start_game(self, players, opener, rules=0, names=None):
        """A new game now (the one in progress archived), as the menu's start
        would with these settings: `players` 2 to the build's seats, `opener`
        0-based, `rules` the house rules mask, `names` as set_names() takes them.
        Returns the rules core's code (0 when started); ValueError for bad names;
        nothing changes unless it starts. The settings keep players, opener and
        rules; the loop saves them and the names."""
        from app.playernames import given
        new = given(names)
        if not MIN_PLAYERS <= players <= self.seats or not 0 <= opener < players:
            return codes.E_PLAYERS
        err = self.ref.new_game(players, opener, rules)
        if err:
            return err
        self.offered = False
        s = self.settings
        s.players, s.opener, s.rules = players, opener, rules
        self.rules_edit = rules
        self.settings_dirty = True
        self.names = new
        self.names_dirty = True
        self.stats.clear()
        self._close_editor()
        self._to_game()
        if not self._stored():
            self.note = ui.NOTE_STORAGE
        self.version += 1
        return 0

    def offer_in(self, offer):
        """The desk's offer of the next game came (None: it was withdrawn). It is
        shown once no game is in progress (tick()), never instead of one."""
        self.offer = offer
        self.offer_hidden = False
        if offer is None and self.mode == ui.MODE_OFFER:
            self.mode = self.offer_back
        self.version += 1

    def in_progress(self):
        """A game is in progress: it is not over, and it has actions or the desk's
        offer started it (`offered`: the players may not have begun yet)."""
        g = self.game
        return g.phase != codes.PHASE_OVER and (self.offered or g.position() > 0)

    def _show_offer(self):
        self.offer_back = self.mode
        self.mode = ui.MODE_OFFER
        self.offer_hidden = False
        self.version += 1

    def _offer_key(self, k):
        """OK or ENC: start the offered game; UNDO: back to the game or its end
        (OK there shows the offer again)."""
        o = self.offer
        if o is None:                       # (withdrawn: the notice is gone)
            self.mode = self.offer_back
        elif k == keys.OK or k == keys.ENC or k == keys.ENC2:
            try:                            # (net/offers.py checked it already)
                err = self.start_game(o.players, o.opener, o.rules, o.names)
            except ValueError:
                err = codes.E_PLAYERS
            if err:
                self.offer = None
                self.mode = self.offer_back
                self._refuse(ui.NOTE_NONE)
                return
            self.offer = None
            self.offered = True
            if self.net is not None:
                self.net.offer_taken(o)
            self._ok()
        elif k == keys.UNDO:
            self.mode = self.offer_back
            self.offer_hidden = True
            self._ok()
        else:
            self._refuse(ui.NOTE_NONE)

    def board(self, name):
        """The display build this panel serves (a board.config.BUILDS name): shown
        at start-up and in the menu; the menu offers as many players as it has
        seats, or as its "players" entry says when it declares shared seats."""
        from board import config
        self.build = name.encode()
        b = config.BUILDS.get(name)
        if b is not None:
            self.seats = min(MAX_PLAYERS, max(MIN_PLAYERS,
                                              b.get("players", len(b["displays"]))))

    def bind(self, names):
        """Take key sources from the input layer's key list (names in source order)."""
        self.keymap = bytearray(len(names))
        for i in range(len(names)):
            self.keymap[i] = keys.KEYS.index(names[i])

    # ---- start-up ----------------------------------------------------------
    def start(self, now, resumed=False, shown=None):
        """Show the start-up pages, then the game; a new game unless `resumed`.

        The start-up pages (each display shows them in turn, ui.PAGE_MS each): its
        player number (the wiring check), its player's name, the display build,
        what the journal's resume found (`notice`) and each house rule the game
        plays with. A game
        resumed with its actions and nothing to tell skips them: the wiring check
        shows RESUMED_MS from `shown` (when the board drew it, before the rest of
        the firmware was imported) or `now` (the start of the loop, before the
        resume), or until the game is ready when the resume took longer."""
        s = self.settings
        if not self.build:
            from board import config
            self.board(config.chosen(getattr(s, "root", "/")))
        if s.players > self.seats:
            s.players = self.seats
        if not resumed:
            if s.opener >= s.players:
                s.opener = 0
            self.ref.new_game(s.players, s.opener, s.rules)
        self.notice = ui.NOTICE_NONE
        self.notice_arg = 0
        j = self.journal
        if j is not None:
            if getattr(j, "failed", False):
                self.notice = ui.NOTICE_STORAGE
            elif getattr(j, "archived", None):
                self.notice = ui.NOTICE_NEW
            elif getattr(j, "lost_upto", 0):     # how many is not known: at most
                self.notice = ui.NOTICE_UPTO
                self.notice_arg = j.lost_upto + (j.dropped + 3) // 4
            elif getattr(j, "dropped", 0):
                self.notice = ui.NOTICE_CUT
                self.notice_arg = (j.dropped + 3) // 4     # 4-byte records
        pages = 2 + (self.notice != ui.NOTICE_NONE)
        for n in self.names:
            if n:
                pages += 1          # a seat with a name shows it on a page of its own
                break
        r = self.game.rules
        while r:
            pages += r & 1
            r >>= 1
        self.hello_ms = max(self.HELLO_MS, pages * ui.PAGE_MS)
        if resumed and self.notice == ui.NOTICE_NONE and getattr(j, "records", 0):
            since = 0 if shown is None else ticks_diff(now, shown)
            self.hello_ms = max(0, self.RESUMED_MS - since)
        self.mode = ui.MODE_HELLO
        self.t_start = now
        self._fresh()

    def tick(self, now):
        """Time-driven changes: the end of the start-up pages, a slice of the
        statistics recount after a game."""
        if self.mode == ui.MODE_HELLO and ticks_diff(now, self.t_start) >= self.hello_ms:
            self._to_game()
            self.version += 1
        if self.stats.counting:
            if self._stats_wait:
                # begun by the stroke that ended the game, in this pass: its
                # first slice (clearing the figures, taking the oldest state)
                # waits for the next pass, so the displays answer the stroke first
                self._stats_wait = False
            elif self.stats.work(self.game):
                self.version += 1
        if self.mode == ui.MODE_MENU and self.menu_item == ui.MENU_NET:
            self.hall.refresh()
        if self.offer is not None and not self.offer_hidden and not self.composing and \
                (self.mode == ui.MODE_GAME or self.mode == ui.MODE_STATS
                 and not self.stats.counting) and not self.in_progress():
            self._show_offer()

    # ---- events ------------------------------------------------------------
    def event(self, ev, now=0):
        """Handle one input event."""
        kind = ev >> 8
        src = ev & 0xFF
        if kind == CW:
            self._turn(src, 1)
            return
        if kind == CCW:
            self._turn(src, -1)
            return
        if src >= len(self.keymap):
            return
        src = self.keymap[src]
        bit = 1 << src
        if kind == PRESS:
            self.down |= bit
            self.longed &= ~bit
            if not keys.LONG_PRESS & bit:
                self._key(src, False)
        elif kind == LONG:
            if self.down & bit and keys.LONG_PRESS & bit and not self.longed & bit:
                self.longed |= bit
                if self.buzzer:
                    self.buzzer.tick()        # the long press registered: let go now
        elif kind == RELEASE:
            if self.down & bit and keys.LONG_PRESS & bit:
                self._key(src, (self.longed & bit) != 0)
            self.down &= ~bit
            self.longed &= ~bit

    def _ok(self):
        self.accepted += 1
        if self.buzzer:
            self.buzzer.tick()

    def _refuse(self, note):
        self.note = note
        self.refused += 1
        if self.buzzer:
            self.buzzer.refuse()

    def _key(self, k, long):
        self.version += 1
        self.note = ui.NOTE_NONE
        if self.mode == ui.MODE_HELLO:
            self._to_game()
        if (k == keys.ENC or k == keys.ENC2) and long:
            if self.mode != ui.MODE_MENU:
                self._open_menu(ui.MENU_PLAYERS)
            else:
                self._leave_menu()
            return
        if self.mode == ui.MODE_MENU:
            self._menu_key(k)
        elif self.mode == ui.MODE_OFFER:
            self._offer_key(k)
        elif self.mode == ui.MODE_STATS:
            self._over_key(k)
        elif self.game.phase == codes.PHASE_CHOICE:
            self._choice_key(k)
        else:
            self._game_key(k, long)

    # ---- composing and committing strokes ----------------------------------
    def _fresh(self):
        """A new, untouched composition for the state the game is in now."""
        self.base = (self.game.off_table & 7) << facts.HELD
        self.facts = self.base
        self.composing = False
        self.preview = 0
        self.field = ui.FIELD_NONE

    def _set(self, f):
        self.facts = f
        self._show()

    def _show(self):
        """`composing` for the views: facts changed, or a field open on the encoder."""
        self.composing = self.facts != self.base or self.field != ui.FIELD_NONE
        self.preview = self.game.preview(self.facts) if self.composing else 0

    def _to_game(self):
        # (_fresh() written out: docs/PERFORMANCE.md, "Calls written out")
        g = self.game
        self.base = (g.off_table & 7) << facts.HELD
        self.facts = self.base
        self.composing = False
        self.preview = 0
        self.field = ui.FIELD_NONE
        if g.phase == codes.PHASE_OVER:
            self.stats.begin(self.game)      # counted in slices by tick()
            self._stats_wait = True
            self.offer_hidden = False        # the desk's offer comes once counted
            self.mode = ui.MODE_STATS
        else:
            self.mode = ui.MODE_GAME
            if self.game.phase == codes.PHASE_CHOICE:
                self.note = ui.NOTE_CHOOSE

    def _stored(self):
        return self.journal is None or not self.journal.failed

    def _after(self):
        """Common end of an accepted action: fresh composition, the mode that follows."""
        self._to_game()
        j = self.journal                     # (_stored() and _ok() written out:
        if j is not None and j.failed:       # docs/PERFORMANCE.md, "Calls written out")
            self.note = ui.NOTE_STORAGE
        self.accepted += 1
        if self.buzzer:
            if self.mode == ui.MODE_STATS:
                self.buzzer.fanfare()
            else:
                self.buzzer.tick()

    def _commit(self, f):
        err = self.ref.shot(f)
        if err:
            self.reject = err
            self.preview = -err
            self._refuse(ui.NOTE_REJECTED)
            return
        self._after()

    def _game_key(self, k, long):
        f = self.facts
        if k <= keys.BALL5:
            b = 1 << k
            if long:
                f = (f ^ (b << facts.JUMPED)) & ~b
            else:
                f = (f ^ b) & ~(b << facts.JUMPED)
            self._set(f)
            self._ok()
        elif k == keys.CAROM2 or k == keys.CAROM3:
            c = 2 if k == keys.CAROM2 else 3
            if facts.carom(f) == c:
                c = 0
            self._set((f & ~_CAROM_MASK) | (c << facts.CAROM))
            self._ok()
        elif k == keys.OK:
            if f != self.base:
                self._commit(f)
            elif self.offer is not None and not self.in_progress():
                self._show_offer()          # the desk's offer, put aside with UNDO
                self._ok()
            elif self.game.phase == codes.PHASE_FINAL:
                self._set(self.base | _WIN_FACTS)
                self.note = ui.NOTE_CONFIRM_WIN
                self._ok()
            else:
                self._refuse(ui.NOTE_COMPOSE_FIRST)
        elif k == keys.MISS:
            if f != self.base:
                self._refuse(ui.NOTE_MISS_REFUSED)
            elif long:
                self._commit(self.base | (facts.FIRST_NONE << facts.FIRST))
            else:
                self._commit(self.base)
        elif k == keys.FOUL:
            self._commit(f | (facts.F_NO_RAIL if long else facts.F_FOUL))
        elif k == keys.SCRATCH:
            cue = facts.CUE_OFF if long else facts.CUE_POCKET
            self._commit((f & ~_CUE_MASK) | (cue << facts.CUE))
        elif k == keys.UNDO:
            if self.composing or self.field != ui.FIELD_NONE:
                self._fresh()
                self._ok()
            else:
                self._undo()
        elif k == keys.REDO:
            if f != self.base:
                self._refuse(ui.NOTE_MISS_REFUSED)
            else:
                self._redo()
        elif k == keys.ENC or k == keys.ENC2:
            if self.field == ui.FIELD_NONE:
                self.field = ui.FIELD_FIRST
                self._show()
            else:
                self._step_field(1)
            self._ok()

    def _undo(self):
        if self.ref.undo():
            self._refuse(ui.NOTE_NO_UNDO)
            return
        self._after()

    def _redo(self):
        if self.ref.redo():
            self._refuse(ui.NOTE_NO_REDO)
            return
        self._after()

    def _step_field(self, d):
        """Next (d=1) or previous (d=-1) value of the field on show."""
        f = self.facts
        fld = self.field
        if fld == ui.FIELD_FIRST:
            v = (facts.first(f) + d) % 5
            f = (f & ~_FIRST_MASK) | (v << facts.FIRST)
        elif fld == ui.FIELD_RAIL:
            f ^= facts.F_NO_RAIL
        elif fld == ui.FIELD_JUMPED:
            v = (facts.jumped(f) + d) & 7
            f = (f & ~_JUMPED_MASK) | (v << facts.JUMPED)
        elif fld == ui.FIELD_HELD:
            v = (facts.held(f) + d) & 7
            f = (f & ~_HELD_MASK) | (v << facts.HELD)
        elif fld == ui.FIELD_CUE:
            v = (facts.cue(f) + d) & 3
            f = (f & ~_CUE_MASK) | (v << facts.CUE)
        else:
            return
        self._set(f)

    def _turn(self, enc, d):
        self.version += 1
        self.note = ui.NOTE_NONE
        if self.mode == ui.MODE_HELLO:
            self._to_game()
        if self.mode == ui.MODE_MENU:
            self._menu_turn(d)
        elif self.mode != ui.MODE_GAME or self.game.phase == codes.PHASE_CHOICE:
            return
        elif enc == 0:
            self.field = (self.field + d) % _FIELDS
            self._show()
        elif self.field == ui.FIELD_NONE:
            self.field = ui.FIELD_FIRST
            self._show()
        else:
            self._step_field(d)

    # ---- failed opening and game over --------------------------------------
    def _choice_key(self, k):
        if k == keys.OK or k == keys.ENC or k == keys.ENC2:
            self.ref.choice(k != keys.OK)
            self._after()
        elif k == keys.UNDO:
            self._undo()
        else:
            self._refuse(ui.NOTE_CHOOSE)

    def _over_key(self, k):
        if k == keys.UNDO:
            self._undo()
        elif k == keys.REDO:
            self._redo()
        elif self.offer is not None and (k == keys.OK or k == keys.ENC or k == keys.ENC2):
            self._show_offer()              # the desk's offer, put aside with UNDO
            self._ok()
        elif k == keys.OK or k == keys.ENC or k == keys.ENC2:
            g = self.game
            self.settings.players = g.players
            self.settings.opener = (g.opener + 1) % g.players
            self._open_menu(ui.MENU_OPENER)
        else:
            self._refuse(ui.NOTE_GAME_OVER)

    # ---- set-up menu -------------------------------------------------------
    def _open_menu(self, item):
        if self.mode != ui.MODE_MENU:
            self.back_mode = self.mode
            self.rules_edit = self.settings.rules     # changes wait for confirmation
        self.mode = ui.MODE_MENU
        self.menu_item = item
        self._load_item()
        self._ok()

    def _next_item(self, item):
        """The item after `item`: in hall mode the hall items follow the build,
        then the names, then start."""
        if item >= ui.MENU_NET:
            return item + 1 if item < ui.MENU_TABLE else ui.MENU_NAMES
        if item == ui.MENU_BUILD:
            return ui.MENU_NAMES if self.hall is None else ui.MENU_NET
        if item == ui.MENU_NAMES:
            return ui.MENU_START
        return item + 1 if item < ui.MENU_START else ui.MENU_PLAYERS

    def _load_item(self):
        s = self.settings
        item = self.menu_item
        if item == ui.MENU_PLAYERS:
            self.menu_value = s.players
        elif item == ui.MENU_OPENER:
            self.menu_value = s.opener
        elif item == ui.MENU_BRIGHTNESS:
            self.menu_value = s.brightness
        elif ui.MENU_RULE <= item < ui.MENU_RULE + ui.RULES:
            self.menu_value = self.rules_edit >> (item - ui.MENU_RULE) & 1
        elif item == ui.MENU_NAMES:
            self.menu_value = 0
            if self.names_item is None:     # (its module and buffer: only once used)
                from app.nameedit import NamesItem
                self.names_item = NamesItem(self)
            self.names_item.load()
        elif item >= ui.MENU_NET:
            self.hall.load(item)
        else:
            self.menu_value = 0

    def _menu_turn(self, d):
        s = self.settings
        item = self.menu_item
        v = self.menu_value + d
        if ui.MENU_RULE <= item < ui.MENU_RULE + ui.RULES:
            self.rules_edit ^= 1 << (item - ui.MENU_RULE)     # on <-> off
            self.menu_value ^= 1
            return
        if item >= ui.MENU_NET:
            self.hall.turn(d)
            return
        if item == ui.MENU_NAMES:
            self.names_item.turn(d)
            return
        if item == ui.MENU_PLAYERS:
            top = self.seats
            v = MIN_PLAYERS if v < MIN_PLAYERS else top if v > top else v
            s.players = v
            if s.opener >= v:
                s.opener = v - 1
        elif item == ui.MENU_OPENER:
            v %= s.players
            s.opener = v
        elif item == ui.MENU_BRIGHTNESS:
            v = 0 if v < 0 else MAX_BRIGHTNESS if v > MAX_BRIGHTNESS else v
            s.brightness = v
        else:
            return
        if v != self.menu_value:
            self.menu_value = v
            self.settings_dirty = True

    def _menu_key(self, k):
        item = self.menu_item
        enc = k == keys.ENC or k == keys.ENC2
        changed = self.rules_edit != self.settings.rules
        if item >= ui.MENU_NET and self.hall.key(k, enc):
            pass                          # the name editor took it
        elif item == ui.MENU_NAMES and self.names_item.key(k, enc):
            pass                          # the players' names editor took it
        elif item == ui.MENU_CONFIRM:
            if k == keys.OK or enc:
                self._new_game()
            elif k == keys.UNDO:             # no: the house rules stay as they were
                self.rules_edit = self.settings.rules
                self.menu_item = ui.MENU_RULE
                self._load_item()
                self._ok()
            else:
                self._refuse(ui.NOTE_NONE)
        elif k == keys.OK or (enc and item == ui.MENU_START) or \
                (enc and changed and item == ui.MENU_RULE + ui.RULES - 1):
            if changed:                   # new house rules: ask before a new game
                self.menu_item = ui.MENU_CONFIRM
                self.menu_value = 0
                self._ok()
            else:
                self._new_game()
        elif enc:
            self.menu_item = self._next_item(item)
            self._load_item()
            self._ok()
        elif k == keys.UNDO:
            self._leave_menu()
        else:
            self._refuse(ui.NOTE_NONE)

    def _close_editor(self):
        """No name being edited (the menu left, a new game)."""
        if self.editor is not None:
            self.editor.cursor = -1

    def _leave_menu(self):
        self._close_editor()
        self.mode = self.back_mode
        if self.mode == ui.MODE_OFFER and self.offer is None:
            self.mode = self.offer_back         # withdrawn while in the menu
        if self.mode == ui.MODE_HELLO or self.mode == ui.MODE_MENU:
            self.mode = ui.MODE_GAME
        self._ok()

    def _new_game(self):
        s = self.settings
        if s.rules != self.rules_edit:
            s.rules = self.rules_edit
            self.settings_dirty = True
        self.ref.new_game(s.players, s.opener, s.rules)
        self.offered = False
        self.names_dirty = True           # the names on show go with the new game
        self.stats.clear()
        self.offer_hidden = True          # a game the operator chose: the offer waits
        self._to_game()
        if not self._stored():
            self.note = ui.NOTE_STORAGE
        self._ok()
