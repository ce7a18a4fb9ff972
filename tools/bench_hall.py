"""What hall mode costs a stroke, on the host MicroPython with the real MQTT client
(docs/PERFORMANCE.md, "Hall mode"): a benchmark, not a test.

    python3 tools/bench_hall.py [--strokes N] [--cpu-strokes N]

Starts the Mosquitto of docs/HALL.md (host_tests/hallbroker.py), then runs the
measuring side (this file under micropython, `measure ROOT MODE N`) three times: hall
mode off (a journal, no publisher), on (connected, publishing, subscribed to its
offer topic), and on while the desk sends an offer every 50 ms (hostile ones too).
For each stroke (a MISS key) it times, in real microseconds, the loop pass that
takes the key (its answer: the rules core, the panel, the journal's record held) and
the passes from the key to the displays showing it, and the longest `poll()` step
(a key that comes during one waits for it). Prints one line per mode and a JSON
summary; host figures, not the Pico W's.

Then the processor time a stroke costs (`cpu ROOT MODE N`, `--cpu-strokes`, 0: not
measured): N strokes played in real time, each a MISS and CPU_GAP_MS of play after
it, with hall mode off, on, and with a broker that cannot be reached: its port
refused, a listener that takes the connection and never answers, one whose queue is
full so that every SYN is dropped (no answer at all). User and system time of the
measuring process (Linux's /proc/self/stat), and the client steps and failed
attempts of each run.
"""
import json
import os
import sys
import time

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) if hasattr(os, "path") \
    else None                       # (the measuring side needs no paths)


def measure(root, mode, n):
    """The measuring side (under micropython)."""
    import simboard
    from fakepins import apply_due
    from net.hall import attach
    t = simboard.Sim(2, "tm1637", root=root)
    t.run_to(t.now + 3000)                      # past the start-up pages
    t.run_to(t.key("MISS") + 50)                # a game in progress: offers wait
    hall = None
    if mode != "off":
        hall = attach(t.app, root)
        end = time.ticks_add(time.ticks_ms(), 5000)
        while not hall.caught_up() and time.ticks_diff(end, time.ticks_ms()) > 0:
            t.run_to(t.now + 1)
            time.sleep_ms(1)
        if not hall.caught_up():
            print("not connected")
            sys.exit(1)
        worst = [0]
        poll = hall.poll

        def timed(now):
            a = time.ticks_us()
            poll(now)
            d = time.ticks_diff(time.ticks_us(), a)
            if d > worst[0]:
                worst[0] = d
        hall.poll = timed
        t.app.net.poll = timed
    app = t.app
    answer = []
    shown = []
    for _ in range(n):
        done = t.key("MISS")
        before = app.panel.accepted
        took = 0
        total = 0
        while t.now < done or app.screens.busy or app.journal.pending:
            t.now += 1
            t.timeline = apply_due(t.timeline, t.now)
            a = time.ticks_us()
            app.step(t.now)
            d = time.ticks_diff(time.ticks_us(), a)
            if took == 0 and app.panel.accepted != before:
                took = d
                total = 0
            if took:
                total += d
        answer.append(took)
        shown.append(total)
        if hall is not None:
            time.sleep_ms(2)                    # the network's turn, in real time
            for _ in range(5):
                t.run_to(t.now + 1)
    answer.sort()
    shown.sort()
    out = {"mode": mode, "strokes": n, "answer_us_median": answer[n // 2],
           "answer_us_max": answer[-1], "shown_us_median": shown[n // 2],
           "shown_us_max": shown[-1]}
    if hall is not None:
        out["poll_us_max"] = worst[0]
        out["offers"] = hall.desk.offers
    print("BENCH " + json.dumps(out))


CPU_GAP_MS = 800        # the CPU part: a stroke, then this much play (simulated ms)
CPU_MODES = ("off", "on", "refused", "silent", "dropped")


def cpu_seconds():
    """User and system time of this process so far (clock ticks of 1/100 s)."""
    f = open("/proc/self/stat")
    words = f.read().rsplit(")", 1)[1].split()
    f.close()
    return (int(words[11]) + int(words[12])) / 100


def measure_cpu(root, mode, n):
    """The CPU part's measuring side (under micropython)."""
    import simboard
    t = simboard.Sim(2, "tm1637", root=root)
    hall = t.join_hall() if mode != "off" else None
    steps = [0]
    if hall is not None:
        step = hall._step

        def counted():
            steps[0] += 1
            step()
        hall._step = counted
    # the start-up pages; online: connected and caught up; offline: the first attempts
    t.run_real(3000, hall.caught_up if mode == "on" else None)
    if mode == "on" and not hall.caught_up():
        print("not connected")
        sys.exit(1)
    s0, e0 = steps[0], hall.errors if hall else 0
    c0 = cpu_seconds()
    t.play_real([("key", "MISS", False), ("wait", CPU_GAP_MS, False)] * n)
    cpu = cpu_seconds() - c0
    out = {"mode": mode, "strokes": n, "cpu_ms_per_stroke": round(cpu * 1000 / n, 1),
           "steps_per_stroke": round((steps[0] - s0) / n, 1)}
    if hall is not None:
        out["failed_attempts"] = hall.errors - e0
        out["connects"] = hall.connects
    print("BENCH " + json.dumps(out))


def _figures(res):
    """The figures of a measuring run's BENCH line, or None (its output written out)."""
    line = [x for x in res.stdout.splitlines() if x.startswith("BENCH ")]
    if not line:
        sys.stderr.write(res.stdout + res.stderr)
        return None
    return json.loads(line[0][6:])


def main(argv):
    """The command line: the benchmark (CPython), or a measuring side (micropython)."""
    got = options.parse(argv, "bench_hall", lambda: options.usage_of(__file__),
                        values=("--strokes", "--cpu-strokes"))
    if type(got) is int:
        return got
    opts, args = got
    for k in opts:
        if not opts[k].isdigit():
            return options.fail("bench_hall", "%s takes a number, not %r" % (k, opts[k]))
    if args and args[0] in ("measure", "cpu") and len(args) == 4 and args[3].isdigit():
        (measure if args[0] == "measure" else measure_cpu)(args[1], args[2], int(args[3]))
        return 0
    if args:
        return options.fail("bench_hall", "unknown argument %r" % args[0])
    return bench(int(opts.get("--strokes", 200)), int(opts.get("--cpu-strokes", 30)))


def bench(n, cpu_n):
    """The benchmark: `n` strokes timed in each mode, `cpu_n` strokes' processor time."""
    import subprocess
    import tempfile
    import threading
    sys.path[:0] = [os.path.join(ROOT, "host_tests"), os.path.join(ROOT, "tools")]
    import hallbroker
    from mpy import FAKES, FIRMWARE, MICROPYTHON, MODELS
    tmp = tempfile.mkdtemp(prefix="bench-hall-")
    broker = hallbroker.Broker(os.path.join(tmp, "broker"), "club", ["b1"]).start()
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([os.path.join(ROOT, "tools"), FAKES, MODELS, FIRMWARE,
                                   ".frozen"])
    results = []
    held = []
    try:
        for mode in ("off", "on", "offers") if n else ():
            root = os.path.join(tmp, mode) + "/"
            os.makedirs(root)
            with open(root + "hall.json", "w") as f:
                json.dump({"broker": "127.0.0.1", "port": broker.port, "hall": "club",
                           "table": "b1", "user": "b1", "password": hallbroker.PASSWORD}, f)
            if mode == "off":
                os.remove(root + "hall.json")
            stop = threading.Event()
            flood = None
            if mode == "offers":
                def send():
                    c = hallbroker.client(broker, "desk")
                    k = 0
                    while not stop.is_set():
                        k += 1
                        body = (b'{"id": "b%d", "players": 2, "names": ["Anna", "Ben"]}' % k
                                if k % 2 else b"\xff" * 1500)
                        c.publish("cowboy-desk/club/b1/offer", body, qos=1, retain=True)
                        time.sleep(0.05)
                    c.disconnect()
                    c.loop_stop()
                flood = threading.Thread(target=send, daemon=True)
                flood.start()
            res = subprocess.run([MICROPYTHON, os.path.abspath(__file__), "measure", root,
                                  mode, str(n)], capture_output=True, text=True, env=env,
                                 timeout=600)
            stop.set()
            if flood is not None:
                flood.join(5)
            r = _figures(res)
            if r is None:
                return 1
            results.append(r)
            print("%-7s answer %5d us median, %5d max; shown %6d us median, %6d max%s" % (
                mode, r["answer_us_median"], r["answer_us_max"], r["shown_us_median"],
                r["shown_us_max"], "; poll step %d us max, %d offers" % (
                    r["poll_us_max"], r["offers"]) if "poll_us_max" in r else ""))
        for mode in CPU_MODES if cpu_n else ():
            root = os.path.join(tmp, "cpu-" + mode) + "/"
            os.makedirs(root)
            port = broker.port if mode == "on" else hallbroker.closed_port(mode, held)
            if mode != "off":
                with open(root + "hall.json", "w") as f:
                    json.dump({"broker": "127.0.0.1", "port": port, "hall": "club",
                               "table": "b1", "user": "b1",
                               "password": hallbroker.PASSWORD}, f)
            res = subprocess.run([MICROPYTHON, os.path.abspath(__file__), "cpu", root, mode,
                                  str(cpu_n)], capture_output=True, text=True, env=env,
                                 timeout=1800)
            r = _figures(res)
            if r is None:
                return 1
            results.append(r)
            print("cpu %-8s %6.1f ms a stroke, %5.1f client steps a stroke%s" % (
                mode, r["cpu_ms_per_stroke"], r["steps_per_stroke"],
                ", %d failed attempts" % r["failed_attempts"] if mode not in ("off", "on")
                else ""))
    finally:
        broker.stop()
        for s in held:
            s.close()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
