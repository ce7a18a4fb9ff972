"""The whole application end to end: key presses on fake pins, through debounce,
panel, rules core, journal and views, to what the fake display chips show.

Under micropython: a scripted game against tools/replay.py, a loop pass with the
heap locked on every build, and eight players inside a Pico-sized heap with the
firmware compiled to .mpy as `make build` puts it on the board. Under CPython: the
journal and the settings survive a restart of the application."""
import os
import subprocess
import sys

import pytest

from mpy import FAKES, MODELS, ROOT, TOOLS, check, needs_mpy_cross, run

DATA = os.path.join(ROOT, "host_tests", "data")


def test_scripted_game_under_micropython_matches_replay():
    res = check(script=os.path.join(TOOLS, "sim.py"),
                args=["--players", "3", "--script", os.path.join(DATA, "game2.keys"),
                      "--state"])
    want = subprocess.run([sys.executable, os.path.join(TOOLS, "replay.py"),
                           os.path.join(DATA, "game2.jsonl")], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert res.lines()[-1] == want
    assert '"winner": 1' in want


LOOP_CODE = r"""
import gc, sys
if sys.implementation.name == "micropython":
    import micropython
else:                            # CPython: the same run without the heap lock
    class micropython:
        def heap_lock():
            pass
        def heap_unlock():
            pass
from fakepins import Pin
from fakebuses import CountingI2C, CountingSPI, CountingPin
from board import config
from app import assemble
from app.settings import Settings
from cowboy import codes as C

build = config.BUILDS[sys.argv[1]]
buses = {}
for k in build["buses"]:
    buses[k] = CountingI2C() if build["buses"][k]["kind"] == "i2c" else CountingSPI()
s = Settings("/nonexistent/")
s.players = 8
# with a folder: the journal there (each action's answer is sent before its record)
root = sys.argv[2] + "/" if len(sys.argv) > 2 else None
app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), buses, lambda n: CountingPin(),
               build=build, settings=s, root=root)
app.start(0)
# Key lines (gpio, ms held): a score, OK, a foul, a long SCRATCH, UNDO, an encoder turn
P = config.PANEL
seq = (P["3"], 60, P["C2"], 60, P["OK"], 60, P["MISS"], 60, P["FOUL"], 60,
       P["SCRATCH"], 1000, P["UNDO"], 60, P["5"], 60, P["OK"], 60, -1, 60, P["UNDO"], 60)
A = Pin(config.ENCODER[1])
B = Pin(config.ENCODER[2])
pins = [Pin(seq[i]) if seq[i] >= 0 else None for i in range(0, len(seq), 2)]

def level(p, v):
    if v:
        p.release()
    else:
        p.drive(0)

def play(t0):
    t = t0
    for i in range(len(pins)):
        p = pins[i]
        hold = seq[2 * i + 1]
        for dt in range(hold + 140):
            if p is not None:
                if dt == 1:
                    p.drive(0)
                elif dt == hold:
                    p.release()
            elif dt < 20 and dt % 5 == 1:     # one detent clockwise: 2, 0, 1, 3
                s = (2, 0, 1, 3)[dt // 5]
                level(A, s & 1)
                level(B, s >> 1)
            app.step(t)
            t += 1
    return t

t = play(3000)          # warm-up
n = app.game.scores[0]
gc.collect()
micropython.heap_lock()
for r in range(3):
    t = play(t)
micropython.heap_unlock()
g = app.game
print("keys", app.panel.accepted, "scores", list(g.scores), "fouls", list(g.fouls),
      "shooter", g.shooter, "inning", g.inning, "field", app.panel.field)
print("LOCKED-OK")
"""


@pytest.mark.parametrize("build,journal", [("tm1637", False), ("max7219", False),
                                           ("ht16k33", False), ("oled8", False),
                                           ("oled4", True)])
def test_loop_pass_allocates_nothing(build, journal, tmp_path):
    """(journal: the actions journaled on the host's filesystem, so that passes
    that only send an action's answer, its record held, run too)"""
    folders = []
    if journal:
        for name in ("mpy", "cpython"):
            os.makedirs(str(tmp_path / name))
            folders.append([str(tmp_path / name)])
    else:
        folders = [[], []]
    res = check(code=LOOP_CODE, args=[build] + folders[0], timeout=120)
    lines = res.lines()
    assert lines[-1] == "LOCKED-OK", res.out
    if journal:
        assert os.path.getsize(str(tmp_path / "mpy" / "journal.tail")) > 0
    # CPython runs the same presses: the heap-locked run must end in the same state
    path = os.path.join(str(tmp_path), "loop.py")
    with open(path, "w") as f:
        f.write(LOOP_CODE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(    # TOOLS: micropython.const
        (FAKES, MODELS, os.path.join(ROOT, "firmware"), TOOLS)))
    ref = subprocess.run([sys.executable, path, build] + folders[1], capture_output=True,
                         text=True, env=env, check=True).stdout.splitlines()
    assert lines[-2] == ref[-2]
    # round 1: P1 banks 4, P2 fouls, P3's long scratch is undone, P3 scores 5 and
    # closes the field; rounds 2-4: P3, P5, P7 bank 4 + 5, P4, P6, P8 foul
    assert "scores [4, 0, 9, 0, 9, 0, 9, 0] fouls [0, 1, 0, 1, 0, 1, 0, 1]" in ref[-2]
    assert "field 0" in ref[-2]


PICO_CODE = r"""
import gc, sys
from fakepins import Pin
from fakebuses import CountingPin, CountingI2C, CountingSPI
from board import config
from app import assemble
from app.settings import Settings

build = config.BUILDS[BUILD]
s = Settings("/nonexistent/")
s.players = 8
buses = {"i2c0": CountingI2C(), "i2c1": CountingI2C(), "spi0": CountingSPI()}
app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), buses, lambda n: CountingPin(),
               build=build, settings=s)
app.start(0)
now = 0

def key(name, hold=60):
    global now
    p = Pin(config.PANEL[name])
    for dt in range(hold + 140):
        if dt == 1:
            p.drive(0)
        elif dt == hold:
            p.release()
        now += 1
        app.step(now)

# player n pockets balls worth n points (or fouls), then misses
PLAYS = (("3", "C2", "OK", "MISS"), ("5", "OK", "MISS"), ("FOUL",), ("1", "3", "OK", "MISS"),
         ("5", "C2", "OK", "MISS"), ("1", "5", "OK", "MISS"), ("MISS",), ("3", "5", "OK", "MISS"))
for keys in PLAYS:
    for k in keys:
        key(k)
key("SCRATCH", 1000)        # player 1 again: the cue ball off the table
for t in range(300):
    now += 1
    app.step(now)
gc.collect()
print("free", gc.mem_free())
print("|".join([bytes(t.buf).decode() for t in app.screens.shown]))
print(" ".join([str(app.game.scores[i]) for i in range(8)]), app.game.fouls[0], app.game.shooter)
"""


@needs_mpy_cross
@pytest.mark.parametrize("build", ["tm1637", "oled8"])
def test_eight_players_in_a_pico_heap(build, tmp_path):
    """The firmware as .mpy (as on the board) with 8 players in a 200K heap; the
    display wires go to allocation-free counting pins and buses (the decoding models
    are host-sized). oled8 is the largest build: eight OLEDs behind a multiplexer.
    This 64-bit build takes about twice the board's room for every pointer, so the
    heap here is a tight stand-in: the board's own figures come from the emulated
    Pico W (test_picow.py, 105 KB free with eight players on oled8). At 192K, the
    figure until 2026-12-02, oled8 ended with 13 KB free and the start-up's peak
    came within a few hundred bytes of the end."""
    import deploy                   # tools/ is on sys.path (conftest.py)
    out = str(tmp_path / "device")
    deploy.build(out)
    fakes = str(tmp_path / "fakes")
    os.mkdir(fakes)
    for name in ("fakepins", "fakebuses"):
        subprocess.run(deploy.mpy_cross() + ["-o", os.path.join(fakes, name + ".mpy"),
                                             os.path.join(MODELS, name + ".py")], check=True)
    code = 'BUILD = "%s"\n' % build + PICO_CODE
    # Run from the tree itself, so that modules are found by their short paths as
    # on the board ("app/loop.mpy"): each module keeps its path in the heap, and
    # a long temporary directory's would cost kilobytes the board never spends.
    res = run(code=code, heapsize="200K", path=("../../fakes", ".", ".."), timeout=120,
              cwd=os.path.join(out, deploy.LIB))
    assert res.status == 0, res.out + res.err
    lines = res.lines()
    assert lines[-1] == "4 5 0 4 6 6 0 8 1 1"       # scores, P1's fouls, P2 to shoot
    assert lines[-3].split()[0] == "free" and int(lines[-3].split()[1]) > 0
    if build != "tm1637":
        return
    shown = [t.replace(".", "")[:4] for t in lines[-2].split("|")]   # the text sent
    # 0.44 s after the last action every display is on its first page: the score
    # (P1's fouls and P2's cue ball in hand take turns with it from 1.2 s on)
    assert shown == ["   4", "   5", "   0", "   4", "   6", "   6", "   0", "   8"]
    assert "." in lines[-2].split("|")[1]       # P2 at the table: the points lit


def test_power_cut_resumes_game_and_settings(tmp_path):
    import simboard                 # tools/ is on sys.path (conftest.py)
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, "tm1637", root=root)
    text = "HOLD ENC\nENC+\nOK\n3\nC2\nOK\n5\nOK\nMISS\nFOUL\n1\nOK\nUNDO\nUNDO\n"
    s.play(simboard.parse_script(text, s))
    s.run_to(s.now + 2500)
    before = s.state()
    shown = s.texts()
    assert '"players": 3' in before and '"scores": [9, 0, 0]' in before
    assert shown[0] == "   9"
    s.power_cut()
    assert s.state() == before and s.panel.settings.players == 3
    s.run_to(s.now + 2500)                  # past the start-up wiring check
    assert s.texts() == shown
    s.play(simboard.parse_script("UNDO\nUNDO\n", s))     # the history came back too
    assert '"scores": [0, 0, 0]' in s.state() and '"inning": 4' in s.state()
    assert "resumed after 1 power cut" in s.status()


def test_resume_across_runs_under_micropython(tmp_path):
    root = str(tmp_path / "flash")
    os.mkdir(root)
    keys = tmp_path / "a.keys"
    keys.write_text("3\nC2\nOK\nMISS\nHOLD SCRATCH\n")
    wait = tmp_path / "b.keys"
    wait.write_text("WAIT 2500\n")
    sim = os.path.join(TOOLS, "sim.py")
    a = check(script=sim, args=["--root", root, "--players", "3", "--script", str(keys),
                                "--state"])
    b = check(script=sim, args=["--root", root, "--script", str(wait), "--state"])
    assert a.lines()[-1] == b.lines()[-1]
    assert '"scores": [4, 0, 0]' in a.lines()[-1] and '"fouls": [0, 1, 0]' in a.lines()[-1]


@pytest.mark.parametrize("name", ["tm1637", "max7219", "oled8"])
def test_board_factory_assembles_each_build(name, tmp_path, monkeypatch):
    """factory.py on the fake `machine` and `rp2` (PIO encoder on the emulator),
    keys on pin interrupts stamped by time.ticks_ms (here a simulated clock): the
    key is pressed and released between two passes of a loop stalled for 200 ms."""
    import time
    import rp2
    from board import config
    import factory
    from fakepins import Pin
    Pin.reset_all()
    rp2.PIO.reset_all()
    now = [0]
    monkeypatch.setattr(time, "ticks_ms", lambda: now[0], raising=False)
    monkeypatch.setattr(config, "BUILD", name)
    app = factory.make(root=str(tmp_path) + "/")
    app.start(0)
    k = Pin(config.PANEL["5"])
    for t in range(1, 400):
        now[0] = t
        if t == 110:
            k.drive(0)
        elif t == 180:
            k.release()
        if 100 <= t < 300:
            continue
        app.step(t)
    assert app.inputs.buttons.capturing
    assert app.panel.facts == 4 and app.panel.composing     # the 5 ball, composed
    assert app.inputs.names[:3] == ("1", "3", "5")
    assert len(app.screens.displays) == len(config.BUILDS[name]["displays"])
    assert os.path.exists(str(tmp_path / "journal.bin"))


@pytest.mark.parametrize("name", ["max7219", "oled4"])
def test_board_factory_gives_each_bus_the_pins_of_the_config(name):
    from board import config
    import factory
    from fakepins import Pin
    Pin.reset_all()
    build = config.BUILDS[name]
    buses = factory.buses(build)
    assert sorted(buses) == sorted(build["buses"])
    for bus_name, cfg in build["buses"].items():
        bus = buses[bus_name]
        assert bus.id == cfg["id"]
        pins = ("sck", "mosi", "miso") if cfg["kind"] == "spi" else ("sda", "scl")
        for p in pins:
            assert getattr(bus, p).id == cfg[p], (bus_name, p)


def test_statistics_are_the_same_after_a_power_cut(tmp_path):
    import simboard                 # tools/ is on sys.path (conftest.py)
    s = simboard.Sim(2, "tm1637", root=str(tmp_path) + "/")
    # P1 banks 4 then 5; P2 fouls three innings in a row and goes out: P1 wins
    text = "3\nC2\nOK\nMISS\nFOUL\n5\nOK\nMISS\nSCRATCH\nMISS\nHOLD MISS\n"
    s.play(simboard.parse_script(text, s))
    st = s.panel.stats
    before = (list(st.innings[:2]), list(st.best[:2]), list(st.points[:2]),
              list(st.fouls[:2]))
    assert before == ([3, 3], [5, 0], [9, 0], [0, 3])
    s.power_cut()
    s.run_to(s.now + 2500)
    st = s.panel.stats
    after = (list(st.innings[:2]), list(st.best[:2]), list(st.points[:2]),
             list(st.fouls[:2]))
    assert after == before and s.game.winner == 0
