"""Hall mode on the emulated Pico W (the project's image), every build, against a
real Mosquitto and the real archive (tools/hall_archive.py): the board's UART is its
network (host_tests/uartlink.py; the test's boot file pico/uartnet.py stands in for
the Wi-Fi join and asyncio.open_connection, nothing else).

One run per build: boot, connect; game2.keys played on the panel pins (the game of
the host hall tests), the power cut in the middle of it; the rest of the game; the
desk's offer, shown on the offered game's displays, changed by the desk (other
names under the same id) and accepted with OK; the next offer, sent before the
accepted game's first stroke, waiting; the keys' answers measured in the offered
game with the hall publishing; the heap at the REPL. Then the archive holds game2 as
the host tests expect it, the broker the board's own state, the desk the table's
answers in order, and the journal every press.

`make test-pico` runs the lightest build and the largest (tm1637, oled8: a hall run
is some 45 emulated seconds, two to three minutes of wall time); `make bench-pico-hall`
runs every build with MISS strokes up to 100 (PICO_HALL=all), the heap's figures
of docs/PERFORMANCE.md."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import picoboard
import bench_pico
import hallbroker
import uartlink
from uartlink import HALL, TABLE

WHY = picoboard.ready() or (None if hallbroker.mosquitto() else "needs mosquitto")
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")

DATA = os.path.join(picoboard.ROOT, "host_tests", "data")
GAME2 = os.path.join(DATA, "game2.keys")
# the desk's offers, each sent when the run's log shows its mark: one offer, then the
# same id with other names (an accent, an emoji: a JSON surrogate pair) while it is
# on the displays, which replaces it; after OK, before the first stroke, the next
# offer, which waits for the accepted game's end
FIRST = {"id": "w-2", "players": 2, "opener": 1, "names": ["Ann", "Bea"], "rules": []}
OFFER = dict(FIRST, names=["Zo\u00eb", "\U0001f3b1 Ben"])
EARLY = {"id": "w-3", "players": 2, "opener": 2, "names": ["Cleo", "Dan"], "rules": []}
SENDS = [("desk:offer", FIRST), ("desk:change", OFFER), ("desk:early", EARLY)]
ANSWERS = [{"id": "w-2", "answer": "seen", "waits": "operator"},
           {"id": "w-2", "answer": "accepted"},
           {"id": "w-3", "answer": "seen", "waits": "game"}]
FULL = os.environ.get("PICO_HALL") == "all"
BUILDS = bench_pico.BUILDS if FULL else ("tm1637", "oled8")
STROKES = 100 if FULL else 0    # actions on the board before the heap is read (0: as played)
GAP_MS = 150              # after a key's release: its answer, its record, the hall's turn
HOLD_MS = 1000            # a long press (input/buttons.py long_ms and a margin)
CUT_AT = 35               # game2's key line after which the power is cut (a stroke's last)
HEAP_FREE = 32 * 1024     # the Pico W's bound in hall mode (docs/PERFORMANCE.md)
# the largest free block: the goal of docs/PERFORMANCE.md, four times the largest buffer
# hall mode makes (a record's part, net/records.py)
HEAP_BLOCK = 16 * 1024


def script(path):
    """[(key, held)] of a sim key script (comments and blank lines out)."""
    out = []
    for line in open(path).read().splitlines():
        words = line.split("#")[0].split()
        if words:
            out.append((words[-1], words[0] == "HOLD"))
    return out


def plan(build, pins, encoder):
    """The run's Plan (tools/bench_pico.py): keys, marks and the REPL at the end."""
    p = bench_pico.Plan("%s-hall" % build, pins)
    keys = script(GAME2)
    cut = CUT_AT
    while keys[cut - 1][0] not in ("OK", "MISS"):
        cut += 1

    def play(some):
        for key, held in some:
            if key in ("ENC+", "ENC-"):
                p.step(emulator={"encoder": {"a": encoder[0], "b": encoder[1]},
                                 "detents": 1 if key == "ENC+" else -1, "ms_per_detent": 10})
            else:
                p.press(key, "key", None, "game2", ms=HOLD_MS if held else bench_pico.PRESS_MS)
            p.step(wait_ms=GAP_MS)

    p.step(serial="cowboy: up", timeout_ms=20000)
    p.step(wait_ms=2500)                         # the start-up pages; the broker
    play(keys[:cut])
    p.step(emulator={"power_cut": {}})
    p.step(serial="cowboy: up", timeout_ms=20000)
    p.step(wait_ms=2500)
    play(keys[cut:])
    p.step(wait_ms=bench_pico.END_WAIT_MS)                # the game's statistics
    p.step(emulator={"mark": "desk:offer"})      # the desk sends the next game now
    p.step(wait_ms=2500)                         # it comes and shows
    p.step(emulator={"mark": "desk:change"})     # the same id, other names
    p.step(wait_ms=2500)
    p.step(emulator={"mark": "offer-shown"})
    p.press("OK", "key", None, "accept the offer")
    p.step(wait_ms=3000)
    p.step(emulator={"mark": "offer-taken"})
    p.step(emulator={"mark": "desk:early"})      # the next game, before the first stroke
    p.step(wait_ms=2500)
    p.measured("3", None, "compose: the 3 ball")
    p.measured("C2", None, "compose: carom off two balls")
    p.measured("OK", "shot", "scoring stroke 3+C2+OK")
    p.measured("MISS", "miss", "MISS: the next player (two displays)")
    p.measured("5", None, "compose: the 5 ball")
    p.measured("OK", "shot", "scoring stroke 5+OK")
    p.measured("FOUL", "foul", "FOUL (two displays)")
    p.measured("UNDO", "undo", "UNDO of the FOUL")
    p.measured("REDO", "redo", "REDO of the FOUL")
    return p


def pad(p, strokes_so_far):
    """MISS presses until the board has played STROKES actions since it started,
    then the heap at the REPL."""
    for _ in range(STROKES - strokes_so_far):
        p.press("MISS", "key", "miss", "a stroke more", window_ms=GAP_MS)
        p.step(wait_ms=GAP_MS)
    p.step(wait_ms=3000)                         # the broker acknowledges the last
    p.step(emulator={"mark": "settled"})
    p.step(emulator={"ctrl_c": True})
    p.step(wait_ms=600)
    p.step(emulator={"send": "import gc,micropython;gc.collect();"
                             "print('LOCK', app.locked, app.lock_errors);"
                             "print('HEAP', gc.mem_free());micropython.mem_info()\r"})
    p.step(serial="max free sz", timeout_ms=3000)
    p.step(wait_ms=200)


class Desk(threading.Thread):
    """Sends the offers of SENDS (retained, as the desk page does) as the run's log
    shows their marks."""

    def __init__(self, broker, log):
        super().__init__(daemon=True)
        self.broker, self.log, self.sent, self.stop = broker, log, [], False

    def run(self):
        while not self.stop and len(self.sent) < len(SENDS):
            mark, offer = SENDS[len(self.sent)]
            try:
                with open(self.log) as f:
                    if '"%s"' % mark in f.read():
                        c = hallbroker.client(self.broker, "desk")
                        c.publish("cowboy-desk/%s/%s/offer" % (HALL, TABLE),
                                  json.dumps(offer), qos=1, retain=True).wait_for_publish(5)
                        c.disconnect()
                        c.loop_stop()
                        self.sent.append(mark)
                        continue
            except OSError:
                pass
            time.sleep(0.1)


def archive(broker, db):
    return subprocess.Popen([sys.executable, os.path.join(picoboard.TOOLS, "hall_archive.py"),
                             "--db", str(db), "--port", str(broker.port), "--user", "archive",
                             "--password", hallbroker.PASSWORD, "--hall", HALL,
                             "--games", "0", "--seconds", "3000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def archived(db):
    out = subprocess.run([sys.executable, os.path.join(picoboard.TOOLS, "hall_archive.py"), "--db",
                          str(db), "--export", "-"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def retained(broker, topic):
    """{topic: payload} of the retained messages under `topic` (the hall's reader)."""
    got = {}
    def on_message(client, userdata, m):
        if m.retain:
            got[m.topic] = m.payload.decode()
    c = hallbroker.client(broker, "hall", on_message=on_message)
    c.subscribe(topic, qos=1)
    time.sleep(1.0)
    c.disconnect()
    c.loop_stop()
    return got


@pytest.mark.parametrize("build", BUILDS)
def test_hall_mode_on_the_pico_w(build, tmp_path):
    import test_hall           # the host hall tests' expectations of game2
    pins = bench_pico.panel_pins()
    encoder = bench_pico.firmware_config().ENCODER[1:3]
    p = plan(build, pins, encoder)
    strokes_before = len(test_hall.record_lines(os.path.join(DATA, "game2.jsonl"))) - 1
    pad(p, strokes_before + 6)        # the offered game's measured strokes: 6 actions
    _, tm, i2c = bench_pico.displays(build)
    broker = hallbroker.Broker(tmp_path / "broker", HALL, [TABLE]).start()
    app = uartlink.hall_app(str(tmp_path / "device"), build, broker.port)
    with open(os.path.join(app, "settings.json"), "w") as f:
        f.write('{"players": 3, "opener": 0, "brightness": 8}\n')
    folder = str(tmp_path / ("%s-hall" % build))
    os.makedirs(folder)
    with open(os.path.join(folder, "keys.json"), "w") as f:
        json.dump(p.keys, f)
    db = tmp_path / "hall.db"
    arch = archive(broker, db)
    desk = Desk(broker, os.path.join(folder, "%s-hall.jsonl" % build))
    desk.start()
    seen = {"status": [], "answer": []}     # the table's messages on these as they come
    watch = hallbroker.client(broker, "hall", on_message=lambda c, u, m: seen[
        m.topic.rsplit("/", 1)[1]].append(m.payload.decode()))
    watch.subscribe([("cowboy/%s/%s/status" % (HALL, TABLE), 1),
                     ("cowboy/%s/%s/answer" % (HALL, TABLE), 1)])
    try:
        with uartlink.Link(("127.0.0.1", broker.port)) as link:
            r = picoboard.run(p.steps, app, folder, picoboard.PICO_W, i2c, tm, timeout=1500,
                              args=["--uart0-tcp", str(link.port)])
            opened = link.opened
        state = retained(broker, "cowboy/%s/%s/#" % (HALL, TABLE))
        end = time.monotonic() + 30
        while time.monotonic() < end and not archived(db):
            time.sleep(0.5)
    finally:
        watch.disconnect()
        watch.loop_stop()
        desk.stop = True
        arch.terminate()
        arch.communicate(timeout=30)
        broker.stop()
    serial = r.serial
    # what the board said while it played: up to the Ctrl-C that stops the loop for the
    # heap's figures (its KeyboardInterrupt traceback, then the REPL)
    stop = serial.rfind("Traceback (most recent call last)")
    play = serial if stop < 0 else serial[:stop]
    repl = serial.split("HEAP ", 1)[1] if "HEAP " in serial else ""
    assert r.summary["passed"], r.summary.get("error")
    assert "Traceback" not in play and "Error" not in play, play[-2000:]
    assert len(desk.sent) == len(SENDS) and opened >= 2  # a connection before and after the cut

    # the archive: game2 once, as the host hall tests expect it
    games = archived(db)
    assert [g["table"] for g in games] == [TABLE]
    test_hall.check_game2(games[0], tmp_path)

    # the broker: the board's own final state, and the offer accepted
    records = r.actions()
    with open(os.path.join(folder, "journal-after.jsonl")) as f:
        header = json.loads(f.readline())
    import journal as journaltool
    import record
    names, _ = journaltool.read_names(os.path.join(folder, "fs-after", "journal.names"), 2)
    assert names == OFFER["names"] and header["players"] == 2
    header["names"] = names
    _, out = record.replay([json.dumps(header)] + list(records))
    topic = "cowboy/%s/%s/" % (HALL, TABLE)
    from version import VERSION                         # (the board's, last)
    assert json.loads(state[topic + "state"]) == dict(json.loads(out[0]), firmware=VERSION)
    # the answers: the offer seen (its change seen again, the same), accepted with OK,
    # the early one waiting for the accepted game's end (each said again on a connect)
    answers = []
    for a in seen["answer"]:
        a = json.loads(a)
        if not answers or answers[-1] != a:
            answers.append(a)
    assert answers == ANSWERS, answers
    assert json.loads(state[topic + "answer"]) == ANSWERS[-1]
    # online on each connection; the last will once the board went (the power cut,
    # the end of the run)
    statuses = seen["status"]
    assert statuses.count("online") >= 2 and statuses[-1] == "offline", statuses
    assert state[topic + "status"] == "offline"

    # no press lost: the offered game holds every stroke pressed in it
    kinds = [bench_pico.record_kind(a) for a in records]
    assert kinds == [k["record"] for k in p.keys if k["record"]]

    # the offer on the displays before OK, the names after it
    board = picoboard.emulated_histories(r, build)
    marks = dict(r.marks(""))
    shown, taken = marks["offer-shown"] / 1000.0, marks["offer-taken"] / 1000.0
    for d, h in enumerate(board):           # on the offered game's seats; the others dark
        pics = picoboard.held(h, shown - 1500, shown, ms=100)
        if d < OFFER["players"]:
            assert any(picoboard.says(build, x, "oFFr", "NEXT") for x in pics), (d + 1, pics)
        else:
            assert pics and all(not x.strip() if isinstance(x, str) else not any(x)
                                for x in pics), (d + 1, pics)
    if build.startswith("oled"):                # the changed offer's names, then the game's
        pics = picoboard.held(board[0], shown - 1500, shown, ms=100)
        assert any(picoboard.says(build, x, "BEN") for x in pics), pics
        pics = picoboard.held(board[1], taken, taken + 2400, ms=100)
        assert any(picoboard.says(build, x, "BEN") for x in pics), pics

    # the keys' answers with hall mode on, within the bounds as real-board estimates;
    # the hot path ran with the heap locked throughout (app/loop.py: no MemoryError
    # turned the lock off)
    res = bench_pico.analyse({"build": build, "scenario": "hall", "dir": folder}, picoboard.EMU, pins)
    answered = [k for k in res["keys"] if k["kind"] == "latency"]
    assert len(answered) == 9 and all(k["estimate_ms"] is not None for k in answered), answered
    late = [(k["label"], k["estimate_ms"]) for k in answered
            if k["estimate_ms"]
            > bench_pico.BOUND_MS[bench_pico.key_bound(build, k.get("displays_changed"))]]
    assert not late, late
    assert "LOCK True 0" in serial, serial[-600:]

    # the heap after STROKES strokes, the broker acknowledging them
    free = int(repl.split()[0])
    block = bench_pico.largest_free(repl)
    picoboard.figure("picow-hall", build, {"strokes": len(records) + strokes_before,
                                           "heap_free_bytes": free,
                                           "largest_free_bytes": block,
                                           "boots": bench_pico.boot_reports(serial),
                                           "keys": {k["label"]: [k.get("latency_ms"),
                                                                 k.get("estimate_ms")]
                                                    for k in res["keys"] if k["kind"] == "latency"}})
    assert free >= HEAP_FREE and block >= HEAP_BLOCK, (free, block)
