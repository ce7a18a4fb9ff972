"""A club night from the desk against the real Mosquitto (docs/HALL.md, "A club
night"): a round robin of six players over three tables, five rounds of three games,
every pair once. The desk (a paho client with the desk's login) offers each table
its game of each round as the desk page does: one JSON object with an id, 2
players, the opener and the names, retained, QoS 1, on
cowboy-desk/<hall>/<table>/offer. Each table (the real application, its hall
publisher and the real MQTT client on the host MicroPython, host_tests/hall_table.py)
takes the offer on its panel with OK, plays the game to its end with scripted keys
and publishes it; the archive (tools/hall_archive.py) stores the games.

The offers come
- before the table is on (round 1: retained, shown when it subscribes);
- early, while the table's game is in progress: the answer says it waits for the
  game, the game goes on unchanged, the offer shows at its end;
- early, right after OK accepted the previous offer and before its first stroke:
  the accepted game counts as in progress, the new offer waits for its end and
  never takes its place;
- late, after the table sat idle at the end of a game: shown at once, the answer
  says it waits for the operator;
- twice (the same id and content again, once as UTF-8 instead of \\u escapes):
  answered as the first time, nothing changes;
- with other content under an id already used: not yet accepted, it replaces the
  offer on the table (t2 round 2 on the displays, t3 round 4 while it waits for a
  game); already accepted, it is refused naming the id, and the same content as
  accepted is answered "accepted" again (t2 round 2).
Names have accents and an emoji: "\\ud83c\\udfb1 Ben" in the offer's JSON is one
character and one name, also on the host MicroPython.

The games (the keys as in test_hall_club.py):
  win k      the opener pockets the 3 ball k times and misses; the other fouls, the
             opener misses, twice more: the other is out on three fouls. The opener
             wins with 3k points in 3 innings (best 3k); the other has 0 points, 3
             innings, 3 fouls, out once.
  lose k m   the opener pockets the 3 k times and misses; the other pockets it m
             times and misses; the opener fouls, the other misses, twice more: the
             opener is out. The other wins with 3m points in 3 innings (best 3m); the
             opener has 3k points in 4 innings (best 3k), 3 fouls, out once.

    round  t1                      t2                       t3
    1      Anna* v Ben    win 2    Chloé* v Dan   lose 1 3   Émile v Zoë*   win 3
    2      Anna v Chloé*  win 1    Émile v Ben*   win 4 (a)  Dan* v Zoë     lose 2 2
    3      Anna v Dan*    lose 2 5 Ben v Zoë*     lose 1 2   Chloé* v Émile lose 3 4
    4      Anna* v Émile  win 1    Ben v Dan*     win 2      Zoë* v Chloé   win 2 (b)
    5      Anna* v Zoë    lose 3 1 Ben v Chloé*   lose 1 1   Dan* v Émile   lose 2 1

(* opens; Ben is "🎱 Ben". (a) first offered as Ben* v Émile, then changed under
the same id before OK; (b) first offered as Chloé* v Zoë, changed while it waited.)

By hand, game by game (points/innings, best; F: 3 fouls and out):
  Anna   W 6/3 b6;  L 0/3 F;  W 15/3 b15;  W 3/3 b3;  L 9/4 b9 F
         5 games, 3 wins, 33 points, 16 innings, average 2.0625 -> 2.06, best 15,
         6 fouls, out 2
  Ben    L 0/3 F;  W 12/3 b12;  W 6/3 b6;  L 0/3 F;  W 3/3 b3
         3 wins, 21 points, 15 innings, 1.40, best 12, 6 fouls, out 2
  Chloé  L 3/4 b3 F;  W 3/3 b3;  L 9/4 b9 F;  L 0/3 F;  L 3/4 b3 F
         1 win, 18 points, 18 innings, 1.00, best 9, 12 fouls, out 4
  Dan    W 9/3 b9;  L 6/4 b6 F;  L 6/4 b6 F;  W 6/3 b6;  L 6/4 b6 F
         2 wins, 33 points, 18 innings, 1.8333 -> 1.83, best 9, 9 fouls, out 3
  Émile  L 0/3 F;  L 0/3 F;  W 12/3 b12;  L 0/3 F;  W 3/3 b3
         2 wins, 15 points, 15 innings, 1.00, best 12, 9 fouls, out 3
  Zoë    W 9/3 b9;  W 6/3 b6;  L 3/4 b3 F;  W 6/3 b6;  W 3/3 b3
         4 wins, 27 points, 16 innings, 1.6875 -> 1.69, best 9, 3 fouls, out 1
Ranked by wins, then the average (exact), then points: Zoë (4); Anna before Ben
(3 wins: 2.0625 > 1.40); Dan before Émile (2 wins: 1.83 > 1.00); Chloé (1).
"""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import hallbroker
import test_hall_club
from mpy import MICROPYTHON, TOOLS

HALL = "club"
TABLES = ["t1", "t2", "t3"]
ANNA, BEN, CHLOE, DAN, EMILE, ZOE = ("Anna", "\U0001F3B1 Ben", "Chloé", "Dan", "Émile",
                                     "Zoë")
PLAYERS = [ANNA, BEN, CHLOE, DAN, EMILE, ZOE]
GAME, STATS, OFFER = 1, 3, 4        # the panel's modes (views/ui.py MODE_*)

# round -> table -> (names, opener (1-based), script): what is played
ROUNDS = {
    1: {"t1": ([ANNA, BEN], 1, ("win", 2)), "t2": ([CHLOE, DAN], 1, ("lose", 1, 3)),
        "t3": ([EMILE, ZOE], 2, ("win", 3))},
    2: {"t1": ([ANNA, CHLOE], 2, ("win", 1)), "t2": ([EMILE, BEN], 2, ("win", 4)),
        "t3": ([DAN, ZOE], 1, ("lose", 2, 2))},
    3: {"t1": ([ANNA, DAN], 2, ("lose", 2, 5)), "t2": ([BEN, ZOE], 2, ("lose", 1, 2)),
        "t3": ([CHLOE, EMILE], 1, ("lose", 3, 4))},
    4: {"t1": ([ANNA, EMILE], 1, ("win", 1)), "t2": ([BEN, DAN], 2, ("win", 2)),
        "t3": ([ZOE, CHLOE], 1, ("win", 2))},
    5: {"t1": ([ANNA, ZOE], 1, ("lose", 3, 1)), "t2": ([BEN, CHLOE], 2, ("lose", 1, 1)),
        "t3": ([DAN, EMILE], 1, ("lose", 2, 1))},
}
# the first offers of the two games changed under the same id: (names, opener)
FIRST = {(2, "t2"): ([BEN, EMILE], 1), (4, "t3"): ([CHLOE, ZOE], 1)}

STANDINGS = [
    # rank, name, games, wins, points, innings, average, best, fouls, out
    (1, ZOE, 5, 4, 27, 16, 1.69, 9, 3, 1),
    (2, ANNA, 5, 3, 33, 16, 2.06, 15, 6, 2),
    (3, BEN, 5, 3, 21, 15, 1.4, 12, 6, 2),
    (4, DAN, 5, 2, 33, 18, 1.83, 9, 9, 3),
    (5, EMILE, 5, 2, 15, 15, 1.0, 12, 9, 3),
    (6, CHLOE, 5, 1, 18, 18, 1.0, 9, 12, 4),
]
COLUMNS = ("rank", "name", "games", "wins", "points", "innings", "average", "best",
           "fouls", "out")

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def winner(names, opener, script):
    """The winner's name: the opener in "win", the other in "lose"."""
    return names[opener - 1] if script[0] == "win" else names[2 - opener]


def keys_of(script):
    """The key names of one game (module docstring)."""
    if script[0] == "win":
        return ["3", "OK"] * script[1] + ["MISS", "FOUL", "MISS", "FOUL", "MISS", "FOUL"]
    return (["3", "OK"] * script[1] + ["MISS"] + ["3", "OK"] * script[2]
            + ["MISS", "FOUL", "MISS", "FOUL", "MISS", "FOUL"])


def offer_id(rnd, table):
    return "r%d-%s" % (rnd, table)


def offer(rnd, table, names, opener, escaped=True):
    """The desk page's offer; `escaped`: every character beyond ASCII as \\u escapes
    (the emoji as its surrogate pair), else UTF-8."""
    return json.dumps({"id": offer_id(rnd, table), "players": 2, "opener": opener,
                       "names": names}, ensure_ascii=escaped).encode()


def seen(oid, waits):
    return {"id": oid, "answer": "seen", "waits": waits}


def accepted(oid):
    return {"id": oid, "answer": "accepted"}


def refused(oid, why):
    return {"id": oid, "answer": "refused", "why": why}


# the answer to other content under the id of an offer already accepted
CHANGED = "another game was accepted under id %s: send a new id"


def on_line(mode, rnd=None, table=None, names=None, opener=None):
    """The table's "offer" line: its mode and the offer it holds."""
    if rnd is None:
        return "ON %d -" % mode
    return "ON %d %s 2 %d %s" % (mode, offer_id(rnd, table), opener, "|".join(names))


class Script:
    """One table's evening: the commands of its process, what the desk does at each
    of the table's marks (steps of the desk's thread), the answers the desk must get
    and the ON and OFFER lines the table must print, in order."""

    def __init__(self, table, folder):
        self.table = table
        self.folder = folder
        self.cmds = ["setup", "2", "1", "0"]
        self.steps = []
        self.answers = []
        self.lines = []
        self.marks = 0
        self.offers = 1             # the table's count (round 1's retained offer)
        self.refused = 0

    def t(self, *cmds):
        self.cmds += [str(c) for c in cmds]

    def expect(self, answer):
        """The desk waits for the table's next answer, which must be this."""
        self.steps.append(("expect", answer))
        self.answers.append(answer)

    def send(self, payload, answer):
        self.steps.append(("send", payload))
        self.expect(answer)
        self.offers += 1
        self.refused += answer["answer"] == "refused"

    def desk(self, after, *sends):
        """A mark: the table runs its loop (no keys) while the desk sends each
        (payload, answer) of `sends` and gets each answer; then the table sits
        idle a moment more (its loop runs: an offer it is to show shows) and
        prints its offer line, `after`."""
        self.marks += 1
        word = "MARK%d" % self.marks
        go = os.path.join(self.folder, "go-%s-%d" % (self.table, self.marks))
        self.t("say", word, "until", go, 60000, "idle", 200, "offer")
        self.steps.append(("mark", word))
        for payload, answer in sends:
            self.send(payload, answer)
        self.steps.append(("go", go))
        self.lines.append(after)

    def idle_end(self):
        """The game's end: everything published, the table idle, nothing offered."""
        self.t("settle", 10000, "idle", 300, "offer")
        self.lines.append(on_line(STATS))

    def accept(self, rnd):
        """The offer of round `rnd` on the displays (waited for), its answer handed
        over, then OK: accepted."""
        oid = offer_id(rnd, self.table)
        self.t("wait-offer", 30000, "settle", 10000, "key", "OK", "settle", 10000)
        self.lines.append("OFFER " + oid)
        self.expect(accepted(oid))

    def play(self, keys):
        for k in keys:
            self.t("key", k)


def evening(folder):
    """The three tables' scripts (module docstring)."""
    def keys_in(rnd, table):
        return keys_of(ROUNDS[rnd][table][2])

    def send(rnd, table, waits, escaped=True, first=False):
        names, opener = FIRST[rnd, table] if first else ROUNDS[rnd][table][:2]
        return (offer(rnd, table, names, opener, escaped),
                seen(offer_id(rnd, table), waits))

    def shows(mode, rnd, table, first=False):
        names, opener = FIRST[rnd, table] if first else ROUNDS[rnd][table][:2]
        return on_line(mode, rnd, table, names, opener)

    # t1: round 2 early (mid-game, sent twice), round 3 right after OK took round 2
    # (before its first stroke), round 4 late, round 5 early
    s1 = Script("t1", folder)
    s1.expect(seen("r1-t1", "operator"))        # retained before the table came on
    s1.accept(1)
    keys = keys_in(1, "t1")
    s1.play(keys[:4])
    s1.desk(shows(GAME, 2, "t1"), send(2, "t1", "game"),
            send(2, "t1", "game", escaped=False))
    s1.play(keys[4:])
    s1.accept(2)
    s1.desk(shows(GAME, 3, "t1"), send(3, "t1", "game"))
    s1.play(keys_in(2, "t1"))
    s1.accept(3)
    s1.play(keys_in(3, "t1"))
    s1.idle_end()
    s1.desk(shows(OFFER, 4, "t1"), send(4, "t1", "operator"))
    s1.accept(4)
    keys = keys_in(4, "t1")
    s1.play(keys[:3])
    s1.desk(shows(GAME, 5, "t1"), send(5, "t1", "game"))
    s1.play(keys[3:])
    s1.accept(5)
    s1.play(keys_in(5, "t1"))

    # t2: round 2 late, sent twice, then changed under its id before OK (the table
    # shows the new one); after OK the accepted content again ("accepted") and the
    # first content under that id (refused); round 3 late, round 4 early, 5 late
    s2 = Script("t2", folder)
    s2.expect(seen("r1-t2", "operator"))
    s2.accept(1)
    s2.play(keys_in(1, "t2"))
    s2.idle_end()
    s2.desk(shows(OFFER, 2, "t2"), send(2, "t2", "operator", escaped=False, first=True),
            send(2, "t2", "operator", escaped=False, first=True),
            send(2, "t2", "operator"))
    s2.accept(2)
    names, opener = ROUNDS[2]["t2"][:2]
    s2.desk(on_line(GAME), (offer(2, "t2", names, opener), accepted("r2-t2")),
            (offer(2, "t2", *FIRST[2, "t2"]), refused("r2-t2", CHANGED % "r2-t2")))
    s2.play(keys_in(2, "t2"))
    s2.idle_end()
    s2.desk(shows(OFFER, 3, "t2"), send(3, "t2", "operator"))
    s2.accept(3)
    keys = keys_in(3, "t2")
    s2.play(keys[:5])
    s2.desk(shows(GAME, 4, "t2"), send(4, "t2", "game"))
    s2.play(keys[5:])
    s2.accept(4)
    s2.play(keys_in(4, "t2"))
    s2.idle_end()
    s2.desk(shows(OFFER, 5, "t2"), send(5, "t2", "operator"))
    s2.accept(5)
    s2.play(keys_in(5, "t2"))

    # t3: round 2 early, round 3 late, round 4 early and changed while it waits for
    # the game, round 5 right after OK took round 4 (sent twice)
    s3 = Script("t3", folder)
    s3.expect(seen("r1-t3", "operator"))
    s3.accept(1)
    keys = keys_in(1, "t3")
    s3.play(keys[:3])
    s3.desk(shows(GAME, 2, "t3"), send(2, "t3", "game"))
    s3.play(keys[3:])
    s3.accept(2)
    s3.play(keys_in(2, "t3"))
    s3.idle_end()
    s3.desk(shows(OFFER, 3, "t3"), send(3, "t3", "operator"))
    s3.accept(3)
    keys = keys_in(3, "t3")
    s3.play(keys[:6])
    s3.desk(shows(GAME, 4, "t3"), send(4, "t3", "game", first=True),
            send(4, "t3", "game"))
    s3.play(keys[6:])
    s3.accept(4)
    s3.desk(shows(GAME, 5, "t3"), send(5, "t3", "game"),
            send(5, "t3", "game", escaped=False))
    s3.play(keys_in(4, "t3"))
    s3.accept(5)
    s3.play(keys_in(5, "t3"))

    for s in (s1, s2, s3):
        s.t("settle", 10000, "names", "state", "desk")
    return [s1, s2, s3]


class Desk(test_hall_club.Desk):
    """test_hall_club.py's desk, whose answers are also read in order."""

    def answer(self, table, i, seconds=30):
        """The table's answer number i (from 0), waited for."""
        end = time.monotonic() + seconds
        with self.cond:
            while len(self.answers.get(table, [])) <= i and time.monotonic() < end:
                self.cond.wait(0.1)
            got = self.answers.get(table, [])
            assert len(got) > i, "%s: no answer %d: %s" % (table, i, got)
            return got[i]


def run_desk(desk, script, proc, out, errors):
    """The desk's side of one table's evening (a thread): at each mark of the table
    the sends of that mark, each answer awaited and checked, then the go file."""
    try:
        n = 0
        for kind, arg in script.steps:
            if kind == "mark":
                out += hallbroker.lines_until(proc, arg, 120)
            elif kind == "send":
                desk.send(script.table, arg)
            elif kind == "expect":
                got = desk.answer(script.table, n)
                assert got == arg, (script.table, n, got, arg)
                n += 1
            elif kind == "go":
                open(arg, "w").close()
    except BaseException as e:          # (the main thread says what went wrong)
        errors.append("%s: %r" % (script.table, e))


def test_a_round_robin_from_the_desk(tmp_path):
    # the round robin itself: every pair once, each player once a round, each
    # table one game a round; and the standings above add up
    pairs = [frozenset(ROUNDS[r][t][0]) for r in ROUNDS for t in TABLES]
    assert len(pairs) == len(set(pairs)) == 15
    for r in ROUNDS:
        assert sorted(n for t in TABLES for n in ROUNDS[r][t][0]) == sorted(PLAYERS)
    assert sum(row[3] for row in STANDINGS) == 15
    assert sum(row[2] for row in STANDINGS) == 30
    # the emoji goes as its surrogate pair, as a JSON writer with \u escapes sends it
    assert b'"\\ud83c\\udfb1 Ben"' in offer(1, "t1", [ANNA, BEN], 1)

    broker = hallbroker.Broker(tmp_path / "broker", HALL, TABLES).start()
    db = tmp_path / "hall.db"
    folder = str(tmp_path)
    scripts = evening(folder)
    arch = subprocess.Popen([sys.executable, os.path.join(TOOLS, "hall_archive.py"),
                             "--db", str(db), "--port", str(broker.port), "--user", "archive",
                             "--password", hallbroker.PASSWORD, "--hall", HALL,
                             "--games", "15", "--seconds", "150"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=hallbroker.one_night())
    desk = Desk(broker)
    procs, outs, threads, errors = {}, {}, [], []
    t0 = time.monotonic()
    try:
        # the desk sends round 1 before the tables are on: the offers are retained
        for t in TABLES:
            names, opener, script = ROUNDS[1][t]
            desk.send(t, offer(1, t, names, opener))
        for s in scripts:
            procs[s.table] = hallbroker.table(tmp_path, broker, HALL, s.table, *s.cmds)
            outs[s.table] = []
            th = threading.Thread(target=run_desk, daemon=True,
                                  args=(desk, s, procs[s.table], outs[s.table], errors))
            th.start()
            threads.append(th)
        for th in threads:
            th.join(150)
        errs = {}
        for t, p in procs.items():
            if errors:
                p.kill()
            out, errs[t] = p.communicate(timeout=60)
            outs[t] += out.splitlines()
        assert not errors, (errors, outs, errs)
        for t, p in procs.items():
            text = "\n".join(outs[t]) + errs[t]
            assert p.returncode == 0 and "Traceback" not in text, (t, text)
        try:
            aout, aerr = arch.communicate(timeout=30)
        except subprocess.TimeoutExpired:       # a game missing: the rows say which
            arch.kill()
            aout, aerr = arch.communicate()
        # every answer the desk got, in order, and nothing more
        for s in scripts:
            assert desk.answers.get(s.table) == s.answers, s.table
    finally:
        desk.close()
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        if arch.poll() is None:
            arch.kill()
        broker.stop()
    print("round robin: %.1f s" % (time.monotonic() - t0))

    for s in scripts:
        lines = outs[s.table]
        # what the panel held after each mark, and each offer it showed, in order
        got = [x for x in lines if x.startswith(("ON ", "OFFER ", "NO OFFER"))]
        assert got == s.lines, (s.table, lines)
        assert lines.count("SETTLED") == len([c for c in s.cmds if c == "settle"]), lines
        # every offer sent came once, the refused one was counted, none is left
        assert lines[-1] == "DESK %d %d 0 %d -" % (s.offers, s.refused, STATS), lines
        state = json.loads([x for x in lines if x.startswith("STATE ")][-1][6:])
        assert state["phase"] == "over"
        # the flash: four finished games archived and the fifth in the journal,
        # none abandoned for another
        games = sorted(os.listdir(tmp_path / s.table / "games"))
        assert [g[-4:] for g in games if not g.endswith(".names")] == [".jnl"] * 4, games

    # the archive: every game once, on its table, with its names and winner
    res = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--export", "-"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr + aout + aerr
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(rows) == 15, (rows, aout, aerr)
    for t in TABLES:
        got = []
        for r in sorted((r for r in rows if r["table"] == t), key=lambda r: r["game"]):
            header = json.loads(r["record"].split("\n")[1])
            names = r["state"]["names"]
            assert header["names"] == names and header["players"] == 2
            got.append((names, header["opener"], names[r["results"]["winner"] - 1]))
        want = [(ROUNDS[n][t][0], ROUNDS[n][t][1], winner(*ROUNDS[n][t])) for n in ROUNDS]
        assert got == want, t

    # the night's standings, as worked out by hand (module docstring)
    res = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--standings", "--format", "jsonl"],
                         capture_output=True, text=True, check=True)
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert rows == [dict(zip(COLUMNS, r)) for r in STANDINGS]
