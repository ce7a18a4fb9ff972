"""The game in words, as the status line of the simulator (tools/sim.py) and of
the web page (web/webboard.py) says it: who is at the table, the run, what the
player needs, cue ball in hand, balls held off the table, the stroke being
entered, the set-up menu, what to do after the win, then every score with fouls
in a row and who is out. One place for both; runs under CPython and MicroPython.
It reads the rules core's public state and what the panel shows (views/ui.py).
Keys are named as on the panel (OK, UNDO, the encoder's push); players by their
names where the game has them (the panel's), else P1, P2 ...
"""
from cowboy import codes
from cowboy import facts
from cowboy import houserules
from views import ui

_BALLS = (1, 3, 5)
_CUE = ("", "cue ball pocketed", "cue ball in the called pocket", "cue ball off the table")


def _balls(mask):
    """"the 1", "the 1 and 5", "the 1, 3 and 5"."""
    b = [str(_BALLS[i]) for i in range(3) if mask >> i & 1]
    if len(b) > 1:
        return "the " + ", ".join(b[:-1]) + " and " + b[-1]
    return "the " + b[0]


def _name(names, i):
    """Seat `i`'s name ("" for none); `names`: the panel's, UTF-8 bytes per seat
    (b"" for none), or None."""
    n = names[i] if names is not None and i < len(names) else b""
    return bytes(n).decode() if n else ""


def who(names, i):
    """Player `i` (0-based) in words: the seat's name, else P1, P2 ..."""
    return _name(names, i) or "P%d" % (i + 1)


def label(names, i):
    """The label over player `i`'s display: P1, or P1 and the seat's name."""
    n = _name(names, i)
    return "P%d %s" % (i + 1, n) if n else "P%d" % (i + 1)


def situation(g, names=None):
    """Who is at the table and what the stage asks, or who won; players by name
    where their seat has one (`names`, as who() takes them)."""
    at = g.shooter
    if g.phase == codes.PHASE_OVER:
        s = "Game over: %s wins" % who(names, g.winner)
        if g.scores[g.winner] == 101:
            s += " with the 101st point"
        return s
    if g.phase == codes.PHASE_CHOICE:
        s = ("%s chooses after the failed opening: OK to have it played again, "
             "push the encoder to take the table" % who(names, at))
    elif g.phase == codes.PHASE_OPENING:
        s = "%s at the table, opening stroke: the 3 ball first" % who(names, at)
    else:
        total = g.total(at)
        s = "%s at the table, run %d" % (who(names, at), g.inning)
        if g.inning and g.scores[at]:
            s += " (total %d)" % total
        if g.phase == codes.PHASE_POINTS:
            s += ", needs %d for exactly 90" % (90 - total)
        elif g.phase == codes.PHASE_CAROMS:
            s += ", caroms only, %d to go" % (100 - total)
        else:
            s += ", call the 101st point"
    if g.cue_in_hand:
        s += "; cue ball in hand"
    if g.off_table:
        held = [str(v) for i, v in enumerate(_BALLS) if g.off_table >> i & 1]
        s += "; ball%s %s off the table" % ("s" if len(held) > 1 else "",
                                            " and ".join(held))
    return s


def stroke_facts(f):
    """The facts of a stroke in words: "the 3 pocketed, a carom off 2 balls"."""
    out = []
    if facts.pocketed(f):
        out.append(_balls(facts.pocketed(f)) + " pocketed")
    if facts.carom(f):
        out.append("a carom off %d balls" % facts.carom(f))
    first = facts.first(f)
    if first == facts.FIRST_NONE:
        out.append("no contact")
    elif first >= facts.FIRST_B1:
        out.append("first contact " + _balls(1 << (first - facts.FIRST_B1)))
    if f & facts.F_NO_RAIL:
        out.append("no rail")
    if facts.cue(f):
        out.append(_CUE[facts.cue(f)])
    if facts.jumped(f):
        out.append(_balls(facts.jumped(f)) + " jumped off the table")
    if f & facts.F_FOUL:
        out.append("a foul")
    if facts.held(f):
        out.append(_balls(facts.held(f)) + " held off the table")
    return ", ".join(out) or "nothing yet"


def outcome(a):
    """What a preview (the core's outcome, or -reject code) says the stroke is."""
    if a < 0:
        return "refused: " + codes.REJECT_TEXT[-a]
    if a & codes.WIN:
        return "the winning stroke, 101"
    if a & codes.FAILED_OPENING:
        return "a failed opening"
    if a & codes.ELIMINATED:
        return "a third foul: out"
    if a & codes.FOUL_FLAG:
        return "a foul: " + codes.REASON_TEXT[codes.reason(a)]
    n = codes.points(a)
    return "%d point%s" % (n, "" if n == 1 else "s")


def menu(p):
    """The set-up menu item on show, in words, and what the keys do there."""
    item = p.menu_item
    v = p.menu_value
    keys = ("turn the encoder to change it, push for the next item, OK starts a new "
            "game, UNDO goes back to the game")
    if item == ui.MENU_PLAYERS:
        what = "players: %d" % v
    elif item == ui.MENU_OPENER:
        what = "who opens: %s" % who(p.names, v)
    elif item == ui.MENU_BRIGHTNESS:
        what = "brightness: %d of %d" % (v, ui.MAX_BRIGHTNESS)
    elif ui.MENU_RULE <= item < ui.MENU_RULE + ui.RULES:
        what = "house rule %s: %s" % (houserules.NAMES[item - ui.MENU_RULE],
                                      "on" if v else "off")
        keys = ("turn the encoder to switch it, push for the next item, OK starts a "
                "new game, UNDO goes back to the game")
    elif item == ui.MENU_BUILD:
        what = "the display build: %s" % p.build.decode()
        keys = "push for the next item, OK starts a new game, UNDO goes back to the game"
    elif item == ui.MENU_NAMES:
        seat = v + 1
        name = p.names[v].decode("utf-8", "replace") if v < len(p.names) else ""
        e = p.editor
        if e.cursor >= 0:
            what = "P%d's name: %s (editing character %d)" % (
                seat, e.chars[:e.length].decode(), e.cursor + 1)
            keys = ("turn the encoder to change the character, push for the next one "
                    "(on the end mark: save), UNDO leaves it as it was")
        else:
            what = "P%d's name: %s" % (seat, name or "none")
            keys = ("turn the encoder to pick the player, OK edits the name, push for "
                    "the next item, UNDO goes back to the game")
    elif item == ui.MENU_START:
        what = "start"
        keys = "OK or a push starts a new game, UNDO goes back to the game"
    elif item == ui.MENU_CONFIRM:
        what = "the house rules changed"
        keys = "OK or a push starts a new game with them, UNDO keeps them as they were"
    else:
        what = "hall mode"
        keys = "push for the next item, UNDO goes back to the game"
    return "Set-up menu, %s (%s)" % (what, keys)


def offer(p):
    """The desk's offer of the next game on the displays (hall mode), in words."""
    o = p.offer
    names = o.names
    players = " v ".join([who(names, i) for i in range(o.players)])
    return ("The desk offers the next game: %s, %s opens (OK starts it, UNDO puts it "
            "aside)" % (players, who(names, o.opener)))


def panel_words(g, p):
    """What the panel adds to the game: the stroke being entered, a note, what to
    do after the win, the players of the next game."""
    out = []
    if p.mode == ui.MODE_GAME and p.composing:
        out.append("being entered: %s: %s (OK enters it, UNDO clears)"
                   % (stroke_facts(p.facts), outcome(p.preview)))
    if p.note == ui.NOTE_REJECTED:
        out.append("refused: " + codes.REJECT_TEXT[p.reject])
    elif p.note:
        out.append(_NOTES[p.note])
    if g.phase == codes.PHASE_OVER and p.mode != ui.MODE_MENU:    # (the menu says its keys)
        if p.offer is not None:
            nxt = "shows the desk's offer of the next game"
        else:                   # the set-up menu at who opens, the next player proposed
            nxt = ("sets up the next game, %s opening (OK then starts it)"
                   % who(p.names, (g.opener + 1) % g.players))
        out.append("OK or a push of the encoder %s, UNDO takes the last stroke back" % nxt)
    if p.mode != ui.MODE_MENU and p.settings.players != g.players:
        out.append("the next game has %d players (set up)" % p.settings.players)
    return out


# ui.NOTE_*: what a note means, in words (the views' NOTE_OLED in prose)
_NOTES = ("", "enter the balls or the carom first, then OK",
          "clear the stroke being entered first (UNDO)", "not possible",
          "nothing to undo", "nothing to redo",
          "OK has the opening played again, a push takes the table",
          "OK again wins: 101", "the game is over", "storage failing: the game is not kept")


def scores(g, names=None):
    """"Scores: P1 4, P2 0 (1 foul), P3 12 out." (by name, as situation())"""
    parts = []
    for i in range(g.players):
        p = "%s %d" % (who(names, i), g.scores[i])
        if g.out >> i & 1:
            p += " out"
        elif g.fouls[i]:
            p += " (%d foul%s)" % (g.fouls[i], "s" if g.fouls[i] > 1 else "")
        parts.append(p)
    return "Scores: " + ", ".join(parts) + "."


def seats_in_play(g, panel, displays):
    """How many displays are in play: the game's players (the set-up menu's player
    count while it is being changed), at most one per display. The simulator draws
    these and the web page shows these."""
    n = g.players
    if panel is not None and panel.mode == ui.MODE_MENU and panel.menu_item == ui.MENU_PLAYERS:
        n = max(n, panel.menu_value)
    return min(n, displays)


def status(g, panel=None, more=()):
    """The whole line: the situation (the menu item while the set-up menu is open,
    the desk's offer while the displays show it), what the panel adds, each of
    `more`, then the scores."""
    names = panel.names if panel is not None else None
    if panel is not None and panel.mode == ui.MODE_MENU:
        s = menu(panel)
    elif panel is not None and panel.mode == ui.MODE_OFFER and panel.offer is not None:
        s = offer(panel)
    else:
        s = situation(g, names)
    for m in (panel_words(g, panel) if panel is not None else []) + list(more):
        s += "; " + m
    return s + ". " + scores(g, names)
