"""The scoreboard on a terminal: the real application on fake hardware.

    python3 tools/sim.py [--players N] [--build NAME] [--root DIR]   live, keyboard = panel
    make sim PLAYERS=N BUILD=NAME ARGS="..."                    the same through make
    python3 tools/sim.py --players N --script FILE [--state]    scripted
    python3 tools/sim.py --rules NAME,... ...                   with house rules
    micropython tools/sim.py ...                                the same

The firmware runs unchanged: keys drive the fake GPIO pins of the panel (through
the real debounce and encoder decoding), the displays are device models that
decode the wire protocol, drawn here with characters. Time is simulated in 1 ms
steps; live mode keeps it in step with the clock. docs/SIMULATOR.md has the key
map, the layouts that fit the terminal and the script format. With standard input
not a terminal and no --script, the bundled demo (tools/demo.keys) is played and
the displays printed.
"""
import sys

import toolpaths

TOOLS = toolpaths.add("../host_tests/fakes", "../firmware")

from board import config  # noqa: E402
from fakepins import Pin, apply_due  # noqa: E402
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
MAX_WAIT_MS = 600000    # WAIT: at most ten minutes of simulated time per line

USAGE = ("usage: sim.py [--players N] [--build NAME] [--root DIR] [--rules NAME,...]\n"
         "              [--script FILE [--status] [--state]]\n"
         "builds: " + " ".join(sorted(config.BUILDS)) + "\n"
         "house rules: " + " ".join(houserules.NAMES[:2]) + "\n             "
         + " ".join(houserules.NAMES[2:]))

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

        self.app = loop.make(key_pin, buses, dpin, build=self.build, pwm=pwm,
                             root=self.root, settings=settings)
        self.game = self.app.game
        self.panel = self.app.panel         # (make() names the build for the panel)
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
                self.timeline = apply_due(self.timeline, self.now)
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

    def picture(self, width=200, compact=False, n=None):
        """The first `n` displays (default: all) drawn with characters, labelled, as
        rows of text.

        OLEDs: half blocks (one text row per two pixel rows), or with `compact`
        quadrant blocks (2 x 2 pixels per character) so that more fit a terminal."""
        n = len(self.models) if n is None else n
        lines = []
        if self.seven() and compact:
            arts = []
            w = 0
            for m in self.models[:n]:
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
            arts = [m.art().split("\n") for m in self.models[:n]]
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
        """The final printout of scripted mode: the displays in play (seats()) as
        pictures, then one text line each."""
        n = self.seats()
        lines = self.picture(n=n)
        texts = self.texts()[:n]
        if self.seven():
            for i in range(len(texts)):
                lines.append('P%d: "%s"' % (i + 1, texts[i]))
        return lines

    def state(self):
        return record.state_json(self.game)

    def words(self):
        """The game in words, as a player would say it (tools/gamewords.py: the web
        page's status line says the same), and the power cuts."""
        import gamewords
        more = []
        if self.boots > 1:
            more.append("resumed after %d power cut%s" % (self.boots - 1,
                                                          "s" if self.boots > 2 else ""))
        return gamewords.status(self.game, self.panel, more)

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


def read_file(path):
    """The file's bytes (parse_script decodes them line by line)."""
    f = open(path, "rb")
    try:
        return f.read()
    finally:
        f.close()


def run_script(sim, text, state=False, out=None, status=False):
    lines = parse_script(text, sim)
    sim.play(lines)
    sim.run_to(sim.now + 100)
    w = out or sys.stdout
    for line in sim.report():
        w.write(line + "\n")
    if status:
        w.write(sim.words() + "\n")
    if state:
        w.write(sim.state() + "\n")


# ---- live mode: what fits the terminal -------------------------------------------
_BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def braille(px, step=1):
    """Pixel rows as braille text: 2 x 4 dots per character; with `step` 2 each dot
    stands for 2 x 2 pixels (lit when any of them is)."""
    h = len(px) // step
    w = len(px[0]) // step if px else 0

    def lit(x, y):
        if step == 1:
            return px[y][x]
        r0 = px[2 * y]
        r1 = px[2 * y + 1]
        return r0[2 * x] | r0[2 * x + 1] | r1[2 * x] | r1[2 * x + 1]

    out = []
    for y in range(0, h - 3, 4):
        line = []
        for x in range(0, w - 1, 2):
            n = 0
            for dy in range(4):
                bits = _BRAILLE_BITS[dy]
                if lit(x, y + dy):
                    n |= bits[0]
                if lit(x + 1, y + dy):
                    n |= bits[1]
            line.append(chr(0x2800 + n))
        out.append("".join(line))
    return out


def _digits(m):
    segs = m.segments()
    return segs if getattr(m, "on", True) else bytes(len(segs))


def _seven_big(m):
    return big7(_digits(m), color=False)[0]


def _seven_art(m):
    from fakedisplays import seg_art
    return seg_art(_digits(m)).split("\n")


def _seven_line(m):
    from fakedisplays import seg_text
    return ["[" + seg_text(_digits(m)) + "]"]


def _oled_half(m):
    return ["|" + r + "|" for r in m.art().split("\n")]


def _oled_quads(m):
    return ["|" + r + "|" for r in quads(m.pixels())]


def _oled_braille(m):
    return ["|" + r + "|" for r in braille(m.pixels())]


_WORDS = {}             # pixels -> (top, bottom): what read_oled read, for the redraws


def _oled_text_rows(px):
    """The OLED's small text lines, top and bottom, read from its pixels as words
    (fakedisplays.read_oled: the views' own fonts matched); None for a line that
    does not read as text."""
    key = b"".join([bytes(r) for r in px])
    got = _WORDS.get(key)
    if got is None:
        from fakedisplays import read_oled
        r = read_oled(px)
        got = tuple(None if "~" in t else t for t in (r["top"], r["bottom"]))
        if len(_WORDS) > 64:
            _WORDS.clear()
        _WORDS[key] = got
    return got


def _oled_braille2(m):
    """Half resolution: the big digits stay a picture; the small text lines,
    which braille at this size cannot draw legibly, are written as words."""
    px = m.pixels()
    rows = braille(px, 2)
    top, bottom = _oled_text_rows(px)
    w = len(rows[0])
    if top is not None:
        rows[0] = pad(top[:w], w)
    if bottom is not None:
        rows[-1] = pad(bottom[:w], w)
    return ["|" + r + "|" for r in rows]


# (name, draw, width and height of one display drawn, for d digits), largest first;
# a label line goes above each display, except in the one-line layout
SEVEN_LAYOUTS = (
    ("big", _seven_big, lambda d: 6 * d, 5),
    ("small", _seven_art, lambda d: 4 * d, 3),
    ("line", _seven_line, lambda d: d + 4, 1),
)
OLED_LAYOUTS = (
    ("half", _oled_half, lambda d: 130, 32),
    ("quads", _oled_quads, lambda d: 66, 32),
    ("braille", _oled_braille, lambda d: 66, 16),
    ("braille2", _oled_braille2, lambda d: 34, 8),
)
GAP = 3                 # columns between two displays side by side


def _cell(layout, digits):
    """(width, height) of one seat: the display and its label."""
    name, draw, wf, h = layout
    if name == "line":
        return 6 + wf(digits), 1            # "P1 ▶ [  12]"
    return max(wf(digits), 8), h + 1


def _per_row(n, cw, ch, width, height):
    """Seats per row to fit n cells in width x height (rows one blank line apart),
    the rows as even as possible; 0 when they do not fit."""
    most = min(n, (width + GAP) // (cw + GAP))
    if most < 1:
        return 0
    rows = (n + most - 1) // most
    if rows * ch + (rows - 1 if ch > 1 else 0) > height:
        return 0
    return (n + rows - 1) // rows


def wrap(text, width, most=99):
    """`text` cut into lines of at most `width` characters at spaces."""
    out = []
    words = text.split(" ")
    line = ""
    for w in words:
        while len(w) > width:
            if line:
                out.append(line)
                line = ""
            out.append(w[:width])
            w = w[width:]
        if not line:
            line = w
        elif len(line) + 1 + len(w) <= width:
            line += " " + w
        else:
            out.append(line)
            line = w
    if line:
        out.append(line)
    if len(out) > most:
        out = out[:most]
        out[-1] = out[-1][:width - 1] + "…"
    return out


def needed(n, layout, digits, footer, width, height):
    """The terminal size (columns, lines) nearest to width x height that the
    layout fits with n seats."""
    cw, ch = _cell(layout, digits)
    best = None
    for per in range(1, n + 1):
        rows = (n + per - 1) // per
        w = per * cw + (per - 1) * GAP
        h = rows * ch + (rows - 1 if ch > 1 else 0) + footer
        grow = max(0, w - width) + max(0, h - height)
        if best is None or grow < best[0]:
            best = (grow, (max(w, width), max(h, height)))
    return best[1]


HINT = "Enter: OK   u: UNDO   h: help, keys and codes   q: quit"
SHORT_HINT = "h: help   q: quit"


def frame(sim, width, height, hint=""):
    """The live screen: the displays in play, as large as they fit, the status,
    a line of hints. Returns (lines of at most `width` characters, at most `height`
    of them; the layout's name, "small terminal" when none fits; how many of the
    lines draw the displays). The status is wrapped whole, never cut: the
    displays take the room that is left."""
    n = sim.seats()
    seven = sim.seven()
    layouts = SEVEN_LAYOUTS if seven else OLED_LAYOUTS
    digits = len(sim.models[0].segments()) if seven else 0
    status = wrap(sim.status(), width)
    for layout in layouts:
        cw, ch = _cell(layout, digits)
        for h in ((hint,) if hint else (HINT, SHORT_HINT)):
            footer = status + wrap(h, width)
            per = _per_row(n, cw, ch, width, height - len(footer))
            if per:
                drawn = _draw(sim, layout, n, per, cw)
                return drawn + footer, layout[0], len(drawn)
    layout = layouts[-1]
    w, h = needed(n, layout, digits, len(status) + 1, width, height)
    msg = ("This terminal is %dx%d; %d %s display%s need at least %dx%d. Enlarge the "
           "window or make the font smaller. q quits."
           % (width, height, n, sim.build_name, "s" if n > 1 else "", w, h))
    return wrap(msg, max(10, width))[:max(1, height)], "small terminal", 0


def _draw(sim, layout, n, per, cw):
    name, draw, wf, h = layout
    g = sim.game
    lines = []
    for start in range(0, n, per):
        row = range(start, min(n, start + per))
        if name == "line":
            cells = []
            for i in row:
                mark = "▶" if i == g.shooter else " "
                cells.append(pad("P%d %s %s" % (i + 1, mark, draw(sim.models[i])[0]), cw))
            lines.append((" " * GAP).join(cells).rstrip())
            continue
        if lines:
            lines.append("")
        labels = []
        arts = []
        for i in row:
            label = "P%d" % (i + 1)
            if i == g.shooter:
                label += " ◀ at the table" if cw >= 18 else " ◀"
            labels.append(pad(label, cw))
            arts.append(draw(sim.models[i]))
        lines.append((" " * GAP).join(labels).rstrip())
        for r in range(h):
            lines.append((" " * GAP).join(pad(a[r], cw) for a in arts).rstrip())
    return lines


# ---- live mode: help ---------------------------------------------------------------
KEYS_HELP = (
    ("1 3 5", "ball pocketed; ! # % (shifted): ball jumped off the table"),
    ("c  v", "carom off 2 balls / off 3 balls"),
    ("Enter", "OK (or Space): the stroke as composed (twice for the 101st point)"),
    ("m  M", "MISS / no contact (a foul)"),
    ("f  F", "FOUL / no rail after the contact"),
    ("s  S", "SCRATCH (cue ball in a pocket) / cue ball off the table"),
    ("u  r", "UNDO / REDO (Backspace: undo)"),
    (". ,", "encoder turn (or arrows): pick a field, change a menu value"),
    ("/", "encoder push (or Tab, Down); ? holds it: set-up menu"),
    ("> < '", "second encoder, on builds that have one (\" holds its push)"),
    ("P", "power cut and restart (with --root: the game resumes)"),
    ("h", "the help: keys and display codes; q (or Ctrl-C) quits"),
)

def legend():
    """(code, meaning) rows of the codes on the 4- and 8-digit displays: the legend
    of docs/DISPLAYS.md (tools/displaylegend.py, drawn by the views' own code),
    without its Markdown marks."""
    import displaylegend
    return [(c, m.replace("`", "")) for c, m in displaylegend.entries()]


def help_keys(width):
    """The keys, one a line (wrapped to `width`): the help overlay's first part,
    and what --help prints."""
    lines = wrap("Keys (the keyboard is the panel):", width)
    for k, what in KEYS_HELP:
        for j, ln in enumerate(wrap(what, max(10, width - 8))):
            lines.append(pad(k if j == 0 else "", 7) + " " + ln)
    return lines


def help_lines(width):
    """The help overlay's text: the keys, then the legend, at most `width` wide."""
    lines = help_keys(width)
    lines.append("")
    lines += wrap("What the codes on the 4- and 8-digit displays mean (docs/DISPLAYS.md):",
                  width)
    rows = legend()
    w = max(len(c) for c, _ in rows) + 3
    for code, meaning in rows:
        for j, ln in enumerate(wrap(meaning, max(10, width - w))):
            lines.append(pad('"%s"' % code if j == 0 else "", w - 1) + " " + ln)
    return lines


def help_page(width, height, page):
    """One page of the help overlay: (lines, pages in all); the footer, wrapped,
    says how to turn the page and how to leave."""
    lines = help_lines(width)
    foot = len(wrap("help 10/10: h or Space: next page, another key: the game, q: quit",
                    width))
    per = max(1, height - foot)
    pages = (len(lines) + per - 1) // per
    page = page % pages
    body = [ln[:width] for ln in lines[page * per:(page + 1) * per]]
    body += wrap("help %d/%d: h or Space: next page, another key: the game, q: quit"
                 % (page + 1, pages), width)
    return body, pages


# ---- live mode: the terminal ------------------------------------------------------
class Terminal:
    """Raw keyboard input and full-screen redraws; restores the terminal on exit.
    The size comes from os.get_terminal_size (CPython) or, where there is none
    (micropython), from the terminal's answer to a cursor position request."""

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
        self.asked = None              # size reported by the terminal (micropython)
        self.write("\x1b[?25l\x1b[2J")

    def write(self, s):
        sys.stdout.write(s)
        if hasattr(sys.stdout, "flush"):
            sys.stdout.flush()

    def size(self):
        """(columns, lines) of the terminal now."""
        try:
            import os
            sz = os.get_terminal_size()
            if sz.columns > 0 and sz.lines > 0:
                return sz.columns, sz.lines
        except (ImportError, AttributeError, OSError, ValueError):
            pass
        return self.asked or (80, 24)

    def ask_size(self):
        """Ask the terminal its size where the interpreter cannot (the answer comes
        in with the keys): the cursor sent far right and down reports where it stops."""
        try:
            import os
            os.get_terminal_size
            return
        except (ImportError, AttributeError):
            pass
        self.write("\x1b7\x1b[999;999H\x1b[6n\x1b8")

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
            if s[i] == "\x1b" and i + 1 < len(s) and s[i + 1] == "[":
                j = i + 2
                while j < len(s) and s[j] in "0123456789;":
                    j += 1
                seq = s[i:j + 1]
                i = j + 1
                if seq.endswith("R") and ";" in seq:        # cursor position: the size
                    r, c = seq[2:-1].split(";")
                    if r.isdigit() and c.isdigit():
                        self.asked = (int(c), int(r))
                    continue
                out.append(seq)
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


def _show(k):
    if k == " ":
        return "Space"
    if len(k) == 1 and " " < k < "\x7f":
        return k
    return repr(k)


HINT_MS = 3000          # how long the hint about an unknown key stays


def live(sim):
    term = Terminal()
    clock = _clock()
    pending = []
    shown = None
    drawn_at = -1000
    asked_at = -10000
    helping = -1                       # help page shown, or -1
    hint = ""
    hint_until = 0
    try:
        while True:
            for k in term.keys(5):
                if k in ("q", "\x03", "\x04"):
                    return 0
                if helping >= 0:
                    helping = helping + 1 if k in ("h", " ") else -1
                    if helping >= help_page(*term.size(), 0)[1]:
                        helping = -1
                    drawn_at = -1000
                elif k in ("h", "H"):
                    helping = 0
                    drawn_at = -1000
                elif k == "P" and sim.root is not None:
                    pending = []
                    sim.power_cut()
                elif k in KEYMAP:
                    pending.append(KEYMAP[k])
                else:
                    hint = ("key %s does nothing: h shows the keys" % _show(k)
                            if k != "P" else "P (power cut) needs --root DIR")
                    hint_until = sim.now + HINT_MS
                    drawn_at = -1000
            while pending and sim.busy <= sim.now:
                name, long = pending.pop(0)
                if sim.known(name, long):
                    sim.key(name, long)
                else:
                    hint = "%s: this build has no %s" % (name, name.rstrip("+-"))
                    hint_until = sim.now + HINT_MS
            sim.run_to(clock())
            if sim.now - asked_at >= 1000:      # notice a resize within a second
                asked_at = sim.now
                term.ask_size()
            if sim.now - drawn_at < 50:
                continue                      # redraw at most 20 times a second
            drawn_at = sim.now
            width, height = term.size()
            if helping >= 0:
                lines, _ = help_page(width, height, helping)
            else:
                if hint and sim.now >= hint_until:
                    hint = ""
                lines, layout, body = frame(sim, width, height, hint)
                if sim.seven() and layout != "line":    # lit segments in red
                    for i in range(body):
                        if lines[i] and not lines[i].startswith("P"):
                            lines[i] = _RED + lines[i] + _OFF
            text = "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J"
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


def _is_dir(path):
    """True when `path` names a directory (os.stat under both interpreters)."""
    try:
        import os
        return os.stat(path)[0] & 0x4000 != 0
    except (ImportError, OSError):
        return False


def _make_root(path):
    """Create the folder `path` when it is missing (not its parents, as mkdir);
    "" when it is a folder now, else what is wrong."""
    if _is_dir(path):
        return ""
    import os
    try:
        os.stat(path)
        return "not a directory"
    except OSError:
        pass
    try:
        os.mkdir(path.rstrip("/"))
    except OSError:
        return "no such directory, and it cannot be created (does its parent exist?)"
    return ""


def _fail(message):
    sys.stderr.write("sim: %s\n%s\n" % (message, USAGE))
    return 2


def main(argv):
    players = None
    root = None
    build = "tm1637"
    script = None
    state = False
    status = False
    rules = 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--players", "--build", "--root", "--script", "--rules"):
            if i + 1 >= len(argv):
                return _fail("%s needs a value" % a)
            i += 1
            v = argv[i]
            if a == "--players":
                if not v.isdigit() or len(v) > 2 or not 2 <= int(v) <= 8:
                    return _fail("--players takes 2 to 8, not %r" % v)
                players = int(v)
            elif a == "--build":
                build = v
            elif a == "--rules":
                try:
                    rules = parse_rules(v)
                except RulesError as e:
                    return _fail(str(e))
            elif a == "--root":
                root = v
            else:
                script = v
        elif a == "--state":
            state = True
        elif a == "--status":
            status = True
        elif a in ("-h", "--help"):
            print(USAGE)
            print("\n".join(help_keys(79)))
            return 0
        else:
            return _fail("unknown argument %r" % a)
        i += 1
    if build not in config.BUILDS:
        return _fail("--build %s: no such build" % build)
    top = len(config.BUILDS[build]["displays"])
    if players is not None and players > top:
        return _fail("--players %d: the build %s has %d displays (players 2 to %d)"
                     % (players, build, top, top))
    if root is not None:
        err = _make_root(root)          # last: a bad argument leaves no new folder
        if err:
            return _fail("--root %s: %s" % (root, err))
        root = root.rstrip("/") + "/"
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
            run_script(sim, text, state, status=status)
            return 0
    except ScriptError as e:
        sys.stderr.write("sim: %s: %s\n" % (script or build, e))
        return 2
    return live(sim)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
