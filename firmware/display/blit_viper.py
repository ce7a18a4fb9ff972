"""The byte copy loops of display/blit.py as viper native code (device only).

Compiled by mpy-cross with -march=armv6m (tools/deploy.py); a port without a
native emitter (CPython, the WebAssembly MicroPython) cannot load this module,
so display/cells.py imports it only on the Pico.
"""
import micropython


@micropython.viper
def blit(dst, d: int, src, s: int, n: int, x: int):
    pd = ptr8(dst)
    ps = ptr8(src)
    i = 0
    while i < n:
        pd[d + i] = ps[s + i] ^ x
        i += 1


@micropython.viper
def fill(dst, d: int, n: int, v: int):
    pd = ptr8(dst)
    i = d
    e = d + n
    while i < e:
        pd[i] = v
        i += 1
