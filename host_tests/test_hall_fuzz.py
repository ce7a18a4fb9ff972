"""Hostile offers against a table on the host MicroPython (the real application, its
hall publisher and the real MQTT client, through the real Mosquitto of docs/HALL.md):
random bytes, deep JSON, huge strings, wrong types, bad UTF-8, names with control
characters, messages up to and over the broker's max_packet_size. The table refuses and
answers each, keeps playing (its keys answer, its game is the one its keys entered),
prints no traceback, and a valid offer after all of them still waits for the game
in progress. The ACL: a table cannot send an offer, to itself or to another table."""
import json
import os
import random
import threading
import time

import pytest

import hallbroker
import simboard
from mpy import MICROPYTHON

HALL = "club"

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def hostile(seed=25):
    """(payload, what) of every kind, each to be refused."""
    rng = random.Random(seed)
    good = {"id": "f-1", "players": 2, "names": ["Anna", "Ben"]}
    out = []
    for n in (1, 7, 64, 500, 2000):
        b = bytes(rng.randrange(256) for _ in range(n))
        out.append((b or b"\x00", "random bytes"))
    out += [
        (b"[" * 132 + b"]" * 132, "deep JSON"),
        (b"{" * 1000, "deep, unclosed JSON"),
        (b'{"a":' * 400 + b"1" + b"}" * 400, "deep objects"),
        (json.dumps(dict(good, names=["A" * 1900, "B"])).encode(), "a huge name"),
        (json.dumps({"id": "f-2", "players": 2, "x": "y" * 60000}).encode(), "60 KB"),
        (b" " * (hallbroker.PACKET_LIMIT - hallbroker.packet_size(
            "cowboy-desk/%s/f1/offer" % HALL, b"")), "a packet at the broker's limit"),
        (json.dumps(dict(good, players="2")).encode(), "players as a string"),
        (json.dumps(dict(good, players=2.0)).encode(), "players as a float"),
        (json.dumps(dict(good, players=True)).encode(), "players as true"),
        (json.dumps(dict(good, players=99)).encode(), "too many players"),
        (json.dumps(dict(good, opener=-1)).encode(), "opener -1"),
        (json.dumps(dict(good, names=["An\u0000na", "Ben"])).encode(), "a NUL in a name"),
        (json.dumps(dict(good, names=["Anna", "Ben\u202e"])).encode(), "a bidi override"),
        (json.dumps(dict(good, names=["Anna", {"x": 1}])).encode(), "a name as an object"),
        (json.dumps(dict(good, rules=[{"a": 1}])).encode(), "a rule as an object"),
        (json.dumps(dict(good, id="../../x")).encode(), "an id with slashes"),
        (json.dumps(dict(good, id=["a"])).encode(), "an id as a list"),
        (json.dumps(dict(good, __proto__=1)).encode(), "an unknown key"),
        (b'{"id": "f-3", "players": 2, "names": ["Anna", "\xff\xfe"]}', "bad UTF-8 in a name"),
        (b'{"id": "f-3", "players": 2, "names": ["Anna", "\xed\xa0\x80"]}', "a surrogate"),
        (b'{"id": "f-3", "players": 2, "names": ["Anna", "\\ud800"]}', "an escaped surrogate"),
        (b"null", "null"),
        (b"1e999999", "a huge number"),
        (b'"' + b"\\u0000" * 300 + b'"', "a string of escapes"),
    ]
    return out


class Answers:
    """The desk's view of one table's answer topic (a paho client, desk login)."""

    def __init__(self, broker, table):
        self.got = []
        self.cond = threading.Condition()
        topic = "cowboy/%s/%s/answer" % (HALL, table)

        def on_message(c, userdata, msg):
            with self.cond:
                self.got.append(msg.payload.decode())
                self.cond.notify_all()
        self.c = hallbroker.client(broker, "desk", client_id="", on_message=on_message)
        self.again = []         # the message ids of the subscriptions made on a reconnect

        def on_connect(c, userdata, flags, reason, props):     # (connected again)
            self.again.append(c.subscribe(topic, qos=1)[1])
        self.c.on_connect = on_connect
        hallbroker.subscribe(self.c, topic)
        self.topic = "cowboy-desk/%s/%s/offer" % (HALL, table)
        self.broker = broker

    def too_long(self, payload):
        """Publish an offer whose packet is over the broker's max_packet_size: the
        broker drops the desk's connection for it; returns once the client is
        connected and subscribed again, and has the table's last answer, retained,
        again."""
        k = len(self.again)
        with self.cond:
            n = len(self.got)
        hallbroker.publish_too_long(self.broker, "desk", self.topic, payload, True, c=self.c)
        with self.c.subacks:        # (hallbroker.client's SUBACKs)
            assert self.c.subacks.wait_for(lambda: self.again[k:] and self.again[-1]
                                           in self.c.subacked, hallbroker.GUARD), \
                "the desk did not connect again"
        end = time.monotonic() + hallbroker.GUARD   # the table's retained answer comes again
        with self.cond:
            while len(self.got) == n and time.monotonic() < end:
                self.cond.wait(0.05)
            assert self.got[n:] == self.got[n - 1:n], self.got[n - 1:]

    def send(self, payload, wait=60.0):
        """Publish an offer (retained, QoS 1) and wait for the table's next answer
        (None: none came within `wait` s; a loaded machine may take long to answer,
        so the default is generous)."""
        with self.cond:
            n = len(self.got)
        self.c.publish(self.topic, payload, qos=1,
                       retain=True).wait_for_publish(hallbroker.GUARD)
        end = time.monotonic() + wait
        with self.cond:
            while len(self.got) == n and time.monotonic() < end:
                self.cond.wait(0.05)
            return json.loads(self.got[n]) if len(self.got) > n else None

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


def test_hostile_offers_are_refused_and_the_table_plays_on(tmp_path):
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["f1"]).start()
    done = tmp_path / "fuzzed"
    table = hallbroker.table(tmp_path, broker, HALL, "f1",
                             "setup", "2", "1", "0", "idle", "2500", "key", "3", "key", "OK",
                             "settle", "5000", "until", str(done), "60000",
                             "key", "MISS", "key", "FOUL", "key", "3", "key", "C2", "key", "OK",
                             "settle", "5000", "wait-offer", "1500", "desk", "state")
    desk = Answers(broker, "f1")
    try:
        early = hallbroker.lines_until(table, "SETTLED")
        cases = hostile()
        for payload, what in cases:
            got = desk.send(payload)
            assert got is not None and got["answer"] == "refused", (what, got)
        # a byte over the broker's max_packet_size: Mosquitto drops the desk's
        # connection for it, nothing reaches the table (the offers it saw, below)
        desk.too_long(b" " * (hallbroker.PACKET_LIMIT + 1 - hallbroker.packet_size(
            desk.topic, b"", qos=0)))
        # a valid offer after all that: seen, waiting for the game in progress
        got = desk.send(json.dumps({"id": "after-fuzz", "players": 2,
                                    "names": ["Anna", "Ben"]}).encode())
        assert got == {"id": "after-fuzz", "answer": "seen", "waits": "game"}
        done.write_text("")
        out, err = table.communicate(timeout=120)
    finally:
        desk.close()
        if table.poll() is None:
            table.kill()
        broker.stop()
    assert table.returncode == 0, out + err
    assert "Traceback" not in out + err and not err.strip(), out + err
    lines = early + out.splitlines()
    d = [line.split() for line in lines if line.startswith("DESK ")][0]
    assert d[1:3] == [str(len(cases) + 1), str(len(cases))]     # offers seen, refused
    assert d[4:] == ["1", "after-fuzz"]      # the game goes on (MODE_GAME), the offer waits
    assert "NO OFFER" in lines
    # the game is exactly what the keys entered, as the same keys give in the simulator
    sim = simboard.Sim(2, "tm1637")
    sim.run_to(2500)
    sim.play(simboard.parse_script("3\nOK\nMISS\nFOUL\n3\nC2\nOK\n", sim))
    state = [line[6:] for line in lines if line.startswith("STATE ")][0]
    assert json.loads(state) == json.loads(sim.state())
    keys = [line for line in lines if line.startswith("T key")]
    assert len(keys) == 7


def test_a_table_cannot_send_offers(tmp_path):
    """The ACL of docs/HALL.md: a table's login publishing on its own offer topic
    or another table's never reaches a subscriber; the desk's login does."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["a1", "a2"]).start()
    got = []
    lock = threading.Lock()

    def on_message(c, userdata, msg):
        with lock:
            got.append((msg.topic, msg.payload))
    try:
        # the desk login reads everything it may: a reader of every offer topic
        reader = hallbroker.client(broker, "desk", on_message=on_message)
        hallbroker.subscribe(reader, "cowboy-desk/#")
        forged = b'{"id": "forged", "players": 2}'
        hallbroker.publish(broker, "a1", [("cowboy-desk/club/a2/offer", forged, True),
                                          ("cowboy-desk/club/a1/offer", forged, True),
                                          ("cowboy-desk/other/a1/offer", forged, True)])
        hallbroker.publish(broker, "archive", [("cowboy-desk/club/a2/offer", forged, True)])
        # (one connection per login: the desk's reader sends the desk's offer)
        reader.publish("cowboy-desk/club/a2/offer", b'{"id": "d"}', qos=1,
                       retain=True).wait_for_publish(hallbroker.GUARD)
        end = time.monotonic() + 30                 # its own comes back (the forged
        while time.monotonic() < end:               # ones, sent first, would be in)
            with lock:
                if got:
                    break
            time.sleep(0.05)
        reader.disconnect()
        reader.loop_stop()
        with lock:
            assert got == [("cowboy-desk/club/a2/offer", b'{"id": "d"}')]
        # a table reads its own offers only: a2's retained offer reaches a2, not a1
        for t, want in (("a1", []), ("a2", ["cowboy-desk/club/a2/offer"])):
            seen = []
            c = hallbroker.client(broker, t, on_message=lambda c, u, m: seen.append(m.topic))
            hallbroker.subscribe(c, "cowboy-desk/#")
            end = time.monotonic() + (30 if want else 0.5)     # the retained offer, if
            while len(seen) < len(want) and time.monotonic() < end:    # one is due
                time.sleep(0.05)
            time.sleep(0.2)
            c.disconnect()
            c.loop_stop()
            assert seen == want, t
    finally:
        broker.stop()


def test_a_60_kb_offer_at_any_moment_is_refused_within_2_s(tmp_path):
    """A message far over the offer's limit, sent at 20 random moments of a game
    being played: each is read past and refused within 2 s, the table keeps its one
    connection (its status never `offline`) and its game is the one its keys entered."""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["g1"]).start()
    done = tmp_path / "played"
    game2 = os.path.join(hallbroker.ROOT, "host_tests", "data", "game2.keys")
    table = hallbroker.table(tmp_path, broker, HALL, "g1", "settle", "10000", "say", "PLAYING",
                             "pace", "150", "play", game2, "until", str(done), "60000",
                             "stats", "state")
    desk = Answers(broker, "g1")
    status = []
    reader = hallbroker.client(broker, "hall", on_message=lambda c, u, m: status.append(
        m.payload.decode()))
    hallbroker.subscribe(reader, "cowboy/%s/g1/status" % HALL)
    rng = random.Random(37)
    big = json.dumps({"id": "big", "players": 2, "x": "y" * 60000}).encode()
    slow = []
    try:
        early = hallbroker.lines_until(table, "PLAYING")
        for i in range(20):
            time.sleep(rng.random() * 0.6)      # (a random moment of the game)
            t0 = time.monotonic()
            got = desk.send(big, wait=10.0)
            took = time.monotonic() - t0
            assert got is not None and got["answer"] == "refused", (i, got)
            if took > 2.0:
                slow.append((i, round(took, 2)))
        seen = list(status)             # (the table's end sends its last will)
        done.write_text("")
        out, err = table.communicate(timeout=120)
    finally:
        desk.close()
        reader.disconnect()
        reader.loop_stop()
        if table.poll() is None:
            table.kill()
        broker.stop()
    assert table.returncode == 0, out + err
    assert "Traceback" not in out + err and not err.strip(), out + err
    assert not slow, slow
    lines = early + out.splitlines()
    stats = [line.split() for line in lines if line.startswith("STATS ")][0]
    assert stats[1] == "1", stats                # one connection all along
    assert seen == ["online"], seen
    sim = simboard.Sim(3, "tm1637")
    sim.play(simboard.parse_script(open(game2, "rb").read(), sim))
    state = [line[6:] for line in lines if line.startswith("STATE ")][0]
    assert json.loads(state) == json.loads(sim.state())
