"""Hall mode against a real Mosquitto: tables on the host MicroPython (the real
application, fake pins in simulated time, the real MQTT client), the archive tool,
a broker restarted gracefully and killed, a table's power cut, the ACL."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from mpy import MICROPYTHON, ROOT, TOOLS
import hallbroker
from version import VERSION

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


def start_broker(tmp_path, tables):
    return hallbroker.Broker(tmp_path / "broker", HALL, tables).start()


def table(tmp_path, broker, name, *commands, record=None):
    return hallbroker.table(tmp_path, broker, HALL, name, *commands, record=record)


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


def collect(broker, topic, seconds, until, user="hall2", publish=()):
    """Messages (topic, payload text, retained) a reader gets until `until(got)`, the
    messages awaited, or `seconds` at most (a loaded machine delivers late: a test
    waits for what it checks, never a fixed time that a quiet machine happens to
    meet); `publish`: (user, topic, payload) sent by other clients, each acknowledged,
    once the reader's subscription was."""
    got = []

    def on_message(client, userdata, m):
        got.append((m.topic, m.payload.decode(), bool(m.retain)))
    c = hallbroker.client(broker, user, client_id="reader-%d" % os.getpid(),
                          on_message=on_message)
    hallbroker.subscribe(c, topic)
    for u, t, payload in publish:
        hallbroker.publish(broker, u, [(t, payload, False)])
    end = time.monotonic() + seconds
    while not until(list(got)) and time.monotonic() < end:
        time.sleep(0.05)
    c.disconnect()
    c.loop_stop()
    return got


class Reader:
    """A subscriber (the hall user) from start() to stop(): every message (topic,
    payload text, retained) it got, in order."""

    def __init__(self, broker, topic):
        self.broker, self.topic = broker, topic
        self.got = []
        self.times = []             # time.monotonic() of each message
        self._c = None

    def start(self):
        def on_message(client, userdata, m):
            self.times.append(time.monotonic())
            self.got.append((m.topic, m.payload.decode(), bool(m.retain)))
        self._c = hallbroker.client(self.broker, "hall",
                                    client_id="reader-%d" % threading.get_ident(),
                                    on_message=on_message)
        hallbroker.subscribe(self._c, self.topic)
        return self

    def stop(self):
        self._c.disconnect()
        self._c.loop_stop()
        return self.got


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
    # the header as the board writes it: with the opener and its firmware's version
    assert dict({"opener": 1, "firmware": VERSION}, **json.loads(want_lines[0])) == \
        json.loads(lines[1])
    assert [json.loads(x) for x in lines[2:]] == [json.loads(x) for x in want_lines[1:]]
    want = json.loads(replay_state(os.path.join(DATA, "game2.jsonl")))
    assert g["state"] == want
    assert (g["results"]["winner"], g["results"]["scores"]) == (want["winner"], want["scores"])


def archived(db):
    if not os.path.exists(db):
        return []                       # (the archive has not made it yet)
    out = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--export", "-"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def stop_archive(arch, db, games, timeout):
    """Stop the archive once it holds `games` games (or after `timeout` s)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and len(archived(db)) < games:
        time.sleep(0.2)
    time.sleep(0.5)
    arch.terminate()
    arch.communicate(timeout=30)


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


def test_twenty_tables_every_game_archived_once(tmp_path):
    names = ["t%02d" % i for i in range(1, 21)]
    broker = start_broker(tmp_path, names)
    (tmp_path / "new.keys").write_text(NEW_GAME)
    try:
        db = tmp_path / "hall.db"
        arch = archive(broker, db, 0, 150)
        time.sleep(0.5)
        procs = [table(tmp_path, broker, n, "play", os.path.join(DATA, "game2.keys"),
                       "settle", "60000", "play", str(tmp_path / "new.keys"),
                       "settle", "60000", "state") for n in names]
        outs = [finish(p) for p in procs]
        wait_whole(db, names)
        arch.terminate()
        aout, aerr = arch.communicate(timeout=30)
        retained = collect(broker, "cowboy/%s/+/state" % HALL, 60,
                           until=lambda got: len({t for t, p, r in got if r}) >= len(names))
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
        assert states[name] == hallbroker.published(lines[-1][len("STATE "):])
    assert '"scores": [0, 0, 3]' in outs[0][-1]


def test_broker_restarts_and_a_power_cut_lose_and_repeat_nothing(tmp_path):
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
        procs = [table(tmp_path, broker, "a1", "pace", "40", "play", game2,
                       "play", str(tmp_path / "new.keys"), "settle", "60000", "state"),
                 table(tmp_path, broker, "a2", "pace", "40", "play", game2,
                       "settle", "60000", "state"),
                 # a3: the power goes off mid-game, and again after the game ended
                 table(tmp_path, broker, "a3", "pace", "40", "play",
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
        retained = collect(broker, "cowboy/%s/#" % HALL, 60, until=lambda got: len(
            {t for t, p, r in got if r and t.endswith(("/state", "/status"))}) >= 2 * len(names))
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
        assert states[name] == hallbroker.published(lines[-1][len("STATE "):])
    # the tables' processes have ended without a goodbye: the broker sent their wills
    status = {t.split("/")[2]: p for t, p, r in retained if t.endswith("/status")}
    assert status == {"a1": "offline", "a2": "offline", "a3": "offline"}


def test_actions_arrive_in_order_once_per_position(tmp_path):
    want = [json.loads(x) for x in record_lines(os.path.join(DATA, "game2.jsonl"))[1:]]
    broker = start_broker(tmp_path, ["b1"])
    try:
        # the reader subscribed before the table starts, then reading while it plays,
        # until the table has settled and the last position came (not for a fixed
        # time: a loaded machine plays slower)
        reader = Reader(broker, "cowboy/%s/b1/action" % HALL).start()
        proc = table(tmp_path, broker, "b1", "pace", "20", "play",
                     os.path.join(DATA, "game2.keys"), "settle", "30000", "stats")
        out = finish(proc)
        end = time.monotonic() + 60
        while time.monotonic() < end and not any(
                json.loads(p)["pos"] == len(want) for t, p, r in list(reader.got)):
            time.sleep(0.1)
        got = reader.stop()
        late = collect(broker, "cowboy/%s/b1/game" % HALL, 60, until=len)
    finally:
        broker.stop()
    assert "SETTLED" in out
    seen = {}
    for t, payload, retained in got:
        m = json.loads(payload)
        seen.setdefault((m["game"], m["pos"]), m["action"])
    positions = sorted(seen)
    assert positions == [(1, i) for i in range(1, len(positions) + 1)]
    assert [seen[p] for p in positions] == want
    # the finished game, retained, whole
    text = late[0][1].splitlines()
    assert late[0][2] and [json.loads(x) for x in text[2:]] == want


def test_a_table_cannot_publish_under_another_tables_topic(tmp_path):
    broker = start_broker(tmp_path, ["c1", "c2"])
    try:
        # (each acknowledged before the next is sent: once c1's own, sent last, is in,
        # so is anything the broker let through before it)
        got = collect(broker, "cowboy/#", 60, publish=(
            ("c1", "cowboy/%s/c2/state" % HALL, "forged by c1"),
            ("hall", "cowboy/%s/c1/state" % HALL, "the hall view writes nothing"),
            ("c1", "cowboy/%s/c1/state" % HALL, "c1's own")),
            until=lambda got: any(p == "c1's own" for t, p, r in got))
    finally:
        broker.stop()
    assert [(t, p) for t, p, r in got] == [("cowboy/%s/c1/state" % HALL, "c1's own")]


def test_a_table_renamed_on_its_panel_publishes_under_the_new_name(tmp_path):
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
        proc = table(tmp_path, broker, "t1", "play", str(tmp_path / "first.keys"),
                     "settle", "20000", "play", str(tmp_path / "rename.keys"),
                     "settle", "20000", "state")
        out = finish(proc)
        got = collect(broker, "cowboy/%s/+/+" % HALL, 60, until=lambda got: {
            "cowboy/club/t1/status", "cowboy/club/t9/state", "cowboy/club/t9/status"}
            <= {t for t, p, r in got if r})
    finally:
        broker.stop()
    assert out.count("SETTLED") == 2, out
    retained = {t: p for t, p, r in got if r}
    assert json.loads((tmp_path / "t1" / "hall.json").read_text())["table"] == "t9"
    assert retained["cowboy/club/t1/status"] == "offline"     # not its last will: marked
    assert retained["cowboy/club/t9/state"] == hallbroker.published(out[-1][len("STATE "):])
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


def test_every_record_a_table_sends_replays_to_its_own_state(tmp_path):
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
        reader = Reader(broker, "cowboy/%s/#" % HALL).start()
        arch = archive(broker, db, 0, 60)
        time.sleep(0.5)
        procs = []
        for name, setup, keys, more in plays:
            cmds = ["setup"] + setup + ["play", keys, "settle", "30000", "state"]
            if more:        # the next game begun: the record comes from games/
                cmds += ["play", str(tmp_path / "new.keys"), "settle", "30000"]
            procs.append(table(tmp_path, broker, name, *cmds))
        outs = [finish(p) for p in procs]
        stop_archive(arch, db, len(names), 30)
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


def test_a_backlog_is_caught_up_fast(tmp_path):
    """A table that comes online with 300 actions nobody has (a journal written
    while the broker was away) sends them all, once each and in order, within a
    few seconds: several messages in flight, not one PUBACK awaited at a time."""
    broker = start_broker(tmp_path, ["d1"])
    rec = tmp_path / "backlog.jsonl"
    rec.write_text('{"players": 2}\n' + '{"shot": {}}\n' * BACKLOG)
    try:
        reader = Reader(broker, "cowboy/%s/d1/action" % HALL).start()
        proc = table(tmp_path, broker, "d1", "settle", "60000", "flight", record=rec)
        out = finish(proc)
        end = time.monotonic() + 60
        while time.monotonic() < end and len({json.loads(p)["pos"] for t, p, r in
                                              list(reader.got)}) < BACKLOG:
            time.sleep(0.1)
        got = reader.stop()
    finally:
        broker.stop()
    assert "SETTLED" in out, out
    # several messages in flight, not one PUBACK awaited at a time: the window full
    assert "FLIGHT 8" in out, out
    stamps = {}
    for t, payload, retained in got:
        m = json.loads(payload)
        assert m["action"] == {"shot": {}}
        stamps.setdefault(m["pos"], len(stamps))
    assert sorted(stamps) == list(range(1, BACKLOG + 1))
    assert [p for p, i in sorted(stamps.items(), key=lambda x: x[1])] == sorted(stamps)
    # and in time: 0.5 s measured here, 30 s when each PUBACK is awaited (about 10
    # actions a second); 15 s leaves a loaded machine room and tells the two apart
    span = reader.times[-1] - reader.times[0]
    print("catch-up: %d actions in %.2f s" % (BACKLOG, span))
    assert span < 15.0


def long_game(limit):
    """A finished two-player game (JSON Lines: header, actions) whose record as a
    board publishes it (`# game 1`, the header with the opener) is as long as
    possible within `limit` bytes: the longest action lines the rules core accepts
    (long fouls and misses, never a third foul in a row), then player 2 fouls out.
    Returns (lines, length of the record)."""
    import record
    from cowboy import codes
    from cowboy import recordtext
    from cowboy.game import Game

    def text(f):
        try:
            return recordtext.action_to_json(recordtext.SHOT, f)
        except IndexError:          # not a facts int the panel can make
            return ""
    pool = sorted(((len(text(f)), f) for f in range(1 << 18)), reverse=True)
    pool = [x for x in pool if x[0] >= 60] + [(12, 0)]     # else a plain miss
    g = Game()
    g.new_game(2, 0)
    lines = []
    size = len("# game 1\n" + recordtext.header_json(2, 0, 0, None, VERSION) + "\n")
    out_lines = ['{"shot": {"first": 0}}', '{"shot": {}}']       # P2's foul, P1's miss
    finish = 3 * sum(len(x) + 1 for x in out_lines) + len(out_lines[1]) + 1
    used = []                       # strokes taken, longest first: tried first
    while True:
        for n, f in used + pool:
            out = g.preview(f)
            if out >= 0 and not out & (codes.WIN | codes.ELIMINATED | codes.FAILED_OPENING) and \
                    not (codes.reason(out) and g.fouls[g.shooter] >= 1):
                break
        else:
            raise AssertionError("no stroke to lengthen the game with")
        if (n, f) not in used:
            used = sorted(used + [(n, f)], reverse=True)
        line = text(f)
        if size + len(line) + 1 + finish > limit:
            break
        assert g.shot(f) == 0
        lines.append(line)
        size += len(line) + 1
    while g.winner < 0:             # player 2 fouls out
        line = out_lines[0] if g.shooter == 1 else out_lines[1]
        assert g.shot(record.facts_from_json(json.loads(line)["shot"])) == 0, line
        lines.append(line)
        size += len(line) + 1
    assert size <= limit
    return ['{"players": 2}'] + lines, size


def test_a_record_within_one_message_goes_whole_and_a_longer_one_in_parts(tmp_path):
    """A finished game whose record is just within net/records.py PART_MAX (the
    longest message a board sends) reaches the broker, a subscriber and the archive
    whole on `game`; one just over it goes in two parts on `part` (each within
    PART_MAX, far below the broker's limit, so nothing a board sends is dropped
    after its PUBACK), which the archive joins; the board delivers every action of
    both."""
    from net.records import PART_MAX
    assert PART_MAX < hallbroker.MESSAGE_LIMIT
    fits, fits_size = long_game(PART_MAX)
    over, over_size = long_game(PART_MAX + 300)
    assert PART_MAX - 150 < fits_size <= PART_MAX < over_size
    (tmp_path / "fits.jsonl").write_text("\n".join(fits) + "\n")
    (tmp_path / "over.jsonl").write_text("\n".join(over) + "\n")
    broker = start_broker(tmp_path, ["e1", "e2"])
    db = tmp_path / "hall.db"
    try:
        reader = Reader(broker, "cowboy/%s/+/+" % HALL).start()
        arch = archive(broker, db, 0, 60)
        procs = [table(tmp_path, broker, name, "settle", "20000", "state", "stats",
                       record=tmp_path / (name_file + ".jsonl"))
                 for name, name_file in (("e1", "fits"), ("e2", "over"))]
        outs = [finish(p) for p in procs]
        stop_archive(arch, db, 2, 20)
        got = reader.stop()
    finally:
        broker.stop()
    for lines in outs:
        assert lines[0] == "SETTLED", lines
    stats = [line.split()[1:] for lines in outs for line in lines if line.startswith("STATS")]
    assert [s[-1] for s in stats] == ["0", "2"]             # parts: e2's record
    records = {t.split("/")[2]: p for t, p, r in got if t.endswith("/game")}
    assert sorted(records) == ["e1"]
    assert len(records["e1"].encode()) == fits_size
    assert records["e1"].splitlines()[2:] == fits[1:]
    parts = [p for t, p, r in got if t.endswith("/e2/part")]
    assert [p.split("\n", 1)[0].split()[4] for p in parts] == ["1/2", "2/2"]
    assert all(len(p.encode()) <= PART_MAX for p in parts)
    whole = "".join(p.split("\n", 1)[1] for p in parts)
    assert len(whole.encode()) == over_size and whole.splitlines()[2:] == over[1:]
    stored = {g["table"]: g["record"] for g in archived(db)}
    assert stored == {"e1": records["e1"], "e2": whole}
    actions = {}
    for t, p, r in got:
        if t.endswith("/action"):
            m = json.loads(p)
            actions.setdefault(t.split("/")[2], set()).add(m["pos"])
    assert actions["e1"] == set(range(1, len(fits)))
    assert actions["e2"] == set(range(1, len(over)))


def test_the_docs_show_the_broker_file_the_tests_run():
    """docs/HALL.md shows hall/broker/mosquitto.conf whole (the file every hall test
    runs, hallbroker.py) and the ACL `make broker` writes (tools/hall_broker.py)."""
    text = open(os.path.join(ROOT, "docs", "HALL.md")).read()
    blocks = text.split("```")[1::2]
    conf = open(hallbroker.CONFIG).read()
    assert ("\n" + conf) in blocks
    import hall_broker
    acl = hall_broker.acl_text("club", ["t01"])         # `make broker`'s, one table
    assert ("\n" + acl.rstrip("\n") + "\n") in blocks


def test_a_game_acknowledged_just_before_a_broker_crash_is_kept(tmp_path):
    """The broker of docs/HALL.md is killed (SIGKILL) at its first save after it
    acknowledged a finished game (a second or two later), while the archive is away:
    after the restart the game is still retained and still queued for the archive."""
    broker = start_broker(tmp_path, ["f1"])
    db = tmp_path / "hall.db"
    try:
        arch = archive(broker, db, 0, 1)       # its persistent session, then away
        arch.communicate(timeout=30)
        out = finish(table(tmp_path, broker, "f1", "play",
                           os.path.join(DATA, "game2.keys"), "settle", "20000", "state"))
        assert out[0] == "SETTLED"
        broker.wait_saved()             # (autosave_interval: a second or two)
        broker.stop(kill=True)
        broker.start()
        retained = collect(broker, "cowboy/%s/f1/+" % HALL, 60, until=lambda got: {
            "state", "game"} <= {t.split("/")[3] for t, p, r in got if r})
        arch = archive(broker, db, 0, 20)
        wait_whole(db, ["f1"], 15)
        arch.terminate()
        arch.communicate(timeout=30)
    finally:
        broker.stop()
    kinds = {t.split("/")[3]: p for t, p, r in retained if r}
    assert kinds.get("state") == hallbroker.published(out[-1][len("STATE "):]), kinds
    assert "game" in kinds, kinds
    games = archived(db)
    assert [g["table"] for g in games] == ["f1"]
    check_game2(games[0], tmp_path)


def test_the_pages_login_cannot_take_over_a_table_or_the_archive(tmp_path):
    """With the broker file of docs/HALL.md, a client logged in as a page (the
    password is in the TV's address) that connects with a table's client id does not
    knock the table off (no second connection, no `offline`), and one that connects
    with the archive's client id and a persistent session does not take the games
    queued for the archive: back, it archives both games finished while it was away
    (retained messages hold only the last)."""
    import test_hall_page
    broker = start_broker(tmp_path, ["h1"])
    db = tmp_path / "hall.db"
    (tmp_path / "next.keys").write_text("OK\nOK\n" + open(os.path.join(DATA, "game2.keys")).read())
    attackers = []
    try:
        arch = archive(broker, db, 0, 1)         # its persistent session, then away
        arch.communicate(timeout=30)
        reader = Reader(broker, "cowboy/%s/h1/status" % HALL).start()
        proc = test_hall_page.Lines(table(tmp_path, broker, "h1", "play",
                                          os.path.join(DATA, "game2.keys"), "settle", "20000", "idle",
                                          "2500", "play", str(tmp_path / "next.keys"), "settle", "20000",
                                          "stats", "idle", "1000"))
        proc.wait_for(lambda line: line == "SETTLED", 30)
        for cid in ("cowboy-%s-h1" % HALL, "h1", "cowboy-archive", "archive"):
            attackers.append(hallbroker.client(broker, "hall2", client_id=cid, clean=False))
            time.sleep(0.2)
        time.sleep(0.5)
        for c in attackers:
            c.disconnect()
            c.loop_stop()
        proc.wait_for(lambda line: line.startswith("STATS"), 60)
        statuses = [p for t, p, r in reader.stop()]     # before the table goes away
        proc.proc.wait(10)
        arch = archive(broker, db, 2, 60)          # (it stops once it has both)
        aout, aerr = arch.communicate(timeout=90)
    finally:
        broker.stop()
    lines = [x for t, x in proc.lines]
    assert lines.count("SETTLED") == 2, lines
    stats = [x for x in lines if x.startswith("STATS")][0].split()
    assert stats[1] == "1", lines                   # one connection all along
    assert "offline" not in statuses, statuses      # its last will never went out
    games = archived(db)
    assert [(g["table"], g["game"]) for g in games] == [("h1", 1), ("h1", 2)], aout + aerr


def archive_killed_while_storing(broker, db):
    """The archive started while another writer holds the database, killed while
    it waits to store what it received: nothing stored (nor acknowledged)."""
    import sqlite3
    lock = sqlite3.connect(str(db))
    lock.execute("BEGIN IMMEDIATE")          # readers may, writers wait
    arch = archive(broker, db, 0, 30)
    time.sleep(2.5)                     # connected, a message received, its INSERT
    arch.kill()                         # waiting for the lock (5 s at most)
    arch.communicate(timeout=10)
    lock.rollback()
    lock.close()
    assert archived(db) == []


def test_an_archive_stopped_while_storing_gets_the_game_again(tmp_path):
    """Two games finish while the archive is away (the broker's retained record is
    only the second). The archive comes back and is killed while it stores the
    first (the database held locked by another writer): nothing may have been
    acknowledged, so on its next start it stores both, from its session's queue
    and the retained record."""
    broker = start_broker(tmp_path, ["k1"])
    db = tmp_path / "hall.db"
    # game2 without its last UNDO and REDO: each game's record is published once
    keys = open(os.path.join(DATA, "game2.keys")).read().splitlines()
    assert [k.split()[0] for k in keys[-2:]] == ["UNDO", "REDO"]
    (tmp_path / "first.keys").write_text("\n".join(keys[:-2]) + "\n")
    (tmp_path / "next.keys").write_text("\n".join(["OK", "OK"] + keys[:-2]) + "\n")
    try:
        arch = archive(broker, db, 0, 1)         # its session and its database, then away
        arch.communicate(timeout=30)
        out = finish(table(tmp_path, broker, "k1", "play",
                           str(tmp_path / "first.keys"), "settle", "20000", "play",
                           str(tmp_path / "next.keys"), "settle", "20000"))
        assert out == ["SETTLED", "SETTLED"]
        archive_killed_while_storing(broker, db)
        arch = archive(broker, db, 0, 20)
        end = time.monotonic() + 15
        while time.monotonic() < end and len(archived(db)) < 2:
            time.sleep(0.2)
        time.sleep(0.5)
        arch.terminate()
        aout, aerr = arch.communicate(timeout=30)
    finally:
        broker.stop()
    assert [(g["table"], g["game"]) for g in archived(db)] == [("k1", 1), ("k1", 2)], aout


def test_the_archive_refuses_what_no_board_sends_and_stays_connected(tmp_path):
    """Retained records no board sends (game numbers out of range or not plain
    digits, names no board has, not UTF-8, a record the rules core refuses, a record
    over the broker's size limit) are refused and logged; the archive stays on its
    one connection and stores the one good record."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["m1"],
                               writes=[("m1", "cowboy/#")]).start()
    db = tmp_path / "hall.db"
    good = "# game 4\n" + open(os.path.join(DATA, "game2.jsonl")).read()
    body = "\n".join(record_lines(os.path.join(DATA, "game2.jsonl"))) + "\n"
    t = "cowboy/%s/m1/game" % HALL
    bad = [(t, "# game %s\n" % n + body) for n in
           ("99999999999999999999", "-5", "\u0663\u0663", "1_3", " 21 ", "21 ", "0",
            "1073741824", "")]
    bad += [("cowboy/%s/%s/game" % (HALL, name), good) for name in
            ("", "x" * 60000, "<img src=x onerror=alert(1)>", "M1", "m1 ", "a" * 13)]
    bad += [("cowboy/%s/m1/game" % name, good) for name in ("", "Club")]
    bad += [(t.replace("m1", "m2"), "# game 5\n" + body.replace("players\": 3", "players\": 9")),
            (t.replace("m1", "m3"), b"# game 6\n\xff\xfe\n"),
            (t.replace("m1", "m4"), "# game 7\n" + body[:-20])]
    big = (t.replace("m1", "m5"), "# game 8\n" + body + "#" * hallbroker.MESSAGE_LIMIT)
    try:
        arch = archive(broker, db, 0, 1)         # its session: every message is queued
        arch.communicate(timeout=30)
        for topic, payload in bad:
            hallbroker.publish(broker, "m1", [(topic, payload, True)])
        hallbroker.publish(broker, "m1", [big + (True,), (t, good, True)])
        arch = archive(broker, db, 0, 3)
        aout, aerr = arch.communicate(timeout=30)
        with open(os.path.join(broker.folder, "mosquitto.log")) as f:
            log = f.read()
    finally:
        broker.stop()
    connects = log.count("as archive ") + log.count("as cowboy-archive ")
    assert connects == 2, aout + aerr               # the first run's, and this one's
    refused = [x for x in aout.splitlines() if ": refused: " in x]
    # everything that reaches cowboy/club/+/game (queued, then retained), refused; the
    # message over the size limit never reaches it (the broker drops it)
    reach = {ascii(topic[:80]) for topic, p in bad
             if topic.startswith("cowboy/club/") and len(topic.split("/")) == 4}
    assert {x.split(": refused: ")[0] for x in refused} == reach, aout
    assert len([x for x in refused if "line 1: not '# game G'" in x]) == 9, aout
    assert not [x for x in aout.splitlines() if "/m5/" in x], aout
    assert [(g["table"], g["game"]) for g in archived(db)] == [("m1", 4)], aout


START = r"""
import sys
import simboard
from net import board

class WLAN:
    def __init__(self, *a): pass
    def active(self, *a): return True
    def connect(self, *a, **kw): pass
    def isconnected(self): return True

class network:
    STA_IF = 0
    WLAN = WLAN

root = sys.argv[1]
t = simboard.Sim(2, "tm1637", root=root)
h = board.start(t.app, network, root)
loaded = set(sys.modules)
print("ONLINE", t.run_real(5000, h.caught_up))
t.play_real([("key", "MISS", False), ("wait", 500, False)])
print("SETTLED", t.run_real(5000, h.caught_up), h.sent)
print("LOADED", " ".join(sorted(set(sys.modules) - loaded)) or "-")
"""


def one_table_script(tmp_path, code, **settings):
    """`code` run under the host MicroPython with one argument, the flash folder of
    table t1 (its hall.json for a Mosquitto started here, with `settings` added);
    the lines it printed."""
    from mpy import FAKES, FIRMWARE, MODELS, check
    broker = start_broker(tmp_path, ["t1"])
    root = tmp_path / "t1"
    root.mkdir()
    (root / "hall.json").write_text(json.dumps(dict({
        "broker": "127.0.0.1", "port": broker.port, "hall": HALL, "table": "t1",
        "user": "t1", "password": hallbroker.PASSWORD}, **settings)))
    try:
        return check(code=code, args=[str(root) + "/"], heapsize="4M",
                     path=(TOOLS, FAKES, MODELS, FIRMWARE)).lines()
    finally:
        broker.stop()


def test_hall_mode_loads_what_its_connection_needs_when_it_starts(tmp_path):
    """net/board.py starts hall mode once the game is shown (factory.started): what
    the client's first connection and its first messages use is loaded then, not in a
    client step of the game (an import there takes milliseconds, and lands in the
    middle of the free heap, docs/PERFORMANCE.md)."""
    out = one_table_script(tmp_path, START, ssid="club")
    assert "ONLINE True" in out and "SETTLED True 1" in out, out
    assert "LOADED -" in out, out


QUIET = r"""
import sys
import simboard

root = sys.argv[1]
t = simboard.Sim(2, "tm1637", root=root)
h = t.join_hall()
print("ONLINE", t.run_real(5000, h.caught_up))
n = [0]
step = h._step

def counted():
    n[0] += 1
    step()
h._step = counted
t.run_real(3000)                    # caught up, nothing comes: a ping after 2 s
print("IDLE", n[0], h.connected)
n[0] = 0
t.play_real([("key", "MISS", False), ("wait", 500, False)] * 3)
print("STROKES", n[0], t.run_real(5000, h.caught_up), h.sent)
"""


def test_a_table_with_nothing_to_send_makes_no_client_step_until_the_line_has_something(
        tmp_path):
    """A client step costs the RP2040 3-5 ms and leaves some 460 bytes of garbage (a
    key pressed meanwhile waits for it, and the garbage for a collection). Caught up,
    the publisher looks at the line (net/mqtt.py Client.idle) and steps only when it
    has something to read, write or ping: 3 s without a stroke, the ping of the
    keep-alive (4 s) and its answer; a stroke, its messages and their PUBACKs."""
    out = one_table_script(tmp_path, QUIET, keepalive=4)
    assert "ONLINE True" in out, out
    idle = [ln.split() for ln in out if ln.startswith("IDLE")][0]
    assert idle[2] == "True" and int(idle[1]) <= 4, out
    strokes = [ln.split() for ln in out if ln.startswith("STROKES")][0]
    assert strokes[2:] == ["True", "3"] and int(strokes[1]) <= 3 * 8, out


AGAIN = r"""
import sys
import simboard

root = sys.argv[1]
t = simboard.Sim(2, "tm1637", root=root)
h = t.join_hall()
print("ONLINE", t.run_real(5000, h.caught_up))
c = h._client
t.play_real([("key", "MISS", False), ("wait", 300, False)])
print("SENT", t.run_real(5000, h.caught_up), h.sent)
poller, flight = c._poll, h._flight
c.close()                           # the line lost: the next connection sends the backlog
t.play_real([("key", "MISS", False), ("wait", 300, False)] * 9)
print("AGAIN", t.run_real(10000, h.caught_up), h.sent, h.connects)
print("SAME", c._poll is poller and poller is not None, h._flight is flight)
"""


def test_a_connection_again_makes_no_new_poller_or_flight_list(tmp_path):
    """What lives as long as a connection is made where the heap's free end is when it
    is made; made in the middle of a catch-up's garbage, it splits the largest free
    block once that garbage is collected (docs/PERFORMANCE.md, "A night of hall mode
    on the Pico W"). The client keeps one poller (and the tuple its ipoll() returns)
    for all its connections, and the publisher one list of the messages in flight,
    with room for WINDOW from the start: a backlog of nine sent after the line came
    back uses both."""
    out = one_table_script(tmp_path, AGAIN)
    assert "ONLINE True" in out and "SENT True 1" in out, out
    assert "AGAIN True 10 2" in out, out
    assert "SAME True True" in out, out
