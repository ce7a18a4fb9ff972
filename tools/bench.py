"""Figures of the product: allocation, latency, memory, flash and bus traffic.

    python tools/bench.py [--quick] [--out build/bench.json] [--work build/bench]

Measures under the real `micropython` of the virtual environment (unix port,
`-X heapsize=192K` where the heap matters, as on a Pico) with the measuring code
in tools/bench_mpy.py, and under CPython where a comparison helps; prints a table
and writes build/bench.json. Games are random records from host_tests/gamegen.py
(fixed seed). Bus bytes come from tools/busbytes.py, flash wear from the littlefs
journal run of host_tests/lfs_journal.py. docs/PERFORMANCE.md explains the figures.
`--quick` runs every measurement on less data (for the smoke test): the keys are
the same, the figures rougher. `--work` is the scratch directory (emptied first).
"""
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
HOST_TESTS = os.path.join(ROOT, "host_tests")
FAKES = os.path.join(HOST_TESTS, "fakes")
MODELS = os.path.join(TOOLS, "models")
FIRMWARE = os.path.join(ROOT, "firmware")
for p in (HOST_TESTS, FAKES, MODELS, FIRMWARE, TOOLS):
    if p not in sys.path:
        sys.path.insert(0, p)

import busbytes                                 # noqa: E402
import deploy                                   # noqa: E402
import gamegen                                  # noqa: E402
import options                                  # noqa: E402
import record                                   # noqa: E402
from mpy import MICROPYTHON, PICO_HEAP          # noqa: E402

SCRIPT = os.path.join(TOOLS, "bench_mpy.py")
PATH = (FAKES, MODELS, FIRMWARE, HOST_TESTS)
BUILDS = ("tm1637", "max7219", "ht16k33", "oled4", "oled8", "ssd1306")
KIND = {record.SHOT: 0, record.CHOICE: 1, "undo": 2, "redo": 3}


# Timed runs compile the measuring script and the firmware from source and keep the
# collector off while they count, so they get room; start-up runs the .mpy tree in a
# Pico-sized heap.
WORK_HEAP = "8M"


def run_mpy(args, heapsize=WORK_HEAP, path=PATH, python=None, timeout=600):
    """Run bench_mpy.py (or a script) under micropython (python=None) or CPython."""
    env = dict(os.environ)
    if python:
        cmd = [python, SCRIPT] + list(args)
        env["PYTHONPATH"] = os.pathsep.join(path)
    else:
        cmd = [MICROPYTHON] + (["-X", "heapsize=" + heapsize] if heapsize else [])
        cmd += [SCRIPT] + list(args)
        env["MICROPYPATH"] = ":".join(list(path) + [".frozen"])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    lines = proc.stdout.splitlines()
    if proc.returncode or not lines or not lines[-1].startswith("BENCH "):
        raise RuntimeError("%s failed (%d):\n%s\n%s" % (" ".join(args), proc.returncode,
                                                       proc.stdout[-3000:], proc.stderr[-3000:]))
    return json.loads(lines[-1][6:])


def write_games(path, count, seed=2026, max_actions=200):
    """Random accepted game records as `G players opener` / `A kind word` lines."""
    rng = random.Random(seed)
    shots = 0
    with open(path, "w") as f:
        for _ in range(count):
            players, opener, actions = gamegen.random_game(rng, max_actions=max_actions)
            f.write("G %d %d\n" % (players, opener - 1))
            for act in actions:
                kind, word = record.parse_action(record.dumps(act))
                shots += kind == record.SHOT
                f.write("A %d %d\n" % (KIND[kind], word))
    return shots


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mpy = subprocess.run([MICROPYTHON, "-c", "import sys; print(sys.version, sys.implementation)"],
                         capture_output=True, text=True).stdout.strip()
    return {"cpu": model or platform.processor(), "nproc": os.cpu_count(),
            "system": platform.platform(), "cpython": platform.python_version(),
            "micropython": mpy, "mpy_cross": deploy.mpy_cross_version(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def mpy_tree(work):
    """The device tree as tools/deploy.py builds it, and the fakes compiled alike."""
    out = os.path.join(work, "device")
    made = deploy.build(out)
    total = 0
    mpy = 0
    for rel in made:
        n = os.path.getsize(os.path.join(out, rel))
        total += n
        if rel.endswith(".mpy"):
            mpy += n
    fakes = os.path.join(work, "fakes")
    os.makedirs(fakes, exist_ok=True)
    for src in (os.path.join(MODELS, "fakepins.py"), os.path.join(MODELS, "fakebuses.py"),
                os.path.join(TOOLS, "bench_boot.py")):
        name = os.path.basename(src)[:-3]
        subprocess.run(deploy.mpy_cross() + ["-o", os.path.join(fakes, name + ".mpy"), src],
                       check=True)
    return out, fakes, {"files": len(made), "total": total, "mpy": mpy}


def boot_heap(build, root, fakes, device):
    """bench_boot under micropython in a Pico-sized heap, everything as .mpy."""
    env = dict(os.environ, MICROPYPATH=":".join([fakes, os.path.join(device, deploy.LIB),
                                                 device, ".frozen"]))
    code = "import bench_boot; bench_boot.main(%r, %r)" % (build, root)
    proc = subprocess.run([MICROPYTHON, "-X", "heapsize=" + PICO_HEAP, "-c", code],
                          capture_output=True, text=True, env=env, timeout=120)
    lines = proc.stdout.splitlines()
    if proc.returncode == 0 and lines and lines[-1].startswith("BENCH "):
        return json.loads(lines[-1][6:])
    # Not fitting is a figure too: keep the interpreter's last words.
    return {"build": build, "heap_after_boot": None,
            "error": (lines[-1] if lines else proc.stderr.strip()[-300:])}


def wear(actions):
    """Flash bytes programmed and erases per action of the journal on littlefs."""
    script = os.path.join(HOST_TESTS, "lfs_journal.py")
    env = dict(os.environ, MICROPYPATH=":".join(list(PATH) + [".frozen"]))
    proc = subprocess.run([MICROPYTHON, "-X", "heapsize=8M", script, "wear", str(actions)],
                          capture_output=True, text=True, env=env, timeout=600)
    lines = proc.stdout.splitlines()
    if proc.returncode or not lines or lines[-1] != "OK wear":
        raise RuntimeError("lfs_journal wear failed:\n" + proc.stdout + proc.stderr)
    # First section: the journal as the firmware keeps it (file open, flushed per record).
    out = {"ranges": [], "actions": actions}
    for ln in lines[1:]:
        ln = ln.strip()
        if ln.startswith("actions "):
            span, rest = ln[8:].split(":", 1)
            parts = rest.replace(",", "").split()
            out["ranges"].append({"actions": span, "erases": float(parts[0]),
                                  "bytes": int(parts[2])})
        elif ln.startswith("all "):
            parts = ln.replace(",", "").replace(";", "").split()
            out["erases"] = float(parts[3])
            out["bytes"] = int(parts[5])
            out["most_erased_block"] = int(parts[-1])
            break
    return out


def bus_figures():
    out = {}
    for name, cfg in busbytes.TYPES:
        r = busbytes.measure(cfg)
        row = {}
        for key, label in (("stroke", "score_change"), ("inning", "end_of_inning"),
                           ("full", "full_redraw")):
            nb, tr = r[key]
            ms, clock = busbytes.bus_ms(cfg, nb, tr)
            row[label] = {"bytes": nb, "transactions": tr, "bus_ms": round(ms, 3)}
            row["clock"] = clock
        out[name] = row
    naive = 6 * 3 + 1 + 1 + 1024
    ms, clock = busbytes.bus_ms({"buses": {"i2c0": busbytes.config.I2C0}}, naive, 7)
    out["SSD1306 full frame (reference)"] = {
        "full_redraw": {"bytes": naive, "transactions": 7, "bus_ms": round(ms, 3)},
        "score_change": {"bytes": naive, "transactions": 7, "bus_ms": round(ms, 3)},
        "clock": clock}
    return out


def measure(quick, work):
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    res = {"quick": quick, "machine": machine()}
    step = lambda what: print("  measuring %s ..." % what, file=sys.stderr, flush=True)

    step("compiled firmware")
    device, fakes, sizes = mpy_tree(work)
    res["mpy_total_bytes"] = sizes["total"]
    res["mpy_detail"] = sizes

    games = os.path.join(work, "games.txt")
    ngames = 8 if quick else 200
    res["games"] = {"count": ngames, "shots": write_games(games, ngames), "seed": 2026}

    step("rules core")
    rounds = "1" if quick else "3"
    core = run_mpy(["stroke", games, rounds])
    res["stroke_us_micropython"] = core["time_us"]["median"]
    res["stroke_detail"] = {"micropython": core}
    res["stroke_detail"]["cpython"] = run_mpy(["stroke", games, rounds],
                                              python=sys.executable)
    res["stroke_us_cpython"] = res["stroke_detail"]["cpython"]["time_us"]["median"]

    step("undo with a 2000-action history")
    undo = run_mpy(["undo", "2000"])
    res["undo_full_history_ms_micropython"] = undo["last_us"]["median"] / 1000.0
    res["undo_detail"] = undo

    step("key events through the whole loop")
    limit = "120" if quick else "2500"
    ev = {}
    for b in BUILDS:
        ev[b] = run_mpy(["event", b, games, limit])
    res["event_detail"] = ev
    res["event_to_display_us_micropython"] = {b: ev[b]["time_us"]["median"] for b in BUILDS}
    res["event_to_display_us_cpython"] = {
        b: run_mpy(["event", b, games, limit or "600"], python=sys.executable)["time_us"]["median"]
        for b in (("oled4",) if quick else BUILDS)}
    res["alloc_per_event"] = max(ev[b]["alloc_per_event"] for b in BUILDS)
    res["alloc_per_stroke"] = max(max(ev[b]["alloc_per_stroke"] for b in BUILDS),
                                  core["alloc_per_stroke"])
    res["heap_lock_ok"] = all(ev[b]["heap_lock_ok"] for b in BUILDS) and core["heap_lock_ok"]

    step("heap after start-up (.mpy, 192K heap)")
    boot = {}
    for b in BUILDS:
        root = os.path.join(work, "flash-" + b)
        os.makedirs(root)
        boot[b] = boot_heap(b, root + "/", fakes, device)
    res["heap_after_boot_bytes"] = {b: boot[b].get("heap_after_boot") for b in BUILDS}
    res["boot_detail"] = boot

    step("reference drivers that allocate")
    res["naive_reference"] = run_mpy(["naive"])

    step("bus bytes")
    res["bus_bytes_per_update"] = bus_figures()

    step("journal on littlefs")
    w = wear(120 if quick else 1000)
    res["journal_bytes_per_stroke"] = w["bytes"]
    res["flash_erases_per_stroke"] = w["erases"]
    res["journal_detail"] = dict(w, record_bytes=4)
    return res


def table(res):
    out = []
    add = out.append
    m = res["machine"]
    add("Machine: %s, %s cores; CPython %s; %s" % (m["cpu"], m["nproc"], m["cpython"],
                                                  m["micropython"]))
    add("")
    add("%-44s %s" % ("figure", "value"))
    add("%-44s %s" % ("alloc_per_stroke (bytes, goal 0)", res["alloc_per_stroke"]))
    add("%-44s %s" % ("alloc_per_event (bytes, goal 0)", res["alloc_per_event"]))
    add("%-44s %s" % ("heap locked through every path", res["heap_lock_ok"]))
    add("%-44s %d (CPython %d)" % ("stroke_us_micropython (median)",
                                   res["stroke_us_micropython"], res["stroke_us_cpython"]))
    add("%-44s %.3f" % ("undo_full_history_ms_micropython (median)",
                        res["undo_full_history_ms_micropython"]))
    add("%-44s %.1f" % ("statistics recount, 2000 actions (ms)",
                        res["undo_detail"]["stats_recount_us"] / 1000.0))
    add("%-44s %d" % ("mpy_total_bytes", res["mpy_total_bytes"]))
    add("%-44s %d" % ("journal_bytes_per_stroke (flash programmed)",
                      res["journal_bytes_per_stroke"]))
    add("%-44s %.2f" % ("flash_erases_per_stroke", res["flash_erases_per_stroke"]))
    add("")
    add("%-9s %10s %10s %10s %12s %12s %10s %10s" % (
        "build", "event us", "p90 us", "max us", "full redraw", "heap boot", "alloc/ev",
        "game end"))
    for b in BUILDS:
        e = res["event_detail"][b]
        h = res["heap_after_boot_bytes"][b]
        add("%-9s %10d %10d %10d %10d us %12s %10s %7s us" % (
            b, e["time_us"]["median"], e["time_us"]["p90"], e["time_us"]["max"],
            e["full_redraw_us"]["median"], "no fit" if h is None else h,
            e["alloc_per_event"], e["game_end_us"].get("median", "-")))
    add("")
    add("%-32s %22s %22s" % ("bus bytes", "score change", "full redraw"))
    for name, r in res["bus_bytes_per_update"].items():
        add("%-32s %10d B %7.2f ms %10d B %7.2f ms" % (
            name, r["score_change"]["bytes"], r["score_change"]["bus_ms"],
            r["full_redraw"]["bytes"], r["full_redraw"]["bus_ms"]))
    add("")
    for name, r in res["naive_reference"].items():
        add("naive %-16s alloc %6.1f B/update, %d us/update, heap lock ok: %s" % (
            name, r["alloc_per_update"], r["time_us"]["median"], r["heap_lock_ok"]))
    return "\n".join(out)


def main(argv):
    p = options.argparser("bench.py", __doc__,
                          short="bench.py [--quick] [--out FILE] [--work DIR]")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench.json"))
    p.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    args = p.read(argv)
    if type(args) is int:
        return args
    out = args.out
    t0 = time.time()
    res = measure(args.quick, args.work)
    res["seconds"] = round(time.time() - t0, 1)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(table(res))
    print("\n%s written in %.0f s" % (os.path.relpath(out), res["seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
