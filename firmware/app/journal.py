"""The current game on flash: a header, then one 4-byte record per action.

A power cut loses at most the record being written: every record carries a CRC-8 chained from
the header, so a torn, stale or corrupt tail is dropped on boot. Appending allocates nothing; an
accepted action is applied at once and its record held (`pending`) until the main loop calls
`sync()`, once the displays show it. The bytes and the files: app/journalformat.py; the
checkpoint: app/checkpoint.py. Call `prepare(root)` first thing at start-up, before anything
reads a file. How, and what is guaranteed: docs/JOURNAL.md. Resume, append, fold and archive
work on the same two open files and their counters.
"""
import os

from app import journalformat
from app.fsready import GAMES, exists, filesize, remove, prepare  # noqa: F401  (prepare: re-exported)
from cowboy import facts

from micropython import const

FINISHED = ".jnl"      # archive suffixes: a finished game,
PARTIAL = ".part"      # a game abandoned for a new one,
FOREIGN = ".old"       # a journal of another version or unreadable
KEEP_FINISHED = const(12)
KEEP_OTHER = const(4)
_TAIL_GONE = const(-2)  # _read_tail: no journal.tail at all (-1: one not usable)


class Journal:
    """The game in progress on flash. `root` is a directory ending in "/".

    Use: `prepare(root)` and `resume()` once at start-up, then `shot()`, `choice()`,
    `undo()`, `redo()` instead of the same calls on the game, `sync()` once the
    displays show the action, and `new_game()` to start another.
    """

    def __init__(self, game, root="/"):
        self.game = game
        self.root = root
        self.path = root + journalformat.JOURNAL
        self.failed = False       # the last write to flash failed (flash full, ...)
        self.records = 0          # records in the journal (journal.bin and the tail)
        self.dropped = 0          # bytes of records dropped at the last resume
        self.lost_upto = 0        # records that may have been lost, how many unknown
        self.archived = None      # where resume() moved an unusable journal, if it did
        self._f = None            # journal.bin, open for appending
        self._t = None            # journal.tail, open for writing
        self._buf = bytearray(journalformat.HEADER_SIZE)
        self._rec = bytearray(journalformat.RECORD_SIZE)     # the record being appended
        self._tail = bytearray(journalformat.TAIL_SIZE)      # the tail file's image
        self._full = memoryview(self._tail)[journalformat.HEADER_SIZE:]   # its records, to fold
        self._crc = 0             # CRC of the last record (the chain)
        self._seed = 0            # the header's CRC (seeds the tail header)
        self._base = 0            # records in journal.bin before the tail's
        self._n = 0               # records in the tail
        self._seq = -1
        self._head = bytearray(journalformat.HEADER_SIZE)   # stream header: the checkpoint's key
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
        self.lost_upto = 0
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
        remove(self.root + journalformat.TMP)
        remove(self.root + journalformat.CKPT_TMP)
        remove(self.root + journalformat.NAMES_TMP)
        self.records = 0
        self._ck_at = 0
        game = self.game
        buf = self._buf
        rec = self._rec
        try:
            f = open(self.path, "rb")
        except OSError:
            self._orphan_names()
            self.new_game(players, opener, rules, archive=False)
            return 0
        n = f.readinto(buf)
        h = journalformat.read_header(buf, n)
        if h >= 0 and buf[2] == journalformat.OLDEST:
            f.close()
            self._migrate()             # version 1: the same records, re-chained
            f = open(self.path, "rb")
            n = f.readinto(buf)
            h = journalformat.read_header(buf, n)
        if h < 0:
            f.close()
            if h == journalformat.BAD and n < journalformat.HEADER_SIZE:
                remove(self.path)      # a header never completed: nothing to keep
            else:
                self.archived = self._archive(FOREIGN)
            self.new_game(players, opener, rules, archive=False)
            return 0
        game.new_game(h >> 4, h & 15, journalformat.header_rules(buf))
        seed = journalformat.header_crc(buf)
        self._seed = seed
        self._keep_header(buf)
        tn, base = self._read_tail(seed)
        usable = tn >= 0
        crc = seed
        good = journalformat.HEADER_SIZE
        count = 0
        tail = self._tail
        size = f.seek(0, 2)
        # the game's image at record ck, if a checkpoint fits this stream: then only
        # the records after it go through the rules core
        ck = self._from_ckpt(f, size, tn, base, usable)
        if ck > 0:
            count = min(ck, (size - journalformat.HEADER_SIZE) // journalformat.RECORD_SIZE)
            good = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * count
            crc = self._ck_crc
            usable = self._ck_usable
        f.seek(good)
        while True:
            if f.readinto(rec) != journalformat.RECORD_SIZE:
                break
            v = journalformat.read_record(rec, crc)
            if v < 0 or journalformat.apply_record(game, v):
                break
            crc = rec[3]
            good += journalformat.RECORD_SIZE
            count += 1
            if usable and count > base:
                # a record in both files (a fold cut short): the same bytes, or no tail
                i = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * (count - base - 1)
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
                i = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * (k + used)
                if base + k + used >= ck:   # (the checkpoint's own are known good)
                    v = journalformat.read_record(
                        memoryview(tail)[i:i + journalformat.RECORD_SIZE], crc)
                    if v < 0 or journalformat.apply_record(game, v):
                        break
                crc = tail[i + 3]
                j = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * used
                for b in range(journalformat.RECORD_SIZE):
                    tail[j + b] = tail[i + b]
                used += 1
            dropped += journalformat.RECORD_SIZE * (tn - k - used)
        elif tn > 0:
            dropped += journalformat.RECORD_SIZE * tn
        if tn == _TAIL_GONE and not count % journalformat.TAIL_RECORDS:
            # no tail: the board's own journal.bin grows by whole tails (a fold), so
            # one with a multiple of TAIL_RECORDS records lost the tail it had; any
            # other count is a stream written whole (tools/journal.py to-binary)
            self.lost_upto = journalformat.TAIL_RECORDS
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
        for i in range(journalformat.HEADER_SIZE):
            self._head[i] = buf[i]

    def _from_ckpt(self, f, size, tn, base, usable):
        """Restore the game from journal.ckpt if it fits the stream in journal.bin
        (`f`, `size` bytes) and the tail read (`tn` records after `base`, `usable`);
        returns the records it covers, or 0 (none, or one that does not fit: it is
        deleted and the game is as new_game left it)."""
        path = self.root + journalformat.CKPT
        c_size = filesize(path)
        if c_size < 0:
            return 0
        from app import checkpoint      # only when there is one: a smaller import
        k = -1
        try:
            c = open(path, "rb")
            try:
                got = checkpoint.load(self.game, self._head, self._tail, c, c_size, f, size,
                                      tn, base, usable)
            finally:
                c.close()
            if got is not None:
                k, self._ck_crc, self._ck_usable, self._sum = got
                self._sum_at = k
        except OSError:
            k = -1
        if k <= 0:
            h = self._head
            self.game.new_game(h[3], h[4], journalformat.header_rules(h))   # nothing of it stays
            remove(path)       # stale, torn or of another version: never read again
            return 0
        return k

    # ---- checkpoint -----------------------------------------------------------
    def checkpoint_due(self):
        """True when a checkpoint would save the next resume journalformat.CKPT_EVERY records or
        more of replay (and the journal is writable, no record held)."""
        return (not self.pending and self._f is not None
                and self.records - self._ck_at >= journalformat.CKPT_EVERY)

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
        k = self.records
        try:
            self._sum = checkpoint.stream_sum(self.path, self._head, self._tail, self._base, k,
                                              self._sum, self._sum_at)
            self._sum_at = k
            checkpoint.write(self.root, self.game, self._head, k, self._sum)
            done = True
        except OSError:
            done = False
        self._ck_at = k             # not due again before CKPT_EVERY more records
        return done

    # ---- reading the current game (hall mode, net/) ----------------------------
    def game_number(self):
        """The number the current game gets in games/ (reads games/ at the first
        call, which allocates: make it at start-up)."""
        if self._seq < 0:
            self._seq = 0
            try:
                for name in os.listdir(self.root + GAMES):
                    self._seq = max(self._seq, _number(name))
            except OSError:
                pass
        return self._seq + 1

    def header(self):
        """The current game's stream header, as written (read it, never change it)."""
        return self._head

    def read_records(self, i, buf):
        """Records i... (0-based) of the current game into buf, as many whole ones as
        fit from one file (journal.bin, or the tail); returns how many
        (journalformat.record_value decodes them)."""
        if i >= self._base:
            at = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * (i - self._base)
            n = max(0, min(len(buf) // journalformat.RECORD_SIZE, self.records - i))
            buf[:journalformat.RECORD_SIZE * n] = memoryview(self._tail)[
                at:at + journalformat.RECORD_SIZE * n]
            return n
        f = open(self.path, "rb")
        try:
            f.seek(journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * i)
            return min((f.readinto(buf) or 0) // journalformat.RECORD_SIZE, self._base - i)
        finally:
            f.close()

    def _read_tail(self, seed):
        """(n, base) of journal.tail read into the image, or (-1, 0) if unusable,
        (_TAIL_GONE, 0) if there is none. A tail cut before its record count may have
        held the game's last records: up to a tail's worth are counted in lost_upto."""
        try:
            t = open(self.root + journalformat.TAIL, "rb")
        except OSError:
            return _TAIL_GONE, 0
        tail = self._tail
        got = t.readinto(tail) or 0
        t.close()
        if got < 4:
            self.lost_upto = journalformat.TAIL_RECORDS
        n, base = journalformat.read_tail_header(tail, got, seed)
        if n >= 0:
            # a tail cut short: the records its header counts and the file lost
            self.dropped = journalformat.RECORD_SIZE * (tail[3] - n)
        elif got >= journalformat.HEADER_SIZE and tail[0] == 0x43 and tail[1] == 0x54:
            # a tail with a damaged header: its records are lost (count as it says)
            records = (got - journalformat.HEADER_SIZE) // journalformat.RECORD_SIZE
            self.dropped = journalformat.RECORD_SIZE * min(tail[3], journalformat.TAIL_RECORDS,
                                                           records)
        elif got >= 4 and tail[0] == 0x43 and tail[1] == 0x54:
            # cut inside its header: no CRC to check, the count is all there is
            self.dropped = journalformat.RECORD_SIZE * min(tail[3], journalformat.TAIL_RECORDS)
        return n, base

    def _migrate(self):
        """Rewrite a version-1 journal.bin as version 2: same records, chain from the
        new header. Its good prefix only: the rest would be dropped anyway."""
        buf = self._buf
        rec = self._rec
        src = open(self.path, "rb")
        n = src.readinto(buf)
        h = journalformat.read_header(buf, n)
        old = journalformat.header_crc(buf)
        new = journalformat.write_header(buf, h >> 4, h & 15)
        self._reset_tail(new)           # no tail may pair with the new journal.bin
        tmp = self.root + journalformat.TMP
        dst = open(tmp, "wb")
        dst.write(buf)
        while src.readinto(rec) == journalformat.RECORD_SIZE:
            v = journalformat.read_record(rec, old)
            if v < 0:
                break
            old = rec[3]
            new = journalformat.write_record(rec, v >> 20, v & journalformat.WORD_MASK, new)
            dst.write(rec)
        src.close()
        dst.close()
        os.rename(tmp, self.path)

    def _truncate(self, size):
        """Rewrite journal.bin as its first `size` bytes (tmp file, then rename)."""
        tmp = self.root + journalformat.TMP
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
        journalformat.write_tail_header(self._tail, 0, 0, seed)
        t = open(self.root + journalformat.TAIL, "wb")
        t.write(self._tail)
        t.close()

    def _open(self):
        """Open both files; the tail is written once as it stands (base, n, records)."""
        journalformat.write_tail_header(self._tail, self._n, self._base, self._seed)
        self._t = open(self.root + journalformat.TAIL, "wb")
        self._t.write(self._tail)
        self._t.flush()
        self._f = open(self.path, "ab")
        self.failed = False

    # ---- actions -------------------------------------------------------------
    def shot(self, f):
        """game.shot(f), recorded when the core accepts it."""
        err = self.game.shot(f)
        if not err:
            # (_append() written out: docs/PERFORMANCE.md, "Calls written out")
            if self.pending:
                self.sync()
            self._kind = journalformat.ACTION
            self._word = f
            self.pending = True
        return err

    def choice(self, take):
        err = self.game.choice(take)
        if not err:
            kind = facts.KIND_TAKE if take else facts.KIND_REPEAT
            self._append(journalformat.ACTION, kind << facts.KIND)
        return err

    def undo(self):
        err = self.game.undo()
        if not err:
            if self.pending:              # (_append() written out, as in shot())
                self.sync()
            self._kind = journalformat.UNDO
            self._word = 0
            self.pending = True
        return err

    def redo(self):
        err = self.game.redo()
        if not err:
            if self.pending:              # (_append() written out, as in shot())
                self.sync()
            self._kind = journalformat.REDO
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
            if self._n == journalformat.TAIL_RECORDS:
                f.write(self._full)         # the full tail, appended in one commit
                f.flush()
                self._base += journalformat.TAIL_RECORDS
                self._n = 0
            rec = self._rec
            crc = journalformat.write_record(rec, self._kind, self._word, self._crc)
            i = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * self._n
            tail[i] = rec[0]
            tail[i + 1] = rec[1]
            tail[i + 2] = rec[2]
            tail[i + 3] = crc
            journalformat.write_tail_header(tail, self._n + 1, self._base, self._seed)
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
            remove(self.root + journalformat.CKPT)   # the old game's: never resumed into the new
            self._ck_at = 0
            if archive and (self.records or filesize(self.path) > journalformat.HEADER_SIZE):
                if self._n:         # the tail's records into journal.bin: one stream
                    f = open(self.path, "ab")
                    f.write(self._full[:journalformat.RECORD_SIZE * self._n])
                    f.close()
                self._archive(FINISHED if finished else PARTIAL)
            self.records = 0
            buf = self._buf
            self._seed = self._crc = journalformat.write_header(buf, players, opener, rules)
            self._keep_header(buf)
            self._sum_at = -1
            self._reset_tail(self._seed)    # before the header it belongs to
            tmp = self.root + journalformat.TMP
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
        if not exists(games):
            os.mkdir(games)
        seq = self._next_seq()
        dst = "%s/%06d%s" % (games, seq, suffix)
        os.rename(self.path, dst)
        self._names_to(seq)
        self._prune()
        return dst

    def _names_to(self, seq):
        """The game's names file (if any) after its journal, to games/NNNNNN.names."""
        src = self.root + journalformat.NAMES
        if exists(src):
            os.rename(src, "%s%s/%06d%s" % (self.root, GAMES, seq, journalformat.NAMES_EXT))

    def _orphan_names(self):
        """No journal.bin: a journal.names left means a power cut came between
        the archive's two renames; it belongs to the newest archived game (unless
        that game has its own), else it is dropped."""
        src = self.root + journalformat.NAMES
        if not exists(src):
            return
        seq = 0
        try:
            for name in os.listdir(self.root + GAMES):
                seq = max(seq, _number(name))
        except OSError:
            pass
        self._seq = -1              # counted again at the next archive
        dst = "%s%s/%06d%s" % (self.root, GAMES, seq, journalformat.NAMES_EXT)
        if seq and not exists(dst):
            os.rename(src, dst)
        else:
            remove(src)

    def _next_seq(self):
        self._seq = self.game_number()
        return self._seq

    def _prune(self):
        """Delete the oldest games past KEEP_FINISHED and KEEP_OTHER, each names file
        first (a power cut between the two leaves a game without names, never names
        without a game), and any names file whose game is gone."""
        games = self.root + GAMES
        names = sorted(os.listdir(games))
        finished = [n for n in names if n.endswith(FINISHED)]
        other = [n for n in names if not n.endswith(FINISHED)
                 and not n.endswith(journalformat.NAMES_EXT)]
        for name in finished[:-KEEP_FINISHED] + other[:-KEEP_OTHER]:
            remove("%s/%06d%s" % (games, _number(name), journalformat.NAMES_EXT))
            remove(games + "/" + name)
        kept = [_number(n) for n in finished[-KEEP_FINISHED:] + other[-KEEP_OTHER:]]
        for name in names:
            if name.endswith(journalformat.NAMES_EXT) and _number(name) not in kept:
                remove(games + "/" + name)


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
