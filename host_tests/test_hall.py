"""Hall mode against a real Mosquitto: tables on the host MicroPython (the real
application, fake pins in simulated time, the real MQTT client), the archive tool,
a broker restarted gracefully and killed, a table's power cut, the ACL."""
import asyncio
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from mpy import MICROPYTHON, ROOT, TOOLS
import hallbroker

DATA = os.path.join(ROOT, "host_tests", "data")
HALL = "club"
NEW_GAME = "OK\nOK\n3\nOK\nMISS\n"        # a new game, its opening stroke, a miss

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def replay_state(path):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "replay.py"), path],
                          capture_output=True, text=True, check=True).stdout.strip()


def record_lines(path):
    return [line for line in open(path).read().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def vendor():
    return hallbroker.vendor()


def start_broker(tmp_path, tables):
    return hallbroker.Broker(tmp_path / "broker", HALL, tables).start()


def table(tmp_path, broker, vendor, name, *commands, record=None):
    return hallbroker.table(tmp_path, broker, vendor, HALL, name, *commands, record=record)


def finish(proc, timeout=150):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out + err
    return out.splitlines()


def archive(broker, db, games, seconds):
    return subprocess.Popen([sys.executable, os.path.join(TOOLS, "hall_archive.py"),
                             "--db", str(db), "--port", str(broker.port), "--user", "archive",
                             "--password", hallbroker.PASSWORD, "--hall", HALL,
                             "--games", str(games), "--seconds", str(seconds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def collect(broker, vendor, topic, seconds, user="hall", publish=()):
    """Messages (topic, payload text, retained) a reader gets within `seconds`;
    `publish`: (user, topic, payload) sent by other clients once subscribed."""
    if vendor not in sys.path:
        sys.path.append(vendor)
    import aiomqttc
    aiomqttc.log = lambda msg="": None
    got = []

    async def run():
        async def on_message(proto, t, payload, retain):
            got.append((t, payload.decode(), bool(retain)))
        c = aiomqttc.MQTTClient(client_id="reader-%d" % os.getpid(), server="127.0.0.1",
                                port=broker.port, user=user, password=hallbroker.PASSWORD,
                                keepalive=10)
        c.on_message = on_message
        assert await c.connect(timeout_sec=3)
        await c.subscribe(topic, qos=1)
        await asyncio.sleep(0.3)
        for u, t, payload in publish:
            p = aiomqttc.MQTTClient(client_id="writer-" + u, server="127.0.0.1",
                                    port=broker.port, user=u, password=hallbroker.PASSWORD)
            assert await p.connect(timeout_sec=3)
            await p.publish(t, payload, qos=1)
            await p.disconnect()
        await asyncio.sleep(seconds)
        await c.disconnect()
    asyncio.run(run())
    return got


class Reader:
    """A subscriber (the hall user) in a thread of its own, from start() to stop():
    every message (topic, payload text, retained) it got, in order."""

    def __init__(self, broker, vendor, topic):
        self.broker, self.vendor, self.topic = broker, vendor, topic
        self.got = []
        self.times = []             # time.monotonic() of each message
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def start(self):
        self._thread.start()
        assert self.ready.wait(10), "the reader did not connect"
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(10)
        return self.got

    async def _run(self):
        if self.vendor not in sys.path:
            sys.path.append(self.vendor)
        import aiomqttc
        aiomqttc.log = lambda msg="": None

        async def on_message(proto, t, payload, retain):
            self.times.append(time.monotonic())
            self.got.append((t, payload.decode(), bool(retain)))
        c = aiomqttc.MQTTClient(client_id="reader-%d" % threading.get_ident(),
                                server="127.0.0.1", port=self.broker.port, user="hall",
                                password=hallbroker.PASSWORD, keepalive=10)
        c.on_message = on_message
        assert await c.connect(timeout_sec=3)
        await c.subscribe(self.topic, qos=1)
        self.ready.set()
        while not self._stop.is_set():
            await asyncio.sleep(0.05)
        await c.disconnect()


def replayed(lines):
    """The state object after a game record's lines (header first), through the rules
    core as tools/replay.py runs it."""
    sys.path.insert(0, TOOLS)
    import toolpaths
    toolpaths.add("../firmware")
    import record
    play, ops = record.read_record([x for x in lines if x.strip() and not x.startswith("#")])
    return json.loads(record.state_json(play.game))


def check_game2(g, tmp_path):
    """An archived game is game2.keys as the board entered it (three players, P1
    opens): game2.jsonl's header and actions, its state their replay."""
    want_lines = record_lines(os.path.join(DATA, "game2.jsonl"))
    lines = g["record"].splitlines()
    assert lines[0] == "# game %d" % g["game"]
    assert dict({"opener": 1}, **json.loads(want_lines[0])) == json.loads(lines[1])
    assert [json.loads(x) for x in lines[2:]] == [json.loads(x) for x in want_lines[1:]]
    want = json.loads(replay_state(os.path.join(DATA, "game2.jsonl")))
    assert g["state"] == want
    assert (g["results"]["winner"], g["results"]["scores"]) == (want["winner"], want["scores"])


def archived(db):
    out = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--export", "-"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def wait_whole(db, names, seconds=60):
    """Until the archive holds game2 whole for each table. A table publishes a
    finished game once or twice (game2 ends, is undone and redone: the longer
    record replaces the shorter), so the archive is stopped once every table's
    whole game is in, not after a message count."""
    whole = len(record_lines(os.path.join(DATA, "game2.jsonl"))) + 1
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        games = archived(db)
        if sorted(g["table"] for g in games) == sorted(names) and \
                all(len(g["record"].splitlines()) == whole for g in games):
            return
        time.sleep(0.3)


def test_twenty_tables_every_game_archived_once(tmp_path, vendor):
    names = ["t%02d" % i for i in range(1, 21)]
    broker = start_broker(tmp_path, names)
    (tmp_path / "new.keys").write_text(NEW_GAME)
    try:
        db = tmp_path / "hall.db"
        arch = archive(broker, db, 0, 150)
        time.sleep(0.5)
        procs = [table(tmp_path, broker, vendor, n, "play", os.path.join(DATA, "game2.keys"),
                       "settle", "60000", "play", str(tmp_path / "new.keys"),
                       "settle", "60000", "state") for n in names]
        outs = [finish(p) for p in procs]
        wait_whole(db, names)
        arch.terminate()
        aout, aerr = arch.communicate(timeout=30)
        retained = collect(broker, vendor, "cowboy/%s/+/state" % HALL, 1.0)
    finally:
        broker.stop()
    for lines in outs:
        assert lines.count("SETTLED") == 2, lines
    games = archived(db)
    assert sorted(g["table"] for g in games) == names, aout + aerr
    for g in games:
        check_game2(g, tmp_path)
    states = {t.split("/")[2]: p for t, p, r in retained if r}
    for name, lines in zip(names, outs):
        assert states[name] == lines[-1][len("STATE "):]
    assert '"scores": [0, 0, 3]' in outs[0][-1]


def test_broker_restarts_and_a_power_cut_lose_and_repeat_nothing(tmp_path, vendor):
    names = ["a1", "a2", "a3"]
    broker = start_broker(tmp_path, names)
    (tmp_path / "new.keys").write_text(NEW_GAME)
    db = tmp_path / "hall.db"
    game2 = os.path.join(DATA, "game2.keys")
    keys = open(game2).read().splitlines()
    cut = 35            # after a stroke's last key: a stroke being composed is lost
    while keys[cut - 1].split()[0] not in ("OK", "MISS"):
        cut += 1
    (tmp_path / "first.keys").write_text("\n".join(keys[:cut]) + "\n")
    (tmp_path / "rest.keys").write_text("\n".join(keys[cut:]) + "\n")
    try:
        arch = archive(broker, db, 0, 120)
        time.sleep(0.5)
        procs = [table(tmp_path, broker, vendor, "a1", "pace", "40", "play", game2,
                       "play", str(tmp_path / "new.keys"), "settle", "60000", "state"),
                 table(tmp_path, broker, vendor, "a2", "pace", "40", "play", game2,
                       "settle", "60000", "state"),
                 # a3: the power goes off mid-game, and again after the game ended
                 table(tmp_path, broker, vendor, "a3", "pace", "40", "play",
                       str(tmp_path / "first.keys"), "cut", "play", str(tmp_path / "rest.keys"),
                       "cut", "settle", "60000", "state")]
        time.sleep(1.5)
        broker.stop()                   # graceful
        time.sleep(0.7)
        broker.start()
        time.sleep(1.5)
        broker.stop(kill=True)          # SIGKILL
        time.sleep(0.7)
        broker.start()
        outs = [finish(p) for p in procs]
        wait_whole(db, names)
        arch.terminate()
        arch.communicate(timeout=30)
        retained = collect(broker, vendor, "cowboy/%s/#" % HALL, 1.0)
    finally:
        broker.stop()
    for lines in outs:
        assert "SETTLED" in lines, lines
    games = archived(db)
    assert sorted(g["table"] for g in games) == names
    for g in games:
        check_game2(g, tmp_path)
    states = {t.split("/")[2]: p for t, p, r in retained if r and t.endswith("/state")}
    for name, lines in zip(names, outs):
        assert states[name] == lines[-1][len("STATE "):]
    # the tables' processes have ended without a goodbye: the broker sent their wills
    status = {t.split("/")[2]: p for t, p, r in retained if t.endswith("/status")}
    assert status == {"a1": "offline", "a2": "offline", "a3": "offline"}


def test_actions_arrive_in_order_once_per_position(tmp_path, vendor):
    broker = start_broker(tmp_path, ["b1"])
    try:
        proc = table(tmp_path, broker, vendor, "b1", "pace", "20", "play",
                     os.path.join(DATA, "game2.keys"), "settle", "30000", "stats")
        got = []
        # the reader subscribes while the table plays
        import threading
        th = threading.Thread(target=lambda: got.extend(
            collect(broker, vendor, "cowboy/%s/b1/action" % HALL, 6.0)))
        th.start()
        th.join()
        out = finish(proc)
        late = collect(broker, vendor, "cowboy/%s/b1/game" % HALL, 0.5)
    finally:
        broker.stop()
    assert "SETTLED" in out
    seen = {}
    for t, payload, retained in got:
        m = json.loads(payload)
        seen.setdefault((m["game"], m["pos"]), m["action"])
    positions = sorted(seen)
    assert positions == [(1, i) for i in range(1, len(positions) + 1)]
    want = [json.loads(x) for x in record_lines(os.path.join(DATA, "game2.jsonl"))[1:]]
    assert [seen[p] for p in positions] == want
    # the finished game, retained, whole
    text = late[0][1].splitlines()
    assert late[0][2] and [json.loads(x) for x in text[2:]] == want


def test_a_table_cannot_publish_under_another_tables_topic(tmp_path, vendor):
    broker = start_broker(tmp_path, ["c1", "c2"])
    try:
        got = collect(broker, vendor, "cowboy/#", 0.5, publish=(
            ("c1", "cowboy/%s/c2/state" % HALL, "forged by c1"),
            ("c1", "cowboy/%s/c1/state" % HALL, "c1's own"),
            ("hall", "cowboy/%s/c1/state" % HALL, "the hall view writes nothing")))
    finally:
        broker.stop()
    assert [(t, p) for t, p, r in got] == [("cowboy/%s/c1/state" % HALL, "c1's own")]


def test_a_table_renamed_on_its_panel_publishes_under_the_new_name(tmp_path, vendor):
    """The table's name changed with the encoder in the set-up menu (t1 -> t9): the
    old topic's status says offline, the game goes on under the new topic, the
    new name is in the board's hall.json."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["t1"],
                               writes=[("t1", "cowboy/%s/t9/#" % HALL)]).start()
    (tmp_path / "first.keys").write_text("3\nOK\n")
    (tmp_path / "rename.keys").write_text(
        "HOLD ENC\n" + "ENC\n" * 10          # players ... build, connection, hall, table
        + "OK\nENC\n" + "ENC+\n" * 8         # edit: the second character, 1 -> 9
        + "ENC\nENC\n"                        # to the end mark, save
        + "HOLD ENC\nMISS\n")                 # back to the game, one more action
    try:
        proc = table(tmp_path, broker, vendor, "t1", "play", str(tmp_path / "first.keys"),
                     "settle", "20000", "play", str(tmp_path / "rename.keys"),
                     "settle", "20000", "state")
        out = finish(proc)
        got = collect(broker, vendor, "cowboy/%s/+/+" % HALL, 1.0)
    finally:
        broker.stop()
    assert out.count("SETTLED") == 2, out
    retained = {t: p for t, p, r in got if r}
    assert json.loads((tmp_path / "t1" / "hall.json").read_text())["table"] == "t9"
    assert retained["cowboy/club/t1/status"] == "offline"     # not its last will: marked
    assert retained["cowboy/club/t9/state"] == out[-1][len("STATE "):]
    assert json.loads(retained["cowboy/club/t9/state"])["scores"][:2] == [3, 0]
    assert "cowboy/club/t9/status" in retained                # its last will moved too


# game2.keys opens with a failed opening taken over (HOLD MISS, ENC); its run to 101
# is one inning, so any number of players and any rotation can play the rest.
GAME2_REST = 2


def openings(tmp_path):
    """(table, setup, keys file, next game too) for every kind of opening."""
    keys = open(os.path.join(DATA, "game2.keys")).read().splitlines()
    keys = [k for k in keys if k.strip() and not k.lstrip().startswith("#")]
    rest = keys[GAME2_REST:]
    plays = {
        "o1": ("3 1 0", rest, False),                                   # the 3 first
        "o2": ("3 1 0", ["HOLD MISS", "OK"] + rest, True),              # failed, repeat
        "o3": ("3 1 0", keys, False),                                   # failed, take
        "o4": ("4 3 0", ["HOLD MISS", "ENC", "HOLD MISS", "ENC"] + rest, False),  # taken twice
        "o5": ("3 1 8", keys, False),                                   # take as they lie
        "o6": ("3 3 0", ["HOLD MISS", "OK", "HOLD MISS", "ENC"] + rest, True),  # repeat, take
        "o7": ("8 5 0", keys, True),                                    # eight players, P5 opens
        # the 5 hit first and pocketed (FIRST: 3 -> none -> 1 -> 3 -> 5), taken as it lies
        "o8": ("3 2 8", ["5", "ENC+", "ENC", "ENC", "ENC", "ENC", "OK", "ENC"] + rest, False),
    }
    out = []
    for name, (setup, lines, more) in plays.items():
        path = tmp_path / (name + ".keys")
        path.write_text("\n".join(lines) + "\n")
        out.append((name, setup.split(), str(path), more))
    return out


def test_every_record_a_table_sends_replays_to_its_own_state(tmp_path, vendor):
    """Games with every kind of opening (the 3 hit first; failed and repeated; taken
    over, once and twice; taken with the balls as they lie; other openers and
    player counts): the `game` record on the broker, its header with the actions
    the `action` topic carried, and what the archive stored all give the state the
    table itself shows at the end of the game."""
    plays = openings(tmp_path)
    names = [p[0] for p in plays]
    broker = start_broker(tmp_path, names)
    (tmp_path / "new.keys").write_text(NEW_GAME)
    db = tmp_path / "hall.db"
    try:
        reader = Reader(broker, vendor, "cowboy/%s/#" % HALL).start()
        arch = archive(broker, db, 0, 60)
        time.sleep(0.5)
        procs = []
        for name, setup, keys, more in plays:
            cmds = ["setup"] + setup + ["play", keys, "settle", "30000", "state"]
            if more:        # the next game begun: the record comes from games/
                cmds += ["play", str(tmp_path / "new.keys"), "settle", "30000"]
            procs.append(table(tmp_path, broker, vendor, name, *cmds))
        outs = [finish(p) for p in procs]
        end = time.monotonic() + 30
        while time.monotonic() < end and len(archived(db)) < len(names):
            time.sleep(0.3)
        time.sleep(0.5)
        arch.terminate()
        arch.communicate(timeout=30)
        got = reader.stop()
    finally:
        broker.stop()
    own = {}
    for name, lines in zip(names, outs):
        assert "UNSETTLED" not in lines, lines
        states = [x for x in lines if x.startswith("STATE ")]
        own[name] = json.loads(states[0][len("STATE "):])
        assert own[name]["phase"] == "over", (name, own[name])
    winners = {own[n]["winner"] for n in names}
    assert len(winners) > 2, own            # the openings change who wins
    records = {}
    actions = {}
    for t, payload, retained in got:
        name, kind = t.split("/")[2:]
        if kind == "game":
            records[name] = payload           # the last one sent is the whole game
        elif kind == "action":
            m = json.loads(payload)
            if m["game"] == 1:
                actions.setdefault(name, {})[m["pos"]] = json.dumps(m["action"])
    stored = {g["table"]: g for g in archived(db)}
    for name in names:
        lines = records[name].splitlines()
        assert lines[0] == "# game 1"
        assert replayed(lines) == own[name], (name, lines[1])
        sent = [actions[name][p] for p in sorted(actions[name])]
        assert replayed([lines[1]] + sent) == own[name], name
        assert stored[name]["state"] == own[name], (name, stored[name]["record"].splitlines()[1])
        r = stored[name]["results"]
        assert (r["winner"], r["scores"]) == (own[name]["winner"], own[name]["scores"]), name


BACKLOG = 300


def test_a_backlog_is_caught_up_fast(tmp_path, vendor):
    """A table that comes online with 300 actions nobody has (a journal written
    while the broker was away) sends them all, once each and in order, within a
    few seconds: several messages in flight, not one PUBACK awaited at a time."""
    broker = start_broker(tmp_path, ["d1"])
    rec = tmp_path / "backlog.jsonl"
    rec.write_text('{"players": 2}\n' + '{"shot": {}}\n' * BACKLOG)
    try:
        reader = Reader(broker, vendor, "cowboy/%s/d1/action" % HALL).start()
        proc = table(tmp_path, broker, vendor, "d1", "settle", "12000", "stats", record=rec)
        out = finish(proc)
        time.sleep(0.3)
        got = reader.stop()
    finally:
        broker.stop()
    assert "SETTLED" in out, out
    stamps = {}
    for t, payload, retained in got:
        m = json.loads(payload)
        assert m["action"] == {"shot": {}}
        stamps.setdefault(m["pos"], len(stamps))
    assert sorted(stamps) == list(range(1, BACKLOG + 1))
    assert [p for p, i in sorted(stamps.items(), key=lambda x: x[1])] == sorted(stamps)
    span = reader.times[-1] - reader.times[0]
    print("catch-up: %d actions in %.2f s" % (BACKLOG, span))
    assert span < 4.0
