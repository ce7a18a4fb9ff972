"""What a call costs under MicroPython: the figures of docs/PERFORMANCE.md, "Calls
written out". Runs on the board (as its main.py; on the emulated Pico, see there)
and under the host micropython:

    micropython tools/bench_calls.py

Each case is a loop of N calls timed against the same loop with the call's body
written out; the difference over N is the call. Every case runs with the heap
free and with micropython.heap_lock() held, as app/loop.py holds it on a stroke's
path. Then two loops on their own: the time of a turn. Prints one line per
case and `CALLS done`. Takes no options but -h/--help (tools/options.py, on the host).
"""
import sys


def _command_line():
    """On the host, -h/--help or a bad option stops here (the board passes no argv)."""
    argv = getattr(sys, "argv", None) or []
    if len(argv) > 1 or sys.implementation.name != "micropython":
        import options
        got = options.parse(argv[1:], "bench_calls", lambda: options.usage_of(__file__))
        if type(got) is int:
            sys.exit(got)
        if got[1]:
            sys.exit(options.fail("bench_calls", "takes no arguments, not %r" % got[1][0]))
        if sys.implementation.name != "micropython":
            sys.exit(options.fail("bench_calls", "runs under MicroPython: "
                                  "micropython tools/bench_calls.py"))


_command_line()

import gc  # noqa: E402
import micropython  # noqa: E402
from array import array  # noqa: E402
from time import ticks_diff, ticks_us  # noqa: E402

N = 2000


class Obj:
    def __init__(self):
        self.total = 0

    def m0(self):
        self.total += 1

    def m1(self, a):
        self.total += a

    def m3(self, a, b, c):
        self.total += a

    def big(self, a):
        b = c = d = e = f = g = h = j = k = m = a     # a frame of more than 11 words
        self.total += a


def f2(a, b):
    return a


def body0(o):
    for i in range(N):
        o.total += 1


def call0(o):
    for i in range(N):
        o.m0()


def body1(o):
    a = 1
    for i in range(N):
        o.total += a


def call1(o):
    for i in range(N):
        o.m1(1)


def call3(o):
    for i in range(N):
        o.m3(1, 2, 3)


def bodyf(o):
    for i in range(N):
        x = i      # noqa: F841


def bodyc(o):
    for i in range(N):
        x = o.total      # noqa: F841


def callf(o):
    for i in range(N):
        f2(i, o)


def bodybig(o):
    a = 1
    for i in range(N):
        b = c = d = e = f = g = h = j = k = m = a     # noqa: F841
        o.total += a


def callbig(o):
    for i in range(N):
        o.big(1)


def callc(o):
    for i in range(N):
        ticks_diff(i, o.total)


def empty(o):
    for i in range(N):
        pass


BUF = bytearray(N)


def store(o):
    b = BUF
    for i in range(N):
        b[i] = 32


# (name, the loop with the call, the loop with its body written out)
CASES = (("method, no argument", call0, body0), ("method, 1 argument", call1, body1),
         ("method, 3 arguments", call3, body1), ("function, 2 arguments", callf, bodyf),
         ("method, frame past 11 words", callbig, bodybig),
         ("function in C (time.ticks_diff), 2 arguments", callc, bodyc))
# (name, a loop): its time over N, a turn of the loop
LOOPS = (("loop turn, empty body", empty), ("loop turn, one byte stored", store))


def timed(fn, o):
    t0 = ticks_us()
    fn(o)
    return ticks_diff(ticks_us(), t0)


def main():
    o = Obj()
    us = array("i", [0] * (4 * len(CASES)))
    turns = array("i", [0] * (2 * len(LOOPS)))
    for lock in (0, 1):
        gc.collect()
        if lock:
            micropython.heap_lock()
        for i in range(len(CASES)):
            us[4 * i + 2 * lock] = timed(CASES[i][1], o)
            us[4 * i + 2 * lock + 1] = timed(CASES[i][2], o)
        for i in range(len(LOOPS)):
            turns[2 * i + lock] = timed(LOOPS[i][1], o)
        if lock:
            micropython.heap_unlock()
    for i in range(len(CASES)):
        print("CALLS %s: %.1f us a call, %.1f us with the heap locked" % (
            CASES[i][0], (us[4 * i] - us[4 * i + 1]) / N, (us[4 * i + 2] - us[4 * i + 3]) / N))
    for i in range(len(LOOPS)):
        print("CALLS %s: %.1f us, %.1f us with the heap locked" % (
            LOOPS[i][0], turns[2 * i] / N, turns[2 * i + 1] / N))
    print("CALLS done")


main()
