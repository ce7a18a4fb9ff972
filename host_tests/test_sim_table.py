"""The simulator as a hall table (docs/HALL.md, "A club night": a table on a PC):
`tools/sim.py --hall FILE` runs the real firmware on the host MicroPython with its
hall publisher and MQTT client (the mechanism of host_tests/hall_table.py:
tools/simboard.py Sim.join_hall), against a real Mosquitto: it takes the desk's
offer, publishes its game, and a bad hall file is refused in one line."""
import json
import os
import subprocess
import sys
import time

import pytest

import hallbroker
from mpy import MICROPYTHON, TOOLS
from version import VERSION

SIM = os.path.join(TOOLS, "sim.py")
HALL = "club"

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def hall_file(tmp_path, broker, table):
    path = tmp_path / (table + ".json")
    path.write_text(json.dumps({"broker": "127.0.0.1", "port": broker.port, "hall": HALL,
                                "table": table, "user": table,
                                "password": hallbroker.PASSWORD}))
    return path


def retained(broker, table, kinds=("state", "answer", "status")):
    """The retained messages of `table`, {kind: payload text}, once every one of
    `kinds` came (they come right after the subscription's acknowledgement)."""
    got = {}
    c = hallbroker.client(broker, "hall2", on_message=lambda cl, u, m: got.__setitem__(
        m.topic.split("/")[-1], m.payload.decode()))
    hallbroker.subscribe(c, "cowboy/%s/%s/+" % (HALL, table))
    end = time.monotonic() + hallbroker.GUARD
    while not set(kinds) <= set(got) and time.monotonic() < end:
        time.sleep(0.02)
    c.disconnect()
    c.loop_stop()
    return got


@pytest.mark.parametrize("exe", [MICROPYTHON, sys.executable], ids=("micropython", "cpython"))
def test_a_pc_table_takes_the_desks_offer_and_publishes_its_game(tmp_path, exe):
    """(Under CPython, sim.py --hall runs itself again under the host MicroPython.)"""
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["p1"]).start()
    try:
        offer = {"id": "n1-p1-1", "players": 2, "opener": 2, "names": ["Anna", "Zo\u00eb"]}
        hallbroker.publish(broker, "desk", [("cowboy-desk/%s/p1/offer" % HALL,
                                             json.dumps(offer).encode(), True)])
        keys = tmp_path / "k"
        keys.write_text("WAIT 2500\nOK\n3\nC2\nOK\nMISS\n")
        root = tmp_path / "flash"
        res = subprocess.run([exe, SIM, "--hall", str(hall_file(tmp_path, broker, "p1")),
                              "--root", str(root), "--script", str(keys), "--status",
                              "--state"], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        assert "Traceback" not in res.stderr
        lines = res.stdout.splitlines()
        state = json.loads(lines[-1])
        assert state["names"] == ["Anna", "Zo\u00eb"] and state["scores"] == [0, 4]
        assert lines[-2].startswith("Anna at the table") and \
            "table p1 of hall club: online, all sent" in lines[-2], lines[-2]
        assert json.loads((root / "hall.json").read_text())["table"] == "p1"
        got = retained(broker, "p1")
    finally:
        broker.stop()
    assert json.loads(got["state"]) == dict(state, firmware=VERSION)   # the board's, last
    assert json.loads(got["answer"]) == {"id": "n1-p1-1", "answer": "accepted"}
    assert got["status"] == "offline"           # quit: its last will


def test_the_words_say_the_offer_on_the_displays(tmp_path):
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["p2"]).start()
    try:
        offer = {"id": "n1-p2-1", "players": 3, "opener": 2, "names": ["Anna", "", "Cy"]}
        offer["names"][1] = "\U0001F3B1 Ben"
        hallbroker.publish(broker, "desk", [("cowboy-desk/%s/p2/offer" % HALL,
                                             json.dumps(offer).encode(), True)])
        keys = tmp_path / "k"
        keys.write_text("WAIT 2500\n")
        res = subprocess.run([MICROPYTHON, SIM, "--hall", str(hall_file(tmp_path, broker, "p2")),
                              "--root", str(tmp_path / "flash"), "--script", str(keys),
                              "--status"], capture_output=True, text=True, timeout=120)
    finally:
        broker.stop()
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1].startswith(
        "The desk offers the next game: Anna v \U0001F3B1 Ben v Cy, \U0001F3B1 Ben opens (OK "
        "starts it, UNDO puts it aside); table p2 of hall club: online, all sent. Scores: ")


@pytest.mark.parametrize("text,word", [
    (None, "cannot read"),
    ("{", "not JSON"),
    ('{"broker": "b", "hall": "club"}', '"table"'),
    ('{"broker": "b", "hall": "club", "table": "T1"}', '"table"'),
    ('{"broker": "", "hall": "club", "table": "t1"}', '"broker"'),
    ('{"broker": "b", "hall": "club", "table": "t1", "port": "1883"}', '"port"'),
])
def test_a_bad_hall_file_is_one_line(tmp_path, text, word):
    path = tmp_path / "hall.json"
    if text is not None:
        path.write_text(text)
    for exe in (sys.executable, MICROPYTHON):
        res = subprocess.run([exe, SIM, "--hall", str(path), "--root", str(tmp_path / "f")],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and res.stdout == "", res.stderr
        first = res.stderr.splitlines()[0]
        assert first.startswith("sim: --hall %s: " % path) and word in first, res.stderr
        assert not (tmp_path / "f").exists()
