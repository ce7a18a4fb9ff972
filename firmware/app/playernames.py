"""The players' names of the game in progress on the board: `journal.names` beside
the journal (docs/JOURNAL.md, "Names"), replaced atomically, moved into games/
with its game, read back for export and the hall.

On the panel a seat's name is bytes, UTF-8, b"" for a seat without one
(`Panel.names`, views/ui.py). A record header has names for every player or none
(cowboy/names.py), so a game with some seats named gives the others `Player N`
in its file and its header (what tools/hall_archive.py calls a seat without a
name), and reading back turns `Player N` at seat N into b"" again.
"""
import os

from cowboy import names as namerules
from app import journalformat

FILE = journalformat.NAMES
TMP = journalformat.NAMES_TMP
SEATS = 8


def default(i):
    """The name a seat without one gets in a header: `Player 2` for seat 1."""
    return "Player %d" % (i + 1)


def header_names(names, players):
    """The header's "names" (a list of str) of the panel's `names` (bytes per
    seat), or None when no seat in play has one or a name is refused."""
    if not any(names[i] for i in range(players)):
        return None
    out = []
    for i in range(players):
        b = names[i]
        if not b:
            out.append(default(i))
        elif not namerules.utf8_ok(b):
            return None
        else:
            out.append(bytes(b).decode())
    return out if namerules.check(out, players) is None else None


def seat_names(lst):
    """The panel's names (SEATS bytes) of a header's names list (or None)."""
    out = [b""] * SEATS
    if lst:
        for i in range(min(len(lst), SEATS)):
            if lst[i] != default(i):
                out[i] = lst[i].encode()
    return out


def given(names):
    """The panel's names of a list of str, bytes or None per seat (up to SEATS,
    shorter: the other seats without a name); None for a seat is no name. Raises
    ValueError naming the first name cowboy/names.py refuses."""
    out = [b""] * SEATS
    if names is None:
        return out
    if len(names) > SEATS:
        raise ValueError("names: at most %d" % SEATS)
    for i in range(len(names)):
        n = names[i]
        if not n:                   # None, "" or b"" (never compared: MicroPython
            continue                # warns when a str meets bytes)
        if type(n) is not str:
            n = bytes(n)
            if not namerules.utf8_ok(n):
                raise ValueError("names: name %d is not UTF-8" % (i + 1))
            n = n.decode()
        why = namerules.check_name(n)
        if why is not None:
            raise ValueError("names: name %d %s" % (i + 1, why))
        out[i] = n.encode()
    _ready(out)
    return out


def _ready(names):
    """The layouts' folding made ready when a seat has a name (draw/fold.py prepare()),
    so that drawing it allocates nothing."""
    for n in names:
        if n:
            from draw import fold
            fold.prepare()
            return


def fingerprint(lst):
    """A small int that changes when a header's names list changes (0: none):
    what the hall publisher keys a finished game's record on besides its actions."""
    if not lst:
        return 0
    h = 5381
    for b in namerules.to_bytes(lst):
        h = (h * 33 + b) & 0xFFFFFF     # h * 33 stays below 2**30: a small int
    return h or 1


def read(path, players):
    """The header's names from the names file `path`, or None (none, or refused)."""
    try:
        f = open(path, "rb")
        try:
            b = f.read()
        finally:
            f.close()
    except OSError:
        return None
    lst, why = namerules.from_bytes(b, players)
    return lst


def load(root, players):
    """The panel's names of the game in progress (journal.names)."""
    out = seat_names(read(root + FILE, players))
    _ready(out)
    return out


def save(root, names, players):
    """Write the names of the game in progress: journal.names replaced through
    names.tmp (a littlefs rename is one commit: a power cut leaves the old file
    or the new one), or removed when no seat has a name. OSError when the flash
    fails."""
    lst = header_names(names, players)
    path = root + FILE
    if lst is None:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    tmp = root + TMP
    f = open(tmp, "wb")
    try:
        f.write(namerules.to_bytes(lst))
    finally:
        f.close()
    os.rename(tmp, path)


def archived(root, games, g, players):
    """The header's names of archived game number g (games/NNNNNN.names), or None."""
    return read("%s%s/%06d%s" % (root, games, g, journalformat.NAMES_EXT), players)
