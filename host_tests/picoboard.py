"""The emulated Pico for `make test-pico`: scripted runs and a serial port.

The instrument (../shared/pico-emulator, copied to build/pico-emulator by
`make test-pico`) boots MicroPython UF2s in rp2040js: the project's image
(build/micropython/, `make micropython`) and official releases (tools/bench_pico.py
TARGETS). Two ways in:

- run(): a plan of steps (tools/bench_pico_plan.mjs) on a folder put on the
  board's flash; returns the event log (emulated times), the serial output and
  the flash as the run left it;
- SerialBoard: the board as a serial port (socat pty) that mpremote and
  `make deploy PORT=...` talk to, with its pins pressed through a socket.

What a display shows is decoded from the log by the instrument's decoders
(tools/bench_pico.py display_histories) and compared with the simulator
(tools/simboard.py).
"""
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOOLS = os.path.join(ROOT, "tools")
for p in (TOOLS, os.path.join(TOOLS, "models")):
    if p not in sys.path:
        sys.path.insert(0, p)
import bench_pico  # noqa: E402  (plans, wiring and decoding of the bench)
from fakedisplays import seg_text  # noqa: E402

EMU = os.path.join(ROOT, "build", "pico-emulator")
DEVICE = os.path.join(ROOT, "build", "device")
PLAN = os.path.join(TOOLS, "bench_pico_plan.mjs")
TARGETS = bench_pico.TARGETS
PICO, PICO_W = bench_pico.BENCHED          # the project's image on a Pico and on a Pico W


def ready():
    """Why the instrument cannot run here, or None."""
    import mpimage
    if not os.path.isdir(os.path.join(EMU, "node_modules", "rp2040js")):
        return "no emulator in build/pico-emulator (make test-pico sets it up)"
    if not os.path.isdir(DEVICE):
        return "no build/device/ (make test-pico builds it)"
    for board in mpimage.BOARDS:
        if not os.path.exists(mpimage.image_path(board)):
            return "no %s (make test-pico builds it)" % mpimage.image_path(board)
    return None


def device_copy(dest, build, target=PICO, hall=None):
    """build/device/ as `make deploy BUILD=build` leaves a board of `target`, with a
    new 2-player game in its settings (the bench's tree, no journal); `hall`: the
    text of its hall.json."""
    bench_pico.device_tree(build, "short", dest, target=TARGETS[target], hall=hall)
    return dest


class Run:
    """What one scripted run left: log events, serial text, the flash's files."""

    def __init__(self, folder, name):
        self.folder = folder
        self.name = name
        self.log = os.path.join(folder, name + ".jsonl")
        with open(os.path.join(folder, name + ".summary.json")) as f:
            self.summary = json.load(f)
        self.events = bench_pico.read_log(self.log)
        self.serial = self.summary.get("serial", "")

    def actions(self):
        """The game's action lines in the flash after the run (journal and tail),
        or None when there is no journal."""
        return bench_pico.journal_records(os.path.join(self.folder, self.name + ".fs-after.img"),
                                          EMU, self.folder)

    def marks(self, prefix):
        return [(e["name"][len(prefix):], e["t"]) for e in self.events
                if e.get("ev") == "mark" and e["name"].startswith(prefix)]


def run(plan, app, folder, target=PICO, i2c=None, tm1637=None, timeout=900, args=()):
    """Run `plan` (a list of bench plan steps) on a board of `target` with `app` (a
    device_copy) on its flash; the output goes to `folder`. Returns a Run."""
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(folder.rstrip("/"))
    path = os.path.join(folder, "plan.json")
    with open(path, "w") as f:
        json.dump({"name": name, "i2c_devices": i2c or {}, "tm1637": tm1637 or [],
                   "steps": plan}, f, indent=1)
    t = TARGETS[target]
    res = subprocess.run(["node", "src/cli.mjs", "run", PLAN, "--app", app, "--out", folder,
                          "--save-fs", "--board", t.emulated, "--uf2", t.firmware(EMU, app)]
                         + list(args),
                         cwd=EMU, env=dict(os.environ, BENCH_PLAN=path),
                         capture_output=True, text=True, timeout=timeout)
    with open(os.path.join(folder, "emulator.txt"), "w") as f:
        f.write(res.stdout + res.stderr)
    if not os.path.exists(os.path.join(folder, name + ".summary.json")):
        raise AssertionError("the emulator left no summary:\n" + res.stdout[-2000:]
                             + res.stderr[-2000:])
    return Run(folder, name)


# ---- what the displays show -------------------------------------------------------

HELD_MS = 300           # a picture counts as shown when it stays this long


def _oled(ram, on):
    """The panel's visible RAM (SH1106: columns 2-129 of each 132-column page)."""
    if not on:
        return b""
    return b"".join(bytes(ram[p * 132 + 2:p * 132 + 130]) for p in range(8))


def emulated_histories(r, build):
    """Per display, [(t ms, what it shows)] decoded from the run's wires."""
    hist = bench_pico.display_histories(r.log, r.events, build, EMU)
    kind = bench_pico.decoder(build)
    out = []
    for h in hist:
        seq = []
        for t, s in h:
            if kind in ("tm1637", "max7219"):
                shown = seg_text(bytes(s[0])) if s[1] else " " * len(s[0])
            elif kind == "ht16k33":
                d = json.loads(s)
                segs = bytes(d["ram"][k] for k in (0, 2, 6, 8))
                shown = seg_text(segs) if d["on"] else "    "
            else:               # the panel's 128 visible columns of each page, already
                shown = bytes(s[0]) if s[1] else b""

            seq.append((t / 1000.0, shown))
        out.append(seq)
    return out


def oled_pixels(shown):
    """64 rows of 128 ints (1 = lit) of an OLED's visible RAM as emulated_histories()
    gives it (the firmware drives the panel upright), for fakedisplays.read_oled."""
    return [[(shown[(y >> 3) * 128 + x] >> (y & 7)) & 1 for x in range(128)]
            for y in range(64)]


def says(build, shown, *words):
    """Whether the picture `shown` (emulated_histories) shows any of `words`: a
    seven-segment display's text holds one, or an OLED's text read from its pixels."""
    if isinstance(shown, str):
        return any(w in shown for w in words)
    if not shown:
        return False
    from fakedisplays import read_oled
    text = " ".join(str(v) for v in read_oled(oled_pixels(shown)).values())
    return any(w in text for w in words)


FIGURES = os.path.join(ROOT, "build", "pico-figures.json")


def figure(kind, build, values):
    """Keep `values` measured by a test under FIGURES[kind][build] (docs/PERFORMANCE.md
    reports them); two test workers may write at once, so each writes under a lock."""
    import fcntl
    os.makedirs(os.path.dirname(FIGURES), exist_ok=True)
    with open(FIGURES + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(FIGURES) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {}
        data.setdefault(kind, {})[build] = dict(values, date_utc=time.strftime(
            "%Y-%m-%d %H:%M", time.gmtime()))
        with open(FIGURES, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)


def sim_shown(model):
    if hasattr(model, "pixels"):
        return _oled(b"".join(bytes(p) for p in model.ram), model.on)
    return model.text()


def held(history, t0, t1, ms=HELD_MS):
    """The pictures of one display's [(t, shown)] that stay at least `ms` within
    [t0, t1), each once."""
    out = []
    prev_t, prev = t0, None
    for t, s in history:
        if t <= t0:
            prev = s
            continue
        if t >= t1:
            break
        if prev is not None and t - prev_t >= ms and prev not in out:
            out.append(prev)
        prev_t, prev = t, s
    if prev is not None and t1 - prev_t >= ms and prev not in out:
        out.append(prev)
    return out


class SimTrace:
    """Sim (tools/simboard.py) on the same keys at the same times: each display's history."""

    def __init__(self, build, players=2):
        import simboard
        self.sim = simboard.Sim(players=players, build=build)
        self.hist = [[(0.0, sim_shown(m))] for m in self.sim.models]

    def edge(self, t_ms, gpio, level):
        self.sim.timeline.append((int(round(t_ms)), gpio, level))
        self.sim.timeline.sort()

    def run_to(self, t_ms, every=5):
        s = self.sim
        while s.now < t_ms:
            s.run_to(min(t_ms, s.now + every))
            for h, m in zip(self.hist, s.models):
                v = sim_shown(m)
                if v != h[-1][1]:
                    h.append((float(s.now), v))


# ---- the board as a serial port -----------------------------------------------------

class SerialBoard:
    """The emulated Pico behind a pty (socat), as a USB serial port: flash
    starts from `app` (None: empty), `target` picks the board and its MicroPython
    (the project's image with an empty ROMFS partition, as `make micropython`
    writes it; `uf2`: another file of that board, a release file)."""

    def __init__(self, work, app=None, target=PICO, args="", uf2=None):
        self.work = work
        os.makedirs(work, exist_ok=True)
        self.port = os.path.join(work, "ttyPICO")
        self.control = os.path.join(work, "control.sock")
        self.out = os.path.join(work, "out")
        empty = os.path.join(work, "empty")
        os.makedirs(empty, exist_ok=True)
        t = TARGETS[target]
        if uf2 is not None:
            pass
        elif t.rom:
            import mpimage
            uf2 = mpimage.image_path(t.board)
        else:
            uf2 = t.firmware(EMU, None)
        env = dict(os.environ, BOARD_APP=app or empty, BOARD_OUT=self.out,
                   BOARD_CONTROL=self.control,
                   BOARD_ARGS=("--board %s --uf2 %s %s" % (t.emulated, uf2, args)))
        self.log_file = open(os.path.join(work, "board.log"), "w")
        self.proc = subprocess.Popen(
            ["socat", "-d", "PTY,link=%s,raw,echo=0" % self.port,
             "EXEC:%s" % os.path.join(EMU, "deploy", "board.sh")],
            env=env, stdout=self.log_file, stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(300):
            if os.path.exists(self.port) and os.path.exists(self.control):
                break
            time.sleep(0.1)
        else:
            self.close()
            raise AssertionError("the emulated board did not come up")
        time.sleep(0.5)

    def ctl(self, line):
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.control)
        s.sendall((line + "\n").encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(200)
            if not chunk:
                break
            reply += chunk
        s.close()
        return reply.decode()

    def clock(self):
        """(boot number, emulated seconds since that boot)."""
        w = dict(x.split("=") for x in self.ctl("time").split()[1:])
        return int(w["boot"]), float(w["since_boot"])

    def settle(self, boot, seconds=2.5, timeout=120):
        """Wait until boot number `boot` has run `seconds` of emulated time."""
        end = time.time() + timeout
        while time.time() < end:
            b, s = self.clock()
            if b >= boot and s >= seconds:
                return
            time.sleep(0.1)
        raise AssertionError("boot %d did not run %.1f s (at %s)" % (boot, seconds, self.clock()))

    def press(self, gpio, ms=80):
        self.ctl("press %d %d" % (gpio, ms))

    def events(self):
        with open(os.path.join(self.out, "repl.jsonl")) as f:
            return [json.loads(x) for x in f if x.strip()]

    def own_output(self):
        """What the firmware printed by itself: serial output after each reboot
        until the host next sends (mpremote's own exchanges are left out)."""
        rx, own = "", False
        for e in self.events():
            if e["ev"] == "reboot":
                own = True
            elif e["ev"] == "serial" and e["dir"] == "tx":
                own = False
            elif e["ev"] == "serial" and own:
                rx += e["text"]
        return rx

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
        self.log_file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
