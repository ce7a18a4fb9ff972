"""The MicroPython releases the scoreboard is built for and tested on, named once:
tools/deploy.py's messages, tools/mpimage.py, the emulated-board tests and the
bench read them here, and host_tests/test_docs.py holds the docs to them.
"""
# The project's own images (tools/mpimage.py, `make micropython`): this release built
# from its source tag with a ROMFS partition. What `make test-pico` runs in full.
BUILT = "1.28.0"
BUILT_DATE = "2026-04-06"      # its release date: the images' build date (reproducible)
# Official images run by `make test-pico` in part (a game, the deploy cycle).
SMOKE = ("1.26.1", "1.24.1")
# The newest release, whose source is not used here: not tested on a board.
NEWEST = "1.29.0"
# The oldest release whose .mpy format (v6) the build writes.
MINIMUM = "1.23.0"
TESTED = (BUILT,) + SMOKE

DOWNLOAD = "https://micropython.org/download/%s/"        # the official images, per board
SOURCE_TAG = "v" + BUILT
SOURCE_REPO = "https://github.com/micropython/micropython"


def version(text):
    """(1, 28, 0) of "1.28.0"."""
    return tuple(int(x) for x in text.split("."))
