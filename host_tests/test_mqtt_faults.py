"""net/mqtt.py against a broker that misbehaves (host_tests/mqttbroker.py, a scripted
broker on a socket): malformed and truncated packets, a huge remaining length, a line
closed mid-packet, no PINGRESP, a refused CONNACK, a refused subscription, two
messages to acknowledge at once, a long message read slowly. The client takes no
byte past a packet's end as part of it (what came behind it is the next packet's) and
acknowledges nothing it did not get; each fault costs the connection at most, and the
table (the real application under CPython and under the host MicroPython) keeps
playing through all of them: its keys answer, its displays show the game, and every
action reaches the broker once it behaves."""
import asyncio
import json
import os
import subprocess
import time

import pytest

import mqttbroker
import simboard
from mpy import FAKES, FIRMWARE, MICROPYTHON, MODELS, ROOT, TOOLS, check
from mqttbroker import Closed, publish, serve, subscribed
from net import hallsettings, mqtt, offers

HALL, TABLE = "club", "t1"
DESK = offers.topic(HALL, TABLE)
LIMIT = offers.OFFER_MAX + 256          # the publisher's buffer (net/hall.py)


def run_client(broker, body, keepalive=10):
    """Run `body(client, got)` (a coroutine function) with a real client connected to
    `broker`; returns (client, messages it handed on, what body returned)."""
    c = mqtt.Client("t1", "127.0.0.1", broker.port, keepalive=keepalive, limit=LIMIT)
    got = []
    c.on_message = lambda topic, payload, retain: got.append((topic, payload, retain))

    async def main():
        try:
            assert await c.connect()
            return await body(c, got)
        finally:
            c.close()
    return c, got, asyncio.run(asyncio.wait_for(main(), 30))


async def keep_until(c, what, seconds=10):
    """Step the client as the publisher does (keep(), then yield) until what() or
    the line is gone; returns what()."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not what() and c.alive() and loop.time() < end:
        await c.keep()
        await asyncio.sleep(0.005)
    return what()


def script(*sends, then_serve=False):
    """A connection that is served until subscribed, then gets `sends` (bytes) and
    is closed (or served on)."""
    def run(conn):
        serve(conn, until=subscribed)
        for b in sends:
            conn.send(b)
        if then_serve:
            serve(conn)
    return run


# ---- the client alone ------------------------------------------------------------
def test_two_messages_before_keep_get_two_pubacks():
    """Two QoS 1 messages read before the publisher's next step: both acknowledged."""
    both = publish(DESK, b'{"id": "a"}', 1, pid=7) + publish(DESK, b'{"id": "b"}', 1, pid=8)
    broker = mqttbroker.Broker([script(both, then_serve=True)]).start()
    try:
        async def body(c, got):
            await c.subscribe(DESK, 1)
            while len(got) < 2:
                await asyncio.sleep(0.005)      # (no keep(): both arrive first)
            return await keep_until(c, lambda: broker.conns[0].kinds().count(0x40) == 2)
        c, got, acked = run_client(broker, body)
    finally:
        broker.stop()
    assert [p for t, p, r in got] == [b'{"id": "a"}', b'{"id": "b"}']
    assert acked, broker.conns[0].log
    assert [b for k, b in broker.conns[0].log if k == 0x40] == [b"\x00\x07", b"\x00\x08"]


BURST = """
import asyncio
from fakestream import Stream
from net import mqtt


c = mqtt.Client("t1", "127.0.0.1", limit=%(limit)d)
got = []
c.on_message = lambda topic, payload, retain: got.append((topic, payload, retain))
for i in range(9):
    c._flight[i] = i + 1
c._reader = line = Stream(%(burst)r)
c._into = c.connected = True
asyncio.run(c._receive())
print("READS", line.reads, "FLIGHT", sum(1 for p in c._flight if p), "GOT", len(got),
      got[0][1] == b"z" * 100 if got else None, "OWED", c._ack_n, c._acks[0])
"""


def test_packets_that_came_together_are_read_together():
    """Eight PUBACKs, a message longer than the read-ahead and a ninth PUBACK, all
    on the line at once (a catch-up's acknowledgements after an outage): four reads,
    not three a packet (each read is a round of asyncio, on the Pico W a piece of a
    client step that a key pressed meanwhile waits for). Every PUBACK is taken, the
    message handed on whole and its own PUBACK owed. Under CPython and under the
    host MicroPython (the device's asyncio)."""
    acks = b"".join(mqttbroker.packet(0x40, bytes((0, i + 1))) for i in range(8))
    burst = acks + publish(DESK, b"z" * 100, 1, pid=77) + mqttbroker.packet(0x40, b"\x00\x09")
    code = BURST % {"limit": LIMIT, "burst": burst}
    expect = ["READS", "4", "FLIGHT", "0", "GOT", "1", "True", "OWED", "1", "77"]
    out = []
    exec(code, {"print": lambda *a: out.extend(str(x) for x in a)})
    assert out == expect, out
    out = check(code=code).out.split()
    assert out == expect, out


def test_more_pubacks_due_than_slots_drop_the_line():
    """17 QoS 1 messages before the publisher's next step: the 16 kept are handed
    on, the 17th ends the connection (its PUBACK has no slot)."""
    burst = b"".join(publish(DESK, b"%d" % i, 1, pid=i + 1) for i in range(17))
    broker = mqttbroker.Broker([script(burst, then_serve=True)]).start()
    try:
        async def body(c, got):
            await c.subscribe(DESK, 1)
            loop = asyncio.get_running_loop()
            end = loop.time() + 10
            while c.alive() and loop.time() < end:
                await asyncio.sleep(0.005)      # (no keep(): all of them arrive first)
            return c.alive()
        c, got, alive = run_client(broker, body)
    finally:
        broker.stop()
    assert not alive
    assert [p for t, p, r in got] == [b"%d" % i for i in range(16)]


@pytest.mark.parametrize("bad", [
    b"\x32\x03\x00\x01\x61",            # QoS 1: a topic "a", no room for its packet id
    b"\x30\x01\x00",                    # a topic length cut in half
    b"\x30\x00",                        # nothing at all
    b"\x30\x04\x00\x09abc",             # a topic longer than the packet
    b"\x40\x03\x00\x01\x00",            # a PUBACK of 3 bytes
    b"\x90\x02\x00\x01",                # a SUBACK without its return code
])
def test_a_malformed_packet_drops_the_line_and_nothing_else(bad):
    """A packet whose lengths do not add up is handed to no one, acknowledged with
    no packet id read from old bytes, and costs the connection (MQTT 3.1.1: a
    malformed packet closes it)."""
    def run(conn):
        serve(conn, until=subscribed)
        conn.send(publish(DESK, b"x" * 40, 1, pid=0x4142))     # old bytes in the buffer
        serve(conn, until=lambda conn, first, body: first & 0xF0 == 0x40)
        conn.send(bad)
        serve(conn)
    broker = mqttbroker.Broker([run]).start()
    try:
        async def body(c, got):
            await c.subscribe(DESK, 1)
            await keep_until(c, lambda: False, 5)
            return c.alive()
        c, got, alive = run_client(broker, body)
    finally:
        broker.stop()
    assert not alive
    assert got == [(DESK, b"x" * 40, 0)]                 # the good one only
    assert [b for k, b in broker.conns[0].log if k == 0x40] == [b"\x41\x42"]


@pytest.mark.parametrize("qos", [0, 1])
def test_a_topic_too_long_for_the_header_buffer_is_refused(qos):
    """A topic that would not fit the 160-byte header buffer: ValueError, and the
    buffer neither written past nor grown."""
    broker = mqttbroker.Broker().start()
    try:
        async def body(c, got):
            with pytest.raises(ValueError):
                await c.publish("cowboy/" + "h" * 200 + "/t1/state", "{}", qos)
            with pytest.raises(ValueError):
                await c.subscribe("x" * 200, 1)
            return len(c._head), await c.publish("cowboy/club/t1/state", "{}", qos)
        c, got, (size, pid) = run_client(broker, body)
    finally:
        broker.stop()
    assert size == 160 and (pid > 0) == (qos == 1)


def test_a_refused_subscription_is_noticed():
    """A SUBACK with 0x80: subscribe() raises (the publisher drops the line and
    tries again later, its back-off growing) and the refusal is counted."""
    broker = mqttbroker.Broker([lambda conn: serve(conn, suback=0x80)]).start()
    try:
        async def body(c, got):
            with pytest.raises(OSError):
                await c.subscribe(DESK, 1)
            return c.refused
        c, got, refused = run_client(broker, body)
    finally:
        broker.stop()
    assert refused == 1


def test_a_granted_subscription_is_awaited():
    """subscribe() returns once the SUBACK granted it; a retained message sent
    right after reaches on_message."""
    def run(conn):
        serve(conn, until=subscribed)
        conn.send(publish(DESK, b'{"id": "r"}', 1, pid=3, retain=True))
        serve(conn)
    broker = mqttbroker.Broker([run]).start()
    try:
        async def body(c, got):
            await c.subscribe(DESK, 1)
            return await keep_until(c, lambda: bool(got))
        c, got, ok = run_client(broker, body)
    finally:
        broker.stop()
    assert ok and got == [(DESK, b'{"id": "r"}', 1)] and c.refused == 0


def test_a_long_message_read_slowly_is_not_silence():
    """A 60 KB message that takes longer than one and a half keep-alives to come in
    keeps the line alive: every piece read is the broker talking."""
    big = publish(DESK, b"y" * 60000, 1, pid=9)

    def run(conn):
        serve(conn, until=subscribed)
        for i in range(0, len(big), 2000):      # 3 s for the whole (keep-alive 1 s)
            conn.send(big[i:i + 2000])
            time.sleep(0.1)
        serve(conn)
    broker = mqttbroker.Broker([run]).start()
    try:
        async def body(c, got):
            await c.subscribe(DESK, 1)
            return await keep_until(c, lambda: bool(got), 20)
        c, got, ok = run_client(broker, body, keepalive=1)
    finally:
        broker.stop()
    assert ok and got == [(DESK, len(big) - 4, 0)]


def test_hall_settings_with_names_that_make_no_topic_are_not_used(tmp_path):
    """hall.json whose hall or table name makes no topic level (longer than 64 bytes:
    the topic would not fit the client's header buffer; a `/`, `+`, `#`, NUL; not a
    string): not used, as if there were none. A hand-made name the menu would not
    write (`T_1`) makes a topic, and is used."""
    good = {"broker": "127.0.0.1", "hall": "club", "table": "t1"}
    root = str(tmp_path) + "/"
    for hall, table, ok in (("club", "t1", True), ("c" * 200, "t1", False),
                            ("h" * 64, "\u00e9" * 32, True), ("h" * 65, "t1", False),
                            ("club", "\u00e9" * 33, False), ("club", "T_1", True),
                            ("club", "t/1", False), ("club", "#", False),
                            ("club", "+", False), ("club", "t\u0000", False),
                            ("club", 7, False), ("", "t1", False), (None, "t1", False)):
        (tmp_path / "hall.json").write_text(json.dumps(dict(good, hall=hall, table=table)))
        assert (hallsettings.load_settings(root) is not None) == ok, (hall, table)


# ---- a table playing through each fault ------------------------------------------
KEYS = ["3", "OK", "MISS", "5", "OK", "FOUL", "MISS", "1", "OK", "MISS"]


def huge(conn):
    serve(conn, until=subscribed)
    conn.send(b"\x30\xff\xff\xff\x7f\x00\x05" + DESK.encode()[:5])   # 256 MB promised
    conn.packet()       # (the client's next, if any: then the line goes)


FAULTS = {
    "malformed": script(b"\x32\x03\x00\x01\x61", then_serve=True),
    "malformed length": script(b"\x30\xff\xff\xff\xff\x01", then_serve=True),
    "truncated": script(publish(DESK, b'{"id": "cut"}', 1)[:9]),
    "huge length": huge,
    "huge, not a publish": script(b"\xd0\xff\xff\xff\x7f", then_serve=True),
    "closed mid-packet": script(publish(DESK, b"z" * 30000, 1)[:12000]),
    "no pingresp": lambda conn: serve(conn, pingresp=False),
    "refused connack": lambda conn: serve(conn, connack=5),
    "refused suback": lambda conn: serve(conn, suback=0x80),
}


def hall_json(path, port):
    path.mkdir(exist_ok=True)
    (path / "hall.json").write_text(json.dumps({
        "broker": "127.0.0.1", "port": port, "hall": HALL, "table": TABLE,
        "keepalive": 2}))


def play(sim, keys):
    sim.play(simboard.parse_script("\n".join(keys).encode() + b"\n", sim))


def reference():
    """What the keys give on a table without a network: state and displays."""
    sim = simboard.Sim(2)
    sim.run_to(2500)
    play(sim, KEYS)
    return sim.state(), sim.texts()


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_table_plays_through_a_broker_fault(tmp_path, fault):
    broker = mqttbroker.Broker([FAULTS[fault]]).start()
    hall_json(tmp_path, broker.port)
    sim = simboard.Sim(2, root=str(tmp_path) + "/")
    hall = sim.join_hall()
    try:
        sim.run_to(2500)
        play(sim, KEYS[:4])
        assert sim.run_real(20000, lambda: broker.conns and broker.conns[0].log)
        play(sim, KEYS[4:7])            # the fault comes: keys all the same
        # it costs the first connection (a refused one never counts)
        assert sim.run_real(20000, lambda: len(broker.conns) >= 2), broker.conns[0].log
        play(sim, KEYS[7:])
        assert sim.run_real(20000, hall.caught_up), (fault, hall.errors, hall.connects)
    finally:
        hall.close()
        broker.stop()
    assert not broker.errors, broker.errors
    state, texts = reference()
    assert (sim.state(), sim.texts()) == (state, texts)
    assert hall.connects == (1 if fault == "refused connack" else 2)
    assert hall.desk.offers == 0 and hall._client.refused == (fault == "refused suback")
    pos = sorted({json.loads(b[2 + (b[0] << 8 | b[1]) + 2:])["pos"]
                  for c in broker.conns for k, b in c.log
                  if k & 0xF0 == 0x30 and b[2:2 + (b[0] << 8 | b[1])].endswith(b"/action")})
    assert pos == list(range(1, sim.app.journal.records + 1))


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="needs the host micropython")
def test_a_table_under_micropython_plays_through_every_fault(tmp_path):
    """The same faults, one connection after the other, against a table on the host
    MicroPython playing a game: the game is the one its keys entered, and once the
    broker behaves it has every action."""
    names = sorted(FAULTS)
    broker = mqttbroker.Broker([FAULTS[n] for n in names]).start()
    root = tmp_path / "t1"
    hall_json(root, broker.port)
    (tmp_path / "keys").write_text("\n".join(KEYS) + "\n")
    env = dict(os.environ, MICROPYPATH=":".join([TOOLS, FAKES, MODELS, FIRMWARE, ".frozen"]))
    proc = subprocess.Popen([MICROPYTHON, os.path.join(ROOT, "host_tests", "hall_table.py"),
                             str(root), "setup", "2", "1", "0", "idle", "2500",
                             "pace", "300", "play", str(tmp_path / "keys"),
                             "until", str(tmp_path / "faulted"), "90000",
                             "settle", "20000", "stats", "state"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert broker.wait(lambda: len(broker.conns) > len(names), 90), \
            [c.log[-1:] for c in broker.conns]
        (tmp_path / "faulted").write_text("")
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        broker.stop()
    assert proc.returncode == 0 and not err.strip(), out + err
    lines = out.splitlines()
    assert "SETTLED" in lines, out
    stats = [line.split() for line in lines if line.startswith("STATS ")][0]
    assert int(stats[1]) == len(names)      # connected each time but the refused one
    state = [line[6:] for line in lines if line.startswith("STATE ")][0]
    assert json.loads(state) == json.loads(reference()[0])
    assert not broker.errors, broker.errors
