"""Long games in hall mode: a record longer than one message of a board (net/records.py
PART_MAX) comes in parts, and the archive (tools/hall_archive.py) joins the parts of
one record only, refuses parts no board sends and bounds what it keeps of
incomplete records (docs/HALL.md, "Topics" and "The archive")."""
import json
import os

import pytest

from mpy import MICROPYTHON
import hallbroker
from test_hall import HALL, archive, archived

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

MISS = '{"shot": {}}'
FOUL = '{"shot": {"foul": true}}'
FOULS = 5           # the FOUL keys that end a game of misses: one player out on three


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


# ---- the archive's side, without a broker ----------------------------------------------

def parts_of(g, lines, names=None):
    """The messages a board sends of game g's record (record lines: header, actions),
    built by net/records.py as the board builds them."""
    import record
    from app import playernames as PN
    from net import records as R
    ops = []
    for line in lines[1:]:
        obj = json.loads(line)
        if "shot" in obj:
            ops.append(1 << 20 | record.facts_from_json(obj["shot"]))
        else:
            ops.append((2 if "undo" in obj else 3) << 20)
    rec = R.Record(g, json.loads(lines[0])["players"], 0, 0, ops, names, PN.fingerprint(names))
    while not rec.measure():
        pass
    out = []
    while not rec.done():
        out.append(bytes(rec.message()))
    return out


def new_archive(tmp_path):
    import hall_archive as A
    return A, A.Archive(str(tmp_path / "hall.db"))


def kept(a):
    return a.db.execute("SELECT hall, tbl, game, actions, part FROM parts ORDER BY hall, tbl, "
                        "part").fetchall()


def test_the_archive_joins_the_parts_of_one_record_only(tmp_path):
    """Parts in order, again, out of order, and parts of another record of the same
    game (sent again after an undo, or with other names) or of an earlier game: the
    archive joins only the parts of one record, stores it when all have come, and
    never mixes parts of two records."""
    A, a = new_archive(tmp_path)
    t = "cowboy/club/t1/part"
    one = miss_game(1274) + [FOUL] * FOULS
    p1 = parts_of(1, one)
    assert len(p1) == 5
    assert [A.receive(a, t, p) for p in p1[:2]] == ["part 1/5", "part 2/5"]
    assert A.receive(a, t, p1[1]) == "part 2/5"              # again: kept once
    assert [A.receive(a, t, p) for p in (p1[4], p1[3])] == ["part 5/5", "part 4/5"]
    assert len(kept(a)) == 4
    a2 = A.Archive(str(tmp_path / "hall.db"))               # (an archive restarted)
    assert A.receive(a2, t, p1[2]) == "new" and kept(a2) == []
    a = a2
    text = b"".join(p.split(b"\n", 1)[1] for p in p1).decode()
    assert [g[5] for g in a.rows()] == [text]
    assert A.receive(a, t, p1[0]) == "same" and kept(a) == []   # a resend: nothing kept
    # the game changed after its end: its record sent again, the first parts of it
    # come, then it is given names and sent again: the parts of the second never
    # join the third's
    two = one[:-1] + ['{"undo": true}', MISS, FOUL]
    p2 = parts_of(1, two)
    p3 = parts_of(1, two, ["Anna", "Zoë"])
    assert A.receive(a, t, p2[0]) == "part 1/5"
    assert A.receive(a, t, p2[1]) == "part 2/5"
    for p in p3[:-1]:
        assert A.receive(a, t, p).startswith("part ")
    assert A.receive(a, t, p2[2]) == "part 3/5"      # (a late one: the kept parts go)
    assert [k[4] for k in kept(a)] == [3]
    for p in p3:
        A.receive(a, t, p)
    assert kept(a) == []
    row = a.rows()[0]
    assert row[5] == b"".join(p.split(b"\n", 1)[1] for p in p3).decode()
    assert json.loads(row[6])["names"] == ["Anna", "Zoë"]
    for p in p1 + p3:               # a record of fewer actions, or this one: ignored
        assert A.receive(a, t, p) == "same"
    assert kept(a) == [] and len(a.rows()) == 1
    # the next game's parts, with a resent part of the game before among them
    p4 = parts_of(2, one)
    assert A.receive(a, t, p4[0]) == "part 1/5"
    assert A.receive(a, t, p3[2]) == "same"
    assert [A.receive(a, t, p) for p in p4[1:]][-1] == "new"
    assert [(r[1], r[2]) for r in a.rows()] == [("t1", 1), ("t1", 2)]
    # another table's parts are its own
    assert A.receive(a, "cowboy/club/t2/part", p4[0]) == "part 1/5"
    assert kept(a) == [("club", "t2", 2, 1274, 1)]


def test_the_archive_refuses_parts_no_board_sends(tmp_path):
    """Each refused with its reason (ArchiveError), the table's kept parts of a good
    record untouched unless the bad part completes a set that makes no record."""
    A, a = new_archive(tmp_path)
    t = "cowboy/club/t1/part"
    good = parts_of(3, miss_game(1274) + [FOUL] * FOULS)
    first, body = good[1].split(b"\n", 1)
    assert first == b"# game 3 part 2/5 actions 1274 names 0 bytes 16659"
    assert A.receive(a, t, good[0]) == "part 1/5"

    def line(text, rest=body):
        return text.encode() + b"\n" + rest
    bad = {
        "more than 4096": good[1] + b"x" * 4000,
        "not UTF-8": line("# game 3 part 2/5 actions 1274 names 0 bytes 16659",
                          b'{"shot": "\xff"}\n'),
        "line 1": line("# game 3 part 2/5"),
        "line 1:": line("# game 03 part 2/5 actions 1274 names 0 bytes 16659"),
        "line 1: ": line("# game 3 part 2/5 actions 1274 names 0 bytes 16659 "),
        "range": line("# game 3 part 2/5 actions 1274 names 99999999 bytes 16659"),
        "range ": line("# game 1073741824 part 2/5 actions 1274 names 0 bytes 16659"),
        "not the parts": line("# game 3 part 6/5 actions 1274 names 0 bytes 16659"),
        "not the parts ": line("# game 3 part 1/1 actions 1274 names 0 bytes 16659"),
        "not the parts  ": line("# game 3 part 2/5 actions 1274 names 0 bytes 4096"),
        "not the parts   ": line("# game 3 part 2/2 actions 1274 names 0 bytes 16659"),
        "more than": line("# game 3 part 2/99999 actions 1274 names 0 bytes 99999999"),
        "whole lines": line("# game 3 part 2/5 actions 1274 names 0 bytes 16659", body[:-1]),
        "begins with": line("# game 3 part 2/5 actions 1274 names 0 bytes 16659",
                            b"# game 3\n" + body),
        "does not begin": line("# game 3 part 1/5 actions 1274 names 0 bytes 16659"),
    }
    for why, payload in bad.items():
        with pytest.raises(A.ArchiveError) as e:
            A.receive(a, t, payload)
        assert why.strip() in str(e.value), (why, str(e.value))
    with pytest.raises(A.ArchiveError):
        A.receive(a, "cowboy/club/T1/part", good[1])
    assert [k[4] for k in kept(a)] == [1]
    # parts that make no record: refused when the set is complete, and dropped
    for name, lines in (("an action line changed",
                         [x.replace(b'{"shot": {}}\n{"shot": {}}', b'{"shot": {}}\n{"shit": {}}')
                          for x in good]),
                        ("another number of actions",
                         [x.replace(b"actions 1274", b"actions 1273") for x in good])):
        for p in lines[:-1]:
            A.receive(a, "cowboy/club/t9/part", p)
        with pytest.raises(A.ArchiveError):
            A.receive(a, "cowboy/club/t9/part", lines[-1])
        assert [k[1] for k in kept(a)] == ["t1"], name
    assert a.rows() == []


def test_the_archive_keeps_incomplete_records_within_its_bound(tmp_path, monkeypatch):
    """The parts of incomplete records are kept to MAX_INCOMPLETE bytes together: a
    table's part that would take them past it drops other tables' incomplete
    records, the oldest first; a record longer than MAX_RECORD is refused."""
    A, a = new_archive(tmp_path)
    p = parts_of(1, miss_game(4000) + [FOUL] * FOULS)
    monkeypatch.setattr(A, "MAX_INCOMPLETE", 3 * 4096)
    for name in ("t1", "t2", "t3"):
        A.receive(a, "cowboy/club/%s/part" % name, p[0])
    A.receive(a, "cowboy/club/t3/part", p[1])
    assert sorted({k[1] for k in kept(a)}) == ["t2", "t3"]
    A.receive(a, "cowboy/club/t3/part", p[2])
    assert sorted({k[1] for k in kept(a)}) == ["t3"]
    monkeypatch.setattr(A, "MAX_RECORD", 50000)
    with pytest.raises(A.ArchiveError) as e:
        A.receive(a, "cowboy/club/t4/part", p[0])
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

