"""The current game on flash: a header, then one 4-byte record per action.

A power cut loses at most the record being written. littlefs commits a file only
at flush/close, and every record carries a CRC-8 chained from the header and the
records before it, so a torn, stale or corrupt tail is detected on boot, dropped,
and the file rewritten to its good prefix before anything else is appended.

File layout (docs/JOURNAL.md):
  header  8 bytes: b"CJ", version, players, opener (0-based), house rules, 0,
          crc8(bytes 0-6); version 1 (rules byte 0) for a game without house
          rules, VERSION 2 for one with them, so that firmware that knows only
          version 1 archives such a game instead of replaying it without its rules
  record  4 bytes: kind << 20 | word as 24 bits big-endian, crc8(previous crc, 3 bytes)
Kinds: ACTION (word = rules-core action word: a stroke's facts or a choice), UNDO,
REDO (word 0). Replaying the records through `Game` gives the state and the redo
list exactly as they were.

Appending is allocation-free: the file stays open and the record is built in a
preallocated buffer. An accepted action is applied to the game at once and its
record is held (`pending`) until the main loop calls `sync()`, after the displays
show the action: a flash write (an erase stops the chip for 45 ms or more) never
delays what the players see. At most one action is ever shown and not yet on
flash; a power cut loses at most that one. Each record is flushed (one littlefs
commit).
"""
import os

from cowboy import facts as F

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

VERSION = const(2)     # the newest format: version 2 headers carry house rules
_V_PLAIN = const(1)     # the format of a game without house rules (still written)
_RULES_ALL = const(15)  # cowboy.houserules.ALL
HEADER_SIZE = const(8)
RECORD_SIZE = const(4)

ACTION = const(1)      # word: a rules-core action word (stroke facts, or a choice)
UNDO = const(2)
REDO = const(3)
_WORD_MASK = const(0xFFFFF)

# What the first bytes of a file say about it (read_header's codes).
BAD = const(-1)        # not a journal, or its header is torn or corrupt
OLD = const(-2)        # a journal of another format version: archive it, never read it

JOURNAL = "journal.bin"
TMP = "journal.tmp"
GAMES = "games"
FINISHED = ".jnl"      # archive suffixes: a finished game,
PARTIAL = ".part"      # a game abandoned for a new one,
FOREIGN = ".old"       # a journal of another version or unreadable
KEEP_FINISHED = const(12)
KEEP_OTHER = const(4)


def _crc_table():
    t = bytearray(256)
    for i in range(256):
        c = i
        for _ in range(8):
            c = ((c << 1) ^ 0x07) & 0xFF if c & 0x80 else (c << 1) & 0xFF
        t[i] = c
    return bytes(t)


_CRC = _crc_table()    # CRC-8, polynomial 0x07


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
    buf[2] = VERSION if rules else _V_PLAIN
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

    `n` is how many bytes of buf were read from the file.
    """
    if n < 3 or buf[0] != 0x43 or buf[1] != 0x4A:
        return BAD
    if buf[2] != VERSION and buf[2] != _V_PLAIN:
        return OLD
    if n < HEADER_SIZE or crc8(0, buf, 0, 7) != buf[7]:
        return BAD
    players = buf[3]
    opener = buf[4]
    if players < 2 or players > 8 or opener >= players or buf[6]:
        return BAD
    if buf[5] > _RULES_ALL or buf[5] and buf[2] == _V_PLAIN:
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

    Use: `resume()` once at start-up, then `shot()`, `choice()`, `undo()`, `redo()`
    instead of the same calls on the game, and `new_game()` to start another.
    """

    def __init__(self, game, root="/"):
        self.game = game
        self.root = root
        self.path = root + JOURNAL
        self.failed = False       # the last write to flash failed (flash full, ...)
        self.records = 0          # records in the file
        self.dropped = 0          # bytes of tail dropped at the last resume
        self.archived = None      # where resume() moved an unusable journal, if it did
        self._f = None
        self._buf = bytearray(HEADER_SIZE)
        self._rec = bytearray(RECORD_SIZE)     # the record being appended
        self._crc = 0
        self._seq = -1
        self.pending = False      # an action's record waits for sync()
        self._kind = 0
        self._word = 0

    # ---- start-up ------------------------------------------------------------
    def resume(self, players=2, opener=0, rules=0):
        """Replay the journal into the game; start a new game if there is none.

        Returns the number of actions replayed. A tail that is torn, corrupt or
        refused by the rules core is dropped; a journal of another format version or
        with an unreadable header is archived and a new game started with
        `players`, `opener` and `rules`. A resumed game keeps the house rules
        of its header, whatever `rules` says.
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
        _remove(self.root + TMP)
        self.records = 0
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
        if h < 0:
            f.close()
            if h == BAD and n < HEADER_SIZE:
                _remove(self.path)      # a header never completed: nothing to keep
            else:
                self.archived = self._archive(FOREIGN)
            self.new_game(players, opener, rules, archive=False)
            return 0
        game.new_game(h >> 4, h & 15, header_rules(buf))
        crc = header_crc(buf)
        good = HEADER_SIZE
        count = 0
        while True:
            if f.readinto(rec) != RECORD_SIZE:
                break
            v = read_record(rec, crc)
            if v < 0 or apply_record(game, v):
                break
            crc = rec[3]
            good += RECORD_SIZE
            count += 1
        size = f.seek(0, 2)
        f.close()
        if size != good:
            self.dropped = size - good
            self._truncate(good)
        self.records = count
        self._crc = crc
        self._open()
        return count

    def _truncate(self, size):
        """Rewrite the journal as its first `size` bytes (tmp file, then rename)."""
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

    def _open(self):
        self._f = open(self.path, "ab")
        self.failed = False

    # ---- actions -------------------------------------------------------------
    def shot(self, f):
        """game.shot(f), recorded when the core accepts it."""
        err = self.game.shot(f)
        if not err:
            self._append(ACTION, f)
        return err

    def choice(self, take):
        err = self.game.choice(take)
        if not err:
            self._append(ACTION, (F.KIND_TAKE if take else F.KIND_REPEAT) << F.KIND)
        return err

    def undo(self):
        err = self.game.undo()
        if not err:
            self._append(UNDO, 0)
        return err

    def redo(self):
        err = self.game.redo()
        if not err:
            self._append(REDO, 0)
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

    def sync(self):
        """Write the held record to flash (may stall the chip for an erase)."""
        if not self.pending:
            return
        self.pending = False
        f = self._f
        if f is None:
            self.failed = True
            return
        crc = write_record(self._rec, self._kind, self._word, self._crc)
        try:
            f.write(self._rec)
            f.flush()
        except OSError:
            self.failed = True
            self.close()            # resume() drops whatever part reached flash
            return
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
        self.records = 0
        try:
            if archive and _size(self.path) > HEADER_SIZE:   # a game with actions in it
                self._archive(FINISHED if finished else PARTIAL)
            tmp = self.root + TMP
            buf = self._buf
            self._crc = write_header(buf, players, opener, rules)
            f = open(tmp, "wb")
            f.write(buf)
            f.close()
            os.rename(tmp, self.path)
            self._open()
        except OSError:
            self.close()
            self.failed = True
        return 0

    def close(self):
        self.sync()
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None

    def _archive(self, suffix):
        """Move the journal file into games/ under the next number; returns the path."""
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
