"""The simulated board: the firmware's application on fake hardware, in simulated time.

`Sim` builds a build of board.config on the fake pins, buses and displays of
tools/models/, drives the panel's pins one key line at a time (through the real
debounce and encoder decoding) and reads what the device models decoded from the
wires; `parse_script` reads the key script format (docs/SIMULATOR.md). The terminal
front end (tools/sim.py), tools/pictures.py and the host tests drive it; it holds
no terminal code and runs under CPython and micropython.
"""
import time

import toolpaths

toolpaths.add("models", "../firmware")

from board import config  # noqa: E402
from fakepins import Pin, apply_due  # noqa: E402
from fakedisplays import fake_board  # noqa: E402
from app import assemble, loop  # noqa: E402
from app.settings import Settings  # noqa: E402
import record  # noqa: E402

PRESS_MS = 60           # a key line: pressed this long,
GAP_MS = 140            # then released this long
HOLD_EXTRA_MS = 200     # HOLD: the long-press time plus this
TURN_MS = 5             # between two quadrature states of one detent
STEP_MS = 1             # simulated time step
MAX_WAIT_MS = 600000    # WAIT: at most ten minutes of simulated time per line


class ScriptError(Exception):
    pass


def real_clock():
    """A function giving the real milliseconds since it was made (both interpreters)."""
    if hasattr(time, "ticks_ms"):
        t0 = time.ticks_ms()
        return lambda: time.ticks_diff(time.ticks_ms(), t0)
    t0 = time.monotonic()
    return lambda: int((time.monotonic() - t0) * 1000)


if hasattr(time, "sleep_ms"):
    _sleep_ms = time.sleep_ms
else:
    def _sleep_ms(ms):
        time.sleep(ms / 1000)


class Sim:
    """The application built from board.config with fake pins, buses and displays."""

    def __init__(self, players=2, build="tm1637", root=None, rules=0, names=None):
        """`root`: a directory (ending in "/") that plays the board's flash: the
        journal and the settings are kept there, so a new Sim resumes the game.
        Without it nothing persists and `players` sets up the game. `rules`: the
        house rules mask of a new game (a resumed game keeps its own). `names`:
        the players' names (a list of str, checked), given to the game at start
        (a resumed game's are corrected to them)."""
        self.rules = rules
        if build not in config.BUILDS:
            raise ScriptError("unknown build %r (builds: %s)"
                              % (build, " ".join(sorted(config.BUILDS))))
        self.build_name = build
        self.build = config.BUILDS[build]
        self.root = root
        self.now = 0
        self.busy = 0                  # when the panel is free for the next key
        self.timeline = []             # (time, pin, level) pin changes to come
        self.cuts = 0                  # power cuts since the game on show began
        self.found = 0                 # what start-up found in the journal (ui.NOTICE_*)
        self.hall = None               # hall mode's publisher (join_hall)
        self._client = None
        self._boot(players)
        if names is not None:
            try:
                self.panel.set_names(names)
            except ValueError as e:
                raise ScriptError(str(e))
        encs = loop.encoders(self.build)
        self.keys = {}
        for name in config.PANEL:
            self.keys[name] = config.PANEL[name]
        self.turns = {}
        for i in range(len(encs)):
            name, a, b, sw = encs[i]
            self.keys[name] = sw
            self.turns[name + "+"] = (a, b, 1)
            self.turns[name + "-"] = (a, b, -1)

    def _boot(self, players=None):
        """Power on: fresh pins and chips, the application started from the flash."""
        Pin.reset_all()
        buses, dpin, self.models = fake_board(self.build, keep=0)   # (no histories)
        if self.root is None:
            settings = Settings("/nonexistent/")     # nothing persists
        else:
            settings = Settings(self.root).load()
        if players is not None:
            if self.root is None:
                settings.players = players
                if settings.opener >= players:
                    settings.opener = 0
            else:
                # kept, as the set-up menu keeps it: a game found in the journal
                # goes on with its own players, the next new game has these
                settings.set(players=players)
        settings.rules = self.rules
        pwm = None
        if config.BUZZER is not None:
            from fakesystem import PWM
            pwm = PWM(Pin(config.BUZZER))

        def key_pin(n):
            return Pin(n, Pin.IN, Pin.PULL_UP)

        self.app = assemble(key_pin, buses, dpin, build=self.build, pwm=pwm,
                            root=self.root, settings=settings)
        self.game = self.app.game
        self.panel = self.app.panel         # (assemble() names the build for the panel)
        self.long_ms = self.app.inputs.buttons.long_ms
        self.timeline = []
        self.busy = self.now
        self.app.start(self.now)
        self._house_rules(settings)
        self.found = self.panel.notice
        self._watch_new_game()

    def _watch_new_game(self):
        """Forget the power cuts and what start-up found once another game begins
        (the rules core's new_game, however it is reached: the menu, the desk)."""
        g = self.game
        start = type(g).new_game

        def new_game(players, opener, rules=0):
            err = start(g, players, opener, rules)
            if not err:
                self.cuts = 0
                self.found = 0
            return err
        g.new_game = new_game

    def _house_rules(self, settings):
        """Give a game that has just started (nothing played, nothing resumed) the
        simulator's house rules; a game resumed from the journal keeps its own."""
        g = self.game
        journal = self.app.journal
        if g.rules == self.rules or g.position() or (journal and journal.records):
            return
        ref = journal if journal is not None else g
        ref.new_game(g.players, g.opener, self.rules)

    def power_cut(self):
        """Cut the power and switch on again: the game resumes from the journal
        (every record was flushed when it was written; nothing is closed here but
        hall mode's connection, which goes with the power, and comes back)."""
        if self.hall is not None:
            self.hall.close()
        self.cuts += 1
        self._boot()
        if self.hall is not None:
            self.join_hall(self._client)

    # ---- hall mode -----------------------------------------------------------
    def join_hall(self, client=None):
        """Hall mode, as on a Pico W (docs/HALL.md): the publisher of net/hall.py
        for the hall.json in the flash folder, with the firmware's MQTT client
        (net/mqtt.py) or `client`. Returns it, or None when the folder has no usable
        hall.json. It publishes while the loop runs in real time (run_real)."""
        from net import hall
        self._client = client
        self.hall = hall.attach(self.app, self.root, client)
        return self.hall

    def run_real(self, ms, until=None):
        """Let up to `ms` real milliseconds pass, the loop stepping 1 ms of simulated
        time at a time with a 1 ms sleep between (the network needs real time);
        stop as soon as `until()` is true. Returns whether it is (True without one)."""
        clock = real_clock()
        while until is None or not until():
            if clock() >= ms:
                return until is None
            self.run_to(self.now + 1)
            _sleep_ms(1)
        return True

    def settle(self, ms):
        """Run in real time until the broker has every action (at most `ms`)."""
        return self.run_real(ms, self.hall.caught_up)

    def play_real(self, lines):
        """Run parsed script lines in real time (hall mode: the broker sees a table
        playing, not a burst)."""
        for kind, arg, long in lines:
            end = self.now + arg if kind == "wait" else self.key(arg, long)
            self.run_real(MAX_WAIT_MS + 2000, lambda: self.now >= end)

    # ---- driving the pins ----------------------------------------------------
    def known(self, name, long=False):
        return name in self.keys or (not long and name in self.turns)

    def key(self, name, long=False):
        """Queue one key line: press/turn, release, gap. Returns when it is done."""
        t = self.now if self.busy < self.now else self.busy
        if name in self.turns:
            a, b, d = self.turns[name]
            # A | B << 1 walks 3 -> 2 -> 0 -> 1 -> 3 clockwise (input/quadrature.py)
            seq = (2, 0, 1, 3) if d > 0 else (1, 0, 2, 3)
            for i in range(4):
                s = seq[i]
                self.timeline.append((t + 1 + i * TURN_MS, a, s & 1))
                self.timeline.append((t + 1 + i * TURN_MS, b, s >> 1))
            self.busy = t + PRESS_MS + GAP_MS
            return self.busy
        gpio = self.keys[name]
        down = self.long_ms + HOLD_EXTRA_MS if long else PRESS_MS
        self.timeline.append((t + 1, gpio, 0))
        self.timeline.append((t + 1 + down, gpio, 1))
        self.busy = t + down + GAP_MS
        return self.busy

    def run_to(self, t):
        """Let simulated time pass to `t`, applying pin changes as they come due."""
        app = self.app
        while self.now < t:
            self.now += STEP_MS
            if self.timeline:
                self.timeline = apply_due(self.timeline, self.now)
            app.step(self.now)

    def run_fast(self, t, step, until=None):
        """Let simulated time pass to `t` as run_to does, but a pass only every `step`
        ms while nothing waits (App.idle(): no display slice, no record to store, no
        key line settling) and no pin change is due sooner: hours of a table's
        evening in seconds (host_tests/hall_table.py `fast`). The loop cannot tell:
        its work is driven by the times it is given, and the keys' edges still come
        at their own milliseconds. Stops early, after a pass, once `until()` is true."""
        app = self.app
        while self.now < t and (until is None or not until()):
            nxt = self.now + STEP_MS
            if app.idle():
                nxt = t if t - self.now < step else self.now + step
                for ev in self.timeline:
                    if ev[0] < nxt:
                        nxt = ev[0] if ev[0] > self.now else self.now + STEP_MS
            self.now = nxt
            if self.timeline:
                self.timeline = apply_due(self.timeline, self.now)
            app.step(self.now)

    def play(self, lines):
        """Run parsed script lines: (kind, arg, long)."""
        for kind, arg, long in lines:
            if kind == "wait":
                self.run_to(self.now + arg)
            else:
                self.run_to(self.key(arg, long))

    # ---- what the displays show ----------------------------------------------
    def seven(self):
        return not hasattr(self.models[0], "pixels")

    def texts(self):
        """What each seven-segment display reads, player 1 first (OLED: None)."""
        out = []
        for m in self.models:
            out.append(m.text() if hasattr(m, "text") else None)
        return out

    def state(self):
        from app.playernames import header_names
        return record.state_json(self.game, header_names(self.panel.names,
                                                         self.game.players))

    def words(self):
        """The game in words, as a player would say it (tools/gamewords.py: the web
        page's status line says the same), and the power cuts."""
        import gamewords
        more = []
        if self.cuts:
            more.append("resumed after %d power cut%s" % (self.cuts,
                                                          "s" if self.cuts > 1 else ""))
        if self.found:
            more.append(self.notice_words())
        if self.hall is not None:
            more.append(self.hall_words())
        return gamewords.status(self.game, self.panel, more)

    def notice_words(self):
        """What start-up found in the journal, in words (the displays' CUt, bAd,
        FLSh; docs/DISPLAYS.md, "Start-up")."""
        from views import ui
        if self.found == ui.NOTICE_CUT:
            n = self.panel.notice_arg
            return ("the journal's last record%s could not be read: the game goes on "
                    "from the one before (%d action%s lost)"
                    % ("s" if n > 1 else "", n, "s" if n > 1 else ""))
        if self.found == ui.NOTICE_UPTO:
            return ("the journal's last part (journal.tail) is gone or cut short: the game "
                    "goes on from the rest, and up to %d actions may be lost"
                    % self.panel.notice_arg)
        if self.found == ui.NOTICE_NEW:
            return "the journal could not be read: it was moved aside and a new game started"
        return "the flash could not be read or written: the game is not kept"

    def hall_words(self):
        """Hall mode's connection in words: "table t01 of hall club: online, all sent"."""
        from views import hallui
        h = self.hall                   # (the set-up menu's questions, app/hallmenu.py)
        n = h.pending()
        return "table %s of hall %s: %s, %s" % (
            bytes(h.name(1)).decode(), bytes(h.name(0)).decode(),
            "online" if h.state() == hallui.NET_ONLINE else "no broker (trying again)",
            "%d action%s to send" % (n, "" if n == 1 else "s") if n else "all sent")

    def status(self):
        """The live status line: the words, and ♪ while the buzzer sounds."""
        s = self.words()
        bz = self.app.buzzer
        if bz is not None and bz.playing():
            s += " ♪"
        return s

    def seats(self):
        """How many displays are in play (tools/gamewords.py: the page's rule too)."""
        import gamewords
        return gamewords.seats_in_play(self.game, self.panel, len(self.models))


# ---- scripts ---------------------------------------------------------------------
def parse_script(text, sim):
    """Script lines -> [(kind, arg, long)]; ScriptError names the bad line.

    `text` is a str, or bytes read from a file: UTF-8, checked line by line (a
    bad byte is reported with its line number), a leading byte order mark skipped."""
    out = []
    number = 0
    for raw in text.split(b"\n" if isinstance(text, bytes) else "\n"):
        number += 1
        if isinstance(raw, bytes):
            if number == 1 and raw[:3] == b"\xef\xbb\xbf":
                raw = raw[3:]
            try:
                raw = raw.decode("utf-8")
            except UnicodeError:
                raise ScriptError("line %d: not UTF-8 text" % number)
        elif number == 1 and raw[:1] == "\ufeff":
            raw = raw[1:]
        line = raw.strip()
        if "#" in line:
            line = line[:line.index("#")].strip()
        if not line:
            continue
        words = line.split()
        if words[0] == "WAIT":
            ok = len(words) == 2 and words[1].isdigit()
            if not ok:
                raise ScriptError("line %d: WAIT needs milliseconds: %r" % (number, raw))
            if len(words[1]) > 9 or int(words[1]) > MAX_WAIT_MS:
                raise ScriptError("line %d: WAIT takes at most %d ms (ten minutes): %r"
                                  % (number, MAX_WAIT_MS, raw))
            out.append(("wait", int(words[1]), False))
        elif words[0] == "HOLD":
            if len(words) != 2 or not sim.known(words[1], True):
                raise ScriptError("line %d: HOLD needs a key name: %r" % (number, raw))
            out.append(("key", words[1], True))
        elif len(words) == 1 and sim.known(words[0]):
            out.append(("key", words[0], False))
        else:
            raise ScriptError("line %d: unknown key %r" % (number, raw))
    return out
