"""Journal on real littlefs (vfs.VfsLfs2) over host_tests/fakes/ramblock.py.

Run by test_journal_lfs.py under micropython: `micropython lfs_journal.py MODE`.
Modes print "OK <mode> ..." as their last line; any mismatch raises.
  cuts   power cut at every flash operation of one appended action
  bytes  the journal cut at every byte offset, and corrupt tails
  heap   appending with the heap locked
  wear   bytes and erases per action (printed, not checked)
"""
import sys
import os

import vfs

from ramblock import RAMBlock, PowerCut
from cowboy.game import Game
from app.journal import Journal, JOURNAL
import journal_harness as H

MNT = "/fs"
ROOT = MNT + "/"
_ABANDONED = []     # files open when the power failed: kept so no finaliser flushes them
PROG = 256          # the rp2 port mounts its flash with progsize=256, 4 KiB blocks


def power_up(image=None, blocks=48):
    """Mount a filesystem (a new one, or a surviving image) and resume the journal."""
    if image is None:
        bd = RAMBlock(blocks=blocks)
        vfs.VfsLfs2.mkfs(bd, progsize=PROG)
    else:
        bd = RAMBlock(image=image)
    vfs.mount(vfs.VfsLfs2(bd, progsize=PROG), MNT)
    j = Journal(Game(), ROOT)
    j.resume(3, 1)
    return bd, j


def power_down():
    try:
        vfs.umount(MNT)
    except Exception:
        pass


def check_cuts(played, count, tear):
    """Cut power at every flash operation of each of `count` actions after `played`."""
    rng = H.Rng(7)
    bd, j = power_up()
    H.play(j, rng, played)
    j.close()
    power_down()
    image = bytes(bd.image)
    total = seen_before = seen_after = 0
    for a in range(count):
        seed = rng.getrandbits(16)
        # The action without a cut: its state and its number of flash operations.
        bd, j = power_up(image)
        before = H.state(j.game)
        bd.reset_counts()
        r = H.Rng(seed)
        while not H.step(j, r):
            pass
        ops = bd.ops()
        after = H.state(j.game)
        j.close()
        power_down()
        next_image = bytes(bd.image)
        for cut in range(ops):
            bd = RAMBlock(image=image, tear=tear)
            vfs.mount(vfs.VfsLfs2(bd, progsize=PROG), MNT)
            j = Journal(Game(), ROOT)
            j.resume(3, 1)
            bd.cut_after(cut)
            r = H.Rng(seed)
            try:
                while not H.step(j, r):
                    pass
                raise AssertionError("no power cut at operation %d of %d" % (cut, ops))
            except PowerCut:
                pass
            _ABANDONED.append(j._f)
            power_down()
            bd2, j2 = power_up(bd.survivor())
            s = H.state(j2.game)
            if s == before:
                seen_before += 1
            elif s == after:
                seen_after += 1
            else:
                raise AssertionError("action %d, cut at op %d: neither before nor after"
                                     % (played + a, cut))
            # Appending after the recovery is clean: one more action survives a reboot.
            r = H.Rng(seed + 1)
            while not H.step(j2, r):
                pass
            s2 = H.state(j2.game)
            j2.close()
            power_down()
            bd3, j3 = power_up(bd2.image)
            assert H.state(j3.game) == s2, "cut at op %d: later append lost" % cut
            power_down()
            total += 1
        image = next_image
    return total, seen_before, seen_after


def write_file(path, data, n):
    f = open(path, "wb")
    f.write(memoryview(data)[:n])
    f.close()


def check_bytes(played):
    rng = H.Rng(11)
    bd, j = power_up()
    fresh = H.state(j.game)
    states = [fresh]
    for _ in range(played):
        H.play(j, rng, 1)
        states.append(H.state(j.game))
    j.close()
    f = open(ROOT + JOURNAL, "rb")
    data = f.read()
    f.close()
    power_down()
    image0 = bytes(bd.image)
    size = len(data)
    assert size == 8 + 4 * played
    for cut in range(size + 1):
        bd, j = power_up(image0)
        j.close()
        write_file(ROOT + JOURNAL, data, cut)
        j.resume(3, 1)
        k = (cut - 8) // 4 if cut >= 8 else 0
        assert H.state(j.game) == states[k], "cut at byte %d" % cut
        assert j.records == k
        if cut >= 8:
            assert os.stat(ROOT + JOURNAL)[6] == 8 + 4 * k, "tail not dropped at %d" % cut
        # and the next append lands on a clean tail
        r = H.Rng(cut)
        while not H.step(j, r):
            pass
        s = H.state(j.game)
        j.resume(3, 1)
        assert H.state(j.game) == s, "append after cut at byte %d lost" % cut
        power_down()
    # Every single-bit error in the last record drops just that record.
    flips = 0
    buf = bytearray(data)
    for byte in range(size - 4, size):
        for bit in range(8):
            buf[byte] ^= 1 << bit
            bd, j = power_up(image0)
            j.close()
            write_file(ROOT + JOURNAL, buf, size)
            j.resume(3, 1)
            assert H.state(j.game) == states[played - 1], "flip %d.%d" % (byte, bit)
            power_down()
            buf[byte] ^= 1 << bit
            flips += 1
    # A corrupt record in the middle: the game resumes just before it.
    mid = played // 2
    buf[8 + 4 * mid + 1] ^= 0x10
    bd, j = power_up(image0)
    j.close()
    write_file(ROOT + JOURNAL, buf, size)
    j.resume(3, 1)
    assert H.state(j.game) == states[mid]
    power_down()
    # Tails of erased flash, zeros and noise after the last record.
    tails = (b"\xff" * 7, b"\x00" * 4, b"\x00" * 9, b"\x10\x00\x00", b"\xff\xff\xff\xff\xff")
    for tail in tails:
        bd, j = power_up(image0)
        j.close()
        write_file(ROOT + JOURNAL, data + tail, size + len(tail))
        j.resume(3, 1)
        assert H.state(j.game) == states[played], "tail %r" % (tail,)
        assert j.dropped == len(tail)
        power_down()
    return size, flips


def check_heap():
    import micropython
    bd, j = power_up()
    H.play(j, H.Rng(3), 20)
    j.shot(0)
    j.undo()
    j.redo()
    before = H.state(j.game)
    n = appended(j, 300)
    after = H.state(j.game)
    assert before != after and n == 900
    j.close()
    power_down()
    bd, j = power_up(bd.image)
    assert H.state(j.game) == after
    n += chosen(j, 100)
    s = H.state(j.game)
    j.close()
    power_down()
    bd, j = power_up(bd.image)
    assert H.state(j.game) == s and j.records == 201
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
    from cowboy import facts as F
    j.new_game(2, 0)
    assert j.shot(F.FIRST_NONE << F.FIRST) == 0     # the opening missed: a choice is due
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
    print("  all %d actions: %.2f erases, %d bytes per action; most-erased block: %d" % (
        actions, bd.erases / actions, bd.bytes // actions, max(bd.wear)))


def wear(actions, blocks):
    """Erases and bytes programmed per action: journal kept open vs. reopened."""
    rng = H.Rng(5)
    bd, j = power_up(blocks=blocks)
    marks = []
    bd.reset_counts()
    for k in range(actions):
        H.play(j, rng, 1)
        if (k + 1) % 100 == 0:
            marks.append((k + 1, bd.erases, bd.bytes))
    j.close()
    power_down()
    _report("Journal (file kept open, flushed per record):", bd, marks, actions)
    # The same records with the file opened in append mode and closed per record.
    bd = RAMBlock(blocks=blocks)
    vfs.VfsLfs2.mkfs(bd, progsize=PROG)
    vfs.mount(vfs.VfsLfs2(bd, progsize=PROG), MNT)
    rec = bytearray(4)
    f = open(ROOT + JOURNAL, "wb")
    f.write(bytearray(8))
    f.close()
    bd.reset_counts()
    marks = []
    for k in range(actions):
        f = open(ROOT + JOURNAL, "ab")
        f.write(rec)
        f.close()
        if (k + 1) % 100 == 0:
            marks.append((k + 1, bd.erases, bd.bytes))
    power_down()
    _report("Reopened in append mode and closed per record:", bd, marks, actions)
    # Split into files of 32 records, each small enough to stay inline in metadata.
    bd = RAMBlock(blocks=blocks)
    vfs.VfsLfs2.mkfs(bd, progsize=PROG)
    vfs.mount(vfs.VfsLfs2(bd, progsize=PROG), MNT)
    os.mkdir(ROOT + "seg")
    bd.reset_counts()
    marks = []
    f = None
    for k in range(actions):
        if k % 32 == 0:
            if f:
                f.close()
            f = open(ROOT + "seg/%03d" % (k // 32), "ab")
        f.write(rec)
        f.flush()
        if (k + 1) % 100 == 0:
            marks.append((k + 1, bd.erases, bd.bytes))
    f.close()
    power_down()
    _report("Files of 32 records (not used: a file is opened every 32 records):", bd,
            marks, actions)


def check_pico_heap(actions):
    """Resume a long game inside a Pico's heap (the RAM flash takes 64 KiB of it)."""
    import gc
    bd, j = power_up(blocks=16)
    H.play(j, H.Rng(8), actions)
    want = H.state(j.game)
    j.close()
    power_down()
    gc.collect()
    bd, j = power_up(bd.survivor())
    assert H.state(j.game) == want and j.records == actions
    return actions


def main(mode):
    if mode == "cuts":
        for played, count, tear in ((0, 140, False), (0, 140, True), (300, 20, False),
                                    (300, 20, True)):
            cuts, b, a = check_cuts(played, count, tear)
            print("actions %d-%d%s: %d cuts: %d resumed before, %d after the action"
                  % (played + 1, played + count, " (torn writes)" if tear else "",
                     cuts, b, a))
        print("OK cuts")
    elif mode == "bytes":
        size, flips = check_bytes(int(sys.argv[2]) if len(sys.argv) > 2 else 60)
        print("OK bytes %d %d" % (size, flips))
    elif mode == "heap":
        print("OK heap %d" % check_heap())
    elif mode == "pico":
        print("OK pico %d" % check_pico_heap(int(sys.argv[2])))
    elif mode == "wear":
        wear(int(sys.argv[2]) if len(sys.argv) > 2 else 600, 352)
        print("OK wear")


main(sys.argv[1])
