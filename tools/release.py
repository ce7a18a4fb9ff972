"""The release files: one UF2 per board and display build, flashed by copying it onto
the Pico's RPI-RP2 drive: `make uf2`.

    python3 tools/release.py [--out DIR] [--board NAME]... [--build NAME]...

Each file is the project's MicroPython image of the board (tools/mpimage.py, built
when missing or out of date) with a ROMFS image that holds the scoreboard's compiled
modules (as `make deploy` writes it) and, in its install/ folder, the files the board
starts from: boot.py, main.py, what boot.py imports, the display build (build.txt) and
a stamp (release.txt). At the first start after the file was flashed the image's
frozen _boot.py (tools/boards/common/_boot.py) copies them onto the filesystem; the
game data there (games, settings, names, hall.json) is never touched, and the flashed
file's display build replaces the one stored (docs/DEPLOY.md, "The release files").
Out: DIR (default build/release/) holds cowboy-v<version>-<board>-<build>.uf2 for every
board (pico, pico-w) and build, SHA256SUMS beside them (`sha256sum -c SHA256SUMS`
checks them), THIRD-PARTY-NOTICES.md and LICENSE. Exit status 1 when a step fails
(the message says which), 2 on bad arguments.
"""
import hashlib
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware"))
import deploy  # noqa: E402
import mpimage  # noqa: E402
import options  # noqa: E402
import romfs  # noqa: E402
from board import config  # noqa: E402
from version import VERSION  # noqa: E402

OUT = os.path.join(ROOT, "build", "release")
SLUG = {"RPI_PICO": "pico", "RPI_PICO_W": "pico-w"}     # the board, in a file's name
INSTALL = "install"         # the start-up files' folder in the image (_boot.py)
STAMP = deploy.RELEASE_STAMP     # its stamp: the board copies the folder when its own differs
SUMS = "SHA256SUMS"
BESIDE = ("THIRD-PARTY-NOTICES.md", "LICENSE")


def file_name(board, build):
    return "cowboy-v%s-%s-%s.uf2" % (VERSION, SLUG[board], build)


def image(device, board, build):
    """The ROMFS image of a release file: the device tree `device`'s lib/ (what
    `make deploy` writes), and install/ with its start-up files and the stamp."""
    tmp = tempfile.mkdtemp()
    try:
        top = os.path.join(tmp, "rom")
        shutil.copytree(os.path.join(device, deploy.LIB), top)
        inst = os.path.join(top, INSTALL)
        os.makedirs(inst)
        for name in deploy.BOOT:
            shutil.copyfile(os.path.join(device, name), os.path.join(inst, name))
        with open(os.path.join(inst, config.CHOICE_FILE), "w") as f:
            f.write(build + "\n")
        digest = hashlib.sha256(romfs.image(top)).hexdigest()[:16]
        with open(os.path.join(inst, STAMP), "w") as f:
            f.write("cowboy %s %s %s %s\n" % (VERSION, board, build, digest))
        return romfs.image(top)
    finally:
        shutil.rmtree(tmp)


def write_file(device, board, build, path):
    """The release file of `board` and `build` at `path`, from the device tree
    `device`; returns the ROMFS image's size."""
    rom = image(device, board, build)
    mpimage.with_romfs(board, rom, path)
    return len(rom)


def write_sums(out, names):
    """SHA256SUMS in `out` for the files `names` (sha256sum's format)."""
    lines = []
    for name in sorted(names):
        with open(os.path.join(out, name), "rb") as f:
            lines.append("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(), name))
    with open(os.path.join(out, SUMS), "w") as f:
        f.writelines(lines)
    return os.path.join(out, SUMS)


def release(out=OUT, boards=mpimage.BOARDS, builds=None, log=sys.stdout):
    """Write every release file of `boards` x `builds` (default all) into `out`, with
    SHA256SUMS and the notices; returns the UF2 files' paths."""
    builds = builds or sorted(config.BUILDS)
    mpimage.build(boards, out=log)
    device = os.path.join(ROOT, "build", "release-device")
    deploy.build(device)
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".uf2") or name == SUMS:
            os.remove(os.path.join(out, name))
    made = []
    for board in boards:
        for build in builds:
            path = os.path.join(out, file_name(board, build))
            size = write_file(device, board, build, path)
            made.append(path)
            print("  %s (%d bytes; ROMFS image %d of %d KiB)" % (
                os.path.relpath(path, ROOT), os.path.getsize(path), size // 1024,
                mpimage.romfs_bytes(board) // 1024), file=log)
    write_sums(out, [os.path.basename(p) for p in made])
    for name in BESIDE:
        shutil.copyfile(os.path.join(ROOT, name), os.path.join(out, name))
    print("%d files and %s in %s" % (len(made), SUMS, os.path.relpath(out, ROOT)), file=log)
    return made


def main(argv):
    p = options.argparser("release.py", __doc__,
                          short="release.py [--out DIR] [--board NAME]... [--build NAME]...")
    p.add_argument("--out", default=OUT)
    p.add_argument("--board", action="append", choices=mpimage.BOARDS, default=[])
    p.add_argument("--build", action="append", choices=sorted(config.BUILDS), default=[])
    args = p.read(argv)
    if type(args) is int:
        return args
    out, boards, builds = args.out, args.board, args.build
    try:
        release(out, tuple(boards) or mpimage.BOARDS, builds)
    except (mpimage.ImageError, deploy.DeployError, romfs.RomfsError, OSError) as e:
        print("release.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
