"""The current game on flash: a header, then one 4-byte record per action.

A power cut loses at most the record being written. littlefs commits a file only
at flush/close, and every record carries a CRC-8 chained from the header and the
records before it, so a torn, stale or corrupt tail is detected on boot, dropped,
and the journal rewritten to its good prefix before anything else is appended.

Record stream (docs/JOURNAL.md; the export format):
  header  8 bytes: b"CJ", version, players, opener (0-based), house rules, 0,
          crc8(bytes 0-6); version 2 (rules byte 0) for a game without house
          rules, VERSION 3 for one with them, so that firmware that knows only
          version 2 archives such a game instead of replaying it without its
          rules; version 1 (one file, no tail, older firmware) is read and migrated
  record  4 bytes: kind << 20 | word as 24 bits big-endian, crc8(previous crc, 3 bytes)
Kinds: ACTION (word = rules-core action word: a stroke's facts or a choice), UNDO,
REDO (word 0). Replaying the records through `Game` gives the state and the redo
list exactly as they were.

On flash the stream is split in two files, so that an action costs one small
littlefs metadata commit instead of a 4 KiB block erase (docs/JOURNAL.md, "Flash
wear"): `journal.bin` holds the header and the first `base` records; `journal.tail`
is a fixed-size file (TAIL_SIZE bytes, small enough for littlefs to keep it inline
in the directory's metadata) with its own 8-byte header (b"CT", 2, n, base as
24 bits, crc8 of bytes 0-6 seeded with the stream header's CRC) and room for
TAIL_RECORDS records, of which the first n are the records after `base`. Each
action rewrites the whole tail (one commit); when it is full its records are
appended to journal.bin in one write (one erase) and the tail starts again empty.

Appending is allocation-free: both files stay open and the records are built in
preallocated buffers. An accepted action is applied to the game at once and its
record is held (`pending`) until the main loop calls `sync()`, after the displays
show the action: a flash write (an erase stops the chip for 45 ms or more) never
delays what the players see. At most one action is ever shown and not yet on
flash; a power cut loses at most that one.

A checkpoint (ckpt/journal.ckpt, app/checkpoint.py) holds the game's image after
some record, so that resume() replays only the records after it; it is used only
when the stream still holds, byte for byte, the records it was made from.

Call `prepare(root)` first thing at start-up, before anything reads a file.
"""
import os

from app.fsready import GAMES, prepare  # noqa: F401  (prepare: re-exported)
from cowboy import facts as F

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

VERSION = const(3)     # the newest: 3 for a game with house rules (header byte 5)
SPLIT = const(2)       # 2: the stream split into journal.bin and journal.tail, no rules
OLDEST = const(1)      # 1: one file, journal.bin; the same records (read, then migrated)
_RULES_ALL = const(15)  # cowboy.houserules.ALL
HEADER_SIZE = const(8)
RECORD_SIZE = const(4)
TAIL_RECORDS = const(48)                        # records the tail holds
TAIL_SIZE = const(8 + 4 * 48)                   # 200 bytes: one 256-byte commit

ACTION = const(1)      # word: a rules-core action word (stroke facts, or a choice)
UNDO = const(2)
REDO = const(3)
_WORD_MASK = const(0xFFFFF)

# What the first bytes of a file say about it (read_header's codes).
BAD = const(-1)        # not a journal, or its header is torn or corrupt
OLD = const(-2)        # a journal of another format version: archive it, never read it

JOURNAL = "journal.bin"
TAIL = "journal.tail"
TMP = "journal.tmp"
CKPT_DIR = "ckpt"      # its own directory: its commits stay out of the root's metadata
CKPT = "ckpt/journal.ckpt"  # the game's image at a record (checkpoint), to resume quickly
CKPT_TMP = "ckpt/journal.tmp"   # the checkpoint being written; deleted at start-up
CKPT_FORMAT = const(1)
CKPT_HEAD = const(24)
CKPT_EVERY = const(200)     # records between checkpoints (docs/JOURNAL.md, "Checkpoint")
FINISHED = ".jnl"      # archive suffixes: a finished game,
PARTIAL = ".part"      # a game abandoned for a new one,
FOREIGN = ".old"       # a journal of another version or unreadable
KEEP_FINISHED = const(12)
KEEP_OTHER = const(4)


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
    if buf[5] > _RULES_ALL or buf[5] and buf[2] != VERSION:
        return BAD
    return players * 16 + opener


def header_rules(buf):
    """The house rules mask of a header read_header() accepted (0 in version 1)."""
    return buf[5]


def header_crc(buf):
    return buf[7]


def write_record(buf, kind, word, crc):
    """Fill buf[0:4] with a record; returns the chain's new CRC."""
    v = kind << 20 | (word & _WORD_MASK)
    buf[0] = (v >> 16) & 0xFF
    buf[1] = (v >> 8) & 0xFF
    buf[2] = v & 0xFF
    c = crc8(crc, buf, 0, 3)
    buf[3] = c
    return c


def read_record(buf, crc):
    """kind << 20 | word of the record in buf[0:4] following `crc`, or -1 if corrupt."""
    if crc8(crc, buf, 0, 3) != buf[3]:
        return -1
    v = buf[0] << 16 | buf[1] << 8 | buf[2]
    kind = v >> 20
    if kind < ACTION or kind > REDO:
        return -1
    if kind != ACTION and v & _WORD_MASK:
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


def _exists(path):
    return _size(path) >= 0


def _size(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return -1


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def apply_record(game, v):
    """Apply a decoded record to the rules core; 0 or its reject code."""
    kind = v >> 20
    if kind == UNDO:
        return game.undo()
    if kind == REDO:
        return game.redo()
    return game.apply(v & _WORD_MASK)


class Journal:
    """The game in progress on flash. `root` is a directory ending in "/".

    Use: `prepare(root)` and `resume()` once at start-up, then `shot()`, `choice()`,
    `undo()`, `redo()` instead of the same calls on the game, `sync()` once the
    displays show the action, and `new_game()` to start another.
    """

    def __init__(self, game, root="/"):
        self.game = game
        self.root = root
        self.path = root + JOURNAL
        self.failed = False       # the last write to flash failed (flash full, ...)
        self.records = 0          # records in the journal (journal.bin and the tail)
        self.dropped = 0          # bytes of records dropped at the last resume
        self.archived = None      # where resume() moved an unusable journal, if it did
        self._f = None            # journal.bin, open for appending
        self._t = None            # journal.tail, open for writing
        self._buf = bytearray(HEADER_SIZE)
        self._rec = bytearray(RECORD_SIZE)     # the record being appended
        self._tail = bytearray(TAIL_SIZE)      # the tail file's image
        self._full = memoryview(self._tail)[HEADER_SIZE:]   # its records, to fold
        self._crc = 0             # CRC of the last record (the chain)
        self._seed = 0            # the header's CRC (seeds the tail header)
        self._base = 0            # records in journal.bin before the tail's
        self._n = 0               # records in the tail
        self._seq = -1
        self._head = bytearray(HEADER_SIZE)    # the stream header (the checkpoint's key)
        self._ck_at = 0           # records at the last checkpoint written or tried
        self._sum = 0             # CRC-32 of the stream's header and first _sum_at records
        self._sum_at = -1         # (-1: none known yet)
        self._ck_crc = 0          # what the checkpoint found: the chain's CRC at its
        self._ck_usable = False   # record, whether the tail is used
        self.pending = False      # an action's record waits for sync()
        self._kind = 0
        self._word = 0

    # ---- start-up ------------------------------------------------------------
    def resume(self, players=2, opener=0, rules=0):
        """Replay the journal into the game; start a new game if there is none.

        Returns the number of actions replayed. A tail that is torn, corrupt or
        refused by the rules core is dropped; a journal of another format version or
        with an unreadable header is archived and a new game started with
        `players`, `opener` and `rules`; a version-1 journal is rewritten as
        version 2. A resumed game keeps the house rules of its header, whatever
        `rules` says.
        """
        self.close()
        self.dropped = 0
        self.archived = None
        try:
            return self._resume(players, opener, rules)
        except OSError:
            # Flash failing or full: play on in memory, the panel shows the note.
            self.close()
            self.failed = True
            return self.records

    def _resume(self, players, opener, rules):
        prepare(self.root)              # the loop calls it earlier; harmless twice
        _remove(self.root + TMP)
        _remove(self.root + CKPT_TMP)
        self.records = 0
        self._ck_at = 0
        game = self.game
        buf = self._buf
        rec = self._rec
        try:
            f = open(self.path, "rb")
        except OSError:
            self.new_game(players, opener, rules, archive=False)
            return 0
        n = f.readinto(buf)
        h = read_header(buf, n)
        if h >= 0 and buf[2] == OLDEST:
            f.close()
            self._migrate()             # version 1: the same records, re-chained
            f = open(self.path, "rb")
            n = f.readinto(buf)
            h = read_header(buf, n)
        if h < 0:
            f.close()
            if h == BAD and n < HEADER_SIZE:
                _remove(self.path)      # a header never completed: nothing to keep
            else:
                self.archived = self._archive(FOREIGN)
            self.new_game(players, opener, rules, archive=False)
            return 0
        game.new_game(h >> 4, h & 15, header_rules(buf))
        seed = header_crc(buf)
        self._seed = seed
        self._keep_header(buf)
        tn, base = self._read_tail(seed)
        usable = tn >= 0
        crc = seed
        good = HEADER_SIZE
        count = 0
        tail = self._tail
        size = f.seek(0, 2)
        # the game's image at record ck, if a checkpoint fits this stream: then only
        # the records after it go through the rules core
        ck = self._from_ckpt(f, size, tn, base, usable)
        if ck > 0:
            count = min(ck, (size - HEADER_SIZE) // RECORD_SIZE)
            good = HEADER_SIZE + RECORD_SIZE * count
            crc = self._ck_crc
            usable = self._ck_usable
        f.seek(good)
        while True:
            if f.readinto(rec) != RECORD_SIZE:
                break
            v = read_record(rec, crc)
            if v < 0 or apply_record(game, v):
                break
            crc = rec[3]
            good += RECORD_SIZE
            count += 1
            if usable and count > base:
                # a record in both files (a fold cut short): the same bytes, or no tail
                i = HEADER_SIZE + RECORD_SIZE * (count - base - 1)
                if (count - base > tn or rec[0] != tail[i] or rec[1] != tail[i + 1]
                        or rec[2] != tail[i + 2] or rec[3] != tail[i + 3]):
                    usable = False
        f.close()
        dropped = self.dropped + size - good
        used = 0
        if usable and base <= count:
            # the tail's records after journal.bin's, moved to the front of the image
            k = count - base
            while k + used < tn:
                i = HEADER_SIZE + RECORD_SIZE * (k + used)
                if base + k + used >= ck:   # (the checkpoint's own are known good)
                    v = read_record(memoryview(tail)[i:i + RECORD_SIZE], crc)
                    if v < 0 or apply_record(game, v):
                        break
                crc = tail[i + 3]
                j = HEADER_SIZE + RECORD_SIZE * used
                for b in range(RECORD_SIZE):
                    tail[j + b] = tail[i + b]
                used += 1
            dropped += RECORD_SIZE * (tn - k - used)
        elif tn > 0:
            dropped += RECORD_SIZE * tn
        if size != good:
            self._truncate(good)
        self.dropped = dropped
        self._crc = crc
        self._base = count
        self._n = used
        self.records = count + used
        if ck <= 0:
            self._sum_at = -1           # the stream's CRC-32: from the header on
        self._ck_at = ck
        self._open()
        return self.records

    def _keep_header(self, buf):
        for i in range(HEADER_SIZE):
            self._head[i] = buf[i]

    def _from_ckpt(self, f, size, tn, base, usable):
        """Restore the game from journal.ckpt if it fits the stream in journal.bin
        (`f`, `size` bytes) and the tail read (`tn` records after `base`, `usable`);
        returns the records it covers, or 0 (none, or one that does not fit: it is
        deleted and the game is as new_game left it)."""
        path = self.root + CKPT
        c_size = _size(path)
        if c_size < 0:
            return 0
        from app import checkpoint      # only when there is one: a smaller import
        k = -1
        try:
            c = open(path, "rb")
            try:
                k = checkpoint.load(self, c, c_size, f, size, tn, base, usable)
            finally:
                c.close()
        except OSError:
            k = -1
        if k <= 0:
            h = self._head
            self.game.new_game(h[3], h[4], header_rules(h))   # nothing of it stays
            _remove(path)       # stale, torn or of another version: never read again
            return 0
        return k

    # ---- checkpoint -----------------------------------------------------------
    def checkpoint_due(self):
        """True when a checkpoint would save the next resume CKPT_EVERY records or
        more of replay (and the journal is writable, no record held)."""
        return (not self.pending and self._f is not None
                and self.records - self._ck_at >= CKPT_EVERY)

    def checkpoint(self):
        """Write ckpt/journal.ckpt: the game's image at the current record, the
        record count and the CRC-32 of the stream up to it (a tmp file, then
        renamed over the old one: a power cut leaves the old checkpoint or the
        new). It reads the journal, allocates and erases flash blocks: the main
        loop calls it in an idle pass. True if written; a failure changes nothing
        else (a checkpoint is never needed, only faster)."""
        if self.pending or self._f is None:
            return False
        from app import checkpoint
        return checkpoint.write(self)

    def _read_tail(self, seed):
        """(n, base) of journal.tail read into the image, or (-1, 0) if unusable."""
        try:
            t = open(self.root + TAIL, "rb")
        except OSError:
            return -1, 0
        tail = self._tail
        got = t.readinto(tail) or 0
        t.close()
        n, base = read_tail_header(tail, got, seed)
        if n < 0 and got >= HEADER_SIZE and tail[0] == 0x43 and tail[1] == 0x54:
            # a tail with a damaged header: its records are lost (count as it says)
            self.dropped = RECORD_SIZE * min(tail[3], TAIL_RECORDS,
                                             (got - HEADER_SIZE) // RECORD_SIZE)
        return n, base

    def _migrate(self):
        """Rewrite a version-1 journal.bin as version 2: same records, chain from the
        new header. Its good prefix only: the rest would be dropped anyway."""
        buf = self._buf
        rec = self._rec
        src = open(self.path, "rb")
        n = src.readinto(buf)
        h = read_header(buf, n)
        old = header_crc(buf)
        new = write_header(buf, h >> 4, h & 15)
        self._reset_tail(new)           # no tail may pair with the new journal.bin
        tmp = self.root + TMP
        dst = open(tmp, "wb")
        dst.write(buf)
        while src.readinto(rec) == RECORD_SIZE:
            v = read_record(rec, old)
            if v < 0:
                break
            old = rec[3]
            new = write_record(rec, v >> 20, v & _WORD_MASK, new)
            dst.write(rec)
        src.close()
        dst.close()
        os.rename(tmp, self.path)

    def _truncate(self, size):
        """Rewrite journal.bin as its first `size` bytes (tmp file, then rename)."""
        tmp = self.root + TMP
        src = open(self.path, "rb")
        dst = open(tmp, "wb")
        buf = bytearray(64)
        mv = memoryview(buf)
        left = size
        while left > 0:
            n = src.readinto(mv[:min(64, left)])
            if not n:
                break
            dst.write(mv[:n])
            left -= n
        src.close()
        dst.close()
        os.rename(tmp, self.path)

    def _reset_tail(self, seed):
        """An empty tail for the journal.bin whose header CRC is `seed` (one commit)."""
        self._base = 0
        self._n = 0
        self._close_tail()
        write_tail_header(self._tail, 0, 0, seed)
        t = open(self.root + TAIL, "wb")
        t.write(self._tail)
        t.close()

    def _open(self):
        """Open both files; the tail is written once as it stands (base, n, records)."""
        write_tail_header(self._tail, self._n, self._base, self._seed)
        self._t = open(self.root + TAIL, "wb")
        self._t.write(self._tail)
        self._t.flush()
        self._f = open(self.path, "ab")
        self.failed = False

    # ---- actions -------------------------------------------------------------
    def shot(self, f):
        """game.shot(f), recorded when the core accepts it."""
        err = self.game.shot(f)
        if not err:
            # (_append() written out: a stroke's path, a call costs some 10 us)
            if self.pending:
                self.sync()
            self._kind = ACTION
            self._word = f
            self.pending = True
        return err

    def choice(self, take):
        err = self.game.choice(take)
        if not err:
            self._append(ACTION, (F.KIND_TAKE if take else F.KIND_REPEAT) << F.KIND)
        return err

    def undo(self):
        err = self.game.undo()
        if not err:
            if self.pending:              # (_append() written out, as in shot())
                self.sync()
            self._kind = UNDO
            self._word = 0
            self.pending = True
        return err

    def redo(self):
        err = self.game.redo()
        if not err:
            if self.pending:              # (_append() written out, as in shot())
                self.sync()
            self._kind = REDO
            self._word = 0
            self.pending = True
        return err

    def record(self, kind, word):
        """Append a record for an action already applied to the game."""
        self._append(kind, word)

    def _append(self, kind, word):
        """Hold the record of an action just applied; sync() writes it. A record
        still held when the next action comes is written first (callers that
        care, the main loop, sync before they take the next action)."""
        if self.pending:
            self.sync()
        self._kind = kind
        self._word = word
        self.pending = True

    def last_record(self):
        """The last action's record as `kind << 20 | word` (the hall publisher)."""
        return self._kind << 20 | self._word

    def sync(self):
        """Write the held record to flash: one commit of the tail, and when the tail
        is full, first one append of its records to journal.bin (an erase)."""
        if not self.pending:
            return
        self.pending = False
        f = self._f
        t = self._t
        if f is None or t is None:
            self.failed = True
            return
        tail = self._tail
        try:
            if self._n == TAIL_RECORDS:
                f.write(self._full)         # the full tail, appended in one commit
                f.flush()
                self._base += TAIL_RECORDS
                self._n = 0
            rec = self._rec
            crc = write_record(rec, self._kind, self._word, self._crc)
            i = HEADER_SIZE + RECORD_SIZE * self._n
            tail[i] = rec[0]
            tail[i + 1] = rec[1]
            tail[i + 2] = rec[2]
            tail[i + 3] = crc
            write_tail_header(tail, self._n + 1, self._base, self._seed)
            t.seek(0)
            t.write(tail)
            t.flush()
        except OSError:
            self.failed = True
            self.close()            # resume() drops whatever part reached flash
            return
        self._n += 1
        self._crc = crc
        self.records += 1

    # ---- games ---------------------------------------------------------------
    def new_game(self, players, opener, rules=0, archive=True):
        """Start a new game: archive the current one, write a fresh header.

        Returns the rules core's code (0, or E_PLAYERS for bad settings).
        """
        finished = self.game.winner >= 0
        err = self.game.new_game(players, opener, rules)
        if err:
            return err
        self.sync()                 # the old game's last action belongs to its file
        self.close()
        try:
            _remove(self.root + CKPT)       # the old game's: never resumed into the new
            self._ck_at = 0
            if archive and (self.records or _size(self.path) > HEADER_SIZE):
                if self._n:         # the tail's records into journal.bin: one stream
                    f = open(self.path, "ab")
                    f.write(self._full[:RECORD_SIZE * self._n])
                    f.close()
                self._archive(FINISHED if finished else PARTIAL)
            self.records = 0
            buf = self._buf
            self._seed = self._crc = write_header(buf, players, opener, rules)
            self._keep_header(buf)
            self._sum_at = -1
            self._reset_tail(self._seed)    # before the header it belongs to
            tmp = self.root + TMP
            f = open(tmp, "wb")
            f.write(buf)
            f.close()
            os.rename(tmp, self.path)
            self._open()
        except OSError:
            self.close()
            self.failed = True
        return 0

    def _close_tail(self):
        if self._t is not None:
            try:
                self._t.close()
            except OSError:
                pass
            self._t = None

    def close(self):
        self.sync()
        self._close_tail()
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None

    def _archive(self, suffix):
        """Move journal.bin into games/ under the next number; returns the path."""
        games = self.root + GAMES
        if not _exists(games):
            os.mkdir(games)
        seq = self._next_seq()
        dst = "%s/%06d%s" % (games, seq, suffix)
        os.rename(self.path, dst)
        self._prune()
        return dst

    def _next_seq(self):
        if self._seq < 0:
            top = 0
            for name in os.listdir(self.root + GAMES):
                n = _number(name)
                if n > top:
                    top = n
            self._seq = top
        self._seq += 1
        return self._seq

    def _prune(self):
        games = self.root + GAMES
        names = sorted(os.listdir(games))
        finished = [n for n in names if n.endswith(FINISHED)]
        other = [n for n in names if not n.endswith(FINISHED)]
        for name in finished[:-KEEP_FINISHED] + other[:-KEEP_OTHER]:
            _remove(games + "/" + name)


def _number(name):
    n = 0
    for ch in name:
        if ch < "0" or ch > "9":
            break
        n = n * 10 + ord(ch) - 48
    return n


def archive_list(root="/"):
    """Archived games, oldest first: names in root/games/ (see FINISHED, PARTIAL)."""
    try:
        return sorted(os.listdir(root + GAMES))
    except OSError:
        return []
