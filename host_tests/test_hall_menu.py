"""Hall mode in the set-up menu: the connection state and the hall and table names,
edited with the encoder, on each kind of display (read back from the fake devices),
saved in hall.json and published under at once (net/hall.py with a recording
client in place of the MQTT client; test_hall.py does it against Mosquitto)."""
import json
import os
import time

import pytest

import fakemqtt

import simboard
from cowboy import recordtext
from views import ui
from views import hallui
from version import VERSION
from fakedisplays import read_oled
from mpy import FIRMWARE, check
from net.hall import Hall, attach
from net import hall, hallsettings


class Client(fakemqtt.Client):
    """Records what a board sends."""
    made = []            # every client, in order
    log = []             # (client_id, topic, payload, retain); ("DISCONNECT", client_id)
    tries = 0            # connections tried

    def __init__(self, **kw):
        super().__init__(**kw)
        Client.made.append(self)

    async def connect(self, timeout_sec=3):
        Client.tries += 1
        return await super().connect(timeout_sec)

    def sent(self, topic, payload, retain):
        Client.log.append((self.client_id, topic, payload, retain))

    async def disconnect(self):
        Client.log.append(("DISCONNECT", self.client_id))
        self.connected = False


class Wlan:
    def __init__(self, up):
        self.up = up

    def isconnected(self):
        return self.up


@pytest.fixture(autouse=True)
def fresh_client():
    Client.up = True
    Client.made = []
    Client.log = []
    Client.tries = 0


def board(tmp_path, build="tm1637", hall="club", table="t01"):
    """A table in hall mode: the simulator's application with a journal in
    tmp_path, hall.json, its publisher with the recording client."""
    root = str(tmp_path) + "/"
    with open(root + "hall.json", "w") as f:
        json.dump({"ssid": "club", "broker": "127.0.0.1", "hall": hall, "table": table,
                   "user": table, "password": "pw"}, f)
    s = simboard.Sim(2, build, root=root)
    s.hall = attach(s.app, root, client=Client)
    assert s.app.panel.net is s.hall
    return s


def keys(s, *lines):
    s.play(simboard.parse_script("\n".join(lines), s))
    s.run_to(s.now + 30)


def until(s, cond, guard=60):
    """Step the table (simulated time) until cond() holds. The client's tasks wait in
    real time (the back-off between connections: up to 4 s), so the wait is for the
    event, however long a busy machine takes; it fails only when the client has made
    no progress (no connection tried, nothing sent) for `guard` seconds."""
    seen_progress = None
    while not cond():
        progress = (Client.tries, len(Client.log), s.hall.pending())
        if progress != seen_progress:
            seen_progress = progress
            end = time.monotonic() + guard
        assert time.monotonic() < end, "no progress for %d s: %s" % (guard, progress)
        s.run_to(s.now + 1)
        time.sleep(0.001)


def seen(s, seat=0):
    m = s.models[seat]
    return read_oled(m.pixels()) if hasattr(m, "pixels") else m.text()


def hall_json(s):
    with open(s.app.journal.root + "hall.json") as f:
        return json.load(f)


TO_NET = ["HOLD ENC"] + ["ENC"] * 8      # players, opener, brightness, 4 rules, build
TO_TABLE = TO_NET + ["ENC", "ENC"]


def test_the_plain_pico_menu_has_no_hall_items(tmp_path):
    s = simboard.Sim(2, "tm1637", root=str(tmp_path) + "/")
    keys(s, *TO_NET)                           # the build, then the players' names
    assert s.panel.menu_item == ui.MENU_NAMES
    keys(s, "ENC")
    assert s.panel.menu_item == ui.MENU_START and seen(s) == "Go  "
    keys(s, "ENC")                             # ENC on "start" starts the game
    assert s.panel.mode == ui.MODE_GAME


@pytest.mark.parametrize("build,no_wifi,no_broker,online", [
    ("tm1637", "noFi", "nobr", "on 0"),
    ("ht16k33", "noFi", "nobr", "on 0"),
    ("max7219", "noFi    ", "nobr    ", "onLn    "),
    ("oled8", ("NO WI-FI", "oFF"), ("NO BROKER", "oFF"), ("ONLINE", "on")),
])
def test_the_menu_shows_the_connection(tmp_path, build, no_wifi, no_broker, online):
    Client.up = False
    s = board(tmp_path, build)
    s.hall.wlan = Wlan(False)

    def shown():
        v = seen(s)
        return (v["bottom"], v["big"]) if isinstance(v, dict) else v
    keys(s, *TO_NET)
    assert s.panel.menu_item == ui.MENU_NET
    assert shown() == no_wifi
    s.hall.wlan.up = True
    until(s, lambda: shown() == no_broker)
    Client.up = True
    until(s, lambda: shown() == online)
    keys(s, "ENC")
    assert s.panel.menu_item == ui.MENU_HALL


def test_actions_not_yet_acknowledged_are_counted(tmp_path):
    Client.up = False
    s = board(tmp_path, "max7219")
    keys(s, "3", "OK", "MISS", "MISS", *TO_NET)
    assert s.hall.pending() == 3
    assert seen(s) == "nobr   3"
    Client.up = True
    until(s, lambda: seen(s) == "onLn    ")
    (tmp_path / "b").mkdir()
    s = board(tmp_path / "b", "oled4")
    Client.up = False
    keys(s, "3", "OK", "MISS", *TO_NET)
    assert seen(s)["bottom"] == "NO BROKER, 2 UNSENT"


def test_editing_the_table_name_on_four_digits(tmp_path):
    s = board(tmp_path, "tm1637")
    until(s, s.hall.caught_up)
    keys(s, *TO_TABLE[:-1])
    assert seen(s) == "H.cLu"                  # the hall's name after its letter
    keys(s, "ENC")
    assert seen(s) == "t.t01"
    keys(s, "OK")                              # the editor: the cursor's point lit
    assert seen(s) == "t.01 "
    keys(s, "ENC")
    assert seen(s) == "t0.1 "
    keys(s, "ENC-")                            # 0 -> z
    assert seen(s) == "t2.1 "                  # z reads as 2 on seven segments
    keys(s, "ENC+", "ENC+")                    # z -> 0 -> 1
    assert seen(s) == "t1.1 "
    keys(s, "ENC", "ENC")                      # past the last character: the end mark
    assert seen(s) == "t11_."
    keys(s, "ENC+")                            # the end mark turned: a character more
    assert seen(s) == "t11A."
    keys(s, "ENC-")                            # back to the end mark: the name ends there
    assert seen(s) == "t11_."
    keys(s, "ENC+", "ENC")                     # the window follows the cursor
    assert seen(s) == "11A_."
    assert hall_json(s)["table"] == "t01"      # nothing saved while editing
    keys(s, "ENC")                             # ENC on the end mark saves
    assert seen(s) == "t.t11"                  # the letter and the name's first three
    assert hall_json(s)["table"] == "t11a" and hall_json(s)["hall"] == "club"
    assert hall_json(s)["password"] == "pw"    # the other settings kept
    until(s, s.hall.caught_up)
    old = [e for e in Client.log if e[1] == "cowboy/club/t01/status"]
    assert old[-1][2:] == ("offline", True)
    assert ("DISCONNECT", "cowboy-club-t01") in Client.log
    c = Client.made[-1]                    # the one client, its connection now
    assert c.client_id == "cowboy-club-t11a"
    assert c.will[0] == "cowboy/club/t11a/status"
    mine = [e for e in Client.log if e[0] == "cowboy-club-t11a"]
    assert mine[0][1:] == ("cowboy/club/t11a/status", "online", True)
    assert ("cowboy/club/t11a/state", recordtext.state_json(s.game, None, VERSION), True) in \
        [e[1:] for e in mine]
    # the game goes on under the new name
    keys(s, "HOLD ENC", "3", "OK")
    until(s, s.hall.caught_up)
    mine = [e for e in Client.log if e[0] == "cowboy-club-t11a"]
    assert all(e[1].startswith("cowboy/club/t11a/") for e in mine)
    assert [e[2] for e in mine if e[1].endswith("/state")][-1] == \
        recordtext.state_json(s.game, None, VERSION)
    assert json.loads([e[2] for e in mine if e[1].endswith("/action")][-1])["pos"] == 1


def test_editing_the_hall_name_on_eight_digits_and_oled(tmp_path):
    s = board(tmp_path, "max7219", hall="club")
    keys(s, *TO_NET, "ENC")
    assert seen(s) == "H.cLub   "
    keys(s, "OK", "ENC", "ENC", "ENC", "ENC")  # to the end mark after "club"
    assert seen(s) == "cLub_.   "
    keys(s, "ENC-", "ENC")                     # "club-", then the end mark
    assert seen(s) == "cLub-_.  "
    keys(s, "UNDO")                            # leave the editor: nothing changes
    assert seen(s) == "H.cLub   " and hall_json(s)["hall"] == "club"
    (tmp_path / "o").mkdir()
    s = board(tmp_path / "o", "oled8", hall="club")
    keys(s, *TO_NET, "ENC", "OK", "ENC")
    v = seen(s)
    assert (v["top"], v["big"], v["side"]) == ("HALL NAME        2/12", "2", "L")
    # the whole name on the item line, the cursor's character blinking
    blinks = set()
    for _ in range(4):
        s.run_to(s.now + 600)
        blinks.add(seen(s)["bottom"])
    assert blinks == {"CLUB", "C*UB"}
    keys(s, "ENC", "ENC", "ENC")
    assert (seen(s)["side"], seen(s)["bottom"]) == ("*", "CLUB*")
    keys(s, "ENC+", "ENC+", "ENC")
    assert seen(s)["bottom"] == "CLUBB*"
    keys(s, "ENC")
    v = seen(s)
    assert (v["top"][:6], v["bottom"]) == ("SET-UP", "HALL: CLUBB")
    assert hall_json(s)["hall"] == "clubb"
    until(s, s.hall.caught_up)
    assert Client.made[-1].will[0] == "cowboy/clubb/t01/status"


def test_empty_or_bad_names_cannot_be_saved(tmp_path):
    s = board(tmp_path, "tm1637", table="a1")
    keys(s, *TO_TABLE, "OK", "ENC-")           # a -> the end mark: an empty name
    assert seen(s) == "_.   "
    keys(s, "ENC")
    assert seen(s) == "Err " and s.panel.editor.cursor == 0
    assert hall_json(s)["table"] == "a1"
    keys(s, "ENC+")                            # any key of the editor goes on editing
    assert seen(s) == "A.   "                  # a reads as A on seven segments
    keys(s, "HOLD ENC")                        # leaving the menu drops the edit
    assert hall_json(s)["table"] == "a1" and s.hall.name(1) == b"a1"
    # a name the menu cannot write (from a hand-made hall.json) is not saved as it is
    (tmp_path / "b").mkdir()
    s = board(tmp_path / "b", "oled8", table="T_1")
    keys(s, *TO_TABLE, "OK", "ENC", "ENC", "ENC", "ENC")
    assert seen(s)["bottom"] == "NAME: A-Z 0-9 - ONLY"
    assert hall_json(s)["table"] == "T_1"
    for bad in (b"", b"a/b", b"a+b", b"#", b"box", b"Club", b"a b", b"abcdefghijklm",
                "caf\u00e9", None, 7):
        assert not s.hall.rename(b"club", bad), bad
        assert not s.hall.rename(bad, b"t1"), bad
    assert hall_json(s)["table"] == "T_1"
    assert s.hall.rename("club", "abcdefghijkl")      # twelve characters
    assert hall_json(s)["table"] == "abcdefghijkl"


def test_a_failed_write_keeps_the_old_names(tmp_path, monkeypatch):
    s = board(tmp_path, "tm1637", table="t1")
    until(s, s.hall.caught_up)

    def cut(a, b):
        raise OSError(28)
    monkeypatch.setattr(os, "rename", cut)      # net/hall.py's os
    keys(s, *TO_TABLE, "OK", "ENC+", "ENC", "ENC", "ENC")
    assert seen(s) == "FL5h"                   # S reads as 5
    assert hall_json(s)["table"] == "t1" and s.hall.prefix == "cowboy/club/t1/"
    monkeypatch.undo()
    keys(s, "ENC")                                    # again, with the flash working
    assert hall_json(s)["table"] == "u1" and seen(s) == "t.u1 "
    assert hallsettings.load_settings(s.app.journal.root)["table"] == "u1"


def test_renamed_while_offline_the_old_topic_is_marked_offline_on_connect(tmp_path):
    Client.up = False
    s = board(tmp_path, "tm1637", table="t1")
    assert s.hall.rename(b"club", b"t2") and s.hall.rename(b"club", b"t3")
    assert s.hall.rename(b"club", b"t2")              # names used before, once each
    Client.up = True
    until(s, s.hall.caught_up)
    sent = [e[1:] for e in Client.log]
    assert sent[0] == ("cowboy/club/t2/status", "online", True)
    assert sorted(sent[1:3]) == [("cowboy/club/t1/status", "offline", True),
                                 ("cowboy/club/t3/status", "offline", True)]
    assert not any("DISCONNECT" in e for e in Client.log)


LFS = r"""
import json, vfs
from ramblock import PowerCut, mount
from net import hallsettings as HS

OLD = {"broker": "b", "hall": "club", "table": "t01", "password": "pw"}
NEW = {"broker": "b", "hall": "club", "table": "t9", "password": "pw"}

bd = mount()
HS.save_settings("/fs/", OLD)
vfs.umount("/fs")
image = bytes(bd.image)
bd = mount(image)
bd.reset_counts()
HS.save_settings("/fs/", NEW)
ops = bd.ops()
vfs.umount("/fs")
old = new = 0
for cut in range(ops + 1):
    bd = mount(image)
    bd.cut_after(cut)
    try:
        HS.save_settings("/fs/", NEW)
    except PowerCut:
        pass
    vfs.umount("/fs")
    mount(bd.survivor())
    got = HS.load_settings("/fs/")
    if got == OLD:
        old += 1
    elif got == NEW:
        new += 1
    else:
        print("BAD", cut, got)
    vfs.umount("/fs")
print("OK", ops, old, new)
"""


def test_power_cut_during_the_save_keeps_old_or_new_names():
    from mpy import FAKES, FIRMWARE, MICROPYTHON, MODELS, check
    if not os.path.exists(MICROPYTHON):
        pytest.skip("needs the host micropython")
    out = check(code=LFS, heapsize="4M", path=(FAKES, MODELS, FIRMWARE)).lines()
    ok, ops, old, new = out[-1].split()
    assert not any(ln.startswith("BAD") for ln in out), out
    assert ok == "OK" and int(ops) > 0 and int(old) >= 1 and int(new) >= 1
    assert int(old) + int(new) == int(ops) + 1


def test_names_and_state_without_a_loop():
    """The interface the panel uses, also on a board whose client never ran."""
    class J:
        records = 5
        root = "/nowhere/"

        def game_number(self):
            return 1
    app = type("App", (), {})()
    app.game = None
    app.panel = None
    app.journal = J()
    h = Hall(app, {"hall": "club", "table": "t1", "broker": "b"}, "/nowhere/",
             client=Client)
    assert (h.name(0), h.name(1), h.state(), h.pending()) == (b"club", b"t1",
                                                              hallui.NET_NO_BROKER, 5)
    h.wlan = Wlan(False)
    assert h.state() == hallui.NET_NO_WIFI


class Collector:
    """Stands in for MicroPython's gc in net/hall.py: what the publisher asks of it."""

    def __init__(self):
        self.calls = []

    def threshold(self, amount):
        self.calls.append(("threshold", amount))

    def collect(self):
        self.calls.append("collect")

    def mem_free(self):
        self.calls.append("mem_free")
        return 1 << 20

    def mem_alloc(self):
        self.calls.append("mem_alloc")
        return 0


def test_client_steps_never_count_the_heap_and_their_garbage_goes_at_the_players_pause(
        tmp_path, monkeypatch):
    """gc.mem_free() walks the whole heap (some 7 ms on the emulated Pico W) and a
    collection takes 20 ms: a key pressed meanwhile waits. The publisher never
    counts the heap; it collects the garbage of its client's steps once the players
    have paused (app/loop.py QUIET_MS without a key) after SWEEP_STEPS steps, and
    while they play on only after SWEEP_BUSY_STEPS. No steps, no collection."""
    collector = Collector()
    monkeypatch.setattr(hall, "gc", collector)
    monkeypatch.setattr(hall, "_SWEEP", True, raising=False)
    s = board(tmp_path)
    events = []                         # ("step" | "collect", simulated time)
    collector.collect = lambda: events.append(("collect", s.now))
    step = Hall._step

    def counted(self):
        events.append(("step", s.now))
        step(self)
    monkeypatch.setattr(Hall, "_step", counted)
    until(s, lambda: s.hall.connected)
    quiet = s.app.QUIET_MS
    # 60 strokes, one every 0.5 s (30 s): no pause; then 20 s without a key
    start = s.now
    keys(s, *["MISS\nWAIT 400"] * 60)
    end = s.app.event_at
    s.run_to(end + 20000)
    steps = 0
    during = after = 0
    for kind, t in events:
        if kind == "step":
            steps += 1
            continue
        assert steps >= hall.SWEEP_STEPS, (t, steps, events)
        if start + quiet < t <= end:            # (keys every 0.5 s: never a pause)
            assert steps >= hall.SWEEP_BUSY_STEPS, (t, steps, events)
            during += 1
        elif t > end:
            assert t >= end + quiet, (t, end)
            after += 1
        steps = 0
    made = len([e for e in events if e[0] == "step" and start < e[1] <= end])
    assert made >= 2 * hall.SWEEP_BUSY_STEPS, made      # (the test has steps to count)
    assert during >= made // hall.SWEEP_BUSY_STEPS - 1, (during, made)
    assert after >= 1, events[-20:]
    assert "mem_free" not in collector.calls and "mem_alloc" not in collector.calls
    assert not [c for c in collector.calls if c[0] == "threshold"], collector.calls


def test_hall_ack_is_written_when_the_players_pause_never_in_a_client_step(
        tmp_path, monkeypatch):
    """A flash write stalls the chip for 45-400 ms: hall.ack's save (at most every
    ACK_SAVE_MS, here at every chance) comes once the players have paused, never in
    a client step, where a key pressed meanwhile would wait."""
    monkeypatch.setattr(hall, "ACK_SAVE_MS", 0)
    stepping = []
    writes = []                 # per write of hall.ack: made inside a client step
    step = Hall._step

    def watched(self):
        stepping.append(True)
        try:
            step(self)
        finally:
            stepping.pop()
    write = hallsettings.replace

    def replace(path, tmp, text):
        if path.endswith(hall.ACK_FILE):
            writes.append(bool(stepping))
        write(path, tmp, text)
    monkeypatch.setattr(Hall, "_step", watched)
    monkeypatch.setattr(hallsettings, "replace", replace)
    s = board(tmp_path)
    until(s, lambda: s.hall.connected)
    keys(s, "MISS", "MISS")
    until(s, lambda: s.hall.caught_up())
    s.run_to(s.now + 3000)                  # quiet steps, the acknowledgements in
    keys(s, "MISS")
    until(s, lambda: s.hall.caught_up())
    assert writes and True not in writes, writes
    game, pos = open(s.root + hall.ACK_FILE).read().split()[:2]
    assert int(game) == s.hall.current_game() and 2 <= int(pos) <= s.hall.ack_pos


@pytest.mark.parametrize("when", ["sent", "made", "acks"])
def test_a_key_that_comes_during_a_client_step_has_the_rest_of_it_wait(
        tmp_path, monkeypatch, when):
    """A client step cannot be cut short, and a key that comes during one waits for
    its end (6-9 ms on the emulated Pico W while a backlog goes out). So the
    publisher looks at the keys between the pieces of its work: once a key has
    come, nothing more is made or sent in that step (the next waits for the key:
    app/loop.py); a state or an action made as it came is made again later. Here
    the key comes, in every other step, as a message is handed to the client
    (`sent`), as one is made (`made`) or as the acknowledgements are looked at
    (`acks`); the backlog still goes out whole, in order, once."""
    Client.up = False
    s = board(tmp_path)
    keys(s, *["MISS"] * 6)                  # a backlog while the broker is away
    key = [False]
    events = []                             # "step" | "made" | "sent" | "key"
    buttons = s.app.inputs.buttons
    active = buttons.active
    monkeypatch.setattr(buttons, "active", lambda: key[0] or active())
    step, make, take = Hall._step, Hall._next, Hall._take_acks

    def press(where):                       # the key, at `when` in every other step
        if where == when and events.count("step") % 2 and not key[0]:
            events.append("key")
            key[0] = True

    def stepped(self):
        events.append("step")
        step(self)
        key[0] = False                      # (the key answered before the next step)

    def made(self):
        m = make(self)
        if m is not None:
            events.append("made")
            press("made")
        return m

    def sent(self, topic, payload, retain):
        Client.log.append((self.client_id, topic, payload, retain))
        events.append("sent")
        press("sent")

    def acks(self):
        take(self)
        press("acks")
    monkeypatch.setattr(Hall, "_step", stepped)
    monkeypatch.setattr(Hall, "_next", made)
    monkeypatch.setattr(Hall, "_take_acks", acks)
    monkeypatch.setattr(Client, "sent", sent)
    Client.up = True
    until(s, lambda: s.hall.caught_up())
    # after the key in a step: nothing made, nothing sent
    after = None
    for e in events:
        if e == "step":
            after = None
        elif after is not None:
            after.append(e)
            assert after == [], events
        elif e == "key":
            after = []
    assert events.count("key") >= 3, events
    actions = [json.loads(p)["pos"] for _, t, p, _ in Client.log if t.endswith("/action")]
    assert actions == [1, 2, 3, 4, 5, 6], actions


ROUNDS = """
import asyncio
from net.hall import Hall


class Publisher:                # what Hall._round looks at: the keys
    key = False

    def _key_came(self):
        return self.key


p = Publisher()
pieces = []


async def task(name):           # a task with work to do (the session, the receive task)
    while True:
        pieces.append(name)
        if name == "a" and p.key is None:
            p.key = True        # the key comes during the step's first round
        await asyncio.sleep_ms(0)


asyncio.create_task(task("a"))
asyncio.create_task(task("b"))
for key in (False, None, False):
    del pieces[:]
    p.key = key
    asyncio.run(Hall._round(p))
    print("STEP", "".join(pieces))
"""


def test_a_key_that_comes_in_a_client_steps_first_round_ends_the_step_after_it():
    """A client step (`asyncio.run` of Hall._round, under the host MicroPython: the
    device's asyncio) runs each task ready as it starts for two rounds, one piece of
    work each; a key that comes during the first round leaves out the second, so it
    waits for one piece of each (on the emulated Pico W a step of a catch-up took
    3-6 ms, and a key pressed as one began waited up to 1.5 ms past its debounce)."""
    out = check(code=ROUNDS, path=(FIRMWARE,)).out.split()
    assert out == ["STEP", "abab", "STEP", "ab", "STEP", "abab"], out
