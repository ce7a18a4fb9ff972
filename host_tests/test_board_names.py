"""The players' names on the board (docs/PANEL.md "Players' names",
docs/JOURNAL.md "Names"): journal.names beside the journal under power cuts, moved
with its game into games/, the set-up menu's editor on each display kind, undo
and redo leaving names alone, the export's headers, `sim.py --names`, the hall's
state and record again after a correction, the archive replacing a record whose
names changed, keys with the heap locked."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

import simboard
from app import playernames
from app import nameedit
from cowboy import recordtext
from views import ui
from views import hallui
from fakedisplays import read_oled
from mpy import (FAKES, FIRMWARE, MICROPYTHON, MODELS, check, needs_micropython,
                 needs_mpy_cross)

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(HERE), "tools")
TO_NAMES = ["HOLD ENC"] + ["ENC"] * 8    # players, opener, brightness, 4 rules, build


def keys(s, *lines):
    s.play(simboard.parse_script("\n".join(lines), s))
    s.run_to(s.now + 30)


def seen(s, seat=0):
    m = s.models[seat]
    return read_oled(m.pixels()) if hasattr(m, "pixels") else m.text()


def names_file(root):
    p = root + "journal.names"
    return open(p, "rb").read() if os.path.exists(p) else None


def board(tmp_path, players=2, build="tm1637", names=None):
    tmp_path.mkdir(exist_ok=True)
    return simboard.Sim(players, build, root=str(tmp_path) + "/", names=names)


# ---- the names file -------------------------------------------------------------

def test_header_names_fill_seats_without_one_and_read_back_empty():
    names = [b"anna", b"", "Zoë".encode()] + [b""] * 5
    lst = playernames.header_names(names, 3)
    assert lst == ["anna", "Player 2", "Zoë"]
    assert playernames.seat_names(lst) == names
    assert playernames.header_names([b""] * 8, 3) is None
    assert playernames.fingerprint(None) == 0
    assert playernames.fingerprint(lst) != playernames.fingerprint(["anna", "Player 2", "Zoe"])
    assert 0 < playernames.fingerprint(lst) < 2 ** 30
    with pytest.raises(ValueError, match="name 2 ends with a space"):
        playernames.given(["Anna", "Ben "])


def run_lfs(what):
    if not os.path.exists(MICROPYTHON):
        pytest.skip("needs the host micropython")
    out = check(script=os.path.join(HERE, "lfs_names.py"), args=(what,), heapsize="4M",
                path=(FAKES, MODELS, FIRMWARE, HERE)).lines()
    assert not any(ln.startswith("BAD") for ln in out), out
    return [int(x) for x in out[-1].split()[1:]]


def test_power_cut_while_names_are_replaced_leaves_old_or_new():
    ops, old, new = run_lfs("save")
    assert ops > 0 and old >= 1 and new >= 1 and old + new == ops + 1


def test_power_cut_while_a_game_is_archived_keeps_its_names_with_it():
    ops, kept, moved = run_lfs("archive")
    assert ops > 0 and kept >= 1 and moved >= 1 and kept + moved == ops


def test_power_cut_while_the_oldest_game_is_pruned_leaves_no_names_behind():
    ops, = run_lfs("prune")
    assert ops > 0


def test_names_move_into_games_with_their_game_and_go_with_pruning(tmp_path):
    s = board(tmp_path, names=["anna", "ben"])
    root = s.root
    keys(s, "MISS")
    assert names_file(root) == b"anna\nben\n"
    keys(s, "HOLD ENC", "OK")                   # a new game: the old one archived
    assert open(root + "games/000001.names", "rb").read() == b"anna\nben\n"
    assert os.path.exists(root + "games/000001.part")
    # the new game keeps the names on show (the same players)
    assert names_file(root) == b"anna\nben\n"
    from app import journal
    for i in range(journal.KEEP_OTHER + 1):          # abandoned games: the oldest pruned
        keys(s, "MISS", "HOLD ENC", "OK")
    left = sorted(os.listdir(root + "games"))
    assert "000001.part" not in left and "000001.names" not in left
    assert sum(n.endswith(".part") for n in left) == journal.KEEP_OTHER
    assert sum(n.endswith(".names") for n in left) == journal.KEEP_OTHER


def test_a_names_file_whose_game_is_gone_goes_at_the_next_archive(tmp_path):
    s = board(tmp_path, names=["anna", "ben"])
    root = s.root
    keys(s, "MISS", "HOLD ENC", "OK")
    os.remove(root + "games/000001.part")       # as a cut inside an older pruning left it
    keys(s, "MISS", "HOLD ENC", "OK")
    assert sorted(os.listdir(root + "games")) == ["000002.names", "000002.part"]


def test_a_names_file_left_without_its_journal_goes_to_the_newest_game(tmp_path):
    root = str(tmp_path) + "/"
    os.mkdir(root + "games")
    open(root + "games/000004.jnl", "wb").write(b"x")
    open(root + "journal.names", "wb").write(b"a\nb\n")
    s = simboard.Sim(2, "tm1637", root=root)
    assert open(root + "games/000004.names", "rb").read() == b"a\nb\n"
    assert names_file(root) is None and s.panel.names == [b""] * 8


# ---- the set-up menu -----------------------------------------------------------

def test_the_editor_has_the_hall_names_characters():
    from app import hallmenu
    assert [c for c in range(256) if hallmenu.name_ok(bytes([c]))] == sorted(nameedit.CHARS)
    assert hallmenu.name_ok(nameedit.CHARS[:hallui.MAX_NAME])
    assert not hallmenu.name_ok(nameedit.CHARS[:hallui.MAX_NAME + 1])
    assert b"w" not in nameedit.CHARS and b"x" not in nameedit.CHARS
    from cowboy import names as namerules
    for c in nameedit.CHARS:
        assert namerules.check_name(chr(c) * nameedit.MAX) is None


def test_editing_a_name_on_four_digits(tmp_path):
    s = board(tmp_path, players=3)
    keys(s, *TO_NAMES)
    assert s.panel.menu_item == ui.MENU_NAMES
    assert [seen(s, i) for i in range(3)] == ["n.-- ", "P  2", "P  3"]
    keys(s, "ENC+")                             # seat 2 picked
    assert [seen(s, i) for i in range(3)] == ["P  1", "n.-- ", "P  3"]
    keys(s, "OK")                               # the editor, on the end mark
    assert seen(s, 1) == "_.   "                # the cursor on the end mark
    keys(s, "ENC+", "ENC")                      # a
    keys(s, "ENC+", "ENC+", "ENC")              # b
    keys(s, "ENC")                              # the end mark: saved
    assert s.panel.names[1] == b"ab" and s.panel.editor.cursor < 0
    assert names_file(s.root) is None           # saved when the menu is left
    keys(s, "UNDO")
    assert s.panel.mode == ui.MODE_GAME
    assert names_file(s.root) == b"Player 1\nab\nPlayer 3\n"
    keys(s, *TO_NAMES, "ENC+")
    assert seen(s, 1) == "n.Ab "       # (seven segments: a capital A)
    keys(s, "OK", "ENC-", "UNDO")               # edited, then left unchanged
    assert s.panel.names[1] == b"ab"
    keys(s, "OK", "ENC-", "ENC")                # cut at the first character: no name
    assert s.panel.names[1] == b""
    keys(s, "UNDO")
    assert names_file(s.root) is None


def test_the_names_item_on_eight_digits_and_oled(tmp_path):
    s = board(tmp_path / "a", build="max7219", names=["Anna", "Zoë"])
    keys(s, *TO_NAMES)
    assert seen(s, 0) == "n.AnnA   " and seen(s, 1) == "2o-     "     # (z reads as 2)
    keys(s, "ENC+", "OK")                       # Zoë: the editor keeps z, o
    e = s.panel.editor
    assert e.chars[:e.length] == b"zo" and e.limit == nameedit.MAX
    o = board(tmp_path / "b", build="oled8", names=["Anna", "Zoë"])
    keys(o, *TO_NAMES)
    assert seen(o, 0)["bottom"] == "NAME: ANNA" and seen(o, 0)["big"] == "1"
    assert seen(o, 1)["bottom"] == "NAME: ZO?" and seen(o, 1)["big"] == "2"
    keys(o, "OK")                               # the editor: the cursor on the first
    ed = seen(o, 0)
    assert ed["top"].startswith("NAME 1") and ed["top"].endswith("1/16")
    assert ed["big"] == "1" and ed["bottom"] in ("ANNA", "*NNA")


def test_the_menu_still_walks_to_start(tmp_path):
    s = board(tmp_path)
    keys(s, *TO_NAMES, "ENC")
    assert s.panel.menu_item == ui.MENU_START


def test_undo_and_redo_never_touch_names(tmp_path):
    s = board(tmp_path, names=["anna", "ben"])
    keys(s, "3", "OK", "MISS", "5", "OK")
    before = list(s.panel.names)
    keys(s, "UNDO", "UNDO", "UNDO", "REDO", "REDO")
    assert s.panel.names == before
    assert names_file(s.root) == b"anna\nben\n"
    s.power_cut()
    assert s.panel.names == before and s.game.position() == 2


def test_a_correction_survives_a_power_cut(tmp_path):
    s = board(tmp_path, names=["anna", "ben"])
    keys(s, "MISS", *TO_NAMES, "OK", "ENC", "ENC", "ENC", "ENC", "ENC+", "ENC", "ENC", "UNDO")
    assert s.panel.names[0] == b"annaa"
    s.power_cut()
    assert s.panel.names[:2] == [b"annaa", b"ben"]
    assert json.loads(s.state())["names"] == ["annaa", "ben"]


def test_start_game_gives_names_and_refuses_bad_ones(tmp_path):
    s = board(tmp_path, players=2)
    keys(s, "MISS")
    with pytest.raises(ValueError):
        s.app.start_offer(3, 0, 0, ["Anna", " Ben", "C"])
    assert s.game.position() == 1               # nothing changed
    assert s.app.start_offer(9, 0, 0, None) != 0
    assert s.app.start_offer(3, 1, 0, ["Anna", "Ben", "李小龙"]) == 0
    s.run_to(s.now + 50)
    assert s.game.players == 3 and s.game.opener == 1 and s.game.position() == 0
    assert names_file(s.root) == "Anna\nBen\n李小龙\n".encode()
    assert os.path.exists(s.root + "games/000001.part")
    assert not os.path.exists(s.root + "games/000001.names")


# ---- export and the simulator ----------------------------------------------------

def test_sim_names_good_and_bad(tmp_path):
    script = tmp_path / "k"
    script.write_text("MISS\n")
    sim = [sys.executable, os.path.join(TOOLS, "sim.py"), "--script", str(script)]
    res = subprocess.run(sim + ["--players", "3", "--names", "Anna,Ben K,Zoë", "--state"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    state = json.loads(res.stdout.splitlines()[-1])
    assert state["names"] == ["Anna", "Ben K", "Zoë"]
    for bad, why in (("Anna,Ben\u00a0", "name 2 ends with a no-break space (U+00A0)"),
                     ("A,B,C", "3 names for 2 players"),
                     ("A" * 17 + ",B", "name 1 is longer than 16 characters")):
        res = subprocess.run(sim + ["--players", "2", "--names", bad],
                             capture_output=True, text=True)
        assert res.returncode == 2 and why in res.stderr, res.stderr


@needs_micropython
def test_sim_names_say_the_same_under_both_interpreters(tmp_path):
    """Nothing but the game on either: MicroPython warns when a str meets bytes in
    a comparison (CPython does not), and a warning is output CPython never gives."""
    script = tmp_path / "k"
    script.write_text("MISS\n3\nC2\nOK\n")
    args = ["--script", str(script), "--players", "3", "--names", "Anna,,Zoë", "--state"]
    cpy = subprocess.run([sys.executable, os.path.join(TOOLS, "sim.py")] + args,
                         capture_output=True, text=True)
    mpy = subprocess.run([MICROPYTHON, os.path.join(TOOLS, "sim.py")] + args,
                         capture_output=True, text=True)
    assert (cpy.returncode, cpy.stderr) == (0, "")
    assert (mpy.returncode, mpy.stderr, mpy.stdout) == (0, "", cpy.stdout)
    assert json.loads(cpy.stdout.splitlines()[-1])["names"] == ["Anna", "Player 2", "Zoë"]


@needs_mpy_cross
def test_export_puts_the_names_in_the_headers(tmp_path):
    from test_deploy import FAKE, DEPLOY  # noqa: F401
    board_dir = tmp_path / "board"
    board_dir.mkdir()
    s = simboard.Sim(2, "tm1637", root=str(board_dir) + "/", names=["Anna", "Zoë"])
    keys(s, "MISS", "HOLD ENC", "OK", "MISS")
    s.panel.set_names(["Anna", "Bo"])
    s.run_to(s.now + 50)
    s.app.journal.close()
    env = dict(os.environ, MPREMOTE=FAKE, FAKE_BOARD=str(board_dir),
               DEVICE_BUILD=str(tmp_path / "device"))
    out = tmp_path / "export"
    res = subprocess.run([sys.executable, DEPLOY, "export", "--out", str(out)],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    cur = json.loads((out / "current.jsonl").read_text().splitlines()[0])
    old = json.loads((out / "000001-part.jsonl").read_text().splitlines()[0])
    assert cur["names"] == ["Anna", "Bo"] and old["names"] == ["Anna", "Zoë"]


# ---- the hall: a correction after the end ----------------------------------------

def test_a_correction_after_the_end_sends_state_and_record_again(tmp_path):
    import test_hall_menu
    test_hall_menu.Client.up, test_hall_menu.Client.made, test_hall_menu.Client.log = True, [], []
    s = test_hall_menu.board(tmp_path)
    s.panel.set_names(["anna", "ben"])
    test_hall_menu.keys(s, "FOUL", "FOUL", "FOUL", "FOUL", "FOUL")      # P1 out on three fouls

    def records():
        return [e[2] for e in test_hall_menu.Client.log if e[1].endswith("/game")]
    test_hall_menu.until(s, lambda: len(records()) == 1 and s.hall.caught_up())
    head = json.loads(bytes(records()[0]).decode().splitlines()[1])
    assert head["names"] == ["anna", "ben"] and s.game.winner == 1
    keys(s, "HOLD ENC", *["ENC"] * 11, "OK", "ENC+", "ENC", "ENC", "ENC", "ENC", "ENC", "UNDO")
    assert s.panel.names[0] == b"bnna"          # corrected after the end, in the menu
    test_hall_menu.until(s, lambda: len(records()) == 2 and s.hall.caught_up())
    text = bytes(records()[1]).decode()
    assert json.loads(text.splitlines()[1])["names"] == ["bnna", "ben"]
    assert text.splitlines()[2:] == bytes(records()[0]).decode().splitlines()[2:]
    states = [json.loads(e[2]) for e in test_hall_menu.Client.log if e[1].endswith("/state")]
    assert states[-1]["names"] == ["bnna", "ben"]
    ack = open(s.root + "hall.ack").read().split()
    assert len(ack) == 5 and int(ack[4]) == playernames.fingerprint(["bnna", "ben"])
    # a reboot does not send it again: the acknowledged record's key is kept
    s.hall.close()
    test_hall_menu.Client.log = []
    s.power_cut()
    s.hall = test_hall_menu.attach(s.app, s.root, client=test_hall_menu.Client)
    test_hall_menu.until(s, lambda: s.hall.caught_up())
    assert records() == []


def test_the_archive_replaces_a_record_whose_names_changed(tmp_path):
    sys.path.insert(0, TOOLS)
    import hall_archive
    lines = ['{"players": 2, "opener": 1, "names": ["anna", "ben"]}'] + \
        ['{"shot": {"foul": true}}'] * 5
    first = "# game 3\n" + "\n".join(lines) + "\n"
    fixed = first.replace('"anna"', '"bnna"')
    a = hall_archive.Archive(str(tmp_path / "hall.db"))
    t0 = (2026, 1, 9, 21, 0, 0, 4, 9, -1)
    assert a.add("club", "t01", first, now=t0) == "new"
    assert a.add("club", "t01", first) == "same"
    assert a.add("club", "t01", fixed, now=(2026, 1, 10, 14, 0, 0, 5, 10, -1)) == "names"
    assert a.add("club", "t01", fixed) == "same"
    rows = a.rows()
    assert len(rows) == 1 and rows[0][5] == fixed
    assert rows[0][3] == "2026-01-09"           # the game keeps its night
    assert json.loads(rows[0][6])["names"] == ["bnna", "ben"]
    shorter = "# game 3\n" + "\n".join(lines[:-1]) + "\n"
    with pytest.raises(hall_archive.ArchiveError):
        a.add("club", "t01", shorter)           # (a game not over: refused anyway)


HEAP_CODE = r"""
import micropython, gc
from array import array
from cowboy.game import Game
from app.keys import KEYS
from app.panel import Panel, PRESS, RELEASE, LONG, CW, CCW
from app.settings import Settings

seq = []
def keys(*names):
    for n in names:
        if n == "ENC+":
            seq.append(CW << 8)
        elif n == "ENC-":
            seq.append(CCW << 8)
        else:
            long = n.startswith("HOLD ")
            k = KEYS.index(n[5:] if long else n)
            seq.append(PRESS << 8 | k)
            if long:
                seq.append(LONG << 8 | k)
            seq.append(RELEASE << 8 | k)

keys("3", "OK", "MISS", "5", "C2", "OK", "UNDO", "REDO", "FOUL")
# the names item: seats picked, the editor opened, characters turned, left unsaved
keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC", "ENC")
keys("ENC+", "ENC+", "ENC-", "OK", "ENC+", "ENC", "ENC-", "ENC-", "ENC", "ENC+", "UNDO")
keys("OK", "ENC", "ENC", "UNDO", "HOLD ENC", "MISS", "UNDO", "UNDO")
events = array("i", seq)
game = Game()
panel = Panel(game, Settings())
panel.set_names(["Anna", "Zoë", "李小龙"])
panel.start(0)
def play(t):
    for i in range(len(events)):
        panel.event(events[i], t)
        panel.tick(t)
        t += 50
    return t
t = play(0)
names = list(panel.names)
first = panel.accepted
r = 0                   # (a global made under the lock could grow the globals' table)
gc.collect()
micropython.heap_lock()
for r in range(5):
    t = play(t)
micropython.heap_unlock()
print("ACCEPTED", first, panel.accepted)
print("NAMES-SAME", panel.names == names, panel.names[2].decode())
import sys
print("HALL-MODULES", [m for m in ("app.hallmenu", "views.hallui", "views.hall") if m in sys.modules])
print("HEAP-LOCK-OK", len(events))
"""


def test_keys_and_the_names_editor_allocate_nothing_with_names_present():
    if not os.path.exists(MICROPYTHON):
        pytest.skip("needs the host micropython")
    res = check(code=HEAP_CODE, heapsize="192K")
    lines = res.lines()
    assert lines[-1].startswith("HEAP-LOCK-OK"), res.out
    assert lines[-3] == "NAMES-SAME True 李小龙", res.out
    assert lines[-2] == "HALL-MODULES []", res.out     # a plain Pico's editor loads none
    label, first, total = lines[-4].split()
    assert label == "ACCEPTED" and int(first) > 0
    assert int(total) == 6 * int(first), res.out    # each locked round as the first


def test_the_start_up_lasts_a_page_longer_when_a_seat_has_a_name(tmp_path):
    """A named seat shows its name as a start-up page of its own (views/seat.py):
    the panel waits for it, so the last page (here a house rule) is not cut short."""
    from app.panel import Panel
    from app.settings import Settings
    from cowboy.game import Game
    from views import ui
    lengths = []
    for names in (None, ["Anna", "Ben"]):
        s = Settings(str(tmp_path) + "/")
        s.rules = 1
        p = Panel(Game(), s)
        if names:
            p.set_names(names)
        p.start(0)
        lengths.append(p.hello_ms)
    assert lengths[1] == lengths[0] + ui.PAGE_MS
