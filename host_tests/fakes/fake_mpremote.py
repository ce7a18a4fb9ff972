"""A stand-in for the `mpremote` command: a board that is a directory on the host.

    MPREMOTE="python3 fake_mpremote.py" FAKE_BOARD=DIR python3 tools/deploy.py deploy

Understands the commands tools/deploy.py uses, chained with "+": `connect PORT`,
`exec CODE` (run with CPython in DIR, with `sys` and `os` looking like the
board's), `fs cp [-f] SRC DST` (":" marks the board side), `romfs deploy IMAGE`,
`reset`. Without FAKE_BOARD (or with it naming no directory) it answers like
mpremote with no board plugged in. FAKE_BOARD_ID = "version mpy platform" sets
what the board reports (default MicroPython 1.29.0, .mpy v6.3 armv6m, rp2),
FAKE_BOARD_MACHINE its machine's name, FAKE_BOARD_FIRMWARE the scoreboard version
its version.py holds (none without it); FAKE_BOARD_ROMFS = N gives it a ROMFS
partition of N bytes, kept in DIR/../romfs.bin (`vfs.rom_ioctl`, erased as
0xFF); FAKE_BOARD_CUT = "fs cp" (a command's first words) ends the session there,
as a cable pulled. Every command is appended to DIR/../mpremote.log.
"""
import os
import shutil
import sys
import types

ARMV6M = 4


BLOCK = 4096


def board_sys(ident):
    version, mpy, platform = ident.split()
    impl = types.SimpleNamespace(
        name="micropython", version=tuple(int(x) for x in version.split(".")) + ("",),
        _mpy=int(mpy), _machine=os.environ.get("FAKE_BOARD_MACHINE",
                                               "Raspberry Pi Pico with RP2040"))
    return types.SimpleNamespace(implementation=impl, platform=platform)


class Partition(bytearray):
    """The ROMFS partition, as rp2.Flash gives it: a buffer, and ioctl 6 erases a block."""

    def ioctl(self, op, arg):
        if op == 6:
            self[arg * BLOCK:(arg + 1) * BLOCK] = b"\xff" * BLOCK
        return 0


def rom_file(board):
    return os.path.join(os.path.dirname(board), "romfs.bin")


def rom_partition(board):
    """The board's ROMFS partition (None: this MicroPython has none)."""
    size = int(os.environ.get("FAKE_BOARD_ROMFS", "0"))
    if not size:
        return None
    path = rom_file(board)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(b"\xff" * size)
    with open(path, "rb") as f:
        return Partition(f.read())


def board_vfs(part):
    def rom_ioctl(op, *args):
        if part is None:
            raise AttributeError("rom_ioctl")
        return 1 if op == 1 else part if op == 2 else -22

    def umount(path):
        pass
    return types.SimpleNamespace(rom_ioctl=rom_ioctl, umount=umount)


def board_os(part):
    def ilistdir(d="."):
        if d in ("", ".", "/") and os.path.exists("pack.bin"):
            # boot.py mounted the pack there (firmware/fastimport.py): a folder
            # in the root's listing whose files are not on this directory
            yield ("pack", 0x4000, 0, 0)
        if d in ("", ".", "/") and part is not None and part[:3] == b"\xd2\xcd\x31":
            yield ("rom", 0x4000, 0, 0)         # MicroPython mounted the image
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            kind = 0x4000 if os.path.isdir(p) else 0x8000
            yield (name, kind, 0, os.path.getsize(p) if kind == 0x8000 else 0)
    return types.SimpleNamespace(ilistdir=ilistdir, mkdir=os.mkdir, remove=os.remove,
                                 stat=os.stat, listdir=os.listdir, rename=os.rename)


def run_exec(code, ident, board):
    part = rom_partition(board)
    saved = {k: sys.modules.get(k) for k in ("sys", "os", "vfs", "version")}
    firmware = os.environ.get("FAKE_BOARD_FIRMWARE")
    # the scoreboard's version.py as the board imports it; None: no such module
    sys.modules["version"] = types.SimpleNamespace(VERSION=firmware) if firmware else None
    sys.modules["sys"] = board_sys(ident)
    sys.modules["os"] = board_os(part)
    sys.modules["vfs"] = board_vfs(part)
    try:
        exec(code, {"__name__": "__main__"})
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        if part is not None:
            with open(rom_file(board), "wb") as f:
                f.write(part)


def local(path, board):
    return os.path.join(board, path[1:]) if path.startswith(":") else path


def main(argv):
    board = os.environ.get("FAKE_BOARD", "")
    ident = os.environ.get("FAKE_BOARD_ID", "1.29.0 %d rp2" % (6 | 3 << 8 | ARMV6M << 10))
    if not board or not os.path.isdir(board):
        port = argv[1] if len(argv) > 1 and argv[0] == "connect" else "auto"
        if port != "auto" and not os.path.exists(port):
            # what mpremote 1.2x says of a named port that is not there
            print("mpremote: failed to access %s (it may be in use by another program)"
                  % port, file=sys.stderr)
        else:
            print("mpremote: no device found", file=sys.stderr)
        return 1
    board = os.path.abspath(board)
    log = open(os.path.join(os.path.dirname(board), "mpremote.log"), "a")
    chains, cur = [], []
    for a in argv:
        if a == "+":
            chains.append(cur)
            cur = []
        else:
            cur.append(a)
    chains.append(cur)
    here = os.getcwd()
    for c in chains:
        if c[0] == "connect":
            c = c[2:]
            if not c:
                continue
        log.write(" ".join(c if c[0] != "exec" else ["exec", "<code>"]) + "\n")
        cut = os.environ.get("FAKE_BOARD_CUT")
        if cut and " ".join(c).startswith(cut):
            print("mpremote: the device disconnected", file=sys.stderr)
            return 1
        if c[0] == "exec":
            os.chdir(board)
            try:
                run_exec(c[1], ident, board)
            except Exception as e:
                print("Traceback (most recent call last):\n%s: %s" % (type(e).__name__, e))
                return 1
            finally:
                os.chdir(here)
        elif c[:2] == ["fs", "cp"]:
            paths = [p for p in c[2:] if not p.startswith("-")]
            src, dst = local(paths[0], board), local(paths[1], board)
            if not os.path.exists(src):
                print("mpremote: cp: %s: No such file or directory" % paths[0], file=sys.stderr)
                return 1
            shutil.copyfile(src, dst)
            print("cp %s %s" % (paths[0], paths[1]))
        elif c[:2] == ["romfs", "deploy"]:
            part = rom_partition(board)
            with open(c[2], "rb") as f:
                image = f.read()
            if part is None or len(image) > len(part):
                print("ROMFS is not enabled on this device" if part is None else
                      "ROMFS image is too big for the target partition")
                return 1
            part[:len(image)] = image       # (mpremote erases, then writes 4 KiB chunks)
            part[len(image):-(-len(image) // BLOCK) * BLOCK] = bytes(-len(image) % BLOCK)
            with open(rom_file(board), "wb") as f:
                f.write(part)
            print("ROMFS image deployed")
        elif c[0] in ("reset", "soft-reset"):
            pass
        else:
            print("fake mpremote: unsupported %r" % c, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
