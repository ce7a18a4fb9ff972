"""Where the firmware's modules come from, decided once at start-up (boot.py imports it first).

Importing it puts the built-in modules the firmware uses into sys.modules, so that no import
searches the filesystem for them. setup() then puts CODE first on sys.path: ROM, the ROMFS image
of the project's MicroPython (the modules' bytecode runs from flash), when its CRC-32 holds; else
PACK (every compiled module and the recorded wiring checks in one file, on an official
MicroPython image) mounted at MOUNT as a read-only folder, when its CRC-32 holds; else LIB, the
separate .mpy files a deploy always leaves. NOTE says why an image or a pack there is not used
(main.py prints it: speak()). The costs, the checks and the layouts: docs/DEPLOY.md, "`make
build`", "The pack's layout" and "The project's MicroPython image".
"""
import sys

ROM = "/rom"                # where MicroPython mounts the ROMFS image
MOUNT = "/pack"
LIB = "/lib"
PACK = "pack.bin"
MAGIC = b"CWP2"
HEAD = 20                   # MAGIC and four numbers
ENTRY = 8                   # offset and size of one file
ROM_HEADER = b"\xd2\xcd\x31"  # a ROMFS image's first bytes
ROM_CHECK = b"\x01\x08CWR1"    # the image's last record, before its CRC-32 (tools/romfs.py)
BUILTINS = ("array", "binascii", "gc", "io", "json", "machine", "os", "time", "vfs")
_EROFS = 30                 # errno: a read-only file system
_ENOENT = 2
_PIECE = 255                # what import reads at a time (MP_STREAM_GET_BUFFER_SIZE)
CODE = LIB                  # the folder the firmware's modules are imported from
NOTE = None                 # why an image or a pack on the board is not used


def speak():
    """Say NOTE, if there is one, on the serial line (main.py calls this: what
    boot.py prints is lost on the Pico, before the USB host listens)."""
    if NOTE is not None:
        print(NOTE)


def builtin(name):
    """The module `name` already loaded, else the built-in one, or None: imported
    with an empty search path, so that no file of that name is looked for."""
    m = sys.modules.get(name)
    if m is not None:
        return m
    path = sys.path[:]
    sys.path.clear()
    try:
        return __import__(name)
    except ImportError:
        return None
    finally:
        sys.path.extend(path)


def keep_builtins():
    """Import BUILTINS into sys.modules (on import): later imports find them there."""
    for name in BUILTINS:
        m = builtin(name)
        if m is not None:
            sys.modules[name] = m


if sys.implementation.name == "micropython":
    keep_builtins()
import io  # noqa: E402
from binascii import crc32  # noqa: E402


def _u32(b, at):
    return int.from_bytes(bytes(b[at:at + 4]), "little")


class Pack:
    """PACK as a read-only MicroPython VFS. ValueError when the pack is not whole
    or a CRC-32 fails."""

    def __init__(self, f):
        head = f.read(HEAD)
        if len(head) != HEAD or head[:4] != MAGIC:
            raise ValueError("not a pack")
        n, count = _u32(head, 4), _u32(head, 8)
        self.base = HEAD + n + ENTRY * count
        self.size = self.base + _u32(head, 12)
        if f.seek(0, 2) != self.size:
            raise ValueError("pack cut short")
        f.seek(HEAD)
        buf = bytearray(4096)
        crc = crc32(head[4:16])
        while True:
            k = f.readinto(buf)
            if not k:
                break
            crc = crc32(buf if k == len(buf) else memoryview(buf)[:k], crc)
        if crc != _u32(head, 16):
            raise ValueError("pack damaged")
        f.seek(HEAD)
        names = f.read(n).decode().split("\n")
        self.table = f.read(ENTRY * count)
        # A faulty writer can make a pack whose CRC holds and whose parts disagree;
        # a few look-ups tell (a loop over every name would cost milliseconds on
        # the chip): the table's last file ends where the files do, and the names
        # are the count's files, each with its extension, then folders, none with one.
        last = ENTRY * (count - 1)
        if (count < 1 or count > len(names) or _u32(self.table, 0)
                or _u32(self.table, last) + _u32(self.table, last + 4) != _u32(head, 12)
                or "." not in names[count - 1]
                or any("." in name for name in names[count:])):
            raise ValueError("pack index and names disagree")
        self.files = {names[i]: i for i in range(count)}
        self.dirs = names[count:]
        self.file = f
        self.cwd = "/"

    def _field(self, i, k):
        return _u32(self.table, ENTRY * i + k)

    # ---- what import and the os module ask a file system ----------------------
    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        self.file.close()

    def stat(self, path):
        i = self.files.get(path)
        if i is not None:
            return (0x8000, 0, 0, 0, 0, 0, self._field(i, 4), 0, 0, 0)
        if path in ("/", "") or path in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        raise OSError(_ENOENT)       # import then tries the next name

    def open(self, path, mode):
        if "w" in mode or "a" in mode or "+" in mode:
            raise OSError(_EROFS)
        i = self.files.get(path)
        if i is None:
            raise OSError(_ENOENT)
        start = self.base + self._field(i, 0)
        return _File(self.file, start, start + self._field(i, 4), "b" not in mode)

    def ilistdir(self, path):
        p = path.rstrip("/") + "/"
        seen = []
        for name in list(self.files) + self.dirs:
            if name.startswith(p):
                part = name[len(p):].split("/")
                if part[0] not in seen:
                    seen.append(part[0])
                    i = self.files.get(name)
                    if len(part) > 1 or i is None:
                        yield (part[0], 0x4000, 0, 0)
                    else:
                        yield (part[0], 0x8000, 0, self._field(i, 4))

    def statvfs(self, path):
        blocks = (self.size + 4095) // 4096
        return (4096, 4096, blocks, 0, 0, len(self.files), 0, 0, 1, 255)   # 1: read-only

    def chdir(self, path):
        if path not in ("/", "") and path not in self.dirs:
            raise OSError(_ENOENT)
        self.cwd = path or "/"

    def getcwd(self):
        return self.cwd

    def mkdir(self, path):
        raise OSError(_EROFS)

    def rmdir(self, path):
        raise OSError(_EROFS)

    def remove(self, path):
        raise OSError(_EROFS)

    def rename(self, old, new):
        raise OSError(_EROFS)


class _File(io.IOBase):
    """One file of the pack, read straight from it: import takes it in 255-byte
    pieces (a copy of a whole module would leave holes in the heap that an 8 KB
    buffer later cannot find room in); tools read it as a file."""

    def __init__(self, f, start, end, text=False):
        self.file = f
        self.start = start
        self.pos = start
        self.end = end
        self.text = text

    def readinto(self, buf):
        n = min(len(buf), self.end - self.pos)
        if n <= 0:
            return 0
        self.file.seek(self.pos)
        n = self.file.readinto(memoryview(buf)[:n])
        self.pos += n
        return n

    def read(self, size=-1):
        left = self.end - self.pos
        buf = bytearray(left if size is None or size < 0 or size > left else size)
        n = self.readinto(buf)
        data = bytes(buf[:n])
        if self.text:
            try:
                return data.decode()
            except UnicodeError:
                pass
        return data

    def seek(self, offset, whence=0):
        base = (self.start, self.pos, self.end)[whence]
        self.pos = min(max(self.start, base + offset), self.end)
        return self.pos - self.start

    def tell(self):
        return self.pos - self.start

    def ioctl(self, request, arg):
        if request == 11:           # MP_STREAM_GET_BUFFER_SIZE: the reader's piece
            return _PIECE
        return 0                    # close and the rest: the pack stays open

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def rom_image():
    """The ROMFS partition's bytes (a memoryview of flash), or None when this
    MicroPython has no ROMFS."""
    try:
        import vfs
        dev = vfs.rom_ioctl(2, 0)       # the partition (an int: none)
    except (ImportError, AttributeError, OSError):
        return None
    return None if type(dev) is int else memoryview(dev)


def rom_fault(mv):
    """None when the ROMFS image in `mv` (its partition) is whole, else why not
    (tools/romfs.py writes the check record and the CRC-32 over what precedes it)."""
    if bytes(mv[:3]) != ROM_HEADER:
        return "no image"
    n = 0
    at = 3
    more = True
    last = min(8, len(mv))
    while more and at < last:   # the length: 7 bits a byte, high bit "more" (a few bytes)
        more = mv[at] & 0x80
        n = n << 7 | (mv[at] & 0x7F)
        at += 1
    end = at + n
    if more or end > len(mv) or n < len(ROM_CHECK) + 4:
        return "image cut short"
    at = end - 4 - len(ROM_CHECK)
    if bytes(mv[at:end - 4]) != ROM_CHECK or crc32(mv[:at]) != _u32(mv, end - 4):
        return "image damaged"
    return None


def setup(root="/", rom=None):
    """Choose CODE (ROM, the pack at MOUNT, or LIB under `root`) and put it first on
    sys.path, before the frozen modules, LIB and the root folder; returns CODE.
    `rom`: the ROMFS partition's bytes (default: this MicroPython's, rom_image())."""
    global CODE, NOTE
    import gc
    code = root + LIB[1:]
    mv = rom_image() if rom is None else memoryview(rom)
    if mv is not None:
        why = rom_fault(mv)
        if why is None:
            code = ROM
        else:
            _unmount(ROM)       # (MicroPython mounts any image whose header it reads)
            NOTE = ("fastimport: the ROMFS image is not used (%s); the firmware loads "
                    "from %s" % (why, code))
        mv = None
    if code != ROM:
        try:
            f = open(root + PACK, "rb")
        except OSError:
            f = None
        if f is not None:
            try:
                import vfs
                vfs.mount(Pack(f), MOUNT)
                code = MOUNT
            except Exception as e:  # any failure: the separate .mpy files, as without one
                f.close()
                NOTE = ("fastimport: %s not used (%s); the firmware loads from its .mpy "
                        "files" % (PACK, e))
    gc.collect()                # the checks' pieces, before any module is loaded
    CODE = code
    for p in ("", ROM, ROM + LIB, code):    # the root folder last, MicroPython's
        while p in sys.path:                # own ROMFS entries out
            sys.path.remove(p)
    sys.path.insert(0, code)
    sys.path.append("")
    return code


def _unmount(path):
    try:
        import vfs
        vfs.umount(path)
    except (ImportError, OSError):
        pass
