"""One table's login flooding the archive with parts (docs/HALL.md, "The archive",
Floods): the parts no board sends are refused, each with its line; the others cost
the archive the same however many are kept (SQLite's own count of the work done
for each); and with the real Mosquitto of docs/HALL.md, while the flood goes on,
another table's finished game is stored within 5 s."""
import os
import subprocess
import sys
import threading
import time

import pytest

import hall_archive
import hallbroker
from mpy import ROOT, TOOLS

HALL = "club"
DATA = os.path.join(ROOT, "host_tests", "data")
COUNT = 8000                        # the parts of the flood's record: near the most a
SIZE = COUNT * 3900                 # record of MAX_ACTIONS has, each 3,900 bytes of lines
ACTIONS = 217000

pytestmark = pytest.mark.skipif(hallbroker.mosquitto() is None, reason="needs mosquitto")


def flood_part(k, game=1, count=COUNT, size=SIZE, actions=ACTIONS, lines=39):
    """Part k of a record no board ever finished but whose parts' first lines any
    board's could be: whole lines of 100 bytes, `lines` of them."""
    body = (b"# game %d\n" % game if k == 1 else b"") + (b"{" + b"x" * 98 + b"\n") * lines
    return b"# game %d part %d/%d actions %d names 0 bytes %d\n" % (
        game, k, count, actions, size) + body


GARBAGE = [      # (part, what the archive's line says): none of them any board sends
    (flood_part(5, count=10000, size=10000 * 3900), "a record of 39000000 bytes, more than"),
    (flood_part(6, size=40000 * 100, actions=40000), "more than a record"),
    (flood_part(7, actions=1000), "not a record of 1000 actions"),
    (flood_part(8, lines=20), "a part but the last holds"),
    (flood_part(9, actions=300000), "more than a board holds"),
]


def test_real_records_fit_the_bounds_and_the_flood_is_refused():
    """The bounds hold for the records a board makes (the longest line, a miss,
    the parts of net/records.py); each garbage part is refused for its reason."""
    from cowboy import recordtext
    from net.records import BODY_MAX
    assert len(recordtext.op_json(1 << 20)) + 1 == hall_archive.LINE_MIN    # a plain miss
    lengths = set()
    for w in range(0, 1 << 20, 7):      # (a word with a field out of range has no line)
        try:
            lengths.add(len(recordtext.op_json(1 << 20 | w)))
        except IndexError:
            pass
    assert max(lengths) + 1 <= hall_archive.LINE_MAX and min(lengths) == 12
    assert hall_archive.PART_FULL == BODY_MAX - hall_archive.LINE_MAX + 1
    assert hall_archive.MAX_RECORD >= SIZE > (COUNT - 1) * hall_archive.PART_FULL
    archive = hall_archive.Archive(":memory:")
    t = "cowboy/club/f1/part"
    assert hall_archive.receive(archive, t, flood_part(1)) == "part 1/%d" % COUNT
    for payload, why in GARBAGE:
        with pytest.raises(hall_archive.ArchiveError) as e:
            hall_archive.receive(archive, t, payload)
        assert why in str(e.value), (why, str(e.value))


def test_a_part_costs_the_same_however_many_are_kept(tmp_path):
    """SQLite's virtual machine instructions for storing a part (counted with its
    progress handler): the same for parts 1,901 to 2,000 as for 101 to 200. (Summing
    over the parts kept for every part, the archive's work grew with them.)"""
    archive = hall_archive.Archive(str(tmp_path / "hall.db"))
    archive.db.execute("PRAGMA synchronous=OFF")        # (the test's speed only)
    steps = [0]

    def step():
        steps[0] += 1
        return 0
    archive.db.set_progress_handler(step, 100)
    t = "cowboy/club/f1/part"
    cost = {}
    for k in range(1, 2001):
        if k in (101, 1901):
            steps[0] = 0
        assert hall_archive.receive(archive, t, flood_part(k)) == "part %d/%d" % (k, COUNT)
        if k in (200, 2000):
            cost[k] = steps[0]
    assert cost[2000] <= cost[200] * 1.2 + 10, cost
    # another table's part: also as cheap, though 2,000 of f1's are kept
    steps[0] = 0
    for k in range(1, 101):
        hall_archive.receive(archive, "cowboy/club/f2/part", flood_part(k))
    assert steps[0] <= cost[200] * 1.2 + 10, (steps[0], cost)


class Archive:
    """tools/hall_archive.py listening, each line of its output with when it came."""

    def __init__(self, broker, db):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db", str(db),
             "--port", str(broker.port), "--user", "archive", "--password",
             hallbroker.PASSWORD, "--hall", HALL], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self.cond.notify_all()

    def wait(self, test, seconds):
        """The lines once test(lines) holds; AssertionError after `seconds`."""
        end = time.monotonic() + seconds
        with self.cond:
            while not test(self.lines):
                left = end - time.monotonic()
                assert left > 0 and self.proc.poll() is None, self.lines[-5:]
                self.cond.wait(min(left, 0.2))
            return list(self.lines)

    def stop(self):
        self.proc.terminate()
        err = self.proc.communicate(timeout=30)[1]
        self.reader.join(10)
        return err


def flood(broker, parts, sent):
    """Publish `parts` as table f1 (QoS 1, as fast as the broker takes them);
    sent[0] counts those the broker acknowledged, sent[1] is when the last was."""
    c = hallbroker.client(broker, "f1")

    def on_publish(*args):
        sent[0] += 1
        sent[1] = time.monotonic()
    c.on_publish = on_publish
    try:
        infos = [c.publish("cowboy/%s/f1/part" % HALL, p, qos=1) for p in parts]
        infos[-1].wait_for_publish(120)
        end = time.monotonic() + 60
        while sent[0] < len(parts) and time.monotonic() < end:
            time.sleep(0.05)
    finally:
        c.disconnect()
        c.loop_stop()


def with_garbage(parts):
    """Every tenth message a part of GARBAGE."""
    out = []
    for i, p in enumerate(parts):
        out.append(p)
        if i % 10 == 9:
            out.append(GARBAGE[i // 10 % len(GARBAGE)][0])
    return out


def test_a_flood_of_parts_stalls_no_other_table(tmp_path):
    """3,000 parts of one record (and 300 garbage ones) from table f1's login queued
    while the archive is away, then 6,000 of the next record while it listens:
    the garbage refused with a line each, the parts kept, the last thousand of the
    queued ones stored about as fast as the first; and table g1's finished game,
    published while the second flood goes on, is stored within 5 s."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["f1", "g1"]).start()
    db = tmp_path / "hall.db"
    arch = None
    try:
        arch = Archive(broker, db)          # its persistent session, then away
        arch.wait(lambda lines: any(x.startswith("subscribed") for _, x in lines), 30)
        arch.stop()
        sent = [0, 0]
        first = with_garbage([flood_part(k) for k in range(1, 3001)])
        flood(broker, first, sent)
        assert sent[0] == len(first)
        arch = Archive(broker, db)

        def kept(n, refusals=0, since=0):
            """n parts kept from line `since` on (a part the broker sends again, after a
            reconnection, says so again: each counted once), `refusals` refused."""
            return lambda lines: len({x for _, x in lines[since:] if ": part " in x}) >= n \
                and sum(": refused: " in x for _, x in lines) >= refusals
        lines = arch.wait(kept(3000, 300), 120)
        since = len(lines)                  # (both records' parts read "part K/8000")
        parts = [t for t, x in lines if ": part " in x]
        refused = [x for _, x in lines if ": refused: " in x]
        assert len(refused) == 300, refused[:3]
        for payload, why in GARBAGE:
            assert len([x for x in refused if why in x]) == 60, why
        assert all(x.startswith("'cowboy/club/f1/part': refused: ") for x in refused)
        firsts, lasts = parts[999] - parts[0], parts[2999] - parts[2000]
        assert lasts < 2 * firsts + 0.5, (firsts, lasts)

        # the next record's parts while the archive listens, and g1's game meanwhile
        sent = [0, 0]
        second = [flood_part(k, game=2) for k in range(1, 6001)]
        flooder = threading.Thread(target=flood, args=(broker, second, sent))
        flooder.start()
        while sent[0] < 500 and flooder.is_alive():
            time.sleep(0.01)
        game = "# game 4\n" + open(os.path.join(DATA, "game2.jsonl")).read()
        hallbroker.publish(broker, "g1", [("cowboy/%s/g1/game" % HALL, game, True)])
        published = time.monotonic()
        at = [t for t, x in arch.wait(lambda lines: any(
            x == "'cowboy/club/g1/game': new" for _, x in lines), 60)
            if x == "'cowboy/club/g1/game': new"][0]
        flooder.join(120)
        assert sent[0] == len(second)
        assert at - published < 5, at - published
        assert at < sent[1]             # (stored while the flood went on)
        arch.wait(kept(6000, since=since), 120)
    finally:
        err = arch.stop() if arch is not None and arch.proc.poll() is None else ""
        broker.stop()
    assert "Traceback" not in err, err
    archive = hall_archive.Archive(str(db), create=False)
    assert [r[1:3] for r in archive.rows()] == [("g1", 4)]
    assert archive.db.execute("SELECT tbl, game, COUNT(*) FROM parts GROUP BY tbl").fetchall() \
        == [("f1", 2, 6000)]


def test_an_archive_of_before_counts_its_parts_once(tmp_path):
    """An archive made before `pending` (parts kept, no counts) gets its counts when
    the listener opens it, and goes on joining the record its parts begin."""
    import sqlite3
    from test_hall_long import FOULS, FOUL, miss_game, parts_of
    parts = parts_of(1, miss_game(1274) + [FOUL] * FOULS)
    path = str(tmp_path / "hall.db")
    db = sqlite3.connect(path)
    db.execute(hall_archive.SCHEMA)
    db.execute(hall_archive.PARTS_SCHEMA)
    for p in parts[:3]:
        tag, k, body = hall_archive.read_part(p)
        db.execute("INSERT INTO parts VALUES (?,?,?,?,?,?,?,?,?)",
                   ("club", "t1") + tag + (k, body))
    db.commit()
    db.close()
    archive = hall_archive.Archive(path)
    assert archive.db.execute("SELECT tbl, have, held FROM pending").fetchall() == [
        ("t1", 3, sum(len(p.split(b"\n", 1)[1]) for p in parts[:3]))]
    assert [hall_archive.receive(archive, "cowboy/club/t1/part", p) for p in parts[3:]] == \
        ["part 4/5", "new"]
    assert archive.db.execute("SELECT COUNT(*) FROM pending").fetchone() == (0,)


def test_a_long_record_is_replayed_beside_the_other_tables(tmp_path):
    """The last part of a record longer than JOIN_ALONE (60,000 actions, some 3 s of
    replay through the rules core) leaves its replay to a thread of its own: table
    g1's game, published just after it, is stored first, within 5 s; then the long
    record, once."""
    from test_hall_long import FOULS, FOUL, miss_game, parts_of
    parts = parts_of(1, miss_game(60000) + [FOUL] * FOULS)
    assert sum(len(p.split(b"\n", 1)[1]) for p in parts) > hall_archive.JOIN_ALONE
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["f1", "g1"]).start()
    db = tmp_path / "hall.db"
    arch = None
    long_line, game_line = "'cowboy/club/f1/part': new", "'cowboy/club/g1/game': new"
    try:
        arch = Archive(broker, db)
        arch.wait(lambda lines: any(x.startswith("subscribed") for _, x in lines), 30)
        hallbroker.publish(broker, "f1", [("cowboy/%s/f1/part" % HALL, p, False)
                                          for p in parts])
        game = "# game 4\n" + open(os.path.join(DATA, "game2.jsonl")).read()
        hallbroker.publish(broker, "g1", [("cowboy/%s/g1/game" % HALL, game, True)])
        published = time.monotonic()
        lines = arch.wait(lambda lines: long_line in [x for _, x in lines], 120)
    finally:
        err = arch.stop() if arch is not None and arch.proc.poll() is None else ""
        broker.stop()
    assert "Traceback" not in err, err
    said = [x for _, x in lines]
    assert said.index(game_line) < said.index(long_line), said[-5:]
    assert [t for t, x in lines if x == game_line][0] - published < 5
    assert said.count(long_line) == 1
    archive = hall_archive.Archive(str(db), create=False)
    assert sorted(r[1:3] for r in archive.rows()) == [("f1", 1), ("g1", 4)]


def test_the_next_record_of_a_table_waits_for_the_one_replayed(tmp_path):
    """The first part of table f1's next record, come while its record longer than
    JOIN_ALONE is replayed beside the storing, waits for that one to be stored: both
    records are stored, the long one first (it was not replaced by the next one's
    parts and its last part acknowledged as one the archive had); its last part sent
    again meanwhile waits too, then is one the archive has."""
    from test_hall_long import FOULS, FOUL, miss_game, parts_of
    long = parts_of(1, miss_game(60000) + [FOUL] * FOULS)
    assert sum(len(p.split(b"\n", 1)[1]) for p in long) > hall_archive.JOIN_ALONE
    short = parts_of(2, miss_game(1274) + [FOUL] * FOULS)
    assert len(short) > 1
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["f1"]).start()
    db = tmp_path / "hall.db"
    arch = None
    ends = ("'cowboy/club/f1/part': new", "'cowboy/club/f1/part': same")
    try:
        arch = Archive(broker, db)
        arch.wait(lambda lines: any(x.startswith("subscribed") for _, x in lines), 30)
        hallbroker.publish(broker, "f1", [("cowboy/%s/f1/part" % HALL, p, False)
                                          for p in long + long[-1:] + short])
        lines = arch.wait(lambda lines: len([x for _, x in lines if x in ends]) == 3, 120)
    finally:
        err = arch.stop() if arch is not None and arch.proc.poll() is None else ""
        broker.stop()
    assert "Traceback" not in err, err
    assert [x for _, x in lines if x in ends] == [ends[0], ends[1], ends[0]]
    archive = hall_archive.Archive(str(db), create=False)
    assert sorted(r[1:3] for r in archive.rows()) == [("f1", 1), ("f1", 2)]
    assert archive.db.execute("SELECT COUNT(*) FROM parts").fetchone() == (0,)
