"""Long games in hall mode against a real Mosquitto: a table on the host MicroPython
(the real application and client) finishes a game whose record is longer than one
message of a board (net/records.py PART_MAX) and sends it in parts, and the archive
(tools/hall_archive.py) stores it whole, as one row whose final state is the table's
own, through a power cut, a broker killed, an archive away and killed, an undo after
the end, names given after it and the next game begun mid-send; the archive joins
the parts of one record only, refuses parts no board sends and bounds what it keeps
of incomplete records (docs/HALL.md, "Topics" and "The archive")."""
import json
import os
import subprocess
import sys
import time

import pytest

import fakemqtt
from mpy import MICROPYTHON, TOOLS
import hallbroker
from version import VERSION
from test_hall import HALL, Reader, archive, archive_killed_while_storing, archived, finish, \
    replayed, start_broker, stop_archive

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

MISS = '{"shot": {}}'
FOUL = '{"shot": {"foul": true}}'
FOULS = 5           # the FOUL keys that end a game of misses: one player out on three
# the bytes of the record of miss_game(1274) and its fouls (its header names the firmware)
RECORD_1274 = 16659 + len(', "firmware": "%s"' % VERSION)


def table(tmp_path, broker, name, *commands, record=None, ack=None):
    return hallbroker.table(tmp_path, broker, HALL, name, *commands, record=record, ack=ack)


def miss_game(actions):
    """A two-player game of `actions` actions: plain misses, then FOULS fouls in a row
    (entered on the panel) that put a player out. Returns the record lines of the
    journal the table starts with (the header and the misses)."""
    import record
    from cowboy.game import Game
    lines = ['{"players": 2}'] + [MISS] * (actions - FOULS)
    g = Game()
    g.new_game(2, 0)
    for line in lines[1:]:
        assert g.shot(record.facts_from_json(json.loads(line)["shot"])) == 0
    foul = record.facts_from_json({"foul": True})
    for i in range(FOULS):
        assert g.winner < 0
        assert g.shot(foul) == 0
    assert g.winner >= 0            # the fifth foul ends it, no sooner
    return lines


def standings(db):
    out = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--standings", "--format", "jsonl"],
                         capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def state_of(lines):
    return json.loads([x for x in lines if x.startswith("STATE ")][-1][len("STATE "):])


def finished(tmp_path, name, actions):
    """A table's journal holding a finished game of `actions` actions (miss_game and
    its fouls) whose actions the broker already acknowledged (hall.ack): the board
    has only its state and its record to send. (record file, hall.ack text)."""
    rec = tmp_path / (name + ".jsonl")
    rec.write_text("\n".join(miss_game(actions) + [FOUL] * FOULS) + "\n")
    return rec, "1 %d 0 0 0\n" % actions


def parts_seen(got):
    """[(table, part, count)] of the part messages a Reader got, in order."""
    out = []
    for t, payload, retained in got:
        if t.endswith("/part"):
            k, n = payload.split("\n", 1)[0].split()[4].split("/")
            out.append((t.split("/")[2], int(k), int(n)))
    return out


def test_long_games_reach_the_archive_whole(tmp_path):
    """A 1,274-action and a 4,000-action game (plain misses, then five fouls pressed
    on the panel) each reach the archive as one row: its record replays to the
    state the table shows, and --standings counts both games."""
    games = {"l1": 1274, "l2": 4000}
    broker = start_broker(tmp_path, sorted(games))
    db = tmp_path / "hall.db"
    (tmp_path / "fouls.keys").write_text("FOUL\n" * FOULS)
    try:
        reader = Reader(broker, "cowboy/%s/+/+" % HALL).start()
        arch = archive(broker, db, 0, 90)
        procs = []
        for name, n in sorted(games.items()):
            rec = tmp_path / (name + ".jsonl")
            rec.write_text("\n".join(miss_game(n)) + "\n")
            procs.append(table(tmp_path, broker, name, "play", str(tmp_path / "fouls.keys"),
                               "settle", "60000", "state", "stats", record=rec))
        outs = dict(zip(sorted(games), [finish(p) for p in procs]))
        stop_archive(arch, db, len(games), 30)
        got = reader.stop()
    finally:
        broker.stop()
    stored = {g["table"]: g for g in archived(db)}
    assert sorted(stored) == sorted(games), [x for x in got if "/action" not in x[0]][:5]
    for name, n in games.items():
        lines = outs[name]
        assert "SETTLED" in lines, lines
        own = state_of(lines)
        assert own["phase"] == "over"
        text = stored[name]["record"].splitlines()
        assert text[0] == "# game 1" and len(text) == 2 + n
        assert stored[name]["state"] == own
        assert replayed(text) == own
        assert stored[name]["results"]["winner"] == own["winner"]
    # what went over the broker: the records in parts (5 and 14), no message longer
    # than a board's
    from net.records import PART_MAX
    for t, payload, retained in got:
        assert len(payload.encode()) <= PART_MAX, t
        assert not t.endswith("/game"), t
    parts = parts_seen(got)
    for name, count in (("l1", 5), ("l2", 14)):
        assert [(k, n) for t, k, n in parts if t == name] == [(k, count) for k in
                                                              range(1, count + 1)]
        assert [x for x in outs[name] if x.startswith("STATS")][0].split()[-1] == str(count)
    rows = {r["name"]: r for r in standings(db)}
    assert sorted(rows) == ["Player 1", "Player 2"]
    wins = [0, 0]
    for name in games:
        wins[state_of(outs[name])["winner"] - 1] += 1
    for i, name in enumerate(("Player 1", "Player 2")):
        assert (rows[name]["games"], rows[name]["wins"]) == (2, wins[i]), rows


def test_a_power_cut_mid_send_resends_from_the_first_part_not_acknowledged(tmp_path):
    """The board loses its power with 2 or more of its record's 14 parts acknowledged:
    back on, it sends the parts from the first one the broker had not acknowledged
    (hall.ack keeps the count), never the acknowledged ones again, and the archive
    stores the game whole."""
    broker = start_broker(tmp_path, ["p1"])
    db = tmp_path / "hall.db"
    rec, ack = finished(tmp_path, "p1", 4000)
    try:
        reader = Reader(broker, "cowboy/%s/+/part" % HALL).start()
        arch = archive(broker, db, 0, 60)
        out = finish(table(tmp_path, broker, "p1", "parts", "2", "30000", "cut",
                           "settle", "30000", "state", "stats", record=rec, ack=ack))
        stop_archive(arch, db, 1, 30)
        got = reader.stop()
    finally:
        broker.stop()
    assert "SETTLED" in out, out
    cut = int([x for x in out if x.startswith("PARTS ")][0].split()[1])
    seen = parts_seen(got)
    count = seen[0][2]
    assert count == 14 and 2 <= cut < count, (cut, seen)          # cut mid-send
    sent = [k for t, k, n in seen]
    for k in range(1, count + 1):       # each part; those acknowledged before, once
        assert sent.count(k) >= 1 and (k > cut or sent.count(k) == 1), (k, cut, sent)
    stats = [x for x in out if x.startswith("STATS")][0].split()
    assert int(stats[-1]) == count - cut        # after the cut: only the parts left
    games = archived(db)
    assert len(games) == 1 and len(games[0]["record"].splitlines()) == 4002
    assert games[0]["state"] == state_of(out)


def test_the_broker_killed_mid_send_and_the_archive_away_and_killed_mid_store(tmp_path):
    """With the archive away (its persistent session queues the parts), the board
    hangs with some of its record's parts acknowledged and the broker is killed
    (SIGKILL) and started again: the board resends what was not acknowledged. The
    archive comes back and is killed while it stores a part (another writer holds
    the database): started again, it stores the game whole, once."""
    import sqlite3
    broker = start_broker(tmp_path, ["q1"])
    db = tmp_path / "hall.db"
    rec, ack = finished(tmp_path, "q1", 4000)
    go = tmp_path / "go"
    try:
        arch = archive(broker, db, 0, 1)       # its persistent session, then away
        arch.communicate(timeout=30)
        proc = table(tmp_path, broker, "q1", "parts", "2", "30000", "say", "HOLD",
                     "hold", str(go), "30000", "settle", "30000", "state", "stats",
                     record=rec, ack=ack)
        assert hallbroker.lines_until(proc, "HOLD")[-2].startswith("PARTS ")
        broker.wait_saved()             # (the broker's database saved, as for any game)
        broker.stop(kill=True)
        broker.start()
        go.write_text("")
        out = finish(proc)
        assert "SETTLED" in out, out
        archive_killed_while_storing(broker, db)
        arch = archive(broker, db, 1, 30)
        aout, aerr = arch.communicate(timeout=60)
    finally:
        broker.stop()
    games = archived(db)
    assert [(g["table"], g["game"]) for g in games] == [("q1", 1)], aout + aerr
    assert len(games[0]["record"].splitlines()) == 4002
    assert games[0]["state"] == state_of(out)
    assert aout.count(": new") == 1, aout
    assert sqlite3.connect(str(db)).execute("SELECT COUNT(*) FROM parts").fetchone()[0] == 0


def test_an_undo_after_the_end_and_names_given_after_it_replace_the_long_record(tmp_path):
    """A long game finished, then changed by an undo after its end (the other player
    fouls out instead), then given names: each time the board sends the record again
    in parts, and the archive replaces its row (longer, then names), one row in the
    end: the last record, whose state is the table's."""
    broker = start_broker(tmp_path, ["u1"])
    db = tmp_path / "hall.db"
    rec = tmp_path / "u1.jsonl"
    rec.write_text("\n".join(miss_game(1274)) + "\n")
    (tmp_path / "fouls.keys").write_text("FOUL\n" * FOULS)
    (tmp_path / "undo.keys").write_text("UNDO\nMISS\nFOUL\n")
    try:
        reader = Reader(broker, "cowboy/%s/+/part" % HALL).start()
        arch = archive(broker, db, 3, 60)
        proc = table(tmp_path, broker, "u1", "play", str(tmp_path / "fouls.keys"),
                     "settle", "30000", "state", "play", str(tmp_path / "undo.keys"),
                     "settle", "30000", "state", "set-names", "Anna|Zoë", "settle", "30000",
                     "names", "stats", record=rec, ack="1 %d 0 0 0\n" % (1274 - FOULS))
        out = finish(proc)
        aout, aerr = arch.communicate(timeout=60)
        got = reader.stop()
    finally:
        broker.stop()
    assert out.count("SETTLED") == 3, out
    first, second = [json.loads(x[len("STATE "):]) for x in out if x.startswith("STATE ")]
    assert first["winner"] != second["winner"]          # the undo changed the game
    told = [x.split(": ")[1] for x in aout.splitlines() if "/u1/part': " in x and
            ": part " not in x]
    assert told == ["new", "longer", "names"], aout
    games = archived(db)
    assert len(games) == 1
    lines = games[0]["record"].splitlines()
    assert len(lines) == 2 + 1274 + 3 and lines[-3:] == ['{"undo": true}', MISS, FOUL]
    assert json.loads(lines[1])["names"] == ["Anna", "Zoë"]
    want = dict(second, names=["Anna", "Zoë"])
    assert games[0]["state"] == want
    assert replayed(lines) == second
    # three records, each sent whole in parts
    counts = [n for t, k, n in parts_seen(got) if k == 1]
    assert len(counts) == 3 and min(counts) >= 5, parts_seen(got)


class HeldClient(fakemqtt.Client):
    """The stand-in MQTT client (host_tests/fakes/fakemqtt.py) recording each message
    and acknowledging all but the parts after the first `allowed`: their PUBACKs
    are held until `allowed` grows."""
    allowed = 0
    log = []                # (topic, payload bytes)
    pid = 0
    parts = {}              # packet id -> part number

    async def publish(self, topic, payload, qos=0, retain=False):
        HeldClient.pid += 1
        payload = payload.encode() if type(payload) is str else bytes(payload)
        HeldClient.log.append((topic, payload))
        if topic.endswith("/part"):
            HeldClient.parts[HeldClient.pid] = int(payload.split(b" ")[4].split(b"/")[0])
        return HeldClient.pid

    def acked(self, pid):
        return HeldClient.parts.get(pid, 0) <= HeldClient.allowed


def test_a_new_game_begun_mid_send_the_record_goes_on_from_games(tmp_path):
    """The next game is begun while the long record is being sent (parts 3 to 10 in
    flight, their PUBACKs held): the finished game moves from the journal into
    games/, and the rest of its record is read from there, without an error (the
    journal now holds the next game); the parts make the record whole."""
    import simboard
    import test_hall_menu
    from net import hall
    root = tmp_path / "board"
    root.mkdir()
    lines = miss_game(4000) + [FOUL] * FOULS
    (tmp_path / "g.jsonl").write_text("\n".join(lines) + "\n")
    subprocess.run([sys.executable, os.path.join(TOOLS, "journal.py"), "to-binary",
                    str(tmp_path / "g.jsonl"), str(root / "journal.bin")], check=True)
    (root / "hall.json").write_text(json.dumps({"broker": "127.0.0.1", "hall": HALL,
                                                "table": "n1"}))
    (root / "hall.ack").write_text("1 4000 0 0 0\n")
    HeldClient.allowed, HeldClient.log, HeldClient.parts = 2, [], {}
    s = simboard.Sim(2, "tm1637", root=str(root) + "/")
    s.hall = hall.attach(s.app, s.root, client=HeldClient)

    def parts():
        return [p for t, p in HeldClient.log if t.endswith("/part")]
    test_hall_menu.until(s, lambda: len(parts()) == 10 and s.hall.parts == 2, 20)
    test_hall_menu.keys(s, "OK", "OK", "3", "OK", "MISS")            # the next game, begun
    assert s.hall.current_game() == 2 and (root / "games" / "000001.jnl").exists()
    assert len(parts()) == 10                           # (the window full meanwhile)
    HeldClient.allowed = 14
    test_hall_menu.until(s, s.hall.caught_up, 20)
    last = {}
    for p in parts():
        head, body = p.split(b"\n", 1)
        last[int(head.split(b" ")[4].split(b"/")[0])] = body
    assert sorted(last) == list(range(1, 15))
    text = b"".join(last[k] for k in sorted(last)).decode().splitlines()
    assert text[0] == "# game 1" and \
        json.loads(text[1]) == {"players": 2, "opener": 1, "firmware": VERSION}
    assert text[2:] == lines[1:]
    # the parts in flight when the game moved are sent again, read from games/
    # (parts 3 to 10 were acknowledged by then: the rest from 11 on, once each)
    assert [int(p.split(b" ")[4].split(b"/")[0]) for p in parts()] == list(range(1, 15))
    assert s.hall.errors == 0 and s.hall.parts == 14
    s.hall.close()


# ---- the archive's side ------------------------------------------------------------------

def parts_of(g, lines, names=None):
    """The messages a board sends of game g's record (record lines: header, actions),
    built by net/records.py as the board builds them."""
    import record
    from app import playernames
    from net import records
    ops = []
    for line in lines[1:]:
        obj = json.loads(line)
        if "shot" in obj:
            ops.append(1 << 20 | record.facts_from_json(obj["shot"]))
        else:
            ops.append((2 if "undo" in obj else 3) << 20)
    rec = records.Record(g, json.loads(lines[0])["players"], 0, 0, ops, names,
                         playernames.fingerprint(names))
    while not rec.measure():
        pass
    out = []
    while not rec.done():
        out.append(bytes(rec.message()))
    return out


def new_archive(tmp_path):
    import hall_archive
    return hall_archive, hall_archive.Archive(str(tmp_path / "hall.db"))


def kept(a):
    return a.db.execute("SELECT hall, tbl, game, actions, part FROM parts ORDER BY hall, tbl, "
                        "part").fetchall()


def test_the_archive_joins_the_parts_of_one_record_only(tmp_path):
    """Parts in order, again, out of order, and parts of another record of the same
    game (sent again after an undo, or with other names) or of an earlier game: the
    archive joins only the parts of one record, stores it when all have come, and
    never mixes parts of two records."""
    hall_archive, a = new_archive(tmp_path)
    t = "cowboy/club/t1/part"
    one = miss_game(1274) + [FOUL] * FOULS
    p1 = parts_of(1, one)
    assert len(p1) == 5
    assert [hall_archive.receive(a, t, p) for p in p1[:2]] == ["part 1/5", "part 2/5"]
    assert hall_archive.receive(a, t, p1[1]) == "part 2/5"              # again: kept once
    assert [hall_archive.receive(a, t, p) for p in (p1[4], p1[3])] == ["part 5/5", "part 4/5"]
    assert len(kept(a)) == 4
    a2 = hall_archive.Archive(str(tmp_path / "hall.db"))               # (an archive restarted)
    assert hall_archive.receive(a2, t, p1[2]) == "new" and kept(a2) == []
    a = a2
    text = b"".join(p.split(b"\n", 1)[1] for p in p1).decode()
    assert [g[5] for g in a.rows()] == [text]
    assert hall_archive.receive(a, t, p1[0]) == "same" and kept(a) == []   # a resend: nothing kept
    # the game changed after its end: its record sent again, the first parts of it
    # come, then it is given names and sent again: the parts of the second never
    # join the third's
    two = one[:-1] + ['{"undo": true}', MISS, FOUL]
    p2 = parts_of(1, two)
    p3 = parts_of(1, two, ["Anna", "Zoë"])
    assert hall_archive.receive(a, t, p2[0]) == "part 1/5"
    assert hall_archive.receive(a, t, p2[1]) == "part 2/5"
    for p in p3[:-1]:
        assert hall_archive.receive(a, t, p).startswith("part ")
    assert hall_archive.receive(a, t, p2[2]) == "part 3/5"      # (a late one: the kept parts go)
    assert [k[4] for k in kept(a)] == [3]
    for p in p3:
        hall_archive.receive(a, t, p)
    assert kept(a) == []
    row = a.rows()[0]
    assert row[5] == b"".join(p.split(b"\n", 1)[1] for p in p3).decode()
    assert json.loads(row[6])["names"] == ["Anna", "Zoë"]
    for p in p1 + p3:               # a record of fewer actions, or this one: ignored
        assert hall_archive.receive(a, t, p) == "same"
    assert kept(a) == [] and len(a.rows()) == 1
    # the next game's parts, with a resent part of the game before among them
    p4 = parts_of(2, one)
    assert hall_archive.receive(a, t, p4[0]) == "part 1/5"
    assert hall_archive.receive(a, t, p3[2]) == "same"
    assert [hall_archive.receive(a, t, p) for p in p4[1:]][-1] == "new"
    assert [(r[1], r[2]) for r in a.rows()] == [("t1", 1), ("t1", 2)]
    # another table's parts are its own
    assert hall_archive.receive(a, "cowboy/club/t2/part", p4[0]) == "part 1/5"
    assert kept(a) == [("club", "t2", 2, 1274, 1)]


def test_the_archive_refuses_parts_no_board_sends(tmp_path):
    """Each refused with its reason (ArchiveError), the table's kept parts of a good
    record untouched unless the bad part completes a set that makes no record."""
    hall_archive, a = new_archive(tmp_path)
    t = "cowboy/club/t1/part"
    good = parts_of(3, miss_game(1274) + [FOUL] * FOULS)
    first, body = good[1].split(b"\n", 1)
    head = "# game 3 part 2/5 actions 1274 names 0 bytes %d" % RECORD_1274
    size = "bytes %d" % RECORD_1274
    assert first == head.encode()
    assert hall_archive.receive(a, t, good[0]) == "part 1/5"

    def line(text, rest=body):
        return text.encode() + b"\n" + rest
    bad = {
        "more than 4096": good[1] + b"x" * 4000,
        "not UTF-8": line(head, b'{"shot": "\xff"}\n'),
        "line 1": line(head.split(" actions")[0]),
        "line 1:": line(head.replace("game 3", "game 03")),
        "line 1: ": line(head + " "),
        "range": line(head.replace("names 0", "names 99999999")),
        "range ": line(head.replace("game 3", "game 1073741824")),
        "not the parts": line(head.replace("2/5", "6/5")),
        "not the parts ": line(head.replace("2/5", "1/1")),
        "not the parts  ": line(head.replace(size, "bytes 4096")),
        "not the parts   ": line(head.replace("2/5", "2/2")),
        "more than": line(head.replace("2/5", "2/99999").replace(size, "bytes 99999999")),
        "whole lines": line(head, body[:-1]),
        "begins with": line(head, b"# game 3\n" + body),
        "does not begin": line(head.replace("2/5", "1/5")),
    }
    for why, payload in bad.items():
        with pytest.raises(hall_archive.ArchiveError) as e:
            hall_archive.receive(a, t, payload)
        assert why.strip() in str(e.value), (why, str(e.value))
    with pytest.raises(hall_archive.ArchiveError):
        hall_archive.receive(a, "cowboy/club/T1/part", good[1])
    assert [k[4] for k in kept(a)] == [1]
    # parts that make no record: refused when the set is complete, and dropped
    for name, lines in (("an action line changed",
                         [x.replace(b'{"shot": {}}\n{"shot": {}}', b'{"shot": {}}\n{"shit": {}}')
                          for x in good]),
                        ("another number of actions",
                         [x.replace(b"actions 1274", b"actions 1273") for x in good])):
        for p in lines[:-1]:
            hall_archive.receive(a, "cowboy/club/t9/part", p)
        with pytest.raises(hall_archive.ArchiveError):
            hall_archive.receive(a, "cowboy/club/t9/part", lines[-1])
        assert [k[1] for k in kept(a)] == ["t1"], name
    assert a.rows() == []


def test_the_archive_keeps_incomplete_records_within_its_bound(tmp_path, monkeypatch):
    """The parts of incomplete records are kept to MAX_INCOMPLETE bytes together: a
    table's part that would take them past it drops other tables' incomplete
    records, the oldest first; a record longer than MAX_RECORD is refused."""
    hall_archive, a = new_archive(tmp_path)
    p = parts_of(1, miss_game(4000) + [FOUL] * FOULS)
    monkeypatch.setattr(hall_archive, "MAX_INCOMPLETE", 3 * 4096)
    for name in ("t1", "t2", "t3"):
        hall_archive.receive(a, "cowboy/club/%s/part" % name, p[0])
    hall_archive.receive(a, "cowboy/club/t3/part", p[1])
    assert sorted({k[1] for k in kept(a)}) == ["t2", "t3"]
    hall_archive.receive(a, "cowboy/club/t3/part", p[2])
    assert sorted({k[1] for k in kept(a)}) == ["t3"]
    monkeypatch.setattr(hall_archive, "MAX_RECORD", 50000)
    with pytest.raises(hall_archive.ArchiveError) as e:
        hall_archive.receive(a, "cowboy/club/t4/part", p[0])
    assert "more than 50000" in str(e.value)


def test_the_archive_refuses_bad_parts_and_stays_connected(tmp_path):
    """Parts no board sends, queued for the archive's session and retained, among the
    parts of a good long record: each bad one refused and reported (`TOPIC:
    refused: why`), the good record stored, the archive on its one connection."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["m1"],
                               writes=[("m1", "cowboy/#")]).start()
    db = tmp_path / "hall.db"
    t = "cowboy/%s/m1/part" % HALL
    good = parts_of(4, miss_game(1274) + [FOUL] * FOULS)
    head, body = good[1].split(b"\n", 1)
    bad = [(t.replace("m1", "m2"), good[1] + b"#" * 5000),
           (t.replace("m1", "m3"), head + b"\n" + b'{"shot": "\xff"}\n'),
           (t.replace("m1", "m4"), b"# game 4 part 2\n" + body),
           (t.replace("m1", "m5"), head.replace(b"2/5", b"7/5") + b"\n" + body),
           (t.replace("m1", "M6"), good[1]),
           ("cowboy/%s/m7/parts" % HALL, good[1])]
    try:
        arch = archive(broker, db, 0, 1)         # its session: every message is queued
        arch.communicate(timeout=30)
        msgs = [(topic, payload, True) for topic, payload in bad]
        msgs += [(t, p, False) for p in good[:3]] + [bad[0][:1] + (good[3], True)]
        msgs += [(t, p, False) for p in good[3:]]
        hallbroker.publish(broker, "m1", msgs)
        arch = archive(broker, db, 0, 3)
        aout, aerr = arch.communicate(timeout=30)
        with open(os.path.join(broker.folder, "mosquitto.log")) as f:
            log = f.read()
    finally:
        broker.stop()
    assert log.count("as archive ") + log.count("as cowboy-archive ") == 2, aout + aerr
    refused = {x.split(": refused: ")[0] for x in aout.splitlines() if ": refused: " in x}
    assert refused == {ascii(topic) for topic, p in bad[:5]}, aout
    assert [(g["table"], g["game"]) for g in archived(db)] == [("m1", 4)], aout
    assert "'cowboy/club/m1/part': new" in aout
