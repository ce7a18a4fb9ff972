"""Wrap-safe millisecond arithmetic in the `time.ticks_ms()` domain.

On the RP2040 ticks wrap at 2**30. These functions give the same answers on
CPython and MicroPython and keep every intermediate value below 2**30, so
they never create a long int (which would allocate) on the Pico. Every layer
uses them, rather than time.ticks_*: the host MicroPython's ticks wrap at 2**62,
CPython has none, and one definition keeps the host wrapping as the board does.
"""
from micropython import const

TICKS_MAX = const(0x3FFFFFFF)     # largest tick value; the period is TICKS_MAX + 1
_HALF = const(0x20000000)


def ticks_diff(a, b):
    """Signed ms from b to a, like time.ticks_diff(a, b), for |a - b| < 2**29."""
    d = a - b
    if d >= _HALF:
        return d - TICKS_MAX - 1
    if d < -_HALF:
        return d + TICKS_MAX + 1
    return d


def ticks_add(t, d):
    """t + d wrapped into 0..TICKS_MAX, like time.ticks_add(t, d)."""
    if d >= 0:
        if t > TICKS_MAX - d:
            return t - (TICKS_MAX - d) - 1
        return t + d
    return (t + d) & TICKS_MAX


def ticks_ms():
    """Now in ms, in the same domain (MicroPython's own clock replaces this)."""
    import time
    return int(time.monotonic() * 1000) & TICKS_MAX  # pyright: ignore[reportAttributeAccessIssue]  CPython's clock


try:
    from time import ticks_ms  # noqa: F811  # pyright: ignore[reportAssignmentType]  the port's, an int
except ImportError:
    pass

# On the board the port's own functions (in C: a call costs a third of a Python
# function's, docs/PERFORMANCE.md, "Calls written out"; the loop makes dozens a pass)
# give the same answers: the rp2 port's ticks wrap at 2**30 too.
import sys  # noqa: E402
if sys.platform == "rp2":
    from time import ticks_diff, ticks_add  # noqa: F401,F811,E402
