"""What the hall publisher sends of a game, read from the journal: its records
from the stream (journal.bin and the tail) or from the archive (games/), and a
finished game's record as one `game` message or, when longer than one message,
as `part` messages (docs/HALL.md, "Topics")."""
import os

from app import journal
from app import journalformat
from cowboy import recordtext
from version import VERSION

# The longest message a board sends of a record (bytes). A record of at most this
# many bytes goes whole on `game`; a longer one in parts on `part`, each at most this
# long with its first line, split at line boundaries. Built one part at a time: no
# buffer is larger than a part (docs/HALL.md, "The broker", Size).
PART_MAX = 4096
PART_LINE = 96      # room for a part's first line: 96 bytes with every number at its largest
BODY_MAX = PART_MAX - PART_LINE     # a part's lines of the record


def archived(root, g):
    """(path, finished) of game number g's archive file, or (None, False)."""
    for suffix, done in ((journal.FINISHED, True), (journal.PARTIAL, False)):
        path = "%s%s/%06d%s" % (root, journal.GAMES, g, suffix)
        try:
            os.stat(path)
            return path, done
        except OSError:
            pass
    return None, False


def read_stream(data):
    """(players, opener, rules, [record values]) of a journal stream (header +
    records), or None: records up to the first bad one."""
    if len(data) < journalformat.HEADER_SIZE:
        return None
    buf = bytearray(data[:journalformat.HEADER_SIZE])
    h = journalformat.read_header(buf, journalformat.HEADER_SIZE)
    if h < 0:
        return None
    crc = journalformat.header_crc(buf)
    ops = []
    i = journalformat.HEADER_SIZE
    while i + journalformat.RECORD_SIZE <= len(data):
        rec = data[i:i + journalformat.RECORD_SIZE]
        v = journalformat.read_record(rec, crc)
        if v < 0:
            break
        crc = rec[3]
        ops.append(v)
        i += journalformat.RECORD_SIZE
    return h >> 4, h & 15, journalformat.header_rules(buf), ops


class CurrentOps:
    """The first n record values of the game in progress as a sequence, read from
    the journal (journal.bin, then the tail in RAM) a block at a time: a long
    record is built without a list of all its values."""
    BLOCK = 64                  # values a read

    def __init__(self, journal, n):
        self.journal = journal
        self.length = n
        self._buf = bytearray(journalformat.RECORD_SIZE * self.BLOCK)
        self._first = 0
        self._have = 0          # values in the buffer, from _first

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        if not self._first <= i < self._first + self._have:
            self._first = i
            self._have = self.journal.read_records(i, self._buf)
        return journalformat.record_value(self._buf, journalformat.RECORD_SIZE * (i - self._first))


def part_line(g, k, count, actions, names, size):
    """The first line of part k of `count` of game g's record: its number of
    actions, the fingerprint of its names (app/playernames.py) and its length in
    bytes name the record, so parts of different records are never joined."""
    return "# game %d part %d/%d actions %d names %d bytes %d\n" % (
        g, k, count, actions, names, size)


class Record:
    """A finished game's record (a comment naming the game number, the header, the
    action lines, each ending in a newline) as the board sends it: whole when it is
    at most PART_MAX bytes, else in `count` parts of at most PART_MAX bytes each.

    A part is its first line (part_line()) and then whole lines of the record, as
    many as fit in BODY_MAX bytes (the first part begins with the comment and the
    header); the parts' lines concatenated are the whole record. The lines are
    measured first, a part's worth at a time (measure(), until it says True), then
    the messages are built one at a time (message()); nothing holds more than one
    message and one line. `ops`: the game's record values, a sequence (a list, or
    CurrentOps: read from the journal as needed; kept, not copied); `fp`:
    the fingerprint of `names`; `skip`: parts the broker already acknowledged
    (sending starts after them)."""

    def __init__(self, g, players, opener, rules, ops, names=None, fp=0, skip=0):
        self.game = g
        self.ops = ops
        self.actions = len(ops)
        self.names = fp
        head = "# game %d\n%s\n" % (g, recordtext.header_json(players, opener, rules, names,
                                                                 VERSION))
        self.head = head.encode()
        self.size = len(self.head)  # bytes measured: the record's length once measured
        self.count = 1              # parts (1: the record goes whole)
        self.measured = False
        self.next = skip + 1        # the message to build next (1: the first)
        self._at = 0 if skip == 0 else -1   # the record value it begins with (-1: not known)
        self._m = 0                 # record values measured
        self._parts = 1             # parts so far while measuring,
        self._fill = self.size      # and the bytes of the last one

    def key(self):
        return self.game, self.actions, self.names

    def measure(self, budget=BODY_MAX):
        """Measure lines, `budget` bytes of them at most, and one more; True once the
        whole record is: `size` and `count` known."""
        ops = self.ops
        n = len(ops)
        m = self._m
        spent = 0
        while m < n and spent < budget:
            k = len(recordtext.op_json(ops[m])) + 1
            spent += k
            if self._fill + k > BODY_MAX:
                self._parts += 1
                self._fill = 0
                if self._parts == self.next:
                    self._at = m
            self._fill += k
            self.size += k
            m += 1
        self._m = m
        if m < n:
            return False
        self.measured = True
        if self.size > PART_MAX:
            self.count = self._parts
        if self.next > self.count or self._at < 0:
            self.next = 1           # (acknowledged parts of another split: all again)
            self._at = 0
        return True

    def done(self):
        return self.measured and self.next > self.count

    def message(self):
        """The next message (a bytearray of its exact size): the whole record when
        count is 1, else the next part; None when all were built."""
        if self.done():
            return None
        ops = self.ops
        n = len(ops)
        k = self.next
        at = self._at
        first = k == 1
        fill = len(self.head) if first else 0
        end = at
        whole = self.count == 1
        while end < n:
            size = len(recordtext.op_json(ops[end])) + 1
            if not whole and fill + size > BODY_MAX:
                break
            fill += size
            end += 1
        line = b""
        if not whole:
            line = part_line(self.game, k, self.count, self.actions, self.names,
                             self.size).encode()
        buf = bytearray(len(line) + fill)
        i = len(line)
        buf[:i] = line
        if first:
            buf[i:i + len(self.head)] = self.head
            i += len(self.head)
        for j in range(at, end):
            text = recordtext.op_json(ops[j]).encode()
            buf[i:i + len(text)] = text
            i += len(text)
            buf[i] = 10
            i += 1
        self._at = end
        self.next = k + 1
        return buf

