"""What each player's display says: the view rules.

`Seat` reads the rules core (`cowboy.game.Game`) and the panel (`views/ui.py`) and decides, for
one player, a main value (score, player number, menu value ...) and a short list of items
(views/items.py: the run, stage cue, fouls, cue ball in hand, balls held off the table, the
reason of a foul and the run it wiped, a note, the preview of a stroke). The layouts draw it:
views/digits.py (4 and 8 digits), views/oled.py (128x64). docs/DISPLAYS.md has the rules with
pictures. Updating a seat allocates nothing.
"""
import sys

from cowboy import codes
from cowboy import facts
from views import ui
from views import items


PAGE_MS = ui.PAGE_MS       # how long each item shows when several take turns
NO_NAMES = (b"",) * 8     # a seat's names before it has seen a panel


def outcome(a):
    """PV_* for a preview: the core's outcome code, or -reject."""
    if a < 0:
        return items.PV_REJECT
    if a & codes.WIN:
        return items.PV_WIN
    if a & codes.FAILED_OPENING:
        return items.PV_FAILED
    if a & codes.ELIMINATED:
        return items.PV_OUT
    if a & codes.FOUL_FLAG:
        return items.PV_FOUL
    return items.PV_POINTS


def blink(now_ms):
    """True in the dark half of the winner's blink."""
    return (now_ms // (PAGE_MS // 2)) & 1


class Context:
    """What all seats share in one update: who played the last stroke if it was a
    foul (the core's `last` says a foul happened, not who played it), and when the
    game last changed (`at`: the items take turns from then, so the pictures after
    an action, a REDO too, are the same whenever it comes).

    After a foul the next player in the rotation comes to the table, so the fouler
    is the first player before the shooter who is still in. A foul that eliminated
    its player leaves a run of players out; then the player seen at the table
    before the state changed is taken (the main loop updates once per action)."""

    def __init__(self):
        self.fouler = -1
        self.lost = 0             # the run the fouler's foul wiped (0: none or unknown)
        self.at = 0               # when the game's position last changed (ms)
        self._shooter = -1
        self._seen = -1
        self._pos = -1
        self._run = 0

    def update(self, game, now_ms=0):
        last = game.last
        s = game.shooter
        if s != self._shooter:
            self._seen = self._shooter
            self._shooter = s
        # The run a foul wiped is the one seen just before it: known when the foul
        # was seen being played (one action forward), not after an undo back to it.
        pos = game.position()
        if pos != self._pos:
            self.lost = self._run if pos == self._pos + 1 and last & codes.FOUL_FLAG else 0
            self._pos = pos
            self.at = now_ms
        self._run = game.inning
        self.fouler = -1
        if not last & codes.FOUL_FLAG:
            return
        if last & codes.ELIMINATED or s < 0:
            p = self._seen
            if p >= 0 and game.out >> p & 1:
                self.fouler = p
            return
        p = s
        for _ in range(game.players):
            p = p - 1 if p > 0 else game.players - 1
            if not game.out >> p & 1:
                self.fouler = p
                return


class Seat:
    """One player's situation: main value, items, at the table or not."""

    def __init__(self, index):
        self.index = index
        self.t0 = 0              # when the pages began: the start-up's (panel.t_start),
                                 # else the game's last change (Context.at)
        self.build = b""         # the display build's name (start-up, menu)
        self.notice = 0          # start-up notice arg (records lost)
        self.main = items.MAIN_BLANK
        self.value = 0           # the main number
        self.at_table = False
        self.inning = 0
        self.items = bytearray(items.MAX_ITEMS)
        self.args = [0] * items.MAX_ITEMS     # ints (outcome codes exceed a byte)
        self.count = 0
        self.urgent = False
        self.facts = 0
        self.reject = 0
        self.menu_panel = None   # the names and hall items of the menu: the panel they read
        self.names = NO_NAMES    # panel.names: every seat's name, UTF-8 (the layouts fold them)
        self.offer = None        # MAIN_OFFER: the offer (net/offers.py Offer)

    def _add(self, item, arg):
        if self.count < items.MAX_ITEMS:
            self.items[self.count] = item
            self.args[self.count] = arg
            self.count += 1

    def _note(self, panel):
        """The panel's note, alone (urgent)."""
        self.urgent = True
        self.count = 0
        self.reject = panel.reject
        self._add(items.IT_NOTE, panel.note)

    def update(self, game, panel, ctx):
        i = self.index
        self.count = 0
        self.urgent = False
        self.at_table = False
        self.inning = 0
        self.value = i + 1
        if panel is None:
            self.main = items.MAIN_HELLO
            self.names = NO_NAMES
            return
        self.names = panel.names
        self.t0 = ctx.at
        mode = panel.mode
        if mode == ui.MODE_HELLO or game is None:
            self.main = items.MAIN_HELLO
            self._hello(game, panel)
            return
        if mode == ui.MODE_MENU:
            self._menu(panel)
            return
        if mode == ui.MODE_OFFER:
            self._offer(panel)
            return
        if i >= game.players:
            self.main = items.MAIN_BLANK
            return
        self.value = game.scores[i]
        if game.phase == codes.PHASE_OVER:
            # The winner view stays; the statistics join its pages once counted.
            if game.winner == i:
                self.main = items.MAIN_WIN
                if self.names[i]:
                    self._add(items.IT_NAME, i)
            else:
                self.main = items.MAIN_OUT if game.out >> i & 1 else items.MAIN_OVER
                self._add(items.IT_WAIT, game.winner)
            if mode == ui.MODE_STATS and panel.stats.ready:
                self._stats(panel)
            if game.shooter < 0 and panel.note != ui.NOTE_NONE:
                self._note(panel)
            return
        if game.out >> i & 1:
            self.main = items.MAIN_OUT
            if ctx.fouler == i:
                self._add(items.IT_REASON, game.last >> codes.REASON_SHIFT & codes.REASON_MASK)
                if ctx.lost:
                    self._add(items.IT_LOST, ctx.lost)
            self._add(items.IT_OUT, 0)
            return
        self.main = items.MAIN_SCORE
        if game.shooter != i:
            # (at most three items from none: _add() written out,
            # docs/PERFORMANCE.md, "Calls written out")
            kinds = self.items
            args = self.args
            n = 0
            if ctx.fouler == i:
                kinds[0] = items.IT_REASON
                args[0] = game.last >> codes.REASON_SHIFT & codes.REASON_MASK
                n = 1
                if ctx.lost:
                    kinds[1] = items.IT_LOST
                    args[1] = ctx.lost
                    n = 2
            f = game.fouls[i]
            if f:
                kinds[n] = items.IT_FOULS
                args[n] = f
                n += 1
            self.count = n
            return
        # at the table: the live total, the run of this inning in it
        self.at_table = True
        self.inning = game.inning
        self.value += self.inning
        if panel.note != ui.NOTE_NONE:
            self._note(panel)
            return
        if game.phase == codes.PHASE_CHOICE:
            self.urgent = True
            self._add(items.IT_CHOICE, 0)
            return
        if panel.composing:
            self.urgent = True
            self.facts = panel.facts
            if panel.field != ui.FIELD_NONE:
                self._add(items.IT_FIELD, panel.field)
            self._add(items.IT_PREVIEW, panel.preview)
            return
        # (at most five items from none: _add() written out, as above)
        total = self.value
        kinds = self.items
        args = self.args
        n = 0
        if self.inning:
            kinds[0] = items.IT_INNING
            args[0] = self.inning
            n = 1
        ph = game.phase
        if ph == codes.PHASE_OPENING:
            kinds[n] = items.IT_OPENING
            args[n] = 0
            n += 1
        elif ph == codes.PHASE_POINTS:
            if 90 - total <= 11:
                kinds[n] = items.IT_NEED
                args[n] = 90 - total
                n += 1
        elif ph == codes.PHASE_CAROMS:
            kinds[n] = items.IT_CAROMS
            args[n] = 100 - total
            n += 1
        elif ph == codes.PHASE_FINAL:
            kinds[n] = items.IT_CALL
            args[n] = 0
            n += 1
        if game.cue_in_hand:
            kinds[n] = items.IT_HAND
            args[n] = 0
            n += 1
        if game.off_table:
            kinds[n] = items.IT_HELD
            args[n] = game.off_table
            n += 1
        f = game.fouls[i]
        if f:
            kinds[n] = items.IT_FOULS
            args[n] = f
            n += 1
        self.count = n

    def _hello(self, game, panel):
        """Start-up pages besides the player number: the player's name, the display
        build (and the firmware's version: views/digits.py, views/oled.py), what the
        journal's resume found, each house rule the game plays with."""
        self.t0 = panel.t_start
        self.build = panel.build
        if self.names[self.index]:
            self._add(items.IT_NAME, self.index)      # whose display it is, after the number
        self._add(items.IT_BUILD, 0)
        if panel.notice:
            self.notice = panel.notice_arg
            self._add(items.IT_NOTICE, panel.notice)
        r = game.rules if game is not None else 0
        for k in range(ui.RULES):
            if r >> k & 1:
                self._add(items.IT_RULE, k)

    def _menu(self, panel):
        item = panel.menu_item
        v = panel.menu_value
        st = panel.settings
        self.main = items.MAIN_MENU
        self.urgent = True
        self.build = panel.build
        self._add(items.IT_MENU, item)
        self.value = v
        n = v if item == ui.MENU_PLAYERS else (st.players if st is not None else 8)
        if self.index >= n:
            self.main = items.MAIN_BLANK       # seats beyond the player count stay dark
        elif item == ui.MENU_OPENER:
            self.value = v + 1           # menu_value is the 0-based opener
            self.at_table = self.index == v
        elif item == ui.MENU_START:
            self.value = st.players if st is not None else 8
        elif item == ui.MENU_NAMES:       # each seat its name, the seat picked marked
            self.value = self.index + 1
            self.at_table = self.index == v
            self.menu_panel = panel
        elif item >= ui.MENU_NET:         # hall mode (views/hall.py)
            self.menu_panel = panel

    def _offer(self, panel):
        """The desk's offer: this seat's place in the offered game (its number, the
        opener marked), the names for the layouts in `offer`."""
        o = panel.offer
        self.urgent = True
        self.offer = o
        if o is None or self.index >= o.players:
            self.main = items.MAIN_BLANK
            return
        self.main = items.MAIN_OFFER
        self.at_table = self.index == o.opener

    def _stats(self, panel):
        i = self.index
        st = panel.stats
        self._add(items.IT_STAT_BEST, st.best[i])
        self._add(items.IT_STAT_INN, st.innings[i])
        n = st.innings[i]
        self._add(items.IT_STAT_AVG, (st.points[i] * 10) // n if n else 0)
        self._add(items.IT_STAT_FOULS, st.fouls[i])


def turn(seat, now_ms, with_main, skip=0):
    """Index of the item on show (-1: the main page) when items take turns;
    items with code `skip` are left out."""
    if not skip:
        # every item takes its turn (no item code is 0): no loops
        n = seat.count + 1 if with_main else seat.count
        if n == 0:
            return -1
        k = (now_ms // PAGE_MS) % n
        return k - 1 if with_main else k
    n = 0
    for i in range(seat.count):
        if seat.items[i] != skip:
            n += 1
    if with_main:
        n += 1
    if n == 0:
        return -1
    k = (now_ms // PAGE_MS) % n
    if with_main:
        if k == 0:
            return -1
        k -= 1
    for i in range(seat.count):
        if seat.items[i] != skip:
            if k == 0:
                return i
            k -= 1
    return -1


def field_balls(field, f):
    """The ball mask FIELD_JUMPED or FIELD_HELD edits."""
    return f >> (facts.JUMPED if field == ui.FIELD_JUMPED else facts.HELD) & facts.ALL_BALLS


def hall():
    """views/hall.py, the hall items of the set-up menu: imported the first time
    one shows (hall mode only), so a plain Pico keeps the RAM."""
    global _hall_views
    if _hall_views is None:
        from views import hall as hallview
        _hall_views = hallview
    return _hall_views


_hall_views = None


def folded(kind):
    """draw/fold.py's Folded of a display kind, for a layout when a seat first has a
    name: a board whose players have none never loads draw/fold.py. Names are set
    through app/playernames.py, which loads it and makes both kinds' Folded, so
    this allocates nothing when a layout asks."""
    fold = sys.modules.get("draw.fold")
    if fold is None:                    # (names set some other way: a test's panel)
        from draw import fold
    return fold.folded(kind)
