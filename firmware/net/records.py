"""What the hall publisher sends of a game, read from the journal: its records
from the stream (journal.bin and the tail) or from the archive (games/), and a
whole game as one `game` message."""
import os

from app import journal as J
from app import journalformat as JF
from cowboy import recordtext as T

# The longest `game` message a board sends (bytes). Longer records are not sent (the
# game's actions and state are; `too_long` counts them): the record is built in RAM
# and the broker's message_size_limit (docs/HALL.md, 65536) must stay above it, as
# Mosquitto acknowledges a longer QoS 1 message and then drops it.
RECORD_MAX = 16384


def archived(root, g):
    """(path, finished) of game number g's archive file, or (None, False)."""
    for suffix, done in ((J.FINISHED, True), (J.PARTIAL, False)):
        path = "%s%s/%06d%s" % (root, J.GAMES, g, suffix)
        try:
            os.stat(path)
            return path, done
        except OSError:
            pass
    return None, False


def read_stream(data):
    """(players, opener, rules, [record values]) of a journal stream (header +
    records), or None: records up to the first bad one."""
    if len(data) < JF.HEADER_SIZE:
        return None
    buf = bytearray(data[:JF.HEADER_SIZE])
    h = JF.read_header(buf, JF.HEADER_SIZE)
    if h < 0:
        return None
    crc = JF.header_crc(buf)
    ops = []
    i = JF.HEADER_SIZE
    while i + JF.RECORD_SIZE <= len(data):
        rec = data[i:i + JF.RECORD_SIZE]
        v = JF.read_record(rec, crc)
        if v < 0:
            break
        crc = rec[3]
        ops.append(v)
        i += JF.RECORD_SIZE
    return h >> 4, h & 15, JF.header_rules(buf), ops


def names_of(panel, players):
    """The header's "names" of the game in progress: the panel's names (bytes) as a
    list of str when each of the `players` has one, else None (no key)."""
    names = getattr(panel, "names", None)
    if names is None:
        return None
    out = []
    for i in range(players):
        if not names[i]:
            return None
        out.append(bytes(names[i]).decode())
    return out


def record_bytes(g, players, opener, rules, ops, limit=RECORD_MAX, names=None):
    """A whole game as published on `game` (a comment naming the game number, the
    header, the action lines, each ending in a newline) as bytes, or None when it
    would be longer than `limit` bytes. Measured line by line first, then written
    into one buffer of the exact size: never more than that buffer and one line in
    memory."""
    head = ("# game %d\n%s\n" % (g, T.header_json(players, opener, rules, names))).encode()
    n = len(head)
    for v in ops:
        n += len(T.op_json(v)) + 1
        if n > limit:
            return None
    buf = bytearray(n)
    k = len(head)
    buf[:k] = head
    for v in ops:
        line = T.op_json(v).encode()
        buf[k:k + len(line)] = line
        k += len(line)
        buf[k] = 10
        k += 1
    return buf
