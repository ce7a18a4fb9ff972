"""The names file beside the journal under power cuts, on real littlefs (the host
micropython, host_tests/fakes/ramblock.py): run by test_board_names.py.

  save     a cut at every flash operation of replacing journal.names: the old
           names or the new ones, never anything else
  archive  a cut at every flash operation of starting a new game after a game with
           names: at boot the names belong to the old game (resumed, or archived
           as games/000001.part), never to the new one
  prune    a cut at every flash operation of an archive that prunes the oldest
           game with names: after the boot that follows, no names file without its
           game in games/, and no names.tmp (nor after a cut inside `save`)
"""
import os
import sys
import vfs

from ramblock import PowerCut, mount
from cowboy.game import Game
from app.journal import Journal, prepare, KEEP_OTHER
from app import playernames

MNT = "/fs"
ROOT = MNT + "/"
PROG = 256
OLD = [b"anna", b"ben", b"", b"", b"", b"", b"", b""]
NEW = [b"anna", "Zoë".encode(), b"", b"", b"", b"", b"", b""]
_KEEP = []


def down():
    try:
        vfs.umount(MNT)
    except Exception:
        pass


def up(image=None):
    bd = mount(image, MNT, 48, False, PROG)
    prepare(ROOT)
    j = Journal(Game(), ROOT)
    j.resume(2, 0)
    return bd, j


def read(path):
    try:
        f = open(path, "rb")
        b = f.read()
        f.close()
        return b
    except OSError:
        return None


def save():
    bd, j = up()
    playernames.save(ROOT, OLD, 2)
    j.close()
    down()
    image = bytes(bd.image)
    bd, j = up(image)
    bd.reset_counts()
    playernames.save(ROOT, NEW, 2)
    ops = bd.ops()
    down()
    old = new = 0
    for cut in range(ops + 1):       # the last: no cut
        bd, j = up(image)
        bd.cut_after(cut)
        try:
            playernames.save(ROOT, NEW, 2)
            if cut < ops:
                print("BAD no cut", cut)
        except PowerCut:
            pass
        _KEEP.append(j)
        down()
        bd, j = up(bytes(bd.survivor()))
        leftovers(cut)
        got = playernames.load(ROOT, 2)
        if got == OLD:
            old += 1
        elif got == NEW:
            new += 1
        else:
            print("BAD", cut, got)
        down()
    print("OK", ops, old, new)


def archive():
    bd, j = up()
    for f in (0, 0, 0):             # three misses
        j.shot(f)
        j.sync()
    playernames.save(ROOT, OLD, 2)
    j.close()
    down()
    image = bytes(bd.image)
    bd, j = up(image)
    bd.reset_counts()
    j.new_game(2, 0)
    ops = bd.ops()
    down()
    kept = moved = 0
    for cut in range(ops):
        bd, j = up(image)
        bd.cut_after(cut)
        try:
            j.new_game(2, 0)
            print("BAD no cut", cut)
        except PowerCut:
            pass
        _KEEP.append(j)
        down()
        bd, j = up(bytes(bd.survivor()))
        cur = playernames.load(ROOT, 2)
        arch = playernames.archived(ROOT, "games", 1, 2)
        if j.records == 3 and cur == OLD and arch is None:
            kept += 1
        elif j.records == 0 and cur == [b""] * 8 and arch == ["anna", "ben"] \
                and read(ROOT + "games/000001.part") is not None:
            moved += 1
        else:
            print("BAD", cut, j.records, cur, arch)
        down()
    print("OK", ops, kept, moved)


def leftovers(cut):
    """Say BAD for what a cut may leave and a boot must clean: names.tmp, a
    games/NNNNNN.names whose game is gone."""
    if read(ROOT + playernames.TMP) is not None:
        print("BAD names.tmp left after cut", cut)
    listed = os.listdir(ROOT + "games")
    games = [n[:6] for n in listed if not n.endswith(".names")]
    for n in listed:
        if n.endswith(".names") and n[:6] not in games:
            print("BAD", n, "without its game after cut", cut)


def prune():
    bd, j = up()
    for g in range(KEEP_OTHER + 1):     # KEEP_OTHER games kept, then one in progress
        if g:
            j.new_game(2, 0)
        j.shot(0)
        j.sync()
        playernames.save(ROOT, OLD, 2)
    j.close()
    down()
    image = bytes(bd.image)
    bd, j = up(image)
    bd.reset_counts()
    j.new_game(2, 0)                    # the archive, then the oldest pruned
    ops = bd.ops()
    if "000001.part" in os.listdir(ROOT + "games"):
        print("BAD nothing pruned")
    down()
    for cut in range(ops):
        bd, j = up(image)
        bd.cut_after(cut)
        try:
            j.new_game(2, 0)
            print("BAD no cut", cut)
        except PowerCut:
            pass
        _KEEP.append(j)
        down()
        bd, j = up(bytes(bd.survivor()))
        leftovers(cut)
        down()
    print("OK", ops)


if __name__ == "__main__":
    {"save": save, "archive": archive, "prune": prune}[sys.argv[1]]()
