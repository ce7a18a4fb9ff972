"""The journal's bytes: the stream header, the 4-byte records, the tail file's header, their
CRC-8 chain, and the files they live in (journal.bin, and journal.tail of TAIL_SIZE bytes).
app/journal.py writes and reads them; app/checkpoint.py and tools/journal.py share them.

  header  8 bytes: b"CJ", version, players, opener (0-based), house rules, 0, crc8(bytes 0-6)
  record  4 bytes: kind << 20 | word as 24 bits big-endian, crc8(previous crc, 3 bytes)

Every field, the versions and the tail: docs/JOURNAL.md, "Format (versions 1 to 3)".
"""
from cowboy import houserules

from micropython import const

VERSION = const(3)     # the newest: 3 for a game with house rules (header byte 5)
SPLIT = const(2)       # 2: the stream split into journal.bin and journal.tail, no rules
OLDEST = const(1)      # 1: one file, journal.bin; the same records (read, then migrated)
HEADER_SIZE = const(8)
RECORD_SIZE = const(4)
TAIL_RECORDS = const(48)                        # records the tail holds
TAIL_SIZE = const(8 + 4 * 48)                   # 200 bytes: one 256-byte commit

ACTION = const(1)      # word: a rules-core action word (stroke facts, or a choice)
UNDO = const(2)
REDO = const(3)
WORD_MASK = const(0xFFFFF)

# What the first bytes of a file say about it (read_header's codes).
BAD = const(-1)        # not a journal, or its header is torn or corrupt
OLD = const(-2)        # a journal of another format version: archive it, never read it

JOURNAL = "journal.bin"
TAIL = "journal.tail"
TMP = "journal.tmp"
NAMES = "journal.names"   # the players' names (app/playernames.py), moved with the game
NAMES_TMP = "names.tmp"   # the names being replaced; deleted at start-up
NAMES_EXT = ".names"
CKPT_DIR = "ckpt"      # its own directory: its commits stay out of the root's metadata
CKPT = "ckpt/journal.ckpt"  # the game's image at a record (checkpoint), to resume quickly
CKPT_TMP = "ckpt/journal.tmp"   # the checkpoint being written; deleted at start-up
CKPT_FORMAT = const(1)
CKPT_HEAD = const(24)
CKPT_EVERY = const(200)     # records between checkpoints (docs/JOURNAL.md, "Checkpoint")


# CRC-8, polynomial 0x07, as a table (computing it at import costs some 35 ms on
# the RP2040); host_tests/test_journal_codec.py checks it against the polynomial.
_CRC = (
    b"\x00\x07\x0e\x09\x1c\x1b\x12\x15\x38\x3f\x36\x31\x24\x23\x2a\x2d"
    b"\x70\x77\x7e\x79\x6c\x6b\x62\x65\x48\x4f\x46\x41\x54\x53\x5a\x5d"
    b"\xe0\xe7\xee\xe9\xfc\xfb\xf2\xf5\xd8\xdf\xd6\xd1\xc4\xc3\xca\xcd"
    b"\x90\x97\x9e\x99\x8c\x8b\x82\x85\xa8\xaf\xa6\xa1\xb4\xb3\xba\xbd"
    b"\xc7\xc0\xc9\xce\xdb\xdc\xd5\xd2\xff\xf8\xf1\xf6\xe3\xe4\xed\xea"
    b"\xb7\xb0\xb9\xbe\xab\xac\xa5\xa2\x8f\x88\x81\x86\x93\x94\x9d\x9a"
    b"\x27\x20\x29\x2e\x3b\x3c\x35\x32\x1f\x18\x11\x16\x03\x04\x0d\x0a"
    b"\x57\x50\x59\x5e\x4b\x4c\x45\x42\x6f\x68\x61\x66\x73\x74\x7d\x7a"
    b"\x89\x8e\x87\x80\x95\x92\x9b\x9c\xb1\xb6\xbf\xb8\xad\xaa\xa3\xa4"
    b"\xf9\xfe\xf7\xf0\xe5\xe2\xeb\xec\xc1\xc6\xcf\xc8\xdd\xda\xd3\xd4"
    b"\x69\x6e\x67\x60\x75\x72\x7b\x7c\x51\x56\x5f\x58\x4d\x4a\x43\x44"
    b"\x19\x1e\x17\x10\x05\x02\x0b\x0c\x21\x26\x2f\x28\x3d\x3a\x33\x34"
    b"\x4e\x49\x40\x47\x52\x55\x5c\x5b\x76\x71\x78\x7f\x6a\x6d\x64\x63"
    b"\x3e\x39\x30\x37\x22\x25\x2c\x2b\x06\x01\x08\x0f\x1a\x1d\x14\x13"
    b"\xae\xa9\xa0\xa7\xb2\xb5\xbc\xbb\x96\x91\x98\x9f\x8a\x8d\x84\x83"
    b"\xde\xd9\xd0\xd7\xc2\xc5\xcc\xcb\xe6\xe1\xe8\xef\xfa\xfd\xf4\xf3")


def crc8(crc, buf, start, n):
    """CRC-8 of buf[start:start+n] continued from `crc` (no slicing)."""
    for i in range(start, start + n):
        crc = _CRC[crc ^ buf[i]]
    return crc


def write_header(buf, players, opener, rules=0):
    """Fill buf[0:8] with a header; returns its CRC (the seed of the record chain).
    `rules`: the game's house rules mask (cowboy.houserules)."""
    buf[0] = 0x43   # "C"
    buf[1] = 0x4A   # "J"
    buf[2] = VERSION if rules else SPLIT
    buf[3] = players
    buf[4] = opener
    buf[5] = rules
    buf[6] = 0
    c = crc8(0, buf, 0, 7)
    buf[7] = c
    return c


def read_header(buf, n):
    """`players * 16 + opener` from a header, or BAD / OLD; the house rules of
    a good header are `header_rules(buf)`.

    `n` is how many bytes of buf were read from the file. Versions OLDEST to
    VERSION have the same records; buf[2] says which one it is.
    """
    if n < 3 or buf[0] != 0x43 or buf[1] != 0x4A:
        return BAD
    if buf[2] < OLDEST or buf[2] > VERSION:
        return OLD
    if n < HEADER_SIZE or crc8(0, buf, 0, 7) != buf[7]:
        return BAD
    players = buf[3]
    opener = buf[4]
    if players < 2 or players > 8 or opener >= players or buf[6]:
        return BAD
    if buf[5] > houserules.ALL or buf[5] and buf[2] != VERSION:
        return BAD
    return players * 16 + opener


def header_rules(buf):
    """The house rules mask of a header read_header() accepted (0 in version 1)."""
    return buf[5]


def header_crc(buf):
    return buf[7]


def write_record(buf, kind, word, crc):
    """Fill buf[0:4] with a record; returns the chain's new CRC."""
    v = kind << 20 | (word & WORD_MASK)
    buf[0] = (v >> 16) & 0xFF
    buf[1] = (v >> 8) & 0xFF
    buf[2] = v & 0xFF
    c = crc8(crc, buf, 0, 3)
    buf[3] = c
    return c


def record_value(buf, at):
    """kind << 20 | word of the record at buf[at:], unchecked (one the journal
    has already read and accepted)."""
    return buf[at] << 16 | buf[at + 1] << 8 | buf[at + 2]


def read_record(buf, crc):
    """kind << 20 | word of the record in buf[0:4] following `crc`, or -1 if corrupt."""
    if crc8(crc, buf, 0, 3) != buf[3]:
        return -1
    v = buf[0] << 16 | buf[1] << 8 | buf[2]
    kind = v >> 20
    if kind < ACTION or kind > REDO:
        return -1
    if kind != ACTION and v & WORD_MASK:
        return -1
    return v


def write_tail_header(buf, n, base, seed):
    """Fill buf[0:8] with a tail header after `base` records, holding `n`; `seed` is
    the stream header's CRC, so a tail fits only the journal.bin it was written for."""
    buf[0] = 0x43   # "C"
    buf[1] = 0x54   # "T"
    buf[2] = SPLIT
    buf[3] = n
    buf[4] = (base >> 16) & 0xFF
    buf[5] = (base >> 8) & 0xFF
    buf[6] = base & 0xFF
    buf[7] = crc8(seed, buf, 0, 7)


def read_tail_header(buf, got, seed):
    """(n, base) of a tail of `got` bytes read into buf, or (-1, 0) if it is not one.

    A tail cut short keeps the whole records it still holds."""
    if (got < HEADER_SIZE or buf[0] != 0x43 or buf[1] != 0x54 or buf[2] != SPLIT
            or crc8(seed, buf, 0, 7) != buf[7] or buf[3] > TAIL_RECORDS):
        return -1, 0
    return min(buf[3], (got - HEADER_SIZE) // RECORD_SIZE), buf[4] << 16 | buf[5] << 8 | buf[6]


def joined(body, tail):
    """The game as one stream (header + records, docs/JOURNAL.md) from the bytes of
    journal.bin and journal.tail (b"" if missing), as `Journal.resume` reads them;
    the records are not checked here (tools/journal.py replays them)."""
    if len(body) < HEADER_SIZE or tail is None or len(tail) < HEADER_SIZE:
        return bytes(body)
    n, base = read_tail_header(bytearray(tail[:HEADER_SIZE]), len(tail), body[7])
    count = (len(body) - HEADER_SIZE) // RECORD_SIZE
    if n < 0 or base > count:
        return bytes(body)
    end = HEADER_SIZE + RECORD_SIZE * count
    over = count - base                 # records in both (a fold cut before its end)
    t = HEADER_SIZE + RECORD_SIZE * min(over, n)
    if bytes(body[HEADER_SIZE + RECORD_SIZE * base:end]) != bytes(tail[HEADER_SIZE:t]):
        return bytes(body)
    return bytes(body[:end]) + bytes(tail[t:HEADER_SIZE + RECORD_SIZE * n])


def apply_record(game, v):
    """Apply a decoded record to the rules core; 0 or its reject code."""
    kind = v >> 20
    if kind == UNDO:
        return game.undo()
    if kind == REDO:
        return game.redo()
    return game.apply(v & WORD_MASK)
