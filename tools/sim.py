"""The scoreboard on a terminal: the real application on fake hardware.

    python3 tools/sim.py [--players N] [--build NAME]          live, keyboard = panel
    python3 tools/sim.py --players N --script FILE [--state]    scripted
    python3 tools/sim.py --rules NAME,... ...                   with house rules
    micropython tools/sim.py ...                                the same

The firmware runs unchanged: keys drive the fake GPIO pins of the panel (through
the real debounce and encoder decoding), the displays are device models that
decode the wire protocol, drawn here with characters. Time is simulated in 1 ms
steps; live mode keeps it in step with the clock. docs/SIMULATOR.md has the key
map and the script format. With standard input not a terminal and no --script,
the bundled demo (tools/demo.keys) is played and the displays printed.
"""
import sys

import toolpaths

TOOLS = toolpaths.add("../host_tests/fakes", "../firmware")

from board import config  # noqa: E402
from fakepins import Pin  # noqa: E402
from fakedisplays import fake_board  # noqa: E402
from app import loop  # noqa: E402
from app.settings import Settings  # noqa: E402
import record  # noqa: E402
from cowboy import houserules  # noqa: E402

PRESS_MS = 60           # a key line: pressed this long,
GAP_MS = 140            # then released this long
HOLD_EXTRA_MS = 200     # HOLD: the long-press time plus this
TURN_MS = 5             # between two quadrature states of one detent
STEP_MS = 1             # simulated time step

USAGE = ("usage: sim.py [--players N] [--build NAME] [--root DIR] [--rules NAME,...]\n"
         "              [--script FILE [--state]]\n"
         "builds: " + " ".join(sorted(config.BUILDS)) + "\n"
         "house rules: " + " ".join(houserules.NAMES))

# Terminal key -> (panel key, long press). Arrows arrive as escape sequences.
KEYMAP = {
    "1": ("1", False), "3": ("3", False), "5": ("5", False),
    "!": ("1", True), "#": ("3", True), "%": ("5", True),
    "c": ("C2", False), "v": ("C3", False),
    "\r": ("OK", False), "\n": ("OK", False), " ": ("OK", False),
    "m": ("MISS", False), "M": ("MISS", True),
    "f": ("FOUL", False), "F": ("FOUL", True),
    "s": ("SCRATCH", False), "S": ("SCRATCH", True),
    "u": ("UNDO", False), "\x7f": ("UNDO", False), "\x08": ("UNDO", False),
    "r": ("REDO", False),
    ".": ("ENC+", False), ",": ("ENC-", False), "/": ("ENC", False), "\t": ("ENC", False),
    "?": ("ENC", True),
    ">": ("ENC2+", False), "<": ("ENC2-", False), "'": ("ENC2", False),
    '"': ("ENC2", True),
    "\x1b[C": ("ENC+", False), "\x1b[D": ("ENC-", False), "\x1b[B": ("ENC", False),
}
HELP = ("keys: 1 3 5 balls (! # % = hold: jumped)  c=C2 v=C3  Enter=OK  m=MISS "
        "(M hold: no contact)  f=FOUL (F: no rail)  s=SCRATCH (S: cue off)  "
        "u/Backspace=UNDO  r=REDO  . , or arrows=ENC+/-  / Tab Down=ENC push  "
        "?=hold ENC (menu)  > < ' \"=ENC2  P=power cut (--root)  q=quit")


def pad(s, width):
    """`s` padded with spaces to `width` (str.ljust, which micropython lacks)."""
    return s + " " * (width - len(s)) if len(s) < width else s


_QUADS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
_RED = "\x1b[1;31m"
_OFF = "\x1b[0m"


def big7(segs, color=True):
    """Seven-segment bytes (bit 0 = a ... bit 6 = g, bit 7 = point) drawn 5 rows high."""
    rows = ["", "", "", "", ""]
    on = _RED if color else ""
    off = _OFF if color else ""
    for s in segs:
        h = [" ━━━ " if s & m else "     " for m in (0x01, 0x40, 0x08)]    # a, g, d
        rows[0] += h[0] + " "
        rows[1] += ("┃" if s & 0x20 else " ") + "   " + ("┃" if s & 0x02 else " ") + " "
        rows[2] += h[1] + " "
        rows[3] += ("┃" if s & 0x10 else " ") + "   " + ("┃" if s & 0x04 else " ") + " "
        rows[4] += h[2] + ("●" if s & 0x80 else " ")
    return [on + r + off for r in rows], len(segs) * 6


def quads(px):
    """Pixel rows (1 = lit) as quadrant-block text: 2 x 2 pixels per character."""
    out = []
    for y in range(0, len(px) - 1, 2):
        top = px[y]
        bot = px[y + 1]
        line = []
        for x in range(0, len(top) - 1, 2):
            line.append(_QUADS[top[x] | top[x + 1] << 1 | bot[x] << 2 | bot[x + 1] << 3])
        out.append("".join(line))
    return out


class ScriptError(Exception):
    pass


class RulesError(Exception):
    pass


def parse_rules(text):
    """The house rules mask of "NAME,NAME,..." (an empty text: none)."""
    mask = 0
    for name in text.split(","):
        if not name:
            continue
        b = houserules.bit(name)
        if not b:
            raise RulesError("unknown house rule %r (house rules: %s)"
                             % (name, " ".join(houserules.NAMES)))
        mask |= b
    return mask


class Sim:
    """The application built from board.config with fake pins, buses and displays."""

    def __init__(self, players=2, build="tm1637", root=None, rules=0):
        """`root`: a directory (ending in "/") that plays the board's flash: the
        journal and the settings are kept there, so a new Sim resumes the game.
        Without it nothing persists and `players` sets up the game. `rules`: the
        house rules mask of a new game (a resumed game keeps its own)."""
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
        self.boots = 0
        self._boot(players)
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
        buses, dpin, self.models = fake_board(self.build)
        self.buses = [buses[k] for k in buses]
        if self.root is None:
            settings = Settings("/nonexistent/")     # nothing persists
        else:
            settings = Settings(self.root).load()
        if players is not None:
            settings.players = players
            if settings.opener >= players:
                settings.opener = 0
        settings.rules = self.rules
        pwm = None
        if config.BUZZER is not None:
            from fakesystem import PWM
            pwm = PWM(Pin(config.BUZZER))

        def key_pin(n):
            return Pin(n, Pin.IN, Pin.PULL_UP)

        self.app = loop.make(key_pin, buses, dpin, build=self.build, pwm=pwm,
                             root=self.root, settings=settings)
        self.game = self.app.game
        self.panel = self.app.panel
        self.long_ms = self.app.inputs.buttons.long_ms
        self.timeline = []
        self.busy = self.now
        self.boots += 1
        self.app.start(self.now)
        self._house_rules(settings)

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
        (every record was flushed when it was written; nothing is closed here)."""
        self._boot()

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
                keep = []
                for ev in self.timeline:
                    if ev[0] <= self.now:
                        p = Pin(ev[1])
                        if ev[2]:
                            p.release()          # the pull-up takes the line high
                        else:
                            p.drive(0)
                    else:
                        keep.append(ev)
                self.timeline = keep
            app.step(self.now)
            if self.now % 1000 == 0:
                for bus in self.buses:
                    bus.clear_log()          # the fake buses log every write

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

    def picture(self, width=200, compact=False):
        """All displays drawn with characters, labelled, as rows of text.

        OLEDs: half blocks (one text row per two pixel rows), or with `compact`
        quadrant blocks (2 x 2 pixels per character) so that more fit a terminal."""
        n = len(self.models)
        lines = []
        if self.seven() and compact:
            arts = []
            w = 0
            for m in self.models:
                rows, aw = big7(m.segments() if getattr(m, "on", True) else bytes(8))
                arts.append(rows)
                w = aw + 3
            per = max(1, min(n, width // w))
            for start in range(0, n, per):
                row = range(start, min(n, start + per))
                lines.append("".join(pad("P%d" % (i + 1), w) for i in row).rstrip())
                for r in range(5):
                    lines.append("   ".join(arts[i][r] for i in row).rstrip())
                lines.append("")
        elif self.seven():
            arts = [m.art().split("\n") for m in self.models]
            w = len(arts[0][0]) + 3
            per = max(1, min(n, width // w))
            for start in range(0, n, per):
                row = range(start, min(n, start + per))
                lines.append("".join(pad("P%d" % (i + 1), w) for i in row).rstrip())
                for r in range(3):
                    lines.append("".join(pad(arts[i][r], w) for i in row).rstrip())
                lines.append("")
        else:
            w = 67 if compact else 131
            per = max(1, min(n, width // w))
            for start in range(0, n, per):
                row = range(start, min(n, start + per))
                if compact:
                    arts = [quads(self.models[i].pixels()) for i in row]
                else:
                    arts = [self.models[i].art().split("\n") for i in row]
                lines.append("".join(pad("P%d" % (i + 1), w) for i in row).rstrip())
                for r in range(len(arts[0])):
                    lines.append("".join(pad("|" + a[r] + "|", w) for a in arts).rstrip())
                lines.append("")
        return lines

    def report(self):
        """The final printout of scripted mode: pictures, then one text line each."""
        lines = self.picture()
        texts = self.texts()
        if self.seven():
            for i in range(len(texts)):
                lines.append('P%d: "%s"' % (i + 1, texts[i]))
        return lines

    def state(self):
        return record.state_json(self.game)

    def status(self):
        """One line for people: who is at the table, the stage, the buzzer."""
        from cowboy import codes as C
        g = self.game
        if g.phase == C.PHASE_OVER:
            s = "game over, player %d wins" % (g.winner + 1)
        else:
            s = "player %d %s (%s), inning %d" % (
                g.shooter + 1, "to choose" if g.phase == C.PHASE_CHOICE else "at the table",
                C.PHASE_NAME[g.phase], g.inning)
            if g.cue_in_hand:
                s += ", cue ball in hand"
            if g.off_table:
                s += ", off the table: " + " ".join(
                    str(v) for i, v in enumerate((1, 3, 5)) if g.off_table >> i & 1)
        if self.boots > 1:
            s += ", resumed after %d power cut%s" % (self.boots - 1,
                                                      "s" if self.boots > 2 else "")
        bz = self.app.buzzer
        if bz is not None and bz.playing():
            s += "   ♪"
        return s


# ---- scripts ---------------------------------------------------------------------
def parse_script(text, sim):
    """Script lines -> [(kind, arg, long)]; ScriptError names the bad line."""
    out = []
    number = 0
    for raw in text.split("\n"):
        number += 1
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


def read_file(path):
    f = open(path)
    try:
        return f.read()
    finally:
        f.close()


def run_script(sim, text, state=False, out=None):
    lines = parse_script(text, sim)
    sim.play(lines)
    sim.run_to(sim.now + 100)
    w = out or sys.stdout
    for line in sim.report():
        w.write(line + "\n")
    if state:
        w.write(sim.state() + "\n")


# ---- live mode -------------------------------------------------------------------
class Terminal:
    """Raw keyboard input and full-screen redraws; restores the terminal on exit."""

    def __init__(self):
        import termios
        self.termios = termios
        self.saved = termios.tcgetattr(0)
        try:
            import tty
            tty.setraw(0)
        except ImportError:
            termios.setraw(0)
        import select
        self.poller = select.poll()
        self.poller.register(0, select.POLLIN)
        try:
            import os
            self._read = os.read
        except (ImportError, AttributeError):
            self._read = None
        if self._read is None or not hasattr(self._read, "__call__"):
            self._read = None
        self.write("\x1b[?25l\x1b[2J")

    def write(self, s):
        sys.stdout.write(s)
        if hasattr(sys.stdout, "flush"):
            sys.stdout.flush()

    def keys(self, timeout_ms):
        """Characters typed (escape sequences whole), waiting up to timeout_ms."""
        got = []
        while self.poller.poll(timeout_ms):
            timeout_ms = 0
            if self._read is not None:
                b = self._read(0, 16)
            else:
                b = sys.stdin.buffer.read(1)
            if not b:
                break
            got.append(b.decode() if hasattr(b, "decode") else b)
        s = "".join(got)
        out = []
        i = 0
        while i < len(s):
            if s[i] == "\x1b" and i + 2 < len(s) and s[i + 1] == "[":
                out.append(s[i:i + 3])
                i += 3
            else:
                out.append(s[i])
                i += 1
        return out

    def restore(self):
        self.write("\x1b[0m\x1b[?25h\r\n")
        self.termios.tcsetattr(0, self.termios.TCSANOW, self.saved)


def _clock():
    import time
    if hasattr(time, "ticks_ms"):
        t0 = time.ticks_ms()
        return lambda: time.ticks_diff(time.ticks_ms(), t0)
    t0 = time.monotonic()
    return lambda: int((time.monotonic() - t0) * 1000)


def _size():
    try:
        import os
        sz = os.get_terminal_size()
        if sz.columns >= 20:
            return sz.columns, sz.lines
    except (ImportError, AttributeError, OSError):
        pass
    return 100, 40


def live(sim):
    term = Terminal()
    clock = _clock()
    pending = []
    shown = None
    drawn_at = -1000
    try:
        while True:
            for k in term.keys(5):
                if k in ("q", "\x03", "\x04"):
                    return 0
                if k == "P" and sim.root is not None:
                    pending = []
                    sim.power_cut()
                if k in KEYMAP:
                    pending.append(KEYMAP[k])
            while pending and sim.busy <= sim.now:
                name, long = pending.pop(0)
                if sim.known(name, long):
                    sim.key(name, long)
            sim.run_to(clock())
            if sim.now - drawn_at < 50:
                continue                      # redraw at most 20 times a second
            drawn_at = sim.now
            width, height = _size()
            frame = sim.picture(width, compact=True)
            frame.append("build %s, %d players, t=%d.%ds: %s" % (
                sim.build_name, sim.game.players, sim.now // 1000, sim.now // 100 % 10,
                sim.status()))
            frame.append(HELP)
            text = "\x1b[H" + "\x1b[K\r\n".join(frame) + "\x1b[J"
            if text != shown:
                term.write(text)
                shown = text
    finally:
        term.restore()


# ---- command line ----------------------------------------------------------------
def _isatty():
    try:
        import os
        return os.isatty(0)
    except (ImportError, AttributeError):
        pass
    try:
        import termios
        termios.tcgetattr(0)
        return True
    except (ImportError, OSError):
        return False


def main(argv):
    players = None
    root = None
    build = "tm1637"
    script = None
    state = False
    rules = 0
    i = 0
    try:
        while i < len(argv):
            a = argv[i]
            if a == "--players":
                i += 1
                players = int(argv[i])
            elif a == "--build":
                i += 1
                build = argv[i]
            elif a == "--root":
                i += 1
                root = argv[i].rstrip("/") + "/"
            elif a == "--script":
                i += 1
                script = argv[i]
            elif a == "--state":
                state = True
            elif a == "--rules":
                i += 1
                rules = parse_rules(argv[i])
            elif a in ("-h", "--help"):
                print(USAGE)
                print(HELP)
                return 0
            else:
                raise ValueError(a)
            i += 1
    except RulesError as e:
        sys.stderr.write("sim: %s\n" % e)
        return 2
    except (IndexError, ValueError):
        sys.stderr.write(USAGE + "\n")
        return 2
    if players is not None and (players < 2 or players > 8):
        sys.stderr.write("sim: --players takes 2 to 8\n")
        return 2
    if players is None and root is None:
        players = 2
    try:
        sim = Sim(players, build, root, rules)
        if script is None and not _isatty():
            script = TOOLS + "/demo.keys"
        if script is not None:
            try:
                text = read_file(script)
            except OSError:
                sys.stderr.write("sim: cannot read %s\n" % script)
                return 2
            run_script(sim, text, state)
            return 0
    except ScriptError as e:
        sys.stderr.write("sim: %s: %s\n" % (script or build, e))
        return 2
    return live(sim)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
