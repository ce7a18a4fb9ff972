"""Faster imports at start-up on the Pico (boot.py imports it first, then setup()).

Importing a module costs the RP2040 some 4-10 ms before its code even loads:
for `display.views` MicroPython asks littlefs whether display/views is a folder,
then display/views.py, then display/views.mpy, then opens it; and on every
`import time` (or machine, os, array, json) it first looks for a time.py or
time.mpy in each folder of sys.path, since a file may replace a built-in module.
This module removes both costs:

- importing it imports the built-in modules the firmware uses once, with an
  empty search path, into sys.modules, where every later import finds them;
- setup() mounts PACK, every compiled module of the firmware in one file
  (tools/deploy.py build writes it; the OLED builds' recorded wiring checks,
  display/hello.py, are in it too), at MOUNT, first on sys.path: it answers
  those look-ups from a table in RAM and reads each module straight from the
  one open file. The modules also stay on the board as separate .mpy files:
  without a complete pack (none, or a copy cut short) they are imported from
  there as before.

PACK layout, numbers as 4-byte little-endian: the length of the names, the
number of modules, the length of the modules; the names (UTF-8, one per line:
each module's path from the firmware root with a leading "/", then the folders);
an offset (from the end of this table) and a size per module; the modules.
"""
import sys

MOUNT = "/pack"
PACK = "pack.bin"
BUILTINS = ("array", "io", "json", "machine", "os", "time", "vfs")


def keep_builtins():
    """Import BUILTINS with an empty search path into sys.modules (on import)."""
    path = sys.path[:]
    sys.path.clear()
    try:
        for name in BUILTINS:
            try:
                sys.modules[name] = __import__(name)
            except ImportError:
                pass
    finally:
        sys.path.extend(path)


if sys.implementation.name == "micropython":
    keep_builtins()
import io  # noqa: E402


class Pack:
    """A read-only MicroPython VFS over PACK: the methods import uses. (Building
    a str costs tens of microseconds here, so the index makes one per name.)"""

    def __init__(self, f):
        head = f.read(12)
        n = int.from_bytes(head[0:4], "little")
        count = int.from_bytes(head[4:8], "little")
        self.base = 12 + n + 8 * count
        if f.seek(0, 2) != self.base + int.from_bytes(head[8:12], "little"):
            raise ValueError("incomplete pack")
        f.seek(12)
        names = f.read(n).decode().split("\n")
        self.table = f.read(8 * count)
        self.files = {names[i]: i for i in range(count)}
        self.dirs = names[count:]
        self.f = f

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        self.f.close()

    def _field(self, i, k):
        return int.from_bytes(self.table[8 * i + k:8 * i + k + 4], "little")

    def stat(self, path):
        i = self.files.get(path)
        if i is not None:
            return (0x8000, 0, 0, 0, 0, 0, self._field(i, 4), 0, 0, 0)
        if path == "/" or path in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        raise OSError(2)        # ENOENT: import then tries the next name

    def open(self, path, mode):
        i = self.files.get(path)
        if i is None or "w" in mode:
            raise OSError(2)
        start = self.base + self._field(i, 0)
        return _Module(self.f, start, start + self._field(i, 4))

    def ilistdir(self, path):
        p = path.rstrip("/") + "/"
        seen = []
        for name in list(self.files) + self.dirs:
            if name.startswith(p):
                part = name[len(p):].split("/")
                if part[0] not in seen:
                    seen.append(part[0])
                    yield (part[0], 0x4000 if len(part) > 1 or name in self.dirs else 0x8000, 0)


class _Module(io.IOBase):
    """One module of the pack as a stream: import reads it in 255-byte pieces
    straight from the pack (a copy of the whole module would leave holes in the
    heap that an 8 KB buffer later cannot find room in)."""

    def __init__(self, f, start, end):
        self.f = f
        self.pos = start
        self.end = end

    def readinto(self, buf):
        n = min(len(buf), self.end - self.pos)
        if n <= 0:
            return 0
        self.f.seek(self.pos)
        n = self.f.readinto(memoryview(buf)[:n])
        self.pos += n
        return n

    def ioctl(self, request, arg):
        if request == 11:           # MP_STREAM_GET_BUFFER_SIZE: the reader's piece
            return 255
        return 0                    # close and the rest: the pack stays open

    def close(self):
        pass


def setup(root="/"):
    """Mount the pack under root when it is complete; returns True when the
    firmware's modules are imported from it."""
    import vfs
    try:
        f = open(root + PACK, "rb")
    except OSError:
        return False
    try:
        pack = Pack(f)
        vfs.mount(pack, MOUNT)
    except (OSError, ValueError):
        f.close()
        return False
    sys.path.insert(0, MOUNT)
    return True
