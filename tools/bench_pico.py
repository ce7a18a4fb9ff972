"""The product's figures measured on an emulated Pico: `make bench-pico`.

    python3 tools/bench_pico.py [--build NAME]... [--scenario S]... [--target T]...
                                [--quick] [--jobs N] [--analyse] [--out DIR]
                                [--emulator DIR]

Boots build/device/ (tools/deploy.py build) on emulated boards (TARGETS: a Pico or a
Pico W, and the MicroPython it runs) in the pico-emulator (a copy in
build/pico-emulator, made from ../shared/pico-emulator when missing), once per target,
display build and scenario, presses the panel keys as GPIO edges (pins from
hardware/pinout.json), decodes every display from its bus and writes
build/bench-pico.json, then prints a table per target and, per bound, the emulated
figure and its real-board estimate.
docs/PERFORMANCE.md ("On the emulated Pico", "Real-board estimates") defines every
figure.

  --build NAME   only this build (repeatable); default: tm1637 max7219 ht16k33 oled4 oled8
  --quick        only the short game (scenario "short"): latencies, boot with an empty
                 journal, heap, TM1637 clock, presses inside an OLED refresh
  --scenario S   only this scenario (short, long, resume); repeatable
  --target T     only this emulated board and MicroPython (repeatable; default the
                 project's image on a Pico and on a Pico W: pico-<release> and
                 picow-<release>; pico-<release>-plain the same release without ROMFS, and
                 pico-<smoke release> the official images of tools/releases.py SMOKE)
  --jobs N       emulator runs at once (default 2)
  --analyse      do not run the emulator: analyse the logs of the last run again
  --out DIR      runs and bench-pico.json in DIR instead of build/ (e.g. a "before" copy)
  --emulator DIR the emulator copy to use (default build/pico-emulator)
  --no-checkpoint  the long journal without the checkpoint (journal.ckpt) the firmware
                 writes after a pause in play: the first boot after a full replay
  --names        the long journal's players named (journal.names beside it, names of
                 16 characters, accents included): the keys with names drawn

Bad arguments: a message and exit status 2.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "host_tests"), os.path.join(HERE, "models")]

BUILD = os.path.join(ROOT, "build")
OUT = os.path.join(BUILD, "bench-pico")
RESULT = os.path.join(BUILD, "bench-pico.json")
# the instrument beside the checkout (../shared/pico-emulator), or PICO_EMULATOR
SHARED_EMULATOR = os.environ.get("PICO_EMULATOR") or os.path.join(
    os.path.dirname(ROOT), "shared", "pico-emulator")
SCENARIOS = ("short", "long", "resume")

PRESS_MS = 60            # every scripted press is held this long (>= 50 ms)
CYCLE_MS = 400           # measured keys: one acting edge per cycle, at PHASE_MS into it;
PHASE_MS = 50            # pages turn on multiples of 1200 ms (ticks_ms), a cycle boundary
GAP_US = 100_000         # an update ends at the first 100 ms without a visible change
PAGE_MS = 1200           # views/ui.py PAGE_MS: items take turns on this clock
LONG_KEYS = ("1", "3", "5", "MISS", "FOUL", "SCRATCH", "ENC")   # act on release
JOURNAL_LONG = 2000      # actions in the journal of the "long" scenario
END_WAIT_MS = 3000       # after the stroke that ends the game (1.4 s recount in 2026-11)


class BenchError(Exception):
    """A run that cannot be measured; str() says why."""


# ---- the emulated boards: a board and the MicroPython it runs -----------------------------

class Target:
    """An emulated `board` (RPI_PICO, RPI_PICO_W) running MicroPython `release`: the
    project's image, with the scoreboard's modules in its ROMFS partition
    (tools/mpimage.py), or, with `uf2`, a file of the instrument's cache (an official
    release, or one built from its tag without ROMFS)."""

    def __init__(self, name, board, release, uf2=None):
        self.name = name
        self.board = board
        self.release = release
        self.uf2 = uf2
        self.rom = uf2 is None
        self.emulated = "pico_w" if board == "RPI_PICO_W" else "pico"

    def firmware(self, emu, device):
        """The UF2 to boot for the device tree `device`: the cache's file, or the
        project's image with the tree's ROMFS image (written beside the tree)."""
        if not self.rom:
            import glob
            found = sorted(glob.glob(os.path.join(emu, self.uf2)))
            if not found:
                raise BenchError("no %s in the emulator (%s)" % (self.uf2, emu))
            return found[0]
        import mpimage
        import deploy
        with open(deploy.rom_path(device), "rb") as f:
            image = f.read()
        return mpimage.with_romfs(self.board, image, device.rstrip("/") + ".uf2")


def _targets():
    import releases
    b = releases.BUILT
    return ([Target("pico-" + b, "RPI_PICO", b), Target("picow-" + b, "RPI_PICO_W", b),
             Target("pico-%s-plain" % b, "RPI_PICO", b, "cache/RPI_PICO-v%s-built.uf2" % b)]
            + [Target("pico-" + r, "RPI_PICO", r, "cache/RPI_PICO-*-v%s.uf2" % r)
               for r in releases.SMOKE])


TARGETS = {t.name: t for t in _targets()}
# what the bench measures unless told: the project's image on both boards
BENCHED = tuple(n for n in TARGETS if TARGETS[n].rom)


# ---- the build selection (the one place that knows how a build is chosen) ----------------

def select_build(dest, build):
    """Select `build` in the device folder `dest` as `make deploy BUILD=` does: the
    name in the board's build file (firmware/board/config.py CHOICE_FILE)."""
    config = firmware_config()
    if build not in config.BUILDS:
        raise BenchError("no build %r in firmware/board/config.py" % build)
    with open(os.path.join(dest, config.CHOICE_FILE), "w") as f:
        f.write(build + "\n")


# ---- hardware description -----------------------------------------------------------------

def firmware_config():
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from board import config
    return config


BUILDS = tuple(firmware_config().BUILDS)      # every build, in board/config.py's order


def panel_pins():
    """Panel key name -> GPIO, from hardware/pinout.json (the default build's pinout;
    the panel and the first encoder are the same on every build)."""
    with open(os.path.join(ROOT, "hardware", "pinout.json")) as f:
        pinout = json.load(f)
    b = pinout["builds"][pinout["default_build"]]["gpio"]
    pins = {}
    for name, g in b.items():
        if g.get("function") == "panel":
            pins[g["key"]] = int(name[2:])
    cfg = firmware_config()
    pins["ENC"] = cfg.ENCODER[3]
    for k, v in cfg.PANEL.items():
        if pins.get(k) != v:
            raise BenchError("hardware/pinout.json disagrees with board/config.py on key %s" % k)
    return pins


def decoder(build):
    """The pico-emulator's decoder of the build's displays' protocol: "tm1637", "max7219",
    "ht16k33" or "sh1106" (tools/models/fakedisplays.py DEVICES)."""
    from fakedisplays import DEVICES
    return DEVICES[firmware_config().BUILDS[build]["displays"][0][0]]["decoder"]


def displays(build):
    """[(chip, where)] for the build's displays, seat order, and the emulator wiring:
    (two-wire chips' ACK models, I2C addresses that ACK per bus)."""
    cfg = firmware_config()
    b = cfg.BUILDS[build]
    out, tm, i2c = [], [], {}
    for d in b["displays"]:
        kind = d[0]
        wiring = cfg.CHIPS[kind][2]
        if wiring == "pins":
            out.append((kind, {"clk": d[1], "dio": d[2]}))
            tm.append({"clk": d[1], "dio": d[2]})
        elif wiring == "chain":
            bus = b["buses"][d[1]]
            out.append((kind, {"bus": bus["id"], "cs": bus["cs"], "pos": d[2],
                               "chips": len(b["displays"])}))
        else:
            bus = b["buses"][d[1]]
            i2c.setdefault(str(bus["id"]), set()).add(d[2])
            w = {"bus": bus["id"], "addr": d[2]}
            if len(d) > 3:
                w["mux"] = bus["mux"]
                w["channel"] = d[3]
                i2c[str(bus["id"])].add(bus["mux"])
            out.append((kind, w))
    i2c = {k: ["0x%02X" % a for a in sorted(v)] for k, v in i2c.items()}
    return out, tm, i2c


# ---- journals -------------------------------------------------------------------------------

def long_record():
    """JSON Lines of a 2-player game of JOURNAL_LONG actions: player 1 has banked 100
    and is at the table (the final stage: OK OK wins)."""
    import recordkit
    miss = {"shot": {}}
    tail = recordkit.run_to(100) + [miss, miss]     # P1 banks 100; P2 misses
    body = JOURNAL_LONG - len(tail)                  # misses from the opening on
    if body % 2:                                     # P1 must be at the table for the tail
        raise BenchError("long journal: body of odd length")
    return recordkit.lines([miss] * body + tail, players=2)


def journal_bytes(lines):
    import journal as journaltool
    return journaltool.to_binary(lines)


CHECKPOINT = True       # --no-checkpoint: the long journal alone
NAMES = None            # --names: the long journal's players' names (journal.names)
BENCH_NAMES = ("Anna-Katharina Z", "J\u00f6rg \u00d8stergaard")   # 16 and 15 characters


def board_journal(stream, dest, checkpoint=True):
    """The files the firmware keeps for the game `stream` (header and records) in
    `dest`: journal.bin as its resume leaves it (all records there, so the tail the
    resume writes is empty and left out), and with
    `checkpoint` the journal.ckpt its loop writes at the next pause in play, made
    by the firmware's own code (app/journal.py) replaying the stream."""
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from app import journal
    from app import journalformat
    from cowboy.game import Game
    with tempfile.TemporaryDirectory() as tmp:
        root = tmp + "/"
        with open(root + journalformat.JOURNAL, "wb") as f:
            f.write(stream)
        j = journal.Journal(Game(), root)
        j.resume()
        if j.records * journalformat.RECORD_SIZE + journalformat.HEADER_SIZE != len(stream):
            raise BenchError("long journal: %d of its records replay" % j.records)
        if checkpoint and not j.checkpoint():
            raise BenchError("long journal: no checkpoint written")
        j.close()
        # (the firmware writes the tail at boot)
        for name in (journalformat.JOURNAL, journalformat.CKPT):
            if os.path.exists(root + name):
                os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
                shutil.copy(root + name, os.path.join(dest, name))


# ---- device trees ---------------------------------------------------------------------------

def device_tree(build, scenario, dest, target=None, hall=None):
    """build/device/ as `make deploy BUILD=build` leaves a board of `target` (default
    the project's image on a Pico), with the scenario's files (settings, journal);
    `hall`: the text of its hall.json."""
    import deploy
    target = target or TARGETS[BENCHED[0]]
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    shutil.copytree(os.path.join(BUILD, "device"), dest)
    select_build(dest, build)
    lib = os.path.join(dest, deploy.LIB)
    if hall is not None:
        with open(os.path.join(dest, "hall.json"), "w") as f:
            f.write(hall)
    # the modules once more, as the board reads them: its ROMFS image, or the pack
    import romfs
    with open(deploy.rom_path(dest), "wb") as f:
        f.write(romfs.image(lib))
    os.remove(os.path.join(dest, deploy.PACK))
    if not target.rom:
        mods = []
        for top, _, files in os.walk(lib):
            mods += [os.path.relpath(os.path.join(top, n), lib).replace(os.sep, "/")
                     for n in files]
        deploy.write_pack(dest, sorted(mods))
    with open(os.path.join(dest, "settings.json"), "w") as f:
        f.write('{"players": 2, "opener": 0, "brightness": 8}\n')
    if scenario in ("long", "resume"):
        board_journal(journal_bytes(long_record()), dest, CHECKPOINT)
        if NAMES:
            sys.path.insert(0, os.path.join(ROOT, "firmware"))
            from app import journalformat
            from cowboy import names as namerules
            with open(os.path.join(dest, journalformat.NAMES), "wb") as f:
                f.write(namerules.to_bytes(list(NAMES)))


# ---- plans (what the emulated hands do) ----------------------------------------------------

class Plan:
    """Steps for tools/bench_pico_plan.mjs, and what each measured key is."""

    def __init__(self, name, pins):
        self.name = name
        self.pins = pins
        self.steps = []
        self.keys = []       # {label, key, acting, record (kind it adds), kind, what}
        self.presses = 0

    def step(self, **s):
        self.steps.append(s)

    def press(self, key, kind="latency", record=None, what="", ms=PRESS_MS, window_ms=None):
        self.presses += 1
        label = "%d-%s" % (self.presses, key)
        self.step(press=self.pins[key], ms=ms, label=label)
        self.keys.append({"label": label, "key": key, "record": record, "kind": kind,
                          "what": what, "acting": "release" if key in LONG_KEYS else "press",
                          "window_ms": window_ms})
        return label

    def measured(self, key, record=None, what="", window_ms=None):
        """A key whose acting edge falls PHASE_MS into a CYCLE_MS period."""
        lead = PRESS_MS if key in LONG_KEYS else 0
        self.step(align={"period_ms": CYCLE_MS, "phase_ms": (PHASE_MS - lead) % CYCLE_MS})
        return self.press(key, "latency", record, what, window_ms=window_ms)

    def json(self, i2c, tm):
        return {"name": self.name, "i2c_devices": i2c, "tm1637": tm, "steps": self.steps}


def plan_short(build, pins):
    """Empty journal: boot, the wiring check, ordinary keys, presses in OLED refreshes."""
    p = Plan("%s-short" % build, pins)
    p.step(serial="cowboy: up", timeout_ms=10000)
    p.step(wait_ms=2300)                     # the start-up wiring check runs its course
    p.measured("3", None, "compose: the 3 ball (preview on the shooter's display)")
    p.measured("C2", None, "compose: carom off two balls")
    p.measured("OK", "shot", "scoring stroke 3+C2+OK (opening, 5 points)")
    p.measured("MISS", "miss", "MISS: player 1 banks, player 2 to the table (two displays)")
    p.measured("5", None, "compose: the 5 ball")
    p.measured("OK", "shot", "scoring stroke 5+OK")
    p.measured("FOUL", "foul", "FOUL: player 2's inning lost, player 1 to the table "
               "(two displays)")
    p.measured("UNDO", "undo", "UNDO of the FOUL")
    p.measured("REDO", "redo", "REDO of the FOUL")
    if build.startswith("oled"):
        for i in range(2):
            # past the last key's update, then the re-initialisation that opens a
            # periodic refresh (a command write of 19 bytes or more; its first half
            # page follows at once)
            p.step(wait_ms=400)
            p.step(after_i2c={"data0": 0, "min_len": 19}, delay_ms=1, timeout_ms=3000,
                   label="refresh-%d" % i)
            p.press("MISS", "probe", "miss", "MISS pressed 1 ms after the re-initialisation of a "
                    "periodic OLED refresh ended")
    p.step(wait_ms=500)
    return p


def plan_long(build, pins):
    """A 2,000-action journal (player 1 at 100): boot and resume, presses during the
    resume, strokes in a grown game, UNDO/REDO with a full history, the stroke that
    ends the game (statistics recount), a press inside an erase."""
    p = Plan("%s-long" % build, pins)
    # `cowboy: made`: the displays show the wiring check, the journal is read back next
    p.step(serial="cowboy: made", timeout_ms=15000)
    p.step(wait_ms=5)
    p.press("MISS", "probe", "miss", "MISS pressed 5 ms after `cowboy: made` (journal resume)")
    p.step(wait_ms=100)
    p.press("MISS", "probe", "miss", "MISS pressed 165 ms after `cowboy: made` (journal resume)")
    p.step(after_bus=bus_pins(build), delay_ms=2200, timeout_ms=15000, label="picture")
    p.measured("MISS", "miss", "MISS in a grown game (player 1 at 100 keeps 100)")
    p.measured("3", None, "compose in a grown game")
    p.measured("OK", "shot", "scoring stroke 3+OK in a grown game")
    p.measured("FOUL", "foul", "FOUL in a grown game (two displays)")
    p.measured("UNDO", "undo", "UNDO with a full history")
    p.measured("REDO", "redo", "REDO with a full history")
    p.measured("OK", None, "OK at 100: the winning stroke filled in (preview)")
    p.measured("OK", "shot", "the stroke that ends the game (statistics recount)",
               window_ms=END_WAIT_MS)
    p.step(wait_ms=END_WAIT_MS)
    if build == "oled8":
        # each UNDO/REDO of the winning stroke redraws all 8 seats: press inside seat c
        for c in range(8):
            p.step(after_i2c={"addr": 0x71, "data0": 1 << c}, delay_ms=1,
                   timeout_ms=10000, label="seat-%d" % c)
            p.press("UNDO" if c % 2 == 0 else "REDO", "probe",
                    "undo" if c % 2 == 0 else "redo",
                    "pressed 1 ms after the multiplexer next selected seat %d" % (c + 1))
        p.step(wait_ms=3000)
    p.measured("UNDO", "undo", "UNDO of the winning stroke", window_ms=10000)
    p.measured("MISS", "miss", "MISS in a grown game (player 1 at 100 keeps 100)")
    p.step(wait_ms=40)
    p.press("FOUL", "probe", "foul", "FOUL pressed 40 ms after the MISS acted (its journal erase)")
    p.step(wait_ms=500)
    return p


def plan_resume(build, pins):
    """The 2,000-action journal of plan_long and no key: reset to the game shown."""
    p = Plan("%s-resume" % build, pins)
    p.step(serial="cowboy: up", timeout_ms=15000)
    p.step(wait_ms=1500)
    return p


PLANS = {"short": plan_short, "long": plan_long, "resume": plan_resume}


# ---- running the emulator --------------------------------------------------------------------

def ensure_emulator(emu):
    if not os.path.isdir(os.path.join(emu, "src")):
        src = SHARED_EMULATOR
        if not os.path.isdir(src):
            raise BenchError("no emulator at %s (nor %s)" % (emu, SHARED_EMULATOR))
        shutil.copytree(src, emu, symlinks=True)
    subprocess.run([os.path.join(emu, "setup.sh")], check=True, stdout=subprocess.DEVNULL)


def run_dir(out, target, build, scenario):
    return os.path.join(out, target, "%s-%s" % (build, scenario))


def run_one(emu, build, scenario, pins, out=OUT, target=BENCHED[0]):
    """Make the device tree and the plan, run the emulator on `target` (a TARGETS
    name); returns the run's files."""
    d = run_dir(out, target, build, scenario)
    os.makedirs(d, exist_ok=True)
    app = os.path.join(d, "device")
    t = TARGETS[target]
    device_tree(build, scenario, app, t)
    plan = PLANS[scenario](build, pins)
    _, tm, i2c = displays(build)
    with open(os.path.join(d, "plan.json"), "w") as f:
        json.dump(plan.json(i2c, tm), f, indent=1)
    with open(os.path.join(d, "keys.json"), "w") as f:
        json.dump(plan.keys, f, indent=1)
    env = dict(os.environ, BENCH_PLAN=os.path.join(d, "plan.json"))
    t0 = time.time()
    res = subprocess.run(["node", "src/cli.mjs", "run", os.path.join(HERE, "bench_pico_plan.mjs"),
                          "--app", app, "--out", d, "--save-fs", "--board", t.emulated,
                          "--uf2", t.firmware(emu, app)],
                         cwd=emu, env=env, capture_output=True, text=True)
    with open(os.path.join(d, "emulator.txt"), "w") as f:
        f.write(res.stdout + res.stderr)
    return {"build": build, "scenario": scenario, "dir": d, "rc": res.returncode,
            "target": target, "wall_s": round(time.time() - t0, 1)}


# ---- log analysis (pure functions: host_tests/test_bench_pico.py) ----------------------------

def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def key_edges(events, keys, pins):
    """For each planned key: its press and release edge times (us) from the log.

    A key's mark `key:LABEL` comes just before its press edge (an `input` event with
    level 0 on its pin); the release is that pin's next `input` event."""
    marks = {}
    for i, e in enumerate(events):
        if e.get("ev") == "mark" and e.get("name", "").startswith("key:"):
            marks[e["name"][4:]] = i
    out = []
    for k in keys:
        pin = pins[k["key"]]
        i = marks.get(k["label"])
        press = release = None
        if i is not None:
            for e in events[i:]:
                if e.get("ev") == "input" and e.get("pin") == pin:
                    if press is None and e.get("level") == 0:
                        press = e["t"]
                    elif press is not None:
                        release = e["t"]
                        break
        edge = release if k["acting"] == "release" else press
        out.append(dict(k, press_us=press, release_us=release, edge_us=edge))
    return out


def merge_changes(histories):
    """[(t, display index)] of every visible change, in time order; `histories` is one
    list of (t, state) per display (consecutive equal states are not changes)."""
    out = []
    for i, h in enumerate(histories):
        prev = object()
        for t, s in h:
            if s != prev:
                out.append((t, i))
                prev = s
    out.sort()
    return out


def busy_between(busy, t1, t2):
    """Microseconds of [t1, t2] covered by the (start, end) intervals `busy`."""
    return sum(max(0, min(b, t2) - max(a, t1)) for a, b in busy)


def update_after(changes, t_edge, t_limit=None, gap_us=GAP_US, busy=()):
    """The update that answers an edge: the first visible changes after `t_edge`, up
    to the first pause of `gap_us` without one (or `t_limit`). Time the flash is busy
    (`busy`: (start, end) of each erase or program, while the CPU is stopped) does not
    count in a pause. Returns (first_t, last_t, sorted displays) or None when nothing
    changed."""
    first = last = None
    shown = set()
    for t, i in changes:
        if t <= t_edge:
            continue
        if t_limit is not None and t >= t_limit:
            break
        if last is not None and t - last - busy_between(busy, last, t) >= gap_us:
            break
        if first is None:
            first = t
        last = t
        shown.add(i)
    if first is None:
        return None
    return first, last, sorted(shown)


def flash_busy(events):
    """(start, end) us of every flash erase and program in the log, at the flash
    model's typical times (FLASH_TIMES_NS of the emulator's src/flash.mjs)."""
    out = []
    for e in events:
        if e.get("ev") == "flash":
            if e.get("op") == "erase":
                d = {4096: 45_000, 32768: 120_000, 65536: 150_000}.get(e.get("len"), 45_000)
            else:
                d = 400
            out.append((e["t"], e["t"] + d))
    return out


def settled_by(changes, t0, t1):
    """Time of the last visible change in [t0, t1) (None if none): from then on until
    t1 every display shows what it shows at t1."""
    last = None
    for t, _ in changes:
        if t0 <= t < t1:
            last = t
    return last


def first_bus_after(bus_times, t_edge):
    """First display-bus activity (sorted times, us) after `t_edge`, or None."""
    import bisect
    i = bisect.bisect_right(bus_times, t_edge)
    return bus_times[i] if i < len(bus_times) else None


def tm1637_clock(events, clk):
    """(median CLK period us, median byte time us) from the CLK pin's rising edges:
    periods are rises less than 1 ms apart; a byte is 9 clocks (8 bits and the ACK)."""
    rises = [e["t"] for e in events
             if e.get("ev") == "gpio" and e.get("pin") == clk and e.get("level") == 1]
    periods = sorted(b - a for a, b in zip(rises, rises[1:]) if b - a < 1000)
    bytes_ = []
    run = [rises[0]] if rises else []
    for a, b in zip(rises, rises[1:]):
        if b - a < 1000:
            run.append(b)
            continue
        bytes_ += [run[k + 9] - run[k] for k in range(0, len(run) - 9, 9)]
        run = [b]
    bytes_ += [run[k + 9] - run[k] for k in range(0, len(run) - 9, 9)]
    if not periods:
        return None, None
    med = periods[len(periods) // 2]
    byte = sorted(bytes_)[len(bytes_) // 2] if bytes_ else med * 9
    return med, byte


def record_kind(line):
    """miss, foul, undo, redo or shot (any other stroke or choice) of a record line."""
    d = json.loads(line)
    if d.get("undo"):
        return "undo"
    if d.get("redo"):
        return "redo"
    shot = d.get("shot")
    if shot == {}:
        return "miss"
    if shot is not None and shot.get("foul"):
        return "foul"
    return "shot"


def match_records(expected, added, answered=None):
    """Which journaling presses acted: `expected` is the record kind each press should
    add, in order; `added` the kinds of the records the journal gained; `answered`
    (optional) whether a visible update followed each press. The presses and records
    are aligned in order, as many matched as possible, preferring presses that were
    answered on the displays (so the count of lost presses is exact, and of two equal
    presses in a row the one the displays answered is the one that acted).
    Returns (acted flags, records left unmatched)."""
    n, m = len(expected), len(added)
    if answered is None:
        answered = [False] * n
    # best[i][j]: best score aligning expected[i:] with added[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            v = max(best[i + 1][j], best[i][j + 1])
            if expected[i] == added[j]:
                v = max(v, best[i + 1][j + 1] + 2 + (1 if answered[i] else 0))
            best[i][j] = v
    acted = [False] * n
    used = [False] * m
    i = j = 0
    while i < n and j < m:
        if expected[i] == added[j] and \
                best[i][j] == best[i + 1][j + 1] + 2 + (1 if answered[i] else 0):
            acted[i] = used[j] = True
            i += 1
            j += 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return acted, [a for a, u in zip(added, used) if not u]


def serial_field(serial, prefix, name):
    """The number `name=<n>` on the firmware's first line starting with `prefix`,
    or None."""
    for line in serial.splitlines():
        if line.startswith(prefix):
            for w in line.split():
                if w.startswith(name + "="):
                    try:
                        return int(w[len(name) + 1:])
                    except ValueError:
                        return None
            return None
    return None


def made_report(serial):
    """The ms tick at which the wiring check was shown, from the firmware's line
    `cowboy: made <ms> shown=<ms>`, or None."""
    return serial_field(serial, "cowboy: made ", "shown")


def resumed_report(serial):
    """The ms tick at which the journal was read back, from the line `cowboy: up
    <ms> ... resumed=<ms>` (printed once the game is shown and the heap collected),
    or None (a firmware that printed `up` as soon as the journal was read back)."""
    return serial_field(serial, "cowboy: up ", "resumed")


def estimate_layers(events, build, busy):
    """The layers split() takes a figure apart into, for this build's wiring: flash
    busy, bus on the wire, native frame writers."""
    ds, _, _ = displays(build)
    native = {w[k] for _, w in ds for k in ("clk", "dio") if k in w}
    cs = {w["cs"] for _, w in ds if "cs" in w}
    bus, nat = wire_layers(events, native, cs)
    return (("flash", merged(busy)), ("bus", bus), ("native", nat))


def rounded(parts):
    return {k: round(v / 1000, 3) for k, v in parts.items()}


GC_BLOCK = 16            # bytes in one block of MicroPython's heap (32-bit ports)


def largest_free(text):
    """The largest free block, bytes, from the first `micropython.mem_info()` summary
    in `text` ("max free sz: N", in heap blocks), or None."""
    at = text.find("max free sz: ")
    if at < 0:
        return None
    digits = text[at + 13:].split()[0].rstrip(",")
    return int(digits) * GC_BLOCK if digits.isdigit() else None


def boot_reports(serial):
    """[(ms since reset, free, alloc, largest free block or None)] from each of the
    firmware's `cowboy: up` lines (one per boot) and the heap summary after it."""
    out = []
    lines = serial.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("cowboy: up "):
            w = line.split()
            try:
                out.append((int(w[2]), int(w[3].split("=")[1]), int(w[4].split("=")[1]),
                            largest_free("\n".join(lines[i + 1:i + 4]))))
            except (IndexError, ValueError):
                out.append(None)
    return out


def boot_report(serial):
    """The first boot's report of boot_reports(), or None."""
    r = boot_reports(serial)
    return r[0] if r else None


# ---- real-board estimates (pure functions: host_tests/test_bench_pico.py) -------------------
#
# rp2040js charges every instruction fetch as if it came from RAM: a real Pico runs
# MicroPython from flash through a 16 KiB cache, so its interpreted code is slower.
# The pico-emulator's README ("How far the emulated times are from a real Pico")
# gives the ratios real / emulated used here. A figure is taken apart into what
# the log can tell: flash-busy time, bus time on the wire, native frame writers,
# the debounce's timer wait; the rest is the CPU running MicroPython.

RATIO_BYTECODE = 1.12    # interpreted bytecode (a key's answer)
RATIO_VIPER = 1.05       # native code (viper) the log can place: the frame writers
RATIO_IMPORT = 1.5       # import-heavy work: reset to the first picture, the resume
DEBOUNCE_US = 3000       # input/buttons.py confirm_ms, waited on ticks_ms: timer time
RESUMED_WAIT_US = 400_000  # app/panel.py RESUMED_MS: a resumed game's wiring check
NATIVE_GAP_US = 20       # edges of one native frame writer's call are closer than this


def merged(intervals):
    """The union of (start, end) intervals as sorted, disjoint intervals."""
    out = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def clipped(intervals, t0, t1):
    """The parts of merged `intervals` inside [t0, t1]."""
    return [(max(a, t0), min(b, t1)) for a, b in intervals if b > t0 and a < t1]


def minus(a, b):
    """Merged intervals `a` without merged intervals `b`."""
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append((cur, bs))
            cur = max(cur, be)
            if cur >= e:
                break
        if cur < e:
            out.append((cur, e))
    return out


def length(intervals):
    return sum(b - a for a, b in intervals)


def i2c_period(events):
    """Per I2C bus, the SCL period (us) of its fastest transaction: a transaction of n
    data bytes takes 11 + 9 n periods on the wire (start, address and ACK, 9 per byte,
    stop); a longer one held SCL low while its FIFO ran empty (the CPU was late)."""
    best = {}
    for e in events:
        if e.get("ev") == "i2c" and e.get("t_end") is not None and e.get("ack"):
            p = (e["t_end"] - e["t"]) / (11 + 9 * len(e.get("data") or ()))
            if p > 0 and (e["bus"] not in best or p < best[e["bus"]]):
                best[e["bus"]] = p
    return best


def spi_byte(events):
    """Per SPI bus, the time of one byte (us): the shortest spacing of the bytes of a
    burst (the log's burst runs from the first byte's start to the last byte's)."""
    best = {}
    for e in events:
        n = len(e.get("data") or ())
        if e.get("ev") == "spi" and n > 1:
            b = (e["t_end"] - e["t"]) / (n - 1)
            if b > 0 and (e["bus"] not in best or b < best[e["bus"]]):
                best[e["bus"]] = b
    return best


def edge_groups(times, gap_us=NATIVE_GAP_US):
    """(first, last) of each run of sorted times whose neighbours are closer than gap_us."""
    out = []
    for t in times:
        if out and t - out[-1][1] < gap_us:
            out[-1] = (out[-1][0], t)
        else:
            out.append((t, t))
    return out


def wire_layers(events, native_pins=(), cs_pins=()):
    """(bus, native): merged intervals of bus time on the wire and of the native
    frame writers, from the log.

    bus: each I2C transaction's 11 + 9 n SCL periods from its START (the rest of it,
    SCL held low waiting for the CPU, is left to the CPU), each SPI burst from its
    first byte to the end of its last.
    native: the bit-banged frames (TM1637: edges on `native_pins`, on the chip sent
    by chips/tm1637_sio.py's viper loop) and the chip-select windows (`cs_pins`:
    MAX7219, CS low to CS high, each frame sent by chips/max7219_viper.py), each
    group of edges closer than NATIVE_GAP_US taken as one call; the bus inside a
    window is bus time."""
    period = i2c_period(events)
    byte = spi_byte(events)
    bus = []
    native_edges, cs = [], []
    for e in events:
        ev = e.get("ev")
        if ev == "i2c" and e.get("t_end") is not None:
            n = len(e.get("data") or ())
            p = period.get(e["bus"])
            wire = e["t_end"] - e["t"] if p is None else min(e["t_end"] - e["t"],
                                                              (11 + 9 * n) * p)
            bus.append((e["t"], e["t"] + wire))
        elif ev == "spi":
            bus.append((e["t"], e["t_end"] + byte.get(e["bus"], 0)))
        elif ev in ("gpio", "gpio-mode") and e.get("pin") in native_pins:
            native_edges.append(e["t"])
        elif ev == "gpio" and e.get("pin") in cs_pins:
            cs.append((e["t"], e.get("level")))
    gap_us = NATIVE_GAP_US
    native = [(a, b, False) for a, b in edge_groups(sorted(native_edges), gap_us)]
    low = None
    windows = []
    for t, level in sorted(cs, key=lambda x: x[0]):
        if level == 0:
            low = t
        elif low is not None:
            windows.append((low, t))
            low = None
    for a, b in windows:                   # frames of one call: CS high for a moment
        if native and native[-1][2] and a - native[-1][1] < gap_us:
            native[-1] = (native[-1][0], b, True)
        else:
            native.append((a, b, True))
    return merged(bus), merged((a, b) for a, b, _ in native)


def split(t0, t1, layers):
    """Microseconds of [t0, t1] taken by each named layer of intervals, in order of
    precedence ((name, merged intervals), ...: each takes what the ones before it
    left), and the rest as "cpu"."""
    left = [(t0, t1)] if t1 > t0 else []
    out = {}
    for name, iv in layers:
        mine = clipped(iv, t0, t1)
        taken = []
        for a, b in mine:
            taken += clipped(left, a, b)
        out[name] = length(taken)
        left = minus(left, merged(taken))
    out["cpu"] = length(left)
    return out


def scaled(parts, cpu_ratio):
    """A real-board estimate (us) of time taken apart by split(): the CPU's share at
    cpu_ratio, native code at RATIO_VIPER, the rest (bus, flash busy, debounce, a
    timer wait) as it is."""
    total = 0.0
    for name, us in parts.items():
        total += us * (cpu_ratio if name == "cpu" else RATIO_VIPER if name == "native"
                       else 1.0)
    return total


def key_estimate(edge, end, layers, debounce_us=DEBOUNCE_US):
    """(parts, estimate us) of a key's latency from its acting edge to `end`: the
    first `debounce_us` are the debounce's timer wait (the loop waits for its
    moment), then `layers`, the rest interpreted code at RATIO_BYTECODE."""
    d = max(0, min(debounce_us, end - edge))
    parts = split(edge + d, end, layers)
    parts["debounce"] = d
    return parts, scaled(parts, RATIO_BYTECODE)


def boot_estimate(end, layers):
    """(parts, estimate us) of reset to `end` (the first picture): CPU at RATIO_IMPORT."""
    parts = split(0, end, layers)
    return parts, scaled(parts, RATIO_IMPORT)


def game_estimate(shown, ready, end, layers, wait_us=RESUMED_WAIT_US):
    """(parts, estimate us) of reset to `end`, the resumed game shown: the firmware
    shows it once the journal is read back (`ready`) and the wiring check, shown at
    `shown`, has had `wait_us` (timer time), then draws it. On the board the first
    of these comes at max(estimate to ready, estimate to shown + wait_us); the
    drawing after the later one in the emulator takes its own estimate. CPU at
    RATIO_IMPORT throughout."""
    gate = max(ready, shown + wait_us)
    _, to_ready = boot_estimate(ready, layers)
    _, to_shown = boot_estimate(shown, layers)
    parts = split(gate, end, layers)
    parts["wait"] = max(0, shown + wait_us - ready)
    start = max(to_ready, to_shown + wait_us)
    parts["start_estimate"] = start
    return parts, start + scaled({k: v for k, v in parts.items()
                                  if k not in ("wait", "start_estimate")}, RATIO_IMPORT)


# ---- decoding the displays -------------------------------------------------------------------

def _emu_tools(emu):
    p = os.path.join(emu, "tools")
    if p not in sys.path:
        sys.path.insert(0, p)


def display_histories(log_path, events, build, emu):
    """One [(t, visible state)] list per display of the build, from the emulator's decoders."""
    _emu_tools(emu)
    ds, _, _ = displays(build)
    kind = decoder(build)
    if kind == "tm1637":
        import tm1637_decode
        clk = ds[0][1]["clk"]
        decs = tm1637_decode.decode(log_path, clk, [w["dio"] for _, w in ds])
        return [[(t, (tuple(s["segments"]), s["on"], s["brightness"]))
                 for t, s in decs[w["dio"]].history.changes()] for _, w in ds]
    if kind == "max7219":
        import max7219_decode
        w0 = ds[0][1]
        chain = max7219_decode.decode(log_path, w0["cs"], w0["bus"], w0["chips"])
        ch = chain.history.changes()
        return [[(t, (tuple(s[w["pos"]]["segments"]), s[w["pos"]]["on"],
                      s[w["pos"]]["intensity"])) for t, s in ch] for _, w in ds]
    if kind == "ht16k33":
        import ht16k33_decode
        decs = ht16k33_decode.decode(log_path, ds[0][1]["bus"], [w["addr"] for _, w in ds])
        return [[(t, json.dumps(s, sort_keys=True)) for t, s in decs[w["addr"]].history.changes()]
                if w["addr"] in decs else [] for _, w in ds]
    import sh1106_png
    devs = [sh1106_png.SH1106() for _ in ds]
    mux = {}                     # (bus, mux addr) -> channel mask
    for e in events:
        if e.get("ev") != "i2c" or e.get("op") != "w" or not e.get("ack"):
            continue
        for i, (_, w) in enumerate(ds):
            if e["bus"] != w["bus"]:
                continue
            if "mux" in w and e["addr"] == w["mux"] and e["data"]:
                mux[(w["bus"], w["mux"])] = e["data"][-1]
            if e["addr"] != w["addr"]:
                continue
            if "mux" in w and not (mux.get((w["bus"], w["mux"]), 0) >> w["channel"]) & 1:
                continue
            devs[i].transaction(e.get("t_end", e["t"]), e["data"])
    return [[(t, (s[0][2:130] + s[0][134:262] + s[0][266:394] + s[0][398:526] + s[0][530:658]
                  + s[0][662:790] + s[0][794:922] + s[0][926:1054],) + s[1:])
             for t, s in d.history.changes()] for d in devs]


def bus_pins(build):
    """The after_bus step's filter: any I2C/SPI transaction or an edge on these pins."""
    ds, _, _ = displays(build)
    return {"pins": sorted({w[k] for _, w in ds for k in ("clk", "dio", "cs") if k in w})}


def bus_activity(events, build):
    """Sorted times (us) of display-bus traffic: I2C/SPI transactions (their start) and
    TM1637 / MAX7219 CS pin edges."""
    ds, _, _ = displays(build)
    pins = set()
    for _, w in ds:
        for k in ("clk", "dio", "cs"):
            if k in w:
                pins.add(w[k])
    out = [e["t"] for e in events if e.get("ev") in ("i2c", "spi")
           or (e.get("ev") == "gpio" and e.get("pin") in pins)]
    out.sort()
    return out


def journal_records(fs_image, emu, workdir):
    """Actions of the game in a saved filesystem image: journal.bin and journal.tail
    joined as the board resumes them (fs_dump + tools/journal.py)."""
    ex = os.path.join(workdir, "fs-after")
    if os.path.isdir(ex):
        shutil.rmtree(ex)
    r = subprocess.run([os.path.join(emu, ".venv", "bin", "python"),
                        os.path.join(emu, "tools", "fs_dump.py"), fs_image, "--extract", ex],
                       capture_output=True, text=True)
    path = os.path.join(ex, "journal.bin")
    if r.returncode or not os.path.exists(path):
        return None
    import journal
    from app.journalformat import joined, TAIL
    with open(path, "rb") as f:
        body = f.read()
    tail = b""
    if os.path.exists(os.path.join(ex, TAIL)):
        with open(os.path.join(ex, TAIL), "rb") as f:
            tail = f.read()
    text = journal.to_json(joined(body, tail))     # the board's stream: body and tail
    with open(os.path.join(workdir, "journal-after.jsonl"), "w") as f:
        f.write(text)
    return [x for x in text.splitlines() if x.strip()][1:]


def analyse(run, emu, pins):
    """Figures of one run (build, scenario) from its log, summary and saved filesystem."""
    build, scenario, d = run["build"], run["scenario"], run["dir"]
    name = "%s-%s" % (build, scenario)
    log_path = os.path.join(d, name + ".jsonl")
    with open(os.path.join(d, name + ".summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(d, "keys.json")) as f:
        keys = json.load(f)
    events = read_log(log_path)
    hist = display_histories(log_path, events, build, emu)
    changes = merge_changes(hist)
    bus = bus_activity(events, build)
    edges = key_edges(events, keys, pins)
    out = {"scenario": scenario, "passed": summary["passed"], "error": summary.get("error"),
           "emulated_s": summary["emulated_s"], "wall_s": run.get("wall_s", summary["wall_s"]),
           "flash": summary.get("flash_writes")}
    up = boot_report(summary["serial"])
    if up:
        out["boot_report"] = {"up_ms": up[0], "heap_free_bytes": up[1], "heap_alloc_bytes": up[2],
                              "largest_free_bytes": up[3],
                              "resumed_ms": resumed_report(summary["serial"])}
    busy = flash_busy(events)
    layers = estimate_layers(events, build, busy)
    # the first picture: the first update after reset (displays are dark before it)
    pic = update_after(changes, 0, busy=busy)
    out["boot_to_picture_ms"] = None if pic is None else round(pic[1] / 1000, 1)
    if pic:
        parts, est = boot_estimate(pic[1], layers)
        out["boot_to_picture_estimate_ms"] = round(est / 1000, 1)
        out["boot_to_picture_parts_ms"] = rounded(parts)
        # the game: the next update, once the journal is read back and the wiring
        # check has had its time (the resume scenario presses no key)
        game = update_after(changes, pic[1], busy=busy)
        out["boot_to_game_ms"] = None if game is None else round(game[1] / 1000, 1)
        shown = made_report(summary["serial"])
        ready = resumed_report(summary["serial"])
        if ready is None and up:
            ready = up[0]
        if game and ready is not None and shown is not None:
            parts, est = game_estimate(shown * 1000, ready * 1000, game[1], layers)
            out["boot_to_game_estimate_ms"] = round(est / 1000, 1)
            out["boot_to_game_parts_ms"] = rounded(parts)
    # when each boot's clock started: a power cut's instant and the time off after it
    boots = [e["t"] + e.get("off_us", 0) for e in events if e.get("ev") == "reboot"]
    trig = {}                    # key label -> the trigger mark just before it
    last = None
    for e in events:
        if e.get("ev") == "mark":
            n = e["name"]
            if n.startswith("trig:") or n.startswith("trig-miss:"):
                last = n
            elif n.startswith("key:"):
                if last:
                    trig[n[4:]] = last
                last = None
    lat = []
    for i, k in enumerate(edges):
        nxt = next((x["press_us"] for x in edges[i + 1:] if x["press_us"] is not None), None)
        r = {"label": k["label"], "key": k["key"], "acting_edge": k["acting"],
             "what": k["what"], "kind": k["kind"]}
        if k["edge_us"] is None:
            r["error"] = "edge not found in the log"
            lat.append(r)
            continue
        if k["window_ms"]:
            limit = k["edge_us"] + k["window_ms"] * 1000
        else:   # up to the next page turn (a multiple of PAGE_MS of ticks_ms, which
            # starts at each boot)
            origin = max([b for b in boots if b <= k["edge_us"]] or [0])
            page = PAGE_MS * 1000
            limit = origin + ((k["edge_us"] - origin) // page + 1) * page
        if nxt is not None:
            limit = min(limit, nxt)
        u = update_after(changes, k["edge_us"], limit, busy=busy)
        fb = first_bus_after(bus, k["edge_us"])
        r["edge_ms"] = round(k["edge_us"] / 1000, 3)
        r["first_bus_ms"] = None if fb is None or fb >= limit else \
            round((fb - k["edge_us"]) / 1000, 2)
        if u:
            r["latency_ms"] = round((u[1] - k["edge_us"]) / 1000, 2)
            parts, est = key_estimate(k["edge_us"], u[1], layers)
            r["estimate_ms"] = round(est / 1000, 2)
            r["parts_ms"] = rounded(parts)
            r["first_change_ms"] = round((u[0] - k["edge_us"]) / 1000, 2)
            r["displays_changed"] = [x + 1 for x in u[2]]
        else:
            r["latency_ms"] = None
        if k["press_us"] is not None:
            inside = [a for a, b in busy if b - a > 1000 and a <= k["press_us"] < b]
            r["press_inside_erase"] = bool(inside)
        if k["label"] in trig:
            t = trig[k["label"]]
            r["trigger"] = t.split(":", 1)[1]
            r["triggered"] = t.startswith("trig:")
        lat.append(r)
    out["keys"] = lat
    recs = journal_records(os.path.join(d, name + ".fs-after.img"), emu, d)
    before = JOURNAL_LONG if scenario in ("long", "resume") else 0
    journaling = [(r, k) for r, k in zip(lat, keys) if k["record"]]
    if recs is not None:
        added = [record_kind(x) for x in recs[before:]]
        acted, extra = match_records([k["record"] for _, k in journaling], added,
                                     [r.get("latency_ms") is not None for r, _ in journaling])
        for (r, _), a in zip(journaling, acted):
            r["acted"] = a
        out["journal"] = {"records_before": before, "records_after": len(recs),
                          "journaling_presses": len(journaling),
                          "lost": acted.count(False), "unexpected_records": extra}
    out["triggers_missed"] = [x["label"] for x in lat if x.get("triggered") is False]
    if decoder(build) == "tm1637":
        per, byte = tm1637_clock(events, displays(build)[0][0][1]["clk"])
        out["tm1637_clock_period_us"] = None if per is None else round(per, 1)
        out["tm1637_byte_us"] = None if byte is None else round(byte, 1)
    return out


# ---- the report ----------------------------------------------------------------------------

# The figures of the summary: (scenario, key label) -> name. Labels number the presses
# of a plan in order, so they are the same on every build up to these keys.
FIGURES = (
    ("short", "3-OK", "ok", "scoring stroke 3+C2+OK"),
    ("short", "4-MISS", "miss", "MISS, two displays"),
    ("short", "7-FOUL", "foul", "FOUL, two displays"),
    ("short", "8-UNDO", "undo", "UNDO"),
    ("short", "9-REDO", "redo", "REDO"),
    ("long", "5-OK", "grown_ok", "3+OK, 2,000-action journal"),
    ("long", "6-FOUL", "grown_foul", "FOUL, 2,000-action journal"),
    ("long", "7-UNDO", "full_undo", "UNDO, full history"),
    ("long", "8-REDO", "full_redo", "REDO, full history"),
    ("long", "10-OK", "end_of_game", "the stroke that ends the game"),
)


def summarise(build, runs):
    """The build's headline figures (ms unless said) from its runs."""
    s = {"build": build, "latency_ms": {}}
    for scenario, label, name, _ in FIGURES:
        for k in runs.get(scenario, {}).get("keys", []):
            if k["label"] == label:
                s["latency_ms"][name] = k.get("latency_ms")
    short, long_ = runs.get("short", {}), runs.get("long", {})
    s["boot_empty_journal_ms"] = short.get("boot_to_picture_ms")
    s["boot_2000_journal_ms"] = long_.get("boot_to_picture_ms")
    s["boot_2000_game_ms"] = runs.get("resume", {}).get("boot_to_game_ms")
    s["heap"] = short.get("boot_report")
    s["heap_resumed"] = runs.get("resume", {}).get("boot_report")
    for k in ("tm1637_clock_period_us", "tm1637_byte_us"):
        if k in short:
            s[k] = short[k]
    lost = pressed = 0
    which = []
    for r in runs.values():
        j = r.get("journal")
        if j:
            lost += j["lost"]
            pressed += j["journaling_presses"]
        which += ["%s: %s" % (r["scenario"], k["what"]) for k in r["keys"]
                  if k.get("acted") is False]
    s["presses_lost"] = {"lost": lost, "journaling_presses": pressed, "which": which}
    s["bounds"] = worst(bounded(build, runs))
    return s


def table(builds):
    """The summary of one target's builds as a Markdown table (ms; lost: journaling
    presses not acted on)."""
    head = [f[2] for f in FIGURES]
    rows = ["| build | " + " | ".join(head) + " | boot empty / 2000 | game, 2000 | lost "
            "| heap free / largest block: started, resumed |", "|---" * (len(head) + 5) + "|"]

    def f(v):
        return "-" if v is None else "%.1f" % v

    def heap(h):
        return "-" if not h else "%s / %s" % (h.get("heap_free_bytes", "-"),
                                              h.get("largest_free_bytes") or "-")

    for b, r in builds.items():
        su = r["summary"]
        lat = su["latency_ms"]
        rows.append("| %s | %s | %s / %s | %s | %d of %d | %s |" % (
            b, " | ".join(f(lat.get(n)) for n in head),
            f(su.get("boot_empty_journal_ms")), f(su.get("boot_2000_journal_ms")),
            f(su.get("boot_2000_game_ms")),
            su["presses_lost"]["lost"], su["presses_lost"]["journaling_presses"],
            heap(su.get("heap")) + ", " + heap(su.get("heap_resumed"))))
    return "\n".join(rows)


# The bounds, ms: a key's answer on a seven-segment build; on an OLED build
# when it changes one display, or more; reset to the first picture; reset to the
# 2,000-action game shown.
BOUND_MS = {"seven-segment key": 8, "OLED key, one display": 15,
            "OLED key, two displays": 25, "first picture": 300, "game shown": 1000}
BOUND_ORDER = ("key", "OLED key, two displays", "first picture, empty",
               "first picture, 2,000", "game shown")


def key_bound(build, changed):
    """The bound (name) of a key's answer that changed the displays `changed`."""
    if build.startswith("oled"):
        return "OLED key, one display" if len(changed or ()) <= 1 else "OLED key, two displays"
    return "seven-segment key"


def bounded(build, runs):
    """Every figure of the runs that has a bound: [{figure, bound, bound_ms, emulated_ms,
    estimate_ms}] (the measured keys, the first pictures, the game shown)."""
    rows = []
    for scenario in SCENARIOS:
        r = runs.get(scenario)
        if not r:
            continue
        for k in r.get("keys", []):
            if k.get("kind") != "latency" or k.get("latency_ms") is None:
                continue
            b = key_bound(build, k.get("displays_changed"))
            rows.append({"figure": "%s %s" % (scenario, k["label"]), "bound": b,
                         "bound_ms": BOUND_MS[b], "emulated_ms": k["latency_ms"],
                         "estimate_ms": k.get("estimate_ms")})
        if scenario != "resume" and r.get("boot_to_picture_ms") is not None:
            rows.append({"figure": "%s first picture" % scenario, "bound": "first picture",
                         "bound_ms": BOUND_MS["first picture"],
                         "emulated_ms": r["boot_to_picture_ms"],
                         "estimate_ms": r.get("boot_to_picture_estimate_ms")})
        if scenario == "resume" and r.get("boot_to_game_ms") is not None:
            rows.append({"figure": "resume game shown", "bound": "game shown",
                         "bound_ms": BOUND_MS["game shown"], "emulated_ms": r["boot_to_game_ms"],
                         "estimate_ms": r.get("boot_to_game_estimate_ms")})
    return rows


def worst(rows):
    """Per bound: the largest emulated figure and the largest estimate (which may
    belong to another key), and whether every estimate is within the bound."""
    out = {}
    for r in rows:
        w = out.setdefault(r["bound"], {"bound_ms": r["bound_ms"], "emulated_ms": None,
                                        "estimate_ms": None, "figures": 0, "missed": []})
        w["figures"] += 1
        for k in ("emulated_ms", "estimate_ms"):
            if r[k] is not None and (w[k] is None or r[k] > w[k]):
                w[k] = r[k]
        if r["estimate_ms"] is None or r["estimate_ms"] > r["bound_ms"]:
            w["missed"].append(r["figure"])
    return out


def bound_table(targets):
    """Emulated and real-board estimate of the worst figure per bound, per target and
    build, as a Markdown table."""
    cols = ("seven-segment key", "OLED key, one display", "OLED key, two displays",
            "first picture", "game shown")
    rows = ["| target | build | " + " | ".join("%s (<= %d ms)" % (c, BOUND_MS[c])
                                                 for c in cols) + " |",
            "|---|---" + "|---" * len(cols) + "|"]

    def cell(w):
        if not w:
            return ""
        f = lambda v: "-" if v is None else ("%.1f" % v)   # noqa: E731
        return "%s / %s%s" % (f(w["emulated_ms"]), f(w["estimate_ms"]),
                              " **over**" if w["missed"] else "")

    for name, r in targets.items():
        for b, x in r["builds"].items():
            w = x["summary"].get("bounds", {})
            rows.append("| %s | %s | %s |" % (name, b, " | ".join(cell(w.get(c)) for c in cols)))
    return "\n".join(rows)


DEFINITIONS = {
    "latency_ms": "from the key's acting edge (press; release for 1 3 5 MISS FOUL SCRATCH and "
                  "the encoder switch) to the end of the bus transaction of the last visible "
                  "change of the update that answers it: the first visible changes on any display "
                  "after the edge, up to the first pause of 100 ms without one, flash-busy time "
                  "not counted (decoded with the "
                  "emulator's decoders; milliseconds of emulated time, 3 ms debounce included)",
    "first_change_ms": "edge to the first visible change",
    "first_bus_ms": "edge to the first display-bus activity (I2C/SPI start, TM1637 or CS edge)",
    "boot_to_game_ms": "resume scenario (the 2,000-action journal, no key): reset to the end of "
                       "the update after the wiring check, the one that shows the game",
    "boot_to_picture_ms": "reset to the end of the first update of the displays (the start-up "
                          "wiring check, drawn before the journal is read back), as latency_ms",
    "boot_report": "the firmware's `cowboy: up` line: ms since reset once the game is shown "
                   "(the first moment nothing waits after the journal is read back), "
                   "gc.mem_free()/gc.mem_alloc() after a collection (bytes); resumed_ms: when "
                   "the journal was read back",
    "journal": "actions in the journal (journal.bin and its tail) read back from the flash after the run against those the "
               "scripted presses should have added; lost = presses the firmware did not act on",
    "kind": "latency: a measured key; probe: a press placed inside a busy moment (OLED "
            "refresh, 8-seat redraw, erase, resume); trigger/triggered: the bus or flash event "
            "it was placed after, and whether that event came",
    "acted": "the journal gained the record this press should add",
    "estimate_ms": "real-board estimate of latency_ms: the figure taken apart (parts_ms) into "
                   "the debounce's 3 ms of timer time, flash busy, bus time on the wire (I2C: "
                   "11 + 9 n SCL periods a transaction; SPI bytes), native frame writers (TM1637 "
                   "frames, MAX7219 chip-select windows) and the rest, the CPU; real = debounce "
                   "+ flash + bus + 1.05 native + 1.12 CPU",
    "boot_to_picture_estimate_ms": "as estimate_ms from the reset (no debounce), CPU at 1.5",
    "boot_to_game_estimate_ms": "max(estimate to the journal read back, estimate to the wiring "
                                "check shown + its 400 ms), then the drawing, CPU at 1.5",
    "bounds": "per bound, the largest emulated figure and the largest estimate of the measured "
              "keys (not the probes), first pictures and the game shown; missed: figures "
              "whose estimate passes the bound",
    "tm1637_clock_period_us": "median period between CLK rising edges within a transfer",
    "tm1637_byte_us": "median time of 9 CLK periods (8 data bits and the ACK clock)",
    "keys": "held %d ms each; measured keys act %d ms into a %d ms period of emulated time" % (
        PRESS_MS, PHASE_MS, CYCLE_MS),
    "players": 2,
}


def main(argv):
    global CHECKPOINT, NAMES
    import options
    p = options.argparser("bench_pico", __doc__, short=" ".join(
        __doc__.split("\n\n")[1].split()[1:]))
    for name in ("--build", "--scenario", "--target"):
        p.add_argument(name, action="append", default=[])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--emulator", default=os.path.join(BUILD, "pico-emulator"))
    for name in ("--quick", "--no-checkpoint", "--names", "--analyse"):
        p.add_argument(name, action="store_true")
    args = p.read(argv)
    if type(args) is int:
        return args
    for given, known, what in ((args.build, BUILDS, "build"),
                               (args.scenario, SCENARIOS, "scenario"),
                               (args.target, TARGETS, "target")):
        for v in given:
            if v not in known:
                return options.fail("bench_pico", "unknown %s %s (%ss: %s)"
                                    % (what, v, what, " ".join(known)))
    builds, scenarios, targets = args.build, args.scenario, args.target
    jobs, quick, only_analyse = args.jobs, args.quick, args.analyse
    out, result_path = OUT, RESULT
    if args.out is not None:
        out = os.path.abspath(args.out)
        result_path = os.path.join(out, "bench-pico.json")
    emu = os.path.abspath(args.emulator)
    if args.no_checkpoint:
        CHECKPOINT = False
    if args.names:
        NAMES = BENCH_NAMES
    builds = builds or list(BUILDS)
    scenarios = scenarios or (["short"] if quick else list(SCENARIOS))
    targets = targets or list(BENCHED)
    t0 = time.time()
    try:
        pins = panel_pins()
        work = [(t, b, s) for t in targets for s in scenarios for b in builds]
        if only_analyse:
            runs = [{"build": b, "scenario": s, "target": t, "dir": run_dir(out, t, b, s)}
                    for t, b, s in work]
        else:
            ensure_emulator(emu)
            from deploy import build as deploy_build
            deploy_build()
            if any(TARGETS[t].rom for t in targets):
                import mpimage
                mpimage.build(tuple(sorted(set(TARGETS[t].board for t in targets
                                                if TARGETS[t].rom))))
            os.makedirs(out, exist_ok=True)
            # the long runs first: they take longest
            work.sort(key=lambda w: w[2] != "long")
            with ThreadPoolExecutor(max_workers=jobs) as ex:
                runs = list(ex.map(lambda w: run_one(emu, w[1], w[2], pins, out, w[0]),
                                   work))
        result = {"definitions": DEFINITIONS, "targets": {}}
        if os.path.exists(result_path):  # keep the runs not measured this time
            try:
                with open(result_path) as f:
                    result["targets"] = json.load(f).get("targets", {})
            except ValueError:
                pass
        for r in runs:
            a = analyse(r, emu, pins)
            a["target"] = r["target"]
            a["date_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime(
                os.path.getmtime(os.path.join(r["dir"], "keys.json"))))
            t = result["targets"].setdefault(r["target"], {"builds": {}})
            t["builds"].setdefault(r["build"], {"runs": {}})["runs"][r["scenario"]] = a
        result["targets"] = {k: result["targets"][k] for k in TARGETS
                             if k in result["targets"]}
        for t in result["targets"].values():
            t["builds"] = {b: t["builds"][b] for b in BUILDS if b in t["builds"]}
            for b, r in t["builds"].items():
                r["summary"] = summarise(b, r["runs"])
    except BenchError as e:
        print("bench_pico: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:       # --analyse without logs, a run that left no files
        print("bench_pico: %s: %s" % (e.filename or "", e.strerror or e), file=sys.stderr)
        return 2
    result["bench_wall_s"] = round(time.time() - t0, 1)
    result["date_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    with open(result_path, "w") as f:
        json.dump(result, f, indent=1)
    for name, r in result["targets"].items():
        t = TARGETS[name]
        print("%s, MicroPython v%s%s, emulated ms:" % (
            "Pico W" if t.board == "RPI_PICO_W" else "Pico", t.release,
            " (the project's image)" if t.rom else ""))
        print(table(r["builds"]))
        print()
    print("Emulated / real-board estimate, ms, the worst figure of each bound:")
    print(bound_table(result["targets"]))
    print("wrote %s (%.0f s)" % (os.path.relpath(result_path, ROOT), result["bench_wall_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
