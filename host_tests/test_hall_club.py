"""A club night against the real Mosquitto (docs/HALL.md, "A club night"): 12 players
on 6 tables. The desk (a paho client with the desk's login, as the desk page sends)
offers each table its game with names; each table (the real application, its hall
publisher and the real MQTT client on the host MicroPython) accepts on its panel,
plays a scripted game to its end and publishes it; the archive stores the games and
`tools/hall_archive.py --standings` equals the standings worked out by hand below.
On the way: an offer sent while a game is in progress changes nothing until it
ends; a rebooted table does not offer an accepted offer again.

Each table plays: the opener pockets the 3 ball k times (3 points each) and misses;
the other player fouls; the opener misses; a foul; a miss; a third foul: out. So
the opener wins with 3k points in 3 innings (best 3k), the other has 0 points, 3
innings, 3 fouls and is out."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import hallbroker
from mpy import MICROPYTHON, TOOLS

HALL = "club"
TABLES = ["t1", "t2", "t3", "t4", "t5", "t6"]
# round 1 of the evening: (table, names, opener (1-based), k)
ROUND = [("t1", ["Anna B", "Anna K"], 1, 1), ("t2", ["Ben", "Cleo"], 2, 2),
         ("t3", ["Dan", "Zoë"], 1, 3), ("t4", ["Émile", "Fay"], 2, 4),
         ("t5", ["Gus", "Hal"], 1, 5), ("t6", ["Ivy", "Jo"], 2, 6)]
# sent to t1 while its first game is in progress: Jo (opens, k = 1) against Anna B
SECOND = ("t1", ["Jo", "Anna B"], 1, 1)

# By hand: a winner of round 1 with k has 3k points in 3 innings (average k, best
# 3k); each loser 0 points, 3 innings, 3 fouls, out once. Jo also wins t1's second
# game with 3 in 3 innings: 2 games, 2 wins, 21 points, 6 innings, average 3.50,
# best 18. Anna B loses it: 2 games, 1 win, 3 points, 6 innings, average 0.50,
# best 3, 3 fouls, out once. Order: wins, then average, then points, then the name
# by code point (É after Z); the six without a win are equal and share rank 7.
STANDINGS = [
    # rank, name, games, wins, points, innings, average, best, fouls, out
    (1, "Jo", 2, 2, 21, 6, 3.5, 18, 0, 0),
    (2, "Gus", 1, 1, 15, 3, 5.0, 15, 0, 0),
    (3, "Fay", 1, 1, 12, 3, 4.0, 12, 0, 0),
    (4, "Dan", 1, 1, 9, 3, 3.0, 9, 0, 0),
    (5, "Cleo", 1, 1, 6, 3, 2.0, 6, 0, 0),
    (6, "Anna B", 2, 1, 3, 6, 0.5, 3, 3, 1),
    (7, "Anna K", 1, 0, 0, 3, 0.0, 0, 3, 1),
    (7, "Ben", 1, 0, 0, 3, 0.0, 0, 3, 1),
    (7, "Hal", 1, 0, 0, 3, 0.0, 0, 3, 1),
    (7, "Ivy", 1, 0, 0, 3, 0.0, 0, 3, 1),
    (7, "Zoë", 1, 0, 0, 3, 0.0, 0, 3, 1),
    (7, "Émile", 1, 0, 0, 3, 0.0, 0, 3, 1),
]
COLUMNS = ("rank", "name", "games", "wins", "points", "innings", "average", "best",
           "fouls", "out")

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def game_innings(k, j=0):
    """One game as its innings, (seat, balls pocketed, the stroke that ends it), seat
    1 the opener, 2 the other: the opener pockets the 3 k times and misses; the
    other (j > 0) pockets the 5 j times and misses, and the opener misses again;
    then the other fouls, the opener misses, twice more: the other is out on three
    fouls. By hand: the opener wins with 3k points (best 3k), no foul; the other
    has 5j (best 5j), 3 fouls, out once; 3 innings each, 4 with j."""
    out = [(1, [3] * k, "MISS")]
    if j:
        out += [(2, [5] * j, "MISS"), (1, [], "MISS")]
    return out + [(2, [], "FOUL"), (1, [], "MISS"), (2, [], "FOUL"), (1, [], "MISS"),
                  (2, [], "FOUL")]


def inning_keys(innings):
    """The panel's key lines of `innings` (game_innings): each ball, then OK."""
    out = []
    for seat, balls, end in innings:
        for b in balls:
            out += [str(b), "OK"]
        out.append(end)
    return out


def game_keys(k, j=0):
    """The key commands of one game (game_innings)."""
    out = []
    for key in inning_keys(game_innings(k, j)):
        out += ["key", key]
    return out


def offer(table, names, opener, oid):
    return json.dumps({"id": oid, "players": len(names), "opener": opener,
                       "names": names, "rules": []}, ensure_ascii=False).encode()


class Desk:
    """The desk: sends offers (retained) and keeps every table's answers."""

    def __init__(self, broker):
        self.answers = {}
        self.cond = threading.Condition()

        def on_message(c, userdata, msg):
            with self.cond:
                self.answers.setdefault(msg.topic.split("/")[2], []).append(
                    json.loads(msg.payload))
                self.cond.notify_all()
        self.c = hallbroker.client(broker, "desk", on_message=on_message)
        hallbroker.subscribe(self.c, "cowboy/%s/+/answer" % HALL)

    def send(self, table, payload):
        self.c.publish("cowboy-desk/%s/%s/offer" % (HALL, table), payload, qos=1,
                       retain=True).wait_for_publish(hallbroker.GUARD)

    def wait(self, table, want, seconds=30):
        end = time.monotonic() + seconds
        with self.cond:
            while want not in self.answers.get(table, []) and time.monotonic() < end:
                self.cond.wait(0.1)
            assert want in self.answers.get(table, []), (table, self.answers.get(table))

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


def test_a_club_night(tmp_path):
    broker = hallbroker.Broker(tmp_path / "broker", HALL, TABLES).start()
    db = tmp_path / "hall.db"
    go_on = tmp_path / "second-offer-seen"
    arch = subprocess.Popen([sys.executable, os.path.join(TOOLS, "hall_archive.py"),
                             "--db", str(db), "--port", str(broker.port), "--user", "archive",
                             "--password", hallbroker.PASSWORD, "--hall", HALL,
                             "--games", "7", "--seconds", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=hallbroker.one_night())
    desk = Desk(broker)
    procs = {}
    try:
        time.sleep(0.5)
        # the desk sends round 1 before the tables are on: the offers are retained
        for table, names, opener, k in ROUND:
            desk.send(table, offer(table, names, opener, "r1-" + table))
        for table, names, opener, k in ROUND:
            cmds = ["setup", "2", "1", "0", "wait-offer", "30000", "key", "OK"]
            if table == "t1":
                keys = game_keys(k)
                cmds += keys[:6] + ["say", "HALFWAY", "until", str(go_on), "30000", "desk"]
                cmds += keys[6:] + ["settle", "10000", "wait-offer", "10000", "key", "OK"]
                cmds += game_keys(SECOND[3])
            else:
                cmds += game_keys(k)
            cmds += ["settle", "10000", "names", "state", "desk"]
            if table == "t2":
                cmds += ["cut", "idle", "4000", "desk", "wait-offer", "500"]
            procs[table] = hallbroker.table(tmp_path, broker, HALL, table, *cmds)
        # t1 mid-game: the second offer waits, the game goes on unchanged
        early = hallbroker.lines_until(procs["t1"], "HALFWAY", 60)
        desk.send("t1", offer("t1", SECOND[1], SECOND[2], "r1-t1-b"))
        desk.wait("t1", {"id": "r1-t1-b", "answer": "seen", "waits": "game"})
        go_on.write_text("")
        outs = {}
        for table, p in procs.items():
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0 and "Traceback" not in out + err, out + err
            outs[table] = (early if table == "t1" else []) + out.splitlines()
        for table, names, opener, k in ROUND:
            desk.wait(table, {"id": "r1-" + table, "answer": "accepted"})
        desk.wait("t1", {"id": "r1-t1-b", "answer": "accepted"})
        aout, aerr = arch.communicate(timeout=150)
    finally:
        desk.close()
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        if arch.poll() is None:
            arch.kill()
        broker.stop()
    # every table took its offer on its panel and played it with its names
    for table, names, opener, k in ROUND:
        lines = outs[table]
        assert "OFFER r1-" + table in lines, lines
        want = SECOND[1] if table == "t1" else names
        assert "NAMES " + "|".join(want + [""] * 6) in lines, lines
        state = json.loads([x for x in lines if x.startswith("STATE ")][-1][6:])
        assert state["phase"] == "over"
    # t1: the second offer waited through the game in progress (mode 1: the game)
    t1 = outs["t1"]
    assert "DESK 2 0 0 1 r1-t1-b" in t1 and "OFFER r1-t1-b" in t1
    # t2 rebooted: the retained offer it accepted is not offered again
    # (mode 3: the finished game's statistics), and says again it was accepted
    t2 = [x for x in outs["t2"] if x.startswith("DESK ")]
    assert t2[-1] == "DESK 1 0 0 3 -", t2
    assert outs["t2"][-1] == "NO OFFER"
    assert desk.answers["t2"].count({"id": "r1-t2", "answer": "accepted"}) == 2
    # the archive and the standings
    res = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--standings", "--format", "jsonl"],
                         capture_output=True, text=True, check=True)
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert rows == [dict(zip(COLUMNS, r)) for r in STANDINGS], aout + aerr
