"""What a broker out of reach costs the Pico W in hall mode, in emulated time: a
benchmark, not a test (docs/PERFORMANCE.md, "Hall mode on the Pico W: the broker out
of reach").

    python3 tools/bench_pico_offline.py [--build NAME] [--strokes N] [--modes on,refused,...]

The project's image on the emulated Pico W (build/pico-emulator, build/micropython,
build/device: `make bench-pico-offline` makes them) without hall.json (`off`), or with
one, its network the UART link of the hall test on the Pico W (host_tests/uartlink.py,
pico/uartnet.py) carried on to: a Mosquitto (`on`), a port nothing listens on
(`refused`: the link answers at once that it failed, as a refused connection or a
missing route does), a listener that takes the connection and never answers
(`silent`: no CONNACK), one whose queue is full (`dropped`: the SYN unanswered, the
board's 3 s connect timeout runs out). After boot, the start-up pages and SETTLE_MS
(online: connected and caught up; offline: the first attempts, the rests at their
longest), N MISS strokes one every STROKE_MS; the emulator's count of active CPU
cycles (not asleep in WFE) at both ends. Prints per mode the CPU time a stroke costs
(cycles at 125 MHz) and the share of emulated time the CPU was busy; JSON in
build/pico-offline.json. A mode is one emulator run of some 20 emulated seconds: two
to seven minutes of wall time on a shared machine.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(ROOT, "host_tests"), HERE]

MODES = ("off", "on", "refused", "silent", "dropped")
STROKES = 8
STROKE_MS = 1000        # a MISS (held bench_pico.PRESS_MS), then the rest of this
SETTLE_MS = 6000        # after the start-up pages, before the measured strokes
OUT = os.path.join(ROOT, "build", "pico-offline.json")


def plan(pins, strokes):
    import bench_pico
    p = bench_pico.Plan("offline", pins)
    p.step(serial="cowboy: up", timeout_ms=20000)
    p.step(wait_ms=2500 + SETTLE_MS)
    p.step(cycles="start")
    for _ in range(strokes):
        p.press("MISS", "key", "miss", "a stroke")
        p.step(wait_ms=STROKE_MS - bench_pico.PRESS_MS)
    p.step(cycles="end")
    return p


def target(mode, broker, held):
    """(host, port) the link carries the board's connections on to, for `mode`."""
    import hallbroker
    if mode in ("on", "off"):
        return ("127.0.0.1", broker.port)
    return ("127.0.0.1", hallbroker.closed_port(mode, held))


def device(folder, build, broker_port, hall=True):
    """build/device/ for a Pico W of `build` with hall.json, and the link's boot file."""
    import picoboard
    import uartlink
    dest = os.path.join(folder, "device")
    if not hall:
        return picoboard.device_copy(dest, build, picoboard.PICO_W)
    return uartlink.hall_app(dest, build, broker_port)


def measure(build, mode, strokes, tmp, broker):
    import bench_pico
    import picoboard
    import uartlink
    held = []
    folder = os.path.join(tmp, mode)
    os.makedirs(folder)
    app = device(folder, build, broker.port, mode != "off")
    _, tm, i2c = bench_pico.displays(build)
    p = plan(bench_pico.panel_pins(), strokes)
    try:
        with uartlink.Link(target(mode, broker, held)) as link:     # (off: unused)
            r = picoboard.run(p.steps, app, os.path.join(folder, "run"), picoboard.PICO_W,
                              i2c, tm, timeout=1800, args=["--uart0-tcp", str(link.port)])
            opened = link.opened
    finally:
        for s in held:
            s.close()
    if not r.summary["passed"]:
        raise RuntimeError("%s: %s" % (mode, r.summary.get("error")))
    at = {e["name"]: e for e in r.events if e.get("ev") == "cycles"}
    cycles = at["end"]["active"] - at["start"]["active"]
    span_us = at["end"]["t"] - at["start"]["t"]
    serial = r.summary.get("serial", "")
    return {"mode": mode, "build": build, "strokes": strokes,
            "cpu_ms_per_stroke": round(cycles / 125000 / strokes, 2),
            "busy_share": round(cycles / 125.0 / span_us, 4),
            "emulated_ms_per_stroke": round(span_us / 1000 / strokes, 1),
            "connections": opened, "tracebacks": serial.count("Traceback"),
            "wall_s": r.summary.get("wall_s")}


def main(argv):
    import options
    p = options.argparser("bench_pico_offline.py", __doc__)
    p.add_argument("--build", default="tm1637")
    p.add_argument("--strokes", type=int, default=STROKES)
    p.add_argument("--modes", default=",".join(MODES))
    args = p.read(argv)
    if type(args) is int:
        return args
    build, strokes, modes = args.build, args.strokes, tuple(args.modes.split(","))
    if strokes < 0 or not set(modes) <= set(MODES):
        return options.fail("bench_pico_offline.py", "--strokes takes a count, --modes some "
                            "of %s" % ",".join(MODES))
    import tempfile
    import hallbroker
    import picoboard
    import uartlink
    why = picoboard.ready()
    if why is not None:
        print("bench_pico_offline.py: " + why, file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix="bench-pico-offline-")
    broker = hallbroker.Broker(os.path.join(tmp, "broker"), uartlink.HALL,
                               [uartlink.TABLE]).start()
    results = []
    try:
        for mode in modes:
            res = measure(build, mode, strokes, tmp, broker)
            results.append(res)
            print("%-8s %s: %6.2f ms of CPU a stroke, busy %5.1f %% of %d emulated ms a "
                  "stroke; %d connections (%.0f s of wall time)" % (
                      mode, build, res["cpu_ms_per_stroke"], res["busy_share"] * 100,
                      res["emulated_ms_per_stroke"], res["connections"], res["wall_s"]),
                  flush=True)
    finally:
        broker.stop()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(results, f, indent=1)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
