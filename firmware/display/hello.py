"""The wiring check of an OLED build, played from a recording at start-up.

Drawn live, an OLED build's first picture (each display its player number)
waits for what it needs: display/screens.py, views, the OLED drivers, glyphs and
cells, some 150 ms of imports on the RP2040, then every seat rendered. Yet it is
the same picture at every start. `tools/deploy.py build` records it for each
build whose displays are all OLEDs on I2C (tools/hellorec.py: the I2C
transactions that Screens.settle() makes on the Pico's transport, run on the
host) and packs it with the modules as hello/<build>.bin. board/factory.py plays
it once the keys are set up, before those imports; Screens.assume() then renders
the same views and takes them as what the panels show, so the next update sends
only what changes.

Recording: MAGIC, then per transaction its I2C controller id (1 byte), address (1
byte), length (2 bytes, little-endian) and bytes.
"""
import os

from fastimport import MOUNT

MAGIC = b"CWH1"
FOLDER = "hello/"


def read(name, root="/"):
    """The recording of build `name` (a bytearray), from the mounted pack
    (fastimport.py) or else from `root`; None when there is none."""
    for base in (MOUNT + "/", root):
        path = base + FOLDER + name + ".bin"
        try:
            buf = bytearray(os.stat(path)[6])
            f = open(path, "rb")
            n = f.readinto(buf)
            f.close()
        except OSError:
            continue
        if n == len(buf) and buf[:4] == MAGIC:
            return buf
    return None


def play(data, i2cs):
    """Send a recording; `i2cs`: controller id -> bus (machine.I2C). True once all
    of it went out; False on a bus error or a malformed recording, and nothing
    more is sent: the caller then draws the check live, and a display that
    fails is found and retried there."""
    mv = memoryview(data)
    i = len(MAGIC)
    end = len(data)
    try:
        while i < end:
            n = data[i + 2] | data[i + 3] << 8
            if i + 4 + n > end:
                return False
            i2cs[data[i]].writeto(data[i + 1], mv[i + 4:i + 4 + n])
            i += 4 + n
    except (OSError, KeyError, IndexError):
        return False
    return True
