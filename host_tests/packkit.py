"""Damaged copies of pack.bin (firmware/fastimport.py), as flash wear or a bad
copy leaves them: the host tests and the emulated board's tests boot them."""
import fastimport

BLOCK = 4096                 # a flash sector: what a worn or half-erased block spoils
KINDS = ("zeroed-block", "erased-block", "names-one-short")


def _u32(b, at):
    return int.from_bytes(b[at:at + 4], "little")


def layout(data):
    """(index end, {path: (start, end)}) of a pack's files."""
    n, count = _u32(data, 4), _u32(data, 8)
    names = data[fastimport.HEAD:fastimport.HEAD + n].decode().split("\n")
    table = fastimport.HEAD + n
    base = table + fastimport.ENTRY * count
    files = {}
    for i in range(count):
        at = base + _u32(data, table + fastimport.ENTRY * i)
        files[names[i]] = (at, at + _u32(data, table + fastimport.ENTRY * i + 4))
    return base, files


def damaged(data, kind, path="/views/seat.mpy"):
    """`data` (a whole pack) with one kind of damage; the size stays the same.

    zeroed-block / erased-block: the 4 KB flash block that holds the middle of
    the file `path` reads 0x00 / 0xFF. names-one-short: a name in the middle is
    gone, so every later file would get its neighbour's bytes, and the header
    agrees (its lengths moved by as much); the CRCs are untouched, as in a bad
    copy of the index."""
    data = bytearray(data)
    if kind in ("zeroed-block", "erased-block"):
        start, end = layout(data)[1][path]
        b = (start + end) // 2 // BLOCK * BLOCK
        data[b:b + BLOCK] = (b"\0" if kind == "zeroed-block" else b"\xff") * BLOCK
        return bytes(data)
    if kind == "names-one-short":
        n, count = _u32(data, 4), _u32(data, 8)
        head = fastimport.HEAD
        names = bytes(data[head:head + n]).split(b"\n")
        gone = names.pop(count // 2)
        joined = b"\n".join(names)
        # the names shorter by one line; the table and the files moved up to
        # keep the header consistent, padded at the end to the same size
        out = data[:head] + joined + data[head + n:] + b"\0" * (len(gone) + 1)
        out[4:8] = len(joined).to_bytes(4, "little")
        out[12:16] = (_u32(data, 12) + len(gone) + 1).to_bytes(4, "little")
        return bytes(out)
    raise ValueError(kind)
