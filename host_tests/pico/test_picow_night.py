"""A night of hall mode on the emulated Pico W (the project's image), a bench target:
`make bench-pico-night` (NIGHT_MIN=30: emulated minutes; an hour and more of wall
time), skipped unless PICO_NIGHT gives the minutes. One table, tm1637, two players
playing strokes for NIGHT_MIN emulated minutes against a real Mosquitto over the
UART link (pico/test_picow_hall.py's), while the broker goes away (SIGKILL) and
comes back and a 60 KB message arrives on the table's offer topic, in turns, one
event a minute. Keys are measured as in the hall test (their answers estimated for
a real board, each within its bound): as hall mode starts and the client first
connects (the first key ends the start-up's wiring check and redraws every display:
it is held to the same key on the same image without hall mode, measured in a short
run of its own), while the broker is away, as it connects again and catches up with the
strokes played meanwhile, while it reads past the 60 KB message, and in plain play.
With PICO_STEPS=1 the client's polls over 3 ms go to serial too (pico/stepwatch.py;
its printing takes time, so those runs' keys are not the figures).
The heap is sampled every emulated minute (pico/heapwatch.py: a collection, the
free bytes, the largest free block): free bytes and largest block flat, the last
sample within 5 % of the first after the client connected; the hot path never lost
its heap lock (`lock_errors` 0); no press lost. The figures go to
build/pico-figures.json ("picow-night") and docs/PERFORMANCE.md."""
import json
import os
import threading
import time

import pytest

import bench_pico
import hallbroker
import picoboard
import uartlink
from test_picow_hall import pad
from uartlink import HALL, TABLE

MINUTES = int(os.environ.get("PICO_NIGHT") or 0)
WHY = picoboard.ready() or (None if hallbroker.mosquitto() else "needs mosquitto") or \
    (None if MINUTES else "a bench: make bench-pico-night (PICO_NIGHT=minutes)")
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")

BUILD = "tm1637"
GAP_MS = 150            # after a key's release (pico/test_picow_hall.py's)
STROKE_MS = 2500        # between two plain strokes
AWAY_S = 20             # the broker away, emulated seconds
BIG = 60 * 1024         # the message that arrives on the offer topic
FLAT = 0.05             # heap samples: the last within this of the first
MEASURED = ("MISS", "UNDO", "REDO")
WIRING = "wiring check"     # the first key's phase: held to the same key without hall mode
SAME = 0.05                 # ... within this


def measured_keys(p, phase):
    """A MISS, its UNDO and REDO, measured (`phase` names when, in the figures)."""
    for key, rec in (("MISS", "miss"), ("UNDO", "undo"), ("REDO", "redo")):
        p.measured(key, rec, phase)
        p.step(wait_ms=GAP_MS)


def first_key(p):
    """The first key, as hall mode starts: it ends the start-up's wiring check, so
    every display is drawn anew (eight on tm1637), hall mode or not."""
    p.measured("MISS", "miss", WIRING)
    p.step(wait_ms=GAP_MS)


def strokes(p, n):
    for _ in range(n):
        p.press("MISS", "key", "miss", "a stroke", window_ms=GAP_MS)
        p.step(wait_ms=STROKE_MS)


def plan(pins, minutes):
    """The run's Plan: a minute a round; each round's event by turns: the broker
    away and back, the 60 KB message, plain play."""
    p = bench_pico.Plan("%s-night" % BUILD, pins)
    p.step(serial="cowboy: up", timeout_ms=20000)
    first_key(p)
    for key, rec in (("UNDO", "undo"), ("REDO", "redo")):
        p.measured(key, rec, "connect")         # hall mode starting, the first connect
        p.step(wait_ms=GAP_MS)
    measured_keys(p, "connect")
    for r in range(minutes):
        kind = r % 3
        if kind == 1:
            p.step(emulator={"mark": "broker:stop:%d" % r})
            measured_keys(p, "away")
            strokes(p, AWAY_S * 1000 // (STROKE_MS + 210))
            p.step(emulator={"mark": "broker:start:%d" % r})
            measured_keys(p, "catch-up")        # connecting, then the strokes sent
            measured_keys(p, "catch-up")
        elif kind == 2:
            p.step(emulator={"mark": "big:%d" % r})
            p.step(wait_ms=50)
            measured_keys(p, "big message")     # read past while these are answered
            measured_keys(p, "big message")
        measured_keys(p, "play")
        strokes(p, 2 if kind == 1 else 8)
        p.step(until_ms=(r + 1) * 60000 + 2000)     # (the round's minute, since reset)
    return p


class Events(threading.Thread):
    """Does what the run's marks say as they appear in its log (read as it grows):
    the broker stopped (SIGKILL) or started, the 60 KB message published."""

    def __init__(self, broker, log):
        super().__init__(daemon=True)
        self.broker, self.log, self.done, self.stop = broker, log, [], False

    def run(self):
        at = 0
        rest = b""
        while not self.stop:
            try:
                with open(self.log, "rb") as f:
                    f.seek(at)
                    data = f.read()
            except OSError:
                data = b""
            at += len(data)
            lines = (rest + data).split(b"\n")
            rest = lines.pop()
            for line in lines:
                if b'"mark"' not in line:
                    continue
                name = json.loads(line).get("name", "")
                if name.startswith("broker:stop:"):
                    self.broker.stop(kill=True)
                elif name.startswith("broker:start:"):
                    self.broker.start()
                elif name.startswith("big:"):
                    hallbroker.publish(self.broker, "desk", [(
                        "cowboy-desk/%s/%s/offer" % (HALL, TABLE), b"x" * BIG, False)])
                else:
                    continue
                self.done.append(name)
            time.sleep(0.05)


def heap_samples(serial):
    """[(ticks_ms, free, largest free block)] of pico/heapwatch.py's lines."""
    out = []
    lines = serial.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("HEAP "):
            w = line.split()
            out.append((int(w[1]), int(w[2]),
                        bench_pico.largest_free("\n".join(lines[i + 1:i + 4]))))
    return out


def without_hall_mode(tmp_path, pins):
    """The real-board estimate of the first key (first_key) on the same image and
    build without hall.json: the reference of the night's first key."""
    p = bench_pico.Plan("%s-plain" % BUILD, pins)
    p.step(serial="cowboy: up", timeout_ms=20000)
    first_key(p)
    _, tm, i2c = bench_pico.displays(BUILD)
    app = picoboard.device_copy(str(tmp_path / "plain"), BUILD, picoboard.PICO_W)
    folder = str(tmp_path / ("%s-plain" % BUILD))
    os.makedirs(folder)
    with open(os.path.join(folder, "keys.json"), "w") as f:
        json.dump(p.keys, f)
    r = picoboard.run(p.steps, app, folder, picoboard.PICO_W, i2c, tm, timeout=900)
    assert r.summary["passed"], r.summary.get("error")
    res = bench_pico.analyse({"build": BUILD, "scenario": "plain", "dir": folder},
                             picoboard.EMU, pins)
    got = [k["estimate_ms"] for k in res["keys"] if k["kind"] == "latency"]
    assert len(got) == 1 and got[0] is not None, res["keys"]
    return got[0]


def test_a_night_of_hall_mode_on_the_pico_w(tmp_path):
    pins = bench_pico.panel_pins()
    p = plan(pins, MINUTES)
    pad(p, 0)                       # the heap and the lock at the REPL, at the end
    _, tm, i2c = bench_pico.displays(BUILD)
    broker = hallbroker.Broker(tmp_path / "broker", HALL, [TABLE]).start()
    app = uartlink.hall_app(str(tmp_path / "device"), BUILD, broker.port)
    # the bench's heap samples; PICO_STEPS=1: the client's long polls too
    uartlink.board_boot(app, "heapwatch", *(["stepwatch"] if os.environ.get("PICO_STEPS")
                                            else []))
    folder = str(tmp_path / ("%s-night" % BUILD))
    os.makedirs(folder)
    with open(os.path.join(folder, "keys.json"), "w") as f:
        json.dump(p.keys, f)
    events = Events(broker, os.path.join(folder, "%s-night.jsonl" % BUILD))
    events.start()
    try:
        with uartlink.Link(("127.0.0.1", broker.port)) as link:
            r = picoboard.run(p.steps, app, folder, picoboard.PICO_W, i2c, tm,
                              timeout=MINUTES * 60 * 8 + 1800,
                              args=["--uart0-tcp", str(link.port)])
            opened = link.opened
    finally:
        events.stop = True
        broker.stop()
    serial = r.serial
    stop = serial.rfind("Traceback (most recent call last)")
    play = serial if stop < 0 else serial[:stop]
    assert r.summary["passed"], r.summary.get("error")
    assert "Traceback" not in play and "Error" not in play, play[-2000:]
    outages = (MINUTES + 1) // 3
    assert len([d for d in events.done if d.startswith("broker:stop")]) == outages
    assert opened >= 1 + outages                    # connected again after each outage

    # no press lost
    kinds = [bench_pico.record_kind(a) for a in r.actions()]
    assert kinds == [k["record"] for k in p.keys if k["record"]]

    # the keys' answers, as real-board estimates, within their bounds in every phase
    res = bench_pico.analyse({"build": BUILD, "scenario": "night", "dir": folder},
                             picoboard.EMU, pins)
    answered = [k for k in res["keys"] if k["kind"] == "latency"]
    whats = {k["label"]: k["what"] for k in p.keys}
    by = {}
    for k in answered:
        assert k["estimate_ms"] is not None, k
        by.setdefault(whats[k["label"]], []).append(k["estimate_ms"])
    bound = bench_pico.BOUND_MS[bench_pico.key_bound(BUILD, None)]
    worst = {w: max(v) for w, v in by.items()}

    # the heap: sampled every minute, flat
    samples = heap_samples(play)
    repl = serial.rsplit("HEAP ", 1)[1]             # (pad()'s, at the REPL)
    free_end = int(repl.split()[0])
    plain = without_hall_mode(tmp_path, pins)
    picoboard.figure("picow-night", BUILD, {
        "minutes": MINUTES, "strokes": len(kinds), "connections": opened,
        "keys_worst_estimate_ms": worst, "keys": len(answered),
        "wiring_check_without_hall_ms": plain,
        "heap_samples": samples, "heap_free_end": free_end,
        "largest_free_end": bench_pico.largest_free(repl)})
    late = {w: [x for x in v if x > bound] for w, v in by.items() if w != WIRING}
    assert not any(late.values()), (late, worst)
    assert worst[WIRING] <= plain * (1 + SAME), (worst[WIRING], plain)
    assert "LOCK True 0" in serial, serial[-600:]
    assert len(samples) >= MINUTES - 1, samples
    first, last = samples[0], samples[-1]
    assert abs(last[1] - first[1]) <= first[1] * FLAT, samples
    assert abs(last[2] - first[2]) <= first[2] * FLAT, samples
