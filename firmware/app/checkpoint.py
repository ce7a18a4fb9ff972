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


def load(play, stream_head, tail, c, c_size, f, size, tn, base, usable):
    """Restore the game `play` from the checkpoint open in `c` (`c_size` bytes) if
    it fits the stream of header `stream_head` in journal.bin (`f`, `size` bytes)
    and the tail image `tail` read (`tn` records after `base`, `usable`). Returns
    (the records it covers, the chain's CRC-8 at the last of them, whether the tail
    is used, the stream's CRC-32 up to it), or None (the game's buffers may hold
    parts of it then: start it again)."""
    head = bytearray(CKPT_HEAD)
    if (c.readinto(head) != CKPT_HEAD or head[0] != 0x43 or head[1] != 0x4B
            or head[2] != CKPT_FORMAT or head[3] != game.IMAGE_FORMAT
            or c_size != CKPT_HEAD + game.IMAGE_SIZE
            or bytes(head[8:16]) != bytes(stream_head)):
        return None
    k = _u32(head, 4)
    jk = min(k, (size - HEADER_SIZE) // RECORD_SIZE)    # in journal.bin
    if k < 1:
        return None
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
        return None
    # the stream's first k records must be the ones the image was made from
    f.seek(0)
    r = _crc_read(f, HEADER_SIZE + RECORD_SIZE * jk, 0, mv)
    if r is None:
        return None
    s, last = r
    if jk < k:
        i = HEADER_SIZE + RECORD_SIZE * (jk - base)
        e = HEADER_SIZE + RECORD_SIZE * (k - base)
        s = crc32(memoryview(tail)[i:e], s)
        last = tail[e - 1]
    if s != _u32(head, 16):
        return None
    img = bytearray(game.IMAGE_HEAD)
    if c.readinto(img) != game.IMAGE_HEAD:
        return None
    ic = crc32(img, crc32(memoryview(head)[:20]))
    for p in play.parts():
        c.readinto(p)
        ic = crc32(p, ic)
    if ic != _u32(head, 20) or not play.restore(img):
        return None
    return k, last, usable, s


def write(root, play, stream_head, k, s):
    """ckpt/journal.ckpt under `root`: the image of the game `play` at record k of
    the stream of header `stream_head`, whose CRC-32 up to that record is `s` (a
    tmp file, then renamed over the old one). OSError when it could not be written."""
    head = bytearray(CKPT_HEAD)
    head[0] = 0x43      # "C"
    head[1] = 0x4B      # "K"
    head[2] = CKPT_FORMAT
    head[3] = game.IMAGE_FORMAT
    _put32(head, 4, k)
    for i in range(HEADER_SIZE):
        head[8 + i] = stream_head[i]
    _put32(head, 16, s)
    img = bytearray(game.IMAGE_HEAD)
    parts = play.image(img)
    ic = crc32(img, crc32(memoryview(head)[:20]))
    for p in parts:
        ic = crc32(p, ic)
    _put32(head, 20, ic)
    if not exists(root + CKPT_DIR):
        os.mkdir(root + CKPT_DIR)
    tmp = root + CKPT_TMP
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
    os.rename(tmp, root + CKPT)


def stream_sum(path, stream_head, tail, base, k, s, at):
    """CRC-32 of the stream's header `stream_head` and first k records, carried on
    from `s`, the sum up to record `at` (-1: none known): reading journal.bin
    (`path`) from there up to `base`, then the tail image `tail`'s records."""
    if at < 0:
        s = crc32(stream_head)
        at = 0
    if at < base:
        f = open(path, "rb")
        f.seek(HEADER_SIZE + RECORD_SIZE * at)
        r = _crc_read(f, RECORD_SIZE * (base - at), s, memoryview(bytearray(256)))
        f.close()
        if r is None:
            raise OSError(5)        # journal.bin shorter than its records
        s = r[0]
        at = base
    i = HEADER_SIZE + RECORD_SIZE * (at - base)
    return crc32(memoryview(tail)[i:HEADER_SIZE + RECORD_SIZE * (k - base)], s)


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
