"""The scoreboard on a terminal: the real application on fake hardware.

    python3 tools/sim.py [--players N] [--build NAME] [--root DIR]   live, keyboard = panel
    make sim PLAYERS=N BUILD=NAME ARGS="..."                    the same through make
    python3 tools/sim.py --players N --script FILE [--state]    scripted
    python3 tools/sim.py --rules NAME,... ...                   with house rules
    micropython tools/sim.py ...                                the same
    python3 tools/sim.py --hall hall.json [--root DIR] ...      a hall table (on the
    make table HALL=hall.json                                   host MicroPython)

The firmware runs unchanged: keys drive the fake GPIO pins of the panel (through
the real debounce and encoder decoding), the displays are device models that
decode the wire protocol, drawn with characters. Time is simulated in 1 ms
steps; live mode keeps it in step with the clock. docs/SIMULATOR.md has the key
map, the layouts that fit the terminal and the script format. With standard input
not a terminal and no --script, the bundled demo (tools/demo.keys) is played and
the displays printed.

This module is the front end: the keys, the help, the terminal, the command line.
The simulated board is tools/simboard.py; the displays drawn as characters and the
live screen's layout, tools/simscreen.py.
"""
import sys

import toolpaths

TOOLS = toolpaths.add("models", "../firmware")

from board import config  # noqa: E402
from cowboy import houserules  # noqa: E402
import options  # noqa: E402
import record  # noqa: E402
from simboard import Sim, ScriptError, parse_script, real_clock  # noqa: E402
from simscreen import RED, OFF, frame, pad, report, wrap  # noqa: E402

USAGE = ("usage: sim.py [--players N] [--build NAME] [--root DIR] [--rules NAME,...]\n"
         "              [--names NAME,...] [--hall FILE]\n"
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


# ---- command line: house rules and scripts --------------------------------------
class ArgumentError(Exception):
    """A command-line value that cannot be used (the message names why)."""


def parse_rules(text):
    """The house rules mask of "NAME,NAME,..." (an empty text: none)."""
    mask = 0
    for name in text.split(","):
        if not name:
            continue
        b = houserules.bit(name)
        if not b:
            raise ArgumentError("unknown house rule %r (house rules: %s)"
                             % (name, " ".join(houserules.NAMES)))
        mask |= b
    return mask


def read_file(path):
    """The file's bytes (parse_script decodes them line by line)."""
    f = open(path, "rb")
    try:
        return f.read()
    finally:
        f.close()


def run_script(sim, text, state=False, out=None, status=False):
    lines = parse_script(text, sim)
    if sim.hall is not None:            # a hall table plays in real time, then
        sim.play_real(lines)            # waits for the broker to have it all
        sim.run_real(100)
        sim.settle(SETTLE_MS)
    else:
        sim.play(lines)
        sim.run_to(sim.now + 100)
    w = out or sys.stdout
    for line in report(sim):
        w.write(line + "\n")
    if status:
        w.write(sim.words() + "\n")
    if state:
        w.write(sim.state() + "\n")


# ---- hall mode: a table on this computer (docs/HALL.md) ----------------------------
SETTLE_MS = 10000       # at the end of a script or on q: wait for the broker this long



def read_hall(path):
    """The text of a hall.json for --hall, checked as the board reads it (broker,
    hall, table, port; no Wi-Fi here), and the folder name of its table's flash,
    "<hall>-<table>". ArgumentError says what is wrong."""
    import json
    from app import hallmenu
    from views import hallui
    try:
        text = read_file(path).decode()
    except OSError as e:
        raise ArgumentError("cannot read it: " + toolpaths.why(e))
    except UnicodeError:
        raise ArgumentError("not UTF-8 text")
    try:
        d = json.loads(text)
    except ValueError:
        raise ArgumentError("not JSON")
    if type(d) is not dict:
        raise ArgumentError("not a JSON object (docs/HALL.md)")
    if type(d.get("broker")) is not str or not d["broker"]:
        raise ArgumentError('"broker" must be the broker\'s address')
    for key in ("hall", "table"):
        v = d.get(key)
        if type(v) is not str or not hallmenu.name_ok(v.encode()):
            raise ArgumentError('"%s" must be 1 to %d characters from a-z (not w, x), 0-9 and -'
                             % (key, hallui.MAX_NAME))
    port = d.get("port", 1883)
    if type(port) is not int or not 0 < port < 65536:
        raise ArgumentError('"port" must be a TCP port number')
    return text, "%s-%s" % (d["hall"], d["table"])


def _micropython(argv):
    """Run this command again under the host MicroPython (a hall table needs the
    board's asyncio)."""
    import os
    for exe in (os.path.join(os.path.dirname(sys.executable), "micropython"),
                os.path.join(TOOLS, "..", ".venv", "bin", "micropython")):
        if os.path.exists(exe):
            sys.stdout.flush()
            os.execv(exe, [exe, os.path.join(TOOLS, "sim.py")] + argv)
    return _fail("--hall runs the table under the host MicroPython, which is not installed "
                 "(make venv installs it where it has a wheel)")


def _make_dirs(path):
    """Create `path` and its missing parents (os.makedirs, which micropython lacks)."""
    import os
    done = ""
    for part in path.rstrip("/").split("/"):
        done += part + "/"
        if part and not _is_dir(done):
            try:
                os.mkdir(done.rstrip("/"))
            except OSError:
                pass


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
DRAIN_MS = 1000         # on quitting: how long an answer to a size request is waited for


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
        self.unanswered = 0            # size requests whose answer has not come in
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
        self.unanswered += 1

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
                    self.unanswered = max(0, self.unanswered - 1)
                    r, c = seq[2:-1].split(";")
                    if r.isdigit() and c.isdigit():
                        self.asked = (int(c), int(r))
                    continue
                out.append(seq)
            elif s[i] == "\x1b" and i + 2 < len(s) and s[i + 1] == "O":
                out.append(s[i:i + 3])          # F1-F4 on most terminals: ESC O P-S
                i += 3
            else:
                out.append(s[i])
                i += 1
        return out

    def restore(self):
        """The terminal as it was. An answer to a size request still on its way is
        read first (for at most DRAIN_MS; a terminal that never answered is not
        waited for): once the terminal echoes again it would land at the prompt."""
        clock = real_clock()
        while self.unanswered and self.asked is not None and clock() < DRAIN_MS:
            self.keys(10)
        self.write("\x1b[0m\x1b[?25h\r\n")
        self.termios.tcsetattr(0, self.termios.TCSANOW, self.saved)


# What the escape sequences of a terminal's keys stand for (xterm and the like):
# ESC [ or ESC O, then a letter, or a number and "~"; ";m" before it: the modifiers.
_LETTER = {"A": "Up", "B": "Down", "C": "Right", "D": "Left", "H": "Home", "F": "End",
           "P": "F1", "Q": "F2", "R": "F3", "S": "F4"}
_TILDE = {1: "Home", 2: "Insert", 3: "Delete", 4: "End", 5: "PageUp", 6: "PageDown",
          7: "Home", 8: "End", 11: "F1", 12: "F2", 13: "F3", 14: "F4", 15: "F5", 17: "F6",
          18: "F7", 19: "F8", 20: "F9", 21: "F10", 23: "F11", 24: "F12"}
_MODS = ("", "", "Shift+", "Alt+", "Shift+Alt+", "Ctrl+", "Shift+Ctrl+", "Alt+Ctrl+",
         "Shift+Alt+Ctrl+")


def _show(k):
    """A key by its name, for the hint about a key that does nothing: the character
    itself, Space, Esc, Ctrl-A, or what an escape sequence stands for (PageUp, F5,
    Ctrl+Up); an unknown sequence as its characters after Esc."""
    if k == " ":
        return "Space"
    if k == "\x1b":
        return "Esc"
    if len(k) == 1:
        return "Ctrl-" + chr(ord(k) + 64) if k < " " else k
    if k[:2] in ("\x1b[", "\x1bO"):
        parts = k[2:-1].split(";")
        mods = parts[1] if len(parts) == 2 else "1"
        if k[-1] == "~":
            name = _TILDE.get(int(parts[0]) if parts[0].isdigit() else 0)
        else:
            name = _LETTER.get(k[-1]) if parts[0] in ("", "1") else None
        if name and mods.isdigit() and int(mods) < len(_MODS):
            return _MODS[int(mods)] + name
    return "Esc " + k[1:]


HINT_MS = 3000          # how long the hint about an unknown key stays


def live(sim):
    term = Terminal()
    clock = real_clock()
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
                    if sim.hall is not None:        # what the broker lacks, first
                        term.write("\x1b[H\x1b[2JSending what the broker lacks...")
                        sim.settle(SETTLE_MS)
                        sim.hall.close()
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
                            lines[i] = RED + lines[i] + OFF
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


# ---- one simulator a --root folder ------------------------------------------------
LOCK = "sim.lock"       # a folder in --root while a simulator uses it; its file pid


def _read(path):
    """The text of a file, or None when it cannot be read."""
    try:
        f = open(path)
    except OSError:
        return None
    try:
        return f.read()
    except (OSError, UnicodeError):
        return None
    finally:
        f.close()


def _pid():
    """This process's id, or None (micropython's os has no getpid: /proc/self)."""
    import os
    if hasattr(os, "getpid"):
        return os.getpid()
    text = _read("/proc/self/stat")
    return int(text.split()[0]) if text else None


def _alive(pid):
    """Whether process `pid` still runs a simulator: a pid a crashed one left, or
    one the system has given to another program since, is not."""
    import os
    cmd = _read("/proc/%d/cmdline" % pid)
    if cmd is not None:
        return "sim.py" in cmd
    if _is_dir("/proc/self"):               # a /proc without that process
        return False
    if hasattr(os, "kill"):
        try:
            os.kill(pid, 0)
        except OSError as e:
            return e.args[0] == 1           # EPERM: someone else's, running
        return True
    return os.system("kill -0 %d 2>/dev/null" % pid) == 0


def _lock(root):
    """Claim the --root folder for this simulator: "" when it is ours now, else
    why not. mkdir is the claim (it fails when the folder exists, under both
    interpreters); the pid in it lets the next one see a simulator gone."""
    import os
    path = root + LOCK
    for _ in range(2):
        try:
            os.mkdir(path)
        except OSError:
            text = _read(path + "/pid")
            pid = int(text) if text and text.strip().isdigit() else None
            if pid is None:
                return "in use by another simulator, starting (or remove %s)" % path
            if _alive(pid):
                return "in use by another simulator (process %d): quit that one first" % pid
            for gone in (os.remove, os.rmdir):      # left by one that is gone
                try:
                    gone(path + "/pid" if gone is os.remove else path)
                except OSError:
                    pass
            continue
        pid = _pid()
        if pid is None:                 # no /proc: the shell's parent is this process
            os.system("echo $PPID > '%s'" % (path + "/pid").replace("'", "'\\''"))
        else:
            f = open(path + "/pid", "w")
            f.write("%d\n" % pid)
            f.close()
        return ""
    return "in use by another simulator"


def _unlock(root):
    import os
    for gone, what in ((os.remove, root + LOCK + "/pid"), (os.rmdir, root + LOCK)):
        try:
            gone(what)
        except OSError:
            pass


def _fail(message):
    return options.fail("sim", message)


def _help():
    return USAGE + "\n" + "\n".join(help_keys(79))


def main(argv):
    got = options.parse(argv, "sim", _help, flags=("--state", "--status"),
                        values=("--players", "--build", "--root", "--script", "--rules",
                                "--names", "--hall"))
    if type(got) is int:
        return got
    opts, args = got
    players = opts.get("--players")
    if players is not None:
        if not players.isdigit() or len(players) > 2 or not 2 <= int(players) <= 8:
            return _fail("--players takes 2 to 8, not %r" % players)
        players = int(players)
    build = opts.get("--build", "tm1637")
    rules = 0
    if "--rules" in opts:
        try:
            rules = parse_rules(opts["--rules"])
        except ArgumentError as e:
            return _fail(str(e))
    root, script, names, hall = (opts.get(k) for k in ("--root", "--script", "--names",
                                                         "--hall"))
    state, status = "--state" in opts, "--status" in opts
    if build not in config.BUILDS:
        return _fail("--build %s: no such build" % build)
    top = len(config.BUILDS[build]["displays"])
    if players is not None and players > top:
        return _fail("--players %d: the build %s has %d displays (players 2 to %d)"
                     % (players, build, top, top))
    if args:                            # (after the values: --build --script names --build)
        return _fail("unknown argument %r" % args[0])
    if names is not None:
        given = len(names.split(",")) if names.strip(" ") else 0
        if players is None and given > top:
            return _fail("--names: %d names, and the build %s has %d displays (players 2 to %d)"
                         % (given, build, top, top))
        names, why = record.typed_names(names, players or top)
        if why is not None:
            return _fail("--names: " + why)
        if players is None and len(names) > 2:
            players = len(names)        # the names say how many play
    hall_text = None
    if hall is not None:
        try:
            hall_text, flash = read_hall(hall)
        except ArgumentError as e:
            return _fail("--hall %s: %s" % (hall, e))
        if sys.implementation.name != "micropython":
            return _micropython(argv)
        if root is None:                # the table's flash, kept between runs
            root = TOOLS + "/../build/tables/" + flash
            _make_dirs(TOOLS + "/../build/tables")
    if root is not None:
        err = _make_root(root)          # last: a bad argument leaves no new folder
        if err:
            return _fail("--root %s: %s" % (root, err))
        root = root.rstrip("/") + "/"
    if root is not None:
        err = _lock(root)
        if err:
            return _fail("--root %s: %s" % (root.rstrip("/"), err))
        try:
            return _run(players, build, root, rules, names, hall_text, script, state, status)
        finally:
            _unlock(root)
    return _run(players, build, root, rules, names, hall_text, script, state, status)


def _run(players, build, root, rules, names, hall_text, script, state, status):
    """The simulator, once the arguments are checked (and --root is ours)."""
    if hall_text is not None:
        f = open(root + "hall.json", "w")   # as make deploy HALL= puts it on a board
        f.write(hall_text)
        f.close()
    if players is None and root is None:
        players = 2
    try:
        sim = Sim(players, build, root, rules, names)
        if hall_text is not None:
            sim.join_hall()
        if script is None and not _isatty():
            script = TOOLS + "/demo.keys"
        if script is not None:
            try:
                text = read_file(script)
            except OSError as e:
                sys.stderr.write("sim: cannot read %s: %s\n" % (script, toolpaths.why(e)))
                return 2
            run_script(sim, text, state, status=status)
            return 0
    except ScriptError as e:
        sys.stderr.write("sim: %s: %s\n" % (script or build, e))
        return 2
    return live(sim)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
