"""The filesystem made consistent at boot, before anything reads it.

A module of its own so that the board can run it before it draws the wiring
check without importing the journal (app/journal.py, docs/JOURNAL.md "start-up").
"""
import os

GAMES = "games"        # the journal's archive of finished games (app/journal.py)


def prepare(root="/"):
    """Make the filesystem consistent before anything reads it: call first at boot.

    A power cut inside a rename across directories (the archive) leaves littlefs a
    move to finish; until it runs its repair, which only a write triggers, the
    directory entries involved (and others in the same metadata) can read as
    missing. mkdir runs that repair first, and fails harmlessly when games/ exists.
    """
    try:
        os.mkdir(root + GAMES)
    except OSError:
        pass


def exists(path):
    return filesize(path) >= 0


def filesize(path):
    """The size of a file in bytes; -1 when there is none."""
    try:
        return os.stat(path)[6]
    except OSError:
        return -1


def remove(path):
    """Remove a file if it is there."""
    try:
        os.remove(path)
    except OSError:
        pass
