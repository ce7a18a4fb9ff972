"""MicroPython for the scoreboard's boards, built by the project: `make micropython`.

    python3 tools/mpimage.py build [--board NAME]... [--source TARBALL] [--jobs N]
    python3 tools/mpimage.py path NAME          # prints the image's path (built or not)

MicroPython (tools/releases.py BUILT) from its source, for each board of tools/boards/
(the port's own board definition plus a ROMFS partition, which holds the scoreboard's
compiled modules: their bytecode runs from flash instead of the heap), into
build/micropython/<NAME>-v<release>.uf2: the file to copy onto the Pico in BOOTSEL
mode. Then `make deploy` puts the scoreboard on it (docs/DEPLOY.md, "The project's
MicroPython image").

The source: TARBALL, or $MICROPYTHON_SRC, or the release's rp2 source tarball beside
the checkout (../shared/micropython/), else a clone of the release tag with the
submodules the port names. The tools: Debian's gcc-arm-none-eabi,
libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib, cmake and build-essential,
installed with apt-get when missing and run as root; otherwise a message says what to
install. A board is built again only when what its image is made of changed: its
definition, this builder, the source's bytes (a tarball's SHA-256, or the release tag
of a clone), not where the checkout or the tarball lies.
Exit status 1 when a step fails (its output's tail says why), 2 on bad arguments.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import releases  # noqa: E402
import romfs  # noqa: E402

BOARDS_DIR = os.path.join(HERE, "boards")
BOARDS = ("RPI_PICO", "RPI_PICO_W")
COMMON = "common"           # what both boards' definitions share (the frozen _boot.py)
OUT = os.path.join(ROOT, "build", "micropython")
WORK = os.path.join(OUT, "work")
TARBALL = os.path.join(os.path.dirname(ROOT), "shared", "micropython",
                       "micropython-%s-rp2-src.tar.xz" % releases.BUILT)
FLASH_BYTES = 2 * 1024 * 1024
# the filesystem's size per board, as the port's boards/<NAME>/mpconfigboard.h sets it
# (checked against the source at build time): ROMFS sits just below it
STORAGE_BYTES = {"RPI_PICO": 1408 * 1024, "RPI_PICO_W": 848 * 1024}
PACKAGES = ("gcc-arm-none-eabi", "libnewlib-arm-none-eabi",
            "libstdc++-arm-none-eabi-newlib", "cmake", "build-essential")
TOOLS = ("arm-none-eabi-gcc", "cmake", "make", "c++")


class ImageError(Exception):
    """A step that failed; str() says which and why."""


def image_path(board):
    # the board's name in the file's name: the emulated Pico tells a W by it
    return os.path.join(OUT, "%s-v%s.uf2" % (board, releases.BUILT))


def romfs_bytes(board):
    """The ROMFS partition's size, from the board definition of tools/boards/."""
    with open(os.path.join(BOARDS_DIR, board, "mpconfigboard.h")) as f:
        m = re.search(r"#define MICROPY_HW_ROMFS_BYTES \((\d+) \* 1024\)", f.read())
    if not m:
        raise ImageError("tools/boards/%s/mpconfigboard.h sets no MICROPY_HW_ROMFS_BYTES"
                         % board)
    return int(m.group(1)) * 1024


def layout(board):
    """(flash offset of the ROMFS partition, its size)."""
    size = romfs_bytes(board)
    return FLASH_BYTES - STORAGE_BYTES[board] - size, size


def with_romfs(board, rom, out):
    """Write `out`: the board's image with the ROMFS image `rom` (bytes) in its
    partition (one file for the emulated Pico, or for a new board)."""
    with open(image_path(board), "rb") as f:
        firmware = f.read()
    base, size = layout(board)
    data = romfs.with_image(firmware, rom, base, size)
    with open(out, "wb") as f:
        f.write(data)
    return out


# ---- building ---------------------------------------------------------------------------

def _run(cmd, log, cwd=None, env=None):
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        res = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if res.returncode:
        with open(log) as f:
            tail = f.read()[-3000:]
        raise ImageError("`%s` failed (exit %d); the end of %s:\n%s"
                         % (" ".join(cmd[:4]), res.returncode, log, tail))


def toolchain(log):
    """The compilers and tools, installed with apt-get (as root) when missing."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    # Debian's compiler comes without a C library: newlib is its own package
    newlib = sys.platform == "darwin" or os.path.exists("/usr/lib/arm-none-eabi/include/stdio.h")
    if not missing and newlib:
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        _run(["apt-get", "update", "-qq"], log, env=env)
        _run(["apt-get", "install", "-y", "-qq"] + list(PACKAGES), log, env=env)
        return
    raise ImageError(
        "building MicroPython needs an Arm compiler and cmake (%s missing). On Debian "
        "or Ubuntu: sudo apt-get install %s; on macOS: brew install cmake and Arm's "
        "arm-none-eabi toolchain (brew install --cask gcc-arm-embedded)."
        % (", ".join(missing) or "the newlib headers", " ".join(PACKAGES)))


def source_id(tarball):
    """What the MicroPython source is, by its bytes: the tarball's SHA-256, or the
    release tag a clone takes (where the tarball lies does not matter)."""
    if not tarball:
        return "git %s %s" % (releases.SOURCE_REPO, releases.SOURCE_TAG)
    h = hashlib.sha256()
    with open(tarball, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "tarball sha256 " + h.hexdigest()


def digest(board, source):
    """The SHA-256 of what the board's image is made of: the release, its source
    (source_id()), the board definition's files (by name and contents) and this
    builder's own text. No path: a moved checkout keeps its images."""
    h = hashlib.sha256(("%s %s\n%s\n" % (releases.BUILT, releases.BUILT_DATE, source))
                       .encode())
    for folder in (board, COMMON):
        for name in sorted(os.listdir(os.path.join(BOARDS_DIR, folder))):
            with open(os.path.join(BOARDS_DIR, folder, name), "rb") as f:
                h.update(("%s/%s" % (folder, name)).encode() + b"\0" + f.read() + b"\0")
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def source(tarball, log):
    """The MicroPython tree (and picotool's, when the tarball has it) in WORK:
    (micropython folder, picotool folder or None)."""
    mp = os.path.join(WORK, "micropython")
    pt = os.path.join(WORK, "picotool")
    stamp = os.path.join(WORK, "source")
    want = source_id(tarball)
    if os.path.isdir(os.path.join(mp, "py")) and _read(stamp) == want:
        return mp, (pt if os.path.isdir(pt) else None)
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    if tarball:
        kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        with tarfile.open(tarball) as t:
            t.extractall(WORK, **kw)
    else:
        _run(["git", "clone", "--depth", "1", "--branch", releases.SOURCE_TAG,
              releases.SOURCE_REPO, mp], log)
        for board in BOARDS:
            _run(["make", "-C", os.path.join(mp, "ports", "rp2"), "BOARD=" + board,
                  "submodules"], log)
    with open(stamp, "w") as f:
        f.write(want)
    return mp, (pt if os.path.isdir(pt) else None)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def check_layout(mp, board):
    """The port's filesystem size for `board` is the one layout() assumes."""
    with open(os.path.join(mp, "ports", "rp2", "boards", board, "mpconfigboard.h")) as f:
        m = re.search(r"MICROPY_HW_FLASH_STORAGE_BYTES\s+\((\d+) \* 1024\)", f.read())
    if not m or int(m.group(1)) * 1024 != STORAGE_BYTES[board]:
        raise ImageError("the port's %s filesystem is not %d KiB: tools/mpimage.py "
                         "STORAGE_BYTES needs updating" % (board, STORAGE_BYTES[board] // 1024))


def build(boards=BOARDS, tarball=None, jobs=2, out=sys.stdout):
    """Build the images of `boards` that are missing or out of date; returns their paths."""
    os.makedirs(OUT, exist_ok=True)
    log = os.path.join(OUT, "build.log")
    if tarball is None:
        tarball = os.environ.get("MICROPYTHON_SRC") or (TARBALL if os.path.exists(TARBALL)
                                                         else None)
    src = source_id(tarball)
    todo = []
    for board in boards:
        want = digest(board, src)
        if _read(image_path(board) + ".digest") != want or not os.path.exists(image_path(board)):
            todo.append((board, want))
    if not todo:
        return [image_path(b) for b in boards]
    if os.path.exists(log):
        os.remove(log)
    toolchain(log)
    print("MicroPython %s from %s" % (releases.BUILT, tarball or releases.SOURCE_REPO),
          file=out)
    mp, pt = source(tarball, log)
    # the release's own version in the banner, not the git description of a folder
    # around the tree, and its date: the same tree makes the same image
    import calendar
    import time
    env = dict(os.environ, PICO_SDK_PATH=os.path.join(mp, "lib", "pico-sdk"),
               MICROPY_GIT_TAG=releases.SOURCE_TAG,
               SOURCE_DATE_EPOCH=str(calendar.timegm(time.strptime(releases.BUILT_DATE,
                                                                   "%Y-%m-%d"))))
    env.pop("CMAKE_ARGS", None)         # (it would replace the port's own, board included)
    if pt is not None:
        inst = os.path.join(WORK, "pt")
        if not os.path.isdir(os.path.join(inst, "picotool")):
            _run(["cmake", "-S", pt, "-B", os.path.join(WORK, "pt-build"),
                  "-DCMAKE_INSTALL_PREFIX=" + inst, "-DPICOTOOL_NO_LIBUSB=1",
                  "-DPICOTOOL_FLAT_INSTALL=1"], log, env=env)
            _run(["cmake", "--build", os.path.join(WORK, "pt-build"), "-j%d" % jobs], log,
                 env=env)
            _run(["cmake", "--install", os.path.join(WORK, "pt-build")], log, env=env)
        env["picotool_ROOT"] = os.path.join(inst, "picotool")
    _run(["make", "-C", os.path.join(mp, "mpy-cross"), "-j%d" % jobs], log, env=env)
    for board, want in todo:
        check_layout(mp, board)
        print("Building %s ..." % board, file=out)
        folder = os.path.join(WORK, "build-" + board)
        _run(["make", "-C", os.path.join(mp, "ports", "rp2"), "BOARD=" + board,
              "BOARD_DIR=" + os.path.join(BOARDS_DIR, board), "BUILD=" + folder,
              "-j%d" % jobs], log, env=env)
        with open(os.path.join(folder, "firmware.uf2"), "rb") as f:
            firmware = f.read()
        base, size = layout(board)
        romfs.with_image(firmware, b"", base, size)     # it must end below the partition
        with open(image_path(board), "wb") as f:
            f.write(firmware)
        with open(image_path(board) + ".digest", "w") as f:
            f.write(want)
        print("  %s (%d bytes; ROMFS %d KiB at 0x%x)" % (
            os.path.relpath(image_path(board), ROOT), len(firmware), size // 1024, base),
            file=out)
    return [image_path(b) for b in boards]


def main(argv):
    import options      # (the command line only: the tests' checkouts copy this module)
    p = options.argparser("mpimage.py", __doc__, short="mpimage.py build [--board NAME]... "
                          "[--source TARBALL] [--jobs N] | path NAME")
    sub = p.add_subparsers(dest="command", required=True)
    making = sub.add_parser("build")
    making.add_argument("--board", action="append", choices=BOARDS, default=[])
    making.add_argument("--source")
    making.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    sub.add_parser("path").add_argument("name", choices=BOARDS)
    args = p.read(argv)
    if type(args) is int:
        return args
    if args.command == "path":
        print(image_path(args.name))
        return 0
    boards, tarball, jobs = args.board, args.source, args.jobs
    if tarball is not None and not os.path.exists(tarball):
        print("mpimage.py: no file %s" % tarball, file=sys.stderr)
        return 2
    try:
        build(tuple(boards) or BOARDS, tarball, jobs)
    except ImageError as e:
        print("mpimage.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
