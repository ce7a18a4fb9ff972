"""ROMFS images: the scoreboard's compiled modules as MicroPython's read-only,
memory-mapped filesystem (a partition of the project's MicroPython image,
docs/DEPLOY.md "The project's MicroPython image"), and the UF2 that carries one.

    python3 tools/romfs.py list IMAGE        # the files of an image, and whether its check holds

An image is MicroPython's ROMFS format (extmod/vfs_rom.c): one filesystem record
holding directory, file and data records, each a kind and a length as
variable-length unsigned ints, then its payload. Its last record is ours: a
padding record (kind 1, which MicroPython skips) holding CHECK_MAGIC and the
CRC-32 of every byte before it, so that the board (firmware/fastimport.py) uses
no image that a cut-short write or a worn block has changed.
"""
import os
import struct
import sys
import zlib

HEADER = b"\xd2\xcd\x31"        # the filesystem record's kind, 0x14a6b1, encoded
PADDING, DATA, DIRECTORY, FILE = 1, 2, 4, 5
CHECK_MAGIC = b"CWR1"
CHECK_RECORD = bytes((PADDING, len(CHECK_MAGIC) + 4)) + CHECK_MAGIC   # then the CRC
CHECK_SIZE = len(CHECK_RECORD) + 4

# UF2 (Microsoft's USB flashing format, as the RP2040's boot ROM reads it)
UF2_MAGIC = (0x0A324655, 0x9E5D5157)
UF2_END = 0x0AB16F30
UF2_FAMILY = 0x00002000       # the block carries a family id
RP2040_FAMILY = 0xE48BFF56
XIP_BASE = 0x10000000
PAYLOAD = 256


class RomfsError(Exception):
    """An image or a UF2 that cannot be used; str() says why."""


def _uint(v):
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, 0x80 | (v & 0x7F))
        v >>= 7
    return bytes(out)


def _record(kind, payload):
    return _uint(kind) + _uint(len(payload)) + payload


def _entries(folder, skip):
    out = b""
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name in skip or name.startswith("."):
            continue
        nm = name.encode()
        if os.path.isdir(path):
            out += _record(DIRECTORY, _uint(len(nm)) + nm + _entries(path, ()))
        else:
            with open(path, "rb") as f:
                out += _record(FILE, _uint(len(nm)) + nm + _record(DATA, f.read()))
    return out


def image(folder, skip=(), extra=()):
    """The image of every file under `folder` (names at its top in `skip` left out;
    `extra`: more (name, bytes) files at the top), its check record last."""
    payload = _entries(folder, set(skip))
    for name, data in extra:
        nm = name.encode()
        payload += _record(FILE, _uint(len(nm)) + nm + _record(DATA, data))
    length = _uint(len(payload) + CHECK_SIZE)
    if (len(HEADER) + len(length) + len(payload) + CHECK_SIZE) % 2:
        length = b"\x80" + length       # the whole record must be of even size
    head = HEADER + length + payload + CHECK_RECORD
    return head + struct.pack("<I", zlib.crc32(head[:-len(CHECK_RECORD)]))


def _read_uint(data, at):
    v = 0
    while True:
        if at >= len(data):
            raise RomfsError("the image ends inside a record")
        b = data[at]
        at += 1
        v = v << 7 | (b & 0x7F)
        if not b & 0x80:
            return v, at


def size(data):
    """The image's length from its header (data: the image or its whole partition)."""
    if bytes(data[:3]) != HEADER:
        raise RomfsError("no ROMFS header")
    n, at = _read_uint(data, 3)
    return at + n


def check(data):
    """None when the image in `data` (possibly followed by the rest of its
    partition) is whole, else why not: the same test as firmware/fastimport.py."""
    try:
        end = size(data)
    except RomfsError as e:
        return str(e)
    if end > len(data) or end < CHECK_SIZE:
        return "the image is cut short"
    at = end - CHECK_SIZE
    if bytes(data[at:at + len(CHECK_RECORD)]) != CHECK_RECORD:
        return "no check record at its end"
    crc = struct.unpack("<I", bytes(data[end - 4:end]))[0]
    if zlib.crc32(bytes(data[:at])) != crc:
        return "its CRC-32 does not hold"
    return None


def files(data, at=None, end=None, prefix=""):
    """[(path, bytes)] of the image's files, in order."""
    if at is None:
        end = size(data)
        at = end - _read_uint(data, 3)[0]
    out = []
    while at < end:
        kind, at = _read_uint(data, at)
        n, at = _read_uint(data, at)
        body_end = at + n
        if kind in (DIRECTORY, FILE):
            k, p = _read_uint(data, at)
            name = bytes(data[p:p + k]).decode()
            p += k
            if kind == DIRECTORY:
                out += files(data, p, body_end, prefix + name + "/")
            else:
                while p < body_end:
                    rk, p = _read_uint(data, p)
                    rn, p = _read_uint(data, p)
                    if rk == DATA:
                        out.append((prefix + name, bytes(data[p:p + rn])))
                    p += rn
        at = body_end
    return out


# ---- UF2 ------------------------------------------------------------------------------

def uf2_blocks(data):
    """[(flash address, 256 bytes)] of a UF2 file's blocks."""
    if len(data) % 512:
        raise RomfsError("a UF2 file is made of 512-byte blocks")
    out = []
    for i in range(0, len(data), 512):
        m0, m1, flags, addr, n = struct.unpack("<IIIII", data[i:i + 20])
        if (m0, m1) != UF2_MAGIC or struct.unpack("<I", data[i + 508:i + 512])[0] != UF2_END:
            raise RomfsError("block %d is not a UF2 block" % (i // 512))
        out.append((addr, data[i + 32:i + 32 + n]))
    return out


def uf2(blocks):
    """A UF2 file of [(flash address, up to 256 bytes)] for the RP2040."""
    out = bytearray()
    for i, (addr, payload) in enumerate(blocks):
        out += struct.pack("<8I", UF2_MAGIC[0], UF2_MAGIC[1], UF2_FAMILY, addr,
                           len(payload), i, len(blocks), RP2040_FAMILY)
        out += payload + bytes(476 - len(payload)) + struct.pack("<I", UF2_END)
    return bytes(out)


def with_image(firmware, rom, base, room):
    """The UF2 `firmware` (bytes) with the image `rom` written at flash offset `base`,
    a partition of `room` bytes; the firmware must end below it."""
    blocks = uf2_blocks(firmware)
    top = max(a + len(p) for a, p in blocks) - XIP_BASE
    if top > base:
        raise RomfsError("the firmware (up to 0x%x) runs into the ROMFS partition at 0x%x"
                         % (top, base))
    if len(rom) > room:
        raise RomfsError("the image (%d bytes) is larger than its partition (%d)"
                         % (len(rom), room))
    padded = rom + b"\xff" * (-len(rom) % PAYLOAD)
    blocks += [(XIP_BASE + base + i, padded[i:i + PAYLOAD])
               for i in range(0, len(padded), PAYLOAD)]
    return uf2(blocks)


def main(argv):
    import options      # (the command line only: mpimage.py's checkout copies this module)
    p = options.argparser("romfs.py", __doc__, short="romfs.py list IMAGE")
    p.add_argument("command", choices=["list"])
    p.add_argument("image")
    args = p.read(argv)
    if type(args) is int:
        return args
    try:
        with open(args.image, "rb") as f:
            data = f.read()
        for path, body in files(data):
            print("%8d  %s" % (len(body), path))
    except (OSError, RomfsError) as e:
        print("romfs.py: %s: %s" % (args.image, e), file=sys.stderr)
        return 2
    why = check(data)
    print("check: " + ("holds" if why is None else why))
    return 0 if why is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
