"""Journal on real littlefs (vfs.VfsLfs2) over host_tests/fakes/ramblock.py.

Run by test_journal_lfs.py under micropython: `micropython lfs_journal.py MODE`.
Modes print "OK <mode> ..." as their last line; any mismatch raises.
  cuts     power cut at every flash operation of one appended action
  bytes    the journal cut at every byte offset, and corrupt tails
  migrate  a version-1 journal.bin resumed and rewritten
  rename   power cut at every flash operation of archiving a game (issue 12)
  heap     appending with the heap locked
  pico     resuming a long game in a Pico-sized heap
  wear     bytes and erases per action, and of the layouts compared (printed)
  ckpt     the checkpoint: a cut at every flash operation of writing one, of the
           actions after one, the stream cut at every byte with one, its wear
"""
import sys
import os

import vfs

from ramblock import PowerCut, mount
from cowboy.game import Game
from app.journal import Journal, prepare
from app.journalformat import JOURNAL, TAIL, TAIL_RECORDS, joined
import journal_harness

MNT = "/fs"
ROOT = MNT + "/"
_ABANDONED = []     # files open when the power failed: kept so no finaliser flushes them
PROG = 256          # the rp2 port mounts its flash with progsize=256, 4 KiB blocks


def power_up(image=None, blocks=48, tear=False):
    """Mount a filesystem (a new one, or a surviving image) and resume the journal."""
    bd = mount(image, MNT, blocks, tear, PROG)
    j = Journal(Game(), ROOT)
    j.resume(3, 1)
    return bd, j


def power_down():
    try:
        vfs.umount(MNT)
    except Exception:
        pass


def cut_during(image, cut, ops, action, tear=False):
    """Power up on `image`, cut the power at flash operation `cut` of `action(j)`
    (one of its `ops`), power down; returns the block device (its survivor())."""
    bd, j = power_up(image, tear=tear)
    bd.cut_after(cut)
    try:
        action(j)
        raise AssertionError("no power cut at operation %d of %d" % (cut, ops))
    except PowerCut:
        pass
    _ABANDONED.append(j._f)
    _ABANDONED.append(j._t)
    power_down()
    return bd


def check_cuts(played, count, tear, ckpt=False):
    """Cut power at every flash operation of each of `count` actions after `played`;
    with `ckpt`, a checkpoint written after `played`: every resume starts from it."""
    rng = journal_harness.Rng(7)
    bd, j = power_up()
    journal_harness.play(j, rng, played)
    if ckpt:
        assert j.checkpoint()
    j.close()
    power_down()
    image = bytes(bd.image)
    total = seen_before = seen_after = 0
    for a in range(count):
        seed = rng.getrandbits(16)

        def action(j):
            r = journal_harness.Rng(seed)
            while not journal_harness.step(j, r):
                pass
        # The action without a cut: its state and its number of flash operations.
        bd, j = power_up(image)
        before = journal_harness.state(j.game)
        bd.reset_counts()
        action(j)
        ops = bd.ops()
        after = journal_harness.state(j.game)
        j.close()
        power_down()
        next_image = bytes(bd.image)
        for cut in range(ops):
            bd = cut_during(image, cut, ops, action, tear)
            bd2, j2 = power_up(bd.survivor())
            assert j2._ck_at == (played if ckpt else 0), "checkpoint not used"
            s = journal_harness.state(j2.game)
            if s == before:
                seen_before += 1
            elif s == after:
                seen_after += 1
            else:
                raise AssertionError("action %d, cut at op %d: neither before nor after"
                                     % (played + a, cut))
            # Appending after the recovery is clean: one more action survives a reboot.
            r = journal_harness.Rng(seed + 1)
            while not journal_harness.step(j2, r):
                pass
            s2 = journal_harness.state(j2.game)
            j2.close()
            power_down()
            bd3, j3 = power_up(bd2.image)
            assert journal_harness.state(j3.game) == s2, "cut at op %d: later append lost" % cut
            power_down()
            total += 1
        image = next_image
    return total, seen_before, seen_after


def write_file(path, data, n):
    f = open(path, "wb")
    f.write(memoryview(data)[:n])
    f.close()


def read_file(path):
    try:
        f = open(path, "rb")
    except OSError:
        return b""
    data = f.read()
    f.close()
    return data


def on_flash():
    """The game on flash as one stream (what the export gives)."""
    return joined(read_file(ROOT + JOURNAL), read_file(ROOT + TAIL))


def files(body, nb, tail=None, nt=0):
    """Replace the journal's files: journal.bin as body[:nb], journal.tail as
    tail[:nt] (no tail file when tail is None)."""
    write_file(ROOT + JOURNAL, body, nb)
    if tail is None:
        try:
            os.remove(ROOT + TAIL)
        except OSError:
            pass
    else:
        write_file(ROOT + TAIL, tail, nt)


def resumed(image0, body, nb, tail=None, nt=0):
    """Power up, put these files in place, resume; the journal."""
    bd, j = power_up(image0)
    j.close()
    files(body, nb, tail, nt)
    j.resume(3, 1)
    return j


def append_survives(j, seed, where):
    r = journal_harness.Rng(seed)
    while not journal_harness.step(j, r):
        pass
    s = journal_harness.state(j.game)
    j.resume(3, 1)
    assert journal_harness.state(j.game) == s, "append after %s lost" % where


def check_bytes(played):
    """The journal cut at every byte offset (as one file, and with its last records
    in the tail file cut short), corrupt records, headers and tails."""
    rng = journal_harness.Rng(11)
    bd, j = power_up()
    fresh = journal_harness.state(j.game)
    states = [fresh]
    for _ in range(played):
        journal_harness.play(j, rng, 1)
        states.append(journal_harness.state(j.game))
    j.close()
    data = on_flash()
    body = read_file(ROOT + JOURNAL)
    tail = read_file(ROOT + TAIL)
    power_down()
    image0 = bytes(bd.image)
    size = len(data)
    folded = (played - 1) // TAIL_RECORDS * TAIL_RECORDS    # records in journal.bin
    assert size == 8 + 4 * played and len(body) == 8 + 4 * folded
    for cut in range(size + 1):
        k = (cut - 8) // 4 if cut >= 8 else 0
        layouts = [(data, cut, None, 0)]           # one file (a version-1 journal's shape)
        if cut > len(body):                        # journal.bin whole, the tail cut short
            layouts.append((body, len(body), tail, 8 + cut - len(body)))
        for layout in layouts:
            j = resumed(image0, *layout)
            assert journal_harness.state(j.game) == states[k], "cut at byte %d" % cut
            assert j.records == k
            if layout[2] is not None:              # the tail's lost records counted
                assert j.dropped == 4 * (played - k), "tail cut at byte %d" % cut
            if cut >= 8:
                assert on_flash() == data[:8 + 4 * k], "tail not dropped at %d" % cut
            append_survives(j, cut, "cut at byte %d" % cut)     # lands on a clean tail
            power_down()
    # Every single-bit error in the last record (in the tail) drops just that record.
    flips = 0
    buf = bytearray(tail)
    last = 8 + 4 * (played - folded - 1)
    for byte in range(last, last + 4):
        for bit in range(8):
            buf[byte] ^= 1 << bit
            j = resumed(image0, body, len(body), buf, len(buf))
            assert journal_harness.state(j.game) == states[played - 1], "flip %d.%d" % (byte, bit)
            power_down()
            buf[byte] ^= 1 << bit
            flips += 1
    # A flipped bit in the tail's header: journal.bin's records, the tail dropped.
    buf[5] ^= 4
    j = resumed(image0, body, len(body), buf, len(buf))
    assert journal_harness.state(j.game) == states[folded] and j.dropped == 4 * (played - folded)
    append_survives(j, 1, "a bad tail header")
    power_down()
    buf[5] ^= 4
    # A corrupt record in the middle: the game resumes just before it, tail dropped.
    mid = folded // 2
    bad = bytearray(body)
    bad[8 + 4 * mid + 1] ^= 0x10
    j = resumed(image0, bad, len(bad), tail, len(tail))
    assert journal_harness.state(j.game) == states[mid]
    append_survives(j, 2, "a corrupt record")
    power_down()
    # A fold cut short: journal.bin has the tail's records too; read once.
    j = resumed(image0, data, size, tail, len(tail))
    assert journal_harness.state(j.game) == states[played] and j.dropped == 0
    assert on_flash() == data
    append_survives(j, 3, "a fold cut short")
    power_down()
    # The copy in journal.bin torn: dropped, and the tail gives the records again.
    bad = bytearray(data)
    bad[len(body) + 2] ^= 1
    j = resumed(image0, bad, size, tail, len(tail))
    assert journal_harness.state(j.game) == states[played]
    power_down()
    # journal.bin goes on with another valid record than the tail's: the tail is
    # not used (a record is valid only in its place).
    from app import journalformat
    other = bytearray(body) + bytearray(4)
    journalformat.write_record(memoryview(other)[len(body):], journalformat.UNDO, 0, body[-1])
    j = resumed(image0, other, len(other), tail, len(tail))
    assert (j.records, j.dropped) == (folded + 1, 4 * (played - folded)), (j.records, j.dropped)
    power_down()
    # Tails of erased flash, zeros and noise after the last record.
    tails = (b"\xff" * 7, b"\x00" * 4, b"\x00" * 9, b"\x10\x00\x00", b"\xff\xff\xff\xff\xff")
    for junk in tails:
        j = resumed(image0, data + junk, size + len(junk))
        assert journal_harness.state(j.game) == states[played], "tail %r" % (junk,)
        assert j.dropped == len(junk)
        power_down()
    return size, flips


def check_migration(played):
    """A version-1 journal.bin (one file, older firmware) resumes and is rewritten."""
    from app import journalformat
    rng = journal_harness.Rng(12)
    bd, j = power_up()
    journal_harness.play(j, rng, played)
    want = journal_harness.state(j.game)
    j.close()
    data = on_flash()
    # the same records as version 1: version byte 1, the chain re-seeded
    v1 = bytearray(data)
    v1[2] = 1
    crc = v1[7] = journalformat.crc8(0, v1, 0, 7)
    for pos in range(8, len(v1), 4):
        crc = v1[pos + 3] = journalformat.crc8(crc, v1, pos, 3)
    for stale in (False, True):       # with no tail, or a stale one of the same game
        j.close()
        files(v1, len(v1), read_file(ROOT + TAIL) if stale else None, TAIL_SIZE_ALL)
        assert journalformat.read_header(v1, 8) >= 0 and v1[2] == 1
        j.resume(3, 1)
        assert journal_harness.state(j.game) == want and j.records == played and j.archived is None
        assert on_flash() == data, "not rewritten as version 2"
        append_survives(j, 4, "a migration")
        j.close()
        files(data, len(data))
    power_down()
    return played


TAIL_SIZE_ALL = 1000


def check_rename():
    """Issue 12: a power cut inside the archive's rename across directories.

    littlefs finishes such a move lazily, at the next write; until then the entry
    after the moved one (journal.tail, and settings.json in the version-1 layout)
    may read as missing. Returns (cuts, cuts that hid a file at boot without
    prepare(), cuts that hid one with prepare() first)."""
    bd, j = power_up()
    write_file(ROOT + "settings.json", b'{"players": 3, "opener": 1, "brightness": 8}\n', 45)
    journal_harness.play(j, journal_harness.Rng(13), 50)
    assert j.checkpoint()       # new_game deletes it: that is cut too
    journal_harness.play(j, journal_harness.Rng(14), 10)
    before = journal_harness.state(j.game)
    j.close()
    data = on_flash()
    power_down()
    image = bytes(bd.image)
    bd, j = power_up(image)
    bd.reset_counts()
    j.new_game(2, 0)
    ops = bd.ops()
    power_down()
    hidden = hidden_after = 0
    for cut in range(ops):
        bd = cut_during(image, cut, ops, lambda j: j.new_game(2, 0))
        survivor = bytes(bd.survivor())
        # boot as the loop did: read the settings first
        mount(survivor, MNT, progsize=PROG)
        hidden += not settings_readable()
        power_down()
        # boot with prepare() first
        mount(survivor, MNT, progsize=PROG)
        prepare(ROOT)
        hidden_after += not settings_readable()
        j = Journal(Game(), ROOT)
        j.resume(3, 1)
        s = journal_harness.state(j.game)
        if s != before:
            # archived whole (the tail's records in it), a new game started
            assert j.game._n == 0, "cut at op %d" % cut
            assert read_file(ROOT + "games/000001.part") == data, "cut at op %d" % cut
        power_down()
    return ops, hidden, hidden_after


def settings_readable():
    """settings.json and journal.tail (the entries after journal.bin) both open."""
    for name in ("settings.json", TAIL):
        try:
            f = open(ROOT + name)
        except OSError:
            return False
        f.close()
    return True


def check_heap():
    import micropython
    bd, j = power_up()
    journal_harness.play(j, journal_harness.Rng(3), 20)
    j.shot(0)
    j.undo()
    j.redo()
    before = journal_harness.state(j.game)
    n = appended(j, 300)
    after = journal_harness.state(j.game)
    assert before != after and n == 900
    j.close()
    power_down()
    bd, j = power_up(bd.image)
    assert journal_harness.state(j.game) == after
    n += chosen(j, 100)
    s = journal_harness.state(j.game)
    j.close()
    power_down()
    bd, j = power_up(bd.image)
    assert journal_harness.state(j.game) == s and j.records == 201
    return n


def appended(j, rounds):
    """Miss, undo, redo `rounds` times with the heap locked; records written."""
    import micropython
    n0 = j.records
    micropython.heap_lock()
    try:
        for i in range(rounds):
            j.shot(0)
            j.undo()
            j.redo()
    finally:
        micropython.heap_unlock()
    return j.records - n0


def chosen(j, rounds):
    """Failed opening, then choice / undo / redo with the heap locked; records written."""
    import micropython
    from cowboy import facts
    j.new_game(2, 0)
    assert j.shot(facts.FIRST_NONE << facts.FIRST) == 0     # the opening missed: a choice is due
    n0 = j.records
    micropython.heap_lock()
    try:
        for i in range(rounds):
            j.choice(i & 1 == 1)
            j.undo()
    finally:
        micropython.heap_unlock()
    return j.records - n0


def _report(title, bd, marks, actions):
    print(title)
    prev = (0, 0, 0)
    for m in marks:
        print("  actions %d-%d: %.2f erases, %d bytes per action" % (
            prev[0] + 1, m[0], (m[1] - prev[1]) / (m[0] - prev[0]),
            (m[2] - prev[2]) // (m[0] - prev[0])))
        prev = m
    print("  all %d actions: %.3f erases, %d bytes per action; most-erased block: %d" % (
        actions, bd.erases / actions, bd.bytes // actions, max(bd.wear)))


def _fresh(blocks):
    """A new filesystem with the files a board has: settings.json and games/."""
    power_down()
    bd = mount(None, MNT, blocks, False, PROG)
    write_file(ROOT + "settings.json", b'{"players": 4, "opener": 0, "brightness": 8}\n', 45)
    os.mkdir(ROOT + "games")
    bd.reset_counts()
    return bd


def wear(actions, blocks):
    """Erases and bytes programmed per action: the journal, and the layouts it was
    chosen from (the same number of 4-byte records, one commit each)."""
    rng = journal_harness.Rng(5)
    bd = _fresh(blocks)
    j = Journal(Game(), ROOT)
    j.resume(3, 1)
    marks = []
    bd.reset_counts()
    for k in range(actions):
        journal_harness.play(j, rng, 1)
        if (k + 1) % 100 == 0:
            marks.append((k + 1, bd.erases, bd.bytes))
    j.close()
    _report("Journal (journal.bin + a tail of %d records; 2 files to open):" % TAIL_RECORDS,
            bd, marks, actions)
    rec = bytearray(4)
    # Version 1: one file kept open, flushed per record.
    bd = _fresh(blocks)
    f = open(ROOT + "one.bin", "wb")
    f.write(bytearray(8))
    f.flush()
    for k in range(actions):
        rec[0] = k
        f.write(rec)
        f.flush()
    f.close()
    _report("One file, appended and flushed per record (version 1; 1 file):", bd, [],
            actions)
    # Numbered chunk files of K records in a folder, each kept inline.
    for k_max in (32, 126):
        bd = _fresh(blocks)
        os.mkdir(ROOT + "seg")
        f = None
        for k in range(actions):
            if k % k_max == 0:
                if f:
                    f.close()
                f = open(ROOT + "seg/%04d" % (k // k_max), "ab")   # allocates
            rec[0] = k
            f.write(rec)
            f.flush()
        f.close()
        _report("Chunk files of %d records (%d files to open):" % (
            k_max, 1 + (actions + k_max - 1) // k_max), bd, [], actions)
    # journal.bin + a fixed-size tail of K records, rewritten whole per record.
    for k_max in (32, 56):
        bd = _fresh(blocks)
        size = 8 + 4 * k_max
        img = bytearray(size)
        records = memoryview(img)[8:]
        t = open(ROOT + "t.tail", "wb")
        b = open(ROOT + "t.bin", "wb")
        b.write(bytearray(8))
        b.flush()
        n = 0
        for k in range(actions):
            if n == k_max:
                b.write(records)
                b.flush()
                n = 0
            img[8 + 4 * n] = k & 255
            n += 1
            img[3] = n
            t.seek(0)
            t.write(img)
            t.flush()
        t.close()
        b.close()
        _report("journal.bin + a tail of %d records (%d bytes):" % (k_max, size), bd, [],
                actions)
    power_down()


def deep(g):
    """journal_harness.state and the history: the action words undo and redo reach."""
    return journal_harness.state(g) + (g._base, g.rules, g.last,
                                       tuple(g.action(p) for p in range(g.oldest(), g._top)))


def check_ckpt_write(played, older, tear):
    """A cut at every flash operation of writing a checkpoint after `played` actions
    (an older one, after `older`, on flash): the game resumes the same from the old
    checkpoint or the new one, never anything else; the next one is written whole."""
    bd, j = power_up()
    rng = journal_harness.Rng(21)
    journal_harness.play(j, rng, older)
    assert j.checkpoint()
    journal_harness.play(j, rng, played - older)
    want = deep(j.game)
    j.close()
    power_down()
    image = bytes(bd.image)
    bd, j = power_up(image)
    bd.reset_counts()
    assert j.checkpoint()
    ops = bd.ops()
    power_down()
    seen = {}
    for cut in range(ops):
        bd = cut_during(image, cut, ops, lambda j: j.checkpoint(), tear)
        bd2, j2 = power_up(bd.survivor())
        assert j2._ck_at in (older, played), "cut at op %d: checkpoint %d" % (cut, j2._ck_at)
        seen[j2._ck_at] = seen.get(j2._ck_at, 0) + 1
        assert deep(j2.game) == want, "cut at op %d: another game" % cut
        assert j2.checkpoint()          # a new one after the cut, and it is used
        journal_harness.play(j2, journal_harness.Rng(cut), 3)
        s = deep(j2.game)
        j2.close()
        power_down()
        bd3, j3 = power_up(bd2.image)
        assert j3._ck_at == played and deep(j3.game) == s, "cut at op %d: after" % cut
        power_down()
    return ops, seen.get(older, 0), seen.get(played, 0)


def check_ckpt_bytes(played, at):
    """The stream cut at every byte offset with a checkpoint after `at` records on
    flash: the state after the last whole record, from the checkpoint when the
    stream still holds its records, else by the full replay (and it is deleted)."""
    from app.journalformat import CKPT
    rng = journal_harness.Rng(22)
    bd, j = power_up()
    states = [deep(j.game)]
    for k in range(played):
        journal_harness.play(j, rng, 1)
        states.append(deep(j.game))
        if k + 1 == at:
            assert j.checkpoint()
    j.close()
    data = on_flash()
    ck = read_file(ROOT + CKPT)
    power_down()
    image0 = bytes(bd.image)
    used = 0
    for cut in range(len(data) + 1):
        k = (cut - 8) // 4 if cut >= 8 else 0
        bd, j = power_up(image0)
        j.close()
        files(data, cut)
        write_file(ROOT + CKPT, ck, len(ck))
        j.resume(3, 1)
        assert deep(j.game) == states[k], "cut at byte %d" % cut
        assert j._ck_at == (at if k >= at else 0), "cut at byte %d: checkpoint" % cut
        assert (read_file(ROOT + CKPT) == ck) == (k >= at), "cut at byte %d: kept" % cut
        used += k >= at
        append_survives(j, cut, "cut at byte %d" % cut)
        power_down()
    return len(data) + 1, used


def ckpt_wear(actions, every, blocks, detail=False):
    """Erases and bytes per action of the journal with a checkpoint every `every`
    actions (as the loop writes them: after the action's record)."""
    rng = journal_harness.Rng(5)
    bd = _fresh(blocks)
    j = Journal(Game(), ROOT)
    j.resume(3, 1)
    bd.reset_counts()
    ck = 0
    marks = []
    for k in range(actions):
        journal_harness.play(j, rng, 1)
        if every and (k + 1) % every == 0:
            assert j.checkpoint()
            ck += 1
        if (k + 1) % 250 == 0:
            marks.append((k + 1, bd.erases, bd.bytes))
    j.close()
    _report("Journal with a checkpoint every %s actions (%d written):"
            % (every or "no", ck), bd, marks if detail else [], actions)
    power_down()


def check_pico_heap(actions):
    """Resume a long game inside a Pico's heap (the RAM flash takes 48 KiB of it)."""
    import gc
    gc.collect()
    bd, j = power_up(blocks=12)
    journal_harness.play(j, journal_harness.Rng(8), actions)
    want = journal_harness.state(j.game)
    j.close()
    power_down()
    gc.collect()
    bd, j = power_up(bd.survivor())
    assert journal_harness.state(j.game) == want and j.records == actions
    return actions


def main(mode):
    if mode == "cuts":
        for played, count, tear in ((0, 140, False), (0, 140, True), (328, 20, False),
                                    (328, 20, True)):
            cuts, b, a = check_cuts(played, count, tear)
            print("actions %d-%d%s: %d cuts: %d resumed before, %d after the action"
                  % (played + 1, played + count, " (torn writes)" if tear else "",
                     cuts, b, a))
        print("OK cuts")
    elif mode == "bytes":
        size, flips = check_bytes(int(sys.argv[2]) if len(sys.argv) > 2 else 60)
        print("OK bytes %d %d" % (size, flips))
    elif mode == "migrate":
        print("OK migrate %d" % check_migration(int(sys.argv[2]) if len(sys.argv) > 2 else 70))
    elif mode == "rename":
        ops, hidden, after = check_rename()
        print("archive: %d flash operations; cut at each: a file missing at boot "
              "%d times without prepare(), %d with it" % (ops, hidden, after))
        print("OK rename %d %d" % (hidden > 0, after))
    elif mode == "heap":
        print("OK heap %d" % check_heap())
    elif mode == "pico":
        print("OK pico %d" % check_pico_heap(int(sys.argv[2])))
    elif mode == "ckpt":
        for played, older, tear in ((130, 100, False), (130, 100, True)):
            ops, old, new = check_ckpt_write(played, older, tear)
            print("checkpoint after %d (one after %d on flash)%s: %d cuts: %d resumed "
                  "from the old one, %d from the new" % (
                      played, older, " (torn writes)" if tear else "", ops, old, new))
        for played, count, tear in ((200, 20, False), (200, 20, True)):
            cuts, b, a = check_cuts(played, count, tear, ckpt=True)
            print("actions %d-%d after a checkpoint%s: %d cuts: %d before, %d after"
                  % (played + 1, played + count, " (torn writes)" if tear else "",
                     cuts, b, a))
        n, used = check_ckpt_bytes(60, 50)
        print("stream cut at %d offsets, checkpoint after 50: used %d times" % (n, used))
        print("OK ckpt")
    elif mode == "ckptwear":
        actions = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
        for every in [int(x) for x in sys.argv[3:]] or (0, 100, 200, 400):
            ckpt_wear(actions, every, 352, detail=True)
        print("OK ckptwear")
    elif mode == "wear":
        wear(int(sys.argv[2]) if len(sys.argv) > 2 else 600, 352)
        print("OK wear")


main(sys.argv[1])
