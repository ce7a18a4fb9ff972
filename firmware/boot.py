"""Runs first after every reset, soft ones too (mpremote's Ctrl-D).

The watchdog may still be counting from before a soft reset, so the keeper must
feed it before any tool starts copying files (see app/watchdog.py, docs/DEPLOY.md).

First it imports the built-in modules the firmware uses. A built-in such as `time`
may be replaced by a file of that name, so MicroPython looks for time.py and
time.mpy in every folder of sys.path on each `import time` before it takes the
built-in: about 4 ms of littlefs look-ups on the Pico, every time, some twenty
times before the first picture. Imported here once with an empty search path and
kept in sys.modules, they are found at once by every later import.
"""
import sys

_path = sys.path[:]
sys.path.clear()
import array
import json
import machine
import os
import time
sys.path.extend(_path)
for _m in (array, json, machine, os, time):
    sys.modules[_m.__name__] = _m
del _path, _m

from app import watchdog  # noqa: E402

watchdog.shared(machine.WDT, machine.Timer).start()
