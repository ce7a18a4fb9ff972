"""tools/sim.py: scripted mode under CPython and micropython, its errors, the demo
when standard input is not a terminal, and live mode on a pseudo-terminal."""
import os
import select
import subprocess
import sys
import time

import pytest

from mpy import ROOT, TOOLS, run

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
    assert shown[1] in ("   4", "F  1")       # player 1 at the table: score / one foul
    assert all(shown[i].strip() == "" for i in range(3, 9))


def test_hold_scratch_is_cue_off_through_the_debounce(tmp_path):
    res = sim_py("--script", write(tmp_path, "MISS\nHOLD SCRATCH\n"), "--state")
    state = res.stdout.splitlines()[-1]
    assert '"fouls": [0, 1]' in state and '"cue_in_hand": true' in state


def test_short_scratch_is_a_plain_scratch(tmp_path):
    res = sim_py("--script", write(tmp_path, "MISS\n3\nSCRATCH\n"), "--state")
    assert '"fouls": [0, 1]' in res.stdout.splitlines()[-1]
    # the 3 ball was pocketed, the inning lost: nothing banked
    assert '"scores": [0, 0]' in res.stdout.splitlines()[-1]


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
    assert len(texts(res.stdout)) == 8


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


def _live(interpreter, keys):
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        env = dict(os.environ)
        os.execve(interpreter, [interpreter, SIM, "--players", "2"], env)
    out = b""

    def pump(seconds):
        nonlocal out
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return

    pump(0.8)
    for k in keys:
        os.write(fd, k)
        pump(0.35)
    pump(0.5)
    os.write(fd, b"q")
    pump(1.0)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return status, out.decode("utf-8", "replace")


@pytest.mark.parametrize("interp", ["python", "micropython"])
def test_live_mode_on_a_terminal(interp):
    exe = PY if interp == "python" else os.path.join(os.path.dirname(PY), "micropython")
    status, out = _live(exe, [b"5", b"\r", b"m"])
    assert status == 0
    assert "\x1b[?25l" in out and out.rstrip().endswith("\x1b[?25h")   # cursor back
    last = out[out.rfind("\x1b[H"):]
    # player 1 banked 5: its 4-digit display draws a 5 in the last digit: segments
    # a, f, g, c, d lit, b and e dark
    rows = [r.replace("\x1b[1;31m", "").replace("\x1b[0m", "").replace("\x1b[K", "")
            for r in last.split("\r\n")[1:6]]
    digit = [r[18:23] for r in rows]
    assert digit == [" ━━━ ", "┃    ", " ━━━ ", "    ┃", " ━━━ "], rows
    assert "keys:" in last


def test_keyboard_reaches_every_panel_key_short_and_long():
    import sim                      # tools/ is on sys.path (conftest.py)
    from app.panel import KEYS, LONG_KEYS
    reach = set(sim.KEYMAP.values())
    for i, name in enumerate(KEYS):
        assert (name, False) in reach
        if LONG_KEYS >> i & 1:
            assert (name, True) in reach, name
    assert ("ENC+", False) in reach and ("ENC-", False) in reach
    doc = open(os.path.join(ROOT, "docs", "SIMULATOR.md")).read()
    for ch in ("`!` `#` `%`", "`M`", "`F`", "`S`", "`?`"):
        assert ch in doc


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
