"""A whole club night, and a rough one (docs/HALL.md, "Tests"): four tables on the
host MicroPython (host_tests/hall_table.py: the real application, its hall publisher
and MQTT client) play five hours of their own simulated time each, their clocks
running some 200 times as fast as the wall clock (`fast`), a game every 20 to 40
simulated minutes from the desk's offers, against the real Mosquitto and the
archive (tools/hall_archive.py). Meanwhile, on the wall clock: the broker is killed
(SIGKILL) and started again twice; table t2's network (a relay, hallbroker.Relay)
is gone until the broker has given t2 up for dead; table t4 loses its power while
it sends a long record's parts (its process killed, started again on the same
flash folder); and a hostile login publishes garbage all night long: offers no
desk sends, a 60 KB one among them, to every table, records and parts no board
sends to the archive.

At the end: every finished game is in the archive once, its record the keys the
table played, its state its replay; the standings equal those worked out here from
the games as played (game_innings, independently of the archive's count); and each
table's memory is flat: gc.mem_alloc() after a collection, sampled every simulated
hour, the last sample within 5 % of the first. Events are waited for (a table's
line, a broker's message, an archive row), each with a generous deadline."""
import json
import os
import random
import subprocess
import sys
import threading
import time
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest

import hallbroker
from mpy import MICROPYTHON, TOOLS
from test_hall import archived, replayed
from test_hall_club import game_innings, inning_keys, offer
from test_hall_long import FOUL, FOULS, MISS, miss_game
from test_hall_page import Lines
from version import VERSION

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

HALL = "club"
TABLES = ["t1", "t2", "t3", "t4"]
# Two builds whose device models cost little a simulated second (a TM1637's, decoded
# edge by edge, costs some 4 ms: five hours of it would take minutes)
BUILDS = {"t1": "ht16k33", "t2": "oled4", "t3": "ht16k33", "t4": "oled4"}
HOSTILE = "x9"              # a login that may write anywhere (the ACL's worst case)
FAST = 200                  # the tables' simulated ms per real ms
HOURS = 5
GAMES = 9                   # per table, 20 to 40 simulated minutes each
ROSTER = ["Anna", "Ben", "Cleo", "Dan", "Émile", "Fay", "Gus", "Zoë"]
LONG = 4000                 # t4's first game: a record of 14 parts (test_hall_long.py)
LONG_NAMES = ["Kim", "Lou"]
OUTAGE_S = 3                # the broker down, each time
DEADLINE_S = 600           # hang guard of the whole night
SEAT_LINE = {"MISS": MISS, "FOUL": FOUL}          # an inning's last action line


def night_games(seed=37):
    """Each table's games: (offer id, names in seat order, opener 1 or 2, innings with
    the opener as seat 1, simulated minutes)."""
    rnd = random.Random(seed)
    out = {}
    for t in TABLES:
        games = []
        for i in range(GAMES):
            a, b = rnd.sample(ROSTER, 2)
            games.append(("n-%s-%d" % (t, i), [a, b], rnd.choice((1, 2)),
                          game_innings(rnd.randint(1, 4), rnd.randint(1, 4)),
                          rnd.randint(20, 40)))
        out[t] = games
    return out


def key_script(innings, minutes):
    """The key lines of a game, its strokes spread over `minutes` (WAIT lines)."""
    keys = inning_keys(innings)
    strokes = sum(len(balls) + 1 for seat, balls, end in innings)
    wait = minutes * 60000 // strokes
    out = []
    for k in keys:
        if k != "OK":
            out.append("WAIT %d" % wait)
        out.append(k)
    return "\n".join(out) + "\n"


def seat_of(opener, seat):
    """The table's seat (1-based) of game_innings' seat (1: the opener)."""
    return opener if seat == 1 else 3 - opener


def record_lines(innings):
    """The action lines of the record of `innings`."""
    out = []
    for seat, balls, end in innings:
        out += ['{"shot": {"pocketed": [%d]}}' % b for b in balls]
        out.append(SEAT_LINE[end])
    return out


def figures(innings, seats):
    """{seat: figures} of a game of two players by the rules of docs/RULES.md as
    docs/HALL.md "Standings" counts them: an inning ending in a foul banks nothing,
    three fouls in a row put a player out and the other wins."""
    f = {s: {"games": 1, "wins": 0, "points": 0, "innings": 0, "best": 0, "fouls": 0,
             "out": 0} for s in seats}
    run = {s: 0 for s in seats}
    for i, (seat, balls, end) in enumerate(innings):
        p = f[seat]
        p["innings"] += 1
        if end == "FOUL":
            assert not balls
            p["fouls"] += 1
            run[seat] += 1
        else:
            p["points"] += sum(balls)
            p["best"] = max(p["best"], sum(balls))
            run[seat] = 0
        if run[seat] == 3:
            assert i == len(innings) - 1, "the game goes on after a player is out"
            p["out"] = 1
            f[[s for s in seats if s != seat][0]]["wins"] = 1
    assert sum(p["wins"] for p in f.values()) == 1
    return f


def standings(games):
    """The night's standings from (names by seat, {seat: figures}) of each game: summed
    by name, ranked as docs/HALL.md "Standings" says."""
    by = {}
    for names, figs in games:
        for seat, fig in figs.items():
            p = by.setdefault(names[seat - 1], dict.fromkeys(fig, 0))
            for k, v in fig.items():
                p[k] = max(p[k], v) if k == "best" else p[k] + v
    rows = []
    for name, p in by.items():
        exact = Fraction(p["points"], p["innings"]) if p["innings"] else Fraction(0)
        rows.append((p["wins"], exact, p["points"], name, p))
    rows.sort(key=lambda r: (-r[0], -r[1], -r[2], r[3]))
    out = []
    for i, (wins, exact, points, name, p) in enumerate(rows):
        rank = out[-1]["rank"] if i and rows[i - 1][:3] == (wins, exact, points) else i + 1
        avg = Decimal(exact.numerator) / Decimal(exact.denominator)
        out.append({"rank": rank, "name": name, "games": p["games"], "wins": wins,
                    "points": points, "innings": p["innings"],
                    "average": float(avg.quantize(Decimal("0.01"), ROUND_HALF_UP)),
                    "best": p["best"], "fouls": p["fouls"], "out": p["out"]})
    return out


def long_game(tmp_path):
    """t4's first game: LONG actions, all but the last FOULS fouls in its journal, and
    its innings (every stroke a miss or a foul: one inning each, seats alternating)."""
    lines = miss_game(LONG)
    lines[0] = json.dumps({"players": 2, "names": LONG_NAMES})
    rec = tmp_path / "long.jsonl"
    rec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ends = ["MISS"] * (LONG - FOULS) + ["FOUL"] * FOULS
    return rec, [(1 + i % 2, [], e) for i, e in enumerate(ends)]


# What the hostile login sends: offers no desk sends (to each table), records and
# parts no board sends (its own topics, for the archive; and the tables' own).
BAD_OFFERS = [b"{", b"\xff\xfe\x00", b"[" * 3000, b"null", b'{"id": "x", "players": 99}',
              b'{"id": "h", "players": 2, "names": ["' + b"A" * 500 + b'", "B"]}',
              b'{"id": "' + b"i" * 60 + b'", "players": 2}', b"x" * 60000]
BAD_RECORDS = [b"# game 1\nnot json\n", b"# game 0\n{\"players\": 2}\n", b"\xff" * 300,
               b"# game 3\n{\"players\": 12}\n", b"# game 7\n" + b"{\"shot\": {}}\n" * 4000]


def bad_part(n):
    """The first of the three parts of a record that never comes whole."""
    body = b"# game %d\n{\"players\": 2}\n" % n + b"{\"shot\": {}}\n" * 300
    return b"# game %d part 1/3 actions 900 names 0 bytes 11750\n" % n + body


class Hostile:
    """The hostile login: publishes garbage round the clock from a thread (reconnecting
    whenever the broker is back), about RATE messages a second."""
    RATE = 20

    def __init__(self, broker):
        import paho.mqtt.client as mqtt
        self.sent = 0
        self.stop = threading.Event()
        c = self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=HOSTILE,
                                 protocol=mqtt.MQTTv311)
        c.username_pw_set(HOSTILE, hallbroker.PASSWORD)
        c.reconnect_delay_set(0.2, 1)
        c.connect_async("127.0.0.1", broker.port, keepalive=10)
        c.loop_start()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def messages(self):
        n = 100
        while True:
            for t in TABLES:
                for p in BAD_OFFERS:
                    yield "cowboy-desk/%s/%s/offer" % (HALL, t), p
                    n += 1
                    yield "cowboy/%s/%s/part" % (HALL, HOSTILE), bad_part(n)
                    yield "cowboy/%s/%s/game" % (HALL, t), BAD_RECORDS[n % len(BAD_RECORDS)]

    def _run(self):
        for topic, payload in self.messages():
            if self.stop.wait(1 / self.RATE):
                return
            if self.c.is_connected():
                self.c.publish(topic, payload, qos=1)
                self.sent += 1

    def close(self):
        self.stop.set()
        self.thread.join(10)
        self.c.disconnect()
        self.c.loop_stop()


class Watch:
    """A page's login subscribed to every table's status, through the broker's
    restarts: the live (not retained) messages, with the time they came."""

    def __init__(self, broker):
        import paho.mqtt.client as mqtt
        self.got = []
        c = self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hall2",
                                 protocol=mqtt.MQTTv311)
        c.username_pw_set("hall2", hallbroker.PASSWORD)
        c.reconnect_delay_set(0.2, 1)
        c.on_connect = lambda cl, u, f, r, p: cl.subscribe("cowboy/%s/+/status" % HALL, 1)
        c.on_message = lambda cl, u, m: self.got.append(
            (time.monotonic(), m.topic.split("/")[2], m.payload.decode(), m.retain))
        c.connect("127.0.0.1", broker.port, keepalive=10)
        c.loop_start()

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


def send_offer(broker, table, payload, deadline):
    """The desk's offer (retained, as the desk page sends it), through an outage."""
    while True:
        try:
            hallbroker.publish(broker, "desk", [("cowboy-desk/%s/%s/offer" % (HALL, table),
                                                 payload, True)])
            return
        except (OSError, ValueError, RuntimeError):
            assert time.monotonic() < deadline, "the desk never reached the broker"
            time.sleep(0.2)


def logins(broker, client):
    """How many times the broker has let `client` in (its log's lines)."""
    return broker.log(None).count(" as %s (" % client)


def table_commands(tmp_path, name, games):
    cmds = ["fast", str(FAST)]
    for oid, names, opener, innings, minutes in games:
        keys = tmp_path / ("%s.keys" % oid)
        keys.write_text(key_script(innings, minutes))
        cmds += ["wait-offer", "300000", "key", "OK", "play", str(keys)]
    return cmds + ["settle", "120000", "hours", str(HOURS), "300000", "desk", "stats",
                   "say", "END"]


def test_a_whole_rough_club_night(tmp_path):
    games = night_games()
    broker = hallbroker.Broker(tmp_path / "broker", HALL, TABLES + [HOSTILE],
                               writes=[(HOSTILE, "cowboy/#"),
                                       (HOSTILE, "cowboy-desk/#")]).start()
    db = tmp_path / "hall.db"
    end = time.monotonic() + DEADLINE_S
    relay = hallbroker.Relay(broker.port)
    long_rec, long_innings = long_game(tmp_path)
    (tmp_path / "fouls.keys").write_text("FOUL\n" * FOULS)
    procs, outs, runs = {}, {}, {}
    hostile = watch = arch = None
    try:
        arch = Lines(subprocess.Popen(
            [sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db", str(db),
             "--port", str(broker.port), "--user", "archive", "--password",
             hallbroker.PASSWORD, "--hall", HALL], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=hallbroker.one_night()))
        arch.wait_for(lambda s: s.startswith("connected to"), end - time.monotonic())
        watch = Watch(broker)
        hostile = Hostile(broker)
        for t in TABLES:
            send_offer(broker, t, offer(t, *games[t][0][1:3], games[t][0][0]), end)

        def start(t, *cmds, **kw):
            procs[t] = hallbroker.table(tmp_path, broker, HALL, t, *cmds, **kw)
            outs[t] = Lines(procs[t])
            runs.setdefault(t, []).append(outs[t])
        # t4 first finishes its long game and loses its power while sending it
        # (its actions were acknowledged before: only its record is left to send)
        start("t4", "build", BUILDS["t4"], "setup", "2", "1", "0", "fast", str(FAST), "play",
              str(tmp_path / "fouls.keys"), "parts", "1", "120000", "say", "CUT", "hold",
              str(tmp_path / "never"), "600000", record=long_rec,
              ack="1 %d 0 0 0\n" % (LONG - FOULS))
        for t in TABLES[:3]:
            start(t, "build", BUILDS[t], "setup", "2", "1", "0",
                  *table_commands(tmp_path, t, games[t]),
                  port=relay.port if t == "t2" else None)
        outs["t4"].wait_for(lambda s: s == "CUT", end - time.monotonic())
        procs["t4"].kill()                          # the power, cut mid-send
        procs["t4"].wait(30)
        cut_parts = int(outs["t4"].wait_for(lambda s: s.startswith("PARTS "), 1).split()[1])
        start("t4", "build", BUILDS["t4"], *table_commands(tmp_path, "t4", games["t4"]),
              again=True)

        # the night: the desk sends each table its next offer once it took one (the
        # next then waits for the game's end); the wall clock's events come as the
        # tables get on
        seen = {t: 0 for t in TABLES}          # offers taken
        sent = {t: (1, time.monotonic()) for t in TABLES}
        kills = []
        net = {"cut": None, "restored": None, "logins": 0}
        while not all(any(x == "END" for _, x in o.lines) for o in outs.values()):
            assert time.monotonic() < end, {t: o.lines[-3:] for t, o in outs.items()}
            for t, o in outs.items():
                assert procs[t].poll() is None or o.lines and o.lines[-1][1] == "END", \
                    (t, o.lines[-5:], procs[t].stderr.read())
                taken = sum(1 for _, x in o.lines if x.startswith("OFFER n-"))
                assert not any(x == "NO OFFER" for _, x in o.lines), (t, o.lines[-5:])
                seen[t] = taken
                i = taken
                if i < GAMES and (sent[t][0] < i + 1 or time.monotonic() - sent[t][1] > 20):
                    oid, names, opener = games[t][i][:3]
                    send_offer(broker, t, offer(t, names, opener, oid), end)
                    sent[t] = (i + 1, time.monotonic())
            total = sum(seen.values())
            if len(kills) == 0 and total >= 8 or len(kills) == 1 and total >= 22 \
                    and net["restored"]:
                net["logins"] = logins(broker, "t2")
                broker.stop(kill=True)
                kills.append(total)
                time.sleep(OUTAGE_S)            # (the outage itself, not a wait)
                broker.start()
            # t2's network goes once t2 is back on the restarted broker: the broker
            # then has its session to give up for dead, and its last will to send
            if net["cut"] is None and kills and seen["t2"] >= 3 \
                    and logins(broker, "t2") > net["logins"]:
                relay.cut()
                net["cut"] = time.monotonic()
            if net["cut"] and not net["restored"] and any(
                    w[0] > net["cut"] and w[1:] == ("t2", "offline", False) for w in watch.got):
                relay.restore()
                net["restored"] = time.monotonic()
            time.sleep(0.1)
        assert len(kills) == 2 and net["restored"], (kills, net)
        # every game in the archive
        want = {("t4", 1)} | {(t, g) for t in TABLES for g in range(
            2 if t == "t4" else 1, GAMES + (2 if t == "t4" else 1))}
        while {(g["table"], g["game"]) for g in archived(db)} != want:
            assert time.monotonic() < end, sorted({(g["table"], g["game"])
                                                   for g in archived(db)} ^ want)
            time.sleep(1)
        arch.proc.terminate()
        arch.proc.wait(30)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        for t, rs in runs.items():          # what each table said, for a failure's reader
            (tmp_path / (t + ".out")).write_text("\n".join(
                "%.3f %s" % (w / 1000, x) for run in rs for w, x in run.lines) + "\n")
        for x in (hostile, watch):
            if x is not None:
                x.close()
        if arch is not None and arch.proc.poll() is None:
            arch.proc.kill()
        relay.close()
        broker.stop()
    text = {t: [x for run in runs[t] for _, x in run.lines] for t in TABLES}
    # the long record's power cut came with some of its 14 parts acknowledged, not all
    assert 1 <= cut_parts < 14, cut_parts
    # the hostile login's garbage reached the tables and the archive, which refused it
    assert hostile.sent > 500, hostile.sent
    refused = [x for _, x in arch.lines if ": refused: " in x]
    assert len(refused) > 100, arch.lines[-5:]
    for t in TABLES:
        desk = [x for x in text[t] if x.startswith("DESK ")][-1].split()
        assert int(desk[2]) > 10 and desk[3] == "0", (t, desk)     # refused, no error
        stats = [x for x in text[t] if x.startswith("STATS ")][-1].split()
        assert int(stats[1]) >= 3, (t, stats)        # connected again after each outage
    # every finished game archived once and right
    rows = archived(db)
    assert len(rows) == len(want)
    played = []
    for g in rows:
        if (g["table"], g["game"]) == ("t4", 1):
            names, opener, innings = LONG_NAMES, 1, long_innings
        else:
            oid, names, opener, innings, minutes = games[g["table"]][
                g["game"] - (2 if g["table"] == "t4" else 1)]
        lines = g["record"].splitlines()
        assert lines[0] == "# game %d" % g["game"]
        assert json.loads(lines[1]) == {"players": 2, "opener": opener, "names": names,
                                        "firmware": VERSION}, \
            (g["table"], g["game"], lines[1])
        assert lines[2:] == record_lines(innings), (g["table"], g["game"])
        assert dict(replayed(lines), names=names) == g["state"]     # (replay: no names)
        figs = figures(innings, (1, 2))
        by_seat = {seat_of(opener, s): f for s, f in figs.items()}
        assert g["state"]["winner"] == [s for s, f in by_seat.items() if f["wins"]][0]
        played.append((names, by_seat))
    # five simulated hours at each table (t4's after its power cut), memory flat
    for t in TABLES:
        mem = [(int(x.split()[1]), int(x.split()[2]))
               for _, x in runs[t][-1].lines if x.startswith("MEM ")]
        assert [h for h, b in mem][:HOURS] == list(range(1, HOURS + 1)), (t, mem)
        first, last = mem[0][1], mem[-1][1]
        assert abs(last - first) <= first * 0.05, (t, mem)
    # the standings: the archive's equal those worked out here
    res = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                          str(db), "--standings", "--format", "jsonl"],
                         capture_output=True, text=True, check=True)
    assert [json.loads(x) for x in res.stdout.splitlines()] == standings(played)
