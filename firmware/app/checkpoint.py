"""The journal's checkpoint: the game's image after a given record, so that a resume replays
only the records after it.

Imported by app/journal.py only when a checkpoint is read or written, so that the journal
module, which the board imports before it draws the wiring check, stays small. The file
(ckpt/journal.ckpt: CKPT_HEAD bytes, then the image), and when it is trusted: docs/JOURNAL.md,
"Checkpoint".
"""
import os

from app.fsready import exists
from app.journalformat import (CKPT, CKPT_DIR, CKPT_FORMAT, CKPT_HEAD, CKPT_TMP, HEADER_SIZE,
                               RECORD_SIZE)
from cowboy import game

try:
    from binascii import crc32
except ImportError:             # CPython
    from zlib import crc32  # pyright: ignore[reportMissingImports]  CPython's


def load(j, c, c_size, f, size, tn, base, usable):
    """Restore `j`'s game from the checkpoint open in `c` (`c_size` bytes) if it
    fits the stream in journal.bin (`f`, `size` bytes) and the tail read (`tn`
    records after `base`, `usable`); the records it covers, or -1 (the game's
    buffers may hold parts of it then: start it again)."""
    head = bytearray(CKPT_HEAD)
    if (c.readinto(head) != CKPT_HEAD or head[0] != 0x43 or head[1] != 0x4B
            or head[2] != CKPT_FORMAT or head[3] != game.IMAGE_FORMAT
            or c_size != CKPT_HEAD + game.IMAGE_SIZE
            or bytes(head[8:16]) != bytes(j._head)):
        return -1
    k = _u32(head, 4)
    jk = min(k, (size - HEADER_SIZE) // RECORD_SIZE)    # in journal.bin
    if k < 1:
        return -1
    tail = j._tail
    work = bytearray(256)
    mv = memoryview(work)
    if usable and jk > base:
        # records in both files (a fold cut short): as in the replay, they must
        # be the tail's, or the tail is not used
        if jk - base > tn:
            usable = False
        else:
            f.seek(HEADER_SIZE + RECORD_SIZE * base)
            left = RECORD_SIZE * (jk - base)
            at = HEADER_SIZE
            while left and usable:
                n = f.readinto(mv[:min(256, left)])
                if not n or bytes(mv[:n]) != bytes(tail[at:at + n]):
                    usable = False
                at += n
                left -= n
    if jk < k and not (usable and base <= jk and k <= base + tn):
        return -1
    # the stream's first k records must be the ones the image was made from
    f.seek(0)
    r = _crc_read(f, HEADER_SIZE + RECORD_SIZE * jk, 0, mv)
    if r is None:
        return -1
    s, last = r
    if jk < k:
        i = HEADER_SIZE + RECORD_SIZE * (jk - base)
        e = HEADER_SIZE + RECORD_SIZE * (k - base)
        s = crc32(memoryview(tail)[i:e], s)
        last = tail[e - 1]
    if s != _u32(head, 16):
        return -1
    img = bytearray(game.IMAGE_HEAD)
    if c.readinto(img) != game.IMAGE_HEAD:
        return -1
    ic = crc32(img, crc32(memoryview(head)[:20]))
    for p in j.game.parts():
        c.readinto(p)
        ic = crc32(p, ic)
    if ic != _u32(head, 20) or not j.game.restore(img):
        return -1
    j._ck_crc = last
    j._ck_usable = usable
    j._sum = s
    j._sum_at = k
    return k


def write(j):
    """The checkpoint of `j` (Journal.checkpoint); True if written."""
    k = j.records
    try:
        s = _stream_sum(j, k)
        head = bytearray(CKPT_HEAD)
        head[0] = 0x43      # "C"
        head[1] = 0x4B      # "K"
        head[2] = CKPT_FORMAT
        head[3] = game.IMAGE_FORMAT
        _put32(head, 4, k)
        for i in range(HEADER_SIZE):
            head[8 + i] = j._head[i]
        _put32(head, 16, s)
        img = bytearray(game.IMAGE_HEAD)
        parts = j.game.image(img)
        ic = crc32(img, crc32(memoryview(head)[:20]))
        for p in parts:
            ic = crc32(p, ic)
        _put32(head, 20, ic)
        if not exists(j.root + CKPT_DIR):
            os.mkdir(j.root + CKPT_DIR)
        tmp = j.root + CKPT_TMP
        c = open(tmp, "wb")
        try:
            c.write(head)
            c.write(img)
            for p in parts:
                c.write(p)
        except OSError:
            c.close()
            raise
        c.close()
        os.rename(tmp, j.root + CKPT)
    except OSError:
        j._ck_at = k     # not due again before CKPT_EVERY more records
        return False
    j._ck_at = k
    return True


def _stream_sum(j, k):
    """CRC-32 of the stream's header and first k records (k = records): from the
    last one known, reading journal.bin's records since then, then the tail's."""
    s = j._sum
    at = j._sum_at
    if at < 0:
        s = crc32(j._head)
        at = 0
    base = j._base
    if at < base:
        f = open(j.path, "rb")
        f.seek(HEADER_SIZE + RECORD_SIZE * at)
        r = _crc_read(f, RECORD_SIZE * (base - at), s, memoryview(bytearray(256)))
        f.close()
        if r is None:
            raise OSError(5)        # journal.bin shorter than its records
        s = r[0]
        at = base
    i = HEADER_SIZE + RECORD_SIZE * (at - base)
    s = crc32(memoryview(j._tail)[i:HEADER_SIZE + RECORD_SIZE * (k - base)], s)
    j._sum = s
    j._sum_at = k
    return s


def _crc_read(f, left, s, mv):
    """The CRC-32 `s` carried over the next `left` bytes of `f`, read through `mv`
    (256 bytes at a time): (crc, the last byte), or None when the file ends first."""
    last = 0
    while left:
        n = f.readinto(mv[:min(256, left)])
        if not n:
            return None
        s = crc32(mv[:n], s)
        last = mv[n - 1]
        left -= n
    return s, last


def _u32(b, o):
    return b[o] << 24 | b[o + 1] << 16 | b[o + 2] << 8 | b[o + 3]


def _put32(b, o, v):
    b[o] = (v >> 24) & 0xFF
    b[o + 1] = (v >> 16) & 0xFF
    b[o + 2] = (v >> 8) & 0xFF
    b[o + 3] = v & 0xFF
