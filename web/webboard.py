"""The scoreboard in a browser: the firmware's application on fake hardware.

Runs under MicroPython compiled to WebAssembly (and under CPython, for tests).
The page's JavaScript calls a `Board`: keys pressed and released, encoder
detents, time advanced in 1 ms passes of the main loop, and what the display
chips show, read from the device models that decode the drivers' bytes
(tools/models/fakedisplays.py), never from the game state.

Only the public surface of the firmware and the models is used:
`app.assemble()`, `App.start()`, `App.step()`, `fakedisplays.fake_board()`.
`root` is a directory of the page's in-memory filesystem that plays the board's
flash; the page mirrors it into the browser's storage (web/app.js).
"""
import os

from board import config
from fakepins import Pin, apply_due
from fakedisplays import fake_board
from app import assemble, loop
from app.settings import Settings

PRESS_MS = 60          # shortest press: a click or a typed key lasts this long
HOLD_EXTRA_MS = 200    # a long press from the keyboard: the long-press time plus this
TURN_MS = 5            # between two quadrature states of one detent
LONG_MS = 800          # the panel's long-press time (docs/PANEL.md)
MAX_TONES = 64


def seats(build_name):
    """How many player displays a build has."""
    return len(config.BUILDS[build_name]["displays"])


def builds():
    """The builds of board/config.py, comma-separated."""
    return ",".join(sorted(config.BUILDS))


def legend():
    """The codes' legend of docs/DISPLAYS.md (tools/displaylegend.py, drawn by the
    views' own code) for the page: one "code<TAB>meaning" line each, without the
    Markdown marks."""
    import displaylegend
    return "\n".join(c + "\t" + m.replace("`", "") for c, m in displaylegend.entries())


def _no_sleep(us):
    pass


def _quick_wires():
    """The WebAssembly port's time.sleep_us() waits about 1.6 ms whatever it is
    asked for; the fake wires need no settling time, so a driver that bit-bangs
    (TM1637) gets a sleep that returns at once. Nothing else changes."""
    from chips import tm1637
    if hasattr(tm1637, "sleep_us"):
        tm1637.sleep_us = _no_sleep


def _forget(obj, keep_log):
    for name in ("log", "frames", "commands"):
        v = getattr(obj, name, None)
        if type(v) is list and not (keep_log and name == "log"):
            del v[:]


class ToneLog:
    """A PWM stand-in for the buzzer pin: every change of frequency or duty is
    logged with the time, for the page to play with Web Audio."""

    def __init__(self, board):
        self.board = board
        self.hz = 0
        self.duty = 0
        self.log = []

    def freq(self, f=None):
        if f is None:
            return self.hz
        self.hz = f
        self._log()

    def duty_u16(self, d=None):
        if d is None:
            return self.duty
        self.duty = d
        self._log()

    def deinit(self):
        self.duty = 0
        self._log()

    def _log(self):
        if len(self.log) < MAX_TONES:
            self.log.append((self.board.now, self.hz if self.duty else 0))


class Board:
    """One scoreboard of build `build_name`, powered on at time 0."""

    def __init__(self, build_name, root, players=None):
        if build_name not in config.BUILDS:
            raise ValueError("unknown build %r" % build_name)
        self.build_name = build_name
        self.build = config.BUILDS[build_name]
        self.root = root
        self.now = 0
        self.timeline = []          # (time, gpio, level) pin changes to come
        self.down = {}              # key name -> time its press started
        self.shown = {}             # seat -> last picture handed out
        self.set_aside = ""         # where import_record archived the game it replaced
        _quick_wires()
        Pin.reset_all()
        buses, dpin, self.models = fake_board(self.build)
        self.buses = [buses[k] for k in buses]
        settings = Settings(root).load()
        if players is not None:
            settings.players = players
            if settings.opener >= players:
                settings.opener = 0
        self.tones = ToneLog(self)

        def key_pin(n):
            return Pin(n, Pin.IN, Pin.PULL_UP)

        pwm = self.tones if config.BUZZER is not None else None
        self.app = assemble(key_pin, buses, dpin, build=self.build, pwm=pwm,
                            root=root, settings=settings)
        # the page's buzzer and displays are JavaScript objects, whose calls
        # allocate: no heap lock here (app/loop.py)
        self.app.locked = False
        self.keys = {}
        for name in config.PANEL:
            self.keys[name] = config.PANEL[name]
        self.turns = {}
        self.encoders = []          # encoder names, the first one first
        for enc in loop.encoders(self.build):
            name, a, b, sw = enc
            self.keys[name] = sw
            self.turns[name] = (a, b)
            self.encoders.append(name)
        self.app.start(self.now)

    # ---- the panel -------------------------------------------------------------
    def key_names(self):
        """Panel keys and encoder push switches of this build, then the encoders."""
        return ",".join(self.keys) + ";" + ",".join(self.encoders)

    def press(self, name):
        """The key goes down at the next pass (a pointer or a key went down)."""
        if name not in self.keys or name in self.down:
            return False
        t = self.now + 1
        self.down[name] = t
        self.timeline.append((t, self.keys[name], 0))
        return True

    def release(self, name, hold_ms=0):
        """The key comes up, after at least PRESS_MS (or `hold_ms`) down."""
        t0 = self.down.pop(name, None)
        if t0 is None:
            return False
        t = t0 + max(PRESS_MS, hold_ms)
        if t <= self.now:
            t = self.now + 1
        self.timeline.append((t, self.keys[name], 1))
        return True

    def tap(self, name, long=False):
        """A whole key stroke: pressed now, released after PRESS_MS, or after the
        long-press time and a little more for a long press."""
        if self.press(name):
            self.release(name, LONG_MS + HOLD_EXTRA_MS if long else 0)

    def turn(self, name, d):
        """One detent of encoder `name`: the A and B lines walk a full cycle."""
        if name not in self.turns:
            return False
        a, b = self.turns[name]
        t = self.now
        for e in self.timeline:
            if e[1] == a and e[0] > t:
                t = e[0] + TURN_MS          # after the detents still to come
        # A | B << 1 walks 3 -> 2 -> 0 -> 1 -> 3 clockwise (input/quadrature.py)
        seq = (2, 0, 1, 3) if d > 0 else (1, 0, 2, 3)
        for i in range(4):
            s = seq[i]
            self.timeline.append((t + 1 + i * TURN_MS, a, s & 1))
            self.timeline.append((t + 1 + i * TURN_MS, b, s >> 1))
        return True

    # ---- time ------------------------------------------------------------------
    def advance(self, ms):
        """Let `ms` of simulated time pass: one pass of the main loop per ms."""
        end = self.now + ms
        app = self.app
        while self.now < end:
            self.now += 1
            if self.timeline:
                self.timeline = apply_due(self.timeline, self.now)
            app.step(self.now)
            if self.now % 1000 == 0:
                self._trim()

    def _trim(self):
        """The fake buses and chips log every transaction: forget the logs (an
        OLED's own log is how `changed()` sees new bytes: it empties that one)."""
        for bus in self.buses:
            bus.clear_log()
            devs = getattr(bus, "devices", None)
            if type(devs) is dict:
                devs = list(devs.values())
            for d in devs or ():
                _forget(d, hasattr(d, "pixels"))
        for m in self.models:
            _forget(m, hasattr(m, "pixels"))
            chain = getattr(m, "chain", None)
            if chain is not None:
                _forget(chain, False)

    def idle(self):
        """No key or turn still under way."""
        return not self.timeline and not self.down

    # ---- what the displays show --------------------------------------------------
    def kind(self):
        """"oled" or "seven"."""
        return "oled" if hasattr(self.models[0], "pixels") else "seven"

    def texts(self):
        """What each seven-segment display reads (tab-separated), "" for OLEDs."""
        if self.kind() == "oled":
            return ""
        return "\t".join(m.text() for m in self.models)

    def arts(self):
        """Every display drawn with text characters (the models' art()), separated
        by form feeds."""
        return "\f".join(m.art() for m in self.models)

    def picture(self, i):
        """Display i as its model shows it: for seven segments "S" and its art()
        (three rows of _ | . per digit), for an OLED "O" and its 64 rows of 128
        pixels as the characters "0" and "1" (no base64: binascii is slow there)."""
        m = self.models[i]
        if not hasattr(m, "pixels"):
            return "S" + m.art()
        px = b"".join([bytes(row) for row in m.pixels()])
        return "O" + px.replace(b"\x00", b"0").replace(b"\x01", b"1").decode()

    def changed(self):
        """Indices of displays whose picture changed since the last call, as a
        comma-separated string; `shown_picture(i)` then gives the picture."""
        out = []
        for i in range(len(self.models)):
            m = self.models[i]
            log = getattr(m, "log", None)
            if hasattr(m, "pixels") and log is not None:
                if i in self.shown and not log:
                    continue                 # nothing reached the chip since
                del log[:]
            p = self.picture(i)
            if self.shown.get(i) != p:
                self.shown[i] = p
                out.append(str(i))
        return ",".join(out)

    def pictures(self):
        """Every display's last picture handed out, separated by form feeds."""
        return "\f".join([self.shown.get(i, "") for i in range(len(self.models))])

    def shown_picture(self, i):
        return self.shown.get(i, "")

    def level(self, i):
        """Brightness a model was set to, 0..1 (1 when the model has none)."""
        m = self.models[i]
        for name, top in (("contrast", 255), ("dimming", 15), ("pulse", 7)):
            v = getattr(m, name, None)
            if type(v) is int:
                return (v + 1) / (top + 1)
        chain = getattr(m, "chain", None)
        if chain is not None:
            return (chain.chips[m.pos].reg[0x0A] + 1) / 16
        return 1

    def drain_tones(self):
        """Buzzer changes since the last call: "time:hz" pairs, comma-separated."""
        log = self.tones.log
        s = ",".join("%d:%d" % t for t in log)
        del log[:]
        return s

    def state(self):
        """The rules state as GAME-RECORD's state object (for the page's status line
        and the tests), from tools/record.py; with the players' names when they have
        any, as the replay prints them."""
        import record
        from app.playernames import header_names
        g = self.app.game
        return record.state_json(g, header_names(self.app.panel.names, g.players))

    def in_play(self):
        """How many displays are in play, the first ones (the simulator's rule,
        tools/gamewords.py); the page shows only these."""
        import gamewords
        return gamewords.seats_in_play(self.app.game, self.app.panel, len(self.models))

    def labels(self):
        """The labels over the displays, tab-separated: P1, or P1 and the player's
        name (the simulator's labels, tools/gamewords.py)."""
        import gamewords
        names = self.app.panel.names
        return "\t".join([gamewords.label(names, i) for i in range(len(self.models))])

    def status(self):
        """The game in words for the page's status line: the simulator's words
        (tools/gamewords.py)."""
        import gamewords
        return gamewords.status(self.app.game, self.app.panel)

    def next_players(self):
        """The players of the next game: the settings' (the set-up menu's, or the
        page's New game), which the game in progress need not have."""
        return self.app.panel.settings.players

    def new_game(self, players):
        """Set-up from the page: `players` saved in the settings and a new game in
        the journal with the settings' house rules (the one in progress archived,
        as the set-up menu does). The page then powers the board off and on."""
        s = Settings(self.root).load()
        s.set(players=players)
        s.save()
        j = self.app.journal
        j.new_game(s.players, s.opener, s.rules)
        j.close()

    def set_names(self, text):
        """The players' names from the page: "Anna, Ben K", one per seat in order,
        read as the simulator's --names reads them (tools/record.py typed_names).
        Returns "" once the panel has them (the loop keeps them beside the journal
        in its next flash step), or why they were refused (then nothing changed)."""
        import record
        names, why = record.typed_names(text, self.app.game.players)
        if why is not None:
            return why
        self.app.panel.set_names(names)
        return ""

    # ---- the game record ---------------------------------------------------------
    def export_record(self):
        """The journal on the page's flash as GAME-RECORD JSON Lines, with the
        players' names in its header when they have any."""
        import journal as journaltool
        from app.playernames import header_names
        g = self.app.game
        return journaltool.to_json(journaltool.read_current(self.root)[0],
                                   header_names(self.app.panel.names, g.players))

    def import_record(self, text):
        """Check a GAME-RECORD text; when it is good, archive the game in progress
        as New game does (`set_aside`: where it went, "" when it had no action) and
        write the record as the journal, which the next power-on resumes. Returns ""
        or a message naming the bad line (then nothing changed)."""
        self.set_aside = ""
        data = _checked(text, seats(self.build_name))
        if type(data) is str:
            return data
        j = self.app.journal
        if j is not None:
            before = set(_archive(self.root))
            j.new_game(data[3], data[4])
            j.close()
            for name in _archive(self.root):
                if name not in before:
                    self.set_aside = "games/" + name
        _write(self.root, data)
        return ""


def _archive(root):
    try:
        return os.listdir(root + "games")
    except OSError:
        return []


def _checked(text, seats_max):
    """A GAME-RECORD text as journal bytes, or a message naming the bad line."""
    import journal as journaltool
    lines = text.split("\n")
    try:
        data = journaltool.to_binary(lines)
    except journaltool.JournalError as e:
        return str(e)
    players = data[3]
    if players > seats_max:
        return "the record has %d players, this build has %d displays" % (players, seats_max)
    return data


def import_record(root, text, seats_max):
    """Check a GAME-RECORD text and write it as the journal under `root`, replacing
    what is there; the next power-on resumes it. Returns "" or a message naming the
    bad line. (The page uses Board.import_record, which keeps the game it replaces.)"""
    data = _checked(text, seats_max)
    if type(data) is str:
        return data
    _write(root, data)
    return ""


def _write(root, data):
    """`data` (journal bytes) as the journal under `root`, with an empty tail after
    its records (a journal.bin alone may have lost its tail: docs/JOURNAL.md)."""
    from app import journalformat
    for name in ("journal.bin", "journal.tail"):   # a tail left by the old game too
        try:
            os.stat(root + name)
            os.remove(root + name)
        except OSError:
            pass
    with open(root + "journal.bin", "wb") as f:
        f.write(data)
    tail = bytearray(journalformat.TAIL_SIZE)
    count = (len(data) - journalformat.HEADER_SIZE) // journalformat.RECORD_SIZE
    journalformat.write_tail_header(tail, 0, count, journalformat.header_crc(data))
    with open(root + "journal.tail", "wb") as f:
        f.write(tail)
