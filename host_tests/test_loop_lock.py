"""The loop's heap lock under the real micropython (app/loop.py): the display passes
and a stroke's key run with the heap locked, so a function's frame goes on the C
stack (on the RP2040 a frame from the heap cost each call a search of the allocation
table: docs/PERFORMANCE.md, "Frames on the heap"); a display path that allocates
turns the lock off and is drawn again, the game going on."""
import os

import pytest

from mpy import MICROPYTHON, check

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="needs micropython")

SETUP = r"""
from fakepins import Pin
from fakebuses import CountingPin
from app import assemble
from app.settings import Settings
from board import config

now = [0]
s = Settings("/nonexistent/")
app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), {}, lambda n: CountingPin(),
               build=config.BUILDS["tm1637"], settings=s, clock=lambda: now[0])
app.start(0)
for _ in range(5000):
    now[0] += 1
    app.step(now[0])
    if now[0] > 3000 and app.idle():
        break

def locked():
    # 1 when the heap is locked (an allocation fails), else 0
    try:
        bytearray(16)
        return 0
    except MemoryError:
        return 1

def press(name):
    for level in (0, 1):
        Pin(config.PANEL[name]).drive(level)
        for _ in range(200):
            now[0] += 1
            app.step(now[0])
"""


def test_a_stroke_and_its_display_passes_run_locked():
    out = check(code=SETUP + r"""
seen = []
update = app.screens.update
def spy(game, panel, now, same=False):
    seen.append(locked())     # (appending: the list has room)
    update(game, panel, now, same)
seen.extend([None] * 64)
del seen[:]
app.screens.update = spy
event = app.panel.event
locked_events = []
locked_events.extend([None] * 8)
del locked_events[:]
def spy_event(ev, now=0):
    locked_events.append(locked())
    event(ev, now)
app.panel.event = spy_event
press("MISS")
print("LOCKED", app.locked, app.lock_errors, all(seen), len(seen) > 0,
      locked_events[:2], app.game.shooter)
""").out
    assert "LOCKED True 0 True True [1, 1] 1" in out.splitlines(), out


def test_a_display_path_that_allocates_turns_the_lock_off_and_is_drawn_again():
    out = check(code=SETUP + r"""
update = app.screens.update
calls = []
calls.extend([None] * 8)
del calls[:]
def allocating(game, panel, now, same=False):
    calls.append(locked())
    if len(calls) == 1:
        b = bytearray(100)                     # an allocation: MemoryError when locked
        calls.append("not locked")
    update(game, panel, now, same)
app.screens.update = allocating
press("MISS")
print("AFTER", app.locked, app.lock_errors, calls[:3], app.game.shooter)
""").out
    assert "AFTER False 1 [1, 0, 0] 1" in out.splitlines(), out
