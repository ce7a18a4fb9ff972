"""A table whose broker cannot be reached costs what a connected one does: the same game
played in real time on three host tables (host_tests/hall_table.py: the real
application, publisher and MQTT client on the host MicroPython), one against a real
Mosquitto, one whose broker's port refuses the connection, one whose broker never
answers (its SYN dropped, as for a broker's computer switched off). Processor time,
not wall time, is compared, and the three play at the same time, so a loaded machine
weighs on each.
And the quiet does not cost the reconnect: a broker that comes back is found within
the longest rest between two attempts (docs/HALL.md, "When the broker cannot be
reached")."""
import os
import time

import pytest

from mpy import MICROPYTHON
import hallbroker

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

HALL = "club"
STROKES = 10
GAP_MS = 600            # after each stroke: a table in play, not a burst of keys
AT_MOST = 1.5           # an unreachable broker's processor time per stroke, against online's
RETRY_MAX_S = 4.0       # net/hall.py RETRY_MAX_MS: the longest rest between two attempts
SLACK_S = 4.0           # the connection itself and a loaded machine's slow steps


def cpu_lines(proc, timeout=240):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out + err
    cpu = [float(x.split()[1]) for x in out.splitlines() if x.startswith("CPU ")]
    assert len(cpu) == 2, out
    return out.splitlines(), cpu[1] - cpu[0]


def test_an_unreachable_broker_costs_no_more_per_stroke_than_a_reachable_one(tmp_path):
    keys = tmp_path / "game.keys"
    keys.write_text("MISS\nWAIT %d\n" % GAP_MS * STROKES)
    held = []
    procs = {}
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["on"]).start()
    try:
        ports = {"on": broker.port, "refused": hallbroker.free_port(),
                 "silent": hallbroker.closed_port("dropped", held)}
        for name, port in ports.items():
            # before the game: online, connected and all sent; offline, the first attempts
            procs[name] = hallbroker.table(tmp_path, broker, HALL, name, "settle", "3000",
                                           "cpu", "play-real", str(keys), "cpu", "stats",
                                           port=port)
        got = {name: cpu_lines(p) for name, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        broker.stop()
        for s in held:
            s.close()
    stats = {name: [int(w) for w in lines[-1].split()[1:]] for name, (lines, _) in got.items()}
    assert "SETTLED" in got["on"][0] and stats["on"][1] >= STROKES, got["on"][0]
    assert stats["refused"][0] == stats["silent"][0] == 0       # never connected
    assert stats["refused"][2] == stats["silent"][2] == 0       # nothing handed over
    per = {name: cpu / STROKES for name, (_, cpu) in got.items()}
    assert per["on"] > 0, per
    for name in ("refused", "silent"):
        assert per[name] <= AT_MOST * per["on"], (name, per)


def test_a_broker_that_comes_back_is_found_within_the_longest_rest(tmp_path):
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["t1"])     # ports taken, not started
    keys = tmp_path / "stroke.keys"
    keys.write_text("MISS\n")
    # 6 s after its first attempt: 0.25, 0.5, 1 and 2 s rests behind it, 4 s from now on
    proc = hallbroker.table(tmp_path, broker, HALL, "t1", "play", str(keys), "idle", "6000",
                            "say", "waiting", "online", "60000", "settle", "20000", "stats")
    try:
        hallbroker.lines_until(proc, "waiting", 120)
        broker.start()
        back = time.monotonic()
        lines = hallbroker.lines_until(proc, "ONLINE", 90)
        found = time.monotonic() - back
        out = proc.stdout.read()            # (what the line reader holds, then the rest)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
        broker.stop()
    assert proc.returncode == 0, out + proc.stderr.read()
    assert found <= RETRY_MAX_S + SLACK_S, (found, lines)
    words = out.split()         # the stroke played offline, acknowledged once online
    assert words[:1] == ["SETTLED"] and words[1] == "STATS" and int(words[3]) == 1, out

